"""What a session's page says about the session in plain words: pure, no I/O.

- `why_sentence`: why it starts and ends where it does, in one sentence made of the two
  cuts' first clauses ("It starts at the heading “5 Arrays and matrices” on p. 26 and ends
  before the heading “6 Lists and data frames” on p. 35."); the evidence stays folded away.
- `session_confidence`: one label, derived from everything that judged the session — its
  analysis (one topic inside, or a strong change there) and the reviewers' decisions on
  the cuts at its start and end — so a session is never "confident" while its reviewers
  are unsure.
- `vote_summary`: the reviewers' votes in words that agree with their decision, saying
  which votes counted (votes under the minimum confidence abstain).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from quire.orchestrator.web.models import BoundaryOut, SessionDetail
from quire.shared.plan import ReviewOutcome

MIN_CONFIDENCE = 0.5  # workers.review.run: a vote below this abstains
# "cut before level-1 heading '5 Arrays' on p. 26: ...", "cut before paragraph '—1—' on p. 5"
_CUT_AT = re.compile(
    r"^(?:forced\s+)?cut before (?:(?P<heading>level-\d+ heading) |[\w -]+? )?"
    r"'(?P<text>.*?)'(?= on p\.|:|;|$)(?: on p\. (?P<page>\d+))?",
    re.IGNORECASE,
)
_ROLE_COUNT = {1: "one", 2: "two", 3: "all three"}


@dataclass(frozen=True)
class Confidence:
    label: Literal["confident", "uncertain", "needs review"]
    css: str  # the badge's class
    why: str  # what the label rests on, for its title and the folded evidence


def _where(reason: str, side: Literal["start", "end"]) -> str:
    """Where a cut falls, from its reason ("cut before level-1 heading '5 Arrays' on p. 26:
    ..."): "at the heading “5 Arrays” on p. 26" for a session it starts, "before ..." for
    one it ends; a cut before body text gives its page only ("on p. 5")."""
    m = _CUT_AT.match(reason.strip())
    page = f" on p. {m.group('page')}" if m and m.group("page") else ""
    if m and m.group("heading"):
        return f"{'at' if side == 'start' else 'before'} the heading “{m.group('text')}”{page}"
    if page:
        return page.strip()
    return "where the previous session ends" if side == "start" else "where the plan cut it"


def why_sentence(detail: SessionDetail) -> str:
    """Why the session starts and ends where it does, in one plain sentence."""
    if detail.starts_after is None:
        start = "at the start of the document"
    else:
        start = _where(detail.starts_after.reason, "start")
    if detail.end_reason == "end of document" or detail.next is None:
        end = "at the end of the document"
    else:
        end = _where(detail.end_reason, "end")
    extra = "; the next session continues its topic" if detail.continues else ""
    return f"It starts {start} and ends {end}{extra}."


def vote_summary(review: ReviewOutcome) -> str:
    """ "uncertain: all three said new topic, but each with confidence under 0.5, so none
    counted" — the decision and the votes in words that agree."""
    counted = [v for v in review.votes if v.confidence >= MIN_CONFIDENCE]
    weak = [v for v in review.votes if v.confidence < MIN_CONFIDENCE]
    decision = review.decision.replace("_", " ")
    parts = []
    for verdict, words in (("new_topic", "new topic"), ("same_topic", "same topic")):
        n = sum(v.verdict == verdict for v in counted)
        if n:
            parts.append(f"{_ROLE_COUNT.get(n, str(n))} said {words}")
    if weak:
        verdicts = {v.verdict for v in weak}
        said = "new topic" if verdicts == {"new_topic"} else "same topic"
        said = said if len(verdicts) == 1 else "mixed verdicts"
        who = _ROLE_COUNT.get(len(weak), str(len(weak)))
        parts.append(
            f"{who} said {said} with confidence under {MIN_CONFIDENCE:g}, "
            f"so {'it does' if len(weak) == 1 else 'they do'} not count"
        )
    if review.failures:
        parts.append(f"{len(review.failures)} failed")
    return f"{decision}: " + ("; ".join(parts) if parts else "no votes")


def _doubt(boundary: BoundaryOut | None, side: str) -> str | None:
    review = boundary.review if boundary else None
    if review is None or review.decision == "confirmed_change":
        return None
    votes = vote_summary(review).split(": ", 1)[-1]
    if review.decision == "continuity":
        return f"the reviewers saw one topic across its {side} ({votes})"
    return f"the reviewers could not settle its {side} ({votes})"


def session_confidence(detail: SessionDetail) -> Confidence | None:
    """One label for the session (None for a reference session nobody judged)."""
    analysis = detail.analysis
    if analysis is not None and analysis.coherence == "needs_review":
        return Confidence("needs review", "warn", f"its analysis: {analysis.reason}")
    doubts = [
        d
        for d in (_doubt(detail.starts_after, "start"), _doubt(detail.ends_at, "end"))
        if d is not None
    ]
    if doubts:
        return Confidence("uncertain", "warn", "; ".join(doubts))
    edges = (("start", detail.starts_after), ("end", detail.ends_at))
    reviewed = [side for side, b in edges if b is not None and b.review is not None]
    if analysis is None and not reviewed:
        return None
    said = (
        f"the reviewers confirmed a new topic at its {' and '.join(reviewed)}"
        if reviewed
        else "no reviewer doubted its edges"
    )
    inside = "one topic inside, " if analysis is not None else ""
    return Confidence("confident", "v-passed", f"{inside}{said}")
