"""The stepwise planner: chunk boundaries chosen one decision at a time among safe candidates.

    plan_document = repeat { boundary_context -> decider.decide -> validate -> apply }

The state is just the list of boundaries chosen so far, so the same steps serve an external
agent (CLI `boundary-context` / `commit-boundary`, MCP) and the previous greedy batch
planner (any `Decider`). Unattended runs use `plan_globally` below. Each context
an agent reads carries the global plan's choice for that boundary as its recommendation.

Sizes are pages: for PDFs the span of physical pages a chunk touches, for DOCX words / 400
(a picture counts as the words that would fill the space it is drawn in).
The window offered for one chunk runs from its first element up to the hard cap, and stops
at the first confirmed topic change (which is never crossed). If even the first safe cut
lies beyond the hard cap, the stretch before it cannot be divided and is offered alone:
only such an indivisible run may make a chunk larger than the cap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from quire.shared.errors import ValidationFailedError
from quire.shared.ir import WORDS_PER_PAGE, Document, Element, layout_words
from quire.shared.plan import (
    Boundary,
    Candidate,
    ChunkKind,
    ChunkPlan,
    Plan,
    PlanSettings,
    ReviewOutcome,
    ReviewRole,
)
from quire.shared.text import count_words
from quire.workers.boundaries.candidates import plain_text
from quire.workers.boundaries.decisions import (
    BoundaryContext,
    ContextCandidate,
    Decider,
    Decision,
    Recommendation,
    _strength,
    continuity_support,
    validate_decision,
)
from quire.workers.boundaries.evidence import quote
from quire.workers.boundaries.global_plan import GlobalPlanner
from quire.workers.boundaries.matter import MatterRegion, element_kinds, find_matter
from quire.workers.boundaries.matter_plan import matter_edges, reference_matter
from quire.workers.boundaries.matter_titles import book_language, reference_title
from quire.workers.boundaries.session_titles import study_titles

TITLE_WORDS = 8
FALLBACK_TITLE_CHARS = 80  # a first-words title (a session titled by headings: 100)
_PROSE = ("paragraph", "list", "caption")  # a fallback title's words come from these first


class _Index:
    """Lookups shared by every step of one plan (built once per document)."""

    def __init__(
        self,
        doc: Document,
        candidates: Sequence[Candidate],
        outcomes: Mapping[str, ReviewOutcome],
        settings: PlanSettings,
    ) -> None:
        self.doc = doc
        self.settings = settings
        self.outcomes = outcomes
        self.candidates = candidates
        self._global: GlobalPlanner | None = None
        self._regions: list[MatterRegion] | None = None
        self._edges: set[int] | None = None
        self.els = doc.elements
        self.pos = {e.id: i for i, e in enumerate(self.els)}
        self.words_basis = doc.page_basis == "words"
        self.cum_words = [0]
        self.cum_layout = [0]  # `layout_words`: what estimated pages are measured in
        for e in self.els:
            self.cum_words.append(self.cum_words[-1] + e.word_count)
            self.cum_layout.append(self.cum_layout[-1] + layout_words(e))
        cands = sorted(
            (c for c in candidates if c.after_id in self.pos), key=lambda c: self.pos[c.after_id]
        )
        self.cands = cands
        self.cand_pos = [self.pos[c.after_id] for c in cands]
        self.by_after = {c.after_id: k for k, c in enumerate(cands)}
        # Page span of every suffix, so "the rest of the document" costs O(1).
        n = len(self.els)
        self.tail_lo = [0] * (n + 1)
        self.tail_hi = [0] * (n + 1)
        self.tail_lo[n] = 1 << 30
        for i in range(n - 1, -1, -1):
            self.tail_lo[i] = min(self.tail_lo[i + 1], self.els[i].page_first)
            self.tail_hi[i] = max(self.tail_hi[i + 1], self.els[i].page_last)

    def regions(self) -> list[MatterRegion]:
        """The front and back matter the plan keeps apart."""
        if self._regions is None:
            self._regions = reference_matter(
                self.doc, self.candidates, self.outcomes, min_pages=self.settings.min_pages
            )
        return self._regions

    def edges(self) -> set[int]:
        """Element indexes after which front or back matter begins or ends."""
        if self._edges is None:
            self._edges = matter_edges(self.doc, self.regions())
        return self._edges

    def recommend(self, start: int) -> Recommendation | None:
        """The global plan's cut for a chunk starting at element `start` (solved once)."""
        if self._global is None:
            self._global = GlobalPlanner(
                self.doc, self.candidates, self.outcomes, self.settings, matter=self.regions()
            )
        choice = self._global.recommend(start)
        if choice is None:
            return None
        return Recommendation(
            after_id=choice.after_id,
            reason=choice.reason,
            evidence=choice.evidence,
            alternative=choice.alternative,
        )

    def remaining_pages(self, first: int) -> float:
        """Size in pages from element `first` to the end of the document."""
        if self.words_basis:
            return (self.cum_layout[-1] - self.cum_layout[first]) / WORDS_PER_PAGE
        return float(self.tail_hi[first] - self.tail_lo[first] + 1)

    def start_of(self, boundaries: Sequence[Boundary]) -> int:
        """Index of the first element not yet in a chunk; checks the boundaries."""
        previous = -1
        for b in boundaries:
            if b.after_id not in self.by_after:
                raise ValidationFailedError(f"boundary after {b.after_id} is not a safe candidate")
            at = self.pos[b.after_id]
            if at <= previous:
                raise ValidationFailedError(f"boundary after {b.after_id} is out of order")
            previous = at
        return previous + 1


