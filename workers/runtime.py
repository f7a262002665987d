"""The process-wide handles every task needs: object store, revision store, session repo.

Built once per process from the environment (`Runtime.from_env()`), so a Celery worker and
the embedded runner use the very same wiring.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from shared.config import Environment
from shared.revisions import RevisionStore, open_revision_store
from shared.session import SessionRepo
from shared.store import LocalStore, ObjectStore, open_store


@dataclass
class Runtime:
    env: Environment
    store: ObjectStore
    revisions: RevisionStore
    repo: SessionRepo

    @classmethod
    def from_env(cls, env: Environment | None = None) -> Runtime:
        env = env or Environment.from_env()
        store = open_store(env.store_url)
        env.state_dir.mkdir(parents=True, exist_ok=True)
        revisions = open_revision_store(env.redis_url, env.state_dir)
        return cls(env=env, store=store, revisions=revisions,
                   repo=SessionRepo(store, revisions))

    @property
    def local_root(self) -> Path | None:
        return self.store.root if isinstance(self.store, LocalStore) else None

    @contextlib.contextmanager
    def folder(self, prefix: str) -> Iterator[Path]:
        """The objects under `prefix` as a folder: the store's own folder in local mode,
        else a temporary download (read-only use)."""
        if self.local_root is not None:
            yield self.local_root.joinpath(*prefix.strip("/").split("/"))
            return
        tmp = Path(tempfile.mkdtemp(prefix="quire-"))
        try:
            for key in self.store.list(prefix):
                target = tmp / key[len(prefix):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(self.store.get(key))
            yield tmp
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @contextlib.contextmanager
    def file(self, key: str) -> Iterator[Path]:
        """One object as a local file path (no copy in local mode)."""
        if self.local_root is not None:
            yield self.local_root.joinpath(*key.split("/"))
            return
        with tempfile.TemporaryDirectory(prefix="quire-") as tmp:
            path = Path(tmp) / key.rsplit("/", 1)[-1]
            path.write_bytes(self.store.get(key))
            yield path
