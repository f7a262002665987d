"""Read what a book index needs from the PDF: its pages' styled lines, and the page labels.

The IR keeps an index page's text but not the style of each page number in it (a bold
locator marks where a term is defined) nor the printed page labels ("xiv", "T-3") the
locators name, so the book index reads them here, from the source PDF, once per document,
with the parser's repairs of the text: TeX fonts decoded, ligatures expanded, accents
drawn apart (and OT1's circumflex) put on their letters (key terms read "mode
math ́ematique" in a French manual).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from quire.workers.analysis.book_index import (
    MIN_COLUMN_LINES,
    IndexLine,
    IndexPage,
    IndexSpan,
)
from quire.workers.parse.accents import compose_carets_in, compose_runs
from quire.workers.parse.glyphs import COMPAT, expand_glyphs
from quire.workers.parse.pdf_extract import font_style
from quire.workers.parse.pdf_open import open_pdf_kept
from quire.workers.parse.pdf_tex_fonts import FontCache, decode_text, page_decoders

_BOLD = re.compile(r"bold|black|heavy|semibold|demi|cmbx|cmb\d|-bd\b", re.IGNORECASE)
_ITALIC = re.compile(r"italic|oblique|cmti|cmsl|cmmi|-it\b|ital", re.IGNORECASE)
_BOLD_FLAG, _ITALIC_FLAG = 16, 2
_WORD_SPACE = 0.15  # of the font size: a gap this wide between two pieces is a space
_ENDS_IN_NUMBER = re.compile(r"(?:^|[\s,.;،–—-])(?:\d+|[ivxlcdm]+)\s*$")  # "…, 961–963"


@functools.cache
def _style(font: str, flags: int) -> tuple[bool, bool]:
    """(bold, italic) of a font: a page has a thousand runs in a handful of fonts."""
    font = font.split("+", 1)[-1]
    return (
        bool(flags & _BOLD_FLAG or _BOLD.search(font)),
        bool(flags & _ITALIC_FLAG or _ITALIC.search(font)),
    )


def _spans(line: dict[str, Any]) -> list[IndexSpan]:
    """A line's styled runs, their text repaired as the parser repairs a line's."""
    runs = [s for s in line["spans"] if s["text"]]
    texts = [expand_glyphs(s["text"]) if COMPAT.search(s["text"]) else s["text"] for s in runs]
    texts = compose_runs([(t, font_style(s["font"])[0]) for t, s in zip(texts, runs, strict=True)])
    return [
        IndexSpan(text, *_style(str(s.get("font", "")), int(s.get("flags", 0))))
        for text, s in zip(texts, runs, strict=True)
    ]


def _raw_lines(doc: Any, page: Any, fonts: FontCache) -> list[IndexLine]:
    text = page.get_text("dict")
    decode_text(text, page_decoders(doc, page, text, fonts))
    compose_carets_in(text)
    out = []
    for block in text["blocks"]:
        for line in block.get("lines", []):
            dx, dy = line["dir"]
            if abs(dy) > 1e-3 or dx <= 0 or not "".join(s["text"] for s in line["spans"]).strip():
                continue
            spans = _spans(line)
            x0, y0, x1, y1 = line["bbox"]
            size = max((s["size"] for s in line["spans"]), default=10.0)
            out.append(IndexLine(x0=x0, x1=x1, y0=y0, y1=y1, size=size, spans=spans))
    return out


def _continues(prev: IndexLine, ln: IndexLine, edges: set[int]) -> bool:
    """Is `ln` the next piece of the printed line `prev` (same baseline, just to its
    right)? MuPDF splits a line at dot leaders, at a change of font or direction. A piece
    ending in a page number ends its entry: what follows is another column's; so does an
    entry starting at a column's left edge (`edges`) a word space or more after `prev`
    (an entry with no locators of its own, a line that wraps, beside the next column)."""
    if abs(prev.y1 - ln.y1) > 0.3 * max(1.0, ln.y1 - ln.y0):
        return False
    gap = ln.x0 - prev.x1
    if _starts_entry(ln) and round(ln.x0) in edges and gap >= _WORD_SPACE * ln.size:
        return False
    return -1 < gap < 1.5 * max(prev.size, ln.size) and not _ENDS_IN_NUMBER.search(prev.text)


def _starts_entry(ln: IndexLine) -> bool:
    """Could `ln` begin an entry: a word or a control word (TeX sets dot leaders on a grid,
    so a column of them starts at one x too)."""
    return ln.text[:1].isalpha() or ln.text[:1] == "\\"


def _column_edges(lines: Sequence[IndexLine]) -> set[int]:
    """The x (rounded) where `MIN_COLUMN_LINES` or more of a page's entries start."""
    starts = Counter(round(ln.x0) for ln in lines if _starts_entry(ln))
    return {x for x, n in starts.items() if n >= MIN_COLUMN_LINES}


