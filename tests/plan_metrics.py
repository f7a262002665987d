"""How well a plan follows a book: chapter starts honoured, the naive outline splitter the
planner is held against, the page-level oracle (what the size rules allow at best), runts
and reference sessions that hold chapters (shared by bench/bench_plan.py and the tests)."""

from __future__ import annotations

import itertools
import math

from quire.shared.ir import Document
from quire.shared.plan import Plan, PlanSettings
from quire.workers.boundaries.candidates import is_safe_gap
from quire.workers.boundaries.matter import chapters_after_contents, find_matter, matter_entries

PageRange = tuple[int, int]


def chapter_starts(doc: Document, gap: float = 5, *, matter: bool = False) -> list[int]:
    """Pages of top-level outline entries at least `gap` pages after the previous counted
    one (the first entry counts). An entry that names front or back matter ("Contents",
    "List of Figures", "Index", `matter.matter_entries`) is no chapter, unless `matter`
    (the naive splitter cuts at every entry)."""
    entries = [o for o in doc.outline if o.page >= 1]
    if not entries:
        return []
    top = min(o.level for o in entries)
    entries = [o for o in entries if o.level == top]
    named = matter_entries(entries) if not matter else [False] * len(entries)
    pages: list[int] = []
    for o, skip in zip(entries, named, strict=True):
        if not skip and (not pages or o.page - pages[-1] >= gap):
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
    starts = sorted({1, *chapter_starts(doc, gap=0, matter=True)})
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


def oracle_honoured(doc: Document, rules: PlanSettings | None = None) -> tuple[int, int]:
    """(chapter starts honoured, chapter starts) by the best cut of the pages into sessions
    that the size rules allow, free to cut at any page break whatever the text there:
    reference sessions (the document's front and back matter) of up to `soft_max_pages`
    pages, study sessions of `min_pages`-`soft_max_pages` pages but for a stretch of study
    pages shorter than that (one session) and a short session closing a stretch when the
    session before it could not take it in (the two together pass `soft_max_pages`).
    Sessions may share a page (a cut inside it), which both count, as the planner does."""
    rules = rules or PlanSettings()
    chapters = chapter_starts(doc)
    marks = set(chapters)
    n = doc.page_count
    lo, hi = math.ceil(rules.min_pages), math.floor(rules.soft_max_pages)
    fixed, reference = _matter_bounds(doc)

    def honours(s: int, e: int) -> int:  # the chapter before page e, by a session at e
        # (none after the document's end: a chapter on the last page needs its own session)
        return int(e - 1 in marks and e - 1 > s and e <= n)

    # best[s]: chapters on pages >= s honoured, a session starting at s (`never` where no
    # session may start); tail[s]: the same for a short session from s closing its stretch
    never = -(1 << 30)
    best, tail = [never] * (n + 2), [never] * (n + 2)
    best[n + 1] = 0
    bounds = sorted(p for p in fixed if 1 <= p <= n + 1)
    for x, y in reversed(list(itertools.pairwise(bounds))):
        for s in range(y - 1, x - 1, -1):
            here = int(s in marks)
            if x in reference or y - x < lo:  # no minimum / one session
                ends = range(s + 1, min(s + hi, y) + 1) if x in reference else range(y, y + 1)
                if x in reference or s == x:
                    best[s] = here + max(honours(s, e) + best[e] for e in ends)
                continue
            if y - s < lo:
                tail[s] = here + honours(s, y) + best[y]
                continue
            options = [honours(s, y) + best[y]] if y - s <= hi else []
            for e in range(s + lo - 1, min(s + hi, y - 1) + 1):
                if best[e] > never:
                    options.append(honours(s, e) + best[e])
                elif y - s > hi:  # a closing runt the session before could not take in
                    options.append(honours(s, e) + tail[e])
            best[s] = here + max(options, default=never)
    return max(best[1], 0), len(chapters)


def _matter_bounds(doc: Document) -> tuple[set[int], set[int]]:
    """(pages a session must start on: 1, the end, the edges of front and back matter;
    the first pages of front and back matter). Matter that ends on the page it begins on
    (title and contents above the first chapter) is no stretch of its own: the pages from
    there on are study text, with its minimum, not reference pages without one."""
    els = doc.elements
    n = doc.page_count
    pos = {e.id: i for i, e in enumerate(els)}
    fixed, reference = {1, n + 1}, set()
    for r in find_matter(doc):
        last = pos[r.last_id]
        a = els[pos[r.first_id]].page_first
        b = els[last + 1].page_first if last + 1 < len(els) else n + 1
        fixed |= {a, b}
        if b > a:
            reference.add(a)
    return fixed, reference


def runts(
    ranges: list[PageRange], study: list[bool], rules: PlanSettings | None = None
) -> list[PageRange]:
    """Study sessions under the minimum that the rule does not allow: joining one to a
    neighbouring study session would not pass the soft maximum, and the study text as a
    whole is not shorter than the minimum."""
    rules = rules or PlanSettings()
    spans = [r for r, st in zip(ranges, study, strict=True) if st]
    if not spans or spans[-1][1] - spans[0][0] + 1 < rules.min_pages:
        return []
    out = []
    for i, (a, b) in enumerate(ranges):
        if not study[i] or b - a + 1 >= rules.min_pages:
            continue
        for j in (i - 1, i + 1):
            if 0 <= j < len(ranges) and study[j]:
                x, y = ranges[j]
                if max(b, y) - min(a, x) + 1 <= rules.soft_max_pages:
                    out.append((a, b))
                    break
    return out


def chapters_in_matter(
    doc: Document, ranges: list[PageRange], study: list[bool]
) -> list[tuple[int, str]]:
    """The chapters the outline places after the contents (`matter.chapters_after_contents`)
    that a reference session holds: it covers their page, and no session begins on it
    after."""
    held = []
    for page, title in chapters_after_contents(doc):
        for i, (a, b) in enumerate(ranges):
            if study[i] or not a <= page <= b or (a == page and i > 0):
                continue
            later = any(x == page for x, _ in ranges[i + 1 :])
            if not later:
                held.append((page, title))
                break
    return held