def _first_candidate_at_or_after(ix: _Index, start: int) -> int:
    lo, hi = 0, len(ix.cand_pos)
    while lo < hi:
        mid = (lo + hi) // 2
        if ix.cand_pos[mid] < start:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _context(
    ix: _Index, boundaries: Sequence[Boundary], agent: bool = False, recommend: bool = False
) -> BoundaryContext | None:
    """The context of the next decision. For an agent (`agent`), a tail that fits one
    chunk is still offered when front or back matter begins or ends in it, and with
    `recommend` the context carries the global plan's choice (the greedy planner of old
    does neither)."""
    s = ix.settings
    start = ix.start_of(boundaries)
    n = len(ix.els)
    if start >= n:
        return None
    first_k = _first_candidate_at_or_after(ix, start)
    remaining = ix.remaining_pages(start)
    confirmed_ahead = (
        any(
            (o := ix.outcomes.get(c.after_id)) is not None and o.decision == "confirmed_change"
            for c in ix.cands[first_k:]
        )
        or (agent and any(at in ix.edges() for at in ix.cand_pos[first_k:]))
        if remaining <= s.max_pages
        else True
    )
    # Nothing left to decide: no safe cut left, or a tail that fits and has no confirmed
    # change (nor, for an agent, an edge of front or back matter) in it.
    if first_k >= len(ix.cands) or (remaining <= s.max_pages and not confirmed_ahead):
        return None
    window, must_cut_by = _window(ix, start, first_k)
    reaches_end = must_cut_by is None and remaining <= s.hard_max_pages
    last = window[-1]
    last_visible = ix.els[-1].id if reaches_end else last.before_id
    may_extend = must_cut_by is None and not reaches_end
    recommendation = ix.recommend(start) if recommend else None
    if recommendation is not None and not any(
        c.after_id == recommendation.after_id for c in window
    ):
        recommendation = None  # cannot happen with the same rules; never offer what is unlisted
    return BoundaryContext(
        doc_id=ix.doc.doc_id,
        page_basis=ix.doc.page_basis,
        chunk_number=len(boundaries) + 1,
        start_id=ix.els[start].id,
        start_page=ix.els[start].page_first,
        last_visible_id=last_visible,
        remaining_pages=remaining,
        reaches_end=reaches_end,
        must_cut_by=must_cut_by,
        may_extend=may_extend,
        rules=s,
        candidates=window,
        recommendation=recommendation,
    )


