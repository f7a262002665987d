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

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from quire.shared import markdown
from quire.shared.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    PagesWithoutTextError,
)
from quire.shared.ir import (
    Document,
    Element,
    ImageRef,
    ParserNote,
    ParserUse,
    SkippedPage,
    describe_textless,
    element_id,
    make_element,
)
from quire.shared.text import count_words, is_cjk, text_hash
from quire.workers.parse.base import ParsedDocument
from quire.workers.parse.limits import MAX_IMAGE_PIXELS
from quire.workers.parse.pdf_contents import entry_items, is_contents_page, merge_titles
from quire.workers.parse.pdf_extract import list_marker
from quire.workers.parse.pdf_footnotes import Note, NoteSet, unwrap_marks
from quire.workers.parse.pdf_headings import (
    CAPTION,
    Heading,
    PageBody,
    body_size,
    font_headings,
    match_outline,
)
from quire.workers.parse.pdf_hyphens import (
    JOIN,
    Vocabulary,
    is_break,
    keep_stranded,
    strip_marks,
    take_joins,
)
from quire.workers.parse.pdf_links import Trail, link_notes, tie_notes
from quire.workers.parse.pdf_links import resolve as resolve_links
from quire.workers.parse.pdf_open import PdfMeta, pdf_meta
from quire.workers.parse.pdf_running import body_blocks, find_running_text
from quire.workers.parse.pdf_types import PdfBlock, PdfPage, PdfRangeResult
from quire.workers.parse.xrefs import link_references

_SENTENCE_END = re.compile(r"[.!?:;。！？…][\"'”’»)\]]*$")
_STRONG = "•◦▪▫‣⁃∙●○■□►▸➢✓✔·"
_MAX_CAPTION_WORDS = 80
MAX_CARRY_PAGES = 3  # a code block or list carried over page breaks spans at most this
LOW_OCR_CONFIDENCE = 70.0
CONTENTS = "contents"  # list kind of the entries of a contents or index page
FIGURE = "figure"  # origin of a paragraph holding the text of a vector figure


def join_lines(lines: list[str], *, title: bool = False, words: Vocabulary | None = None) -> str:
    """Lines of one paragraph -> one line of text. A hyphen at a line end that only breaks a
    word (as `words`, the document's vocabulary, decides) is taken out and marked with
    JOIN; any other stays put.

    Chinese and Japanese are set without spaces: a line ending in a CJK character (or
    the next one opening with CJK punctuation) joins the next line directly, as the text
    layer does inside a line (CJK then Latin: no space; Latin then CJK: a space). The lines
    of a `title` are parts ("第二章" over "用LATEX 排版文字") and keep a space."""
    out = ""
    for ln in lines:
        ln = unicodedata.normalize("NFC", ln)  # as the IR will be: "e\u0301-" is "é-"
        if out and words is not None and words.breaks_word(out, ln):
            out = out[:-1] + JOIN + ln
        else:
            out += ln if not out or _glued(out, ln, title) else " " + ln
    return out


def _glued(before: str, after: str, title: bool) -> bool:
    """Join without a space: a word hyphenated at the line end, or CJK prose."""
    if is_break(before, after):
        return True
    if is_cjk(after[:1]) and not after[:1].isalpha():
        return True  # CJK punctuation never follows a space
    return not title and is_cjk(before[-1])


@dataclass
class _Pending:
    """An element being built; it may still grow onto the next page."""

    type: str
    page_first: int
    page_last: int
    text: str = ""
    lines: list[str] = field(default_factory=list)  # code
    items: list[str] = field(default_factory=list)  # list
    list_kind: str = ""  # "bullet:<char>" or "number"
    next_number: int = 0
    start: int = 1
    item_x0: float = 0.0  # left edge of the last item's text (continuations align here)
    level: int = 0
    origin: str | None = None
    rows: list[list[str]] | None = None
    image: ImageRef | None = None
    rtl: bool = False
    size: float = 0.0
    bold: bool = False
    mark: str | None = None  # footnote: its mark
    ref: _Pending | None = None  # footnote: the element holding its reference

    def build(self, eid: str, ref_id: str | None = None) -> Element:
        """The element. A hyphen taken out of a broken word is still a JOIN mark in its
        text: `settle_joins` records them once links are written into the text."""
        t, pf, pl = self.type, self.page_first, self.page_last
        if t == "footnote":
            return make_element(
                "footnote", self.text, pf, pl, id=eid, ref_id=ref_id, mark=self.mark, rtl=self.rtl
            )
        if t == "heading":
            text = markdown.heading(self.text, self.level)
            return make_element(
                "heading", text, pf, pl, id=eid, level=self.level, origin=self.origin, rtl=self.rtl
            )
        if t == "code":
            lines = list(self.lines)
            while lines and not lines[-1].strip():
                lines.pop()
            return make_element("code", markdown.code("\n".join(lines)), pf, pl, id=eid)
        if t == "list":
            ordered = self.list_kind == "number"
            text = markdown.bullet_list(self.items, ordered, self.start)
            return make_element(
                "list",
                text,
                pf,
                pl,
                id=eid,
                items=list(self.items),
                ordered=ordered,
                start=self.start if ordered else None,
                rtl=self.rtl,
            )
        if t == "table":
            assert self.rows is not None
            return make_element("table", markdown.table(self.rows), pf, pl, id=eid, rows=self.rows)
        if t == "image":
            assert self.image is not None
            return make_element(
                "image", markdown.image(self.image.file), pf, pl, id=eid, image=self.image
            )
        return make_element(
            t,  # type: ignore[arg-type]
            self.text,
            pf,
            pl,
            id=eid,
            rtl=self.rtl,
            origin=self.origin,
        )


