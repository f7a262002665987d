"""Where chunks may end (safe candidates), how strongly the topic changes there (scores,
review tasks), and the planner that chooses the cuts through a validated decider."""

from quire.workers.boundaries.candidates import safe_candidates
from quire.workers.boundaries.decisions import (
    BoundaryContext,
    ContextCandidate,
    Decider,
    Decision,
    HeuristicDecider,
    check_reason,
    validate_decision,
)
from quire.workers.boundaries.planner import (
    apply_decision,
    boundary_context,
    plan_document,
    plan_from_boundaries,
)
from quire.workers.boundaries.scoring import (
    default_review_threshold,
    review_tasks,
    score_candidates,
    select_for_review,
)

__all__ = [
    "BoundaryContext",
    "ContextCandidate",
    "Decider",
    "Decision",
    "HeuristicDecider",
    "apply_decision",
    "boundary_context",
    "check_reason",
    "default_review_threshold",
    "plan_document",
    "plan_from_boundaries",
    "review_tasks",
    "safe_candidates",
    "score_candidates",
    "select_for_review",
    "validate_decision",
]