def _window(ix: _Index, start: int, first_k: int) -> tuple[list[ContextCandidate], str | None]:
    """The candidates a decision starting at element `start` may choose from, up to the
    hard maximum or the first confirmed change (which must be cut by, and is returned)."""
    s = ix.settings
    window: list[ContextCandidate] = []
    must_cut_by: str | None = None
    words_basis = ix.words_basis
    lo_page = ix.els[start].page_first
    hi_page = 0
    scanned = start
    for k in range(first_k, len(ix.cands)):
        c = ix.cands[k]
        at = ix.cand_pos[k]
        if words_basis:
            pages = (ix.cum_layout[at + 1] - ix.cum_layout[start]) / WORDS_PER_PAGE
        else:  # running min/max of the page span, without rescanning the window
            for e in ix.els[scanned : at + 1]:
                lo_page = min(lo_page, e.page_first)
                hi_page = max(hi_page, e.page_last)
            scanned = at + 1
            pages = float(hi_page - lo_page + 1)
        if pages > s.hard_max_pages and window:
            break
        outcome = ix.outcomes.get(c.after_id)
        window.append(
            _context_candidate(
                c,
                pages,
                ix.cum_words[at + 1] - ix.cum_words[start],
                s,
                outcome,
                page_break=ix.els[at + 1].page_first > ix.els[at].page_last,
                estimated=words_basis,
            )
        )
        if outcome is not None and outcome.decision == "confirmed_change":
            must_cut_by = c.after_id
            break
        if pages > s.hard_max_pages:
            break
    return window, must_cut_by


def _context_candidate(
    c: Candidate,
    pages: float,
    words: int,
    s: PlanSettings,
    outcome: ReviewOutcome | None,
    page_break: bool,
    estimated: bool = False,
) -> ContextCandidate:
    change: list[ReviewRole] = []
    same: list[ReviewRole] = []
    evidence: list[str] = []
    if outcome is not None:
        for v in outcome.votes:
            (change if v.verdict == "new_topic" else same).append(v.role)
            evidence.extend(v.evidence_left + v.evidence_right)
    # Internal data, already validated: construct without re-validating (hot path).
    return ContextCandidate.model_construct(
        after_id=c.after_id,
        before_id=c.before_id,
        pages=pages,
        words=words,
        zone=s.zone(pages, estimated),
        score=c.score,
        ends_type=c.ends_type,
        begins_type=c.begins_type,
        heading_level=c.heading_level,
        numbering=c.numbering,
        left_snippet=c.left_snippet,
        right_snippet=c.right_snippet,
        page_break=page_break,
        review=outcome.decision if outcome else None,
        change_roles=sorted(set(change)),
        continuity_roles=sorted(set(same)),
        review_evidence=list(dict.fromkeys(evidence)),
    )


def _apply(
    ix: _Index, context: BoundaryContext, boundaries: Sequence[Boundary], decision: Decision
) -> list[Boundary]:
    decision = validate_decision(context, decision)
    if decision.action == "cut":
        assert decision.element_id is not None
        rec = context.recommendation
        boundary = Boundary(
            after_id=decision.element_id,
            reason=decision.reason,
            decider=decision.decider,
            evidence=list(decision.evidence),
            backend_fallback=decision.backend_fallback,
            # the global plan's choice: what it beat is what this cut beat
            alternative=rec.alternative if rec and rec.after_id == decision.element_id else None,
        )
    else:
        boundary = _forced_cut(context, decision)
    return [*boundaries, boundary]


def _forced_cut(context: BoundaryContext, decision: Decision) -> Boundary:
    """The decider wanted to go on, but the hard cap forbids it: cut at the strongest safe
    candidate after the continuity review it cited (preferably past the soft maximum), and
    say that the next chunk continues this one."""
    rules = context.rules
    cited = set(decision.evidence)
    support = [
        k
        for k in continuity_support(context)
        if cited & {k.after_id, k.before_id, *k.review_evidence}
    ]
    pool = context.candidates
    if support:
        after = 1 + next(
            i for i, c in enumerate(context.candidates) if c.after_id == support[0].after_id
        )
        pool = context.candidates[after:] or [support[0]]
    late = [c for c in pool if c.pages > rules.soft_max_pages]
    best = max(late or pool, key=lambda c: (round(_strength(c), 6), c.pages))
    size = f"{best.pages:.0f}" if context.page_basis != "words" else f"{best.pages:.1f}"
    reason = (
        f"hard cap {rules.hard_max_pages:g} pages: {decision.decider} extended the chunk "
        f"({decision.reason}); forced cut at the strongest safe candidate before the cap, "
        f"'{best.right_snippet[:60]}' (change score {best.score:.2f}, chunk {size} pages); "
        "the next chunk continues this concept"
    )
    return Boundary(
        after_id=best.after_id,
        reason=reason,
        decider="forced",
        evidence=list(dict.fromkeys([*decision.evidence, best.after_id, best.before_id])),
        forced=True,
    )


