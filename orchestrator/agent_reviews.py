"""Topic review by the agent: while a document awaits its first boundary decision, the agent
reads review batches and votes on the transitions itself, or has a backend review them.

Reads and commits follow the agent loop's rules (`agent.py`): every read names its
revision, every commit must name it again.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field, TypeAdapter

from quire.orchestrator.agent import Snapshot, session_at
from quire.shared.errors import ValidationFailedError
from quire.shared.ir import Element
from quire.shared.job import Job
from quire.shared.layout import Layout
from quire.shared.plan import (
    REVIEW_ROLES,
    ReviewFailure,
    ReviewOutcome,
    ReviewRole,
    ReviewTask,
    ReviewVote,
)
from quire.workers import steps
from quire.workers.review.prompts import ReviewAnswer
from quire.workers.runtime import Runtime

_tasks = TypeAdapter(list[ReviewTask])
_outcomes = TypeAdapter(list[ReviewOutcome])


# --- topic review by the agent ---------------------------------------------------------------
# While the document awaits its first boundary decision, the agent may vote on the review
# tasks itself (validated like an LLM reviewer's votes) or have a backend review them. Each
# commit stores one layer of outcomes (`work/agent/reviews-{rev}.json`, named in the job
# as `done["agent-reviews-{rev}"]`); the semantic review report — what planning and
# verification read — is rebuilt from the pipeline's votes with the layers on top: a later
# vote for the same transition and role replaces the earlier one, and `combine` decides again.

AGENT_REVIEWER = "agent"
_LAYER = "agent-reviews-"
SIDE_CHARS, ELEMENT_CHARS = 6000, 1500  # as much text as an LLM reviewer is shown


class ReviewElement(BaseModel):
    id: str
    type: str
    text: str  # long elements are trimmed: their end before the cut, their start after it


class ReviewItem(BaseModel):
    after_id: str  # the candidate cut: between this element and the next
    score: float  # change-point score in [0, 1]
    before: list[ReviewElement]  # in reading order; the last one ends at the cut
    after: list[ReviewElement]  # in reading order; the first one starts at the cut
    evidence_left_ids: list[str]  # ids a vote may cite in evidence_left
    evidence_right_ids: list[str]
    agent_roles: list[ReviewRole]  # roles the agent has already voted on here


class ReviewBatch(BaseModel):
    instructions: str
    roles: dict[str, str]  # role -> what that reviewer is asked
    tasks: int  # transitions under review in this document
    pending: int  # transitions without any agent vote
    items: list[ReviewItem]


class ReviewSummary(BaseModel):
    tasks: int
    agent_reviewed: int  # transitions with at least one agent vote
    pending: int
    confirmed_changes: int
    continuity: int
    uncertain: int
    failed: int
    reviewers: list[str]  # backends whose votes count


class AgentVote(ReviewAnswer):
    """One role's vote on one transition (the fields an LLM reviewer answers, plus which)."""

    after_id: str = Field(description="the transition voted on (a review item's after_id)")
    role: ReviewRole = Field(
        description="transition, continuity or adjudicator: answer the "
        "question of that role (see the batch's roles)"
    )


def _review_job(rt: Runtime, doc_id: str, revision: int | None = None) -> Job:
    s = session_at(rt, doc_id, revision, states=("awaiting_decision",))
    if "agent-boundaries" in s.done:
        raise ValidationFailedError(
            "topic reviews can change only before the first boundary "
            "is committed; boundaries are being decided already"
        )
    return s


def _review_tasks(rt: Runtime, s: Job) -> list[ReviewTask]:
    return _tasks.validate_json(rt.store.get(steps.work(s, Layout.REVIEW_TASKS)))


