"""Revision stores: the current revision of every document, advanced by compare-and-set.

`open_revision_store(QUIRE_REDIS_URL, local_path)` → Redis when a URL is given, else the
embedded SQLite store. The Redis backend is imported lazily so local mode never loads it.
"""

from __future__ import annotations

import os
from pathlib import Path

from quire.shared.revisions.base import RevisionStore, RevisionStoreError
from quire.shared.revisions.sqlite import SqliteRevisionStore

__all__ = [
    "DEFAULT_SQLITE_NAME",
    "RevisionStore",
    "RevisionStoreError",
    "SqliteRevisionStore",
    "open_revision_store",
]

DEFAULT_SQLITE_NAME = "revisions.sqlite3"


def open_revision_store(redis_url: str | None, local_path: str | os.PathLike[str]) -> RevisionStore:
    """Redis when `redis_url` is set; else SQLite at `local_path` (a database file, or a
    folder that gets `revisions.sqlite3`)."""
    if redis_url:
        from quire.shared.revisions.redis import RedisRevisionStore

        return RedisRevisionStore(redis_url)
    path = Path(local_path)
    if path.is_dir():
        path = path / DEFAULT_SQLITE_NAME
    return SqliteRevisionStore(path)
