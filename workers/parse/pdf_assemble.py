"""Building a PDF's elements from its body blocks, in page order (the merge's walk).

A paragraph, list or code block continues across a page break when the previous page ends
inside it (a list or code block for at most MAX_CARRY_PAGES pages: longer ones are cut at
a page break, so a session can end inside a 90-page listing); footnotes are kept aside and
placed once every page is read. The elements come out numbered in reading order.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from quire.shared import markdown
from quire.shared.ir import Element, ImageRef, element_id, make_element
from quire.shared.text import is_cjk
from quire.workers.parse.list_runs import MAX_CARRY_PAGES
from quire.workers.parse.pdf_contents import entry_items
from quire.workers.parse.pdf_extract import list_marker
from quire.workers.parse.pdf_footnotes import Note, NoteSet
from quire.workers.parse.pdf_headings import CAPTION, Heading
from quire.workers.parse.pdf_hyphens import JOIN, Vocabulary, is_break, join_cell_breaks
from quire.workers.parse.pdf_types import PdfBlock
from quire.workers.parse.url_breaks import continues_url

_MID_SENTENCE = re.compile(r"[^\W_][,;-]?$")  # a word, and a comma or a hyphen at most
_SENTENCE_END = re.compile(r"[.!?:;。！？…][\"'”’»)\]]*$")
_STRONG = "•◦▪▫‣⁃∙●○■□►▸➢✓✔·"
# a chapter's label on a title's first line ("第二章", "第 3 节", "付録 A")
_CJK_LABEL = re.compile(
    r"^(?:第\s*[\dIVX一二三四五六七八九十百]+\s*(?:[章篇节節]|部分?)|付録\s*\w)$"
)
_MAX_CAPTION_WORDS = 80
CONTENTS = "contents"  # list kind of the entries of a contents or index page
FIGURE = "figure"  # origin of a paragraph holding the text of a vector figure


def join_lines(lines: list[str], *, title: bool = False, words: Vocabulary | None = None) -> str:
    """Lines of one paragraph -> one line of text. A hyphen at a line end that only breaks a
    word (as `words`, the document's vocabulary, decides) is taken out and marked with
    JOIN; any other stays put. A web address broken across lines is joined whole, without
    a hyphen only when the document writes the joined word and not the hyphenated one.

    Chinese and Japanese are set without spaces: a line ending in a CJK character (or
    the next one opening with CJK punctuation) joins the next line directly, as the text
    layer does inside a line (CJK then Latin: no space; Latin then CJK: a space). A
    `title` keeps a space after its label ("第二章" over "用LATEX 排版文字") and before
    Latin, and joins CJK to CJK directly ("自动" over "化")."""
    out = ""
    for ln in lines:
        ln = unicodedata.normalize("NFC", ln)  # as the IR will be: "e\u0301-" is "é-"
        if out and continues_url(out, ln):
            # a web address broken after "/", "." or "-": TeX's url package adds no hyphen,
            # but FOP hyphenates addresses like words ("wiki.gnu-" / "cash.org")
            hyphenated = words is not None and words.breaks_address(out, ln)
            out = out[:-1] + JOIN + ln if hyphenated else out + ln
        elif out and words is not None and words.breaks_word(out, ln):
            out = out[:-1] + JOIN + ln
        else:
            out += ln if not out or _glued(out, ln, title) else " " + ln
    return out


def _glued(before: str, after: str, title: bool) -> bool:
    """Join without a space: a word hyphenated at the line end, or CJK text (in a title
    only when the line before is no chapter label)."""
    if is_break(before, after):
        return True
    if is_cjk(after[:1]) and not after[:1].isalpha():
        return True  # CJK punctuation never follows a space
    if title:  # a title wrapped in the middle of a word: "インストールの自動" over "化"
        return is_cjk(before[-1]) and is_cjk(after[:1]) and not _CJK_LABEL.match(before)
    return is_cjk(before[-1])


@dataclass
class PendingElement:
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
    ref: PendingElement | None = None  # footnote: the element holding its reference

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


class Assembler:
    """Builds the elements of a document from its body blocks, in page order."""

    def __init__(self, body_size: float, words: Vocabulary | None = None) -> None:
        self.items: list[PendingElement] = []
        self.body = body_size
        self.words = words

    @property
    def cur(self) -> PendingElement | None:
        return self.items[-1] if self.items else None

    def start(self, p: PendingElement) -> None:
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
                p = PendingElement("paragraph", p.page_first, p.page_last, text=p.text, rtl=p.rtl)
            out.append(p.build(element_id(len(out) + 1), ids.get(id(p.ref))))
        return out

    def add_note(self, page: int, block: PdfBlock, notes: NoteSet) -> Note:
        """A footnote block: kept aside (the text goes on around it) until `place_notes`."""
        text = join_lines(block.lines, words=self.words)
        return notes.add(page, block.mark, text, len(self.items), block.rtl)

    def place_notes(self, notes: NoteSet) -> None:
        def make(kind: str, note: Note, text: str) -> PendingElement:
            return PendingElement(kind, note.page, note.page_last, text=text, rtl=note.rtl)

        self.items = notes.place(self.items, make)

    def _open_paragraph(self, page: int) -> PendingElement | None:
        """The paragraph page `page`'s text so far ended inside: its last element, or the
        last one before the footnotes (smaller text) at the foot of that page."""
        for p in reversed(self.items):
            if p.page_last != page:
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
        self.start(
            PendingElement("list", page, page, items=items, list_kind=CONTENTS, rtl=block.rtl)
        )

    def add(
        self,
        page: int,
        block: PdfBlock,
        heading: Heading | None,
        first_on_page: bool,
        column_top: bool = False,
    ) -> None:
        """Add a body block; `column_top`: it opens a column of a page set in columns."""
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
                PendingElement(
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
            self.start(PendingElement("image", page, page, image=block.image))
            return
        if block.figure:  # labels of a drawing: one paragraph, never a title or an item
            # (or a table the finder refused: a word its lines break is joined as in prose)
            text = join_lines(block.lines, words=self.words)
            self.start(PendingElement("paragraph", page, page, text=text, origin=FIGURE, size=-1.0))
            return
        if block.kind == "table":
            rows = block.rows
            if rows and self.words is not None:  # words a cell's line ends broke
                rows = [[join_cell_breaks(c, self.words) for c in r] for r in rows]
            self.start(PendingElement("table", page, page, rows=rows))
            return
        if block.kind == "code":
            self._add_code(page, block, carry)
            return
        text = join_lines(block.lines, words=self.words)
        if CAPTION.match(text) and len(text.split()) <= _MAX_CAPTION_WORDS:
            self.start(PendingElement("caption", page, page, text=text, rtl=block.rtl))
            return
        item = _item(block, self.words)
        if item is not None:
            self._add_item(page, block, item, text, carry)
        elif not self._continue_item(page, block, text, carry) and not self._continue_paragraph(
            page, block, text, first_on_page, column_top
        ):
            self.start(
                PendingElement(
                    "paragraph",
                    page,
                    page,
                    text=text,
                    rtl=block.rtl,
                    size=block.size,
                    bold=block.bold,
                )
            )

    def _add_code(self, page: int, block: PdfBlock, carry: bool) -> None:
        cur = self.cur
        if carry and cur is not None and cur.type == "code":
            cur.lines.extend(block.lines)
            cur.page_last = page
            return
        self.start(PendingElement("code", page, page, lines=list(block.lines)))

    def _add_item(
        self,
        page: int,
        block: PdfBlock,
        item: tuple[str, int | None, str],
        text: str,
        carry: bool,
    ) -> None:
        """A block opening with a list marker: the next item of the list being built (on
        its page, or carried over the break), else the first of a new list."""
        cur = self.cur
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
            PendingElement(
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

    def _continue_item(self, page: int, block: PdfBlock, text: str, carry: bool) -> bool:
        """Whether `text` went on the last item of the list being built: an item running
        on over the page break, or an indented follow-on paragraph (never onto a contents
        page's list: those end with their page)."""
        cur = self.cur
        if cur is None or cur.type != "list" or not cur.items or cur.list_kind == CONTENTS:
            return False
        indented = (
            cur.page_last == page
            and bool(block.line_x0)
            and (min(block.line_x0) >= cur.item_x0 - 1)
        )
        if not ((carry and not _SENTENCE_END.search(cur.items[-1])) or indented):
            return False
        if indented and not carry:
            cur.items[-1] += "\n" + text
        else:
            cur.items[-1] = join_lines([cur.items[-1], text], words=self.words)
        cur.text = join_lines([cur.text, text], words=self.words)
        cur.page_last = page
        return True

    def _continue_paragraph(
        self, page: int, block: PdfBlock, text: str, first_on_page: bool, column_top: bool
    ) -> bool:
        """Whether `text` went on the paragraph the previous page ended inside, or, when it
        opens a column and its sentence goes on in lower case, the previous column."""
        target = None
        if first_on_page:
            target = self._open_paragraph(page - 1)
        elif column_top and text[:1].islower():
            target = self._open_paragraph(page)
            if target is not None and not _MID_SENTENCE.search(target.text):
                target = None  # a rule's glyph or a label between the columns
        if (
            target is not None
            and abs(target.size - block.size) < 0.6
            and (target.bold == block.bold)
        ):
            target.text = join_lines([target.text, text], words=self.words)
            target.page_last = page
            return True
        return False
