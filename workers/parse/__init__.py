"""Parsing: a PDF, DOCX, EPUB or HTML file (or a folder of HTML chapters) ->
`ParsedDocument` (IR `Document` + image bytes).

`parse_document` is the one entry point for a whole file. Large PDFs can instead be parsed
as page-range tasks (`parse_pdf_range`, JSON-serialisable `PdfRangeResult`) whose results
are merged by `merge_pdf_ranges`; the IR is the same however the pages were split.
Bad input raises the specific `shared.errors.InputError` subclasses (see detect.py).
"""

from __future__ import annotations

from pathlib import Path

from quire.workers.parse.base import ParsedDocument
from quire.workers.parse.compressed import inner_name, unpacked
from quire.workers.parse.detect import detect_format
from quire.workers.parse.pdf import page_ranges, parse_pdf, parse_pdf_range
from quire.workers.parse.pdf_merge import merge_pdf_ranges
from quire.workers.parse.pdf_ocr import OcrSettings
from quire.workers.parse.pdf_open import PdfMeta, pdf_meta, pdf_page_count
from quire.workers.parse.pdf_types import PdfRangeResult

__all__ = [
    "OcrSettings",
    "ParsedDocument",
    "PdfMeta",
    "PdfRangeResult",
    "detect_format",
    "merge_pdf_ranges",
    "page_ranges",
    "parse_document",
    "parse_pdf_range",
    "pdf_meta",
    "pdf_page_count",
]


def parse_document(
    path: Path,
    *,
    range_pages: int = 100,
    ocr: OcrSettings | None = None,
    strict: bool = False,
    doc_id: str | None = None,
) -> ParsedDocument:
    """Detect the format and parse the whole document (PDFs range by range, then merged;
    OCR as `ocr` says (None: none); `strict`: pages without text fail the document;
    `doc_id`: the upload's hash when `path` is its decrypted copy)."""
    path = Path(path)
    if inner_name(path.name) is not None:  # a .pdf.gz: the document inside
        from quire.shared.config import ENV_DEFAULTS

        with unpacked(path, ENV_DEFAULTS.max_file_bytes) as inner:
            return parse_document(
                inner, range_pages=range_pages, ocr=ocr, strict=strict, doc_id=doc_id
            )
    fmt = detect_format(path)
    if fmt == "docx":
        from quire.workers.parse.docx import parse_docx  # lazy: python-docx is not needed for PDFs

        return parse_docx(path)
    if fmt == "epub":
        from quire.workers.parse.epub import parse_epub

        return parse_epub(path)
    if fmt == "html":
        from quire.workers.parse.html_input import parse_html

        return parse_html(path)
    return parse_pdf(path, range_pages=range_pages, ocr=ocr, strict=strict, doc_id=doc_id)
