"""Running headers, footers and page numbers: found by comparing a page with its neighbours.

A block is a candidate when it sits in the top or bottom band of its page, is short and
is not set larger than the body text.
It is removed from the body when it is
- a bare page number ("12", "xiv", "Page 3", "- 7 -"),
- a line starting or ending with the page's own printed number (its PDF page label or
  physical number) ("Chapter 1: Creating R packages 14", "804 WWWusage"), or
- the same text (digits ignored) at about the same height on a page within two pages
  (p±1 for one-sided layouts, p±2 for alternating left/right headers).
Runs in the merge step over all pages, so it does not depend on how pages were split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from quire.shared.ir import RemovedText
from quire.workers.parse.pdf_types import PdfBlock, PdfPage

_BAND = 0.13  # top/bottom share of the page height where running text lives
_MAX_CHARS = 160
_PAGE_NUMBER = re.compile(
    r"^[\W_]*(?:page\s+)?(?:\d{1,5}|[ivxlcdm]{1,8})(?:\s*(?:of|/)\s*\d{1,5})?[\W_]*$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_ROMAN_TOKEN = re.compile(r"\b[ivxlcdm]{1,8}\b")
_TOKEN = re.compile(r"[^\s]+")

Zone = Literal["header", "footer"]


@dataclass
class _Candidate:
    page: int
    index: int  # position of the block in the page's block list
    zone: Zone
    text: str
    key: str
    y0: float


def _key(text: str) -> str:
    t = _DIGITS.sub("#", text.casefold())
    t = _ROMAN_TOKEN.sub("#", t)
    return " ".join(t.split())


def _candidates(page: PdfPage, body_size: float) -> list[_Candidate]:
    out: list[_Candidate] = []
    top, bottom = page.height * _BAND, page.height * (1 - _BAND)
    for i, b in enumerate(page.blocks):
        # running text is set at or below the body size; larger text is a title
        if b.kind != "text" or len(b.lines) > 2 or b.size > body_size * 1.15:
            continue
        text = " ".join(b.lines)
        if len(text) > _MAX_CHARS:
            continue
        zone: Zone | None = (
            "header" if b.bbox[3] <= top else ("footer" if b.bbox[1] >= bottom else None)
        )
        if zone is not None:
            out.append(_Candidate(page.page, i, zone, text, _key(text), b.bbox[1]))
    return out


def _carries_page_number(c: _Candidate, page: PdfPage) -> bool:
    """The page's number as the first or last word ("14", "804 WWWusage"); a number in
    the middle ("Chapter 2. The Filesystem" on page 2) is not enough."""
    tokens = [t.strip(".,:;()[]-–—|") for t in _TOKEN.findall(c.text)]
    numbers = {str(page.page)}
    if page.label:
        numbers.add(page.label)
    return len(tokens) > 1 and (tokens[0] in numbers or tokens[-1] in numbers)


def find_running_text(
    pages: list[PdfPage], body_size: float
) -> tuple[set[tuple[int, int]], list[RemovedText]]:
    """(page, block index) pairs to drop from the body, and what was dropped."""
    by_page = {p.page: p for p in pages}
    cands = {p.page: _candidates(p, body_size) for p in pages if p.skipped is None}
    drop: set[tuple[int, int]] = set()
    removed: list[RemovedText] = []
    for pno in sorted(cands):
        page = by_page[pno]
        for c in cands[pno]:
            kind: Literal["header", "footer", "page_number"] | None = None
            if _PAGE_NUMBER.match(c.text):
                kind = "page_number"
            elif _carries_page_number(c, page) or _repeated(c, cands):
                kind = c.zone
            if kind is not None:
                drop.add((pno, c.index))
                removed.append(RemovedText(page=pno, kind=kind, text=c.text))
    return drop, removed


def _repeated(c: _Candidate, cands: dict[int, list[_Candidate]]) -> bool:
    if len(c.key) < 2:
        return False
    for q in (c.page - 1, c.page + 1, c.page - 2, c.page + 2):
        for o in cands.get(q, ()):
            if o.zone == c.zone and o.key == c.key and abs(o.y0 - c.y0) <= 4:
                return True
    return False


def body_blocks(page: PdfPage, drop: set[tuple[int, int]]) -> list[PdfBlock]:
    return [b for i, b in enumerate(page.blocks) if (page.page, i) not in drop]
