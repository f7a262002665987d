"""The tools, in the order a host uses them. Each is thin: open the document, call the agent
loop (`orchestrator.agent`) or the service functions, and say where the document now stands
(`DocOut.at`). The agent-loop operations the CLI has too are rows of one table
(orchestrator/operations.py: names, models, call, what they change); here they only get
their output. The others' docstring is the tool's description; `@tool` says what it
changes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from quire.orchestrator import agent, agent_reviews
from quire.orchestrator.mcp import schemas
from quire.orchestrator.mcp.docs import Doc, McpContext, drive, failed, next_step
from quire.orchestrator.mcp.exports import (
    chunk_files,
    export,
    output_folder,
    record_output,
    recorded_output,
    run_folder,
)
from quire.orchestrator.mcp.registry import register, tool
from quire.orchestrator.mcp.schemas import (
    AnalysisContextOut,
    AnalysisOut,
    BoundaryOut,
    ChunkOut,
    CommitIndexOut,
    CommitReviewsIn,
    DocDetail,
    DocOut,
    DocSummary,
    HistoryEntry,
    IndexContextOut,
    RepairContextOut,
    RepairOut,
    ReviewBatchIn,
    ReviewBatchOut,
    ReviewSummaryOut,
    RunReviewsIn,
    SplitDocumentIn,
    SplitDocumentOut,
    StatusIn,
    StatusOut,
    VerifyIn,
    VerifyOut,
    WriteChunksIn,
    WriteChunksOut,
)
from quire.orchestrator.operations import OPERATIONS
from quire.shared import keys
from quire.shared.errors import InputError, ValidationFailedError
from quire.shared.job import Job
from quire.shared.layout import Layout
from quire.shared.manifest import VerificationReport
from quire.workers.runtime import Runtime


def _context_read(out: type[DocOut], then: str) -> Callable[[Doc, agent.Snapshot], BaseModel]:
    """Present a context read: what was read, and the commit to call with its revision."""
    return lambda doc, snap: out.at(snap, f"{then} with this revision", context=snap.context)


def _operation(name: str, present: Callable[[Doc, Any], BaseModel]) -> None:
    """Register the tool of one agent-loop operation (operations.py): open the document,
    call the loop, and `present` its answer as the operation's output model."""
    op = OPERATIONS[name]
    output = getattr(schemas, op.output)

    def run(ctx: McpContext, args: Any) -> BaseModel:
        doc = Doc.open(ctx, args.doc_id)
        out = present(doc, op.call(doc.rt, doc.id, args))
        assert isinstance(out, output), (name, type(out))
        return out

    run.__name__ = run.__qualname__ = op.tool
    register(
        op.tool,
        op.title,
        op.doc,
        run,
        getattr(schemas, op.input),
        output,
        changes=op.changes,
        destructive=op.destructive,
        idempotent=op.idempotent,
    )


# --- splitting and topic reviews -----------------------------------------------------------


def _review_counts(rt: Runtime, s: Job) -> tuple[int | None, int | None]:
    counts: list[int | None] = []
    for name in (Layout.CANDIDATES, Layout.REVIEW_TASKS):
        key = keys.work(s.doc_id, name)
        counts.append(len(json.loads(rt.store.get(key))) if rt.store.exists(key) else None)
    return counts[0], counts[1]


