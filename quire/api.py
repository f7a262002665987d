"""Quire as a library: the functions behind the `quire` command line.

    import quire

    result = quire.split("book.pdf", out="out/book", output_format="both")
    for s in result.sessions:
        print(s.number, s.title, f"pp. {s.page_first}-{s.page_last}", s.markdown)
    assert result.verification.passed

The runtime comes from the environment, as for the CLI: embedded by default (a folder store
and SQLite revisions under `.quire/`), distributed when QUIRE_BROKER_URL is set. Each call is
an entry point: it reads the `QUIRE_*` settings once and passes them down.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from quire.orchestrator.one_document import Progress, SplitResult, StudySession, run_document
from quire.shared.config import (
    DEFAULT_DECIDER,
    DEFAULTS,
    Backend,
    Decider,
    OutputFormat,
    RunChoices,
)
from quire.shared.ir import Document
from quire.shared.manifest import VerificationReport
from quire.shared.rag import RagChunk
from quire.shared.settings import OcrMode, load_settings
from quire.workers.runtime import Runtime

__all__ = [
    "Progress",
    "SplitResult",
    "StudySession",
    "parse",
    "retrieval_chunks",
    "split",
    "verify",
]


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
    `decider="agent"` the split stops at `state="awaiting_decision"` for the agent loop, with
    no sessions yet. `processes`: worker processes (default: CPUs, but a document parsed in one
    part and reviewed offline runs in this process; 1 runs every part here). With an LLM
    `backend`, an item whose answers stay invalid after the re-asks is answered by the
    heuristic (listed in the manifest's `backend_fallbacks`), unless `strict_backend` (None:
    QUIRE_STRICT_BACKEND): then the document fails."""
    source, folder = Path(path), Path(out)
    env = load_settings()
    rt = Runtime.from_env(env)
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
    ).settings(decider=decider, env=env)
    return run_document(
        rt,
        source,
        folder,
        settings,
        force=force,
        processes=processes,
        on_progress=on_progress,
        inline_small=True,  # as `quire run`: a one-part document skips the worker's start
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

    choices = RunChoices.given(ocr=ocr, ocr_lang=ocr_lang, strict=strict)
    settings = choices.settings(env=load_settings())
    return parse_document(
        Path(path),
        ocr=OcrSettings(mode=settings.ocr, lang=settings.ocr_lang),
        strict=settings.strict,
    ).document


def verify(out: str | Path, *, source: str | Path | None = None) -> VerificationReport:
    """Re-run every check on an output folder (render-compare too when the source PDF is
    given or still in the store); the report is also written into the folder."""
    from quire.orchestrator.service import verify_folder

    return verify_folder(load_settings(), Path(out), Path(source) if source is not None else None)


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
