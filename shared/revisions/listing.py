"""The documents listing every revision store keeps beside the revisions: one small entry per
document and the membership of batches, so that a page of a library of 10,000 documents is
one indexed query instead of 10,000 job reads.

An entry is written in the same atomic step as the revision it describes (`JobRepo`
builds it; the store writes it with its compare-and-set), so the listing is exact under any
number of committing processes. Documents are ordered newest first by a sequence number the
store hands out when a document is first listed (and again when it is submitted anew); a
page continues after the last sequence number it showed, so documents submitted meanwhile
never shift the pages a client is walking through.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from quire.shared.keys import out
from quire.shared.layout import Layout
from quire.shared.store.base import NotFound, ObjectStore

MAX_LIMIT = 200  # entries per page, at most


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DocEntry(_Model):
    """One document as lists show it: what its job at `revision` says, and for a
    stopped document what its outputs say (sessions written, verification)."""

    doc_id: str
    revision: int
    source_name: str
    source_format: Literal["pdf", "docx", "epub", "html"]
    state: str
    pages: int | None = None  # PDF pages, or words / 400 for a DOCX once written
    parts_done: int = 0  # of the current state's parts
    parts_total: int = 0
    updated_at: float = 0.0  # when this revision was committed
    seconds: float | None = None  # processing time, once stopped
    sessions: int | None = None  # once written
    verification: Literal["passed", "failed"] | None = None
    error_code: str | None = None
    error: str | None = None

    @property
    def name_key(self) -> str:
        """What a name search matches against (case-insensitive in every script)."""
        return self.source_name.casefold()

    @property
    def passed(self) -> bool:
        return self.state == "complete" and self.verification == "passed"


class DocQuery(_Model):
    """Which documents, and which page of them: the first, the one after a sequence number
    (older documents) or the one before it (newer documents)."""

    states: tuple[str, ...] = ()  # any of these; empty: every state
    name: str = ""  # a substring of the source name, any case
    batch: str | None = None  # only the documents of this batch
    after: int | None = None  # the page of documents listed before this sequence number
    before: int | None = None  # the page of documents listed after it
    limit: int = Field(50, ge=0, le=MAX_LIMIT)  # 0: only the counts

    @model_validator(mode="after")
    def _one_way(self) -> DocQuery:
        if self.after is not None and self.before is not None:
            raise ValueError("a page goes after a document or before one, not both")
        return self

    @property
    def needle(self) -> str:
        return self.name.casefold()


class DocPage(_Model):
    entries: list[DocEntry]
    next_after: int | None  # where the next (older) page starts; None on the last page
    prev_before: int | None  # where the previous (newer) page ends; None on the first page
    total: int  # documents matching the whole query, on every page
    counts: dict[str, int]  # documents per state under the name and batch filters
    passed: int  # of those, complete with verification passed


def doc_page(
    rows: list[tuple[DocEntry, int]],
    query: DocQuery,
    *,
    total: int,
    counts: dict[str, int],
    passed: int,
) -> DocPage:
    """The page from the rows a store found: up to `limit + 1` next to the cursor on its
    side (the one beyond the limit only says there is more), in any order."""
    rows = sorted(rows, key=lambda r: -r[1])
    more = len(rows) > query.limit
    if query.before is None:
        rows = rows[: query.limit]
        older = rows[-1][1] if more else None
        newer = rows[0][1] if rows and query.after is not None else None
    else:
        rows = rows[len(rows) - query.limit :] if more else rows
        older = rows[-1][1] if rows else None
        newer = rows[0][1] if more else None
    return DocPage(
        entries=[e for e, _ in rows],
        next_after=older,
        prev_before=newer,
        total=total,
        counts=counts,
        passed=passed,
    )


class Unreadable(_Model):
    """A batch item that never became a document (its source could not be read)."""

    name: str
    origin: str
    error: str | None = None


UNREADABLE = TypeAdapter(list[Unreadable])


class BatchEntry(_Model):
    """What the listing keeps of a batch: its documents and the items that are none."""

    batch_id: str
    created_at: float
    doc_ids: list[str]
    unreadable: list[Unreadable] = []


class BatchInfo(_Model):
    batch_id: str
    created_at: float
    documents: int  # its items: documents and unreadable sources
    unreadable: list[Unreadable] = []


class BatchPage(_Model):
    batches: list[BatchInfo]
    next_after: int | None


def entry_at(entry: DocEntry, doc_id: str, revision: int) -> DocEntry:
    """The entry, checked to describe the document and revision it is written with."""
    if entry.doc_id != doc_id or entry.revision != revision:
        raise ValueError(
            f"entry of {entry.doc_id}@{entry.revision} written with {doc_id}@{revision}"
        )
    return entry


class _Verdict(BaseModel):
    model_config = ConfigDict(extra="ignore")
    passed: bool


class _Written(BaseModel):
    model_config = ConfigDict(extra="ignore")
    page_count: int
    chunk_count: int


class OutputFacts(_Model):
    """What a stopped document's outputs add to its entry."""

    pages: int | None = None
    sessions: int | None = None
    verification: Literal["passed", "failed"] | None = None


def output_facts(store: ObjectStore, doc_id: str) -> OutputFacts:
    """Sessions written, pages and verification from the manifest and the verification
    report (two small reads, once per stop; neither is parsed beyond the fields needed)."""
    facts = OutputFacts()
    try:
        written = _Written.model_validate_json(store.get(out(doc_id, Layout.MANIFEST)))
        facts.pages, facts.sessions = written.page_count, written.chunk_count
    except NotFound:
        pass
    try:
        report = _Verdict.model_validate_json(store.get(out(doc_id, Layout.VERIFICATION)))
        facts.verification = "passed" if report.passed else "failed"
    except NotFound:
        pass
    return facts
