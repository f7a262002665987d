"""Topic review: validation, heuristic baseline, combining votes, LLM reviewers end to end."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from quire.shared.errors import BackendError
from quire.shared.ir import Element, assign_ids, make_element
from quire.shared.plan import REVIEW_ROLES, ReviewFailure, ReviewRole, ReviewTask, ReviewVote
from quire.shared.settings import load_settings
from quire.workers.llm import make_backend
from quire.workers.review import (
    HeuristicReviewer,
    InvalidVote,
    LLMReviewer,
    PromptBudget,
    ReviewAnswer,
    combine,
    generic_reason,
    heuristic_vote,
    make_reviewer,
    review_all,
    validate_answer,
)
from quire.workers.review.prompts import system_prompt, user_prompt
from tests.llm_servers import KEYS, FakeProvider, answer, status

pytestmark = pytest.mark.usefixtures("fast_llm")

ROOT = Path(__file__).resolve().parents[1]

# el-000001..3 photosynthesis, el-000004 heading "Cell Division", el-000005..6 mitosis,
# el-000007 "as follows:", el-000008 list continuing it, el-000009 more on mitosis.
# pages spread so both sides of the heading are a minimum session long (5 pages)
ELEMENTS = assign_ids(
    [
        make_element(
            "paragraph",
            "Photosynthesis converts light energy into chemical energy "
            "stored in glucose inside the chloroplasts of plant cells.",
            1,
        ),
        make_element(
            "paragraph",
            "Chlorophyll absorbs red and blue light; the light reactions "
            "split water and release oxygen.",
            3,
        ),
        make_element(
            "paragraph",
            "The Calvin cycle fixes carbon dioxide into sugar using ATP "
            "and NADPH from the light reactions.",
            5,
        ),
        make_element("heading", "## Cell Division", 6, level=2),
        make_element(
            "paragraph",
            "Mitosis divides a nucleus into two genetically identical daughter nuclei.",
            7,
        ),
        make_element(
            "paragraph",
            "Before mitosis, chromosomes replicate during interphase and "
            "condense into sister chromatids.",
            8,
        ),
        make_element(
            "paragraph", "The stages of mitosis with their chromosomes are as follows:", 9
        ),
        make_element(
            "list",
            "1. prophase: chromosomes condense\n2. metaphase: chromosomes align",
            9,
            items=["prophase: chromosomes condense", "metaphase: chromosomes align"],
            ordered=True,
        ),
        make_element(
            "paragraph",
            "During anaphase sister chromatids of each chromosome "
            "separate toward opposite poles; mitosis ends with telophase.",
            10,
        ),
    ]
)
BY_ID = {e.id: e for e in ELEMENTS}
ids = [e.id for e in ELEMENTS]
CHANGE = ReviewTask(doc_id="d", after_id=ids[2], left_ids=ids[0:3], right_ids=ids[3:6], score=0.8)
CONTINUE = ReviewTask(doc_id="d", after_id=ids[6], left_ids=ids[4:7], right_ids=ids[7:9], score=0.2)
GOOD_VOTE = {
    "verdict": "new_topic",
    "confidence": 0.85,
    "evidence_left": [ids[2]],
    "evidence_right": [ids[3], ids[4]],
    "reason": "The Calvin cycle closes photosynthesis; the heading 'Cell Division' opens "
    "mitosis, an unrelated process.",
}


def vote(
    role: ReviewRole, verdict: str, confidence: float = 0.8, after_id: str = CHANGE.after_id
) -> ReviewVote:
    return ReviewVote(
        after_id=after_id,
        role=role,
        verdict=verdict,
        confidence=confidence,
        evidence_left=[ids[2]],
        evidence_right=[ids[3]],
        reason="photosynthesis ends, mitosis begins",
        backend="test",
    )


# --- validation --------------------------------------------------------------------------


def test_valid_answer_becomes_vote_with_unique_ids() -> None:
    data = {**GOOD_VOTE, "evidence_right": [ids[3], ids[3], ids[4]]}
    result = validate_answer(ReviewAnswer(**data), CHANGE, "transition", "openai")
    assert result.evidence_right == [ids[3], ids[4]]
    assert (result.after_id, result.role, result.backend) == (ids[2], "transition", "openai")


@pytest.mark.parametrize(
    "change,message",
    [
        ({"evidence_left": [ids[3]]}, "on the other side"),
        ({"evidence_right": [ids[0]]}, "on the other side"),
        ({"evidence_left": ["el-999999"]}, "not in this task"),
        ({"evidence_left": []}, "evidence_left is empty"),
        ({"evidence_right": []}, "evidence_right is empty"),
        ({"reason": "n/a"}, "too short"),
        ({"reason": "A new topic starts here."}, "generic"),
        ({"reason": "new topic"}, "too short"),
        ({"reason": "The topic changes here, clearly."}, "nothing specific"),
        ({"reason": "<reason for the verdict>"}, "placeholder"),
    ],
)
def test_validation_rejects_bad_evidence_and_generic_reasons(
    change: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidVote, match=message):
        validate_answer(ReviewAnswer(**{**GOOD_VOTE, **change}), CHANGE, "adjudicator", "x")


@pytest.mark.parametrize(
    "reason",
    [
        "auto",
        "same",
        "N/A",
        "same topic",
        "ok",
        "new_topic",
        "It continues.",
        "   ",
        "different topic!!!!!!",
    ],
)
def test_generic_reasons(reason: str) -> None:
    assert generic_reason(reason) is not None


def test_specific_reasons_pass() -> None:
    assert generic_reason("Mitosis stages continue the list begun before the cut") is None
    assert generic_reason("heading 'Cell Division' starts; overlap 0.05") is None


def test_a_quoted_title_that_looks_like_a_placeholder_is_evidence() -> None:
    # a real manual's heading "5.20 TODO" (maint-guide), or "<offset>" in gnuplot's text
    assert generic_reason("minor heading '5.20 TODO' (level 2) starts; overlap 0.04") is None
    assert generic_reason("paragraph 'The <offset> is specified' follows a table") is None
    assert generic_reason("TODO: explain why the topic changes at 5.20") is not None
    assert generic_reason("the author's {reason} isn't given here at all") is not None


def test_schema_rejects_out_of_range_confidence() -> None:
    with pytest.raises(ValueError):
        ReviewAnswer(**{**GOOD_VOTE, "confidence": 1.5})


# --- prompts -----------------------------------------------------------------------------


def test_prompt_shows_both_sides_with_ids_and_role_question() -> None:
    text = user_prompt(CHANGE, "continuity", BY_ID)
    before, after = text.split("AFTER THE CUT")
    for element_id in CHANGE.left_ids:
        assert f'id="{element_id}"' in before
    for element_id in CHANGE.right_ids:
        assert f'id="{element_id}"' in after
    assert "Calvin cycle" in before and "## Cell Division" in after
    assert "same concept continue" in text
    assert system_prompt("continuity") != system_prompt("transition")
    assert "CONTINUITY" in system_prompt("continuity")


def test_prompt_budget_keeps_text_nearest_the_cut() -> None:
    long_left = assign_ids(
        [make_element("paragraph", f"Older filler sentence {i}. " * 40, 1) for i in range(5)]
        + [
            make_element("paragraph", "start " + "x" * 3000 + " CUTEND", 2),
            make_element("paragraph", "RIGHTSTART " + "y" * 3000, 2),
        ]
    )
    by_id = {e.id: e for e in long_left}
    task = ReviewTask(
        doc_id="d",
        after_id="el-000006",
        left_ids=[e.id for e in long_left[:6]],
        right_ids=["el-000007"],
        score=0.5,
    )
    text = user_prompt(task, "transition", by_id, PromptBudget(side_chars=2000, element_chars=1500))
    assert "CUTEND" in text and "RIGHTSTART" in text  # the ends that touch the cut
    assert 'id="el-000001"' not in text and "not shown" in text
    assert len(text) < 5000


def test_unknown_element_ids_are_a_caller_error() -> None:
    task = CHANGE.model_copy(update={"right_ids": ["el-424242"]})
    with pytest.raises(ValueError, match="el-424242"):
        user_prompt(task, "transition", BY_ID)


# --- heuristic ---------------------------------------------------------------------------


def heuristic_json() -> str:
    votes = [heuristic_vote(t, r, BY_ID) for t in (CHANGE, CONTINUE) for r in REVIEW_ROLES]
    return json.dumps([v.model_dump(mode="json") for v in votes], ensure_ascii=False)


def test_heuristic_is_deterministic_across_runs_and_hash_seeds() -> None:
    first = heuristic_json()
    assert heuristic_json() == first
    script = (
        "from tests.test_review import heuristic_json; import sys; "
        "sys.stdout.write(heuristic_json())"
    )
    for seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        assert out == first


def test_heuristic_sees_a_heading_topic_change() -> None:
    votes = [heuristic_vote(CHANGE, role, BY_ID) for role in REVIEW_ROLES]
    assert [v.verdict for v in votes] == ["new_topic"] * 3
    for v in votes:
        assert v.reason.startswith(f"heuristic baseline ({v.role})")
        assert "heading 'Cell Division' (level 2) starts here" in v.reason
        assert "lexical overlap 0.0" in v.reason
        assert v.evidence_left == [ids[2]] and v.evidence_right == [ids[3]]
        assert v.backend == "heuristic" and 0.5 <= v.confidence <= 0.95
    assert combine(CHANGE.after_id, votes).decision == "confirmed_change"


def test_heuristic_sees_continuity() -> None:
    votes = [HeuristicReviewer().vote(CONTINUE, role, BY_ID) for role in REVIEW_ROLES]
    assert [v.verdict for v in votes] == ["same_topic"] * 3
    for v in votes:
        assert "no heading starts here" in v.reason
        assert "ends with ':'" in v.reason
        assert "shared terms: 'chromosomes'" in v.reason
    assert combine(CONTINUE.after_id, votes).decision == "continuity"


def _cut_after_first(
    elements: list[Element], score: float
) -> tuple[ReviewTask, dict[str, Element]]:
    """A review of the cut after the first of `elements` (the rest on its right)."""
    els = assign_ids(elements)
    task = ReviewTask(
        doc_id="d",
        after_id=els[0].id,
        left_ids=[els[0].id],
        right_ids=[e.id for e in els[1:]],
        score=score,
    )
    return task, {e.id: e for e in els}


def test_heuristic_votes_on_a_book_about_todo_lists_validate() -> None:
    """The book's own words ("todo", "xxx") shared across a cut are quoted evidence, never
    taken for a template placeholder (coop-writing.pdf's reviews crashed on "todo")."""
    task, by_id = _cut_after_first(
        [
            make_element("paragraph", "Each todo note marks xxx text; a todo macro lists them.", 1),
            make_element("paragraph", "The todo macro takes options; every xxx marker shows.", 2),
            make_element("paragraph", "A todo list collects the xxx notes with their options.", 3),
        ],
        score=0.5,
    )
    for role in REVIEW_ROLES:
        vote = HeuristicReviewer().vote(task, role, by_id)
        assert "'todo'" in vote.reason


@pytest.mark.parametrize(
    "title",
    [
        "(<class 'numba.core.types.containers.BaseTuple'>, '__hash__')",  # numba's manual
        "The 'x' <option> of {name}: TODO",
        "'<'",
    ],
)
def test_heuristic_votes_quoting_a_heading_with_quotes_and_brackets_validate(title: str) -> None:
    """A heading quoted in the reason may hold quotes itself: paired wrongly, they left
    "<class >" outside every quote, a "template placeholder" that failed numba's manual."""
    task, by_id = _cut_after_first(
        [
            make_element("paragraph", "Types describe the values a compiled function handles.", 1),
            make_element("heading", title, 2, level=2),
            make_element("paragraph", "Hashing a tuple combines the hashes of its members.", 2),
        ],
        score=0.8,
    )
    for role in REVIEW_ROLES:
        assert "heading '" in heuristic_vote(task, role, by_id).reason


# --- combine -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "roles,expected",
    [
        (
            {"transition": ("new_topic", 0.9), "adjudicator": ("new_topic", 0.55)},
            "confirmed_change",
        ),
        ({"adjudicator": ("new_topic", 0.7)}, "confirmed_change"),  # alone, confident
        ({"adjudicator": ("new_topic", 0.55)}, "uncertain"),  # alone, not confident enough
        (
            {
                "transition": ("same_topic", 0.9),
                "continuity": ("same_topic", 0.9),
                "adjudicator": ("new_topic", 0.9),
            },
            "uncertain",
        ),  # both others dissent: vetoed
        (
            {
                "transition": ("same_topic", 0.9),
                "continuity": ("new_topic", 0.6),
                "adjudicator": ("new_topic", 0.55),
            },
            "confirmed_change",
        ),  # continuity agrees
        ({"continuity": ("same_topic", 0.8), "adjudicator": ("same_topic", 0.5)}, "continuity"),
        ({"transition": ("new_topic", 0.9), "continuity": ("new_topic", 0.7)}, "confirmed_change"),
        ({"transition": ("new_topic", 0.9), "continuity": ("same_topic", 0.7)}, "uncertain"),
        ({"transition": ("new_topic", 0.9)}, "uncertain"),
        ({"transition": ("new_topic", 0.9), "adjudicator": ("new_topic", 0.3)}, "uncertain"),
    ],
)
def test_combine_decisions(roles: dict[ReviewRole, tuple[str, float]], expected: str) -> None:
    votes = [vote(role, verdict, conf) for role, (verdict, conf) in roles.items()]
    assert combine(CHANGE.after_id, votes).decision == expected