def _item(block: PdfBlock, words: Vocabulary | None) -> tuple[str, int | None, str] | None:
    """(list kind, number, item text) when the block starts with a list marker."""
    first = block.lines[0]
    m = list_marker(first)
    if m is None:
        return None
    rest = [first[m.end() :].strip(), *block.lines[1:]]
    text = join_lines([r for r in rest if r], words=words)
    if m.group("num") or m.group("pnum"):
        return "number", int(m.group("num") or m.group("pnum")), text
    if m.group("strong") or m.group("weak"):
        return f"bullet:{(m.group('strong') or m.group('weak'))}", None, text
    # letters and roman numerals: keep the label in the item, as an unordered list
    return "label", None, join_lines(block.lines, words=words)


def _item_left(block: PdfBlock) -> float:
    """Where a list item's text (not its marker) starts: its second line's edge, or a
    little right of the marker for a one-line item."""
    if len(block.line_x0) > 1:
        return min(block.line_x0[1:])
    return (block.line_x0[0] if block.line_x0 else 0.0) + 6.0


class _Assembler:
    def __init__(self, body_size: float, words: Vocabulary | None = None) -> None:
        self.items: list[_Pending] = []
        self.body = body_size
        self.words = words

    @property
    def cur(self) -> _Pending | None:
        return self.items[-1] if self.items else None

    def start(self, p: _Pending) -> None:
        self.items.append(p)

    def elements(self) -> list[Element]:
        """The finished elements, numbered in reading order (the ids `assign_ids` would
        give; set here to save copying ~40k elements on the largest document)."""
        out: list[Element] = []
        ids = {id(p): element_id(k) for k, p in enumerate(self.items, 1)}
        for p in self.items:
            if (
                p.type == "list"
                and len(p.items) == 1
                and p.list_kind != CONTENTS
                and not (p.list_kind.startswith("bullet:") and p.list_kind[-1] in _STRONG)
            ):
                # a lone "1." or "-" line is more likely prose than a one-item list
                p = _Pending("paragraph", p.page_first, p.page_last, text=p.text, rtl=p.rtl)
            out.append(p.build(element_id(len(out) + 1), ids.get(id(p.ref))))
        return out

    def add_note(self, page: int, block: PdfBlock, notes: NoteSet) -> Note:
        """A footnote block: kept aside (the text goes on around it) until `place_notes`."""
        text = join_lines(block.lines, words=self.words)
        return notes.add(page, block.mark, text, len(self.items), block.rtl)

    def place_notes(self, notes: NoteSet) -> None:
        def make(kind: str, note: Note, text: str) -> _Pending:
            return _Pending(kind, note.page, note.page_last, text=text, rtl=note.rtl)

        self.items = notes.place(self.items, make)

    def _open_paragraph(self, page: int) -> _Pending | None:
        """The paragraph the previous page ended inside: its last element, or the last one
        before the footnotes (smaller text) at the foot of that page."""
        for p in reversed(self.items):
            if p.page_last != page - 1:
                return None
            if p.type != "paragraph":
                return None
            if p.size >= self.body * 0.92:
                return None if _SENTENCE_END.search(p.text) else p
        return None

    def add_entries(self, page: int, block: PdfBlock, max_page: int) -> None:
        """Entry lines of a contents page: items of the page's contents list (one list a
        page: a long contents or index stays cuttable between its pages)."""
        items = [join_lines(lines, words=self.words) for lines in entry_items(block, max_page)]
        cur = self.cur
        if (
            cur is not None
            and cur.type == "list"
            and cur.list_kind == CONTENTS
            and cur.page_last == page
        ):
            cur.items.extend(items)
            cur.page_last = page
            return
        self.start(_Pending("list", page, page, items=items, list_kind=CONTENTS, rtl=block.rtl))

    def add(self, page: int, block: PdfBlock, heading: Heading | None, first_on_page: bool) -> None:
        cur = self.cur
        # continues from the previous page: this is the page's first body block and the
        # element being built was the last thing on the page before, and it spans fewer
        # than MAX_CARRY_PAGES (a 90-page listing could never be cut into sessions)
        carry = (
            first_on_page
            and cur is not None
            and cur.page_last == page - 1
            and page - cur.page_first < MAX_CARRY_PAGES
        )
        if heading is not None:
            text = join_lines(block.lines, title=True, words=self.words)
            self.start(
                _Pending(
                    "heading",
                    page,
                    page,
                    text=text,
                    level=heading.level,
                    origin=heading.origin,
                    rtl=block.rtl,
                )
            )
            return
        if block.kind == "image":
            self.start(_Pending("image", page, page, image=block.image))
            return
        if block.figure:  # labels of a drawing: one paragraph, never a title or an item
            text = join_lines(block.lines)  # (no hyphen undone: labels are no prose)
            self.start(_Pending("paragraph", page, page, text=text, origin=FIGURE, size=-1.0))
            return
        if block.kind == "table":
            self.start(_Pending("table", page, page, rows=block.rows))
            return
        if block.kind == "code":
            if carry and cur is not None and cur.type == "code":
                cur.lines.extend(block.lines)
                cur.page_last = page
                return
            self.start(_Pending("code", page, page, lines=list(block.lines)))
            return
        text = join_lines(block.lines, words=self.words)
        if CAPTION.match(text) and len(text.split()) <= _MAX_CAPTION_WORDS:
            self.start(_Pending("caption", page, page, text=text, rtl=block.rtl))
            return
        item = _item(block, self.words)
        if item is not None:
            kind, number, item_text = item
            same_place = cur is not None and (cur.page_last == page or carry)
            if (
                same_place
                and cur is not None
                and cur.type == "list"
                and cur.list_kind == kind
                and (number is None or number == cur.next_number)
            ):
                cur.items.append(item_text)
                cur.item_x0 = _item_left(block)
                cur.text = text
                cur.next_number = (number or 0) + 1
                cur.page_last = page
                return
            self.start(
                _Pending(
                    "list",
                    page,
                    page,
                    items=[item_text],
                    list_kind=kind,
                    next_number=(number or 0) + 1,
                    start=number or 1,
                    item_x0=_item_left(block),
                    text=text,
                    rtl=block.rtl,
                )
            )
            return
        if cur is not None and cur.type == "list" and cur.items and cur.list_kind != CONTENTS:
            # an item running on over the page break, or an indented follow-on paragraph
            # (never onto a contents page's list: those end with their page)
            indented = (
                cur.page_last == page
                and bool(block.line_x0)
                and (min(block.line_x0) >= cur.item_x0 - 1)
            )
            if (carry and not _SENTENCE_END.search(cur.items[-1])) or indented:
                if indented and not carry:
                    cur.items[-1] += "\n" + text
                else:
                    cur.items[-1] = join_lines([cur.items[-1], text], words=self.words)
                cur.text = join_lines([cur.text, text], words=self.words)
                cur.page_last = page
                return
        target = self._open_paragraph(page) if first_on_page else None
        if (
            target is not None
            and abs(target.size - block.size) < 0.6
            and (target.bold == block.bold)
        ):
            target.text = join_lines([target.text, text], words=self.words)
            target.page_last = page
            return
        self.start(
            _Pending(
                "paragraph", page, page, text=text, rtl=block.rtl, size=block.size, bold=block.bold
            )
        )