# ---------------------------------------------------------------------------------------
# Public steps


def boundary_context(
    doc: Document,
    candidates: Sequence[Candidate],
    outcomes: Mapping[str, ReviewOutcome],
    settings: PlanSettings,
    boundaries_so_far: Sequence[Boundary],
) -> BoundaryContext | None:
    """What the decider must decide next (with the global plan's recommendation), or None
    when the plan is complete."""
    ix = _Index(doc, candidates, outcomes, settings)
    return _context(ix, boundaries_so_far, agent=True, recommend=True)


def apply_decision(
    doc: Document,
    candidates: Sequence[Candidate],
    outcomes: Mapping[str, ReviewOutcome],
    settings: PlanSettings,
    boundaries_so_far: Sequence[Boundary],
    decision: Decision,
) -> list[Boundary]:
    """The boundaries after `decision` (validated against the current context): one more
    boundary, forced at the hard cap when the decision was to extend."""
    ix = _Index(doc, candidates, outcomes, settings)
    context = _context(ix, boundaries_so_far, agent=True)
    if context is None:
        raise ValidationFailedError("the plan is already complete; nothing to decide")
    return _apply(ix, context, boundaries_so_far, decision)


def plan_document(
    doc: Document,
    candidates: Sequence[Candidate],
    outcomes: Mapping[str, ReviewOutcome],
    settings: PlanSettings,
    decider: Decider,
    *,
    guided: bool = False,
) -> Plan:
    """The whole plan, one validated decision at a time. `guided`: the decider sees the
    contexts an agent sees, each with the global plan's choice as its recommendation (after
    it overrules one, the recommendations are the optimum from where it cut); without, the
    greedy planner of old."""
    ix = _Index(doc, candidates, outcomes, settings)
    boundaries: list[Boundary] = []
    while (context := _context(ix, boundaries, agent=guided, recommend=guided)) is not None:
        boundaries = _apply(ix, context, boundaries, decider.decide(context))
    return plan_from_boundaries(doc, settings, boundaries, matter=ix.regions() if guided else None)


def plan_globally(
    doc: Document,
    candidates: Sequence[Candidate],
    outcomes: Mapping[str, ReviewOutcome],
    settings: PlanSettings,
) -> Plan:
    """The optimal plan (see `global_plan`), every cut explained: the planner of every
    unattended run."""
    if not doc.elements:
        return plan_from_boundaries(doc, settings, [], matter=[])
    planner = GlobalPlanner(doc, candidates, outcomes, settings)
    return plan_from_boundaries(doc, settings, planner.boundaries(), matter=planner.matter)


def plan_from_boundaries(
    doc: Document,
    settings: PlanSettings,
    boundaries: Sequence[Boundary],
    *,
    matter: Sequence[MatterRegion] | None = None,
) -> Plan:
    """The chunks that `boundaries` cut `doc` into, each with its kind (front and back
    matter from `matter`, found in `doc` when not given)."""
    els = doc.elements
    pos = {e.id: i for i, e in enumerate(els)}
    regions = list(find_matter(doc) if matter is None else matter)
    kinds = element_kinds(doc, regions)
    chunks: list[ChunkPlan] = []
    first = 0
    ends: list[tuple[int, Boundary | None]] = [(pos[b.after_id], b) for b in boundaries]
    if els:
        ends.append((len(els) - 1, None))
    for number, (last, boundary) in enumerate(ends, 1):
        part = els[first : last + 1]
        chunks.append(
            sized_chunk(
                doc,
                part,
                number,
                title=chunk_title(part, number),
                end_reason=boundary.reason if boundary else "end of document",
                end_decider=boundary.decider if boundary else "end",
                continues=bool(boundary and boundary.forced),
                kind=_chunk_kind(kinds[first : last + 1], part),
                end_alternative=_alternative_text(boundary),
            )
        )
        first = last + 1
    chunks = study_titles(doc, chunks)
    if regions:
        chunks = _matter_titles(chunks, regions, pos, book_language(doc.elements))
    return Plan(doc_id=doc.doc_id, settings=settings, boundaries=list(boundaries), chunks=chunks)