def test_combine_without_votes_fails_and_keeps_failures() -> None:
    failure = ReviewFailure(
        after_id=CHANGE.after_id, role="adjudicator", backend="openai", error="HTTP 500"
    )
    outcome = combine(CHANGE.after_id, [], [failure])
    assert outcome.decision == "failed" and outcome.failures == [failure]
    with pytest.raises(ValueError):
        combine("el-000001", [vote("transition", "new_topic")])


# --- LLM reviewers end to end ------------------------------------------------------------


def test_llm_reviewer_votes(provider: FakeProvider) -> None:
    provider.enqueue(answer(GOOD_VOTE))
    result = make_reviewer(provider.kind, env=load_settings()).vote(CHANGE, "adjudicator", BY_ID)
    assert isinstance(result, ReviewVote)
    assert result.backend == provider.kind and result.verdict == "new_topic"
    sent = provider.requests[0].raw.decode()
    assert "ADJUDICATOR" in sent and "Cell Division" in sent and ids[4] in sent
    assert KEYS[provider.kind] not in sent


def test_llm_reviewer_429_then_success(provider: FakeProvider) -> None:
    provider.enqueue(status(429, headers={"retry-after-ms": "300"}), answer(GOOD_VOTE))
    started = time.monotonic()
    result = make_reviewer(provider.kind, env=load_settings()).vote(CHANGE, "transition", BY_ID)
    assert isinstance(result, ReviewVote)
    assert len(provider.requests) == 2 and time.monotonic() - started >= 0.3


