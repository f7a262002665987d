"""The global planner: every boundary of a document chosen together, by dynamic programming.

The shape of Knuth–Plass line breaking, with sessions for lines. A plan is a set of cuts at
safe candidates; its cost is the sum over its sessions of

    SESSION + size cost(pages, kind, last) - value(the cut that ends it)

(integers; 1000 = one unit). The value of a cut is its evidence (`evidence.CutEvidence`:
heading level, numbering, change score, reviewer verdicts). Size costs: 5-12 pages free,
the 13th page `FINISH`, 14-20 pages `EXTENDED` and more per page, under the minimum `RUNT`
and more per missing page, except:

- a session that holds all the study text (free: the document is shorter than the minimum);
- a short session that closes its stretch of study text (the last one before the back
  matter, a confirmed change or the document's end, as a short last chapter is): it has
  no neighbour after it to join, so it is allowed (`CLOSING_RUNT`) when joining it to the
  session before would not be a feasible session (past 13 pages, say); when it would, that
  session before pays `RUNT` (a pair cost, charged to the earlier session of the two).
  Only in study text of `RUNT_AMONG` typical sessions or more, though, where it is one
  short session among many: in a shorter document it would be one in two or three (a
  15-page manual cut 13 + 2 for its last chapter rather than 8 + 7), so there it costs
  `RUNT` like any other, unless it is a chapter of its own (a major start) at most a page
  short: a 4-page last chapter keeps its session (12 + 4), as the runt rule allows;
- reference sessions (no minimum, but under half a page of words they are
  `TINY_REFERENCE`: join a neighbour; a little per page under the minimum, so that a
  region too long for one session leaves no sliver).
Hard rules, as for every decider (`decisions.validate_decision`):

- a confirmed topic change and the edges of front and back matter are always cut;
- a session over the hard cap holds no safe candidate (an indivisible run);
- a session over the soft maximum needs two continuity reviews (different roles) on a
  candidate inside it past the preferred maximum;
- the last session fits the preferred maximum unless it cannot be divided.

A chapter that begins a session or more after the previous one, and a change at the
analysis' strong-change score, are worth their own session (`evidence` module).

The optimum is exact: `best[S]` (the cheapest way to plan from block S to the end) is
`min over ends e of cost(S, e) + best[e + 1]`, filled from the end backwards; each start
looks only at the ends its window allows (up to the hard cap and the next mandatory cut),
vectorised with numpy: O(candidates x window). Ties go to the earliest end. The suffix
table also answers "where should a session that starts here end?" for any start, which is
the recommendation the agent loop's contexts carry.

Blocks: the K safe candidates split the elements into K + 1 blocks; block b ends at
candidate b (the last one at the document's end), and a session is a run of blocks S..e.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from quire.shared.ir import WORDS_PER_PAGE, Document, layout_words
from quire.shared.plan import (
    Alternative,
    Boundary,
    Candidate,
    ChunkKind,
    PlanSettings,
    ReviewOutcome,
)
from quire.workers.boundaries.evidence import cut_evidence, major_starts, quote
from quire.workers.boundaries.matter import MatterRegion, element_kinds
from quire.workers.boundaries.matter_plan import reference_matter

SESSION = 3000
FINISH = 800  # the 13th page, allowed to finish a concept
EXTENDED = 3000  # past the soft maximum (continuity reviews required) ...
EXTENDED_PER_PAGE = 400  # ... and per page beyond it
RUNT = 40_000  # a study session under the minimum ...
RUNT_PER_PAGE = 4000  # ... and per missing page
CLOSING_RUNT = 4000  # one that closes its stretch of study text (worth it for a chapter) ...
CLOSING_RUNT_PER_PAGE = 300  # ... and per missing page (plus RUNT if it could have joined)
RUNT_AMONG = 10  # ... in study text of this many typical sessions or more (else RUNT)
TINY_REFERENCE = 20_000  # a reference session of under half a page of words
REFERENCE_SHORT_PER_PAGE = 200  # per page a reference session is under the minimum: an
# index too long for one session is split with no sliver (5 + 8 pages, not 1 + 12); where
# a region is short itself, every plan pays the same
TINY_WORDS = WORDS_PER_PAGE // 2
INFEASIBLE = 1 << 50
UNIT = 1000  # cost and milli-page units

Ints = npt.NDArray[np.int64]
_KIND_CODE: dict[ChunkKind, int] = {"study": 0, "front_matter": 1, "back_matter": 2}
_KINDS: tuple[ChunkKind, ...] = ("study", "front_matter", "back_matter")


@dataclass(frozen=True)
class Choice:
    """A chosen cut, with the evidence for it and the best alternative it beat."""

    after_id: str
    reason: str
    evidence: list[str]
    alternative: Alternative | None


class GlobalPlanner:
    """One document's planning problem, solved once; ask it for the plan or for the best
    end of a session starting anywhere."""

    def __init__(
        self,
        doc: Document,
        candidates: Sequence[Candidate],
        outcomes: Mapping[str, ReviewOutcome],
        settings: PlanSettings,
        matter: Sequence[MatterRegion] | None = None,
    ) -> None:
        if not doc.elements:
            raise ValueError("an empty document has nothing to plan")
        self.doc = doc
        self.settings = settings
        els = doc.elements
        pos = {e.id: i for i, e in enumerate(els)}
        cands = sorted((c for c in candidates if c.after_id in pos), key=lambda c: pos[c.after_id])
        self.cands = cands
        self.matter = reference_matter(doc, cands, outcomes, matter, settings.min_pages)
        kinds = element_kinds(doc, self.matter)
        k = self.k = len(cands)
        ends = [pos[c.after_id] for c in cands] + [len(els) - 1]
        starts = [0] + [e + 1 for e in ends[:-1]]
        self.block_start = starts
        self.block_end = ends
        lo = np.empty(k + 1, np.int64)
        hi = np.empty(k + 1, np.int64)
        words = np.zeros(k + 2, np.int64)
        laid_out = np.zeros(k + 2, np.int64)  # `layout_words`: estimated pages' measure
        for b, (a, z) in enumerate(zip(starts, ends, strict=True)):
            part = els[a : z + 1]
            lo[b] = min(e.page_first for e in part)
            hi[b] = max(e.page_last for e in part)
            words[b + 1] = words[b] + sum(e.word_count for e in part)
            laid_out[b + 1] = laid_out[b] + sum(layout_words(e) for e in part)
        self.lo, self.hi, self.cum_words, self.cum_layout = lo, hi, words, laid_out
        self.words_basis = doc.page_basis == "words"
        self.kind = np.array([_KIND_CODE[kinds[a]] for a in starts], np.int64)
        major = major_starts(doc, settings.min_pages)
        self.evidence = [
            cut_evidence(
                c,
                outcomes.get(c.after_id),
                page=els[ends[b] + 1].page_first,
                page_break=els[ends[b] + 1].page_first > els[ends[b]].page_last,
                major=ends[b] + 1 in major,
                inside_reference=kinds[ends[b]] == kinds[ends[b] + 1] != "study",
            )
            for b, c in enumerate(cands)
        ]
        self.edge = [kinds[ends[b]] != kinds[ends[b] + 1] for b in range(k)]
        self.edge_label: dict[int, str] = {}  # element index a cut follows -> region label
        for r in self.matter:
            self.edge_label[pos[r.first_id] - 1] = r.label
            self.edge_label[pos[r.last_id]] = r.label
        must = [ev.confirmed or edge for ev, edge in zip(self.evidence, self.edge, strict=True)]
        self.value = np.array([ev.value for ev in self.evidence] + [0], np.int64)
        # the first and last blocks of study text: a session from one to the other holds it all
        study_blocks = np.flatnonzero(self.kind == 0)
        self.first_study = int(study_blocks[0]) if len(study_blocks) else 0
        self.last_study = int(study_blocks[-1]) if len(study_blocks) else k
        # first mandatory cut at or after each block (K: none before the end)
        self.next_must = np.full(k + 2, k, np.int64)
        for b in range(k - 1, -1, -1):
            self.next_must[b] = b if must[b] else self.next_must[b + 1]
        self.next_cont = np.full(k + 2, k + 1, np.int64)
        for b in range(k - 1, -1, -1):
            self.next_cont[b] = b if self.evidence[b].continuity_support else self.next_cont[b + 1]
        s = settings
        self.min_m = round(s.minimum(estimated=self.words_basis) * UNIT)
        self.max_m = round(s.max_pages * UNIT)
        self.soft_m, self.hard_m = round(s.soft_max_pages * UNIT), round(s.hard_max_pages * UNIT)
        # for each start: the first candidate supporting a session past the soft maximum
        self.support = np.full(k + 2, k + 1, np.int64)
        self.best = np.zeros(k + 2, np.int64)
        self.choice = np.full(k + 1, k, np.int64)
        self.runts_among_many = self._runts_among_many(kinds)
        # blocks that begin at a chapter (a major start): a short closing chapter of its own
        self.major_start = np.array(
            [False] + [ev.major for ev in self.evidence] + [False], np.bool_
        )
        self._find_closing_runts(must)
        self._solve()

    # --- sizes and costs ---------------------------------------------------------------

    def _pages_forward(self, start: int, last: int) -> Ints:
        """Milli-pages of the sessions start..e for e in start..last."""
        if self.words_basis:
            w = self.cum_layout[start + 1 : last + 2] - self.cum_layout[start]
            return (w * UNIT) // WORDS_PER_PAGE
        hi = np.maximum.accumulate(self.hi[start : last + 1])
        lo = np.minimum.accumulate(self.lo[start : last + 1])
        return (hi - lo + 1) * UNIT

    def _pages_backward(self, first: int, end: int) -> Ints:
        """Milli-pages of the sessions s..end for s in first..end."""
        if self.words_basis:
            w = self.cum_layout[end + 1] - self.cum_layout[first : end + 1]
            return (w * UNIT) // WORDS_PER_PAGE
        hi = np.maximum.accumulate(self.hi[first : end + 1][::-1])[::-1]
        lo = np.minimum.accumulate(self.lo[first : end + 1][::-1])[::-1]
        return (hi - lo + 1) * UNIT

    def _costs(self, start: Ints, end: Ints, pages: Ints) -> Ints:
        """Cost of each session start[i]..end[i] of `pages[i]` milli-pages (INFEASIBLE
        where a rule forbids it). `start`, `end`, `pages` broadcast together."""
        study = self.kind[start] == 0
        size = self._oversize(pages)
        short = np.maximum(self.min_m - pages, 0)
        whole = (start <= self.first_study) & (end >= self.last_study)  # all the study text
        closing = end == self.next_must[start]  # the stretch of study text ends with it
        runt = np.where(
            closing, self._closing_runt_cost(start, short), RUNT + RUNT_PER_PAGE * short // UNIT
        )
        size = np.where(study & (short > 0), np.where(whole, 0, runt), size)
        words = self.cum_words[end + 1] - self.cum_words[start]
        size = np.where(~study & (words < TINY_WORDS), size + TINY_REFERENCE, size)
        size = np.where(study, size, size + REFERENCE_SHORT_PER_PAGE * short // UNIT)
        cost = SESSION + size - self.value[end]
        return np.where(self._allowed(start, end, pages), cost, INFEASIBLE)

    def _allowed(
        self, start: Ints, end: Ints, pages: Ints, last_rule: bool = True
    ) -> npt.NDArray[np.bool_]:
        """Which sessions start[i]..end[i] of `pages[i]` milli-pages the hard rules allow
        (`last_rule`: with the one for the document's last session)."""
        single = end == start
        bad = self.next_must[start] < end
        bad |= (pages > self.hard_m) & ~single
        bad |= (pages > self.soft_m) & ~single & ~(self.support[start] < end)
        if last_rule:
            bad |= (end == self.k) & (pages > self.max_m) & ~single
        return ~bad

    # --- the optimum ---------------------------------------------------------------------

    def _window(self, start: int, guess: int) -> tuple[Ints, int]:
        """Milli-pages of start..e for every end e the rules may allow, and the last e."""
        bound = int(self.next_must[start])
        while True:
            last = min(bound, start + guess)
            pages = self._pages_forward(start, last)
            if last == bound or pages[-1] > self.hard_m:
                break
            guess *= 2
        # ends past the hard cap are never allowed (but the first end always is)
        cut = max(int(np.searchsorted(pages, self.hard_m, side="right")), 1)
        return pages[:cut], start + cut - 1

    def _oversize(self, pages: Ints) -> Ints:
        """The size cost of sessions past the preferred maximum (0 up to it)."""
        return np.where(
            pages <= self.max_m,
            0,
            np.where(
                pages <= self.soft_m,
                FINISH,
                EXTENDED + EXTENDED_PER_PAGE * (pages - self.soft_m) // UNIT,
            ),
        )

    def _interior_sizes(self, pages: Ints) -> Ints:
        """Size costs of study sessions that are not the last one (the common case)."""
        if self._size_table is not None:  # PDF: whole pages, so a lookup
            return self._size_table[np.minimum(pages // UNIT, len(self._size_table) - 1)]
        short = np.maximum(self.min_m - pages, 0)
        return np.where(short > 0, RUNT + RUNT_PER_PAGE * short // UNIT, self._oversize(pages))

    def _runts_among_many(self, kinds: Sequence[ChunkKind]) -> bool:
        """Whether the study text spans `RUNT_AMONG` sessions of a typical size (midway
        between the minimum and the preferred maximum) or more."""
        study = [e for e, kind in zip(self.doc.elements, kinds, strict=True) if kind == "study"]
        if self.words_basis:
            pages = sum(layout_words(e) for e in study) / WORDS_PER_PAGE
        else:
            pages = len({p for e in study for p in range(e.page_first, e.page_last + 1)})
        typical = (self.settings.min_pages + self.settings.max_pages) / 2
        return pages >= RUNT_AMONG * typical

    def _closing_runt_cost(self, start: Ints | int, short: Ints | int) -> Ints:
        """The size cost of a short session start.. closing its stretch, `short` milli-pages
        under the minimum: `CLOSING_RUNT` among many sessions (`_runts_among_many`) or for
        a chapter of its own (a major start) under a page short, else `RUNT`."""
        missing = np.asarray(short)
        cheap = self.runts_among_many | (self.major_start[start] & (missing <= UNIT))
        return np.where(
            cheap,
            CLOSING_RUNT + CLOSING_RUNT_PER_PAGE * missing // UNIT,
            RUNT + RUNT_PER_PAGE * missing // UNIT,
        )

    def _find_closing_runts(self, must: Sequence[bool]) -> None:
        """The blocks e after which the study text runs on to its next mandatory cut (or
        the end) in under the minimum (`_closed`, ascending), the block that short session
        ends at (`_closing_end`) and its size (`_closing_pages`). Walks back from every
        stretch end while the tail stays short."""
        k = self.k
        found: list[tuple[int, int, int]] = []
        for m in sorted({int(x) for x in self.next_must[: k + 1]}):
            lo, hi, b = int(self.lo[m]), int(self.hi[m]), m
            while b > 0 and not must[b - 1] and self.kind[b] == 0:
                if self.words_basis:
                    milli = (self.cum_layout[m + 1] - self.cum_layout[b]) * UNIT // WORDS_PER_PAGE
                else:
                    lo, hi = min(lo, int(self.lo[b])), max(hi, int(self.hi[b]))
                    milli = (hi - lo + 1) * UNIT
                if milli >= self.min_m:
                    break
                found.append((b - 1, m, int(milli)))
                b -= 1
        found.sort()
        self._closed = np.array([f[0] for f in found], np.int64)
        self._closing_end = np.array([f[1] for f in found], np.int64)
        self._closing_pages = np.array([f[2] for f in found], np.int64)

    def _joinable_runts(self, start: int, last: int) -> tuple[Ints, Ints]:
        """(ends, pair costs) of the sessions start..end (end <= last) after which a short
        session closes the stretch, where joining that one to them is a feasible session:
        the runt could have been avoided."""
        a, b = (int(x) for x in np.searchsorted(self._closed, [start, last + 1]))
        ends = self._closed[a:b]
        if not len(ends) or self.kind[start] != 0:
            return ends[:0], ends[:0]
        closing = self._closing_end[a:b]
        joined = self._pages_forward(start, int(closing.max()))[closing - start]
        # the runt rule's "joining would pass 13 pages": the last session's 12 do not count
        feasible = self._allowed(np.full(len(ends), start, np.int64), closing, joined, False)
        short = self.min_m - self._closing_pages[a:b]
        return ends, np.where(feasible, RUNT + RUNT_PER_PAGE * short // UNIT, 0)

    def _joinable_runts_before(self, first: int, end: int) -> Ints:
        """The pair costs of the sessions s..end for s in first..end (see
        `_joinable_runts`): all 0 unless a short session closes the stretch after `end`."""
        out = np.zeros(end - first + 1, np.int64)
        at = int(np.searchsorted(self._closed, end))
        if at == len(self._closed) or self._closed[at] != end:
            return out
        closing = int(self._closing_end[at])
        joined = self._pages_backward(first, closing)[: end - first + 1]
        starts = np.arange(first, end + 1, dtype=np.int64)
        feasible = self._allowed(starts, np.full(len(starts), closing, np.int64), joined, False)
        short = self.min_m - int(self._closing_pages[at])
        pair = RUNT + RUNT_PER_PAGE * short // UNIT
        return np.where(feasible & (self.kind[starts] == 0), pair, out)

    def _solve(self) -> None:
        k = self.k
        self._size_table: Ints | None = None
        if not self.words_basis:
            whole = np.arange(0, self.doc.page_count + 2, dtype=np.int64) * UNIT
            self._size_table = self._interior_sizes(whole)
        guess = 64
        for start in range(k, -1, -1):
            pages, last = self._window(start, guess)
            n = len(pages)
            guess = n + 32
            over = int(np.searchsorted(pages, self.max_m, side="right"))  # first end past max
            if over < n:
                self.support[start] = self.next_cont[start + over]
            if self.kind[start] == 0 and last < self.last_study:
                # an interior study session: the general rules reduce to these
                total = self._interior_sizes(pages) - self.value[start : last + 1]
                total += self.best[start + 1 : last + 2] + SESSION
                soft = max(int(np.searchsorted(pages, self.soft_m, side="right")), 1)
                unsupported = min(int(self.support[start]) - start + 1, n)
                if unsupported > soft:  # past the soft maximum without continuity support
                    total[soft:unsupported] = INFEASIBLE
                closing = int(self.next_must[start]) - start  # a closing runt, if short
                if closing < n and pages[closing] < self.min_m:
                    short = int(self.min_m - pages[closing])
                    total[closing] += int(self._closing_runt_cost(start, short))
                    total[closing] -= RUNT + RUNT_PER_PAGE * short // UNIT
            else:
                ends = np.arange(start, last + 1, dtype=np.int64)
                starts = np.full(n, start, np.int64)
                total = self._costs(starts, ends, pages) + self.best[ends + 1]
            ends, pair = self._joinable_runts(start, last)
            total[ends - start] += pair
            at = int(np.argmin(total))
            self.best[start] = min(int(total[at]), INFEASIBLE)
            self.choice[start] = start + at

    def cuts(self, start: int = 0) -> list[int]:
        """The optimal cuts (block indexes) of the rest of the document from `start`."""
        out = []
        while (end := int(self.choice[start])) < self.k:
            out.append(end)
            start = end + 1
        return out

    @property
    def cost(self) -> int:
        return int(self.best[0])

    # --- explanations --------------------------------------------------------------------

    def _pages_text(self, milli: int) -> str:
        pages = milli / UNIT
        return f"{pages:.0f}" if not self.words_basis else f"{pages:.1f}"

    def _session_text(self, milli: int) -> str:
        pages = self._pages_text(milli)
        return f"session of {pages} page{'' if pages == '1' else 's'}"

    def _alternative(self, start: int, cut: int, nxt: int) -> Alternative | None:
        """The best other end for the session start..cut when the next one ends at `nxt`:
        another cut in between, or none at all."""
        fwd_pages = self._pages_forward(start, nxt)
        ends = np.arange(start, nxt + 1, dtype=np.int64)
        fwd = self._costs(np.full(len(ends), start, np.int64), ends, fwd_pages)
        back_pages = self._pages_backward(start + 1, nxt)
        starts = np.arange(start + 1, nxt + 1, dtype=np.int64)
        back = self._costs(starts, np.full(len(starts), nxt, np.int64), back_pages)
        ends, pair = self._joinable_runts(start, nxt)  # the pair costs, as in the optimum
        fwd[ends - start] += pair
        back += self._joinable_runts_before(start + 1, nxt)
        base = int(fwd[cut - start]) + int(back[cut - start])
        options: list[tuple[int, int, int]] = []  # (extra cost, distance, end; -1: no cut)
        for j in range(start, nxt):
            if j != cut and fwd[j - start] < INFEASIBLE and back[j - start] < INFEASIBLE:
                options.append((int(fwd[j - start] + back[j - start]) - base, abs(j - cut), j))
        if fwd[-1] < INFEASIBLE:  # no cut: one session from start to nxt
            options.append((int(fwd[-1]) - base, 1 << 30, -1))
        if not options:
            return None
        extra, _, j = min(options)
        if j < 0:
            return Alternative(
                after_id=None,
                page=self.evidence[cut].page,
                snippet=self.evidence[cut].snippet[:80],
                why=f"no cut: one session of {self._pages_text(int(fwd_pages[-1]))} pages",
                extra_cost=round(extra / UNIT, 3),
            )
        ev = self.evidence[j]
        first = self._pages_text(int(fwd_pages[j - start]))
        second = self._pages_text(int(back_pages[j - start]))
        return Alternative(
            after_id=ev.after_id,
            page=ev.page,
            snippet=ev.snippet[:80],
            why=f"{', '.join(ev.signals()[:2])}; sessions of {first} and {second} pages",
            extra_cost=round(extra / UNIT, 3),
        )

    def explain(self, start: int, cut: int, nxt: int) -> Choice:
        """Why the session start..cut ends at `cut` (the next one ending at `nxt`)."""
        ev = self.evidence[cut]
        size = int(self._pages_forward(start, cut)[-1])
        signals = ev.signals()
        if self.edge[cut]:
            before, after = _KINDS[int(self.kind[start])], _KINDS[int(self.kind[cut + 1])]
            label = self.edge_label.get(self.block_end[cut], "reference matter")
            signals.insert(0, _edge_text(before, after, label))
        alternative = self._alternative(start, cut, nxt)
        reason = (
            f"cut before {ev.what()} on p. {ev.page}: {'; '.join(signals)}; "
            f"{self._session_text(size)}"
        )
        if alternative is None:
            reason += "; a mandatory cut" if self.edge[cut] or ev.confirmed else ""
        elif alternative.after_id is None:
            reason += f"; rather than {alternative.why} (plan cost +{alternative.extra_cost:.2f})"
        else:
            reason += (
                f"; rather than before '{quote(alternative.snippet, 60)}' on p. {alternative.page}"
                f" ({alternative.why}; plan cost +{alternative.extra_cost:.2f})"
            )
        support = []
        if size > self.soft_m and int(self.support[start]) < cut:
            support = [self.cands[int(self.support[start])].after_id]
        return Choice(
            after_id=ev.after_id,
            reason=reason,
            evidence=list(
                dict.fromkeys([ev.after_id, ev.before_id, *support, *ev.review_evidence])
            ),
            alternative=alternative,
        )

    def boundaries(self) -> list[Boundary]:
        """The optimal plan's boundaries, each with its reason and alternative."""
        cuts = self.cuts()
        out = []
        start = 0
        for i, cut in enumerate(cuts):
            nxt = cuts[i + 1] if i + 1 < len(cuts) else self.k
            c = self.explain(start, cut, nxt)
            out.append(
                Boundary(
                    after_id=c.after_id,
                    reason=c.reason,
                    decider="global",
                    evidence=c.evidence,
                    alternative=c.alternative,
                )
            )
            start = cut + 1
        return out

    def block_of_start(self, element: int) -> int:
        """The block that begins at element index `element` (a session start)."""
        at = bisect.bisect_left(self.block_start, element)
        if at > self.k or self.block_start[at] != element:
            raise ValueError(f"element {element} does not begin a block")
        return at

    def recommend(self, element: int) -> Choice | None:
        """The global plan's end for a session that begins at element index `element`;
        None when the rest of the document is best one session."""
        start = self.block_of_start(element)
        cut = int(self.choice[start])
        if cut >= self.k:
            return None
        return self.explain(start, cut, int(self.choice[cut + 1]))


def _edge_text(before: ChunkKind, after: ChunkKind, label: str) -> str:
    if before == "front_matter":
        return f"front matter ({label}) ends"
    if after == "back_matter":
        return f"back matter ({label}) begins"
    if before == "back_matter":
        return f"back matter ({label}) ends"
    return f"{after.replace('_', ' ')} ({label}) begins"