@tool(
    "Split a document",
    changes="creates (or attaches to) a document session and runs it "
    "to its first decision; with restart=true re-runs a finished document, deleting its "
    "previous outputs",
    destructive=True,
    open_world=True,
)
def split_document(ctx: McpContext, args: SplitDocumentIn) -> SplitDocumentOut:
    """Start splitting a PDF, DOCX, EPUB or HTML file (or a folder of HTML chapters): parse
    it, find safe cut candidates, review topic changes with the configured backend, and
    stop for your boundary decisions (decider=agent) or run to the end (decider=backend).
    The same file twice is one document (attached=true). Without output_dir the chunks go
    to a new isolated run folder."""
    from quire.shared.config import RunChoices
    from quire.shared.text import sha256_bytes
    from quire.workers.execute import restart, source_bytes, submit

    path = Path(args.path).expanduser().resolve()
    if not path.is_file() and not path.is_dir():
        raise InputError(f"no such file: {path}")
    choices = RunChoices.model_validate(args.model_dump(include=set(RunChoices.model_fields)))
    settings = choices.settings(decider=args.decider, env=ctx.settings)
    rt = ctx.runtime()
    doc_id = sha256_bytes(source_bytes(path))
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
        s = drive(rt, s.doc_id, args.timeout_s, ctx.processes)
    if s.state == "failed":
        raise failed(s)
    if args.output_dir:
        folder = Path(args.output_dir).expanduser().resolve()
    else:
        folder = run_folder(rt, s.source_name)
    record_output(rt, s.doc_id, folder)
    if s.state == "complete":
        export(rt, s.doc_id, folder)
    candidates, tasks = _review_counts(rt, s)
    return SplitDocumentOut.at(
        s,
        next_step(s),
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
def get_topic_change_review_batch(ctx: McpContext, args: ReviewBatchIn) -> ReviewBatchOut:
    """The next candidate topic changes without your vote (or the ones named): the text on
    each side of the cut with element ids, the ids each side may cite, and what each reviewer
    role is asked. Only before the first boundary is committed."""
    doc = Doc.open(ctx, args.doc_id)
    snap = agent_reviews.review_batch(doc.rt, doc.id, size=args.size, after_ids=args.after_ids)
    return ReviewBatchOut.at(
        snap, "commit_topic_change_reviews with this revision", batch=snap.context
    )


@tool(
    "Commit topic-change votes",
    changes="stores your votes as a new revision; planning "
    "and verification use them (a later vote of the same role on the same transition "
    "replaces the earlier one)",
)
def commit_topic_change_reviews(ctx: McpContext, args: CommitReviewsIn) -> ReviewSummaryOut:
    """Vote on candidate topic changes as reviewer roles (transition, continuity,
    adjudicator): verdict, confidence, evidence ids from each side, a specific reason. The
    votes are validated like an LLM reviewer's; all are refused if any is invalid. Your votes
    override the backend's for the roles you answer; a confirmed change is never crossed."""
    doc = Doc.open(ctx, args.doc_id)
    snap = agent_reviews.commit_reviews(doc.rt, doc.id, args.votes, revision=args.revision)
    return ReviewSummaryOut.at(snap, next_step(doc.job()), summary=snap.context)


@tool(
    "Run backend topic reviews",
    changes="stores the backend's votes as a new revision "
    "(they replace earlier backend votes, never yours unless named)",
    open_world=True,
)
def run_parallel_topic_reviews(ctx: McpContext, args: RunReviewsIn) -> ReviewSummaryOut:
    """Have the configured review backend (heuristic, command, openai or anthropic; keys from
    the server environment) review candidate topic changes, all roles in parallel: the ones
    named, or every one you have not voted on. Use it for transitions you do not want to
    review yourself, or to retry failed reviews."""
    doc = Doc.open(ctx, args.doc_id)
    snap = agent_reviews.run_reviews(
        doc.rt, doc.id, revision=args.revision, backend=args.backend, after_ids=args.after_ids
    )
    return ReviewSummaryOut.at(snap, next_step(doc.job()), summary=snap.context)


# --- boundaries ----------------------------------------------------------------------------


def _boundary_out(doc: Doc, snap: agent.Snapshot) -> BoundaryOut:
    s = doc.job()
    if snap.context:
        step = "commit_boundary with this revision: cut at a listed candidate, or extend"
    elif s.state == "awaiting_decision":
        step = "write_chunks (no boundary decision is left)"
    else:
        step = next_step(s)
    return BoundaryOut.at(snap, step, context=snap.context or None)


_operation("get_boundary_context", _boundary_out)
_operation("commit_boundary", _boundary_out)


# --- writing and verifying -----------------------------------------------------------------


@tool(
    "Write and verify the chunks",
    changes="writes the chunk files, manifest and reports "
    "and exports them to the output folder (superseded chunk files of this document are "
    "removed)",
    destructive=True,
    idempotent=True,
    open_world=True,
)
def write_chunks(ctx: McpContext, args: WriteChunksIn) -> WriteChunksOut:
    """Drive the document to its next stop once its plan is complete: write every chunk,
    verify the output against the source, analyse the chunks and write the study index with
    the configured backend, then export the output folder. Call it again after committing
    analyses or repairs (they are applied here)."""
    doc = Doc.open(ctx, args.doc_id)
    rt, s = doc.rt, doc.job()
    if s.state == "awaiting_decision":
        if agent.boundary_context(rt, doc.id).context is not None:
            raise ValidationFailedError(
                "boundary decisions are still open: get_boundary_context / commit_boundary first"
            )
        agent.finish_plan(rt, doc.id, revision=s.revision)
    if not doc.job().terminal:
        s = drive(rt, doc.id, args.timeout_s, ctx.processes)
    if s.state == "failed":
        raise failed(s)
    folder = output_folder(rt, doc.id, args.output_dir)
    passed = None
    if s.state == "complete":
        if folder is None:
            folder = run_folder(rt, s.source_name)
            record_output(rt, doc.id, folder)
        export(rt, doc.id, folder)
        report = VerificationReport.model_validate_json(
            rt.store.get(keys.out(doc.id, Layout.VERIFICATION))
        )
        passed = report.passed
    return WriteChunksOut.at(
        s,
        next_step(s),
        output_dir=str(folder) if folder else None,
        chunks=chunk_files(rt, doc.id),
        verification_passed=passed,
    )


@tool(
    "Verify an output folder",
    changes="rewrites the folder's verification-report.json",
    idempotent=True,
)
def verify_integrity(ctx: McpContext, args: VerifyIn) -> VerifyOut:
    """Re-run every verification check on an output folder: every source element exactly
    once and in order, text hashes, word counts, tables, images, PDF pages (rendered against
    the source when it is known), no confirmed topic change crossed."""
    from quire.orchestrator.service import verify_folder

    doc = Doc.open(ctx, args.doc_id) if args.doc_id else None
    folder = Path(args.output_dir).expanduser().resolve() if args.output_dir else None
    if folder is None and doc is not None:
        folder = recorded_output(doc.rt, doc.id)
    if folder is None:
        raise ValidationFailedError(
            "no output folder: give output_dir, or a doc_id whose "
            "chunks were written (write_chunks)"
        )
    if not (folder / Layout.MANIFEST).is_file():
        raise ValidationFailedError(f"{folder} has no manifest.json: write_chunks first")
    report = verify_folder(ctx.settings, folder, None)
    return VerifyOut(
        output_dir=str(folder),
        doc_id=report.doc_id,
        passed=report.passed,
        checked=report.checked,
        finding_count=len(report.findings),
        findings=report.findings[:50],
    )


# --- chunks: read, analyse, repair ---------------------------------------------------------


def _chunk_out(doc: Doc, data: dict[str, Any]) -> ChunkOut:
    s = doc.job()
    return ChunkOut.at(
        s, next_step(s), revision=data["revision"], chunk=data["chunk"], content=data["content"]
    )


_operation("get_chunk", _chunk_out)
_operation("get_chunk_analysis_context", _context_read(AnalysisContextOut, "commit_chunk_analysis"))
_operation(
    "commit_chunk_analysis",
    lambda doc, analysis: AnalysisOut.at(
        doc.job(), "more commit_chunk_analysis, then write_chunks", analysis=analysis
    ),
)
_operation(
    "get_boundary_repair_context", _context_read(RepairContextOut, "repair_chunk_boundaries")
)
_operation(
    "repair_chunk_boundaries",
    lambda doc, plan: RepairOut.at(doc.job(), "write_chunks", chunks=plan.chunks),
)


# --- the study index and status ------------------------------------------------------------


def _index_out(doc: Doc, files: list[str]) -> CommitIndexOut:
    s = doc.job()
    folder = recorded_output(doc.rt, doc.id)
    if folder is not None and s.state == "complete":
        export(doc.rt, doc.id, folder)
    return CommitIndexOut.at(
        s, "verify_integrity", files=files, output_dir=str(folder) if folder else None
    )


_operation("get_study_index_context", _context_read(IndexContextOut, "commit_study_index"))
_operation("commit_study_index", _index_out)


@tool("Show status", changes=None)
def get_status(ctx: McpContext, args: StatusIn) -> StatusOut:
    """Every document with its state, or one document in detail: state, revision, settings,
    review counts, chunks, output folder, the latest revisions (who changed what) and what
    to call next."""
    if args.doc_id is None:
        rt = ctx.runtime()
        docs = [rt.repo.load(d) for d in rt.revisions.list_docs()]
        summaries = [DocSummary.model_validate(s, from_attributes=True) for s in docs]
        return StatusOut(documents=summaries, document=None)
    doc = Doc.open(ctx, args.doc_id)
    rt, s = doc.rt, doc.job()
    reviews = None
    if rt.store.exists(keys.out(doc.id, Layout.REVIEW)):
        from quire.workers import steps

        reviews = agent_reviews.summarize_reviews(steps.load_outcomes(rt, s))
    plan_key = keys.out(doc.id, Layout.PLAN)
    chunks = (
        len(json.loads(rt.store.get(plan_key))["chunks"]) if rt.store.exists(plan_key) else None
    )
    first = max(1, s.revision - args.history + 1)  # history=0: an empty range
    history = [rt.repo.load(doc.id, r) for r in range(first, s.revision + 1)]
    folder = recorded_output(rt, doc.id)
    detail = DocDetail.at(
        s,
        next_step(s),
        **s.model_dump(
            include={"source_name", "source_format", "page_count", "error_code", "error"}
        ),
        settings=s.settings,
        chunks=chunks,
        reviews=reviews,
        output_dir=str(folder) if folder else None,
        history=[HistoryEntry.model_validate(h, from_attributes=True) for h in history],
    )
    return StatusOut(documents=[], document=detail)