def test_llm_reviewer_malformed_then_success(provider: FakeProvider) -> None:
    provider.enqueue(answer("{not json"), answer(GOOD_VOTE))
    assert isinstance(
        make_reviewer(provider.kind, env=load_settings()).vote(CHANGE, "continuity", BY_ID),
        ReviewVote,
    )
    assert len(provider.requests) == 2


def test_rule_breaking_vote_is_reasked_with_the_rule(provider: FakeProvider) -> None:
    provider.enqueue(answer({**GOOD_VOTE, "evidence_left": [ids[4]]}), answer(GOOD_VOTE))
    result = make_reviewer(provider.kind, env=load_settings()).vote(CHANGE, "transition", BY_ID)
    assert isinstance(result, ReviewVote)
    assert "on the other side" in provider.requests[1].body["messages"][-1]["content"]


def test_persistent_garbage_is_never_the_backends_vote(provider: FakeProvider) -> None:
    """Garbage after the re-asks: the heuristic votes instead, marked; a strict backend
    fails instead."""
    provider.default = answer("garbage")
    result = make_reviewer(provider.kind, env=load_settings()).vote(CHANGE, "transition", BY_ID)
    assert isinstance(result, ReviewVote) and result.backend == "heuristic"
    assert result == heuristic_vote(CHANGE, "transition", BY_ID).model_copy(
        update={"backend_fallback": result.backend_fallback}
    )
    assert (result.backend_fallback or "").startswith(f"{provider.kind}: invalid vote")
    assert "no valid answer" in (result.backend_fallback or "")
    assert len(provider.requests) == 3
    strict = LLMReviewer(make_backend(provider.kind, strict=True, env=load_settings()))
    with pytest.raises(BackendError, match=r"no valid transition vote .* \(strict\)"):
        strict.vote(CHANGE, "transition", BY_ID)


