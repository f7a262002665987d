"""What a session's page says in words: why it starts and ends there, and one confidence
label that agrees with the reviewers' votes (never "confident" beside unsure reviewers)."""

from __future__ import annotations

from quire.orchestrator.web.models import BoundaryOut, SessionDetail
from quire.orchestrator.web.session_view import session_confidence, vote_summary, why_sentence
from quire.shared.analysis import ChunkAnalysis
from quire.shared.plan import ReviewOutcome, ReviewVote

START = "cut before level-1 heading '5 Arrays and matrices' on p. 26: change score 0.93"
END = "cut before level-1 heading '6 Lists and data frames' on p. 35: change score 0.91"


def vote(role: str, verdict: str, confidence: float) -> ReviewVote:
    return ReviewVote(
        after_id="el-000010",
        role=role,  # type: ignore[arg-type]
        verdict=verdict,  # type: ignore[arg-type]
        confidence=confidence,
        evidence_left=[],
        evidence_right=[],
        reason="r",
        backend="heuristic",
    )


def review(decision: str, *votes: ReviewVote) -> ReviewOutcome:
    return ReviewOutcome(after_id="el-000010", votes=list(votes), decision=decision)  # type: ignore[arg-type]


def analysis(coherence: str = "confident") -> ChunkAnalysis:
    return ChunkAnalysis(
        chunk=2,
        first_id="el-000011",
        last_id="el-000020",
        topic_en="Arrays and matrices",
        topic_fa="",
        study_focus_en="Key terms to learn: array, matrix.",
        study_focus_fa="",
        coherence=coherence,  # type: ignore[arg-type]
        reason="heuristic: no strong change inside",
        backend="heuristic",
        heuristic=True,
        fa_missing_reason="no Persian offline",
    )


def detail(start: ReviewOutcome | None, end: ReviewOutcome | None, **kw: object) -> SessionDetail:
    fields: dict[str, object] = {
        "number": 2,
        "first_id": "el-000011",
        "last_id": "el-000020",
        "page_first": 26,
        "page_last": 34,
        "pages": 9.0,
        "words": 3000,
        "title": "Arrays and matrices",
        "end_reason": END,
        "end_decider": "global",
        "starts_after": BoundaryOut(
            after_id="el-000010", reason=START, decider="global", review=start
        ),
        "ends_at": BoundaryOut(after_id="el-000020", reason=END, decider="global", review=end),
        "analysis": analysis(),
        "previous": 1,
        "next": 3,
    }
    return SessionDetail(**{**fields, **kw})  # type: ignore[arg-type]


CONFIRMED = review(
    "confirmed_change",
    vote("transition", "new_topic", 0.8),
    vote("continuity", "new_topic", 0.7),
    vote("adjudicator", "new_topic", 0.9),
)
# the bug: three votes for "new topic", each too unsure to count, so the decision is uncertain
UNSURE = review(
    "uncertain",
    vote("transition", "new_topic", 0.3),
    vote("continuity", "new_topic", 0.4),
    vote("adjudicator", "new_topic", 0.45),
)


def test_why_is_one_plain_sentence_naming_the_headings() -> None:
    assert why_sentence(detail(CONFIRMED, CONFIRMED)) == (
        "It starts at the heading “5 Arrays and matrices” on p. 26 and ends before the "
        "heading “6 Lists and data frames” on p. 35."
    )
    first = detail(None, CONFIRMED, starts_after=None, previous=None)
    assert why_sentence(first).startswith("It starts at the start of the document and ends")
    body = detail(CONFIRMED, None, end_reason="cut before '—4—' on p. 16: page break")
    assert why_sentence(body).endswith("ends on p. 16.")


def test_the_label_follows_the_votes_and_the_analysis() -> None:
    assert session_confidence(detail(CONFIRMED, CONFIRMED)).label == "confident"  # type: ignore[union-attr]
    unsure = session_confidence(detail(CONFIRMED, UNSURE))
    assert unsure is not None and unsure.label == "uncertain" and unsure.css == "warn"
    assert "could not settle its end" in unsure.why
    same = review("continuity", vote("adjudicator", "same_topic", 0.9))
    assert session_confidence(detail(same, CONFIRMED)).label == "uncertain"  # type: ignore[union-attr]
    split = session_confidence(detail(CONFIRMED, CONFIRMED, analysis=analysis("needs_review")))
    assert split is not None and split.label == "needs review"
    # a reference session nobody judged gets no label at all
    assert session_confidence(detail(None, None, analysis=None)) is None


def test_the_votes_line_agrees_with_its_decision() -> None:
    line = vote_summary(UNSURE)
    assert line.startswith("uncertain: ")
    assert "all three said new topic with confidence under 0.5, so they do not count" in line
    assert vote_summary(CONFIRMED) == "confirmed change: all three said new topic"
    mixed = review(
        "confirmed_change",
        vote("transition", "same_topic", 0.7),
        vote("adjudicator", "new_topic", 0.8),
        vote("continuity", "new_topic", 0.2),
    )
    assert vote_summary(mixed) == (
        "confirmed change: one said new topic; one said same topic; one said new topic "
        "with confidence under 0.5, so it does not count"
    )
