"""PDF parsing: page-range tasks (`parse_pdf_range`) and their merge (`merge_pdf_ranges`).

A range task opens the PDF, extracts each page natively with PyMuPDF (pdf_extract), OCRs
the pages that need it (pdf_ocr) and returns a JSON-serialisable `PdfRangeResult`. A page
whose native extraction raises is retried with pymupdf4llm (imported lazily, layout model
off); the page records which parser produced it and why. `parse_pdf` runs the ranges
in-process and merges them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quire.shared.text import sha256_bytes
from quire.workers.parse.base import ParsedDocument
from quire.workers.parse.pdf_extract import extract_page
from quire.workers.parse.pdf_merge import merge_pdf_ranges
from quire.workers.parse.pdf_ocr import OcrCache, OcrSettings, apply_ocr
from quire.workers.parse.pdf_open import (
    open_pdf_kept,
    pin_text_settings,
    pymupdf_module,
    read_meta,
)
from quire.workers.parse.pdf_tex_fonts import FontCache
from quire.workers.parse.pdf_types import PdfBlock, PdfPage, PdfRangeResult

FALLBACK_PARSER = "pymupdf4llm"


def page_ranges(page_count: int, range_pages: int) -> list[tuple[int, int]]:
    """[(first, last), ...] 1-based inclusive, `range_pages` pages each (the last shorter)."""
    if range_pages < 1:
        raise ValueError("range_pages must be >= 1")
    return [
        (a, min(a + range_pages - 1, page_count)) for a in range(1, page_count + 1, range_pages)
    ]


def weighted_ranges(
    page_count: int, budget: int, heavy: set[int], heavy_cost: int
) -> list[tuple[int, int]]:
    """Like `page_ranges`, but a page in `heavy` (one to OCR) counts `heavy_cost` pages of
    the `budget`: a scanned stretch is cut into short ranges that spread over workers,
    while text pages stay in long ones."""
    ranges: list[tuple[int, int]] = []
    first, cost = 1, 0
    for pno in range(1, page_count + 1):
        weight = heavy_cost if pno in heavy else 1
        if cost and cost + weight > budget:
            ranges.append((first, pno - 1))
            first, cost = pno, 0
        cost += weight
    ranges.append((first, page_count))
    return ranges


def parse_pdf_range(
    path: Path,
    first: int,
    last: int,
    *,
    doc_id: str | None = None,
    ocr: OcrSettings | None = None,
    ocr_cache: OcrCache | None = None,
) -> PdfRangeResult:
    """Extract pages first..last (1-based, inclusive) of a PDF, OCR'ing pages as `ocr`
    says (None: no OCR; see pdf_ocr), with results cached in `ocr_cache`.

    `doc_id` (the sha256 of the uploaded file) may be passed by a caller that already knows
    it, to save hashing the file again in every range task.
    """
    path = Path(path)
    doc = open_pdf_kept(path)
    pin_text_settings()
    if not 1 <= first <= last <= doc.page_count:
        raise ValueError(f"page range {first}-{last} outside 1-{doc.page_count}")
    images: dict[str, bytes] = {}
    cache: dict[int, Any] = {}
    fonts: FontCache = {}
    pages = []
    hits = 0
    for pno in range(first, last + 1):
        try:
            page = extract_page(doc, pno, images, cache, fonts)
        except Exception as exc:  # a broken page must not sink the document
            page = fallback_page(doc, pno, exc)
        page, hit = apply_ocr(doc, page, ocr, ocr_cache)
        pages.append(page)
        hits += hit
    return PdfRangeResult(
        doc_id=doc_id or sha256_bytes(path.read_bytes()),
        first=first,
        last=last,
        pages=pages,
        images=images,
        ocr_cache_hits=hits,
    )


def fallback_page(doc: Any, pno: int, exc: BaseException) -> PdfPage:
    """Parse one page with pymupdf4llm after native extraction failed with `exc`."""
    why = f"native extraction failed ({type(exc).__name__}: {' '.join(str(exc).split())[:120]})"
    try:
        rect = doc[pno - 1].rect
        width, height = round(rect.width, 2), round(rect.height, 2)
    except Exception:
        width = height = 0.0
    page = PdfPage(page=pno, width=width, height=height, parser=FALLBACK_PARSER, parser_reason=why)
    try:
        markdown_text = _pymupdf4llm_markdown(doc, pno)
    except Exception as exc2:
        page.skipped = f"unreadable page: {why}; {FALLBACK_PARSER} failed too ({exc2})"
        page.skipped_kind = "unreadable"
        return page
    chunks = [c.strip() for c in markdown_text.split("\n\n")]
    page.blocks = [
        PdfBlock(
            kind="text",
            bbox=(0.0, 0.0, width, height),
            lines=[ln.strip() for ln in c.splitlines() if ln.strip()],
            line_x0=[0.0 for ln in c.splitlines() if ln.strip()],
        )
        for c in chunks
        if c and c != "-----"
    ]
    if not page.blocks:
        page.skipped = f"no extractable text ({why}; {FALLBACK_PARSER} found none)"
        page.skipped_kind = "unreadable"
    return page


def _pymupdf4llm_markdown(doc: Any, pno: int) -> str:
    # Lazy import: pymupdf4llm pulls in extra modules, and its layout mode loads ONNX
    # sessions; the non-layout path is called directly and never prints to stdout.
    # pymupdf4llm also changes PyMuPDF's process-wide settings (quad corrections on import,
    # table text flags per call): they are put back afterwards, or the pages after a
    # fallback would get other boxes than in a process that never fell back.
    pymupdf = pymupdf_module()
    layout = getattr(pymupdf, "_get_layout", None)
    try:
        from pymupdf4llm.helpers import pymupdf_rag

        pymupdf.TOOLS.unset_quad_corrections(True)  # as pymupdf4llm sets it for itself
        return str(
            pymupdf_rag.to_markdown(
                doc, pages=[pno - 1], show_progress=False, write_images=False, embed_images=False
            )
        )
    finally:
        pin_text_settings()
        setattr(pymupdf, "_get_layout", layout)  # noqa: B010 - not in the type stubs


def parse_pdf(
    path: Path,
    *,
    range_pages: int = 100,
    ocr: OcrSettings | None = None,
    ocr_cache: OcrCache | None = None,
    strict: bool = False,
    doc_id: str | None = None,
) -> ParsedDocument:
    """Parse a whole PDF in-process, range by range, then merge."""
    path = Path(path)
    meta = read_meta(open_pdf_kept(path), path, doc_id)
    results = [
        parse_pdf_range(path, a, b, doc_id=meta.doc_id, ocr=ocr, ocr_cache=ocr_cache)
        for a, b in page_ranges(meta.page_count, range_pages)
    ]
    return merge_pdf_ranges(meta, results, strict=strict)
