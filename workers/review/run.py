"""Run topic review: one vote per (transition, role), then combine the votes per transition.

`review_task` is the unit one Celery task runs: pure apart from the backend call. A
backend that gives no answer after its retries (server down, timeouts) yields a
`ReviewFailure`, never a vote. One that answers, but never validly or specifically after
`reasks` re-asks, is replaced by the heuristic's vote for that role, marked
`backend_fallback`; a strict backend (`--strict-backend`) fails instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Literal, Protocol

from quire.shared.errors import BackendError
from quire.shared.ir import Element
from quire.shared.plan import (
    REVIEW_ROLES,
    ReviewFailure,
    ReviewOutcome,
    ReviewRole,
    ReviewTask,
    ReviewVote,
    Verdict,
)
from quire.shared.settings import Settings
from quire.workers.llm import JsonBackend, backend_named
from quire.workers.llm.base import ask_checked, is_strict, note_fallback
from quire.workers.review.heuristic import HeuristicReviewer, heuristic_vote
from quire.workers.review.prompts import (
    InvalidVote,
    PromptBudget,
    ReviewAnswer,
    system_prompt,
    user_prompt,
    validate_answer,
)

REASKS = 2  # extra asks after a vote that breaks the review rules


class Reviewer(Protocol):
    name: str

    def vote(
        self, task: ReviewTask, role: ReviewRole, elements: dict[str, Element]
    ) -> ReviewVote | ReviewFailure: ...


def review_task(
    task: ReviewTask,
    role: ReviewRole,
    elements: dict[str, Element],
    backend: JsonBackend,
    *,
    budget: PromptBudget | None = None,
    reasks: int = REASKS,
) -> ReviewVote | ReviewFailure:
    """Ask `backend` for one role's vote on one transition.

    `elements` must hold every id of the task (a missing one is a caller bug: ValueError).
    A re-ask tells the model which rule its last answer broke.
    """
    system = system_prompt(role)
    user = user_prompt(task, role, elements, budget)
    got = ask_checked(
        backend,
        system=system,
        user=user,
        schema=ReviewAnswer,
        task=f"review.{role}",
        check=lambda answer: validate_answer(answer, task, role, backend.name),
        refused=InvalidVote,
        reasks=reasks,
    )
    if got.value is not None:
        return got.value
    if got.backend_failed:
        return ReviewFailure(
            after_id=task.after_id, role=role, backend=backend.name, error=got.error
        )
    why = f"invalid vote after {got.attempts} attempts: {got.error}"
    item = f"after {task.after_id} ({role})"
    if is_strict(backend):
        raise BackendError(f"{backend.name} gave no valid {role} vote {item} (strict): {why}")
    note_fallback(backend, f"review.{role}", item, why)
    vote = heuristic_vote(task, role, elements)
    return vote.model_copy(update={"backend_fallback": f"{backend.name}: {why}"[:600]})


class LLMReviewer:
    """A reviewer over any JsonBackend (openai, anthropic, command)."""

    def __init__(self, backend: JsonBackend, *, budget: PromptBudget | None = None) -> None:
        self.backend = backend
        self.name = backend.name
        self.budget = budget

    def vote(
        self, task: ReviewTask, role: ReviewRole, elements: dict[str, Element]
    ) -> ReviewVote | ReviewFailure:
        return review_task(task, role, elements, self.backend, budget=self.budget)


def make_reviewer(name: str, *, env: Settings | None = None) -> Reviewer:
    """ "heuristic" (offline) or a JsonBackend name ("openai", "anthropic", "command"),
    built from `env`."""
    if name == "heuristic":
        return HeuristicReviewer()
    return LLMReviewer(backend_named(name, env))


# --- combining votes ---------------------------------------------------------------------

Decision = Literal["confirmed_change", "continuity", "uncertain", "failed"]
MIN_CONFIDENCE = 0.5  # a vote below this counts as an abstention
ADJUDICATOR_ALONE = 0.6  # the adjudicator may decide alone at or above this confidence


def _role_verdict(votes: Sequence[ReviewVote]) -> tuple[Verdict, float] | None:
    """A role's verdict: the majority of its confident votes (ties abstain)."""
    counted = [v for v in votes if v.confidence >= MIN_CONFIDENCE]
    new = [v.confidence for v in counted if v.verdict == "new_topic"]
    same = [v.confidence for v in counted if v.verdict == "same_topic"]
    if len(new) > len(same):
        return "new_topic", max(new)
    if len(same) > len(new):
        return "same_topic", max(same)
    return None


def combine(
    after_id: str, votes: Iterable[ReviewVote], failures: Iterable[ReviewFailure] = ()
) -> ReviewOutcome:
    """Add the roles' votes up to one decision.

    A role's verdict is the majority of its votes with confidence >= 0.5 (lower ones and
    ties abstain). With A the adjudicator, T the transition and C the continuity verdict:
    - failed: there is no valid vote at all;
    - confirmed_change: A = new_topic and T or C agrees; or A = new_topic with confidence
      >= 0.6 and T and C do not both say same_topic;
    - continuity: the mirror image (A = same_topic and T or C agrees; or A = same_topic
      with confidence >= 0.6 and T and C do not both say new_topic);
    - without an adjudicator verdict: T and C both present and agreeing decide;
    - otherwise uncertain (the planner treats it as unconfirmed: no forced cut there).
    """
    votes, failures = list(votes), list(failures)
    stray = {v.after_id for v in votes} | {f.after_id for f in failures}
    if stray - {after_id}:
        raise ValueError(f"reviews of {sorted(stray - {after_id})} cannot count for {after_id}")
    if not votes:
        return ReviewOutcome(after_id=after_id, votes=[], failures=failures, decision="failed")
    by_role = {role: _role_verdict([v for v in votes if v.role == role]) for role in REVIEW_ROLES}
    adjudicator = by_role["adjudicator"]
    others = [r[0] for r in (by_role["transition"], by_role["continuity"]) if r is not None]
    decision: Decision = "uncertain"
    if adjudicator is not None:
        verdict, confidence = adjudicator
        opposite: Verdict = "same_topic" if verdict == "new_topic" else "new_topic"
        agreed = verdict in others
        vetoed = len(others) == 2 and all(o == opposite for o in others)
        if agreed or (confidence >= ADJUDICATOR_ALONE and not vetoed):
            decision = "confirmed_change" if verdict == "new_topic" else "continuity"
    elif len(others) == 2 and others[0] == others[1]:
        decision = "confirmed_change" if others[0] == "new_topic" else "continuity"
    return ReviewOutcome(after_id=after_id, votes=votes, failures=failures, decision=decision)


def review_all(
    tasks: Sequence[ReviewTask],
    elements: dict[str, Element],
    reviewer: Reviewer,
    *,
    roles: Sequence[ReviewRole] = REVIEW_ROLES,
    max_workers: int = 4,
) -> list[ReviewOutcome]:
    """In-process review of many transitions (local mode), all roles in parallel threads.

    Outcomes come back in task order; the backend's own semaphore bounds requests in flight.
    """
    jobs = [(task, role) for task in tasks for role in roles]
    with ThreadPoolExecutor(max_workers=max(1, max_workers)) as pool:
        results = list(pool.map(lambda job: reviewer.vote(job[0], job[1], elements), jobs))
    outcomes = []
    for n, task in enumerate(tasks):
        mine = results[n * len(roles) : (n + 1) * len(roles)]
        outcomes.append(
            combine(
                task.after_id,
                [r for r in mine if isinstance(r, ReviewVote)],
                [r for r in mine if isinstance(r, ReviewFailure)],
            )
        )
    return outcomes
