"""Analyse a plan's study sessions and repair the incoherent ones, until nothing changes.

    settle(doc, plan, candidates, backend) -> Settled(plan, analyses, repairs)

One analysis per chunk content: analyses are keyed by element range, a chunk that already
has one (`known`) is never analysed again, and a repair analyses only the two pieces it
made. A range is repaired at most once (`repaired`); its pieces may be in turn, and every
split leaves at least the minimum on both sides, so this ends. Reference sessions (front
and back matter) get no analysis and no repair. The settled plan is retitled: each study
chunk takes its analysed English topic.

With the offline backend the planning step settles the plan before anything is written,
so the chunks are written once with their final titles; with an LLM backend the analyses
run in parallel in the analysing state and the repairing step settles what they found.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from quire.shared.analysis import AnalysisFailure, ChunkAnalysis
from quire.shared.ir import Document
from quire.shared.plan import Candidate, Plan
from quire.shared.settings import Settings
from quire.workers.analysis.context import DocumentStats, build_context
from quire.workers.analysis.repair import (
    make_repair_decider,
    repair_context,
    retitle_plan,
    split_chunk,
    stays_whole,
)
from quire.workers.analysis.run import analyse_chunk
from quire.workers.llm import JsonBackend

Range = tuple[str, str]  # (first_id, last_id)
Result = ChunkAnalysis | AnalysisFailure


@dataclass(frozen=True)
class RepairRecord:
    """What one repair did to the range it was asked about."""

    first_id: str
    last_id: str
    chunk: int
    split_after: str | None  # None: the chunk stays whole
    reason: str


@dataclass
class Settled:
    plan: Plan
    analyses: dict[Range, Result]  # every study chunk of `plan`, by range
    repairs: list[RepairRecord] = field(default_factory=list)
    analysed: list[Range] = field(default_factory=list)  # ranges analysed by this call


def settle(
    doc: Document,
    plan: Plan,
    candidates: Sequence[Candidate],
    backend: str | JsonBackend,
    *,
    known: Mapping[Range, Result] | None = None,
    repaired: Sequence[Range] = (),
    stats: DocumentStats | None = None,
    env: Settings | None = None,
) -> Settled:
    """Analyse what has no analysis, repair `needs_review` chunks not repaired before,
    analyse the pieces, and so on; then retitle (see the module docstring)."""
    stats = stats or DocumentStats.of(doc, candidates)
    analyses: dict[Range, Result] = dict(known or {})
    done = set(repaired)
    decider = make_repair_decider(backend, env=env)
    out = Settled(plan, analyses)
    while True:
        for chunk in out.plan.chunks:
            key = (chunk.first_id, chunk.last_id)
            if chunk.kind != "study" or key in analyses:
                continue
            context = build_context(doc, out.plan, chunk.number, candidates=candidates, stats=stats)
            others = _current(out.plan, analyses)
            analyses[key] = analyse_chunk(context, backend, others=others, env=env)
            out.analysed.append(key)
        todo = [
            c
            for c in out.plan.chunks
            if c.kind == "study"
            and (c.first_id, c.last_id) not in done
            and isinstance(a := analyses.get((c.first_id, c.last_id)), ChunkAnalysis)
            and a.coherence == "needs_review"
        ]
        if not todo:
            break
        for chunk in reversed(todo):  # last first: earlier numbers do not move
            key = (chunk.first_id, chunk.last_id)
            done.add(key)
            analysis = analyses[key]
            why = analysis.reason if isinstance(analysis, ChunkAnalysis) else None
            where = repair_context(doc, out.plan, candidates, chunk.number, why=why, stats=stats)
            if not where.candidates:
                out.repairs.append(RepairRecord(*key, chunk.number, None, stays_whole(where)))
                continue
            choice = decider.decide(where)
            out.plan = split_chunk(
                doc, out.plan, chunk.number, choice.after_id, choice.reason, choice.decider
            )
            out.repairs.append(RepairRecord(*key, chunk.number, choice.after_id, choice.reason))
    current = {(c.first_id, c.last_id) for c in out.plan.chunks}
    out.analyses = {k: v for k, v in analyses.items() if k in current}
    out.plan = retitle_plan(out.plan, _current(out.plan, out.analyses))
    return out


def _current(plan: Plan, analyses: Mapping[Range, Result]) -> list[ChunkAnalysis]:
    """The analyses of `plan`'s chunks, numbered as in `plan`."""
    out = []
    for c in plan.chunks:
        a = analyses.get((c.first_id, c.last_id))
        if isinstance(a, ChunkAnalysis):
            out.append(a if a.chunk == c.number else a.model_copy(update={"chunk": c.number}))
    return out
