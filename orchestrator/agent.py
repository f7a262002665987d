"""The agent loop: an external agent (CLI, MCP host) reads contexts and commits decisions.

Every read returns the session revision it was made at; every commit names that revision
and is refused with a ConflictError when the document changed in between (re-read the
context and decide again). Decisions pass the same validation as LLM deciders: only listed
candidates, evidence-gated extensions, specific reasons.
"""

from __future__ import annotations

import json
import time
from typing import Any

from pydantic import BaseModel, Field, TypeAdapter

from quire.shared.analysis import ChunkAnalysis
from quire.shared.errors import ConflictError, ValidationFailedError
from quire.shared.ir import Document, Element
from quire.shared.layout import Layout
from quire.shared.plan import (
    REVIEW_ROLES,
    Boundary,
    Candidate,
    Plan,
    ReviewFailure,
    ReviewOutcome,
    ReviewRole,
    ReviewTask,
    ReviewVote,
)
from quire.shared.session import Session
from quire.workers import steps
from quire.workers.review.prompts import ReviewAnswer
from quire.workers.runtime import Runtime

_boundaries = TypeAdapter(list[Boundary])
_candidates = TypeAdapter(list[Candidate])
_tasks = TypeAdapter(list[ReviewTask])
_outcomes = TypeAdapter(list[ReviewOutcome])


class Snapshot(BaseModel):
    """What an agent read, and the revision its next commit must name."""

    doc_id: str
    revision: int
    state: str
    context: dict[str, Any] | None  # None: nothing left to decide at this step


def _session(
    rt: Runtime, doc_id: str, revision: int | None = None, states: tuple[str, ...] = ()
) -> Session:
    s = rt.repo.load(doc_id)
    if revision is not None and s.revision != revision:
        raise ConflictError(
            f"document is at revision {s.revision}, not {revision}: "
            "re-read the context and decide again"
        )
    if states and s.state not in states:
        raise ValidationFailedError(f"document is {s.state}; this needs {' or '.join(states)}")
    return s


def _planning_inputs(
    rt: Runtime, s: Session
) -> tuple[Document, list[Candidate], dict[str, ReviewOutcome]]:
    doc = steps.load_doc(rt, s)
    candidates = _candidates.validate_json(rt.store.get(steps.work(s, Layout.CANDIDATES)))
    outcomes = {o.after_id: o for o in steps.load_outcomes(rt, s)}
    return doc, candidates, outcomes


def _agent_boundaries(rt: Runtime, s: Session) -> list[Boundary]:
    key = s.done.get("agent-boundaries")
    return _boundaries.validate_json(rt.store.get(key)) if key else []


# --- boundaries ----------------------------------------------------------------------------


def boundary_context(rt: Runtime, doc_id: str) -> Snapshot:
    from quire.workers.boundaries.planner import boundary_context as context_for

    s = _session(rt, doc_id, states=("awaiting_decision",))
    doc, candidates, outcomes = _planning_inputs(rt, s)
    ctx = context_for(doc, candidates, outcomes, s.settings.plan, _agent_boundaries(rt, s))
    return Snapshot(
        doc_id=doc_id,
        revision=s.revision,
        state=s.state,
        context=ctx.model_dump(mode="json") if ctx else None,
    )


