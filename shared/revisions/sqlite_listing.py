"""The documents listing in the embedded SQLite revision store: tables beside `revisions`,
written inside the same transactions, queried with plain indexed SQL.

`listing` has one small row per document: its sequence number (the page order), the
revision the row describes, its state, whether it passed and its case-folded name (the
filters); `listing_entries` holds the entries as JSON, read only for the page shown.
Batches are `batches` (their order and what they hold besides documents) and `batch_docs`.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import quire.shared.revisions.listing as listing

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS listing (
        doc_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, revision INTEGER NOT NULL,
        state TEXT NOT NULL, name TEXT NOT NULL, passed INTEGER NOT NULL) WITHOUT ROWID""",
    "CREATE TABLE IF NOT EXISTS listing_entries (doc_id TEXT PRIMARY KEY, entry TEXT NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS listing_seq ON listing (seq)",
    # every filter and count reads this index alone, never the rows with their JSON
    "CREATE INDEX IF NOT EXISTS listing_filter ON listing (state, seq, passed, name, doc_id)",
    """CREATE TABLE IF NOT EXISTS batches (
        batch_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, created_at REAL NOT NULL,
        unreadable TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS batch_docs (
        batch_id TEXT NOT NULL, doc_id TEXT NOT NULL, PRIMARY KEY (batch_id, doc_id))
        WITHOUT ROWID""",
)


def put(conn: sqlite3.Connection, entry: listing.DocEntry) -> None:
    """Write the entry (inside the caller's transaction). A document keeps its place in the
    order, except that submitting it anew (back to `queued`) brings it to the top."""
    row = conn.execute(
        "SELECT seq, state FROM listing WHERE doc_id = ?", (entry.doc_id,)
    ).fetchone()
    if row is None or (entry.state == "queued" and row[1] != "queued"):
        seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM listing").fetchone()[0]
    else:
        seq = row[0]
    conn.execute(
        "INSERT INTO listing (doc_id, seq, revision, state, name, passed) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(doc_id) DO UPDATE SET seq = excluded.seq, "
        "revision = excluded.revision, state = excluded.state, name = excluded.name, "
        "passed = excluded.passed",
        (entry.doc_id, seq, entry.revision, entry.state, entry.name_key, int(entry.passed)),
    )
    conn.execute(
        "INSERT INTO listing_entries (doc_id, entry) VALUES (?, ?) "
        "ON CONFLICT(doc_id) DO UPDATE SET entry = excluded.entry",
        (entry.doc_id, entry.model_dump_json()),
    )


def unlisted(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute(
        "SELECT r.doc_id FROM revisions r LEFT JOIN listing l ON l.doc_id = r.doc_id "
        "WHERE l.revision IS NULL OR l.revision != r.rev ORDER BY r.doc_id"
    ).fetchall()
    return [str(r[0]) for r in rows]


def _source(query: listing.DocQuery) -> tuple[str, list[str], list[Any]]:
    """The FROM clause of a query with the WHERE terms of its name and batch filters, and
    their parameters. A batch's documents are joined from its membership: one primary-key
    lookup each, instead of a scan of the whole listing."""
    source, terms, params = "listing l", [], []
    if query.batch is not None:
        source = "batch_docs b JOIN listing l ON l.doc_id = b.doc_id"
        terms.append("b.batch_id = ?")
        params.append(query.batch)
    if query.needle:
        terms.append("instr(l.name, ?) > 0")  # a plain substring: no LIKE wildcards to escape
        params.append(query.needle)
    return source, terms, params


def _where(terms: list[str]) -> str:
    return " WHERE " + " AND ".join(terms) if terms else ""


def entries(conn: sqlite3.Connection, query: listing.DocQuery) -> listing.DocPage:
    source, terms, params = _source(query)
    counts: dict[str, int] = {}
    passed = 0
    for state, n, ok in conn.execute(
        f"SELECT l.state, COUNT(*), SUM(l.passed) FROM {source}{_where(terms)} GROUP BY l.state",
        params,
    ):
        counts[str(state)] = int(n)
        passed += int(ok)
    total = sum(n for s, n in counts.items() if not query.states or s in query.states)
    found: list[tuple[str, int]] = []
    if query.limit:
        if query.states:
            terms.append(f"l.state IN ({', '.join('?' * len(query.states))})")
            params.extend(query.states)
        newer = query.before is not None
        if newer or query.after is not None:
            terms.append("l.seq > ?" if newer else "l.seq < ?")
            params.append(query.before if newer else query.after)
        found = conn.execute(
            f"SELECT e.entry, p.seq FROM (SELECT l.doc_id, l.seq FROM {source}{_where(terms)} "
            f"ORDER BY l.seq {'ASC' if newer else 'DESC'} LIMIT ?) p "
            "JOIN listing_entries e ON e.doc_id = p.doc_id",
            [*params, query.limit + 1],
        ).fetchall()
    rows = [(listing.DocEntry.model_validate_json(e), int(seq)) for e, seq in found]
    return listing.doc_page(rows, query, total=total, counts=counts, passed=passed)


def index_batch(conn: sqlite3.Connection, batch: listing.BatchEntry) -> None:
    seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM batches").fetchone()[0]
    conn.execute(
        "INSERT INTO batches (batch_id, seq, created_at, unreadable) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(batch_id) DO UPDATE SET created_at = excluded.created_at, "
        "unreadable = excluded.unreadable",
        (
            batch.batch_id,
            seq,
            batch.created_at,
            listing.UNREADABLE.dump_json(batch.unreadable).decode(),
        ),
    )
    conn.executemany(
        "INSERT OR IGNORE INTO batch_docs (batch_id, doc_id) VALUES (?, ?)",
        [(batch.batch_id, d) for d in batch.doc_ids],
    )


_BATCH = (
    "SELECT b.batch_id, b.created_at, b.unreadable, b.seq, "
    "(SELECT COUNT(*) FROM batch_docs d WHERE d.batch_id = b.batch_id) FROM batches b"
)


def _info(row: tuple[Any, ...]) -> listing.BatchInfo:
    batch_id, created, unreadable, _, docs = row
    items = listing.UNREADABLE.validate_json(unreadable)
    return listing.BatchInfo(
        batch_id=batch_id, created_at=created, documents=docs + len(items), unreadable=items
    )


def batches(conn: sqlite3.Connection, after: int | None, limit: int) -> listing.BatchPage:
    rows = conn.execute(
        f"{_BATCH} WHERE ? IS NULL OR b.seq < ? ORDER BY b.seq DESC LIMIT ?",
        (after, after, limit + 1),
    ).fetchall()
    more = len(rows) > limit
    rows = rows[:limit]
    return listing.BatchPage(
        batches=[_info(r) for r in rows], next_after=rows[-1][3] if more else None
    )


def batch(conn: sqlite3.Connection, batch_id: str) -> listing.BatchInfo | None:
    row = conn.execute(f"{_BATCH} WHERE b.batch_id = ?", (batch_id,)).fetchone()
    return _info(row) if row else None