def _page_lines(doc: Any, page: Any, fonts: FontCache) -> list[IndexLine]:
    """The page's horizontal printed lines, its MuPDF pieces joined, top to bottom."""
    out: list[IndexLine] = []
    baselines: list[tuple[float, int]] = []  # (y1, index in out): a line keeps its y1
    pieces = _raw_lines(doc, page, fonts)
    edges = _column_edges(pieces)
    for ln in sorted(pieces, key=lambda ln: ln.x0):  # pieces left to right
        # the latest line that `ln` continues, among those near its baseline (the first
        # test of `_continues`, widened a hair for rounding): not every line of the page
        reach = 0.3 * max(1.0, ln.y1 - ln.y0) + 1e-6
        lo = bisect.bisect_left(baselines, (ln.y1 - reach, -1))
        hi = bisect.bisect_right(baselines, (ln.y1 + reach, len(out)))
        at = max((i for _, i in baselines[lo:hi] if _continues(out[i], ln, edges)), default=None)
        if at is None:
            bisect.insort(baselines, (ln.y1, len(out)))
            out.append(ln)
        else:
            prev = out[at]
            # a piece set apart by a word space or more is a word of its own ("format 7",
            # a right-aligned locator, had read "format7")
            spaced = ln.x0 - prev.x1 >= _WORD_SPACE * max(prev.size, ln.size)
            space = [IndexSpan(" ")] if spaced and not prev.text.endswith(" ") else []
            out[at] = replace(prev, x1=max(prev.x1, ln.x1), spans=[*prev.spans, *space, *ln.spans])
    return _reading_order(out)


def _reading_order(lines: Sequence[IndexLine]) -> list[IndexLine]:
    """Top to bottom by baseline, left to right along one: an entry in a code font and its
    locators set well to its right ("\\cs:w", then "21, 539, 563,") share a baseline, but
    the digits rise above the code font's top, and read by their tops they came first and
    were taken for the locators of the line above (source3's "cs commands:")."""
    rows: list[list[IndexLine]] = []
    for ln in sorted(lines, key=lambda ln: (ln.y1, ln.x0)):
        if rows and ln.y1 - rows[-1][0].y1 <= 0.3 * max(1.0, ln.y1 - ln.y0):
            rows[-1].append(ln)
        else:
            rows.append([ln])
    return [ln for row in rows for ln in sorted(row, key=lambda ln: ln.x0)]


def read_index_pages(path: Path, pages: Sequence[int]) -> list[IndexPage]:
    """The styled lines of `pages` (physical, 1-based) of the PDF at `path`."""
    doc = open_pdf_kept(Path(path))
    fonts: FontCache = {}  # a TeX font's decoder, built once for all the index's pages
    out = []
    for number in pages:
        if not 1 <= number <= doc.page_count:
            continue
        page = doc[number - 1]
        out.append(
            IndexPage(
                page=number,
                width=page.rect.width,
                height=page.rect.height,
                lines=_page_lines(doc, page, fonts),
            )
        )
    return out


def read_page_labels(path: Path) -> list[str]:
    """Every page's PDF page label, in page order ("" where the PDF defines none), made
    from the PDF's label rules (loading every page for `get_label()` takes seconds)."""
    doc = open_pdf_kept(Path(path))
    rules = sorted(doc.get_page_labels() or [], key=lambda r: int(r.get("startpage", 0)))
    labels = [""] * doc.page_count
    for k, rule in enumerate(rules):
        start = int(rule.get("startpage", 0))
        end = int(rules[k + 1]["startpage"]) if k + 1 < len(rules) else doc.page_count
        first = int(rule.get("firstpagenum", 1) or 1)
        for page in range(max(start, 0), min(end, doc.page_count)):
            number = first + page - start
            labels[page] = f"{rule.get('prefix', '')}{_label_number(number, rule.get('style', ''))}"
    return labels


def _label_number(n: int, style: str) -> str:
    """A page number in a PDF label style: D 12, r xii, R XII, a l, A L ("" for none)."""
    if style == "D":
        return str(n)
    if style in ("r", "R"):
        roman = _roman(n)
        return roman if style == "R" else roman.lower()
    if style in ("a", "A"):
        letter = chr(ord("A") + (n - 1) % 26) * ((n - 1) // 26 + 1)
        return letter if style == "A" else letter.lower()
    return ""


def _roman(n: int) -> str:
    out = ""
    for value, digits in (
        (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
        (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
    ):  # fmt: skip
        while n >= value:
            out, n = out + digits, n - value
    return out
