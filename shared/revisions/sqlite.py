"""SqliteRevisionStore: the embedded revision store for local mode.

Safe across threads and processes: WAL journal, a busy timeout, and every CAS inside
`BEGIN IMMEDIATE`, which takes the database's write lock before reading, so no other writer
can slip between the read and the write; a document's listing entry is written in the same
transaction (`sqlite_listing.py`). Threads of one process also queue on a local lock
first, which avoids spinning in SQLite's busy handler. One connection per thread and process
(sqlite3 connections must not cross a fork).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import quire.shared.revisions.listing as listing
from quire.shared.errors import TransientError
from quire.shared.revisions import sqlite_listing as sql
from quire.shared.revisions.base import RevisionStore, check_doc_id, check_rev

T = TypeVar("T")
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS revisions (doc_id TEXT PRIMARY KEY, rev INTEGER NOT NULL)",
    # `expires`: seconds since the epoch; every process using the file shares one clock
    "CREATE TABLE IF NOT EXISTS leases (doc_id TEXT PRIMARY KEY, owner TEXT NOT NULL, "
    "expires REAL NOT NULL)",
)


class SqliteRevisionStore(RevisionStore):
    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._reset_process_state()
        self._init_db()

    def __repr__(self) -> str:
        return f"SqliteRevisionStore({str(self.path)!r})"

    def _reset_process_state(self) -> None:
        self._pid = os.getpid()
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._conns: list[sqlite3.Connection] = []
        self._conns_lock = threading.Lock()

    def _conn(self) -> sqlite3.Connection:
        if self._pid != os.getpid():  # forked: the parent's connections and locks are not ours
            self._reset_process_state()
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
            with self._conns_lock:
                self._conns.append(conn)
        return conn

    def _init_db(self) -> None:
        conn = self._conn()
        deadline = time.monotonic() + self.timeout
        while True:  # switching to WAL needs a moment of exclusive access
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                for statement in (*_SCHEMA, *sql.SCHEMA):
                    conn.execute(statement)
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise TransientError(f"revision database busy: {exc}") from exc
                time.sleep(0.01)

    def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        try:
            return fn(self._conn())
        except sqlite3.OperationalError as exc:
            raise TransientError(f"revision database unavailable: {exc}") from exc

    def _write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """`fn` inside one write transaction, taken before anything is read."""
        conn = self._conn()
        with self._write_lock:
            try:  # BEGIN inside: a Ctrl-C just after it must not leave the transaction open
                conn.execute("BEGIN IMMEDIATE")
                result = fn(conn)
                conn.execute("COMMIT")
                return result
            except BaseException as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError):
                    raise TransientError(f"revision database busy: {exc}") from exc
                raise

    @staticmethod
    def _rev(conn: sqlite3.Connection, doc_id: str) -> int:
        row = conn.execute("SELECT rev FROM revisions WHERE doc_id = ?", (doc_id,)).fetchone()
        return int(row[0]) if row else 0

    @staticmethod
    def _set(
        conn: sqlite3.Connection, doc_id: str, rev: int, entry: listing.DocEntry | None
    ) -> None:
        conn.execute(
            "INSERT INTO revisions (doc_id, rev) VALUES (?, ?) "
            "ON CONFLICT(doc_id) DO UPDATE SET rev = excluded.rev",
            (doc_id, rev),
        )
        if entry is not None:
            sql.put(conn, listing.entry_at(entry, doc_id, rev))

    def current(self, doc_id: str) -> int:
        check_doc_id(doc_id)
        return self._read(lambda conn: self._rev(conn, doc_id))

    def compare_and_set(
        self, doc_id: str, expected: int, new: int, entry: listing.DocEntry | None = None
    ) -> bool:
        check_doc_id(doc_id)
        check_rev(expected)
        check_rev(new)

        def cas(conn: sqlite3.Connection) -> bool:
            if self._rev(conn, doc_id) != expected:
                return False
            self._set(conn, doc_id, new, entry)
            return True

        return self._write(cas)

    def claim_lease(
        self, doc_id: str, owner: str, ttl: float, *, replacing: str | None = None
    ) -> str | None:
        check_doc_id(doc_id)

        def claim(conn: sqlite3.Connection) -> str | None:
            now = time.time()
            row = conn.execute(
                "SELECT owner, expires FROM leases WHERE doc_id = ?", (doc_id,)
            ).fetchone()
            if row and row[1] > now and row[0] not in (owner, replacing):
                return str(row[0])
            conn.execute(
                "INSERT INTO leases (doc_id, owner, expires) VALUES (?, ?, ?) ON CONFLICT(doc_id)"
                " DO UPDATE SET owner = excluded.owner, expires = excluded.expires",
                (doc_id, owner, now + ttl),
            )
            return None

        return self._write(claim)

    def release_lease(self, doc_id: str, owner: str) -> None:
        check_doc_id(doc_id)
        self._write(
            lambda conn: conn.execute(
                "DELETE FROM leases WHERE doc_id = ? AND owner = ?", (doc_id, owner)
            )
        )

    def lease_holder(self, doc_id: str) -> str | None:
        check_doc_id(doc_id)
        row = self._read(
            lambda conn: conn.execute(
                "SELECT owner FROM leases WHERE doc_id = ? AND expires > ?", (doc_id, time.time())
            ).fetchone()
        )
        return str(row[0]) if row else None

    def force(self, doc_id: str, value: int, entry: listing.DocEntry | None = None) -> None:
        check_doc_id(doc_id)
        check_rev(value)
        self._write(lambda conn: self._set(conn, doc_id, value, entry))

    def list_docs(self) -> list[str]:
        rows = self._read(
            lambda conn: conn.execute("SELECT doc_id FROM revisions ORDER BY doc_id").fetchall()
        )
        return sorted(str(r[0]) for r in rows)

    def put_entry(self, entry: listing.DocEntry) -> bool:
        def put(conn: sqlite3.Connection) -> bool:
            if self._rev(conn, entry.doc_id) != entry.revision:
                return False
            sql.put(conn, entry)
            return True

        return self._write(put)

    def unlisted(self) -> list[str]:
        return self._read(sql.unlisted)

    def entries(self, query: listing.DocQuery) -> listing.DocPage:
        return self._read(lambda conn: sql.entries(conn, query))

    def index_batch(self, batch: listing.BatchEntry) -> None:
        self._write(lambda conn: sql.index_batch(conn, batch))

    def batches(self, after: int | None = None, limit: int = 50) -> listing.BatchPage:
        return self._read(lambda conn: sql.batches(conn, after, limit))

    def batch(self, batch_id: str) -> listing.BatchInfo | None:
        return self._read(lambda conn: sql.batch(conn, batch_id))

    def close(self) -> None:
        with self._conns_lock:
            conns, self._conns = self._conns, []
        for conn in conns:
            conn.close()
        self._local = threading.local()
