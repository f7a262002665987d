"""DOCX -> IR with python-docx: the body's paragraphs and tables in document order.

Rules (what each Word construct becomes):
- Headings: a paragraph's own outline level (w:outlineLvl 0-8 -> level 1-6; 9 = body text)
  wins; else its style's name ("Heading N" -> N, "Title" -> 1; levels 7-9 become 6); else
  the outline level inherited along the style's basedOn chain. "Title" is not shifted against
  "Heading 1": shifting would push Heading 6 off the scale, and the planner only needs the
  relative order. "Subtitle" is a paragraph. Empty headings are dropped.
- Lists: a paragraph whose numbering (own w:numPr, else its style's) points at a level with
  a visible marker. numFmt "bullet" -> unordered, any number format -> ordered; "none" and
  blank bullets (pandoc's indented blocks) are not list items, nor is numId 0 ("numbering
  removed"), so such a continuation paragraph ends the list and is a plain paragraph. One
  list element per run of consecutive list paragraphs; a new list starts when an item at the
  list's top level belongs to another numbering instance (numId). Nested levels are nested
  Markdown: a deeper item is appended to the preceding shallower item's text as its own
  sub-list, so `items` holds the top-level items only. Numbers are counted per numId and
  level (restarting deeper levels), so a list interrupted by a paragraph continues at the
  right number (`start`).
- Code: paragraphs in a code style along the basedOn chain ("Source Code", "Preformatted
  Text", "HTML Preformatted", "Plain Text", ...) or whose visible runs are all in a monospace
  font, grouped while consecutive into one code element (line breaks inside a paragraph and
  one paragraph per line both give lines). A paragraph's runs in a monospace font are
  kept beside its text (`Element.code`: inline code).
- Captions: styles "Caption", "Image Caption", "Table Caption" or based on one of them.
- Tables: rows of cell text (whitespace collapsed); a merged cell's text appears once, the
  grid columns it spans are "" (no duplication); nested tables are flattened into the cell.
- Images (DrawingML a:blip r:embed and VML v:imagedata): one image element each, emitted
  right after the block that holds it (paragraph, list, code block or table), in order.
- RTL: a paragraph is flagged rtl when it has right-to-left letters and either its direction
  is right-to-left (w:bidi, own or via its style) or its first strong letter is
  right-to-left. An untranslated English paragraph in a right-to-left document is not
  flagged: its content reads left to right. Text is kept in logical (XML) order.
- Empty paragraphs are ignored and do not break a list or code run. An equation (m:oMath)
  is LaTeX in its paragraph, `$…$`, a display equation (m:oMathPara) `$$…$$` (omml).
  Headers, footers and comments are left out.
- Footnotes and endnotes become footnote elements after the block holding their
  reference, internal hyperlinks (to a bookmark) links to the element the bookmark starts
  (docx_notes).
- Pages are estimated at WORDS_PER_PAGE words: an element starting after `before` words
  and ending after `after` words has page_first = before // 400 + 1 and page_last =
  max(page_first, (after - 1) // 400 + 1), so an element ending exactly on a page boundary
  does not spill onto the next page. A picture counts as the words that would fill the
  height it is drawn at (its page_share of the text area, `layout_words`), a listing's
  lines as 8 words each, and where Word starts a new page (a page break, a paragraph set
  to start one, a section's end) the rest of the last page counts as blank (the share of
  the element before it).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docx.document import Document as DocxDocument
from docx.image.image import Image as DocxImage
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from lxml import etree

from quire.shared import markdown as md
from quire.shared.errors import EmptyDocumentError
from quire.shared.ir import (
    WORDS_PER_PAGE,
    Document,
    Element,
    ElementType,
    ImageRef,
    OutlineEntry,
    ParserNote,
    ParserUse,
    assign_ids,
    element_id,
    layout_words,
    make_element,
)
from quire.shared.layout import Layout
from quire.shared.text import sha256_bytes
from quire.workers.parse.base import ParsedDocument
from quire.workers.parse.docx_content import (
    BOOKMARK,
    TBL,
    ContentReader,
    ImageHit,
    P,
    T,
    flatten,
    pstyle,
)
from quire.workers.parse.docx_notes import read_notes, settle
from quire.workers.parse.docx_package import open_docx
from quire.workers.parse.docx_styles import Numbering, StyleSheet, on_off, w, wval
from quire.workers.parse.inline_code import kept_code
from quire.workers.parse.limits import MAX_IMAGE_PIXELS
from quire.workers.parse.list_runs import code_runs, list_runs, row_runs
from quire.workers.parse.xrefs import link_unlinked

PARSER = "python-docx"
_SAFE_EXT = re.compile(r"[a-z0-9]{1,8}")
PARSER_TOLERANT = "python-docx-tolerant"


def parse_docx(path: Path) -> ParsedDocument:
    """Parse a DOCX file into the IR; raises a QuireError subclass for unusable input."""
    path = Path(path)
    data = path.read_bytes()
    opened = open_docx(data, source=path.name)
    builder = _Builder(opened.document, source=path.name)
    builder.run()
    note_texts, note_warnings = read_notes(opened.document, builder.reader)
    settled = settle(
        builder.blocks,
        note_texts,
        builder.bookmark_blocks(),
        lambda kind, text, fields: _Block(kind, text, fields),  # type: ignore[arg-type]
    )
    elements = _paginate(settled.blocks, builder.page_breaks)
    elements = link_unlinked(elements, settled.notes)
    if not any(e.type != "image" and e.word_count for e in elements):
        raise EmptyDocumentError("document has no text", source=path.name)
    page_count = max(1, elements[-1].page_last)
    notes = list(builder.notes) + note_warnings + settled.notes
    if opened.repair:
        notes.insert(
            0,
            ParserNote(
                kind="fallback",
                message=f"python-docx could not open the package ({opened.error}); "
                f"reopened an in-memory copy after repair: {opened.repair}",
                first_page=1,
                last_page=page_count,
            ),
        )
        use = ParserUse(
            first_page=1,
            last_page=page_count,
            parser=PARSER_TOLERANT,
            reason=f"dangling relationships repaired: {opened.repair}",
        )
    else:
        use = ParserUse(first_page=1, last_page=page_count, parser=PARSER)
    document = Document(
        doc_id=sha256_bytes(data),
        source_name=path.name,
        source_format="docx",
        page_count=page_count,
        page_basis="words",
        parsers=[use],
        notes=notes,
        outline=[
            OutlineEntry(level=e.level or 1, title=e.text.lstrip("#").strip(), page=e.page_first)
            for e in elements
            if e.type == "heading"
        ],
        elements=elements,
    )
    return ParsedDocument(document=document, images=builder.images)


@dataclass
class _Block:
    """An element before pagination: type, Markdown text and the type-specific fields."""

    type: ElementType
    text: str
    fields: dict[str, Any] = field(default_factory=dict)
    seq: int = 0  # which body child it was read from (bookmarks point at blocks by it)


@dataclass
class _ListEntry:
    ilvl: int
    text: str
    ordered: bool
    number: int
    num_id: str
    rtl: bool


@dataclass
class _ListGroup:
    seq: int
    entries: list[_ListEntry] = field(default_factory=list)
    images: list[ImageHit] = field(default_factory=list)


@dataclass
class _CodeGroup:
    seq: int
    origin: str
    lines: list[str] = field(default_factory=list)
    images: list[ImageHit] = field(default_factory=list)


class _Builder:
    def __init__(self, document: DocxDocument, source: str) -> None:
        self.doc = document
        self.source = source
        self.sheet = StyleSheet.from_element(_styles_element(document))
        self.numbering = Numbering.from_element(_numbering_element(document), self.sheet)
        self.reader = ContentReader(self.sheet)
        self.blocks: list[_Block] = []
        self.images: dict[str, bytes] = {}
        self.notes: list[ParserNote] = []
        self.group: _ListGroup | _CodeGroup | None = None
        self.counters: dict[str, dict[int, int]] = {}
        self._image_cache: dict[str, ImageRef | None] = {}
        self.text_height = _text_height(document)
        self.seq = 0  # the body child being read
        self.bookmarks: list[tuple[int, str]] = []  # (seq, name) where a bookmark starts
        self.page_breaks: set[int] = set()  # a new page starts with body child seq

    def run(self) -> None:
        body = self.doc.element.body
        if body is None:
            raise EmptyDocumentError("document has no body", source=self.source)
        for child in flatten(body):
            self.seq += 1
            if child.tag == P:
                before, after = _page_breaks(child, self.sheet)
                self.page_breaks |= {self.seq} if before else set()
                self.page_breaks |= {self.seq + 1} if after else set()
                self._paragraph(child)
            elif child.tag == TBL:
                self._flush()
                self._table(child)
            elif child.tag == BOOKMARK:
                self.bookmarks.append((self.seq, child.get(w("name"), "")))
        self._flush()

    def bookmark_blocks(self) -> dict[str, _Block]:
        """Bookmark name -> the first block (not an image) read at or after it."""
        out: dict[str, _Block] = {}
        blocks = [b for b in self.blocks if b.type != "image"]
        k = 0
        for seq, name in sorted(self.bookmarks):
            while k < len(blocks) and blocks[k].seq < seq:
                k += 1
            if k < len(blocks) and name:
                out.setdefault(name, blocks[k])
        return out

    # -- paragraphs ---------------------------------------------------------------------

    def _paragraph(self, p: etree._Element) -> None:
        sid = pstyle(p)
        style = self.sheet.para(sid)
        content = self.reader.paragraph(p, sid)
        self.bookmarks += [(self.seq, name) for name in content.bookmarks]
        text = content.text.strip()
        ppr = p.find(w("pPr"))
        if not text and not content.images:
            if style.code and isinstance(self.group, _CodeGroup):
                self.group.lines.append("")  # a blank line inside a code block
            return
        bidi = style.bidi
        level, origin = style.heading_level, style.heading_origin
        num_id, ilvl = style.num_id, style.ilvl
        if ppr is not None:
            own_bidi = on_off(ppr.find(w("bidi")))
            bidi = bidi if own_bidi is None else own_bidi
            lvl = wval(ppr.find(w("outlineLvl")))
            if lvl is not None and lvl.isdigit():
                level = min(int(lvl) + 1, 6) if int(lvl) <= 8 else None
                origin = "outline"
            num_pr = ppr.find(w("numPr"))
            if num_pr is not None:
                own_num = wval(num_pr.find(w("numId")))
                own_ilvl = wval(num_pr.find(w("ilvl")))
                num_id = own_num if own_num is not None else num_id
                ilvl = int(own_ilvl) if own_ilvl and own_ilvl.isdigit() else ilvl
        rtl = _is_rtl(text, bidi)

        if level is not None and text:
            self._flush()
            self._add("heading", md.heading(text, level), level=level, rtl=rtl, origin=origin)
            self._add_images(content.images)
            return
        list_level = self.numbering.level(num_id, ilvl or 0) if num_id and num_id != "0" else None
        if list_level is not None and list_level.marker:
            assert num_id is not None
            self._list_item(
                num_id, ilvl or 0, list_level.ordered, list_level.start, text, rtl, content.images
            )
            return
        if style.code or content.mono:
            if not isinstance(self.group, _CodeGroup):
                self._flush()
                self.group = _CodeGroup(self.seq, origin="style" if style.code else "font")
            self.group.lines += content.text.split("\n")
            self.group.images += content.images
            return
        self._flush()
        if text:
            kind: ElementType = "caption" if style.caption else "paragraph"
            code = kept_code(content.code)
            origin = "style" if style.caption else None
            self._add(kind, text, rtl=rtl, origin=origin, code=code or None)
        self._add_images(content.images)

    def _list_item(
        self,
        num_id: str,
        ilvl: int,
        ordered: bool,
        start: int,
        text: str,
        rtl: bool,
        images: list[ImageHit],
    ) -> None:
        counts = self.counters.setdefault(num_id, {})
        for deeper in [k for k in counts if k > ilvl]:
            del counts[deeper]  # a shallower item restarts the numbering of deeper levels
        number = counts.get(ilvl, start)
        counts[ilvl] = number + 1
        group = self.group
        if not isinstance(group, _ListGroup) or (
            group.entries and ilvl <= group.entries[0].ilvl and num_id != group.entries[0].num_id
        ):
            self._flush()  # another block kind, or another list at the top level
            group = self.group = _ListGroup(self.seq)
        if text:
            group.entries.append(_ListEntry(ilvl, text, ordered, number, num_id, rtl))
        group.images += images

    def _flush(self) -> None:
        group, self.group = self.group, None
        if isinstance(group, _ListGroup):
            entries = group.entries
            for offset, items in list_runs(_nest(entries)) if entries else []:  # a few pages each
                first, number = entries[0], entries[0].number + offset  # numbered on
                self._add(
                    "list",
                    md.bullet_list(items, first.ordered, number),
                    items=items,
                    ordered=first.ordered,
                    start=number if first.ordered else None,
                    rtl=first.rtl,
                    origin="numbering",
                    seq=group.seq,
                )
            self._add_images(group.images, group.seq)
        elif isinstance(group, _CodeGroup):
            lines = [line.rstrip() for line in group.lines]
            while lines and not lines[-1].strip():
                lines.pop()
            while lines and not lines[0].strip():
                lines.pop(0)
            for run in code_runs(lines) if lines else []:  # a long listing: a few pages each
                body = "\n".join(run).strip("\n")
                self._add("code", md.code(body), origin=group.origin, seq=group.seq)
            self._add_images(group.images, group.seq)

    # -- tables and images --------------------------------------------------------------

    def _table(self, tbl: etree._Element) -> None:
        rows, images = self.reader.table(tbl)
        rows = [r for r in rows if any(c.strip() for c in r)]
        if rows:
            width = max(len(r) for r in rows)
            rows = [r + [""] * (width - len(r)) for r in rows]
            tbl_pr = tbl.find(w("tblPr"))
            bidi = bool(tbl_pr is not None and on_off(tbl_pr.find(w("bidiVisual"))))
            rtl = _is_rtl(" ".join(c for r in rows for c in r), bidi)
            for run in row_runs(rows):  # a long table: a few pages each
                self._add("table", md.table(run), rows=run, rtl=rtl)
        self._add_images(images)

    def _add_images(self, hits: list[ImageHit], seq: int | None = None) -> None:
        for hit in hits:
            ref = self._image(hit.rel_id)
            if ref is not None:
                share = None
                if hit.height_emu:
                    share = round(min(1.0, hit.height_emu / self.text_height), 3)
                text = md.image(ref.file, hit.alt)
                self._add("image", text, image=ref, page_share=share, seq=seq)

    def _image(self, rel_id: str) -> ImageRef | None:
        if rel_id in self._image_cache:
            return self._image_cache[rel_id]
        ref: ImageRef | None = None
        rel = self.doc.part.rels.get(rel_id)
        if rel is None or rel.is_external:
            self.notes.append(
                ParserNote(
                    kind="warning",
                    message=f"image {rel_id} is {'linked, not embedded' if rel else 'missing'}; "
                    "left out",
                )
            )
        else:
            part = rel.target_part
            blob = part.blob
            sha = sha256_bytes(blob)
            # the part name comes from the document: only a plain extension becomes a name
            ext = (part.partname.ext or "").lower()
            file = Layout.image(sha, ext if _SAFE_EXT.fullmatch(ext) else "bin")
            width = height = None
            try:
                info = DocxImage.from_blob(blob)
                width, height = info.px_width, info.px_height
            except Exception:  # EMF/WMF/SVG and damaged images: size unknown
                pass
            if width and height and width * height > MAX_IMAGE_PIXELS:
                self.notes.append(
                    ParserNote(
                        kind="warning",
                        message=f"image {rel_id} declares {width}x{height} pixels, over the "
                        f"limit of {MAX_IMAGE_PIXELS:,}; left out",
                    )
                )
                self._image_cache[rel_id] = None
                return None
            self.images[file] = blob
            ref = ImageRef(sha256=sha, file=file, width=width, height=height)
        self._image_cache[rel_id] = ref
        return ref

    def _add(self, type: ElementType, text: str, seq: int | None = None, **fields: Any) -> None:
        kept = {k: v for k, v in fields.items() if v is not None}
        self.blocks.append(_Block(type, text, kept, self.seq if seq is None else seq))


def _nest(entries: list[_ListEntry]) -> list[str]:
    """Top-level items; deeper entries become a Markdown sub-list inside their parent item."""
    base = entries[0].ilvl
    tops: list[tuple[_ListEntry, list[_ListEntry]]] = []
    for entry in entries:
        if entry.ilvl <= base or not tops:
            tops.append((entry, []))
        else:
            tops[-1][1].append(entry)
    items = []
    for entry, kids in tops:
        text = entry.text
        if kids:
            text += "\n" + md.bullet_list(_nest(kids), kids[0].ordered, kids[0].number)
        items.append(text)
    return items


def _text_height(document: DocxDocument) -> int:
    """The height in EMU of the last section's text area (page less its top and bottom
    margins): what a drawing's height is a share of. US Letter with 1-inch margins when
    the document does not say."""
    section = document.sections[-1] if len(document.sections) else None
    page = section.page_height if section is not None else None
    top = section.top_margin if section is not None else None
    bottom = section.bottom_margin if section is not None else None
    if page and top is not None and bottom is not None and page - top - bottom > 0:
        return int(page - top - bottom)
    return 9 * 914400


_BR, _BR_TYPE = w("br"), w("type")


def _page_breaks(p: etree._Element, sheet: StyleSheet) -> tuple[bool, bool]:
    """Whether Word starts a new page before the paragraph, and after it: w:pageBreakBefore
    (its own or its style's), a page break (w:br w:type="page") before or after its text,
    the end of a section that starts the next on a new page."""
    ppr = p.find(w("pPr"))
    own = on_off(ppr.find(w("pageBreakBefore"))) if ppr is not None else None
    before = own if own is not None else sheet.para(pstyle(p)).page_break_before
    after = False
    text = False
    for el in p.iter(T, _BR):
        if el.tag == T:
            text = text or bool((el.text or "").strip())
        elif el.get(_BR_TYPE) == "page":
            before, after = (before, True) if text else (True, after)
    sect = ppr.find(w("sectPr")) if ppr is not None else None
    if sect is not None and wval(sect.find(w("type"))) not in ("continuous", "nextColumn"):
        after = True
    return before, after


def _paginate(blocks: list[_Block], page_breaks: set[int]) -> list[Element]:
    """Elements with estimated pages; a block that Word starts on a new page starts one
    here too, the rest of the page before it left blank (the previous element's share)."""
    elements: list[Element] = []
    words = 0
    breaks, k = sorted(page_breaks), 0
    position = {id(b): k for k, b in enumerate(blocks)}
    for block in blocks:
        new_page = False
        while k < len(breaks) and breaks[k] <= block.seq:
            new_page, k = True, k + 1
        if new_page and elements and words % WORDS_PER_PAGE:
            prev = elements[-1]
            blank = (WORDS_PER_PAGE - words % WORDS_PER_PAGE) / WORDS_PER_PAGE
            elements[-1] = prev.model_copy(update={"page_share": (prev.page_share or 0) + blank})
            words += layout_words(elements[-1]) - layout_words(prev)
        first = words // WORDS_PER_PAGE + 1
        fields = dict(block.fields)
        if "ref_block" in fields:  # a footnote: the id of the block with its reference
            fields["ref_id"] = element_id(position[id(fields.pop("ref_block"))] + 1)
        element = make_element(block.type, block.text, first, **fields)
        words += layout_words(element)
        last = max(first, (words - 1) // WORDS_PER_PAGE + 1)
        elements.append(element.model_copy(update={"page_last": last}))
    return assign_ids(elements)


def _is_rtl(text: str, bidi: bool) -> bool:
    for ch in text:
        direction = unicodedata.bidirectional(ch)
        if direction in ("R", "AL"):
            return True  # with bidi: any RTL letter; without: the first strong letter is RTL
        if direction == "L" and not bidi:
            return False
    return False


def _styles_element(document: DocxDocument) -> etree._Element | None:
    try:
        return document.part.part_related_by(RT.STYLES).element  # type: ignore[attr-defined]
    except (KeyError, AttributeError):
        return None


def _numbering_element(document: DocxDocument) -> etree._Element | None:
    try:
        return document.part.part_related_by(RT.NUMBERING).element  # type: ignore[attr-defined]
    except (KeyError, AttributeError):
        return None
