"""Running headers, footers and page numbers: found by comparing a page with its neighbours.

A block is a candidate when it is short and sits in the top or bottom band of its page
(13 % of the height), or is in the page's first row of text within 18 % (headers set
lower, as in latex-notes-zh-cn). The page's last block above the bottom band is one only
as a bare page number (LaTeX's A4 pages set the folio at 83-87 % of the height, a small
book page on A4 paper at 76 %): it is removed when it fits the numbering and a page within
two, or three pages of the document (chapter openings), have one at the same height; any
other last block may be a footnote, whose opening number or repeated wording must not make
it running text, unless it ends most pages within 18 %, the same wording at the same
height (a footer set high).
It is removed from the body when it is
- a bare page number ("12", "xiv", "Page 3", "- 7 -", "۱۲") that fits the page's
  numbering where the document has one (a code line "457 {" at the top of a listing page
  is not page 48's number),
- a line starting or ending with the page's own printed number ("Chapter 1: Creating R
  packages 14", "804 WWWusage", "۷ساختار فایل"): its PDF page label, its physical number,
  or the physical number plus an offset that many pages' header numbers share (books
  without page labels number their pages from the first chapter), in any script's digits,
  or
- the same text (digits ignored) at about the same height on a page within two pages
  (p±1 for one-sided layouts, p±2 for alternating left/right headers).
So a line that repeats with a changing number is running text in any script or direction.
On a scan, OCR cuts or misreads one header differently on every page ("The Lure of the
Temptr", "ure of the Temptr"): there two readings that share most of the shorter one, or
are nearly alike, count as the same text, a little higher or lower on the page.
A candidate set larger than the body text (often misjudged: code or figure labels can be
the commonest text) is a title unless it is a page number that fits the numbering, carries
the page's number and recurs ("第14 节 代码实现 47"), or recurs on two pages within two
("pgf-spectra 2.1.2 The commands"); "Chapter 7" at the top of page 7 is still a title.
Last, a header line left that stands exactly where the pages before and after it carry
running headers is one too (a header naming the current section, new on every page of
a run of short sections: "6.2 Compound Entry Sets").
Runs in the merge step over all pages, so it does not depend on how pages were split.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Literal

from quire.shared.ir import RemovedText
from quire.workers.parse.pdf_types import PdfBlock, PdfPage

_BAND = 0.13  # top/bottom share of the page height where running text lives
_OUTER_BAND = 0.18  # ... for the page's first or last text block
_TITLE_LETTERS = 4  # a title beside a page number in the first row has as many letters
_MAX_CHARS = 160
_MIN_OFFSET_PAGES = 3  # pages that must agree on a printed-number offset
_FOLIO_PAGES = 3  # pages with a bare number at one height above the band: folios
_SLOT = 1.0  # points: a header line at the height of its neighbours' running headers
_CODE_SHARE = 0.6  # of the pages: a monospace line there is a running header or footer
_CODE_PAGES = 5  # ... and on this many at least
_OCR_SLOT = 12.0  # points: a scanned page's header moves with the page on the scanner
_OCR_PART = 8  # letters two OCR readings of one header share in one piece at least ...
_OCR_SAME = 0.9  # ... most of the shorter one, or a similarity ("Part Three"/"Part Four": 0.8)
_OCR_LONGER = 2.5  # a footer quoted in a sentence ("… mailed to <elsarticle@…>") is no reading
_PAGE_NUMBER = re.compile(
    r"^[\W_]*(?:page\s+)?(?:\d{1,5}|[ivxlcdm]{1,8})(?:\s*(?:of|/)\s*\d{1,5})?[\W_]*$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_ROMAN_TOKEN = re.compile(r"\b[ivxlcdm]{1,8}\b")
_TOKEN = re.compile(r"[^\s]+")
_TRIM = ".,:;()[]-–—|"
# A number glued to right-to-left letters (visual-order extraction drops the space).
_RTL_LETTER = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")

Zone = Literal["header", "footer"]


@dataclass
class _Candidate:
    page: int
    index: int  # position of the block in the page's block list
    zone: Zone
    text: str
    key: str
    y0: float
    edges: list[str] = field(default_factory=list)  # numbers opening / closing the line
    large: bool = False  # set larger than the body text
    first: str = ""  # key of the first of two lines ("milog.cls" over the section's title)
    code: bool = False  # monospace: running text only where it runs through the book
    number_only: bool = False  # the last block above the band: removed only as a folio
    low: bool = False  # the last block within the outer band: removed only if throughout
    ocr: bool = False  # read by OCR from a scan: one header may be misread differently per page


def _key(text: str) -> str:
    t = _DIGITS.sub("#", text.casefold())
    t = _ROMAN_TOKEN.sub("#", t)
    return " ".join(t.split())


def ascii_digits(text: str) -> str:
    """Digits of any script ("۱۲", "١٢", "１２") as ASCII digits."""
    if text.isascii():  # (most lines: nothing to change)
        return text
    return "".join(str(unicodedata.digit(c)) if c.isdigit() else c for c in text)


def edge_numbers(text: str) -> list[str]:
    """The first and last words of a line of two or more words, digits as ASCII: a page
    number there marks running text. Digits glued to right-to-left letters count on
    their own (visual-order extraction loses the space: "۷ساختار")."""
    # only the first and the last word are read: strip words from each end
    words = _TOKEN.findall(text)
    first = next((i for i, t in enumerate(words) if t.strip(_TRIM)), len(words))
    last = next((i for i in range(len(words) - 1, first, -1) if words[i].strip(_TRIM)), first)
    if last <= first:
        return []
    return [
        _edge(words[first].strip(_TRIM), at_start=True),
        _edge(words[last].strip(_TRIM), at_start=False),
    ]


def _edge(token: str, *, at_start: bool) -> str:
    m = re.match(r"\d+", token) if at_start else re.search(r"\d+$", token)
    if m and m.group() != token:
        neighbour = token[m.end()] if at_start else token[m.start() - 1]
        if _RTL_LETTER.match(neighbour):
            token = m.group()
    return ascii_digits(token).casefold()


def _text_box(b: PdfBlock) -> tuple[float, float, float, float]:
    """Where the block's text stands: a figure's text block has the figure's box (a
    drawing at the top of a slide), its lines may stand anywhere in it."""
    if b.figure and b.line_y:
        return (b.bbox[0], min(y for y, _ in b.line_y), b.bbox[2], max(y for _, y in b.line_y))
    return b.bbox


def _zone(page: PdfPage, box: tuple[float, float, float, float], first: bool) -> Zone | None:
    h = page.height
    if box[3] <= h * _BAND or (first and box[3] <= h * _OUTER_BAND):
        return "header"
    if box[1] >= h * (1 - _BAND):
        return "footer"  # (no outer band for the last block: see the module docstring)
    return None


def _candidates(page: PdfPage, body_size: float) -> list[_Candidate]:
    out: list[_Candidate] = []
    # (figure text counts: a header set in a drawn bar is the text of a "figure"; so does
    # monospace, in a book set in typewriter type throughout)
    text_blocks = [i for i, b in enumerate(page.blocks) if b.kind in ("text", "code")]
    if not text_blocks:
        return out
    prose = [i for i in text_blocks if page.blocks[i].kind == "text"] or text_blocks
    # the top block has the wider band, and so has the rest of its row when it is a bare
    # page number (a header set as the number and a title side by side: aomsample's
    # "18   AMS AND BORIS VEYTSMAN"; an index's "L" and "M" or two columns' first lines
    # side by side are no header)
    first = min(prose, key=lambda i: _text_box(page.blocks[i])[1])
    top = _text_box(page.blocks[first])
    firsts = {first}
    if " ".join(page.blocks[first].lines).strip().isdigit():
        firsts |= {
            i
            for i in prose
            if _text_box(page.blocks[i])[1] < top[3]
            and sum(ch.isalpha() for ch in " ".join(page.blocks[i].lines)) >= _TITLE_LETTERS
        }  # (a title: a score's "tr" over a staff beside the number is no header)
    last = max(prose, key=lambda i: _text_box(page.blocks[i])[3])
    for i in text_blocks:
        b = page.blocks[i]
        if len(b.lines) > 2:
            continue
        text = " ".join(b.lines)
        if len(" ".join(text.split())) > _MAX_CHARS:  # (groff pads a header with spaces)
            continue
        box = _text_box(b)
        zone = _zone(page, box, i in firsts)
        folio = zone is None and i == last and bool(_PAGE_NUMBER.match(ascii_digits(text)))
        low = zone is None and i == last and not folio and box[1] >= page.height * (1 - _OUTER_BAND)
        if zone is not None or folio or low:
            large = b.size > body_size * 1.15
            first_line = _key(b.lines[0]) if len(b.lines) == 2 else ""
            out.append(
                _Candidate(
                    page.page,
                    i,
                    zone or "footer",
                    text,
                    _key(text),
                    box[1],
                    edge_numbers(text),
                    large,
                    first_line,
                    b.kind == "code",
                    folio,
                    low,
                    b.ocr,
                )
            )
    return out


def _offsets(cands: dict[int, list[_Candidate]]) -> set[int]:
    """Printed number - physical page, read from bare page numbers and header lines,
    where at least _MIN_OFFSET_PAGES pages and a quarter as many as for the commonest
    offset agree (footnote numbers also grow page by page, but rarely for long)."""
    pages: dict[int, set[int]] = {}
    for pno, found in cands.items():
        for c in found:
            if c.code:  # a numbered listing line grows page by page too
                continue
            if _PAGE_NUMBER.match(ascii_digits(c.text)):
                numbers = _DIGITS.findall(ascii_digits(c.text))[:1]  # "4 of 90": 4
            else:
                numbers = c.edges if c.zone == "header" else []
            for n in numbers:
                if n.isdigit():
                    pages.setdefault(int(n) - pno, set()).add(pno)
    counts = {off: len(p) for off, p in pages.items()}
    top = max(counts.values(), default=0)
    return {off for off, k in counts.items() if k >= max(_MIN_OFFSET_PAGES, top / 4)}


def _page_numbers(page: PdfPage, offsets: set[int]) -> set[str]:
    """The numbers page `page` may print: physical, plus a shared offset, its label."""
    numbers = {str(page.page), *(str(page.page + off) for off in offsets)}
    if page.label:
        numbers.add(ascii_digits(page.label).casefold())
    return numbers


def _carries_page_number(c: _Candidate, page: PdfPage, offsets: set[int]) -> bool:
    """The page's number as the first or last word ("14", "804 WWWusage"); a number in
    the middle ("Chapter 2. The Filesystem" on page 2) is not enough."""
    numbers = _page_numbers(page, offsets)
    return any(n in numbers for n in c.edges)


def _bare_page_number(
    c: _Candidate, page: PdfPage, offsets: set[int], *, strict: bool = False
) -> bool:
    """A line that is only a page number: "xiv", "Page 3", "- 7 -", "4 of 90"; digits must
    be one of the page's numbers when the document's numbering is known (offsets or
    labels), and always when `strict`."""
    text = ascii_digits(c.text)
    if not _PAGE_NUMBER.match(text):
        return False
    digits = _DIGITS.findall(text)
    if not digits or not (offsets or page.label):
        return not strict
    return digits[0] in _page_numbers(page, offsets)


def find_running_text(
    pages: list[PdfPage], body_size: float
) -> tuple[set[tuple[int, int]], list[RemovedText]]:
    """(page, block index) pairs to drop from the body, and what was dropped."""
    by_page = {p.page: p for p in pages}
    cands = {p.page: _candidates(p, body_size) for p in pages if p.skipped is None}
    offsets = _offsets(cands)
    throughout = _code_throughout(cands)
    low_footers = _low_footers(cands)
    folios = _folios(cands, by_page, offsets)
    drop: set[tuple[int, int]] = set()
    removed: list[RemovedText] = []
    for pno in sorted(cands):
        page = by_page[pno]
        for c in cands[pno]:
            kind: Literal["header", "footer", "page_number"] | None = None
            if c.number_only:
                kind = "page_number" if (c.page, c.index) in folios else None
            elif c.low:
                kind = "footer" if (c.key, round(c.y0)) in low_footers else None
            elif c.code:
                kind = c.zone if (c.zone, c.first or c.key) in throughout else None
            elif c.large:  # a title, unless it is numbered or recurs like running text
                if _bare_page_number(c, page, offsets, strict=True):
                    kind = "page_number"
                elif _repeated(c, cands, pages=2) or (
                    _carries_page_number(c, page, offsets) and _repeated(c, cands)
                ):
                    kind = c.zone
            elif _bare_page_number(c, page, offsets):
                kind = "page_number"
            elif _carries_page_number(c, page, offsets) or _repeated(c, cands):
                kind = c.zone
            if kind is not None:
                drop.add((pno, c.index))
                removed.append(RemovedText(page=pno, kind=kind, text=c.text))
    for c in _in_running_slots(cands, drop):
        drop.add((c.page, c.index))
        removed.append(RemovedText(page=c.page, kind="header", text=c.text))
    return drop, removed


def _folios(
    cands: dict[int, list[_Candidate]], by_page: dict[int, PdfPage], offsets: set[int]
) -> set[tuple[int, int]]:
    """(page, block index) of the pages' last blocks that are bare page numbers fitting the
    numbering, with one at the same height on a page within two, or on `_FOLIO_PAGES`
    pages of the document: the folios, wherever the layout sets them (a book whose pages
    carry their number in the header prints it at the foot of its chapters' first pages)."""
    bare = [
        c
        for found in cands.values()
        for c in found
        if c.number_only and _bare_page_number(c, by_page[c.page], offsets, strict=True)
    ]
    heights = sorted(c.y0 for c in bare)
    last = {c.page: c for c in bare}  # (one last block a page)

    def level(c: _Candidate, o: _Candidate | None) -> bool:
        return o is not None and abs(o.y0 - c.y0) <= 2 * _SLOT

    out = set()
    for c in bare:
        same = bisect_right(heights, c.y0 + 2 * _SLOT) - bisect_left(heights, c.y0 - 2 * _SLOT)
        near = (c.page - 1, c.page + 1, c.page - 2, c.page + 2)
        if same >= _FOLIO_PAGES or any(level(c, last.get(q)) for q in near):
            out.add((c.page, c.index))
    return out


def _throughout(
    cands: dict[int, list[_Candidate]], key: Callable[[_Candidate], Hashable | None]
) -> set[Hashable]:
    """The keys (`key`: a candidate's, None for none) found on `_CODE_SHARE` of the pages,
    and on `_CODE_PAGES` at least."""
    pages: dict[Hashable, set[int]] = {}
    for pno, found in cands.items():
        for c in found:
            k = key(c)
            if k is not None:
                pages.setdefault(k, set()).add(pno)
    least = max(_CODE_PAGES, _CODE_SHARE * len(cands))
    return {k for k, on in pages.items() if len(on) >= least}


def _low_footers(cands: dict[int, list[_Candidate]]) -> set[Hashable]:
    """(key, height) of the lines that end `_CODE_SHARE` of the pages above the bottom
    band, the same wording (digits aside) at the same height: a footer set high
    (cjeguide's "Canadian Journal of Economics / Revue canadienne d'économique" at 83 %).
    A footnote ends its page there too, but never the same one on most pages."""
    return _throughout(
        cands,
        lambda c: (
            (c.key, round(c.y0)) if c.low and sum(ch.isalpha() for ch in c.key) >= 2 else None
        ),
    )


def _code_throughout(cands: dict[int, list[_Candidate]]) -> set[Hashable]:
    """(zone, key) of the monospace lines at the top or bottom of most pages (a book set in
    typewriter type: "tkz-berge   AlterMundus" over the chapter's title). A code line that
    merely recurs at a page's edge ("% Else", a numbered listing line) is the book's text:
    it must stand on `_CODE_SHARE` of the pages, by its text or its first of two lines."""

    def key(c: _Candidate) -> Hashable | None:
        text = c.first or c.key
        return (
            (c.zone, text)
            if c.code and not c.low and sum(ch.isalpha() for ch in text) >= 2
            else None
        )

    return _throughout(cands, key)


def _in_running_slots(
    cands: dict[int, list[_Candidate]], drop: set[tuple[int, int]]
) -> list[_Candidate]:
    """Header lines kept so far that stand where the pages before and after carry running
    headers: the height of a dropped header on a page before and on a page after (within
    two). A header naming the current section ("6.2 Compound Entry Sets") changes with
    every short section and carries no page number, so neither rule above sees it. A
    title is not in that slot: chapter openings set theirs lower."""
    dropped: dict[int, list[float]] = {}
    for pno, found in cands.items():
        dropped[pno] = [c.y0 for c in found if c.zone == "header" and (pno, c.index) in drop]
    out = []
    for pno, found in cands.items():
        for c in found:
            if c.zone != "header" or c.large or c.code or (pno, c.index) in drop:
                continue
            if sum(ch.isalpha() for ch in c.key) < 2:
                continue
            sides = [
                any(abs(y - c.y0) <= _SLOT for q in qs for y in dropped.get(q, ()))
                for qs in ((pno - 1, pno - 2), (pno + 1, pno + 2))
            ]
            if all(sides):
                out.append(c)
    return out


def _repeated(c: _Candidate, cands: dict[int, list[_Candidate]], pages: int = 1) -> bool:
    """The same text (digits aside), or the same first of two lines, at the same height on
    `pages` pages within two; it must have two letters at least ("# {", a numbered code
    line, recurs too). A page two away that is blank stands for the next page on that
    side of the spread: a thesis of two-page chapters, each closed by a blank page, has
    its left-page header ("东南大学博士学位论文") four pages apart."""
    if sum(ch.isalpha() for ch in c.key) < 2:
        return False
    found = 0
    for q in (c.page - 1, c.page + 1, c.page - 2, c.page + 2):
        if abs(q - c.page) == 2 and q not in cands:  # a page without text (or none)
            q += q - c.page
        if any(
            o.zone == c.zone
            and not (o.number_only or o.low)  # (those are no evidence for others)
            and (o.key == c.key or (c.first and o.first == c.first) or _misread(c, o))
            and abs(o.y0 - c.y0) <= (_OCR_SLOT if c.ocr and o.ocr else 4)
            for o in cands.get(q, ())
        ):
            found += 1
    return found >= pages


def _misread(c: _Candidate, o: _Candidate) -> bool:
    """Two OCR readings of one header: "The Lure of the Temptr", "ure of the Temptress",
    "The Lure of the emptre" (a scanned page's header is cut or misread differently on
    every page); a part's title and the next part's ("Part Three - Who on Earth am I?",
    "Part Four - Where on Earth am I?") are not."""
    if not (c.ocr and o.ocr):
        return False
    a, b = ("".join(ch for ch in x.key if ch.isalnum() or ch == "#") for x in (c, o))
    same = difflib.SequenceMatcher(None, a, b, autojunk=False)
    common = same.find_longest_match().size  # "ureofthetemp" of "lureofthetemp"/"ureofthetemptr"
    short, long = sorted((len(a), len(b)))
    part = common >= _OCR_PART and common >= _OCR_SAME * short and long <= _OCR_LONGER * short
    return part or same.ratio() >= _OCR_SAME


def body_blocks(page: PdfPage, drop: set[tuple[int, int]]) -> list[PdfBlock]:
    return [b for i, b in enumerate(page.blocks) if (page.page, i) not in drop]
