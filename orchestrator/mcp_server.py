"""An MCP server (stdio) that lets an AI host drive Quire's agent loop.

The host's own model reviews topic changes, picks cuts among the safe candidates, writes
chunk analyses and the study index; Quire validates every decision exactly as it validates
an LLM backend's (the same functions as the CLI agent loop, `orchestrator.agent`) and keeps
the revision-checked state. The runtime comes from the environment (`Runtime.from_env`), so
the same server works on the embedded default and against the distributed stack.

Every tool has a pydantic input model and output model (their JSON schemas are the tool's
input and output schemas) and says whether it changes state (MCP tool annotations, and the
last line of its description). A refused or stale commit is a structured error result
(`{"error": {"code", "message", "recover", ...}}`, isError) the host can act on; it never
ends the session. Provider keys are never tool inputs: backends read them from the
server's environment.

Extra environment: QUIRE_MCP_RUNS_DIR (where isolated run folders go; default
QUIRE_STATE_DIR/runs) and QUIRE_MCP_PROCESSES (embedded worker processes; default: CPUs).
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_type_hints

import anyio
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from quire.orchestrator import agent
from quire.shared.analysis import ChunkAnalysis
from quire.shared.config import Backend, OutputFormat, RunSettings
from quire.shared.errors import ConflictError, InputError, QuireError, ValidationFailedError
from quire.shared.manifest import Finding, VerificationReport, load_manifest
from quire.shared.plan import ChunkPlan
from quire.shared.session import Session
from quire.workers.analysis.context import AnalysisContext
from quire.workers.analysis.index import IndexContext
from quire.workers.analysis.repair import RepairContext
from quire.workers.analysis.validate import AnalysisAnswer
from quire.workers.boundaries.decisions import BoundaryContext
from quire.workers.runtime import Runtime

log = logging.getLogger("quire.mcp")

INSTRUCTIONS = """\
Quire cuts long PDF/DOCX textbooks into verified study-sized chunks; you make the judgement
calls and Quire checks every one. Typical session:
1. split_document(path) parses the file and stops for your decisions (returns doc_id).
2. Optional: get_topic_change_review_batch / commit_topic_change_reviews to vote on topic
   changes yourself, or run_parallel_topic_reviews to have the configured backend do it.
3. get_boundary_context / commit_boundary until the context is null (the plan is complete).
4. write_chunks writes and verifies the chunks (and exports the output folder).
5. get_chunk_analysis_context / commit_chunk_analysis per chunk; get_boundary_repair_context /
   repair_chunk_boundaries to split an incoherent chunk; write_chunks again after these.
