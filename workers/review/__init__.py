"""Independent topic review of candidate transitions (DESIGN §1, topic_review).

Roles transition / continuity / adjudicator vote independently on each transition through a
reviewer (`make_reviewer`: heuristic, openai, anthropic or command); `combine` turns the
votes into one decision. Pure logic: no Celery, no storage.
"""

from __future__ import annotations

from quire.workers.review.heuristic import HeuristicReviewer, heuristic_vote
from quire.workers.review.prompts import (
    InvalidVote,
    PromptBudget,
    ReviewAnswer,
    generic_reason,
    validate_answer,
)
from quire.workers.review.run import (
    LLMReviewer,
    Reviewer,
    combine,
    make_reviewer,
    review_all,
    review_task,
)

__all__ = [
    "HeuristicReviewer",
    "InvalidVote",
    "LLMReviewer",
    "PromptBudget",
    "ReviewAnswer",
    "Reviewer",
    "combine",
    "generic_reason",
    "heuristic_vote",
    "make_reviewer",
    "review_all",
    "review_task",
    "validate_answer",
]
