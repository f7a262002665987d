"""LocalStore: objects as files under one folder (the embedded default).

Writes go to a temporary file in the target folder, are fsynced, then renamed into place
(`os.replace`), so readers never see a partial object. `put_if_absent` hard-links the
finished temporary file to the final name: `link` fails if the name exists, which makes the
create-only write atomic across threads and processes on a POSIX filesystem.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from quire.shared.files import write_temp
from quire.shared.store.base import (
    TMP_PREFIX,
    NotFound,
    ObjectStore,
    StoreError,
    validate_key,
    validate_prefix,
)


class LocalStore(ObjectStore):
    def __init__(self, root: str | os.PathLike[str], *, fsync: bool = True) -> None:
        self.root = Path(root).expanduser().resolve()
        self.fsync = fsync
        self.root.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return self.root.as_uri()

    def _path(self, key: str) -> Path:
        return self.root.joinpath(*validate_key(key).split("/"))

    def _write_temp(self, path: Path, data: bytes) -> Path:
        """Write `data` to a fresh temp file beside `path`; return the temp file."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as exc:
            raise StoreError(
                "key conflicts with an existing object (a parent is an object)",
                source=self.url,
            ) from exc
        return write_temp(path, data, fsync=self.fsync)

    def put(self, key: str, data: bytes) -> None:
        path = self._path(key)
        tmp = self._write_temp(path, bytes(data))
        try:
            os.replace(tmp, path)
        except IsADirectoryError as exc:
            os.unlink(tmp)
            raise StoreError(f"key {key!r} is a prefix of other objects", source=self.url) from exc
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise

    def put_if_absent(self, key: str, data: bytes) -> bool:
        path = self._path(key)
        tmp = self._write_temp(path, bytes(data))
        try:
            os.link(tmp, path)
            return True
        except FileExistsError:
            return False
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)

    def get(self, key: str) -> bytes:
        path = self._path(key)
        try:
            return path.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise NotFound(f"no object {key!r}", source=self.url) from None

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def list(self, prefix: str = "") -> list[str]:
        validate_prefix(prefix)
        # Walk only the deepest folder the prefix fully names, then filter by string prefix
        # (S3 semantics: "docs/ab" matches "docs/abc/x").
        folder = prefix.rpartition("/")[0]
        base = self.root.joinpath(*folder.split("/")) if folder else self.root
        keys: list[str] = []
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if not d.startswith(TMP_PREFIX)]
            rel_dir = os.path.relpath(dirpath, self.root)
            rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/"
            for name in filenames:
                if name.startswith(TMP_PREFIX):
                    continue
                key = rel_dir + name
                if key.startswith(prefix):
                    keys.append(key)
        keys.sort()
        return keys

    def delete(self, key: str) -> None:
        path = self._path(key)
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            if path.is_dir():  # a prefix of other keys, not an object: nothing to delete
                return
            path.unlink()
