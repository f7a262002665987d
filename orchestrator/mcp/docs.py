"""A document as the tools see it: found by its id (or a prefix), where it stands, what the
host should call next, and running it to its next stop."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from quire.orchestrator.service import resolve_doc
from quire.shared.errors import QuireError
from quire.shared.job import Job
from quire.shared.settings import Settings
from quire.workers.runtime import Runtime

log = logging.getLogger("quire.mcp")


@dataclass(frozen=True)
class McpContext:
    """What the server was started with, handed to every tool call: the settings read once
    at `quire mcp serve` and the embedded worker processes (--processes, else
    QUIRE_MCP_PROCESSES; None: CPUs)."""

    settings: Settings
    processes: int | None

    def runtime(self) -> Runtime:
        return Runtime.from_env(self.settings)  # per call: cheap, nothing shared by threads


@dataclass(frozen=True)
class Doc:
    rt: Runtime
    id: str

    @classmethod
    def open(cls, ctx: McpContext, ref: str) -> Doc:
        """The one document `ref` names (id, id prefix or source file name), on a fresh
        runtime; UnknownDocumentError otherwise."""
        rt = ctx.runtime()
        return cls(rt, resolve_doc(rt, ref))

    def job(self) -> Job:
        return self.rt.repo.load(self.id)


def next_step(s: Job) -> str:
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


def failed(s: Job) -> QuireError:
    """The error a tool raises for a document that failed (its code is the document's)."""
    exc = QuireError(f"{s.source_name} failed: {s.error}")
    exc.code = s.error_code or "failed"
    return exc


def drive(rt: Runtime, doc_id: str, timeout_s: float, processes: int | None) -> Job:
    """Run the document to its next stop (complete, failed or awaiting a decision) with
    `processes` embedded workers (None: CPUs)."""
    from quire.orchestrator.consoles import text_console
    from quire.orchestrator.service import process_documents

    try:
        process_documents(
            rt,
            [doc_id],
            processes=processes,
            console=text_console(stderr=True, quiet=True),
            timeout=timeout_s,
        )
    except TimeoutError:
        log.warning("%s still processing after %ss", doc_id[:12], timeout_s)
    return rt.repo.load(doc_id)
