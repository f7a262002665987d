"""Documents and batches a page at a time, read from the revision store's listing (one
indexed query per page, whatever the size of the library; see `shared/revisions/listing.py`).

A cursor is opaque to clients: it names the side (older or newer documents) and the listing
sequence number of the last document shown, so documents submitted meanwhile never shift
the page a client asks for next.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Literal

from quire.orchestrator.batch import index_batches, stage_fraction
from quire.orchestrator.web.errors import ApiError
from quire.orchestrator.web.models import BatchList, BatchSummary, DocumentOut, DocumentPage
from quire.orchestrator.web.redact import hide_paths, server_roots
from quire.orchestrator.web.views import STATES, WORKING
from quire.shared.job import STOPPED
from quire.shared.revisions.listing import MAX_LIMIT, BatchInfo, DocEntry, DocQuery
from quire.workers.runtime import Runtime

Side = Literal["after", "before"]
_CURSOR = re.compile(r"([db])([ab])(\d{1,15})")


def states_of(values: list[str]) -> tuple[str, ...]:
    """The states a `state` filter names (repeated or comma-separated; "running" is every
    working state); an unknown name is refused with the names there are."""
    found: list[str] = []
    for value in values:
        for name in filter(None, (v.strip() for v in value.split(","))):
            if name == "running":
                found += WORKING
            elif name in STATES:
                found.append(name)
            else:
                raise ApiError(
                    422,
                    "invalid_request",
                    f"no state {name!r}: use running or one of {', '.join(STATES)}",
                )
    return tuple(dict.fromkeys(found))


def cursor(kind: Literal["d", "b"], side: Side, seq: int) -> str:
    raw = f"{kind}{side[0]}{seq}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def read_cursor(token: str, kind: Literal["d", "b"]) -> tuple[Side, int]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raw = ""
    m = _CURSOR.fullmatch(raw)
    if m is None or m.group(1) != kind or (kind == "b" and m.group(2) != "a"):
        what = "documents" if kind == "d" else "batches"
        raise ApiError(
            422,
            "bad_cursor",
            f"{token!r} is not a cursor of this list of {what}: pass a "
            "next_cursor or prev_cursor as it was given, or leave it out for the first page",
        )
    return ("after" if m.group(2) == "a" else "before"), int(m.group(3))


def document_out(e: DocEntry, roots: list[str], progress: float | None = None) -> DocumentOut:
    """A listed document as the API shows it (no server path in its failure reason);
    `progress` by default from its current state's parts."""
    if progress is None:
        progress = stage_fraction(e.state, e.parts_done, e.parts_total)
    return DocumentOut(
        **e.model_dump(exclude={"error"}),
        progress=round(progress, 3),
        error=hide_paths(e.error, roots) if e.error else None,
    )


def documents(
    rt: Runtime,
    *,
    states: tuple[str, ...] = (),
    name: str = "",
    batch: str | None = None,
    at: str | None = None,
    limit: int = 50,
) -> DocumentPage:
    """The page of documents the filters and the cursor `at` name."""
    side, seq = read_cursor(at, "d") if at else (None, None)
    query = DocQuery(
        states=states,
        name=name,
        batch=batch,
        after=seq if side == "after" else None,
        before=seq if side == "before" else None,
        limit=limit,
    )
    page = rt.revisions.entries(query)
    if side == "before" and page.prev_before is None:  # back at the top: a full first page
        page = rt.revisions.entries(query.model_copy(update={"before": None}))
    return DocumentPage(
        documents=[document_out(e, server_roots(rt)) for e in page.entries],
        next_cursor=None if page.next_after is None else cursor("d", "after", page.next_after),
        prev_cursor=None if page.prev_before is None else cursor("d", "before", page.prev_before),
        total=page.total,
        counts=page.counts,
    )


def batch_summary(rt: Runtime, info: BatchInfo) -> BatchSummary:
    """A batch's documents per state (an unreadable source counts as failed), from the
    listing's counts."""
    found = rt.revisions.entries(DocQuery(batch=info.batch_id, limit=0))
    counts = dict(found.counts)
    if info.unreadable:
        counts["failed"] = counts.get("failed", 0) + len(info.unreadable)
    listed = sum(counts.values())
    return BatchSummary(
        batch_id=info.batch_id,
        created_at=info.created_at,
        documents=info.documents,
        counts=counts,
        finished=listed == info.documents and all(s in STOPPED for s in counts),
        ok=info.documents > 0 and found.passed == info.documents,
    )


def batches(rt: Runtime, *, at: str | None = None, limit: int = 50) -> BatchList:
    after = read_cursor(at, "b")[1] if at else None
    page = rt.revisions.batches(after, limit)
    return BatchList(
        batches=[batch_summary(rt, b) for b in page.batches],
        next_cursor=None if page.next_after is None else cursor("b", "after", page.next_after),
    )


def sync(rt: Runtime) -> tuple[int, int]:
    """Bring the listing up to date with the store (documents and batches recorded before
    it existed, or a revision store rebuilt without it): (documents, batches) listed."""
    return rt.repo.relist(), index_batches(rt)


def unfinished(rt: Runtime) -> list[str]:
    """Every document that is neither stopped nor waiting: what a server resumes."""
    found: list[str] = []
    query = DocQuery(states=("queued", *WORKING), limit=MAX_LIMIT)
    while True:
        page = rt.revisions.entries(query)
        found += [e.doc_id for e in page.entries]
        if page.next_after is None:
            return found
        query = query.model_copy(update={"after": page.next_after})
