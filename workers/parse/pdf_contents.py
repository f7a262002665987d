"""Contents pages: tables of contents and lists of figures, found from their entry lines.

An entry line names a page: it ends in a page number (not past the document's last
printed page: "September 14, 2022" is no entry) (it starts with one in right-to-left
text extracted in visual order), usually after dot leaders ("1.1 概述 . . . . . 1",
"۶۳ابزارهای ویژه۴"). A page is a contents page when most of its text lines are entries and
either several have leaders or the page numbers run upwards, as they do in a contents list
and not in an index. A page's entries are one list, never headings or cut reasons; a title
line without a number ("第一章") belongs to the entry below it.
"""

from __future__ import annotations

import itertools
import re

from quire.workers.parse.pdf_running import edge_numbers
from quire.workers.parse.pdf_types import PdfBlock

_LEADERS = re.compile(r"(?:\.\s?){4,}|…{2,}|·{3,}")
_ROMAN = re.compile(r"[ivxlcdm]{1,7}")
_MIN_ENTRIES = 5
_MIN_SHARE = 0.5  # of the page's text lines
_MIN_LEADERS = 3
_MIN_RISING = 0.8  # of successive entry numbers, without leaders
_MIN_STEPS = 0.2  # of successive entry numbers stepping up to a later page, without leaders


def entry_number(line: str, rtl: bool, max_page: int) -> str | None:
    """The page number (at most `max_page`: not a year) the line points to, or None."""
    edges = edge_numbers(line)
    if not edges:
        return None
    number = edges[0] if rtl and edges[0].isdigit() else edges[-1]
    if (number.isdigit() and int(number) <= max_page) or _ROMAN.fullmatch(number):
        return number
    return None


def _rising(numbers: list[int], *, strictly: bool = False) -> float:
    """The share of successive numbers that do not fall (`strictly`: that step up)."""
    pairs = list(itertools.pairwise(numbers))
    return sum(b > a or (b == a and not strictly) for a, b in pairs) / len(pairs) if pairs else 0.0


def is_contents_page(blocks: list[PdfBlock], max_page: int) -> bool:
    lines = [(ln, b.rtl) for b in blocks if b.kind == "text" for ln in b.lines]
    need = max(_MIN_ENTRIES, _MIN_SHARE * len(lines))
    entries: list[tuple[str, str]] = []
    for at, (ln, rtl) in enumerate(lines):
        if len(entries) + len(lines) - at < need:
            return False  # too few lines left to make it (most pages: early)
        if (n := entry_number(ln, rtl, max_page)) is not None:
            entries.append((ln, n))
    if len(entries) < need:
        return False
    if sum(1 for ln, _ in entries if _LEADERS.search(ln)) >= _MIN_LEADERS:
        return True
    # and they step up to later pages, where a barcode manual's page of variants ("Matrix
    # 2 of 5", "COOP 2 of 5", its headings among them) names "page" 5 on line after line
    numbers = [int(n) for _, n in entries if n.isdigit()]
    return (
        len(numbers) >= 2 * _MIN_ENTRIES
        and _rising(numbers) >= _MIN_RISING
        and _rising(numbers, strictly=True) >= _MIN_STEPS
    )


def is_entry_block(block: PdfBlock, max_page: int) -> bool:
    """A text block of a contents page whose last line names a page."""
    return (
        block.kind == "text"
        and bool(block.lines)
        and entry_number(block.lines[-1], block.rtl, max_page) is not None
    )


def merge_titles(blocks: list[PdfBlock], max_page: int) -> list[PdfBlock]:
    """A contents page's blocks with each number-less line set like the entry block right
    below or beside it moved into that block ("第一章" before "LATEX 的基本概念 1")."""
    out: list[PdfBlock] = []
    for b in reversed(blocks):
        nxt = out[-1] if out else None
        if nxt is not None and _title_of(b, nxt, max_page):
            beside = nxt.bbox[1] < b.bbox[3]
            lines = (
                [*b.lines[:-1], f"{b.lines[-1]} {nxt.lines[0]}", *nxt.lines[1:]]
                if beside
                else b.lines + nxt.lines
            )
            x0 = b.line_x0 + (nxt.line_x0[1:] if beside else nxt.line_x0)
            box = (
                min(b.bbox[0], nxt.bbox[0]),
                min(b.bbox[1], nxt.bbox[1]),
                max(b.bbox[2], nxt.bbox[2]),
                max(b.bbox[3], nxt.bbox[3]),
            )
            update = {"lines": lines, "line_x0": x0, "line_mid": [], "bbox": box}
            out[-1] = nxt.model_copy(update=update)
            continue
        out.append(b)
    return out[::-1]


def _title_of(b: PdfBlock, entry: PdfBlock, max_page: int) -> bool:
    """Is `b` the first part of the entry `entry`: a short number-less line in the same
    style, just above or on the same row?"""
    return (
        b.kind == "text"
        and not is_entry_block(b, max_page)
        and is_entry_block(entry, max_page)
        and len(b.lines) <= 2
        and abs(b.size - entry.size) < 0.6
        and b.bold == entry.bold
        and b.bbox[1] - 2 <= entry.bbox[1] <= b.bbox[3] + 2 * max(b.size, 1.0)
    )


def entry_items(block: PdfBlock, max_page: int) -> list[list[str]]:
    """The block's lines grouped into entries: lines up to and including one that names a
    page (a title wrapped over two lines is one entry)."""
    items: list[list[str]] = []
    cur: list[str] = []
    for ln in block.lines:
        cur.append(ln)
        if entry_number(ln, block.rtl, max_page) is not None:
            items.append(cur)
            cur = []
    if cur:
        items.append(cur)
    return items
