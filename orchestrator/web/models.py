"""Response models of the HTTP API (its OpenAPI schema).

Where a stored model already says it, the response is that model or extends it — a session
is its `ChunkPlan` plus where it was written, a boundary its `Boundary` plus the reviewers'
votes — so a field added to the pipeline's models appears in the API without a change here.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from quire.shared.analysis import ChunkAnalysis
from quire.shared.backend_usage import BackendUsage
from quire.shared.config import RunSettings
from quire.shared.ir import OutlineEntry, SkippedPage
from quire.shared.manifest import Finding
from quire.shared.plan import Boundary, ChunkPlan, PlanSettings, ReviewOutcome


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorBody(_Out):
    code: str  # stable and machine-readable, e.g. "not_found", "too_large"
    message: str  # for people
    doc_id: str | None = None  # the document the error concerns, when there is one


class ErrorOut(_Out):
    error: ErrorBody


class Health(_Out):
    status: Literal["ok"] = "ok"
    mode: Literal["embedded", "distributed"]
    version: str


class DocumentOut(_Out):
    """One document's state and progress."""

    doc_id: str
    source_name: str
    source_format: Literal["pdf", "docx", "epub", "html"]
    state: str
    revision: int
    pages: int | None  # PDF pages, or words / 400 for DOCX once parsed
    progress: float  # 0..1 of the document's work (a rough cost model per state)
    parts_done: int  # of the current state's parts
    parts_total: int
    sessions: int | None  # once written
    verification: Literal["passed", "failed"] | None
    seconds: float | None  # processing time (what its parts ran, not queue time), once stopped
    updated_at: float  # when the current revision was committed (Unix time)
    error_code: str | None = None
    error: str | None = None


class DocumentPage(_Out):
    """A page of documents, most recently submitted first."""

    documents: list[DocumentOut]
    next_cursor: str | None  # older documents: pass as `cursor`; None on the last page
    prev_cursor: str | None  # newer documents; None on the first page
    total: int  # documents matching the filters, on all pages
    counts: dict[str, int]  # documents per state under the name and batch filters


class RevisionOut(_Out):
    revision: int
    state: str
    actor: str
    why: str
    committed_at: float


class DocumentDetail(DocumentOut):
    settings: RunSettings
    stages: list[str]  # the pipeline's working states, in order
    history: list[RevisionOut]


class Submitted(_Out):
    created: bool  # False: these bytes were submitted before (documents are content-keyed)
    document: DocumentOut


class BoundaryOut(Boundary):
    """A cut the plan made, with the reviewers' votes on that transition (None when it was
    not reviewed, e.g. a cut below the change-score threshold or a forced cut)."""

    review: ReviewOutcome | None = None


class SessionOut(ChunkPlan):
    """A study session as planned, with the files it was written to and how verification
    found it."""

    markdown_file: str | None = None
    pdf_file: str | None = None
    findings: int = 0  # verification findings in this session
    coherence: Literal["confident", "needs_review"] | None = None  # from its analysis
    ends_at: BoundaryOut | None = None  # the cut this session ends at; None: end of document


class PlanOut(_Out):
    doc_id: str
    settings: PlanSettings
    sessions: list[SessionOut]


class SessionDetail(SessionOut):
    starts_after: BoundaryOut | None = None  # the cut before it; None: start of the document
    analysis: ChunkAnalysis | None = None
    verification_findings: list[Finding] = Field(default_factory=list)
    previous: int | None = None
    next: int | None = None


class PagesOut(_Out):
    """The book's pages: how many, the outline (chapter starts) and pages without text."""

    doc_id: str
    page_count: int
    page_basis: Literal["pdf", "words", "print"]
    outline: list[OutlineEntry]
    skipped_pages: list[SkippedPage]


class ReviewReport(_Out):
    """`semantic-review-report.json`: the reviewers' votes on every candidate transition."""

    model_config = ConfigDict(extra="ignore")

    backend: str
    candidates: int
    reviewed: int
    confirmed_changes: int
    failed: int
    outcomes: list[ReviewOutcome]
    # with an LLM backend: modes used and refused, calls, re-asks and fallbacks per role
    backend_usage: BackendUsage | None = None


class BatchSummary(_Out):
    batch_id: str
    created_at: float
    documents: int
    counts: dict[str, int]  # documents per state
    finished: bool
    ok: bool


class BatchList(_Out):
    """A page of batches, newest first."""

    batches: list[BatchSummary]
    next_cursor: str | None  # older batches: pass as `cursor`; None on the last page
