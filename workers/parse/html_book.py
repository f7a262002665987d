"""An HTML book (EPUB spine, HTML file or folder of chapters) -> IR.

The chapters, in reading order, are read by html_content into blocks; notes (html_notes)
and internal links are settled as for DOCX (docx_notes.settle); the navigation (EPUB nav or
NCX, an HTML folder's index) is the outline: the heading each top-level entry leads to is
level 1 with origin "outline", every other heading is at least level 2, so chapter starts
are the navigation's, as a PDF outline's are.

Pages: a book with a page-list (EPUB 3's page-list nav, EPUB 2's NCX pageList) whose marks
are found in its chapters is paginated by them (page_basis "print": the n-th page of the
printed edition in reading order, the front before the first mark counted as page 1); any
other is estimated at WORDS_PER_PAGE words as a DOCX (page_basis "words"). Page break marks
are removed page numbers either way.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from quire.shared import markdown as md
from quire.shared.errors import EmptyDocumentError
from quire.shared.ir import (
    WORDS_PER_PAGE,
    Document,
    Element,
    ImageRef,
    OutlineEntry,
    ParserNote,
    ParserUse,
    RemovedText,
    SourceFormat,
    assign_ids,
    element_id,
    layout_words,
    make_element,
)
from quire.shared.links import heading_title
from quire.workers.parse.base import ParsedDocument
from quire.workers.parse.docx_notes import settle
from quire.workers.parse.html_content import Block, ChapterReader, collapse
from quire.workers.parse.html_furniture import running_blocks
from quire.workers.parse.html_images import ImageLoader, page_share
from quire.workers.parse.html_notes import find_notes
from quire.workers.parse.xrefs import link_unlinked

MAX_NAV_TITLE = 200  # a block longer than this is no title a nav entry could name


@dataclass
class NavEntry:
    level: int  # 1 = top
    title: str
    target: str  # "member#id" or "member"


@dataclass
class Book:
    source_name: str
    doc_id: str
    source_format: SourceFormat
    parser: str
    chapters: list[tuple[str, etree._Element]]  # (member name, parsed root), in order
    read: Callable[[str], bytes | None]  # a member's bytes (images)
    nav: list[NavEntry] = field(default_factory=list)
    language: str | None = None
    notes: list[ParserNote] = field(default_factory=list)
    page_list: list[str] = field(default_factory=list)  # the page-list's targets, in order


def build(book: Book) -> ParsedDocument:
    notes = find_notes(book.chapters)
    images = ImageLoader(book.read)
    reader = ChapterReader(notes, images, running_blocks(book.chapters))
    for name, root in book.chapters:
        reader.chapter(name, root)
    texts = {key: reader.note_paragraphs(el) for key, el in notes.elements.items()}
    texts = {k: v for k, v in texts.items() if v}
    anchors = _anchor_blocks(reader.blocks, reader.anchors)
    settled = settle(
        reader.blocks,
        texts,
        anchors,
        lambda kind, text, fields: Block(kind, text, fields),  # type: ignore[arg-type]
        marks=notes.marks,
    )
    blocks = settled.blocks
    nav = [] if _flat_over_sections(book.nav, anchors) else book.nav
    nav_notes = _apply_nav(blocks, nav, anchors)
    printed = _print_pages(reader, book.page_list)
    elements = _paginate(blocks, printed)
    elements = link_unlinked(elements, settled.notes)
    if not any(e.type != "image" and e.word_count for e in elements):
        raise EmptyDocumentError("document has no text", source=book.source_name)
    page_count = max(1, elements[-1].page_last)
    position = {id(b): k for k, b in enumerate(blocks)}
    removed = []
    for r in reader.removed:
        # blocks read before it -> the page of the next block of the reading order
        k = _settled_index(reader.blocks, blocks, position, r.position)
        page = elements[k].page_first if k < len(elements) else page_count
        removed.append(RemovedText(page=page, kind=r.kind, text=r.text))
    outline = _outline(nav, anchors, position, elements)
    document = Document(
        doc_id=book.doc_id,
        source_name=book.source_name,
        source_format=book.source_format,
        page_count=page_count,
        page_basis="print" if printed else "words",
        parsers=[ParserUse(first_page=1, last_page=page_count, parser=book.parser)],
        notes=book.notes + images.notes + settled.notes + nav_notes + _removed_note(removed),
        removed=removed,
        outline=outline,
        language=book.language,
        elements=elements,
    )
    return ParsedDocument(document=document, images=images.images)


def _anchor_blocks(blocks: list[Block], anchors: list[tuple[int, str]]) -> dict[str, Block]:
    """Anchor key -> the first block (not an image) read at or after it."""
    out: dict[str, Block] = {}
    k = 0
    texts = [i for i, b in enumerate(blocks) if b.type != "image"]
    for pos, key in sorted(anchors, key=lambda a: a[0]):
        while k < len(texts) and texts[k] < pos:
            k += 1
        if k < len(texts):
            out.setdefault(key, blocks[texts[k]])
    return out


def _settled_index(
    read: Sequence[Block], settled: Sequence[Block], position: dict[int, int], at: int
) -> int:
    """Where the block read at `at` (before notes were placed) stands after settling."""
    return position[id(read[at])] if at < len(read) else len(settled)


def _target(anchors: dict[str, Block], entry: NavEntry) -> Block | None:
    """The block a navigation entry leads to (its file's first, for a place not found)."""
    return anchors.get(entry.target) or anchors.get(entry.target.split("#", 1)[0])


def _flat_over_sections(nav: Sequence[NavEntry], anchors: dict[str, Block]) -> bool:
    """Is the navigation one flat list over headings of several levels, most of them
    sections (pandoc's EPUB of a DocBook manual: 444 entries at one level, for 13 chapters
    and their sections)? It says nothing of the book's structure then; the headings do.
    (A flat list of chapters with a few headings set a level lower is still chapters.)"""
    if len({e.level for e in nav}) != 1:
        return False
    levels = [
        int(b.fields.get("level") or 1)
        for e in nav
        if (b := _target(anchors, e)) is not None and b.type == "heading"
    ]
    top = min(levels, default=0)
    chapters = levels.count(top)
    return chapters >= 2 and len(levels) - chapters >= chapters


def _apply_nav(
    blocks: list[Block], nav: Sequence[NavEntry], anchors: dict[str, Block]
) -> list[ParserNote]:
    """Headings by the navigation (see the module doc); a nav entry that leads to a short
    paragraph bearing its title makes that paragraph its heading."""
    if not nav:
        return []
    top = min(e.level for e in nav)
    found: dict[int, int] = {}  # id(block) -> nav level
    missed = 0
    for entry in nav:
        block = _target(anchors, entry)
        if block is None:
            missed += 1
            continue
        level = min(entry.level - top + 1, 6)
        text = collapse(block.text)
        short = block.type == "paragraph" and len(text) <= MAX_NAV_TITLE
        if short and _fold(text) == _fold(entry.title):
            block.type = "heading"
            block.text = md.heading(text, level)
            block.fields = {"level": level, "rtl": block.fields.get("rtl", False)}
        if block.type == "heading":
            found.setdefault(id(block), level)
    tops = [b for b in blocks if found.get(id(b)) == 1]
    notes = []
    if missed:
        notes.append(
            ParserNote(
                kind="warning",
                message=f"{missed} of {len(nav)} navigation entries lead to no element",
            )
        )
    if len(tops) < 2:  # the navigation names no chapters here: the headings stand
        return notes
    for b in blocks:
        if b.type != "heading":
            continue
        nav_level = found.get(id(b))
        new = nav_level if nav_level is not None else max(int(b.fields.get("level") or 1), 2)
        b.fields["level"] = new
        if nav_level is not None:
            b.fields["origin"] = "outline"
        b.text = md.heading(heading_title(b.text), new)
    notes.append(
        ParserNote(
            kind="info",
            message=f"navigation: {len(found)} of {len(nav)} entries lead to headings "
            f"({len(tops)} chapter starts)",
        )
    )
    return notes


def _fold(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())


def _print_pages(reader: ChapterReader, page_list: list[str]) -> dict[int, tuple[int, int]]:
    """id(block) -> (first, last) page by the page-list's marks; {} when the book has no
    page-list or fewer than two of its marks are found."""
    if not page_list:
        return {}
    marks = {key: (pos, inside) for pos, _, key, inside in reader.page_marks}
    anchor_at: dict[str, int] = {}
    for pos, key in reader.anchors:
        anchor_at.setdefault(key, pos)
    for key in page_list:
        if key not in marks and key in anchor_at:
            marks[key] = (anchor_at[key], False)
    if len(marks) < 2:
        return {}
    before = sorted(pos for pos, inside in marks.values() if not inside)
    within = sorted(pos for pos, inside in marks.values() if inside)
    offset = 0 if before and before[0] == 0 else 1  # an unmarked front is page 1
    out = {}
    for k, block in enumerate(reader.blocks):
        first = offset + bisect.bisect_right(before, k) + bisect.bisect_left(within, k)
        inside = bisect.bisect_right(within, k) - bisect.bisect_left(within, k)
        out[id(block)] = (max(first, 1), max(first + inside, 1))
    return out


def _paginate(blocks: list[Block], printed: dict[int, tuple[int, int]]) -> list[Element]:
    """Elements with pages: by the page-list (`printed`; a footnote is on its reference's
    last page) or estimated from the words before them, a picture counted as the words
    that would fill the space it takes (`page_share`)."""
    elements = []
    words = 0
    last = 1
    position = {id(b): k for k, b in enumerate(blocks)}
    for block in blocks:
        fields: dict[str, Any] = dict(block.fields)
        if "ref_block" in fields:  # a footnote: the id of the block with its reference
            fields["ref_id"] = element_id(position[id(fields.pop("ref_block"))] + 1)
        if not fields.get("rtl"):
            fields.pop("rtl", None)
        if printed:
            first, last = printed.get(id(block), (last, last))
            elements.append(make_element(block.type, block.text, first, last, **fields))
            continue
        image = fields.get("image")
        share = page_share(image) if isinstance(image, ImageRef) else None
        first = words // WORDS_PER_PAGE + 1
        element = make_element(block.type, block.text, first, page_share=share, **fields)
        words += layout_words(element)
        last = max(first, (words - 1) // WORDS_PER_PAGE + 1)
        elements.append(element.model_copy(update={"page_last": last}))
    return assign_ids(elements)


def _outline(
    nav: Sequence[NavEntry],
    anchors: dict[str, Block],
    position: dict[int, int],
    elements: list[Element],
) -> list[OutlineEntry]:
    out = []
    if nav:
        top = min(e.level for e in nav)
        for entry in nav:
            block = _target(anchors, entry)
            page = elements[position[id(block)]].page_first if block is not None else 0
            out.append(OutlineEntry(level=entry.level - top + 1, title=entry.title, page=page))
        return out
    return [
        OutlineEntry(level=e.level or 1, title=heading_title(e.text), page=e.page_first)
        for e in elements
        if e.type == "heading"
    ]


def _removed_note(removed: list[RemovedText]) -> list[ParserNote]:
    counts: dict[str, int] = {}
    for r in removed:
        counts[r.kind] = counts.get(r.kind, 0) + 1
    if not counts:
        return []
    what = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in sorted(counts.items()))
    return [ParserNote(kind="info", message=f"removed (recorded): {what}")]
