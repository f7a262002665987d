"""Writing local files so that a reader never sees a partial one: the one atomic writer.

The bytes go to a fresh temporary file beside the target (same filesystem), optionally
fsynced, and are renamed into place with `os.replace`; a failure leaves no temporary behind.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

TMP_PREFIX = ".quire-tmp-"  # listings skip these: they are never finished objects


def write_temp(path: Path, data: bytes, *, fsync: bool = False) -> Path:
    """Write `data` to a new temporary file beside `path` (created exclusively) and return
    it; the caller renames or links it into place."""
    tmp = path.parent / f"{TMP_PREFIX}{path.name[:64]}-{os.urandom(8).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return tmp


def write_atomic(path: Path, data: bytes | str, *, fsync: bool = False) -> None:
    """Replace `path` with `data` (str is written as UTF-8), creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = write_temp(path, data.encode("utf-8") if isinstance(data, str) else data, fsync=fsync)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
