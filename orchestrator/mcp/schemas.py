"""The tools' inputs and outputs. Their JSON schemas are the tools' input and output schemas,
so every field's type, bounds and description is what the host's model reads."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from quire.orchestrator import agent, agent_reviews
from quire.shared.analysis import ChunkAnalysis
from quire.shared.config import Backend, Decider, RunChoices, RunSettings
from quire.shared.job import Job
from quire.shared.manifest import Finding
from quire.shared.pages import PageRange
from quire.shared.plan import ChunkPlan
from quire.workers.analysis.context import AnalysisContext
from quire.workers.analysis.index import IndexContext
from quire.workers.analysis.repair import RepairContext
from quire.workers.analysis.validate import AnalysisAnswer
from quire.workers.boundaries.decisions import BoundaryContext


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


DocRef = Annotated[
    str,
    Field(
        min_length=6,
        description="The document id from split_document "
        "or get_status (a unique prefix of 6+ characters will do).",
    ),
]
Revision = Annotated[
    int,
    Field(
        ge=1,
        description="The revision the context was read at (the `revision` of the get_* result).",
    ),
]
ChunkNo = Annotated[int, Field(ge=1, description="Chunk number (1-based).")]
AfterIds = Annotated[
    list[str] | None,
    Field(default=None, description="Only these transitions (review items' after_id)."),
]
TimeoutS = Annotated[
    float,
    Field(
        default=1800,
        gt=0,
        description="Distributed mode: stop waiting after this many seconds (the work goes on).",
    ),
]


class DocOut(_Model):
    """Where a document stands after the call, and what to call next: every document
    tool's output extends it."""

    doc_id: str
    revision: int  # the revision the next commit must name
    state: str
    next_step: str  # what to call next

    @classmethod
    def at(cls, seen: Job | agent.Snapshot, next_step: str, **fields: Any) -> Self:
        """This output for the document as `seen` (a job, or a context read) shows it;
        `fields` fill the rest (and may override what `seen` shows)."""
        where = {"doc_id": seen.doc_id, "revision": seen.revision, "state": seen.state}
        return cls(**(where | {"next_step": next_step} | fields))


class SplitDocumentIn(RunChoices):
    """The run settings of `quire run`, with its defaults, except that the agent decides."""

    path: str = Field(
        description="Path of the PDF, DOCX, EPUB or HTML file (or folder of HTML chapters) "
        "to split."
    )
    output_dir: str | None = Field(
        default=None, description="Folder for the chunks; default: a new isolated run folder."
    )
    # the one default that differs from the command's: an MCP host is the agent
    decider: Decider = Field(
        default="agent", description="agent: you decide the boundaries; backend: Quire does."
    )
    restart: bool = Field(
        default=False,
        description="Re-run a finished document from scratch (its previous outputs are deleted).",
    )
    timeout_s: TimeoutS


class SplitDocumentOut(DocOut):
    source_name: str
    source_format: str
    page_count: int
    attached: bool  # an existing document with the same content was reused
    settings: RunSettings
    output_dir: str | None
    candidates: int | None = None
    review_tasks: int | None = None
    error: str | None = None


class DocIn(_Model):
    doc_id: DocRef


class ChunkIn(_Model):
    doc_id: DocRef
    chunk: ChunkNo


class ReviewBatchIn(_Model):
    doc_id: DocRef
    size: int = Field(default=5, ge=1, le=25, description="How many transitions to return.")
    after_ids: AfterIds


class ReviewBatchOut(DocOut):
    batch: agent_reviews.ReviewBatch


class CommitReviewsIn(_Model):
    doc_id: DocRef
    revision: Revision
    votes: list[agent_reviews.AgentVote] = Field(
        min_length=1,
        description="One vote per transition "
        "and role; answer all three roles for independent "
        "views, or at least the adjudicator.",
    )