def commit_boundary(
    rt: Runtime,
    doc_id: str,
    *,
    revision: int,
    action: str,
    element_id: str | None,
    reason: str,
    evidence: list[str],
    decider: str = "agent",
) -> Snapshot:
    """Validate and record one decision; when the plan is complete, write it and send the
    document on to writing."""
    from quire.workers.boundaries.decisions import Decision
    from quire.workers.boundaries.planner import (
        apply_decision,
        boundary_context,
        plan_from_boundaries,
    )

    s = _session(rt, doc_id, revision, states=("awaiting_decision",))
    doc, candidates, outcomes = _planning_inputs(rt, s)
    decision = Decision(
        action=action, element_id=element_id, reason=reason, evidence=evidence, decider=decider
    )
    so_far = _agent_boundaries(rt, s)
    settings = s.settings.plan
    after = apply_decision(doc, candidates, outcomes, settings, so_far, decision)
    after = [
        b if b.revision is not None else b.model_copy(update={"revision": s.revision})
        for b in after
    ]
    key = steps.work(s, Layout.agent_boundaries(s.revision + 1))
    rt.store.put(key, _boundaries.dump_json(after))
    s.done["agent-boundaries"] = key
    complete = boundary_context(doc, candidates, outcomes, settings, after) is None
    if complete:
        plan = plan_from_boundaries(doc, settings, after)
        s.artifacts["plan"] = steps.save_plan(rt, s, plan)
        s.enter("writing", time.time())
    new = rt.repo.commit(
        s,
        expected=revision,
        actor=f"agent:{decider}",
        why=f"boundary {action} {element_id or ''}".strip(),
    )
    return boundary_context_or_done(rt, new)


def boundary_context_or_done(rt: Runtime, s: Session) -> Snapshot:
    if s.state == "awaiting_decision":
        return boundary_context(rt, s.doc_id)
    return Snapshot(doc_id=s.doc_id, revision=s.revision, state=s.state, context=None)


def finish_plan(rt: Runtime, doc_id: str, *, revision: int) -> Snapshot:
    """Write the plan when no boundary decision is left (e.g. the whole document fits in one
    chunk, so `boundary_context` has nothing to ask) and send the document on to writing."""
    from quire.workers.boundaries.planner import boundary_context as context_for
    from quire.workers.boundaries.planner import plan_from_boundaries

    s = _session(rt, doc_id, revision, states=("awaiting_decision",))
    doc, candidates, outcomes = _planning_inputs(rt, s)
    so_far = _agent_boundaries(rt, s)
    if context_for(doc, candidates, outcomes, s.settings.plan, so_far) is not None:
        raise ValidationFailedError(
            "boundary decisions are still open: read the boundary context and commit them first"
        )
    s.artifacts["plan"] = steps.save_plan(rt, s, plan_from_boundaries(doc, s.settings.plan, so_far))
    s.enter("writing", time.time())
    new = rt.repo.commit(s, expected=revision, actor="agent", why="plan complete")
    return Snapshot(doc_id=doc_id, revision=new.revision, state=new.state, context=None)


# --- topic review by the agent ---------------------------------------------------------------
# While the document awaits its first boundary decision, the agent may vote on the review
# tasks itself (validated like an LLM reviewer's votes) or have a backend review them. Each
# commit stores one layer of outcomes (`work/agent/reviews-{rev}.json`, named in the session
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


def _review_session(rt: Runtime, doc_id: str, revision: int | None = None) -> Session:
    s = _session(rt, doc_id, revision, states=("awaiting_decision",))
    if "agent-boundaries" in s.done:
        raise ValidationFailedError(
            "topic reviews can change only before the first boundary "
            "is committed; boundaries are being decided already"
        )
    return s


def _review_tasks(rt: Runtime, s: Session) -> list[ReviewTask]:
    return _tasks.validate_json(rt.store.get(steps.work(s, Layout.REVIEW_TASKS)))


def merged_outcomes(rt: Runtime, s: Session, tasks: list[ReviewTask]) -> list[ReviewOutcome]:
    """The pipeline's review outcomes with the session's review layers on top."""
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

    s = _review_session(rt, doc_id)
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
    return Snapshot(
        doc_id=doc_id, revision=s.revision, state=s.state, context=batch.model_dump(mode="json")
    )