6. get_study_index_context / commit_study_index (every chunk must have been read first).
verify_integrity re-checks an output folder; get_status shows where a document is.
Every commit names the revision its context was read at. An error with code "conflict" means
the document changed meanwhile: nothing was committed; re-read the context and decide again.
"""


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


class _DocOut(_Model):
    doc_id: str
    revision: int  # the revision the next commit must name
    state: str
    next_step: str  # what to call next


# --- inputs and outputs --------------------------------------------------------------------


class SplitDocumentIn(_Model):
    path: str = Field(description="Path of the PDF or DOCX file to split.")
    output_dir: str | None = Field(
        default=None, description="Folder for the chunks; default: a new isolated run folder."
    )
    output_format: OutputFormat = "markdown"
    backend: Backend | None = Field(
        default=None,
        description="Backend for the pipeline's own "
        "reviews and analyses [QUIRE_REVIEW_BACKEND; heuristic].",
    )
    min_pages: float = Field(default=5, gt=0)
    max_pages: float = Field(default=12, gt=0)
    overlap_pages: int = Field(default=1, ge=0, le=5)
    decider: Literal["agent", "backend"] = Field(
        default="agent", description="agent: you decide the boundaries; backend: Quire does."
    )
    restart: bool = Field(
        default=False,
        description="Re-run a finished document from scratch (its previous outputs are deleted).",
    )
    timeout_s: TimeoutS


class SplitDocumentOut(_DocOut):
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


class ReviewBatchOut(_DocOut):
    batch: agent.ReviewBatch


class CommitReviewsIn(_Model):
    doc_id: DocRef
    revision: Revision
    votes: list[agent.AgentVote] = Field(
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


class ReviewSummaryOut(_DocOut):
    summary: agent.ReviewSummary


class BoundaryOut(_DocOut):
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


class ChunkFile(_Model):
    number: int
    title: str
    markdown_file: str | None
    pdf_file: str | None
    page_first: int
    page_last: int
    words: int


class WriteChunksOut(_DocOut):
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


class ChunkOut(_DocOut):
    chunk: ChunkPlan
    content: str


class AnalysisContextOut(_DocOut):
    context: AnalysisContext


class CommitAnalysisIn(_Model):
    doc_id: DocRef
    chunk: ChunkNo
    revision: Revision
    analysis: AnalysisAnswer


class AnalysisOut(_DocOut):
    analysis: ChunkAnalysis


class RepairContextOut(_DocOut):
    context: RepairContext


class RepairIn(_Model):
    doc_id: DocRef
    chunk: ChunkNo
    revision: Revision
    element_id: str = Field(description="The after_id of one listed inner candidate.")
    reason: str = Field(description="What ends before the split and what begins after it.")


class RepairOut(_DocOut):
    chunks: list[ChunkPlan]


class IndexContextOut(_DocOut):
    context: IndexContext


class CommitIndexIn(_Model):
    doc_id: DocRef
    revision: Revision
    en: str = Field(description="study-index-en.md (Markdown)")
    fa: str = Field(description="study-index-fa.md, in Persian (Markdown)")
    study_map: str = Field(description="study-map.md (Markdown)")


class CommitIndexOut(_DocOut):
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


class DocDetail(_DocOut):
    source_name: str
    source_format: str
    page_count: int
    settings: RunSettings
    error_code: str | None
    error: str | None
    chunks: int | None
    reviews: agent.ReviewSummary | None
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


# --- the tool registry ---------------------------------------------------------------------


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    fn: Callable[[Any], BaseModel]
    input: type[BaseModel]
    output: type[BaseModel]
    annotations: types.ToolAnnotations

    def tool(self) -> types.Tool:
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=self.input.model_json_schema(),
            output_schema=self.output.model_json_schema(),
            annotations=self.annotations,
        )


TOOLS: dict[str, ToolSpec] = {}


def tool(
    title: str,
    *,
    changes: str | None,
    destructive: bool = False,
    idempotent: bool = False,
    open_world: bool = False,
) -> Callable[[Any], Any]:
    """Register a tool. `changes` says what it changes (None: read-only); the description
    ends with that, and the MCP annotations say the same."""

    def register(fn: Callable[[Any], BaseModel]) -> Callable[[Any], BaseModel]:
        hints = get_type_hints(fn)
        kinds = [k for k, on in (("destructive", destructive), ("idempotent", idempotent)) if on]
        flags = f" ({', '.join(kinds)})" if kinds else ""
        state = f"Changes state{flags}: {changes}." if changes else "Read-only: changes nothing."
        TOOLS[fn.__name__] = ToolSpec(
            name=fn.__name__,
            title=title,
            description=" ".join(f"{inspect.getdoc(fn)} {state}".split()),
            fn=fn,
            input=hints["args"],
            output=hints["return"],
            annotations=types.ToolAnnotations(
                title=title,
                read_only_hint=changes is None,
                destructive_hint=destructive if changes else False,
                idempotent_hint=idempotent or changes is None,
                open_world_hint=open_world,
            ),
        )
        return fn

    return register


# --- helpers -------------------------------------------------------------------------------


class UnknownDocument(QuireError):
    code = "not_found"


def _runtime() -> Runtime:
    return Runtime.from_env()  # per call: cheap, and nothing is shared between threads


def _resolve(rt: Runtime, ident: str) -> str:
    matches = [d for d in rt.revisions.list_docs() if d.startswith(ident)]
    if len(matches) != 1:
        raise UnknownDocument(
            f"{'no' if not matches else 'more than one'} document matches "
            f"{ident!r}" + ("" if matches else "; get_status lists them")
        )
    return matches[0]


def _next_step(rt: Runtime, s: Session) -> str:
    if s.state == "awaiting_decision":
        if "agent-boundaries" not in s.done:
            return (
                "get_boundary_context and commit_boundary (topic reviews can still be "
                "voted with get_topic_change_review_batch first); when the context is "
                "null, write_chunks"
            )
        return "get_boundary_context and commit_boundary until the context is null"
    if s.state == "complete":
        return (
            "get_chunk_analysis_context / commit_chunk_analysis per chunk, then "
            "get_study_index_context / commit_study_index; verify_integrity any time"
        )
    if s.state == "failed":
        return f"fix the cause ({s.error_code}) and split_document again with restart=true"
    return "write_chunks (drives the document to its next stop)"


def _processes() -> int | None:
    value = os.environ.get("QUIRE_MCP_PROCESSES")
    return int(value) if value else None


def _drive(rt: Runtime, doc_id: str, timeout_s: float) -> Session:
    """Run the document to its next stop (complete, failed or awaiting a decision)."""
    from rich.console import Console

    from quire.orchestrator.service import process_documents

    try:
        process_documents(
            rt,
            [doc_id],
            processes=_processes(),
            console=Console(stderr=True, quiet=True),
            timeout=timeout_s,
        )
    except TimeoutError:
        log.warning("%s still processing after %ss", doc_id[:12], timeout_s)
    return rt.repo.load(doc_id)


def _record_path(rt: Runtime, doc_id: str) -> Path:
    return rt.env.state_dir / "mcp" / "outputs" / doc_id


def _record_output(rt: Runtime, doc_id: str, folder: Path) -> None:
    """Remember the document's output folder on this machine (the state dir is local)."""
    path = _record_path(rt, doc_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{doc_id}.{uuid.uuid4().hex}")
    tmp.write_text(str(folder), encoding="utf-8")
    tmp.replace(path)


def _recorded_output(rt: Runtime, doc_id: str) -> Path | None:
    path = _record_path(rt, doc_id)
    return Path(path.read_text(encoding="utf-8")) if path.exists() else None


def _run_folder(rt: Runtime, source_name: str) -> Path:
    """A new folder of its own for this call, so concurrent jobs never share one."""
    root = Path(os.environ.get("QUIRE_MCP_RUNS_DIR") or rt.env.state_dir / "runs")
    slug = re.sub(r"[^a-z0-9]+", "-", Path(source_name).stem.lower()).strip("-")[:40]
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    folder = root / f"{stamp}-{slug or 'document'}-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True, exist_ok=False)
    return folder.resolve()


def _output_folder(rt: Runtime, doc_id: str, given: str | None) -> Path | None:
    if given:
        folder = Path(given).expanduser().resolve()
        _record_output(rt, doc_id, folder)
        return folder
    return _recorded_output(rt, doc_id)


def _export(rt: Runtime, doc_id: str, folder: Path) -> None:
    """Copy the document's output into `folder`, removing chunk files of an earlier export
    of the same document that the new output no longer has (renamed or split chunks)."""
    from quire.orchestrator.outputs import export_document

    old: set[str] = set()
    manifest_path = folder / "manifest.json"
    if manifest_path.exists():
        try:
            manifest = load_manifest(manifest_path.read_bytes())
        except ValueError:
            manifest = None
        if manifest is not None and manifest.doc_id == doc_id:
            old = {name for c in manifest.chunks for name in c.files}
    export_document(rt, doc_id, folder, force=True)
    prefix = f"docs/{doc_id}/out/"
    current = {k[len(prefix) :] for k in rt.store.list(prefix)}
    for name in old - current:
        if not Path(name).is_absolute() and ".." not in Path(name).parts:
            (folder / name).unlink(missing_ok=True)


def _chunk_files(rt: Runtime, doc_id: str) -> list[ChunkFile]:
    key = f"docs/{doc_id}/out/manifest.json"
    if not rt.store.exists(key):
        return []
    return [
        ChunkFile(
            number=c.number,
            title=c.title,
            markdown_file=c.markdown_file,
            pdf_file=c.pdf_file,
            page_first=c.page_first,
            page_last=c.page_last,
            words=c.word_count,
        )
        for c in load_manifest(rt.store.get(key)).chunks
    ]


def _failed(s: Session) -> QuireError:
    exc = QuireError(f"{s.source_name} failed: {s.error}")
    exc.code = s.error_code or "failed"
    return exc


def _review_counts(rt: Runtime, s: Session) -> tuple[int | None, int | None]:
    counts: list[int | None] = []
    for name in ("candidates.json", "review-tasks.json"):
        key = f"docs/{s.doc_id}/work/{name}"
        counts.append(len(json.loads(rt.store.get(key))) if rt.store.exists(key) else None)
    return counts[0], counts[1]


# --- tools ---------------------------------------------------------------------------------


@tool(
    "Split a document",
    changes="creates (or attaches to) a document session and runs it "
    "to its first decision; with restart=true re-runs a finished document, deleting its "
    "previous outputs",
    destructive=True,
    open_world=True,
)
def split_document(args: SplitDocumentIn) -> SplitDocumentOut:
    """Start splitting a PDF or DOCX: parse it, find safe cut candidates, review topic changes
    with the configured backend, and stop for your boundary decisions (decider=agent) or run
    to the end (decider=backend). The same file twice is one document (attached=true).
    Without output_dir the chunks go to a new isolated run folder."""
    from quire.shared.config import run_settings
    from quire.shared.text import sha256_bytes
    from quire.workers.execute import restart, submit

    path = Path(args.path).expanduser().resolve()
    if not path.is_file():
        raise InputError(f"no such file: {path}")
    settings = run_settings(
        args.output_format, args.backend, args.min_pages, args.max_pages, args.overlap_pages
    )
    settings.decider = args.decider
    rt = _runtime()
    doc_id = sha256_bytes(path.read_bytes())
    attached = rt.repo.exists(doc_id)
    if attached and args.restart:
        old = rt.repo.load(doc_id)
        if not old.terminal:
            raise ValidationFailedError(
                f"the document is {old.state}: only a complete or failed document can be restarted"
            )
        if old.state == "complete":  # submit re-admits failed ones itself
            restart(rt, old, settings, actor="mcp")
        attached = False
    s = submit(rt, path, settings, actor="mcp", rerun=args.restart)
    if not s.terminal:
        s = _drive(rt, s.doc_id, args.timeout_s)
    if s.state == "failed":
        raise _failed(s)
    if args.output_dir:
        folder = Path(args.output_dir).expanduser().resolve()
    else:
        folder = _run_folder(rt, s.source_name)
    _record_output(rt, s.doc_id, folder)
    if s.state == "complete":
        _export(rt, s.doc_id, folder)
    candidates, tasks = _review_counts(rt, s)
    return SplitDocumentOut(
        doc_id=s.doc_id,
        revision=s.revision,
        state=s.state,
        next_step=_next_step(rt, s),
        source_name=s.source_name,
        source_format=s.source_format,
        page_count=s.page_count,
        attached=attached,
        settings=s.settings,
        output_dir=str(folder),
        candidates=candidates,
        review_tasks=tasks,
    )


@tool("Get topic-change reviews to do", changes=None)
def get_topic_change_review_batch(args: ReviewBatchIn) -> ReviewBatchOut:
    """The next candidate topic changes without your vote (or the ones named): the text on
    each side of the cut with element ids, the ids each side may cite, and what each reviewer
    role is asked. Only before the first boundary is committed."""
    rt = _runtime()
    snap = agent.review_batch(
        rt, _resolve(rt, args.doc_id), size=args.size, after_ids=args.after_ids
    )
    return ReviewBatchOut(
        doc_id=snap.doc_id,
        revision=snap.revision,
        state=snap.state,
        next_step="commit_topic_change_reviews with this revision",
        batch=agent.ReviewBatch.model_validate(snap.context),
    )


def _summary_out(rt: Runtime, snap: agent.Snapshot) -> ReviewSummaryOut:
    s = rt.repo.load(snap.doc_id)
    return ReviewSummaryOut(
        doc_id=snap.doc_id,
        revision=snap.revision,
        state=snap.state,
        next_step=_next_step(rt, s),
        summary=agent.ReviewSummary.model_validate(snap.context),
    )


@tool(
    "Commit topic-change votes",
    changes="stores your votes as a new revision; planning "
    "and verification use them (a later vote of the same role on the same transition "
    "replaces the earlier one)",
)
def commit_topic_change_reviews(args: CommitReviewsIn) -> ReviewSummaryOut:
    """Vote on candidate topic changes as reviewer roles (transition, continuity,
    adjudicator): verdict, confidence, evidence ids from each side, a specific reason. The
    votes are validated like an LLM reviewer's; all are refused if any is invalid. Your votes
    override the backend's for the roles you answer; a confirmed change is never crossed."""
    rt = _runtime()
    snap = agent.commit_reviews(rt, _resolve(rt, args.doc_id), args.votes, revision=args.revision)
    return _summary_out(rt, snap)


@tool(
    "Run backend topic reviews",
    changes="stores the backend's votes as a new revision "
    "(they replace earlier backend votes, never yours unless named)",
    open_world=True,
)
def run_parallel_topic_reviews(args: RunReviewsIn) -> ReviewSummaryOut:
    """Have the configured review backend (heuristic, command, openai or anthropic; keys from
    the server environment) review candidate topic changes, all roles in parallel: the ones
    named, or every one you have not voted on. Use it for transitions you do not want to
    review yourself, or to retry failed reviews."""
    rt = _runtime()
    snap = agent.run_reviews(
        rt,
        _resolve(rt, args.doc_id),
        revision=args.revision,
        backend=args.backend,
        after_ids=args.after_ids,
    )
    return _summary_out(rt, snap)


def _boundary_out(rt: Runtime, snap: agent.Snapshot) -> BoundaryOut:
    s = rt.repo.load(snap.doc_id)
    ctx = BoundaryContext.model_validate(snap.context) if snap.context else None
    step = (
        "commit_boundary with this revision: cut at a listed candidate, or extend"
        if ctx
        else _next_step(rt, s)
        if s.state != "awaiting_decision"
        else "write_chunks (no boundary decision is left)"
    )
    return BoundaryOut(
        doc_id=snap.doc_id, revision=snap.revision, state=snap.state, next_step=step, context=ctx
    )


@tool("Get the next boundary decision", changes=None)
def get_boundary_context(args: DocIn) -> BoundaryOut:
    """Where the chunk being planned starts, the safe candidates it may end at (size, zone,
    change score, topic reviews), the size rules and any confirmed topic change that must
    not be crossed. context=null: nothing left to decide."""
    rt = _runtime()
    return _boundary_out(rt, agent.boundary_context(rt, _resolve(rt, args.doc_id)))


@tool(
    "Commit a boundary decision",
    changes="records the decision as a new revision; the "
    "last one completes the plan and moves the document to writing",
)
def commit_boundary(args: CommitBoundaryIn) -> BoundaryOut:
    """Cut at a listed candidate (element_id = its after_id) or extend the chunk, with a
    specific reason. Validated like an LLM decider: only listed candidates, evidence beyond
    the preferred size, two continuity reviews to go past the soft maximum. Returns the
    next context."""
    rt = _runtime()
    snap = agent.commit_boundary(
        rt,
        _resolve(rt, args.doc_id),
        revision=args.revision,
        action=args.action,
        element_id=args.element_id,
        reason=args.reason,
        evidence=args.evidence,
    )
    return _boundary_out(rt, snap)


@tool(
    "Write and verify the chunks",
    changes="writes the chunk files, manifest and reports "
    "and exports them to the output folder (superseded chunk files of this document are "
    "removed)",
    destructive=True,
    idempotent=True,
    open_world=True,
)
def write_chunks(args: WriteChunksIn) -> WriteChunksOut:
    """Drive the document to its next stop once its plan is complete: write every chunk,
    verify the output against the source, analyse the chunks and write the study index with
    the configured backend, then export the output folder. Call it again after committing
    analyses or repairs (they are applied here)."""
    rt = _runtime()
    doc_id = _resolve(rt, args.doc_id)
    s = rt.repo.load(doc_id)
    if s.state == "awaiting_decision":
        if agent.boundary_context(rt, doc_id).context is not None:
            raise ValidationFailedError(
                "boundary decisions are still open: get_boundary_context / commit_boundary first"
            )
        agent.finish_plan(rt, doc_id, revision=s.revision)
    if not rt.repo.load(doc_id).terminal:
        s = _drive(rt, doc_id, args.timeout_s)
    if s.state == "failed":
        raise _failed(s)
    folder = _output_folder(rt, doc_id, args.output_dir)
    passed = None
    if s.state == "complete":
        if folder is None:
            folder = _run_folder(rt, s.source_name)
            _record_output(rt, doc_id, folder)
        _export(rt, doc_id, folder)
        report = VerificationReport.model_validate_json(
            rt.store.get(f"docs/{doc_id}/out/verification-report.json")
        )
        passed = report.passed
    return WriteChunksOut(
        doc_id=doc_id,
        revision=s.revision,
        state=s.state,
        next_step=_next_step(rt, s),
        output_dir=str(folder) if folder else None,
        chunks=_chunk_files(rt, doc_id),
        verification_passed=passed,
    )


@tool(
    "Verify an output folder",
    changes="rewrites the folder's verification-report.json",
    idempotent=True,
)
def verify_integrity(args: VerifyIn) -> VerifyOut:
    """Re-run every verification check on an output folder: every source element exactly
    once and in order, text hashes, word counts, tables, images, PDF pages (rendered against
    the source when it is known), no confirmed topic change crossed."""
    from quire.orchestrator.service import verify_folder

    rt = _runtime()
    doc_id = _resolve(rt, args.doc_id) if args.doc_id else None
    folder = Path(args.output_dir).expanduser().resolve() if args.output_dir else None
    if folder is None and doc_id is not None:
        folder = _recorded_output(rt, doc_id)
    if folder is None:
        raise ValidationFailedError(
            "no output folder: give output_dir, or a doc_id whose "
            "chunks were written (write_chunks)"
        )
    if not (folder / "manifest.json").is_file():
        raise ValidationFailedError(f"{folder} has no manifest.json: write_chunks first")
    report = verify_folder(folder, None)
    return VerifyOut(
        output_dir=str(folder),
        doc_id=report.doc_id,
        passed=report.passed,
        checked=report.checked,
        finding_count=len(report.findings),
        findings=report.findings[:50],
    )


@tool("Read a chunk", changes=None)
def get_chunk(args: ChunkIn) -> ChunkOut:
    """A chunk's plan entry (elements, pages, words, title, why it ends) and its full
    Markdown content."""
    rt = _runtime()
    doc_id = _resolve(rt, args.doc_id)
    data = agent.get_chunk(rt, doc_id, args.chunk)
    s = rt.repo.load(doc_id)
    return ChunkOut(
        doc_id=doc_id,
        revision=data["revision"],
        state=s.state,
        next_step=_next_step(rt, s),
        chunk=ChunkPlan.model_validate(data["chunk"]),
        content=data["content"],
    )


@tool(
    "Get a chunk's analysis context",
    changes="records that you read this chunk (the study index needs every chunk read)",
    idempotent=True,
)
def get_chunk_analysis_context(args: ChunkIn) -> AnalysisContextOut:
    """A chunk's full content with its headings, key terms, neighbours' titles and the safe
    cuts inside it, for writing its analysis (bilingual topic and study focus, coherence)."""
    rt = _runtime()
    snap = agent.analysis_context(rt, _resolve(rt, args.doc_id), args.chunk)
    return AnalysisContextOut(
        doc_id=snap.doc_id,
        revision=snap.revision,
        state=snap.state,
        next_step="commit_chunk_analysis with this revision",
        context=AnalysisContext.model_validate(snap.context),
    )


@tool(
    "Commit a chunk analysis",
    changes="replaces the chunk's analysis (new revision); "
    "write_chunks then retitles, rewrites and re-verifies the chunks",
    destructive=True,
)
def commit_chunk_analysis(args: CommitAnalysisIn) -> AnalysisOut:
    """Store your analysis of a chunk: topic_en (it becomes the file name), topic_fa and
    study_focus_fa in Persian script, study_focus_en, coherence (needs_review: the chunk joins
    unrelated topics) and a reason. Generic or template text is refused."""
    rt = _runtime()
    doc_id = _resolve(rt, args.doc_id)
    analysis = agent.commit_analysis(
        rt, doc_id, args.chunk, args.analysis.model_dump(), revision=args.revision
    )
    s = rt.repo.load(doc_id)
    return AnalysisOut(
        doc_id=doc_id,
        revision=s.revision,
        state=s.state,
        next_step="more commit_chunk_analysis, then write_chunks",
        analysis=analysis,
    )


@tool("Get a chunk's repair candidates", changes=None)
def get_boundary_repair_context(args: ChunkIn) -> RepairContextOut:
    """The safe cut candidates strictly inside a chunk, with the sizes a split there would
    give, for a split-only repair of an incoherent chunk."""
    rt = _runtime()
    snap = agent.repair_context(rt, _resolve(rt, args.doc_id), args.chunk)
    return RepairContextOut(
        doc_id=snap.doc_id,
        revision=snap.revision,
        state=snap.state,
        next_step="repair_chunk_boundaries with this revision",
        context=RepairContext.model_validate(snap.context),
    )


@tool(
    "Split a chunk",
    changes="replaces the plan with the chunk split in two (later chunks "
    "are renumbered); write_chunks then rewrites and re-verifies",
    destructive=True,
)
def repair_chunk_boundaries(args: RepairIn) -> RepairOut:
    """Split one chunk at one listed inner candidate (never a merge or a moved boundary).
    Call again for more splits, then write_chunks."""
    rt = _runtime()
    doc_id = _resolve(rt, args.doc_id)
    plan = agent.repair_boundary(
        rt,
        doc_id,
        args.chunk,
        revision=args.revision,
        element_id=args.element_id,
        reason=args.reason,
    )
    s = rt.repo.load(doc_id)
    return RepairOut(
        doc_id=doc_id,
        revision=s.revision,
        state=s.state,
        next_step="write_chunks",
        chunks=plan.chunks,
    )


@tool("Get the study index context", changes=None)
def get_study_index_context(args: DocIn) -> IndexContextOut:
    """The verified chunk metadata to write the study indexes from (files, topics, pages,
    minutes at 80 words per minute), the rules they must follow, and the chunks you have not
    read yet (commit_study_index refuses until that list is empty)."""
    rt = _runtime()
    snap = agent.index_context(rt, _resolve(rt, args.doc_id))
    return IndexContextOut(
        doc_id=snap.doc_id,
        revision=snap.revision,
        state=snap.state,
        next_step="commit_study_index with this revision",
        context=IndexContext.model_validate(snap.context),
    )


@tool(
    "Commit the study index",
    changes="replaces study-index-en.md, study-index-fa.md and "
    "study-map.md (new revision) and exports them",
    destructive=True,
)
def commit_study_index(args: CommitIndexIn) -> CommitIndexOut:
    """Store your study indexes: each links every chunk file, states each chunk's and the
    total study time ('N min'), and the fa index is in Persian. Refused until every chunk's
    analysis context was read."""
    rt = _runtime()
    doc_id = _resolve(rt, args.doc_id)
    files = agent.commit_index(
        rt, doc_id, revision=args.revision, en=args.en, fa=args.fa, study_map=args.study_map
    )
    s = rt.repo.load(doc_id)
    folder = _recorded_output(rt, doc_id)
    if folder is not None and s.state == "complete":
        _export(rt, doc_id, folder)
    return CommitIndexOut(
        doc_id=doc_id,
        revision=s.revision,
        state=s.state,
        next_step="verify_integrity",
        files=files,
        output_dir=str(folder) if folder else None,
    )


@tool("Show status", changes=None)
def get_status(args: StatusIn) -> StatusOut:
    """Every document with its state, or one document in detail: state, revision, settings,
    review counts, chunks, output folder, the latest revisions (who changed what) and what
    to call next."""
    rt = _runtime()
    if args.doc_id is None:
        docs = [rt.repo.load(d) for d in rt.revisions.list_docs()]
        return StatusOut(
            document=None,
            documents=[
                DocSummary(
                    doc_id=s.doc_id,
                    source_name=s.source_name,
                    state=s.state,
                    revision=s.revision,
                    error_code=s.error_code,
                    error=s.error,
                )
                for s in docs
            ],
        )
    doc_id = _resolve(rt, args.doc_id)
    s = rt.repo.load(doc_id)
    reviews = None
    if rt.store.exists(f"docs/{doc_id}/out/semantic-review-report.json"):
        from quire.workers import steps

        reviews = agent.summarize_reviews(steps.load_outcomes(rt, s))
    plan_key = f"docs/{doc_id}/out/plan.json"
    chunks = (
        len(json.loads(rt.store.get(plan_key))["chunks"]) if rt.store.exists(plan_key) else None
    )
    first = max(1, s.revision - args.history + 1)
    history = (
        [rt.repo.load(doc_id, r) for r in range(first, s.revision + 1)] if args.history else []
    )
    folder = _recorded_output(rt, doc_id)
    return StatusOut(
        documents=[],
        document=DocDetail(
            doc_id=doc_id,
            revision=s.revision,
            state=s.state,
            next_step=_next_step(rt, s),
            source_name=s.source_name,
            source_format=s.source_format,
            page_count=s.page_count,
            settings=s.settings,
            error_code=s.error_code,
            error=s.error,
            chunks=chunks,
            reviews=reviews,
            output_dir=str(folder) if folder else None,
            history=[
                HistoryEntry(
                    revision=h.revision,
                    state=h.state,
                    actor=h.actor,
                    why=h.why,
                    committed_at=h.committed_at,
                )
                for h in history
            ],
        ),
    )


# --- the protocol side ---------------------------------------------------------------------

RECOVER = {
    "conflict": "Nothing was committed: the document changed since you read it. Re-read the "
    "context with the matching get_* tool and decide again with its revision.",
    "invalid_decision": "Nothing was committed. Fix what the message says and commit again "
    "(the revision you read is still current unless someone else "
    "committed).",
    "invalid_arguments": "Check the arguments against the tool's input schema.",
    "not_found": "Check the document id: get_status lists the documents.",
    "unknown_tool": "List the tools to see what exists.",
}


def _result(data: dict[str, Any], *, error: bool = False) -> types.CallToolResult:
    text = json.dumps(data, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=data, is_error=error
    )


def _failure(code: str, message: str, args: dict[str, Any] | None = None) -> types.CallToolResult:
    failure = ToolFailure(code=code, message=message, recover=RECOVER.get(code, "See the message."))
    if code == "conflict" and args and isinstance(args.get("doc_id"), str):
        try:
            rt = _runtime()
            s = rt.repo.load(_resolve(rt, args["doc_id"]))
            failure.current_revision, failure.current_state = s.revision, s.state
        except QuireError:
            pass
    return _result({"error": failure.model_dump(mode="json")}, error=True)


def call_tool_sync(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """Run one tool call; every failure becomes a structured error result."""
    spec = TOOLS.get(name)
    if spec is None:
        return _failure("unknown_tool", f"no tool named {name!r}")
    try:
        args = spec.input.model_validate(arguments)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()
        )
        return _failure("invalid_arguments", problems)
    try:
        out = spec.fn(args)
    except ConflictError as exc:
        return _failure("conflict", str(exc), arguments)
    except QuireError as exc:
        return _failure(exc.code, str(exc), arguments)
    except Exception as exc:  # a bug: report it, keep serving
        log.exception("tool %s crashed", name)
        return _failure("internal", f"{type(exc).__name__}: {exc}")
    return _result(out.model_dump(mode="json"))


def build_server() -> Server[Any]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        quire_version = version("quire")
    except PackageNotFoundError:
        quire_version = "0"

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[spec.tool() for spec in TOOLS.values()])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        # stage work blocks (parsing, writing, rendering): keep the event loop responsive
        return await anyio.to_thread.run_sync(
            call_tool_sync, params.name, dict(params.arguments or {})
        )

    return Server(
        "quire",
        version=quire_version,
        title="Quire",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _serve() -> None:
    server = build_server()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def serve() -> None:
    """Serve over stdin/stdout until the host closes the connection (logs go to stderr)."""
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    anyio.run(_serve)


if __name__ == "__main__":
    serve()
