"""Split-only repair: repair context, deciders (heuristic, LLM over the wire, agent choice
validation), the split's invariants (hypothesis over generated documents), and unaffected
chunks keeping their files and analyses."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quire.shared.analysis import ChunkAnalysis
from quire.shared.errors import BackendError, ValidationFailedError
from quire.shared.ir import Document, dump_ir
from quire.shared.plan import Plan, PlanSettings
from quire.shared.settings import load_settings
from quire.workers.analysis import (
    HeuristicRepairDecider,
    RepairChoice,
    analyse_chunk,
    build_context,
    carry_analyses,
    make_repair_decider,
    repair_context,
    split_chunk,
    unaffected_chunks,
    validate_repair_choice,
)
from quire.workers.analysis.repair import stays_whole
from quire.workers.boundaries.candidates import is_safe_gap, safe_candidates
from quire.workers.boundaries.decisions import HeuristicDecider
from quire.workers.boundaries.planner import plan_document
from quire.workers.boundaries.scoring import score_candidates
from quire.workers.llm import make_backend
from quire.workers.verify import verify_output
from quire.workers.verify.plan import check_plan, ranges_from_plan
from quire.workers.write import save_files, write_all
from quire.workers.write.markdown import FRONT_CLOSE
from tests.analysisfix import good_analysis, sample_candidates, sample_doc, sample_plan
from tests.irgen import documents
from tests.llm_servers import FakeProvider, answer

DOC = sample_doc()
SCORES = {"el-000006": 0.93, "el-000008": 0.3, "el-000009": 0.6, "el-000011": 0.2}
CANDS = sample_candidates(DOC, SCORES)
WHOLE = sample_plan(DOC, ())  # one 15-page chunk holding all three chapters
THREE = sample_plan(DOC)


def ranges(plan: Plan) -> list[tuple[int, str, str]]:
    return [(c.number, c.first_id, c.last_id) for c in plan.chunks]


# --- context and validation --------------------------------------------------------------


def test_repair_context_lists_safe_cuts_strictly_inside() -> None:
    # With a 1-page minimum every safe cut strictly inside is listed: not after headings
    # (el-000001, 4, 7, 10, 12), not at the chunk's end (el-000014).
    loose = WHOLE.model_copy(update={"settings": PlanSettings(min_pages=1)})
    ctx = repair_context(DOC, loose, CANDS, 1, why="two chapters")
    ids = [c.after_id for c in ctx.candidates]
    assert ids == [
        "el-000002",
        "el-000003",
        "el-000005",
        "el-000006",
        "el-000008",
        "el-000009",
        "el-000011",
        "el-000013",
    ]
    first = ctx.candidates[3]
    assert (first.pages_before, first.pages_after, first.score) == (5.0, 10.0, 0.93)
    assert first.heading_level == 1 and first.right_snippet == "2 Matrices"


def test_repair_context_lists_only_cuts_that_leave_the_minimum_on_both_sides() -> None:
    ctx = repair_context(DOC, WHOLE, CANDS, 1)  # 15 pages, minimum 5
    assert [(c.after_id, c.pages_before, c.pages_after) for c in ctx.candidates] == [
        ("el-000006", 5.0, 10.0),
        ("el-000008", 7.0, 8.0),
        ("el-000009", 9.0, 6.0),
    ]
    assert ctx.held_back == 5  # el-000002, 3, 5 (too little before), 11, 13 (after)
    # chunk 2 of THREE (pages 6-9) has one safe cut inside, leaving 2 and 2 pages
    inner = repair_context(DOC, THREE, CANDS, 2)
    assert inner.candidates == [] and inner.held_back == 1
    assert "stays whole" in stays_whole(inner) and "under 5 pages" in stays_whole(inner)
    with pytest.raises(ValidationFailedError, match="stays whole"):
        HeuristicRepairDecider().decide(inner)


def test_split_refuses_a_piece_under_the_minimum() -> None:
    for after_id in ("el-000002", "el-000011"):  # 1|14 and 11|4 pages
        with pytest.raises(ValidationFailedError, match="both pieces must keep at least 5"):
            split_chunk(DOC, WHOLE, 1, after_id, "vectors end and matrices begin here", "agent")
    agent = repair_context(DOC, WHOLE, CANDS, 1)
    with pytest.raises(ValidationFailedError, match="leave 5 pages or more on both sides"):
        validate_repair_choice(
            agent,
            RepairChoice(
                after_id="el-000013", reason="the regression fit ends here", decider="agent"
            ),
        )


def test_validate_repair_choice() -> None:
    ctx = repair_context(DOC, WHOLE, CANDS, 1)
    ok = validate_repair_choice(
        ctx,
        RepairChoice(
            after_id="el-000006",
            reason="  vectors chapter ends;   Matrices chapter begins ",
            decider="agent",
        ),
    )
    assert ok.reason == "vectors chapter ends; Matrices chapter begins"
    for after_id, reason, decider, message in [
        ("el-000007", "vectors end and matrices begin here", "agent", "not a listed cut"),
        ("el-000014", "vectors end and matrices begin here", "agent", "not a listed cut"),
        ("el-000006", "split here", "agent", "too short"),
        ("el-000006", "natural break: a good place to split the chunk", "agent", "generic"),
        ("el-000006", "vectors end and matrices begin here", " ", "no decider"),
    ]:
        with pytest.raises(ValidationFailedError, match=message):
            validate_repair_choice(
                ctx, RepairChoice(after_id=after_id, reason=reason, decider=decider)
            )


def test_a_chunk_without_inner_cuts_cannot_be_repaired() -> None:
    one = sample_doc().model_copy(update={"elements": sample_doc().elements[:2]})
    ctx = repair_context(one, sample_plan(one, ()), safe_candidates(one), 1)
    assert ctx.candidates == []
    with pytest.raises(ValidationFailedError, match="no safe cut"):
        HeuristicRepairDecider().decide(ctx)


def test_heuristic_decider_prefers_a_strong_heading_near_the_middle() -> None:
    choice = HeuristicRepairDecider().decide(repair_context(DOC, WHOLE, CANDS, 1))
    assert choice.after_id == "el-000006" and choice.decider == "heuristic"
    assert "level-1 heading '2 Matrices'" in choice.reason and "5 and 10 pages" in choice.reason
    # Without scores the balance decides: the heading nearest the middle (pages 1-9 | 10-15).
    flat = repair_context(DOC, WHOLE, sample_candidates(DOC), 1)
    assert HeuristicRepairDecider().decide(flat).after_id == "el-000009"


# --- LLM decider over the wire -----------------------------------------------------------


def test_llm_decider_must_answer_a_listed_id(provider: FakeProvider) -> None:
    ctx = repair_context(DOC, WHOLE, CANDS, 1, why="vectors, matrices and regression")
    good = {"after_id": "el-000009", "reason": "matrix chapter ends; linear regression begins"}
    provider.enqueue(answer({**good, "after_id": "el-000007"}), answer(good))
    choice = make_repair_decider(provider.kind, env=load_settings()).decide(ctx)
    assert choice.after_id == "el-000009" and choice.decider == provider.kind
    first = provider.requests[0].body["messages"][-1]["content"]
    assert "el-000006 | 0.93 | 5/10 | 2 Matrices (level-1 heading)" in first
    assert "vectors, matrices and regression" in first
    again = provider.requests[1].body["messages"][-1]["content"]
    assert "el-000007 is not a listed cut inside chunk 1" in again


def test_llm_decider_without_a_valid_choice_falls_back_to_the_heuristic(
    provider: FakeProvider,
) -> None:
    provider.default = answer({"after_id": "el-000001", "reason": "after the first heading"})
    context = repair_context(DOC, WHOLE, CANDS, 1)
    choice = make_repair_decider(provider.kind, env=load_settings()).decide(context)
    heuristic = HeuristicRepairDecider().decide(context)
    assert (choice.after_id, choice.decider) == (heuristic.after_id, "heuristic")
    assert choice.reason.startswith(heuristic.reason) and "no valid repair choice" in choice.reason
    assert len(provider.requests) == 3
    strict = make_repair_decider(make_backend(provider.kind, env=load_settings(), strict=True))
    with pytest.raises(BackendError, match="no valid repair choice"):
        strict.decide(context)


# --- the split ---------------------------------------------------------------------------


def test_split_makes_two_chunks_and_renumbers_later_ones() -> None:
    # vectors+matrices | regression; a 4-page minimum lets the 9 pages split into 5 + 4
    plan = sample_plan(DOC, ("el-000009",), PlanSettings(min_pages=4))
    new = split_chunk(
        DOC, plan, 1, "el-000006", "vectors chapter ends; Matrices begins", "heuristic"
    )
    assert ranges(new) == [
        (1, "el-000001", "el-000006"),
        (2, "el-000007", "el-000009"),
        (3, "el-000010", "el-000014"),
    ]
    first, second, third = new.chunks
    # both pieces are titled by their own headings (numbering left out)
    assert first.title == "Vectors and assignment" and second.title == "Matrices"
    assert first.end_reason == "vectors chapter ends; Matrices begins"
    assert first.end_decider == "heuristic" and second.end_reason == plan.chunks[0].end_reason
    assert (first.pages, second.pages, first.words + second.words) == (
        5.0,
        4.0,
        plan.chunks[0].words,
    )
    assert third == plan.chunks[1].model_copy(update={"number": 3})
    assert [b.after_id for b in new.boundaries] == ["el-000006", "el-000009"]
    assert unaffected_chunks(plan, new) == {2: 3}
    assert check_plan(DOC, ranges_from_plan(new)) == []


@pytest.mark.parametrize(
    "chunk,after_id,message",
    [
        (2, "el-000009", "not strictly inside"),  # the chunk's own end: no empty chunk
        (2, "el-000006", "not strictly inside"),  # an existing boundary is never moved
        (1, "el-000010", "not strictly inside"),
        (1, "el-000004", "not a safe cut"),  # right after a heading
        (1, "el-999999", "not an element"),
    ],
)
def test_split_refuses_anything_but_an_inner_safe_cut(
    chunk: int, after_id: str, message: str
) -> None:
    with pytest.raises(ValidationFailedError, match=message):
        split_chunk(DOC, THREE, chunk, after_id, "vectors end where the arithmetic begins", "agent")
    with pytest.raises(ValueError, match="no chunk 9"):
        split_chunk(DOC, THREE, 9, "el-000002", "vectors end where the arithmetic begins", "agent")


def test_analyses_of_unaffected_chunks_are_carried_and_renumbered() -> None:
    three = THREE.model_copy(update={"settings": PlanSettings(min_pages=2)})  # 2 + 3 pages
    analyses = {n: good_analysis(n, c.first_id, c.last_id) for n, c in enumerate(THREE.chunks, 1)}
    new = split_chunk(
        DOC, three, 1, "el-000003", "vector basics end; arithmetic begins", "heuristic"
    )
    carried = carry_analyses(three, new, analyses)
    assert sorted(carried) == [3, 4]
    assert carried[3] == analyses[2].model_copy(update={"chunk": 3})
    assert carried[4].topic_en == analyses[3].topic_en


@st.composite
def planned(draw: st.DrawFn) -> tuple[Document, Plan, list]:
    doc = draw(documents(max_elements=50))
    candidates = score_candidates(doc, safe_candidates(doc))
    settings_ = PlanSettings(min_pages=2, max_pages=5, soft_max_pages=6, hard_max_pages=9)
    plan = plan_document(doc, candidates, {}, settings_, HeuristicDecider())
    return doc, plan, candidates


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planned(), st.data())
def test_split_invariants_on_generated_plans(
    case: tuple[Document, Plan, list], data: st.DataObject
) -> None:
    doc, plan, candidates = case
    splittable = [
        c.number for c in plan.chunks if repair_context(doc, plan, candidates, c.number).candidates
    ]
    if not splittable:
        return  # nothing inside any chunk can be cut: repair has nothing to offer
    number = data.draw(st.sampled_from(splittable))
    ctx = repair_context(doc, plan, candidates, number)
    pos = {e.id: i for i, e in enumerate(doc.elements)}
    chunk = plan.chunks[number - 1]
    for cut in ctx.candidates:  # strictly inside, structurally safe
        assert pos[chunk.first_id] <= pos[cut.after_id] < pos[chunk.last_id]
        assert is_safe_gap(doc.elements[pos[cut.after_id]], doc.elements[pos[cut.after_id] + 1])
    choice = data.draw(st.sampled_from(ctx.candidates))
    new = split_chunk(
        doc, plan, number, choice.after_id, "generated split between two parts of the chunk", "test"
    )
    assert len(new.chunks) == len(plan.chunks) + 1
    assert [c.number for c in new.chunks] == list(range(1, len(plan.chunks) + 2))
    old_cuts = {b.after_id for b in plan.boundaries}
    assert old_cuts <= {b.after_id for b in new.boundaries}  # nothing merged or moved
    assert {b.after_id for b in new.boundaries} - old_cuts == {choice.after_id}
    assert check_plan(doc, ranges_from_plan(new)) == []  # contiguous, complete, ordered
    mapping = unaffected_chunks(plan, new)
    assert set(mapping) == {c.number for c in plan.chunks} - {number}
    for old, new_number in mapping.items():
        assert new_number == (old if old < number else old + 1)
        a, b = plan.chunks[old - 1], new.chunks[new_number - 1]
        assert (a.first_id, a.last_id, a.pages, a.words, a.title) == (
            b.first_id,
            b.last_id,
            b.pages,
            b.words,
            b.title,
        )
    left, right = new.chunks[number - 1], new.chunks[number]
    assert (left.first_id, right.last_id) == (chunk.first_id, chunk.last_id)
    assert left.words + right.words == chunk.words
    assert min(left.pages, right.pages) >= plan.settings.min_pages  # never a runt


# --- end to end: a needs_review chunk repaired, unaffected files unchanged ---------------


def _write(out: Path, doc: Document, plan: Plan) -> dict[str, bytes]:
    files = write_all(doc, plan, formats=["markdown"], source_pdf=None, images={})
    files["ir.json"] = dump_ir(doc)
    files["plan.json"] = plan.model_dump_json(indent=1).encode()
    save_files(out, files)
    return files


def _body(markdown: bytes) -> bytes:
    return markdown.split(FRONT_CLOSE.encode(), 1)[1]


def test_needs_review_chunk_repaired_with_unaffected_chunks_intact(tmp_path: Path) -> None:
    # Chunk 2 joins the matrices chapter and most of the regression chapter (a strong
    # change after el-000009, 4 pages on each side); chunk 3 is the last paragraph.
    doc = sample_doc()
    rules = PlanSettings(min_pages=3, max_pages=8, soft_max_pages=9, hard_max_pages=14)
    plan = sample_plan(doc, ("el-000006", "el-000013"), rules)
    scores = {"el-000009": 0.92}
    analyses: dict[int, ChunkAnalysis] = {}
    for c in plan.chunks:
        context = build_context(doc, plan, c.number, candidates=sample_candidates(doc, scores))
        result = analyse_chunk(context, "heuristic", others=analyses.values())
        assert isinstance(result, ChunkAnalysis)
        analyses[c.number] = result
    assert [a.coherence for a in analyses.values()] == ["confident", "needs_review", "confident"]
    before = _write(tmp_path / "before", doc, plan)
    ctx = repair_context(doc, plan, sample_candidates(doc, scores), 2, why=analyses[2].reason)
    choice = HeuristicRepairDecider().decide(ctx)
    assert choice.after_id == "el-000009"
    repaired = split_chunk(doc, plan, 2, choice.after_id, choice.reason, choice.decider)
    after = _write(tmp_path / "after", doc, repaired)
    assert verify_output(tmp_path / "after", render=False).passed
    kept = unaffected_chunks(plan, repaired)
    assert kept == {1: 1, 3: 4}
    old_names = {c.number: f"{c.number:02d}" for c in plan.chunks}
    name = {
        n: next(k for k in before if k.startswith(old_names[n]) and k.endswith(".md"))
        for n in (1, 3)
    }
    # Before the split: identical file, identical bytes.
    assert after[name[1]] == before[name[1]]
    # After the split: same content under the next number (the front block names it).
    moved = next(k for k in after if k.startswith("04-") and k.endswith(".md"))
    assert _body(after[moved]) == _body(before[name[3]])
    assert carry_analyses(plan, repaired, analyses)[4] == analyses[3].model_copy(
        update={"chunk": 4}
    )