def merged_outcomes(rt: Runtime, s: Job, tasks: list[ReviewTask]) -> list[ReviewOutcome]:
    """The pipeline's review outcomes with the job's review layers on top."""
    from quire.workers.review import combine

    layers = [
        [
            o
            for key in sorted(rt.store.list(steps.work(s, Layout.REVIEWS)))
            for o in _outcomes.validate_json(rt.store.get(key))
        ]
    ]
    layers += [
        _outcomes.validate_json(rt.store.get(s.done[k]))
        for k in sorted(k for k in s.done if k.startswith(_LAYER))
    ]
    votes: dict[str, dict[str, ReviewVote]] = {t.after_id: {} for t in tasks}
    failures: dict[str, dict[str, ReviewFailure]] = {t.after_id: {} for t in tasks}
    for layer in layers:
        for o in layer:
            if o.after_id not in votes:
                continue
            for v in o.votes:
                votes[o.after_id][v.role] = v
                failures[o.after_id].pop(v.role, None)
            for f in o.failures:
                if f.role not in votes[o.after_id]:
                    failures[o.after_id][f.role] = f
    return [
        combine(a, [vs[r] for r in REVIEW_ROLES if r in vs], list(failures[a].values()))
        for a, vs in votes.items()
    ]


def summarize_reviews(outcomes: list[ReviewOutcome]) -> ReviewSummary:
    by_agent = sum(any(v.backend == AGENT_REVIEWER for v in o.votes) for o in outcomes)
    count = {
        d: sum(o.decision == d for o in outcomes)
        for d in ("confirmed_change", "continuity", "uncertain", "failed")
    }
    return ReviewSummary(
        tasks=len(outcomes),
        agent_reviewed=by_agent,
        pending=len(outcomes) - by_agent,
        confirmed_changes=count["confirmed_change"],
        continuity=count["continuity"],
        uncertain=count["uncertain"],
        failed=count["failed"],
        reviewers=sorted({v.backend for o in outcomes for v in o.votes}),
    )


def _shown(elements: list[Element], *, before: bool) -> list[ReviewElement]:
    """Nearest the cut first, within the side's budget, like an LLM reviewer's prompt."""
    shown: list[ReviewElement] = []
    left = SIDE_CHARS
    for e in reversed(elements) if before else elements:
        if left <= 0:
            break
        limit, text = min(ELEMENT_CHARS, left), e.text
        if len(text) > limit:
            text = "…" + text[-limit:] if before else text[:limit] + "…"
        left -= len(text)
        shown.append(ReviewElement(id=e.id, type=e.type, text=text))
    return list(reversed(shown)) if before else shown


def review_batch(
    rt: Runtime, doc_id: str, *, size: int = 5, after_ids: list[str] | None = None
) -> Snapshot:
    """The next transitions without an agent vote (or the ones named), with their text."""
    from quire.workers.review.prompts import ROLE_BRIEFS, SYSTEM_COMMON

    s = _review_job(rt, doc_id)
    tasks = _review_tasks(rt, s)
    outcomes = {o.after_id: o for o in merged_outcomes(rt, s, tasks)}
    mine = {
        a: [v.role for v in o.votes if v.backend == AGENT_REVIEWER] for a, o in outcomes.items()
    }
    if after_ids:
        unknown = sorted(set(after_ids) - set(mine))
        if unknown:
            raise ValidationFailedError(f"{unknown} are not transitions under review")
        chosen = [t for t in tasks if t.after_id in set(after_ids)]
    else:
        chosen = [t for t in tasks if not mine[t.after_id]][:size]
    elements = steps.load_doc(rt, s).by_id()
    items = [
        ReviewItem(
            after_id=t.after_id,
            score=t.score,
            before=_shown([elements[i] for i in t.left_ids], before=True),
            after=_shown([elements[i] for i in t.right_ids], before=False),
            evidence_left_ids=t.left_ids,
            evidence_right_ids=t.right_ids,
            agent_roles=mine[t.after_id],
        )
        for t in chosen
    ]
    batch = ReviewBatch(
        instructions=SYSTEM_COMMON,
        roles=dict(ROLE_BRIEFS),
        tasks=len(tasks),
        pending=sum(not r for r in mine.values()),
        items=items,
    )
    return Snapshot.of(s, batch)


