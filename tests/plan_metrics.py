"""How well a plan follows a book: chapter starts honoured, and the naive outline splitter
the planner is held against (shared by bench/bench_plan.py and the corpus tests)."""

from __future__ import annotations

import itertools
import math

from quire.shared.ir import Document
from quire.shared.plan import Plan, PlanSettings
from quire.workers.boundaries.candidates import is_safe_gap

PageRange = tuple[int, int]


def chapter_starts(doc: Document, gap: float = 5) -> list[int]:
    """Pages of top-level outline entries at least `gap` pages after the previous counted
    one (the first entry counts)."""
    entries = [o for o in doc.outline if o.page >= 1]
    if not entries:
        return []
    top = min(o.level for o in entries)
    pages: list[int] = []
    for o in entries:
        if o.level == top and (not pages or o.page - pages[-1] >= gap):
            pages.append(o.page)
    return pages


def honoured(doc: Document, starts: set[int]) -> tuple[int, int]:
    """(chapter starts with a session starting on their page or the next, chapter starts)."""
    chapters = chapter_starts(doc)
    return sum(1 for p in chapters if p in starts or p + 1 in starts), len(chapters)


def plan_ranges(plan: Plan) -> list[PageRange]:
    return [(c.page_first, c.page_last) for c in plan.chunks]


def naive_split(doc: Document, rules: PlanSettings | None = None) -> list[PageRange]:
    """Cut at every top-level outline entry, split long chapters evenly into pieces of at
    most `max_pages`, merge pieces under `min_pages` into the next (the last into the one
    before). Page ranges: its cuts fall at arbitrary page breaks."""
    rules = rules or PlanSettings()
    starts = sorted({1, *chapter_starts(doc, gap=0)})
    bounds = [*starts, doc.page_count + 1]
    pieces: list[list[int]] = []
    for a, b in itertools.pairwise(bounds):
        n = b - a
        if n <= 0:
            continue
        k = math.ceil(n / rules.max_pages)
        edges = [a + round(i * n / k) for i in range(k + 1)]
        pieces += [[x, y - 1] for x, y in itertools.pairwise(edges)]
    merged: list[list[int]] = []
    carry: list[int] | None = None
    for p in pieces:
        if carry is not None:
            p = [carry[0], p[1]]
            carry = None
        if p[1] - p[0] + 1 < rules.min_pages:
            carry = p
        else:
            merged.append(p)
    if carry is not None:
        if merged:
            merged[-1][1] = carry[1]
        else:
            merged.append(carry)
    return [(a, b) for a, b in merged]


def safe_page_cuts(doc: Document, ranges: list[PageRange]) -> int:
    """How many cuts between page ranges fall at a safe candidate: no element spans the
    page break, and the gap there is safe."""
    els = doc.elements
    safe = 0
    for _, last in ranges[:-1]:
        before = [i for i, e in enumerate(els) if e.page_first <= last]
        if not before:
            continue
        i = before[-1]
        if i + 1 < len(els) and els[i].page_last <= last and is_safe_gap(els[i], els[i + 1]):
            safe += 1
    return safe
