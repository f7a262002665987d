"""Quire as a library: the functions behind the `quire` command line.

    import quire

    result = quire.split("book.pdf", out="out/book", output_format="both")
    for s in result.sessions:
        print(s.number, s.title, f"pp. {s.page_first}-{s.page_last}", s.markdown)
    assert result.verification.passed

The runtime comes from the environment, as for the CLI: embedded by default (a folder store
and SQLite revisions under `.quire/`), distributed when QUIRE_BROKER_URL is set.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from quire.orchestrator.dispatch import dispatcher_for
from quire.orchestrator.outputs import check_folder, export_document, verify_exported
from quire.shared.config import (
    DEFAULT_DECIDER,
    DEFAULTS,
    Backend,
    Decider,
    OutputFormat,
    RunChoices,
    RunSettings,
)
from quire.shared.errors import DocumentFailedError
from quire.shared.ir import Document
from quire.shared.manifest import VerificationReport, load_manifest
from quire.shared.plan import Plan
from quire.shared.rag import RagChunk
from quire.shared.session import Session
from quire.shared.settings import OcrMode
from quire.workers.runtime import Runtime

Progress = Callable[[Session], object]  # called with the document's session as it moves


class StudySession(BaseModel):
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


def split(
    path: str | Path,
    out: str | Path,
    *,
    output_format: OutputFormat = DEFAULTS.output_format,
    backend: Backend | None = DEFAULTS.backend,
    min_pages: float = DEFAULTS.min_pages,
    max_pages: float = DEFAULTS.max_pages,
    overlap_pages: int = DEFAULTS.overlap_pages,
    ocr: OcrMode | None = DEFAULTS.ocr,
    ocr_lang: str | None = DEFAULTS.ocr_lang,
    strict: bool = DEFAULTS.strict,
    strict_backend: bool | None = DEFAULTS.strict_backend,
    decider: Decider = DEFAULT_DECIDER,
    force: bool = False,
    processes: int | None = None,
    on_progress: Progress | None = None,
) -> SplitResult:
    """Split one PDF, DOCX, EPUB or HTML file (or a folder of HTML chapters) into verified
    study sessions written to `out`.

    The defaults are those of `quire run` (`backend`, `ocr` and `ocr_lang` None: from
    QUIRE_REVIEW_BACKEND, QUIRE_OCR and QUIRE_OCR_LANG). `out` is owned by the run: files of
    an earlier Quire run there are replaced, and a non-empty folder that Quire did not write
    is refused unless `force`. Raises `DocumentFailedError` (with the document's error
    code) when the document fails, and a `QuireError` for bad settings or folders. With
    `decider="agent"` the split stops at `state="awaiting_decision"` for the agent loop,
    with no sessions yet. `processes`: worker processes (default: CPUs; 1 runs every part
    in this process). With an LLM `backend`, an item whose answers stay invalid after the
    re-asks is answered by the heuristic (listed in the manifest's `backend_fallbacks`),
    unless `strict_backend` (None: QUIRE_STRICT_BACKEND): then the document fails."""
    source, folder = Path(path), Path(out)
    rt = Runtime.from_env()
    settings = RunChoices.given(
        output_format=output_format,
        backend=backend,
        min_pages=min_pages,
        max_pages=max_pages,
        overlap_pages=overlap_pages,
        ocr=ocr,
        ocr_lang=ocr_lang,
        strict=strict,
        strict_backend=strict_backend,
    ).settings(decider=decider)
    return run_document(
        rt, source, folder, settings, force=force, processes=processes, on_progress=on_progress
    )


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
) -> SplitResult:
    """`split` on a given runtime and settings (the CLI's and MCP server's entry)."""
    from quire.workers.execute import submit
    from quire.workers.llm import check_installed

    check_installed(settings.backend)
    check_folder(out, force=force)  # refuse a foreign folder before doing any work
    s = submit(rt, source, settings, rerun=True, password=password)

    def tick() -> None:
        if on_progress is not None:
            on_progress(rt.repo.load(s.doc_id))

    dispatcher_for(rt, processes=processes).drive([s.doc_id], tick=tick)
    s = rt.repo.load(s.doc_id)
    if on_progress is not None:
        on_progress(s)
    if s.state == "failed":
        # the reason already names the document
        raise DocumentFailedError(s.error_code or "failed", s.error or f"{source.name} failed")
    if s.state == "awaiting_decision":
        return SplitResult(
            doc_id=s.doc_id,
            source=source,
            out=out,
            state=s.state,
            page_count=s.page_count,
            sessions=[],
            verification=None,
        )
    export_document(rt, s.doc_id, out, force=force)
    return read_result(out, source, verify_exported(out))


def read_result(out: Path, source: Path, report: VerificationReport) -> SplitResult:
    """The result of a run from its output folder."""
    manifest = load_manifest((out / "manifest.json").read_bytes())
    plan = Plan.model_validate_json((out / "plan.json").read_bytes())
    planned = {c.number: c for c in plan.chunks}
    sessions = [
        StudySession(
            number=c.number,
            title=c.title,
            page_first=c.page_first,
            page_last=c.page_last,
            pages=planned[c.number].pages,
            words=c.word_count,
            kind=planned[c.number].kind,
            end_reason=c.end_reason,
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


def parse(
    path: str | Path,
    *,
    ocr: OcrMode | None = DEFAULTS.ocr,
    ocr_lang: str | None = DEFAULTS.ocr_lang,
    strict: bool = DEFAULTS.strict,
) -> Document:
    """The document's IR: its elements in reading order, with pages and provenance. OCR as
    for `quire parse` (None: QUIRE_OCR, QUIRE_OCR_LANG)."""
    from quire.workers.parse import OcrSettings, parse_document

    settings = RunChoices.given(ocr=ocr, ocr_lang=ocr_lang, strict=strict).settings()
    return parse_document(
        Path(path),
        ocr=OcrSettings(mode=settings.ocr, lang=settings.ocr_lang),
        strict=settings.strict,
    ).document


def verify(out: str | Path, *, source: str | Path | None = None) -> VerificationReport:
    """Re-run every check on an output folder (render-compare too when the source PDF is
    given or still in the store); the report is also written into the folder."""
    from quire.orchestrator.service import verify_folder

    return verify_folder(Path(out), Path(source) if source is not None else None)


def retrieval_chunks(
    out: str | Path,
    *,
    max_chars: int = 2000,
    algorithm: Literal["hierarchical", "linear"] = "hierarchical",
) -> list[RagChunk]:
    """Size-capped retrieval chunks of a verified output folder, each inside one session;
    their concatenation is proven to rebuild the sessions. Also written to the folder as
    `rag-chunks.jsonl`."""
    from quire.workers.rag.cli_support import build_rag

    return build_rag(Path(out), max_chars=max_chars, algorithm=algorithm).chunks
