"""Merge page-range results into one IR `Document`: every cross-page decision lives here.

Order of work: check the ranges cover every page once -> drop running headers/footers and
page numbers (neighbour comparison) -> mark contents and index pages (their entries become
one list a page) -> headings (outline, else font statistics) -> walk the
body blocks in page order building elements, continuing a paragraph, list or code block
across a page break when the previous page ends inside it (a list or code block for at
most MAX_CARRY_PAGES pages: longer ones are cut at a page break, so a session can end
inside a 90-page listing) -> ids -> notes.
Because this sees all pages at once and the per-page extraction never looks at other
pages, the Document is identical however the pages were grouped into ranges.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from quire.shared.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    PagesWithoutTextError,
)
from quire.shared.ir import (
    Document,
    Element,
    ParserNote,
    RemovedText,
    SkippedPage,
    describe_textless,
)
from quire.shared.text import count_words, text_hash
from quire.workers.parse.base import ParsedDocument
from quire.workers.parse.inline_code import with_inline_code
from quire.workers.parse.pdf_assemble import Assembler
from quire.workers.parse.pdf_contents import is_contents_page, merge_titles
from quire.workers.parse.pdf_footnotes import NoteSet, unwrap_marks
from quire.workers.parse.pdf_headings import (
    PageBody,
    attach_labels,
    body_size,
    drop_contents_headings,
    font_headings,
    headings_below_outline,
    join_wrapped_titles,
    match_outline,
    numbered_below_outline,
    outline_names_chapters,
)
from quire.workers.parse.pdf_hyphens import (
    JOIN,
    Vocabulary,
    keep_stranded,
    strip_marks,
    take_joins,
)
from quire.workers.parse.pdf_links import Trail, link_notes, tie_notes
from quire.workers.parse.pdf_links import resolve as resolve_links
from quire.workers.parse.pdf_open import PdfMeta, pdf_meta
from quire.workers.parse.pdf_parser_notes import parser_notes, parser_uses
from quire.workers.parse.pdf_running import body_blocks, find_running_text
from quire.workers.parse.pdf_types import PdfBlock, PdfPage, PdfRangeResult
from quire.workers.parse.xrefs import link_references


def _page_body(page: PdfPage, drop: set[tuple[int, int]], max_page: int) -> PageBody:
    blocks = body_blocks(page, drop)
    if is_contents_page(blocks, max_page):
        return PageBody(page.page, merge_titles(blocks, max_page), contents_max_page=max_page)
    return PageBody(page.page, blocks)


def settle_joins(e: Element) -> Element:
    """The element with the hyphens taken out of broken words gone from its text, their
    offsets in `joined_hyphens` (last, after links and footnote marks are written into the
    text, so the offsets are those of the text as stored)."""
    if JOIN not in e.text:
        return e
    text, joins = take_joins(keep_stranded(e.text))
    items = None if e.items is None else [strip_marks(keep_stranded(i)) for i in e.items]
    return e.model_copy(
        update={
            "text": text,
            "joined_hyphens": joins,
            "items": items,
            "word_count": count_words(text),
            "content_hash": text_hash(text),
        }
    )


def _drop_marks(bodies: Iterable[PageBody]) -> None:
    """A JOIN mark in the text layer itself (a noncharacter: never in real text) is dropped:
    in an element's text it means a hyphen taken out."""
    for pb in bodies:
        for b in pb.blocks:
            if any(JOIN in ln for ln in b.lines):
                b.lines = [strip_marks(ln) for ln in b.lines]


def _vocabulary(bodies: Iterable[PageBody]) -> Vocabulary:
    """The words of the body text (figure labels aside)."""
    return Vocabulary.from_lines(
        b.lines for pb in bodies for b in pb.blocks if b.kind == "text" and not b.figure
    )


