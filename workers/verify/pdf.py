"""PDF structure checks: page coverage, page counts and ranges.

The manifest claims which source page each chunk-PDF page is (`pdf_pages`). Here the claims
are checked against the IR (the ranges the writer must have used) and against the PDF files
(page counts); `render.py` then checks each claim against pixels. Coverage is computed from
the claims, so once every page renders like its claimed source page, coverage is proven.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from quire.shared.ir import Document
from quire.shared.manifest import Finding, Manifest, ManifestChunk
from quire.workers.parse.pdf_open import pymupdf_module
from quire.workers.verify.findings import Findings
from quire.workers.verify.markdown import inside
from quire.workers.write.pdf import chunk_pdf_pages, element_span


@dataclass
class PdfResult:
    findings: list[Finding]
    checked: dict[str, int]
    page_counts: dict[int, int]  # chunk number -> pages in its PDF (only PDFs that opened)


def _ranges(pages: list[int]) -> str:
    out: list[str] = []
    for p in pages:
        if out and out[-1].split("-")[-1] == str(p - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{p}"
        else:
            out.append(str(p))
    return ", ".join(out) or "none"


def check_pdf_structure(doc: Document, manifest: Manifest, out_dir: Path) -> PdfResult:
    findings = Findings()
    counts: dict[int, int] = {}
    covered: set[int] = set()
    if doc.source_format != "pdf":
        findings.add(
            "page_mismatch",
            f"the manifest lists PDF output for a {doc.source_format.upper()} source",
        )
        return PdfResult(findings, {}, counts)

    for c in sorted(manifest.chunks, key=lambda c: c.number):
        if c.pdf_pages is None or not c.pdf_file:
            findings.add(
                "manifest_mismatch",
                "no PDF file or page list for this chunk although the output format includes PDF",
                chunk=c.number,
            )
            continue
        if not _page_claims(doc, c, c.pdf_file, c.pdf_pages, manifest.overlap_pages, findings):
            continue
        n = _page_count(out_dir, c.number, c.pdf_file, findings)
        if n is None:
            continue
        counts[c.number] = n
        if n != len(c.pdf_pages):
            findings.add(
                "page_mismatch",
                f"{c.pdf_file} has {n} pages, the manifest lists {len(c.pdf_pages)} "
                f"(source pages {_ranges(c.pdf_pages)})",
                chunk=c.number,
                file=c.pdf_file,
            )
        overlap = set(c.overlap_pages)
        covered.update(p for p in c.pdf_pages[:n] if p not in overlap)

    skipped = {s.page for s in doc.skipped_pages}
    missing = [p for p in range(1, doc.page_count + 1) if p not in covered and p not in skipped]
    for p in missing:
        findings.add("page_missing", f"source page {p} is in no chunk PDF's core range", page=p)
    checked = {
        "chunks_pdf": len(counts),
        "source_pages": doc.page_count,
        "pdf_pages": sum(counts.values()),
    }
    return PdfResult(findings, checked, counts)


def _page_claims(
    doc: Document,
    c: ManifestChunk,
    pdf_file: str,
    pdf_pages: list[int],
    overlap_pages: int,
    findings: Findings,
) -> bool:
    """The manifest's page claims for one chunk PDF against the IR; False when its element
    ids are not in the IR (the plan check reports that), so nothing else can be checked."""
    try:
        span_first, span_last, _ = element_span(doc, c.first_id, c.last_id)
        expected = chunk_pdf_pages(doc, c.first_id, c.last_id, overlap_pages)
    except ValueError as exc:  # ids not in the IR: reported by the plan check
        findings.add("page_mismatch", str(exc), chunk=c.number)
        return False
    if (c.page_first, c.page_last) != (span_first, span_last):
        findings.add(
            "page_mismatch",
            f"manifest says the chunk's elements span pages {c.page_first}-"
            f"{c.page_last}, the IR says {span_first}-{span_last}",
            chunk=c.number,
            page=c.page_first,
        )
    if pdf_pages != expected.pages:
        findings.add(
            "page_mismatch",
            f"manifest lists source pages {_ranges(pdf_pages)} for "
            f"{pdf_file}; its elements and overlap {overlap_pages} give "
            f"{_ranges(expected.pages)}",
            chunk=c.number,
            file=pdf_file,
        )
    if c.overlap_pages != expected.overlap:
        findings.add(
            "page_mismatch",
            f"manifest lists overlap pages {_ranges(c.overlap_pages)}, expected "
            f"{_ranges(expected.overlap)}",
            chunk=c.number,
            file=pdf_file,
        )
    bad_overlap = [p for p in c.overlap_pages if p not in pdf_pages]
    if bad_overlap:
        findings.add(
            "page_mismatch",
            f"overlap pages {_ranges(bad_overlap)} are not in the chunk PDF",
            chunk=c.number,
            page=bad_overlap[0],
            file=pdf_file,
        )
    return True


def _page_count(out_dir: Path, number: int, pdf_file: str, findings: Findings) -> int | None:
    """The pages of a chunk PDF as written; None (with a finding) when it is missing or
    cannot be opened."""
    path = inside(out_dir, pdf_file)
    if path is None or not path.is_file():
        findings.add(
            "manifest_mismatch",
            f"{pdf_file} is missing; rewrite the chunk",
            chunk=number,
            file=pdf_file,
        )
        return None
    try:
        with pymupdf_module().open(path) as pdf:
            return int(pdf.page_count)
    except Exception as exc:  # any open failure means the file is damaged
        findings.add(
            "page_mismatch",
            f"{pdf_file} cannot be opened: {exc}",
            chunk=number,
            file=pdf_file,
        )
        return None