class RunReviewsIn(_Model):
    doc_id: DocRef
    revision: Revision
    backend: Backend | None = Field(
        default=None,
        description="Default: the document's "
        "backend. Provider keys come from the server environment.",
    )
    after_ids: AfterIds


class ReviewSummaryOut(DocOut):
    summary: agent_reviews.ReviewSummary


class BoundaryOut(DocOut):
    context: BoundaryContext | None  # null: no boundary decision left


class CommitBoundaryIn(_Model):
    doc_id: DocRef
    revision: Revision
    action: Literal["cut", "extend"]
    element_id: str | None = Field(
        default=None, description="For cut: a listed candidate's after_id."
    )
    reason: str = Field(description="What ends and what begins here, specifically.")
    evidence: list[str] = Field(
        default=[],
        description="Element ids supporting the decision "
        "(needed beyond the preferred size and for extend).",
    )


class WriteChunksIn(_Model):
    doc_id: DocRef
    output_dir: str | None = Field(
        default=None, description="Default: the document's run folder from split_document."
    )
    timeout_s: TimeoutS


class ChunkFile(PageRange, _Model):
    number: int
    title: str
    markdown_file: str | None
    pdf_file: str | None
    page_first: int
    page_last: int
    words: int


class WriteChunksOut(DocOut):
    output_dir: str | None
    chunks: list[ChunkFile]
    verification_passed: bool | None


class VerifyIn(_Model):
    doc_id: DocRef | None = None
    output_dir: str | None = Field(
        default=None,
        description="Default: the document's output folder (give doc_id or output_dir).",
    )


class VerifyOut(_Model):
    output_dir: str
    doc_id: str
    passed: bool
    checked: dict[str, int]
    finding_count: int
    findings: list[Finding]  # the first 50


class ChunkOut(DocOut):
    chunk: ChunkPlan
    content: str


class AnalysisContextOut(DocOut):
    context: AnalysisContext


class CommitAnalysisIn(_Model):
    doc_id: DocRef
    chunk: ChunkNo
    revision: Revision
    analysis: AnalysisAnswer


class AnalysisOut(DocOut):
    analysis: ChunkAnalysis


class RepairContextOut(DocOut):
    context: RepairContext


class RepairIn(_Model):
    doc_id: DocRef
    chunk: ChunkNo
    revision: Revision
    element_id: str = Field(description="The after_id of one listed inner candidate.")
    reason: str = Field(description="What ends before the split and what begins after it.")


class RepairOut(DocOut):
    chunks: list[ChunkPlan]


class IndexContextOut(DocOut):
    context: IndexContext


class CommitIndexIn(_Model):
    doc_id: DocRef
    revision: Revision
    en: str = Field(description="study-index-en.md (Markdown)")
    fa: str = Field(description="study-index-fa.md, in Persian (Markdown)")
    study_map: str = Field(description="study-map.md (Markdown)")


class CommitIndexOut(DocOut):
    files: list[str]
    output_dir: str | None


class StatusIn(_Model):
    doc_id: DocRef | None = Field(default=None, description="Omit to list every document.")
    history: int = Field(default=10, ge=0, le=500, description="Latest revisions to show.")


class DocSummary(_Model):
    doc_id: str
    source_name: str
    state: str
    revision: int
    error_code: str | None
    error: str | None


class HistoryEntry(_Model):
    revision: int
    state: str
    actor: str
    why: str
    committed_at: float


class DocDetail(DocOut):
    source_name: str
    source_format: str
    page_count: int
    settings: RunSettings
    error_code: str | None
    error: str | None
    chunks: int | None
    reviews: agent_reviews.ReviewSummary | None
    output_dir: str | None
    history: list[HistoryEntry]


class StatusOut(_Model):
    documents: list[DocSummary]
    document: DocDetail | None


class ToolFailure(_Model):
    code: str  # "conflict", "invalid_decision", "invalid_arguments", "not_found", ...
    message: str
    recover: str
    current_revision: int | None = None  # conflicts: the revision to re-read at
    current_state: str | None = None