def merge_pdf_ranges(
    source: Path | PdfMeta, results: list[PdfRangeResult], *, strict: bool = False
) -> ParsedDocument:
    """Merge the range results of one PDF into its ParsedDocument (any order, any sizes).

    `strict`: a page that ends without text fails the document (PagesWithoutTextError)."""
    meta = source if isinstance(source, PdfMeta) else pdf_meta(Path(source))
    pages = sorted((p for r in results for p in r.pages), key=lambda p: p.page)
    if [p.page for p in pages] != list(range(1, meta.page_count + 1)):
        raise ValueError(f"range results do not cover pages 1..{meta.page_count} exactly once")
    if any(r.doc_id != meta.doc_id for r in results):
        raise ValueError("range results come from a different document")
    images: dict[str, bytes] = {}
    for r in results:
        images.update(r.images)

    size = body_size([PageBody(p.page, p.blocks) for p in pages])
    drop, removed = find_running_text(pages, size)
    removed = [r.model_copy(update={"text": unwrap_marks(r.text)}) for r in removed]
    removed += [
        RemovedText(page=p.page, kind="line_number", text=" ".join(p.line_numbers))
        for p in pages
        if p.line_numbers
    ]
    # printed page numbers run past the physical count by the front matter at most
    max_page = 2 * meta.page_count + 20
    bodies = {p.page: _page_body(p, drop, max_page) for p in pages if not p.skipped}
    unmatched: list[int] = []
    if any(e.page for e in meta.outline):
        unmatched = match_outline(bodies, meta.outline, meta.outline_y, size)
        join_wrapped_titles(bodies, size)
    if not outline_names_chapters(meta.outline):  # the fonts find the chapters
        font_headings(list(bodies.values()), size)
    else:  # and the sections under a bookmark longer than a session
        headings_below_outline(bodies, meta.outline, meta.page_count, size)
        numbered_below_outline(bodies, meta.outline)
    # contents lines read as headings go before labels are attached ("References 2" over
    # "A Appendices 2" reads as a label and its title) and after (an entry may name the
    # label with the title: "Appendix E. Oversized Materials 35")
    drop_contents_headings(bodies)
    attach_labels(bodies, size)
    drop_contents_headings(bodies)

    elements, link_notes_ = _elements(bodies, pages, size)
    elements = with_inline_code(elements, {p.page: p.code for p in pages if p.code})
    skipped = _skipped_pages(pages)
    _check_content(meta, pages, skipped, elements, strict)
    used = {e.image.file for e in elements if e.image is not None}
    doc = Document(
        doc_id=meta.doc_id,
        source_name=meta.source_name,
        source_format="pdf",
        page_count=meta.page_count,
        page_basis="pdf",
        parsers=parser_uses(pages),
        skipped_pages=skipped,
        ocr_pages=[p.ocr for p in pages if p.ocr is not None],
        source_sha256=meta.source_sha256,
        removed=removed,
        notes=parser_notes(meta, pages, unmatched) + link_notes_,
        outline=meta.outline,
        elements=elements,
    )
    return ParsedDocument(document=doc, images={f: images[f] for f in sorted(used)})


def _elements(
    bodies: dict[int, PageBody], pages: list[PdfPage], size: float
) -> tuple[list[Element], list[ParserNote]]:
    """The elements of the body blocks, in page order, with their footnotes placed and
    their links resolved; and the notes on those links."""
    _drop_marks(bodies.values())
    asm = Assembler(size, _vocabulary(bodies.values()))
    notes, trail = NoteSet(), Trail()
    for pno in sorted(bodies):
        pb = bodies[pno]
        first = next((i for i, b in enumerate(pb.blocks) if b.kind != "footnote"), -1)
        prev: PdfBlock | None = None
        for i, block in enumerate(pb.blocks):
            if block.kind == "footnote":
                trail.add(pno, block.bbox, asm.add_note(pno, block, notes))
                continue
            if pb.entry(block) and i not in pb.headings:
                asm.add_entries(pno, block, pb.contents_max_page)
            else:
                top = prev is not None and _column_top(prev, block)
                asm.add(pno, block, pb.headings.get(i), first_on_page=i == first, column_top=top)
            trail.add(pno, block.bbox, asm.cur)
            prev = block
    tie_notes(pages, trail)
    asm.place_notes(notes)
    built = asm.elements()
    built, link_stats = resolve_links(built, asm.items, trail, pages)
    xref_notes: list[ParserNote] = []
    if not link_stats.found:  # no link annotations: "see Section 3.2" in the text
        built, xref_notes = link_references(built, {p.page: p.label for p in pages if p.label})
    built = [settle_joins(e) for e in built]
    return built, link_notes(link_stats, built) + xref_notes


def _column_top(prev: PdfBlock, block: PdfBlock) -> bool:
    """Does `block` open the next column after `prev` (wholly right of it, beginning
    above its end)?"""
    return block.bbox[0] >= prev.bbox[2] - 2 and block.bbox[1] < prev.bbox[3]


def _skipped_pages(pages: list[PdfPage]) -> list[SkippedPage]:
    return [
        SkippedPage(
            page=p.page,
            reason=p.skipped,
            kind=p.skipped_kind or "blank",
            ocr=p.skipped_ocr,
            needs=p.skipped_needs,
        )
        for p in pages
        if p.skipped
    ]


def _check_content(
    meta: PdfMeta,
    pages: list[PdfPage],
    skipped: list[SkippedPage],
    elements: list[Element],
    strict: bool,
) -> None:
    """Refuse a document with no text to split (or, `strict`, with pages without text)."""
    if len(skipped) == len(pages) and meta.repaired:  # the text went with the damage
        raise CorruptDocumentError(
            f"damaged or truncated PDF: MuPDF's repair recovered {len(pages)} pages and none "
            "has any content",
            source=meta.source_name,
        )
    if len(skipped) == len(pages):
        raise EmptyDocumentError(
            f"no extractable text on any page ({describe_textless(skipped)})",
            source=meta.source_name,
        )
    if not elements:
        raise EmptyDocumentError("no body text on any page", source=meta.source_name)
    if strict and skipped:
        raise PagesWithoutTextError(
            f"{describe_textless(skipped)} (--strict)", source=meta.source_name
        )