def test_persistently_generic_votes_fall_back_to_the_heuristic(provider: FakeProvider) -> None:
    provider.default = answer({**GOOD_VOTE, "reason": "new topic"})
    result = make_reviewer(provider.kind, env=load_settings()).vote(CHANGE, "transition", BY_ID)
    assert isinstance(result, ReviewVote) and result.backend == "heuristic"
    assert "too short" in (result.backend_fallback or "")
    assert len(provider.requests) == 3
    outcome = combine(CHANGE.after_id, [result])
    assert outcome.votes == [result] and outcome.failures == []


def test_transport_failure_is_a_failure_not_a_vote(
    provider: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_BACKEND_MAX_ATTEMPTS", "2")
    provider.default = status(503)
    result = make_reviewer(provider.kind, env=load_settings()).vote(CHANGE, "transition", BY_ID)
    assert isinstance(result, ReviewFailure) and "HTTP 503" in result.error
    assert len(provider.requests) == 2


def test_review_all_respects_the_concurrency_limit(
    provider: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_BACKEND_CONCURRENCY", "2")
    provider.default = answer(GOOD_VOTE, delay=0.1)
    tasks = [CHANGE, CHANGE.model_copy(update={"doc_id": "other"})]
    outcomes = review_all(
        tasks, BY_ID, make_reviewer(provider.kind, env=load_settings()), max_workers=6
    )
    assert [o.decision for o in outcomes] == ["confirmed_change"] * 2
    assert all(len(o.votes) == 3 for o in outcomes)
    assert len(provider.requests) == 6 and provider.max_in_flight == 2


def test_command_reviewer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "agent.py"
    script.write_text(
        "import json, sys\n"
        "task = json.loads(sys.stdin.read())\n"
        "assert task['task'] == 'review.continuity' and 'evidence_left' in task['user']\n"
        f"print(json.dumps({GOOD_VOTE!r}))\n"
    )
    monkeypatch.setenv(
        "QUIRE_AGENT_COMMAND", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    )
    reviewer = make_reviewer("command", env=load_settings())
    assert isinstance(reviewer, LLMReviewer)
    result = reviewer.vote(CHANGE, "continuity", BY_ID)
    assert isinstance(result, ReviewVote) and result.backend == "command"


def test_command_reviewer_failing_agent_is_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_BACKEND_MAX_ATTEMPTS", "2")
    monkeypatch.setenv(
        "QUIRE_AGENT_COMMAND",
        f"{shlex.quote(sys.executable)} -c "
        + shlex.quote("import sys; sys.exit('no model configured')"),
    )
    result = make_reviewer("command", env=load_settings()).vote(CHANGE, "adjudicator", BY_ID)
    assert isinstance(result, ReviewFailure) and "no model configured" in result.error


def test_make_reviewer_names() -> None:
    assert isinstance(make_reviewer("heuristic"), HeuristicReviewer)
    with pytest.raises(BackendError, match="OPENAI_API_KEY"):
        make_reviewer("openai", env=load_settings())


def test_heuristic_leaves_short_chapters_to_the_size_rules() -> None:
    # the same heading with only two pages before it: confirming it would force a tiny chunk
    squeezed = [
        e.model_copy(update={"page_first": min(e.page_first, 2), "page_last": min(e.page_last, 2)})
        if i < 3
        else e
        for i, e in enumerate(ELEMENTS)
    ]
    by_id = {e.id: e for e in squeezed}
    votes = [heuristic_vote(CHANGE, role, by_id) for role in REVIEW_ROLES]
    assert all("minor heading 'Cell Division'" in v.reason for v in votes)
    assert combine(CHANGE.after_id, votes).decision != "confirmed_change"


def test_heuristic_abstains_on_a_strong_change_without_a_heading() -> None:
    # photosynthesis -> mitosis with the heading gone (a converted or OCR'd text): the
    # baseline does not confirm it, but it does not claim the topic continues either
    headless = [e for e in ELEMENTS if e.type != "heading"]
    by_id = {e.id: e for e in headless}
    task = ReviewTask(doc_id="d", after_id=ids[2], left_ids=ids[0:3], right_ids=ids[4:6], score=0.8)
    votes = {role: heuristic_vote(task, role, by_id) for role in REVIEW_ROLES}
    for role in ("transition", "adjudicator"):
        assert votes[role].confidence < 0.5
        assert "confirms only major divisions: abstains" in votes[role].reason
    assert (votes["continuity"].verdict, votes["continuity"].confidence >= 0.5) == (
        "new_topic",
        True,
    )
    assert combine(task.after_id, list(votes.values())).decision == "uncertain"
    # a weak score on the same text is no reason to abstain: the roles vote same topic
    weak = task.model_copy(update={"score": 0.1})
    assert heuristic_vote(weak, "transition", by_id).verdict == "same_topic"


def test_heuristic_never_calls_a_clean_switch_without_a_heading_continuity() -> None:
    # The scorer gives a clean vocabulary switch without a heading about LEXICAL_WEIGHT
    # (0.45-0.5 in bench_topics' Choi documents); the text before it may even end with a
    # colon (a paragraph whose list was left out). Voting "same topic" there would make the
    # planner avoid the best cut it has, so no role does.
    from quire.workers.boundaries.scoring import LEXICAL_WEIGHT

    photosynthesis = [
        e.model_copy(update={"text": e.text.rstrip(".") + ", as follows:"}) if e.id == ids[2] else e
        for e in ELEMENTS
        if e.type != "heading"
    ]
    by_id = {e.id: e for e in photosynthesis}
    task = ReviewTask(
        doc_id="d",
        after_id=ids[2],
        left_ids=ids[0:3],
        right_ids=ids[4:6],
        score=0.68 * LEXICAL_WEIGHT,
    )
    votes = [heuristic_vote(task, role, by_id) for role in REVIEW_ROLES]
    assert all("ends with ':'" in v.reason for v in votes)
    assert all(v.verdict == "new_topic" for v in votes)
    assert combine(task.after_id, votes).decision == "uncertain"  # not confirmed: no heading


def test_a_short_chapter_of_estimated_pages_is_no_major_division() -> None:
    """In a DOCX or EPUB a 3.4-page chapter may touch 5 estimated pages: the heuristic
    reviewers measured its span, confirmed both its edges as changes, and the plan had to
    cut a 3.4-page session (the Debian Developer's Reference, three times)."""
    from quire.shared.ir import WORDS_PER_PAGE, layout_words
    from quire.workers.review.heuristic import major_starts

    def para(n: int) -> Element:
        return make_element("paragraph", " ".join(["text"] * n), 1)

    parts: list[Element] = []
    for title, paragraphs in (("One", [443] * 8), ("Two", [340] * 4), ("Three", [400] * 8)):
        parts.append(make_element("heading", f"# {title}", 1, level=1))
        parts += [para(n) for n in paragraphs]
    words, paged = 0, []
    for e in parts:  # paged as the DOCX parser pages them
        first = words // WORDS_PER_PAGE + 1
        words += layout_words(e)
        paged.append(
            e.model_copy(update={"page_first": first, "page_last": (words - 1) // 400 + 1})
        )
    elements = {e.id: e for e in assign_ids(paged)}
    two, three = (e.id for e in elements.values() if e.text in ("# Two", "# Three"))
    two_pages = [e for e in elements.values() if e.type == "paragraph"][8:12]
    assert two_pages[-1].page_last - elements[two].page_first + 1 == 5  # touches 5 pages
    assert {two, three} <= major_starts(elements)  # as page spans: both edges major
    assert not {two, three} & major_starts(elements, words_basis=True)  # 3.4 pages: none
