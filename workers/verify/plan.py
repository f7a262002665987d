"""Plan checks: consecutive chunks meet exactly (no gap, no overlap) in element order, and no
confirmed topic change falls inside a chunk."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quire.shared.ir import Document
from quire.shared.manifest import Finding, Manifest
from quire.shared.plan import Plan, ReviewOutcome
from quire.workers.verify.findings import Findings


@dataclass(frozen=True)
class ChunkRange:
    number: int
    first_id: str
    last_id: str


def ranges_from_plan(plan: Plan) -> list[ChunkRange]:
    return [ChunkRange(c.number, c.first_id, c.last_id) for c in plan.chunks]


def ranges_from_manifest(manifest: Manifest) -> list[ChunkRange]:
    return [ChunkRange(c.number, c.first_id, c.last_id) for c in manifest.chunks]


def check_plan(
    doc: Document,
    chunks: Sequence[ChunkRange],
    *,
    outcomes: Sequence[ReviewOutcome] | None = None,
    source: str = "plan",
) -> list[Finding]:
    """Findings for `chunks` (in their given order) against the IR's element order.

    `source` names where the ranges came from (the plan or the manifest file) in messages."""
    check = _PlanCheck(doc, source)
    if not chunks:
        if check.ids:
            check.gap(None, 0, len(check.ids) - 1, "of the document")
        return check.findings
    spans = check.spans(chunks)
    check.coverage(spans)
    check.topic_changes(spans, outcomes or ())
    return check.findings


# a chunk with the positions in the IR of its first and last elements
_Span = tuple[ChunkRange, int, int]


class _PlanCheck:
    def __init__(self, doc: Document, source: str) -> None:
        self.ids = [e.id for e in doc.elements]
        self.index = {eid: i for i, eid in enumerate(self.ids)}
        self.source = source
        self.findings = Findings()

    def gap(self, chunk: int | None, a: int, b: int, where: str) -> None:
        ids, n = self.ids, b - a + 1
        self.findings.add(
            "plan_gap",
            f"{self.source}: {ids[a]}..{ids[b]} ({n} element{'s' * (n != 1)}) {where} "
            "belong to no chunk",
            chunk=chunk,
            element_id=ids[a],
        )

    def spans(self, chunks: Sequence[ChunkRange]) -> list[_Span]:
        """The chunks whose ends are elements of the IR in order, numbered or not in turn."""
        source, index, findings = self.source, self.index, self.findings
        spans: list[_Span] = []
        for k, c in enumerate(chunks, 1):
            if c.number != k:
                findings.add(
                    "plan_gap",
                    f"{source}: chunk numbers are not 1, 2, 3...: position {k} is {c.number}",
                    chunk=c.number,
                )
            unknown = [x for x in (c.first_id, c.last_id) if x not in index]
            for x in unknown:
                findings.add(
                    "unknown",
                    f"{source}: chunk {c.number} names {x}, which is not in the IR",
                    chunk=c.number,
                    element_id=x,
                )
            if unknown:
                continue
            a, b = index[c.first_id], index[c.last_id]
            if b < a:
                findings.add(
                    "plan_overlap",
                    f"{source}: chunk {c.number} is reversed ({c.first_id} after {c.last_id})",
                    chunk=c.number,
                    element_id=c.first_id,
                )
                continue
            spans.append((c, a, b))
        return spans

    def coverage(self, spans: list[_Span]) -> None:
        """Gaps before, between and after the chunks, and chunks that overlap."""
        prev: _Span | None = None
        for c, a, b in spans:
            if prev is None:
                if a > 0:
                    self.gap(c.number, 0, a - 1, f"before chunk {c.number}")
            else:
                p, _, pb = prev
                if a > pb + 1:
                    self.gap(c.number, pb + 1, a - 1, f"between chunks {p.number} and {c.number}")
                elif a <= pb:
                    self.findings.add(
                        "plan_overlap",
                        f"{self.source}: chunk {c.number} starts at {c.first_id}, inside chunk "
                        f"{p.number} (which ends at {p.last_id}); {pb - a + 1} element(s) in both",
                        chunk=c.number,
                        element_id=c.first_id,
                    )
            prev = (c, a, b)
        last = len(self.ids) - 1
        if prev is not None and prev[2] < last:
            self.gap(prev[0].number, prev[2] + 1, last, f"after the last chunk ({prev[0].number})")

    def topic_changes(self, spans: list[_Span], outcomes: Sequence[ReviewOutcome]) -> None:
        """Chunks running across a topic change the reviewers confirmed."""
        for o in outcomes:
            if o.decision != "confirmed_change" or o.after_id not in self.index:
                continue
            i = self.index[o.after_id]
            for c, a, b in spans:
                if a <= i < b:
                    self.findings.add(
                        "topic_crossed",
                        f"{self.source}: reviewers confirmed a topic change after {o.after_id}, "
                        f"but chunk {c.number} runs on to {c.last_id}; cut there",
                        chunk=c.number,
                        element_id=o.after_id,
                    )
