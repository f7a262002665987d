"""Render-compare: each chunk-PDF page must render like the source page it claims to be.

Both pages are rendered the same way (grayscale, no alpha, annotations on, DEFAULT_DPI) and
compared: identical samples pass at once; otherwise the page passes only if the sizes are
equal and at most MAX_DIFF_FRACTION of the pixels differ by more than DIFF_LEVEL grey levels.

Why these numbers (measured on the corpus, PyMuPDF 2.0): a page copied with `insert_pdf`
renders byte-identically on every corpus page once the writer restores the page's
transparency group; without the group, beamer's figure pages differed on ~2% of pixels by at
most 25 levels. Any other page differs on tens of percent of pixels, and one removed text
line at 36 dpi is ~1% of a page, so 48 levels / 0.5% passes renderer noise and catches real
substitutions. 36 dpi (306x396 pixels for US Letter) keeps lines of text distinguishable and
renders at several hundred pages per second per core.

The work splits into batches of (chunk, output page index, source page) so they can be fanned
out to workers; within a batch the source document is opened once and source renders cached.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from quire.shared.manifest import Finding, Manifest
from quire.workers.parse.pdf_open import pymupdf_module, show_hidden_layers
from quire.workers.verify.findings import Findings

if TYPE_CHECKING:
    import pymupdf


@functools.cache
def _numpy() -> Any:
    """numpy (optional) speeds up pixel diffs; they only run on pages that are not
    byte-identical, so it is imported then (~0.1 s a Markdown-only run need not pay)."""
    try:
        return importlib.import_module("numpy")
    except ImportError:  # pragma: no cover - pure Python fallback
        return None


DEFAULT_DPI = 36
DIFF_LEVEL = 48
MAX_DIFF_FRACTION = 0.005
DEFAULT_BATCH = 200

PageCheck = tuple[int, int, int]  # (chunk number, output page index 0-based, source page 1-based)


class RenderBatch(BaseModel):
    """One unit of render work: ids and ranges only, safe to send in a task message."""

    model_config = ConfigDict(extra="forbid")

    index: int
    chunk_pdfs: dict[int, str]  # chunk number -> PDF file name relative to the output folder
    pages: list[PageCheck]


def plan_render_batches(manifest: Manifest, batch_size: int = DEFAULT_BATCH) -> list[RenderBatch]:
    """All output pages of all chunk PDFs, in chunk and page order, cut into batches.

    Consecutive chunks share pages (overlap, shared boundary pages), so keeping the order
    makes most repeated source pages hit the batch's render cache."""
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    checks: list[tuple[PageCheck, str]] = []
    for c in sorted(manifest.chunks, key=lambda c: c.number):
        if c.pdf_file and c.pdf_pages:
            checks += [((c.number, i, p), c.pdf_file) for i, p in enumerate(c.pdf_pages)]
    batches: list[RenderBatch] = []
    for start in range(0, len(checks), batch_size):
        part = checks[start : start + batch_size]
        batches.append(
            RenderBatch(
                index=len(batches),
                chunk_pdfs={chunk: name for (chunk, _, _), name in part},
                pages=[check for check, _ in part],
            )
        )
    return batches


def render_page(page: pymupdf.Page, dpi: int) -> tuple[int, int, bytes]:
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf_module().csGRAY, alpha=False, annots=True)
    return pix.width, pix.height, pix.samples


def diff_fraction(a: bytes, b: bytes, level: int = DIFF_LEVEL) -> float:
    """Fraction of pixels whose grey values differ by more than `level` (same-size inputs)."""
    if not a:
        return 0.0
    np = _numpy()
    if np is not None:
        x = np.frombuffer(a, dtype=np.uint8).astype(np.int16)
        y = np.frombuffer(b, dtype=np.uint8).astype(np.int16)
        return float(np.count_nonzero(np.abs(x - y) > level)) / len(a)
    return sum(1 for p, q in zip(a, b, strict=True) if abs(p - q) > level) / len(a)


def render_compare_batch(
    source_pdf: Path,
    chunk_pdfs: Mapping[int, Path],
    pages: Sequence[PageCheck],
    *,
    dpi: int = DEFAULT_DPI,
) -> list[Finding]:
    """Compare each listed output page with its source page; a Finding for each that differs."""
    findings = Findings()
    cache: dict[int, tuple[int, int, bytes]] = {}
    opened: dict[int, pymupdf.Document | None] = {}
    src = pymupdf_module().open(source_pdf)
    # a chunk copies pages without the layers' default view: it shows what the parse read
    show_hidden_layers(src)
    try:
        for chunk, index, source_page in pages:
            name = chunk_pdfs[chunk].name
            if chunk not in opened:
                try:
                    opened[chunk] = pymupdf_module().open(chunk_pdfs[chunk])
                except Exception as exc:  # a damaged file: every page of it fails
                    opened[chunk] = None
                    findings.add(
                        "render_mismatch",
                        f"{name} cannot be opened: {exc}",
                        chunk=chunk,
                        file=name,
                    )
            out = opened[chunk]
            if out is None:
                continue
            message = _compare_page(src, out, cache, index, source_page, name, dpi)
            if message:
                findings.add(
                    "render_mismatch",
                    message,
                    chunk=chunk,
                    page=source_page,
                    out_page=index + 1,
                    file=name,
                )
    finally:
        src.close()
        for doc in opened.values():
            if doc is not None:
                doc.close()
    return findings


def _compare_page(
    src: pymupdf.Document,
    out: pymupdf.Document,
    cache: dict[int, tuple[int, int, bytes]],
    index: int,
    source_page: int,
    name: str,
    dpi: int,
) -> str | None:
    """Why output page `index` of `out` is not source page `source_page`, or None."""
    if not 0 <= index < out.page_count:
        return (
            f"{name} has no page {index + 1} (it has {out.page_count}); source page "
            f"{source_page} was expected there"
        )
    if not 1 <= source_page <= src.page_count:
        return f"source page {source_page} does not exist (the source has {src.page_count})"
    if source_page not in cache:
        cache[source_page] = render_page(src[source_page - 1], dpi)
    sw, sh, ss = cache[source_page]
    ow, oh, os_ = render_page(out[index], dpi)
    if ss == os_ and (sw, sh) == (ow, oh):
        return None
    if (sw, sh) != (ow, oh):
        why = f"size {ow}x{oh} px, source {sw}x{sh} px at {dpi} dpi"
    else:
        frac = diff_fraction(ss, os_)
        if frac <= MAX_DIFF_FRACTION:
            return None
        why = f"{frac:.1%} of pixels differ by more than {DIFF_LEVEL} grey levels"
    return (
        f"{name} page {index + 1} does not render like source page {source_page} "
        f"({why}); rewrite the chunk"
    )


def run_render_batch(
    out_dir: Path, source_pdf: Path, batch: RenderBatch, *, dpi: int = DEFAULT_DPI
) -> list[Finding]:
    """`render_compare_batch` for a planned batch of an output folder."""
    paths = {chunk: out_dir / name for chunk, name in batch.chunk_pdfs.items()}
    return render_compare_batch(source_pdf, paths, batch.pages, dpi=dpi)
