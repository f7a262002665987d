"""Printed page labels -> physical PDF pages: where an index locator ("xiv", "45") points.

The labels come from the PDF's page labels when it has them (PyMuPDF `page.get_label()`:
"i", "ii", ..., "1", "2", or "T-1"); otherwise from the page numbers the parser removed
as running text (`Document.removed`): each page whose printed number was seen gives it,
and pages between two seen ones in the same numbering take the offset they share (a
book numbers its pages from the first chapter: printed 1 is physical 17). A label no page
shows resolves through the most common offset of its kind (arabic or roman) when that
lands inside the document. Digits of any script count as ASCII ("۱۲۱" is 121).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from quire.shared.ir import RemovedText
from quire.workers.analysis.book_index import ascii_digits

_ROMAN = re.compile(r"^[ivxlcdm]{1,8}$")
_ARABIC = re.compile(r"^\d{1,5}$")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_EDGE_NUMBER = re.compile(r"^(\d{1,5}|[ivxlcdm]{1,8})(?:\s|$)|(?:^|\s)(\d{1,5}|[ivxlcdm]{1,8})$")


def roman_value(text: str) -> int | None:
    """ "xiv" -> 14 (lower-case roman numerals only), else None."""
    if not _ROMAN.match(text):
        return None
    total = 0
    values = [_ROMAN_VALUES[c] for c in text]
    for a, b in zip(values, [*values[1:], 0], strict=True):
        total += -a if a < b else a
    return total if total > 0 else None


def fold_label(label: str) -> str:
    return ascii_digits(label.strip()).casefold()


def _kind_value(label: str) -> tuple[str, int] | None:
    if _ARABIC.match(label):
        return "arabic", int(label)
    value = roman_value(label)
    return ("roman", value) if value else None


@dataclass
class PageLabels:
    page_count: int
    by_label: dict[str, list[int]] = field(default_factory=dict)  # folded label -> pages
    offsets: dict[str, int] = field(default_factory=dict)  # kind -> physical - printed

    def pages(self, label: str) -> list[int]:
        """The physical pages printed `label` (several when a book numbers twice)."""
        key = fold_label(label)
        if key in self.by_label:
            return self.by_label[key]
        kv = _kind_value(key)
        if kv and kv[0] in self.offsets:
            page = kv[1] + self.offsets[kv[0]]
            if 1 <= page <= self.page_count:
                return [page]
        return []

    def span(self, first: str, last: str | None) -> list[int]:
        """The physical pages of a locator: one page, or every page of a range."""
        start = self.pages(first)
        if not start:
            return []
        if not last:
            return start[:1]
        end = [p for p in self.pages(last) if p >= start[0]]
        if not end or end[0] - start[0] > MAX_RANGE_PAGES:
            return start[:1]
        return list(range(start[0], end[0] + 1))


MAX_RANGE_PAGES = 60  # a longer "range" is a misread: keep its first page


def _printed_numbers(removed: Sequence[RemovedText]) -> dict[int, str]:
    """Page -> its printed number, from the removed page numbers and, where a page has
    none, from a number opening or closing its running header or footer, when it agrees
    with the offset the other pages share (a header's "3 Ordered arrays" is no page 3)."""
    sure: dict[int, str] = {}
    maybe: dict[int, list[str]] = {}
    for r in removed:
        text = fold_label(r.text)
        if r.kind == "page_number" and _kind_value(text):
            sure.setdefault(r.page, text)
        elif r.kind in ("header", "footer"):
            found = [g for m in _EDGE_NUMBER.finditer(text) for g in m.groups() if g]
            maybe.setdefault(r.page, []).extend(n for n in found if _kind_value(n))
    guessed = Counter((_kind_value(n), p) for p, ns in maybe.items() for n in ns)
    offsets = _offsets_of(Counter({(kv[0], p - kv[1]): k for (kv, p), k in guessed.items() if kv}))
    offsets |= _offsets(sure)
    for page, numbers in maybe.items():
        for n in numbers:
            kv = _kind_value(n)
            if page not in sure and kv and offsets.get(kv[0]) == page - kv[1]:
                sure[page] = n
    return sure


def _offsets(printed: dict[int, str]) -> dict[str, int]:
    """Kind -> the most common (physical - printed) offset."""
    seen: Counter[tuple[str, int]] = Counter()
    for page, label in printed.items():
        kv = _kind_value(label)
        if kv:
            seen[(kv[0], page - kv[1])] += 1
    return _offsets_of(seen)


def _offsets_of(seen: Counter[tuple[str, int]]) -> dict[str, int]:
    best: dict[str, tuple[int, int]] = {}  # kind -> (count, offset)
    for (kind, offset), n in sorted(seen.items()):
        if n > best.get(kind, (0, 0))[0]:
            best[kind] = (n, offset)
    return {kind: offset for kind, (_, offset) in best.items()}


def page_labels(
    page_count: int, pdf_labels: Sequence[str] = (), removed: Sequence[RemovedText] = ()
) -> PageLabels:
    """The labels of a document's pages: the PDF's own, else the printed page numbers."""
    if any(pdf_labels):
        printed = {i: fold_label(lab) for i, lab in enumerate(pdf_labels, 1) if lab.strip()}
    else:
        printed = _printed_numbers(removed)
    out = PageLabels(page_count, offsets=_offsets(printed))
    for page, label in sorted(printed.items()):
        out.by_label.setdefault(label, []).append(page)
    return out
