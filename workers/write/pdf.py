"""A chunk as PDF: the whole source pages of its range, plus overlap pages for context.

Page ranges come from the IR alone, so each chunk is computed without looking at the
others and together the chunks cover every source page:

- core range: from the first page of the chunk's elements (page 1 for the first chunk) to
  the last page of its elements, extended up to the page before the next element's first
  page (to the last page for the last chunk). Pages with no elements between two chunks
  (blank versos, figure-only or skipped pages) therefore stay with the chunk before them.
  A page where one chunk ends and the next begins is in both core ranges.
- overlap: `overlap` pages before and after the core range, clamped to the document.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from quire.shared.errors import CorruptDocumentError, EncryptedDocumentError, InputError
from quire.shared.ir import Document
from quire.workers.parse.pdf_open import pymupdf_module

if TYPE_CHECKING:
    import pymupdf


@dataclass(frozen=True)
class PdfPages:
    core_first: int
    core_last: int
    before: tuple[int, ...]  # overlap pages before the core range
    after: tuple[int, ...]  # overlap pages after it

    @property
    def pages(self) -> list[int]:
        """Source pages of the chunk PDF, in order."""
        return [*self.before, *range(self.core_first, self.core_last + 1), *self.after]

    @property
    def overlap(self) -> list[int]:
        return [*self.before, *self.after]


def element_span(doc: Document, first_id: str, last_id: str) -> tuple[int, int, int]:
    """Page span of the elements first_id..last_id: (page_first, page_last, next_index),
    next_index being the index of the element after last_id, or -1 at the end."""
    ids = [e.id for e in doc.elements]
    try:
        i, j = ids.index(first_id), ids.index(last_id)
    except ValueError as exc:
        raise ValueError(f"chunk range {first_id}..{last_id} is not in the IR") from exc
    if j < i:
        raise ValueError(f"chunk range {first_id}..{last_id} is reversed")
    els = doc.elements[i : j + 1]
    nxt = j + 1 if j + 1 < len(doc.elements) else -1
    return min(e.page_first for e in els), max(e.page_last for e in els), nxt


def chunk_pdf_pages(doc: Document, first_id: str, last_id: str, overlap: int) -> PdfPages:
    if overlap < 0:
        raise ValueError("overlap must be >= 0")
    span_first, span_last, nxt = element_span(doc, first_id, last_id)
    n = doc.page_count
    first = 1 if doc.elements[0].id == first_id else span_first
    last = n if nxt < 0 else max(span_last, doc.elements[nxt].page_first - 1)
    first, last = max(1, min(first, n)), max(1, min(last, n))
    before = tuple(range(max(1, first - overlap), first))
    after = tuple(range(last + 1, min(n, last + overlap) + 1))
    return PdfPages(first, last, before, after)


# The last opened source, kept open: `insert_pdf` resolves the source's named destinations
# once per open document (about 1 s for the 2,415-page corpus manual), so a worker writing
# many chunks of one document should not reopen it for each. Keyed by path, size and mtime.
_source_cache: dict[tuple[str, int, int], pymupdf.Document] = {}


def clear_source_cache() -> None:
    for src in _source_cache.values():
        src.close()
    _source_cache.clear()


def open_source_pdf(doc: Document, source_pdf: Path) -> pymupdf.Document:
    """Open the source PDF (or reuse the cached one) and check it is the document the IR
    describes. The caller must not close it."""
    if doc.source_format != "pdf":
        raise InputError(
            f"PDF output needs a PDF source; this document is {doc.source_format.upper()}",
            source=doc.source_name,
        )
    try:
        stat = Path(source_pdf).stat()
        key = (str(Path(source_pdf).resolve()), stat.st_size, stat.st_mtime_ns)
        src = _source_cache.get(key)
        if src is None:
            clear_source_cache()
            src = pymupdf_module().open(source_pdf)
            _source_cache[key] = src
    except Exception as exc:  # pymupdf raises several types for unreadable files
        raise CorruptDocumentError(
            f"cannot open source PDF: {exc}", source=str(source_pdf)
        ) from exc
    if src.needs_pass:
        clear_source_cache()
        raise EncryptedDocumentError("source PDF needs a password", source=str(source_pdf))
    if src.page_count != doc.page_count:
        raise InputError(
            f"source PDF has {src.page_count} pages but the IR says {doc.page_count}",
            source=str(source_pdf),
        )
    return src


def _copy_page_group(
    src: pymupdf.Document, out: pymupdf.Document, src_page: int, out_page: int
) -> None:
    """Keep the page's transparency group, which `insert_pdf` drops.

    Without it blending differs slightly (grey levels off by up to ~25 on figure pages), so
    the chunk page would not render exactly like its source page. Only self-contained
    groups are copied (an indirect colour space would need its objects copied too)."""
    kind, value = src.xref_get_key(src[src_page - 1].xref, "Group")
    if kind == "xref":
        value = src.xref_object(int(value.split()[0]), compressed=True)
    elif kind != "dict":
        return
    if " R" in value:
        return
    out.xref_set_key(out[out_page - 1].xref, "Group", value)


def render_chunk_pdf(src: pymupdf.Document, pages: PdfPages, title: str) -> bytes:
    """The chunk PDF's bytes: the listed source pages, whole, in order. Deterministic."""
    out = pymupdf_module().open()
    try:
        runs: list[tuple[int, int]] = []  # consecutive page runs, 1-based inclusive
        for p in pages.pages:
            if runs and runs[-1][1] == p - 1:
                runs[-1] = (runs[-1][0], p)
            else:
                runs.append((p, p))
        for a, b in runs:
            try:
                out.insert_pdf(src, from_page=a - 1, to_page=b - 1, links=True, annots=True)
            except RuntimeError as exc:  # a repaired source whose pages point at lost objects
                raise CorruptDocumentError(
                    f"pages {a}-{b} cannot be copied from the damaged source PDF "
                    f"({' '.join(str(exc).split())[:160]})"
                ) from None
        for i, p in enumerate(pages.pages, 1):
            _copy_page_group(src, out, p, i)
        out.set_metadata({"title": title, "producer": "quire", "creator": "quire"})
        # no_new_id: no random file id, so the same chunk always has the same bytes
        return out.tobytes(garbage=1, deflate=True, no_new_id=True)
    finally:
        out.close()