def _chunk_kind(kinds: Sequence[ChunkKind], part: Sequence[Element]) -> ChunkKind:
    """The kind holding most of the chunk's words (study on a tie: a chunk that mixes
    matter and study text is studied)."""
    words: dict[ChunkKind, int] = {}
    for kind, e in zip(kinds, part, strict=True):
        words[kind] = words.get(kind, 0) + max(e.word_count, 1)
    best = max(words.values())
    return "study" if words.get("study", 0) == best else max(words, key=lambda k: words[k])


def _alternative_text(boundary: Boundary | None) -> str | None:
    alt = boundary.alternative if boundary else None
    if alt is None:
        return None
    if alt.after_id is None:
        return f"{alt.why} (plan cost +{alt.extra_cost:.2f})"
    return (
        f"before '{quote(alt.snippet, 60)}' on p. {alt.page}: {alt.why} "
        f"(plan cost +{alt.extra_cost:.2f})"
    )


def _matter_titles(
    chunks: list[ChunkPlan],
    regions: Sequence[MatterRegion],
    pos: Mapping[str, int],
    language: str,
) -> list[ChunkPlan]:
    """Reference sessions are titled by what they hold ("Index", "Index, part 2 of 7"),
    in the book's language, not by their first line."""
    spans = [(pos[r.first_id], pos[r.last_id], r.label) for r in regions]
    owner: dict[int, int] = {}  # chunk number -> region index
    for c in chunks:
        if c.kind == "study":
            continue
        at = pos[c.first_id]
        found = next((i for i, (a, b, _) in enumerate(spans) if a <= at <= b), None)
        if found is not None:
            owner[c.number] = found
    counts: dict[int, int] = {}
    for region in owner.values():
        counts[region] = counts.get(region, 0) + 1
    seen: dict[int, int] = {}
    out = []
    for c in chunks:
        if c.number not in owner:
            out.append(c)
            continue
        region = owner[c.number]
        seen[region] = seen.get(region, 0) + 1
        title = reference_title(spans[region][2], seen[region], counts[region], language)
        out.append(c.model_copy(update={"title": title}))
    return out


def sized_chunk(doc: Document, part: Sequence[Element], number: int, **fields: Any) -> ChunkPlan:
    """Chunk `number` holding `part`, its size measured (pages by the document's page
    basis); `fields` give the rest (title, why it ends, ...). The planner and a repair's
    split measure alike."""
    words = sum(e.word_count for e in part)
    page_first = min(e.page_first for e in part)
    page_last = max(e.page_last for e in part)
    if doc.page_basis == "words":
        pages = sum(layout_words(e) for e in part) / WORDS_PER_PAGE
    else:
        pages = float(page_last - page_first + 1)
    return ChunkPlan(
        number=number,
        first_id=part[0].id,
        last_id=part[-1].id,
        page_first=page_first,
        page_last=page_last,
        pages=round(pages, 3),
        words=words,
        **fields,
    )


def chunk_title(part: Sequence[Element], number: int) -> str:
    """The first heading's text; else the first words of the first paragraph, list or
    caption, else of any element with words (a code block's without its fences); else
    "Section N". (A study session is then titled by its headings: `study_titles`.)"""
    for e in part:
        if e.type == "heading":
            text = plain_text(e)
            if text:
                return text
    prose = [e for e in part if e.type in _PROSE]
    for e in [*prose, *(e for e in part if e.type not in _PROSE)]:
        words = [w for w in plain_text(e).split() if not w.startswith("```")]
        if count_words(" ".join(words)):
            title = " ".join(words[:TITLE_WORDS])
            if len(title) > FALLBACK_TITLE_CHARS:  # a line of code is one long "word"
                return title[:FALLBACK_TITLE_CHARS].rstrip() + "…"
            return title + ("…" if len(words) > TITLE_WORDS else "")
    return f"Section {number}"
