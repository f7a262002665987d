"""The agent loop: an external agent (CLI, MCP host) reads contexts and commits decisions.

Every read returns the job revision it was made at; every commit names that revision
and is refused with a ConflictError when the document changed in between (re-read the
context and decide again). Decisions pass the same validation as LLM deciders: only listed
candidates, evidence-gated extensions, specific reasons.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, TypeAdapter

from quire.shared.analysis import ChunkAnalysis
from quire.shared.errors import ConflictError, ValidationFailedError
from quire.shared.ir import Document
from quire.shared.job import Job
from quire.shared.layout import Layout
from quire.shared.plan import (
    Boundary,
    Candidate,
    Plan,
    ReviewOutcome,
)
from quire.workers import steps
from quire.workers.runtime import Runtime

_boundaries = TypeAdapter(list[Boundary])


class Snapshot(BaseModel):
    """What an agent read, and the revision its next commit must name."""

    doc_id: str
    revision: int
    state: str
    context: dict[str, Any] | None  # None: nothing left to decide at this step

    @classmethod
    def of(cls, s: Job, context: BaseModel | None) -> Snapshot:
        """The job as read, and what was read from it (None: nothing left to decide)."""
        shown = context.model_dump(mode="json") if context is not None else None
        return cls(doc_id=s.doc_id, revision=s.revision, state=s.state, context=shown)


def session_at(
    rt: Runtime, doc_id: str, revision: int | None = None, states: tuple[str, ...] = ()
) -> Job:
    """The document's session; refused when it is no longer at `revision` (ConflictError:
    re-read and decide again) or not in one of `states`."""
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
    rt: Runtime, s: Job
) -> tuple[Document, list[Candidate], dict[str, ReviewOutcome]]:
    doc = steps.load_doc(rt, s)
    candidates = steps.load_candidates(rt, s)
    outcomes = {o.after_id: o for o in steps.load_outcomes(rt, s)}
    return doc, candidates, outcomes


def _agent_boundaries(rt: Runtime, s: Job) -> list[Boundary]:
    key = s.done.get("agent-boundaries")
    return _boundaries.validate_json(rt.store.get(key)) if key else []


# --- boundaries ----------------------------------------------------------------------------


def boundary_context(rt: Runtime, doc_id: str) -> Snapshot:
    from quire.workers.boundaries.planner import boundary_context as context_for

    s = session_at(rt, doc_id, states=("awaiting_decision",))
    doc, candidates, outcomes = _planning_inputs(rt, s)
    ctx = context_for(doc, candidates, outcomes, s.settings.plan, _agent_boundaries(rt, s))
    return Snapshot.of(s, ctx)


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

    s = session_at(rt, doc_id, revision, states=("awaiting_decision",))
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


def boundary_context_or_done(rt: Runtime, s: Job) -> Snapshot:
    if s.state == "awaiting_decision":
        return boundary_context(rt, s.doc_id)
    return Snapshot.of(s, None)


def finish_plan(rt: Runtime, doc_id: str, *, revision: int) -> Snapshot:
    """Write the plan when no boundary decision is left (e.g. the whole document fits in one
    chunk, so `boundary_context` has nothing to ask) and send the document on to writing."""
    from quire.workers.boundaries.planner import boundary_context as context_for
    from quire.workers.boundaries.planner import plan_from_boundaries

    s = session_at(rt, doc_id, revision, states=("awaiting_decision",))
    doc, candidates, outcomes = _planning_inputs(rt, s)
    so_far = _agent_boundaries(rt, s)
    if context_for(doc, candidates, outcomes, s.settings.plan, so_far) is not None:
        raise ValidationFailedError(
            "boundary decisions are still open: read the boundary context and commit them first"
        )
    s.artifacts["plan"] = steps.save_plan(rt, s, plan_from_boundaries(doc, s.settings.plan, so_far))
    s.enter("writing", time.time())
    new = rt.repo.commit(s, expected=revision, actor="agent", why="plan complete")
    return Snapshot.of(new, None)


# --- chunks and analyses -------------------------------------------------------------------


def _plan(rt: Runtime, s: Job) -> Plan:
    return steps.load_plan(rt, s)


def get_chunk(rt: Runtime, doc_id: str, chunk: int) -> dict[str, Any]:
    from quire.workers.write import chunk_elements

    s = session_at(rt, doc_id)
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


def _analysis_context(rt: Runtime, s: Job, chunk: int) -> tuple[Plan, Any, Any]:
    """The plan, the chunk and its analysis context."""
    from quire.workers.analysis import build_context

    doc, candidates, _ = _planning_inputs(rt, s)
    plan = _plan(rt, s)
    c = _chunk(plan, chunk)
    stats = steps.load_stats(rt, s, doc, candidates)
    return plan, c, build_context(doc, plan, chunk, candidates=candidates, stats=stats)


def analysis_context(rt: Runtime, doc_id: str, chunk: int) -> Snapshot:
    s = session_at(rt, doc_id, states=ANALYSABLE)
    _, _, ctx = _analysis_context(rt, s, chunk)
    rt.store.put(steps.work(s, Layout.agent_read(ctx.first_id, ctx.last_id)), b"")
    return Snapshot.of(s, ctx)


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

    s = session_at(rt, doc_id, revision, states=ANALYSABLE)
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

    s = session_at(rt, doc_id, states=ANALYSABLE)
    doc, candidates, _ = _planning_inputs(rt, s)
    ctx = context_for(doc, _plan(rt, s), candidates, chunk)
    return Snapshot.of(s, ctx)


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

    s = session_at(rt, doc_id, revision, states=ANALYSABLE)
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


def _index_context(rt: Runtime, s: Job, *, track_reads: bool) -> Any:
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
    s = session_at(rt, doc_id, states=("complete", "indexing"))
    ctx = _index_context(rt, s, track_reads=True)
    return Snapshot.of(s, ctx)


def commit_index(
    rt: Runtime, doc_id: str, *, revision: int, en: str, fa: str, study_map: str
) -> list[str]:
    """Validate the agent's indexes (every chunk linked, real files, reading times, Persian
    in the fa index) and store them. Refused until every chunk's context was read."""
    from quire.workers.analysis import validate_index

    s = session_at(rt, doc_id, revision, states=("complete", "indexing"))
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
