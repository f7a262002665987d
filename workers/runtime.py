"""The process-wide handles every task needs: object store, revision store, job repo.

Built once per process from the settings its entry point read (`Runtime.from_env(settings)`),
so a Celery worker and the embedded runner use the very same wiring; `rt.env` carries those
settings down to every task.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from quire.shared import keys
from quire.shared.files import write_atomic
from quire.shared.job import JobRepo
from quire.shared.revisions import RevisionStore, open_revision_store
from quire.shared.settings import Settings
from quire.shared.store import LocalStore, ObjectStore, open_store


@dataclass
class Runtime:
    env: Settings
    store: ObjectStore
    revisions: RevisionStore
    repo: JobRepo

    @classmethod
    def from_env(cls, env: Settings) -> Runtime:
        _ = env.deployment  # refuses a broker with stores only this host sees
        store = open_store(env.store_url, endpoint_url=env.s3_endpoint_url)
        env.state_dir.mkdir(parents=True, exist_ok=True)
        revisions = open_revision_store(env.redis_url, env.state_dir)
        return cls(env=env, store=store, revisions=revisions, repo=JobRepo(store, revisions))

    @property
    def local_root(self) -> Path | None:
        return self.store.root if isinstance(self.store, LocalStore) else None

    @contextlib.contextmanager
    def folder(self, prefix: str, only: list[str] | None = None) -> Iterator[Path]:
        """The objects under `prefix` (or just the names in `only`) as a folder: the
        store's own folder in local mode, else a temporary download (read-only use)."""
        if self.local_root is not None:
            yield self.local_root.joinpath(*prefix.strip("/").split("/"))
            return
        tmp = Path(tempfile.mkdtemp(prefix="quire-"))
        keys = self.store.list(prefix) if only is None else [prefix + n for n in only]
        try:
            for key in keys:
                target = tmp / key[len(prefix) :]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(self.store.get(key))
            yield tmp
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @contextlib.contextmanager
    def file(self, key: str) -> Iterator[Path]:
        """One object as a local file path: no copy in local mode; from S3, sources (whose
        keys are content hashes, so they never change) are downloaded once per machine."""
        if self.local_root is not None:
            yield self.local_root.joinpath(*key.split("/"))
            return
        if keys.IMMUTABLE.search(key):
            yield self._cached(key)
            return
        with tempfile.TemporaryDirectory(prefix="quire-") as tmp:
            path = Path(tmp) / key.rsplit("/", 1)[-1]
            path.write_bytes(self.store.get(key))
            yield path

    def _cached(self, key: str) -> Path:
        digest = hashlib.sha256(f"{self.store.url}/{key}".encode()).hexdigest()[:32]
        path = Path(tempfile.gettempdir()) / "quire-cache" / f"{digest}-{key.rsplit('/', 1)[-1]}"
        if not path.exists():
            write_atomic(path, self.store.get(key))  # concurrent workers never see a part
        return path
