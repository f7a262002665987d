"""One document run end to end on a given runtime, and its result as read back from the
output folder: what `quire run`, the MCP server and `quire.split` share."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from quire.orchestrator.dispatch import dispatcher_for
from quire.orchestrator.outputs import check_folder, export_document, verify_exported
from quire.shared.config import RunSettings
from quire.shared.errors import DocumentFailedError
from quire.shared.job import Job
from quire.shared.layout import Layout
from quire.shared.manifest import VerificationReport, load_manifest
from quire.shared.pages import PageRange
from quire.shared.plan import Plan
from quire.workers.runtime import Runtime

Progress = Callable[[Job], object]  # called with the document's job as it moves


class StudySession(PageRange, BaseModel):
    """One session of the split: what a student reads in one sitting."""

    model_config = ConfigDict(frozen=True)

    number: int
    title: str
    page_first: int
    page_last: int
    pages: float  # PDF pages, or words / 400 for DOCX
    words: int
    kind: Literal["study", "front_matter", "back_matter"]  # front/back matter: look-up only
    markdown: Path | None  # the session's files in the output folder
    pdf: Path | None
    end_reason: str  # why the session ends where it does
    end_alternative: str | None  # the best other place for its end, and why not there


class SplitResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    doc_id: str  # sha256 of the source bytes
    source: Path
    out: Path
    state: Literal["complete", "awaiting_decision"]
    page_count: int
    sessions: list[StudySession]
    verification: VerificationReport | None  # of the output folder as written


def _runs_inline(rt: Runtime, s: Job) -> bool:
    """A document parsed in one part and reviewed offline runs in this process when no
    process count is given: starting a worker (a fresh interpreter importing Quire) costs
    more than the little of its work that could run in parallel."""
    from quire.shared.errors import QuireError
    from quire.shared.states import STOPPED
    from quire.workers.steps import OFFLINE_ANALYSIS, parse_ranges

    if s.settings.backend not in OFFLINE_ANALYSIS:
        return False
    if s.state in STOPPED or s.source_format == "docx":
        return True  # nothing to run, or parsed in one part
    if s.state not in ("queued", "parsing"):
        return False  # resumed after parsing: its parts may be many
    try:
        return len(parse_ranges(rt, s)) <= 1
    except (OSError, QuireError):
        return False  # the parse part fails the document with the reason


def run_document(
    rt: Runtime,
    source: Path,
    out: Path,
    settings: RunSettings,
    *,
    force: bool = False,
    processes: int | None = None,
    on_progress: Progress | None = None,
    password: str | None = None,
    inline_small: bool = False,
) -> SplitResult:
    """`split` on a given runtime and settings (the CLI's and MCP server's entry).
    `inline_small` (`quire run`): with no `processes` given, a document parsed in one part
    and reviewed offline runs in this process (see `_runs_inline`)."""
    from quire.workers.execute import submit
    from quire.workers.llm import check_installed

    check_installed(settings.backend)
    check_folder(out, force=force)  # refuse a foreign folder before doing any work
    s = submit(rt, source, settings, rerun=True, password=password)

    def tick() -> None:
        if on_progress is not None:
            on_progress(rt.repo.load(s.doc_id))

    dispatcher = dispatcher_for(rt, processes=processes)
    if inline_small and processes is None:
        dispatcher = dispatcher.single_process_if(lambda: _runs_inline(rt, s))
    dispatcher.drive([s.doc_id], tick=tick)
    s = rt.repo.load(s.doc_id)
    if on_progress is not None:
        on_progress(s)
    if s.state == "failed":
        # the reason already names the document
        raise DocumentFailedError(s.error_code or "failed", s.error or f"{source.name} failed")
    if s.state == "awaiting_decision":
        return SplitResult(
            **s.model_dump(include={"doc_id", "state", "page_count"}),
            source=source,
            out=out,
            sessions=[],
            verification=None,
        )
    export_document(rt, s.doc_id, out, force=force)
    return read_result(out, source, verify_exported(out))


def read_result(out: Path, source: Path, report: VerificationReport) -> SplitResult:
    """The result of a run from its output folder."""
    manifest = load_manifest((out / Layout.MANIFEST).read_bytes())
    plan = Plan.model_validate_json((out / Layout.PLAN).read_bytes())
    planned = {c.number: c for c in plan.chunks}
    sessions = [
        StudySession(
            **c.model_dump(include={"number", "title", "page_first", "page_last", "end_reason"}),
            pages=planned[c.number].pages,
            words=c.word_count,
            kind=planned[c.number].kind,
            end_alternative=planned[c.number].end_alternative,
            markdown=out / c.markdown_file if c.markdown_file else None,
            pdf=out / c.pdf_file if c.pdf_file else None,
        )
        for c in manifest.chunks
    ]
    return SplitResult(
        doc_id=manifest.doc_id,
        source=source,
        out=out,
        state="complete",
        page_count=manifest.page_count,
        sessions=sessions,
        verification=report,
    )
