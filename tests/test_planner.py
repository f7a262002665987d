"""The planner and its deciders: size rules, confirmed changes, forced cuts, validation of
decisions, the one-decision-at-a-time API, and properties over random documents."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from irgen import (
    build_doc,
    caption,
    code,
    documents,
    heading,
    image,
    outcome,
    outcomes_for,
    pages_of_paragraphs,
    para,
    plan_violations,
    table,
    words,
)

from quire.shared.errors import ValidationFailedError
from quire.shared.ir import CODE_LINE_WORDS, Document, Element, layout_words
from quire.shared.plan import Boundary, Candidate, Plan, PlanSettings, ReviewOutcome
from quire.workers.boundaries.candidates import safe_candidates
from quire.workers.boundaries.decisions import (
    BoundaryContext,
    Decider,
    Decision,
    HeuristicDecider,
    check_reason,
    continuity_support,
    validate_decision,
)
from quire.workers.boundaries.planner import (
    apply_decision,
    boundary_context,
    plan_document,
    plan_from_boundaries,
)
from quire.workers.boundaries.scoring import score_candidates

RULES = PlanSettings()


def scored(doc: Document) -> list[Candidate]:
    return score_candidates(doc, safe_candidates(doc))


def plan(
    doc: Document,
    outcomes: dict[str, ReviewOutcome] | None = None,
    decider: Decider | None = None,
    cands: list[Candidate] | None = None,
) -> Plan:
    cands = cands if cands is not None else scored(doc)
    result = plan_document(doc, cands, outcomes or {}, RULES, decider or HeuristicDecider())
    assert plan_violations(doc, cands, outcomes or {}, result) == []
    return result


def chapters(n: int, pages_each: int, per_page: int = 2) -> list[Element]:
    """n chapters of `pages_each` pages, each opening with a level-1 heading."""
    els: list[Element] = []
    for ch in range(n):
        first = 1 + ch * pages_each
        els.append(heading(f"Chapter {ch + 1} Topic {ch + 1}", 1, page=first))
        els += pages_of_paragraphs(pages_each, per_page=per_page, words_each=150, first_page=first)
    return els


class LongestDecider:
    """Cuts as late as the rules allow (the longest valid chunk)."""

    name = "longest"

    def decide(self, context: BoundaryContext) -> Decision:
        for c in reversed(context.candidates):
            support = [
                k.after_id for k in continuity_support(context, before=context.candidates.index(c))
            ]
            d = Decision(
                action="cut",
                element_id=c.after_id,
                decider=self.name,
                reason=f"longest allowed chunk: {c.pages:g} pages ending before "
                f"'{c.right_snippet[:30]}'",
                evidence=[c.after_id, *support],
            )
            try:
                return validate_decision(context, d)
            except ValidationFailedError:
                continue
        raise AssertionError("no valid cut")  # the first candidate is always valid


class ExtendingDecider:
    """Extends whenever the rules let it (so the hard cap forces cuts); else heuristic."""

    name = "extender"

    def decide(self, context: BoundaryContext) -> Decision:
        support = continuity_support(context)
        d = Decision(
            action="extend",
            decider=self.name,
            reason="reviewers found the same topic continuing past page 13 here",
            evidence=[k.after_id for k in support] or [context.start_id],
        )
        try:
            return validate_decision(context, d)
        except ValidationFailedError:
            return HeuristicDecider().decide(context)


class ChaoticDecider:
    """Any valid decision, chosen at random (seeded): the rules must hold for every decider
    that passes validation, not just for the heuristic."""

    name = "chaotic"

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def decide(self, context: BoundaryContext) -> Decision:
        rng = random.Random(f"{self.seed}-{context.start_id}")
        support = [k.after_id for k in continuity_support(context)]
        options = [
            Decision(
                action="cut",
                element_id=c.after_id,
                decider=self.name,
                reason=f"random valid cut number {i} at {c.pages:g} pages",
                evidence=[c.after_id, *support],
            )
            for i, c in enumerate(context.candidates)
        ]
        options.append(
            Decision(
                action="extend",
                decider=self.name,
                reason=f"random extension past {context.start_id}",
                evidence=support or [context.start_id],
            )
        )
        rng.shuffle(options)
        for d in options:
            try:
                return validate_decision(context, d)
            except ValidationFailedError:
                continue
        raise AssertionError("no valid decision")


# ---------------------------------------------------------------------------------------
# Plans of hand-built documents


def test_cuts_at_chapter_headings() -> None:
    doc = build_doc(chapters(5, 8))
    p = plan(doc)
    assert [c.pages for c in p.chunks] == [8.0] * 5
    assert [c.title for c in p.chunks] == [f"Topic {n}" for n in range(1, 6)]
    assert all(
        c.first_id == doc.elements[0].id or doc.by_id()[c.first_id].type == "heading"
        for c in p.chunks
    )
    reason = p.chunks[0].end_reason
    assert "level-1 heading 'Chapter 2 Topic 2' begins" in reason and "chunk 8 pages" in reason
    assert p.chunks[-1].end_reason == "end of document"
    assert {b.decider for b in p.boundaries} == {"heuristic"}
    assert all(b.revision is None and b.evidence for b in p.boundaries)


def test_uniform_text_is_cut_within_the_preferred_size() -> None:
    doc = build_doc(pages_of_paragraphs(61, per_page=3))
    p = plan(doc)
    assert all(5 <= c.pages <= 12 for c in p.chunks[:-1])
    assert sum(c.pages for c in p.chunks) == 61


def test_long_chapters_are_split_at_the_strongest_lower_heading() -> None:
    els: list[Element] = [heading("Chapter 1 Long", 1)]
    for sec in range(6):
        els.append(heading(f"1.{sec + 1} Section", 2, page=1 + sec * 4))
        els += pages_of_paragraphs(4, per_page=2, first_page=1 + sec * 4)
    doc = build_doc(els)
    p = plan(doc)
    assert all(5 <= c.pages <= 12 for c in p.chunks)
    assert all(doc.by_id()[c.first_id].type == "heading" for c in p.chunks)


def test_confirmed_change_is_cut_even_below_the_minimum() -> None:
    doc = build_doc(pages_of_paragraphs(10, per_page=2))
    cands = scored(doc)
    change = next(c for c in cands if c.after_id == "el-000004")  # end of page 2
    outcomes = {change.after_id: outcome(change, "confirmed_change")}
    p = plan(doc, outcomes, cands=cands)
    assert p.chunks[0].last_id == "el-000004" and p.chunks[0].pages == 2
    assert "reviewers confirmed a topic change" in p.chunks[0].end_reason
    assert "under the 5-page minimum" in p.chunks[0].end_reason
    # without the review, the 10-page document is one chunk
    assert len(plan(doc, {}, cands=cands).chunks) == 1


def test_confirmed_change_is_never_crossed_by_any_decider() -> None:
    doc = build_doc(pages_of_paragraphs(40, per_page=2))
    cands = scored(doc)
    confirmed = [c for c in cands if c.after_id in ("el-000030", "el-000040", "el-000041")]
    outcomes = {c.after_id: outcome(c, "confirmed_change") for c in confirmed}
    for decider in (HeuristicDecider(), LongestDecider(), ChaoticDecider(3)):
        p = plan(doc, outcomes, decider=decider, cands=cands)
        ends = {c.last_id for c in p.chunks}
        assert {"el-000030", "el-000040", "el-000041"} <= ends


def test_without_continuity_reviews_no_chunk_passes_13_pages() -> None:
    doc = build_doc(pages_of_paragraphs(60, per_page=2))
    p = plan(doc, decider=LongestDecider())
    assert max(c.pages for c in p.chunks) == 13
    assert "finishes the part" not in p.chunks[0].end_reason  # LongestDecider's own reason


def test_two_continuity_reviews_allow_up_to_the_hard_cap() -> None:
    doc = build_doc(pages_of_paragraphs(40, per_page=2))
    cands = scored(doc)
    # a candidate at page 13 of the first chunk, judged the same topic by two roles
    k = next(c for c in cands if c.after_id == "el-000026")
    p = plan(
        doc,
        {k.after_id: outcome(k, "continuity", ["transition", "continuity"])},
        decider=LongestDecider(),
        cands=cands,
    )
    assert p.chunks[0].pages == 20
    assert k.after_id in p.boundaries[0].evidence
    # one role is not enough
    p1 = plan(
        doc,
        {k.after_id: outcome(k, "continuity", ["continuity"])},
        decider=LongestDecider(),
        cands=cands,
    )
    assert p1.chunks[0].pages == 13


def test_extending_past_the_cap_forces_a_recorded_cut() -> None:
    doc = build_doc(pages_of_paragraphs(40, per_page=2))
    cands = scored(doc)
    k = next(c for c in cands if c.after_id == "el-000026")
    p = plan(doc, {k.after_id: outcome(k, "continuity")}, decider=ExtendingDecider(), cands=cands)
    first = p.boundaries[0]
    assert first.forced and first.decider == "forced"
    assert p.chunks[0].continues and not p.chunks[1].continues
    assert 13 < p.chunks[0].pages <= 20
    assert "hard cap 20 pages" in first.reason and "extender extended" in first.reason
    assert k.after_id in first.evidence


def test_an_indivisible_run_over_the_cap_is_its_own_chunk() -> None:
    els = pages_of_paragraphs(6, per_page=2)
    els.append(table([["k", "v"]] * 3, page=7, page_last=31))  # one 25-page table
    els += pages_of_paragraphs(8, per_page=2, first_page=32)
    doc = build_doc(els)
    p = plan(doc)
    big = [c for c in p.chunks if c.pages > 20]
    assert len(big) == 1 and big[0].first_id == big[0].last_id == doc.elements[12].id
    assert big[0].pages == 25


def test_a_headed_figure_with_caption_stays_together_even_over_the_cap() -> None:
    els = [
        para(words(100), page=1),
        heading("Figure gallery", 2, page=2),
        image("huge", page=2, page_last=24),
        caption("Figure 9: all of it", page=24),
        para(words(100), page=25),
    ]
    doc = build_doc(els)
    p = plan(doc)
    # heading, image and caption cannot be separated: one 23-page chunk
    assert [(c.first_id, c.last_id) for c in p.chunks] == [
        ("el-000001", "el-000001"),
        ("el-000002", "el-000004"),
        ("el-000005", "el-000005"),
    ]


def test_docx_sizes_are_words_over_400() -> None:
    els = [para(words(400, seed=i), page=1 + i) for i in range(30)]
    doc = build_doc(els, basis="words")
    p = plan(doc)
    assert all(c.pages == c.words / 400 for c in p.chunks)
    assert all(5 <= c.pages <= 12 for c in p.chunks[:-1])


def test_docx_pictures_take_the_pages_they_are_drawn_on() -> None:
    """A screenshot manual in DOCX: 200 words and a half-page picture per page. Counted by
    words alone, 30 such pages would be 15 and its sessions twice too long."""
    els: list[Element] = []
    for i in range(30):
        els.append(para(words(200, seed=i)))
        els.append(image(f"screenshot {i}").model_copy(update={"page_share": 0.5}))
    doc = build_doc(els, basis="words")
    p = plan(doc)
    assert sum(c.pages for c in p.chunks) == pytest.approx(30 + 30 * els[1].word_count / 400)
    assert all(5 <= c.pages <= 12 for c in p.chunks[:-1]) and len(p.chunks) >= 3
    assert all(c.words <= 12 * 200 + 30 for c in p.chunks)  # 12 pages hold 12 x 200 words


def test_a_listing_takes_a_line_of_the_page_for_each_of_its_lines() -> None:
    listing = code("\n".join(["x = 1"] * 50))  # 50 short lines: a page, not 101 words
    assert listing.word_count < 400 and layout_words(listing) == 50 * CODE_LINE_WORDS == 400
    prose = para(words(150))
    assert layout_words(prose) == 150


def test_tiny_and_empty_documents() -> None:
    empty = build_doc([])
    assert plan(empty).chunks == []
    one = build_doc([para("just one paragraph of text")])
    (chunk,) = plan(one).chunks
    assert chunk.title == "just one paragraph of text" and chunk.end_reason == "end of document"
    one_page = build_doc([heading("Only", 1), para("a"), para("b"), image("x")])
    assert len(plan(one_page).chunks) == 1


def test_chunk_titles() -> None:
    # a study session is titled by its top-level headings, without '#' marks and numbering
    doc = build_doc(
        [
            para("Intro words that open the book before any heading at all", 1),
            heading("3 Lists and data frames", 2, page=1),
            heading("3.1 Lists", 3),
        ]
    )
    assert doc.elements[1].text.startswith("## ")
    p = plan_from_boundaries(doc, RULES, [])
    assert p.chunks[0].title == "Lists and data frames"
    # no heading: the first words of the first element with words
    doc2 = build_doc([image(""), para("Intro words that open the book before any heading")])
    assert plan_from_boundaries(doc2, RULES, []).chunks[0].title == (
        "Intro words that open the book before any…"
    )
    doc3 = build_doc([image(""), table([["", ""]])])
    assert plan_from_boundaries(doc3, RULES, []).chunks[0].title == "Section 1"
    # prose before code, and a code block's words without its fences (french_doc's
    # sessions were "``` % This is french_doc.pdf …")
    doc4 = build_doc([code("\\def\\x{1}"), para("Words that say what follows")])
    assert plan_from_boundaries(doc4, RULES, []).chunks[0].title == "Words that say what follows"
    doc5 = build_doc([code("% This is french_doc.pdf\n\\def\\y{" + "x" * 200 + "}")])
    title = plan_from_boundaries(doc5, RULES, []).chunks[0].title
    assert title.startswith("% This is french_doc.pdf \\def") and "`" not in title
    assert len(title) <= 81


def test_heuristic_is_deterministic() -> None:
    doc = build_doc(chapters(3, 11) + pages_of_paragraphs(27, first_page=34))
    assert plan(doc) == plan(doc)


# ---------------------------------------------------------------------------------------
# One decision at a time


def test_stepwise_api_builds_the_same_plan() -> None:
    doc = build_doc(chapters(4, 9) + pages_of_paragraphs(15, first_page=37))
    cands = scored(doc)
    whole = plan_document(doc, cands, {}, RULES, HeuristicDecider())
    boundaries: list = []
    decider = HeuristicDecider()
    while (ctx := boundary_context(doc, cands, {}, RULES, boundaries)) is not None:
        assert ctx.chunk_number == len(boundaries) + 1
        boundaries = apply_decision(doc, cands, {}, RULES, boundaries, decider.decide(ctx))
    assert plan_from_boundaries(doc, RULES, boundaries) == whole
    with pytest.raises(ValidationFailedError, match="already complete"):
        apply_decision(
            doc,
            cands,
            {},
            RULES,
            boundaries,
            Decision(
                action="cut",
                element_id=cands[0].after_id,
                decider="agent",
                reason="chapter two begins after the summary table",
                evidence=[],
            ),
        )


def test_context_describes_the_window() -> None:
    doc = build_doc(pages_of_paragraphs(30, per_page=2))
    cands = scored(doc)
    ctx = boundary_context(doc, cands, {}, RULES, [])
    assert ctx is not None
    assert ctx.start_id == "el-000001" and ctx.start_page == 1 and ctx.chunk_number == 1
    assert ctx.remaining_pages == 30 and not ctx.reaches_end and ctx.may_extend
    assert [c.pages for c in ctx.candidates] == [float(p) for p in range(1, 21) for _ in (0, 1)]
    zones = {c.pages: c.zone for c in ctx.candidates}
    assert (zones[4], zones[5], zones[12], zones[13], zones[14], zones[20]) == (
        "below_min",
        "preferred",
        "preferred",
        "finish",
        "extended",
        "extended",
    )
    short = ctx.shortlist(5)
    assert len(short) == 5 and all(5 <= c.pages <= 12 for c in short)  # allowed, in range
    # the context survives JSON (what the CLI hands an external agent)
    assert BoundaryContext.model_validate_json(ctx.model_dump_json()) == ctx
    # the next window starts after the committed boundary
    b = apply_decision(
        doc,
        cands,
        {},
        RULES,
        [],
        Decision(
            action="cut",
            element_id="el-000024",
            decider="agent",
            reason="page 12 closes the worked example on vectors",
            evidence=["el-000024"],
        ),
    )
    ctx2 = boundary_context(doc, cands, {}, RULES, b)
    assert ctx2 is not None and ctx2.start_id == "el-000025" and ctx2.start_page == 13
    assert ctx2.reaches_end and ctx2.remaining_pages == 18  # pages 13..30
    assert not ctx2.may_extend and ctx2.last_visible_id == doc.elements[-1].id
    # a boundary that is not a candidate, or out of order, is refused
    with pytest.raises(ValidationFailedError):
        boundary_context(doc, cands, {}, RULES, [*b, b[0]])


def test_stale_decision_is_refused() -> None:
    doc = build_doc(pages_of_paragraphs(30, per_page=2))
    cands = scored(doc)
    ctx = boundary_context(doc, cands, {}, RULES, [])
    assert ctx is not None
    d = Decision(
        action="cut",
        element_id="el-000016",
        decider="agent",
        reason="page 8 closes the worked example on vectors",
        evidence=[],
        start_id="el-000009",
    )
    with pytest.raises(ValidationFailedError, match="starts at el-000001"):
        validate_decision(ctx, d)


# ---------------------------------------------------------------------------------------
# Validation of decisions


@pytest.fixture(scope="module")
def window() -> tuple[Document, list[Candidate]]:
    doc = build_doc(pages_of_paragraphs(40, per_page=2))
    return doc, scored(doc)


def _ctx(
    window: tuple[Document, list[Candidate]], outcomes: dict[str, ReviewOutcome] | None = None
) -> BoundaryContext:
    doc, cands = window
    ctx = boundary_context(doc, cands, outcomes or {}, RULES, [])
    assert ctx is not None
    return ctx


def cut(
    element_id: str,
    reason: str = "the section on vectors ends with its exercises",
    evidence: list[str] | None = None,
) -> Decision:
    return Decision(
        action="cut", element_id=element_id, reason=reason, evidence=evidence or [], decider="agent"
    )


@pytest.mark.parametrize(
    "reason",
    [
        "",
        "   ",
        "auto-cut",
        "cut here",
        "Cut here.",
        "topic change",
        "natural break",
        "good place to cut",
        "This is a good place to cut the chunk.",
        "new section starts here",
        "short",
        "{reason}",
        "Level-{level} heading '{title}' begins",
        "<reason>",
        "TODO: explain this boundary later",
        "The chapter ends here because...",
    ],
)
def test_generic_or_templated_reasons_are_refused(reason: str, window) -> None:
    with pytest.raises(ValidationFailedError):
        validate_decision(_ctx(window), cut("el-000016", reason=reason))


@pytest.mark.parametrize(
    "reason",
    [
        "level-1 heading 'Chapter 4 Lists' begins; change score 0.81; chunk 9 pages",
        "The discussion of factor levels ends and matrices begin",
        "page 8 closes the worked example on vectors",
    ],
)
def test_specific_reasons_pass(reason: str, window) -> None:
    d = validate_decision(_ctx(window), cut("el-000016", reason=reason))
    assert d.reason == reason
    assert check_reason(f"  {reason}  ") == reason


def test_cut_only_at_a_listed_candidate(window) -> None:
    ctx = _ctx(window)
    with pytest.raises(ValidationFailedError, match="not a listed safe candidate"):
        validate_decision(ctx, cut("el-000999"))  # not in the window
    with pytest.raises(ValidationFailedError, match="not a listed safe candidate"):
        validate_decision(ctx, cut("el-000041"))  # beyond the 20-page cap
    with pytest.raises(ValidationFailedError, match="needs element_id"):
        validate_decision(
            ctx, Decision(action="cut", reason="the vectors section ends", decider="agent")
        )
    with pytest.raises(ValidationFailedError, match="not in this window"):
        validate_decision(ctx, cut("el-000016", evidence=["el-000900"]))
    with pytest.raises(ValidationFailedError, match="no decider"):
        validate_decision(ctx, cut("el-000016").model_copy(update={"decider": " "}))


def test_page_13_needs_evidence_and_beyond_13_needs_two_continuity_reviews(window) -> None:
    ctx = _ctx(window)
    with pytest.raises(ValidationFailedError, match="cite the evidence"):
        validate_decision(ctx, cut("el-000026"))  # 13 pages, no evidence
    assert validate_decision(ctx, cut("el-000026", evidence=["el-000026"]))
    with pytest.raises(ValidationFailedError, match="two continuity reviews"):
        validate_decision(ctx, cut("el-000030", evidence=["el-000030"]))  # 15 pages
    _, cands = window
    k = next(c for c in cands if c.after_id == "el-000026")
    ok = _ctx(window, {k.after_id: outcome(k, "continuity", ["continuity", "adjudicator"])})
    with pytest.raises(ValidationFailedError, match="cite the continuity review"):
        validate_decision(ok, cut("el-000030", evidence=["el-000030"]))
    assert validate_decision(ok, cut("el-000030", evidence=["el-000026"]))
    # the support must lie before the cut and past the preferred maximum
    with pytest.raises(ValidationFailedError):
        validate_decision(ok, cut("el-000026", evidence=[]))
    early = next(c for c in cands if c.after_id == "el-000010")  # 5 pages: not past 12
    low = _ctx(window, {early.after_id: outcome(early, "continuity")})
    with pytest.raises(ValidationFailedError, match="there are none"):
        validate_decision(low, cut("el-000030", evidence=["el-000010"]))
    # same role twice is one review
    twice = _ctx(window, {k.after_id: outcome(k, "continuity", ["continuity", "continuity"])})
    with pytest.raises(ValidationFailedError):
        validate_decision(twice, cut("el-000030", evidence=["el-000026"]))


def test_extend_rules(window) -> None:
    doc, cands = window
    extend = Decision(
        action="extend",
        decider="agent",
        evidence=["el-000026"],
        reason="the exercises on vectors continue past page 13",
    )
    with pytest.raises(ValidationFailedError, match="continuity"):
        validate_decision(_ctx(window), extend)
    k = next(c for c in cands if c.after_id == "el-000026")
    supported = {k.after_id: outcome(k, "continuity")}
    assert validate_decision(_ctx(window, supported), extend)
    with pytest.raises(ValidationFailedError, match="needs evidence"):
        validate_decision(_ctx(window, supported), extend.model_copy(update={"evidence": []}))
    with pytest.raises(ValidationFailedError, match="no element_id"):
        validate_decision(
            _ctx(window, supported), extend.model_copy(update={"element_id": "el-000026"})
        )
    # a confirmed change in the window blocks extending
    c = next(c for c in cands if c.after_id == "el-000034")
    blocked = _ctx(window, {**supported, c.after_id: outcome(c, "confirmed_change")})
    assert blocked.must_cut_by == "el-000034" and not blocked.may_extend
    assert blocked.candidates[-1].after_id == "el-000034"  # the window stops there
    with pytest.raises(ValidationFailedError, match="cannot be crossed"):
        validate_decision(blocked, extend)
    # near the end of the document the rest must be cut, not extended
    tail = boundary_context(
        doc,
        cands,
        supported,
        RULES,
        [Boundary(after_id="el-000040", reason="test boundary at page 20", decider="test")],
    )
    assert tail is not None and tail.reaches_end
    with pytest.raises(ValidationFailedError, match="choose a cut"):
        validate_decision(tail, extend.model_copy(update={"evidence": ["el-000050"]}))


# ---------------------------------------------------------------------------------------
# Properties over random documents


@st.composite
def planned_inputs(draw: st.DrawFn) -> tuple[Document, list[Candidate], dict[str, ReviewOutcome]]:
    doc = draw(documents(max_elements=70))
    cands = scored(doc)
    return doc, cands, draw(outcomes_for(cands))


PROPERTY = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@PROPERTY
@given(planned_inputs())
def test_heuristic_plans_obey_every_rule(inputs) -> None:
    doc, cands, outcomes = inputs
    p = plan_document(doc, cands, outcomes, RULES, HeuristicDecider())
    assert plan_violations(doc, cands, outcomes, p) == []
    assert p == plan_document(doc, cands, outcomes, RULES, HeuristicDecider())  # deterministic


@PROPERTY
@given(planned_inputs(), st.integers(0, 10_000))
def test_any_valid_decider_obeys_every_rule(inputs, seed: int) -> None:
    doc, cands, outcomes = inputs
    for decider in (ChaoticDecider(seed), ExtendingDecider(), LongestDecider()):
        p = plan_document(doc, cands, outcomes, RULES, decider)
        assert plan_violations(doc, cands, outcomes, p) == []


@settings(max_examples=60, deadline=None)
@given(documents(max_elements=40), st.integers(0, 10_000))
def test_random_decisions_are_either_refused_or_safe(doc: Document, seed: int) -> None:
    """Feed arbitrary (often invalid) decisions through the stepwise API: invalid ones are
    refused with ValidationFailedError, and whatever is accepted still makes a sound plan."""
    cands = scored(doc)
    rng = random.Random(seed)
    ids = [e.id for e in doc.elements] + ["el-999999"]
    boundaries: list = []
    steps = 0
    while (ctx := boundary_context(doc, cands, {}, RULES, boundaries)) is not None:
        steps += 1
        assert steps < 10 * len(doc.elements) + 10
        d = Decision(
            action=rng.choice(["cut", "cut", "extend"]),
            element_id=rng.choice(ids),
            decider="fuzz",
            reason=rng.choice(["cut here", "vectors end and lists begin at this page"]),
            evidence=rng.sample(ids, k=rng.randint(0, 2)),
        )
        if d.action == "extend":
            d = d.model_copy(update={"element_id": None})
        try:
            boundaries = apply_decision(doc, cands, {}, RULES, boundaries, d)
        except ValidationFailedError:
            boundaries = apply_decision(
                doc, cands, {}, RULES, boundaries, HeuristicDecider().decide(ctx)
            )
    p = plan_from_boundaries(doc, RULES, boundaries)
    assert plan_violations(doc, cands, {}, p) == []