def _runs(pages: list[PdfPage], flag: str) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for p in pages:
        if getattr(p, flag):
            if runs and runs[-1][1] == p.page - 1:
                runs[-1] = (runs[-1][0], p.page)
            else:
                runs.append((p.page, p.page))
    return runs


def _parsers(pages: list[PdfPage]) -> list[ParserUse]:
    uses: list[ParserUse] = []
    for p in pages:
        last = uses[-1] if uses else None
        if last and last.parser == p.parser and last.reason == p.parser_reason:
            last.last_page = p.page
        else:
            uses.append(
                ParserUse(
                    first_page=p.page, last_page=p.page, parser=p.parser, reason=p.parser_reason
                )
            )
    return uses


_FLAG_NOTES = {
    "garbled": "text layer looks garbled (Latin-1 mojibake from fonts without a Unicode "
    "map): extracted text differs from the printed text",
    "presentation_forms": "right-to-left text is extracted as Arabic presentation forms in "
    "visual order: letter order and word spacing may be wrong",
    "unmapped": "many glyphs have no Unicode mapping (U+FFFD in the extracted text)",
}


def _notes(meta: PdfMeta, pages: list[PdfPage], unmatched: list[int]) -> list[ParserNote]:
    notes: list[ParserNote] = []
    if meta.repaired:
        notes.append(
            ParserNote(
                kind="warning",
                message=f"the PDF is damaged (e.g. a truncated download) and was repaired by "
                f"MuPDF when opened; {meta.page_count} pages recovered, content may be "
                "incomplete",
            )
        )
    if meta.source_sha256:
        notes.append(
            ParserNote(
                kind="info",
                message="the upload is password-protected: its pages were read from a "
                "decrypted copy made at submission (the password is not stored)",
            )
        )
    for ocr in (p.ocr for p in pages if p.ocr is not None):
        if ocr.confidence < LOW_OCR_CONFIDENCE:
            notes.append(
                ParserNote(
                    kind="warning",
                    message=f"OCR confidence {ocr.confidence:.0f} (below "
                    f"{LOW_OCR_CONFIDENCE:.0f}): the page's text may have many errors",
                    first_page=ocr.page,
                    last_page=ocr.page,
                )
            )
    for flag, message in _FLAG_NOTES.items():
        for a, b in _runs(pages, flag):
            notes.append(ParserNote(kind="warning", message=message, first_page=a, last_page=b))
    for use in _parsers(pages):
        if use.reason:
            notes.append(
                ParserNote(
                    kind="fallback",
                    message=f"{use.parser}: {use.reason}",
                    first_page=use.first_page,
                    last_page=use.last_page,
                )
            )
    for attr, what in (
        ("decorative_images", "tiny decorative images left out"),
        ("inline_images", "inline images (no object id) left out"),
        ("oversized_images", f"images over {MAX_IMAGE_PIXELS:,} pixels left out, undecoded"),
    ):
        hit = [p for p in pages if getattr(p, attr)]
        if hit:
            total = sum(getattr(p, attr) for p in hit)
            notes.append(
                ParserNote(
                    kind="info",
                    message=f"{total} {what}",
                    first_page=hit[0].page,
                    last_page=hit[-1].page,
                )
            )
    if unmatched:
        pointing = [n for n in unmatched if meta.outline[n].page]
        if pointing:
            shown = "; ".join(meta.outline[n].title for n in pointing[:5])
            notes.append(
                ParserNote(
                    kind="info",
                    message=f"{len(pointing)} of {len(meta.outline)} outline entries were not "
                    f"found as a heading on their page (e.g. {shown})",
                )
            )
    return notes


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
    # printed page numbers run past the physical count by the front matter at most
    max_page = 2 * meta.page_count + 20
    bodies = {p.page: _page_body(p, drop, max_page) for p in pages if not p.skipped}
    unmatched: list[int] = []
    usable_outline = any(e.page for e in meta.outline)
    if usable_outline:
        unmatched = match_outline(bodies, meta.outline, meta.outline_y, size)
    else:
        font_headings(list(bodies.values()), size)

    _drop_marks(bodies.values())
    asm = _Assembler(size, _vocabulary(bodies.values()))
    notes, trail = NoteSet(), Trail()
    for pno in sorted(bodies):
        pb = bodies[pno]
        first = next((i for i, b in enumerate(pb.blocks) if b.kind != "footnote"), -1)
        for i, block in enumerate(pb.blocks):
            if block.kind == "footnote":
                trail.add(pno, block.bbox, asm.add_note(pno, block, notes))
                continue
            if pb.entry(block) and i not in pb.headings:
                asm.add_entries(pno, block, pb.contents_max_page)
            else:
                asm.add(pno, block, pb.headings.get(i), first_on_page=i == first)
            trail.add(pno, block.bbox, asm.cur)
    tie_notes(pages, trail)
    asm.place_notes(notes)
    built = asm.elements()
    built, link_stats = resolve_links(built, asm.items, trail, pages)
    xref_notes: list[ParserNote] = []
    if not link_stats.found:  # no link annotations: "see Section 3.2" in the text
        built, xref_notes = link_references(built, {p.page: p.label for p in pages if p.label})
    built = [settle_joins(e) for e in built]

    skipped = [
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
    if not built:
        raise EmptyDocumentError("no body text on any page", source=meta.source_name)
    if strict and skipped:
        raise PagesWithoutTextError(
            f"{describe_textless(skipped)} (--strict)", source=meta.source_name
        )
    elements = built
    used = {e.image.file for e in elements if e.image is not None}
    doc = Document(
        doc_id=meta.doc_id,
        source_name=meta.source_name,
        source_format="pdf",
        page_count=meta.page_count,
        page_basis="pdf",
        parsers=_parsers(pages),
        skipped_pages=skipped,
        ocr_pages=[p.ocr for p in pages if p.ocr is not None],
        source_sha256=meta.source_sha256,
        removed=removed,
        notes=_notes(meta, pages, unmatched) + link_notes(link_stats, elements) + xref_notes,
        outline=meta.outline,
        elements=elements,
    )
    return ParsedDocument(document=doc, images={f: images[f] for f in sorted(used)})