def commit_reviews(rt: Runtime, doc_id: str, votes: list[AgentVote], *, revision: int) -> Snapshot:
    """Validate the agent's votes like an LLM reviewer's (evidence ids from the side they are
    cited for, both sides cited, a specific reason) and store them; all or nothing."""
    from quire.workers.review import InvalidVote, combine, validate_answer

    s = _review_session(rt, doc_id, revision)
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

    s = _review_session(rt, doc_id, revision)
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
    rt: Runtime, s: Session, layer: list[ReviewOutcome], revision: int, *, why: str
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


def _sync_report(rt: Runtime, s: Session) -> ReviewSummary:
    """Rewrite the semantic review report from the committed layers (planning reads it)."""
    outcomes = merged_outcomes(rt, s, _review_tasks(rt, s))
    summary = summarize_reviews(outcomes)
    report = {
        "doc_id": s.doc_id,
        "backend": s.settings.backend,
        "candidates": len(
            _candidates.validate_json(rt.store.get(steps.work(s, Layout.CANDIDATES)))
        ),
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


# --- chunks and analyses -------------------------------------------------------------------


def _plan(rt: Runtime, s: Session) -> Plan:
    return steps.load_plan(rt, s)


def get_chunk(rt: Runtime, doc_id: str, chunk: int) -> dict[str, Any]:
    from quire.workers.write import chunk_elements

    s = _session(rt, doc_id)
    plan, doc = _plan(rt, s), steps.load_doc(rt, s)
    c = _chunk(plan, chunk)
    text = "\n\n".join(e.text for e in chunk_elements(doc, c.first_id, c.last_id))
    return {"doc_id": doc_id, "revision": s.revision, "chunk": c.model_dump(), "content": text}


def _chunk(plan: Plan, number: int) -> Any:
    for c in plan.chunks:
        if c.number == number:
            return c
    raise ValidationFailedError(f"no chunk {number}; the plan has {len(plan.chunks)}")


# the states in which an agent may read and commit chunk analyses and repairs
ANALYSABLE = ("complete", "analysing", "indexing")


def _analysis_context(rt: Runtime, s: Session, chunk: int) -> tuple[Plan, Any, Any]:
    """The plan, the chunk and its analysis context."""
    from quire.workers.analysis import build_context

    doc, candidates, _ = _planning_inputs(rt, s)
    plan = _plan(rt, s)
    c = _chunk(plan, chunk)
    stats = steps.load_stats(rt, s, doc, candidates)
    return plan, c, build_context(doc, plan, chunk, candidates=candidates, stats=stats)


def analysis_context(rt: Runtime, doc_id: str, chunk: int) -> Snapshot:
    s = _session(rt, doc_id, states=ANALYSABLE)
    _, _, ctx = _analysis_context(rt, s, chunk)
    rt.store.put(steps.work(s, Layout.agent_read(ctx.first_id, ctx.last_id)), b"")
    return Snapshot(
        doc_id=doc_id, revision=s.revision, state=s.state, context=ctx.model_dump(mode="json")
    )


def commit_analysis(
    rt: Runtime,
    doc_id: str,
    chunk: int,
    answer: dict[str, Any],
    *,
    revision: int,
    backend: str = "agent",
) -> ChunkAnalysis:
    """Validate an agent's analysis like an LLM's, store it, and send the document back
    through analysing (retitle, rewrite, verify, index)."""
    from quire.workers.analysis import AnalysisAnswer, validate_answer

    s = _session(rt, doc_id, revision, states=ANALYSABLE)
    plan, c, ctx = _analysis_context(rt, s, chunk)
    others = [
        a
        for o in plan.chunks
        if o.number != chunk and isinstance(a := steps.load_analysis(rt, s, o), ChunkAnalysis)
    ]
    analysis = validate_answer(AnalysisAnswer.model_validate(answer), ctx, backend, others=others)
    rt.store.put(steps.analysis_key(s, c), analysis.model_dump_json().encode())
    s.enter("analysing", time.time())
    rt.repo.commit(s, expected=revision, actor=f"agent:{backend}", why=f"analysis of chunk {chunk}")
    return analysis


# --- repair --------------------------------------------------------------------------------


def repair_context(rt: Runtime, doc_id: str, chunk: int) -> Snapshot:
    from quire.workers.analysis import repair_context as context_for

    s = _session(rt, doc_id, states=ANALYSABLE)
    doc, candidates, _ = _planning_inputs(rt, s)
    ctx = context_for(doc, _plan(rt, s), candidates, chunk)
    return Snapshot(
        doc_id=doc_id, revision=s.revision, state=s.state, context=ctx.model_dump(mode="json")
    )


def repair_boundary(
    rt: Runtime,
    doc_id: str,
    chunk: int,
    *,
    revision: int,
    element_id: str,
    reason: str,
    decider: str = "agent",
) -> Plan:
    """Split one chunk at a listed inner candidate (never a merge or a moved boundary)."""
    from quire.workers.analysis import RepairChoice, split_chunk, validate_repair_choice
    from quire.workers.analysis import repair_context as context_for

    s = _session(rt, doc_id, revision, states=ANALYSABLE)
    doc, candidates, _ = _planning_inputs(rt, s)
    plan = _plan(rt, s)
    ctx = context_for(doc, plan, candidates, chunk)
    choice = validate_repair_choice(
        ctx, RepairChoice(after_id=element_id, reason=reason, decider=decider)
    )
    new_plan = split_chunk(doc, plan, chunk, choice.after_id, choice.reason, choice.decider)
    s.artifacts["plan"] = steps.replace_plan(rt, s, new_plan)
    s.enter("writing", time.time())
    rt.repo.commit(
        s,
        expected=revision,
        actor=f"agent:{decider}",
        why=f"repair: split chunk {chunk} after {element_id}",
    )
    return new_plan


# --- study index ---------------------------------------------------------------------------


def _index_context(rt: Runtime, s: Session, *, track_reads: bool) -> Any:
    from quire.shared.manifest import load_manifest
    from quire.workers.analysis import index_context as context_for

    plan = _plan(rt, s)
    analyses = {
        c.number: a
        for c in plan.chunks
        if isinstance(a := steps.load_analysis(rt, s, c), ChunkAnalysis)
    }
    read = None
    if track_reads:
        read = [
            c.number
            for c in plan.chunks
            if rt.store.exists(steps.work(s, Layout.agent_read(c.first_id, c.last_id)))
        ]
    manifest = load_manifest(rt.store.get(steps.out(s, Layout.MANIFEST)))
    return context_for(manifest, analyses, doc=steps.load_doc(rt, s), read=read)


def index_context(rt: Runtime, doc_id: str) -> Snapshot:
    s = _session(rt, doc_id, states=("complete", "indexing"))
    ctx = _index_context(rt, s, track_reads=True)
    return Snapshot(
        doc_id=doc_id, revision=s.revision, state=s.state, context=ctx.model_dump(mode="json")
    )


def commit_index(
    rt: Runtime, doc_id: str, *, revision: int, en: str, fa: str, study_map: str
) -> list[str]:
    """Validate the agent's indexes (every chunk linked, real files, reading times, Persian
    in the fa index) and store them. Refused until every chunk's context was read."""
    from quire.workers.analysis import validate_index

    s = _session(rt, doc_id, revision, states=("complete", "indexing"))
    ctx = _index_context(rt, s, track_reads=True)
    if ctx.unread:
        raise ValidationFailedError(
            f"indexes refused: chunks {ctx.unread} were never read (analysis-context)"
        )
    validate_index(ctx, en=en, fa=fa, map=study_map)
    files = {Layout.STUDY_INDEX_EN: en, Layout.STUDY_INDEX_FA: fa, Layout.STUDY_MAP: study_map}
    for name, text in files.items():
        rt.store.put(steps.out(s, name), text.encode("utf-8"))
    s.enter("complete", time.time())
    rt.repo.commit(s, expected=revision, actor="agent", why="study index committed")
    return sorted(files)