def commit_reviews(rt: Runtime, doc_id: str, votes: list[AgentVote], *, revision: int) -> Snapshot:
    """Validate the agent's votes like an LLM reviewer's (evidence ids from the side they are
    cited for, both sides cited, a specific reason) and store them; all or nothing."""
    from quire.workers.review import InvalidVote, combine, validate_answer

    s = _review_job(rt, doc_id, revision)
    tasks = {t.after_id: t for t in _review_tasks(rt, s)}
    problems: list[str] = [] if votes else ["no votes"]
    accepted: list[ReviewVote] = []
    seen: set[tuple[str, str]] = set()
    for n, v in enumerate(votes, 1):
        where = f"vote {n} ({v.role} on {v.after_id})"
        task = tasks.get(v.after_id)
        if task is None:
            problems.append(f"{where}: not a transition under review")
        elif (v.after_id, v.role) in seen:
            problems.append(f"{where}: this role already voted on it in this commit")
        else:
            seen.add((v.after_id, v.role))
            answer = ReviewAnswer.model_validate(v.model_dump(exclude={"after_id", "role"}))
            try:
                accepted.append(validate_answer(answer, task, v.role, AGENT_REVIEWER))
            except InvalidVote as exc:
                problems.append(f"{where}: {exc}")
    if problems:
        raise ValidationFailedError("votes refused, nothing was stored: " + "; ".join(problems))
    layer = [
        combine(a, [v for v in accepted if v.after_id == a])
        for a in dict.fromkeys(v.after_id for v in accepted)
    ]
    return _commit_layer(rt, s, layer, revision, why=f"{len(accepted)} agent review votes")


def run_reviews(
    rt: Runtime,
    doc_id: str,
    *,
    revision: int,
    backend: str | None = None,
    after_ids: list[str] | None = None,
) -> Snapshot:
    """Have a backend (default: the document's) review the transitions named, or every one
    without an agent vote, all roles in parallel; its votes replace earlier backend votes."""
    from quire.workers.review import make_reviewer, review_all

    s = _review_job(rt, doc_id, revision)
    tasks = _review_tasks(rt, s)
    if after_ids:
        unknown = sorted(set(after_ids) - {t.after_id for t in tasks})
        if unknown:
            raise ValidationFailedError(f"{unknown} are not transitions under review")
        chosen = [t for t in tasks if t.after_id in set(after_ids)]
    else:
        agent = {
            o.after_id
            for o in merged_outcomes(rt, s, tasks)
            if any(v.backend == AGENT_REVIEWER for v in o.votes)
        }
        chosen = [t for t in tasks if t.after_id not in agent]
    if not chosen:
        return Snapshot(
            doc_id=doc_id,
            revision=s.revision,
            state=s.state,
            context=_sync_report(rt, s).model_dump(mode="json"),
        )
    name = backend or s.settings.backend
    layer = review_all(chosen, steps.load_doc(rt, s).by_id(), make_reviewer(name, env=rt.env))
    return _commit_layer(rt, s, layer, revision, why=f"{name} reviewed {len(chosen)} transitions")


def _commit_layer(
    rt: Runtime, s: Job, layer: list[ReviewOutcome], revision: int, *, why: str
) -> Snapshot:
    name = f"{_LAYER}{revision + 1:08d}"
    key = steps.work(s, Layout.agent_record(name.removeprefix("agent-")))
    rt.store.put(key, _outcomes.dump_json(layer))
    s.done[name] = key
    new = rt.repo.commit(s, expected=revision, actor=f"agent:{AGENT_REVIEWER}", why=why)
    summary = _sync_report(rt, rt.repo.load(s.doc_id))
    return Snapshot(
        doc_id=s.doc_id,
        revision=new.revision,
        state=new.state,
        context=summary.model_dump(mode="json"),
    )


def _sync_report(rt: Runtime, s: Job) -> ReviewSummary:
    """Rewrite the semantic review report from the committed layers (planning reads it)."""
    outcomes = merged_outcomes(rt, s, _review_tasks(rt, s))
    summary = summarize_reviews(outcomes)
    report = {
        "doc_id": s.doc_id,
        "backend": s.settings.backend,
        "candidates": len(steps.load_candidates(rt, s)),
        "reviewed": len(outcomes),
        "confirmed_changes": summary.confirmed_changes,
        "failed": summary.failed,
        "reviewers": summary.reviewers,
        "outcomes": _outcomes.dump_python(outcomes, mode="json"),
    }
    rt.store.put(
        steps.out(s, Layout.REVIEW),
        json.dumps(report, ensure_ascii=False, sort_keys=True).encode(),
    )
    return summary
