"""The sweep's planning alone, again, in seconds: `bench_sweep.py --plan-only`.

Planning changes are judged on the sweep's plan figures (chapter starts honoured beside the
naive splitter, the share of study sessions of 5-13 pages), but a whole sweep takes an
hour. This plans the sweep's documents again from their IRs, the way an unattended offline
run plans them (safe candidates, scores, the heuristic reviewers' outcomes, `plan_globally`),
and prints the same plan figures, before any analysis, writing or verification.

IRs come from a previous sweep's work folder (`WORK/out/<stem>/ir.json`, what the batch
planned and wrote) or, when a document has none, from parsing it once into
`WORK/ir/<stem>.json`, reused on the next run. The offline run's `settle` step (analysis
repairs of `needs_review` sessions) is not run, so a repaired session can differ from the
batch's; it is rare, and the figures are otherwise the batch's.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from sweep_docs import SweepDoc
from sweep_metrics import PlanFigures, print_plan_totals, range_figures

from quire.shared.errors import InputError
from quire.shared.ir import Document, dump_ir, load_ir
from quire.shared.plan import Plan, PlanSettings
from quire.workers.boundaries import review_tasks, safe_candidates, score_candidates
from quire.workers.boundaries.planner import plan_globally
from quire.workers.parse import parse_document
from quire.workers.review import make_reviewer, review_all

RULES = PlanSettings()


@dataclass
class Replanned:
    doc: SweepDoc
    figures: PlanFigures | None  # None: no IR (input refused) or no study session
    sizes: list[str]  # per session: pages, "[n]" for reference sessions
    seconds: float


def load_or_parse(doc: SweepDoc, work: Path) -> Document | None:
    """The document's IR: the batch's, else a cached parse, else a parse (cached)."""
    written = work / "out" / doc.path.stem / "ir.json"
    if written.is_file():
        return load_ir(written.read_bytes())
    cached = work / "ir" / f"{doc.path.stem}.json"
    if cached.is_file():
        return load_ir(cached.read_bytes())
    try:
        ir = parse_document(doc.path).document
    except InputError:
        return None
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(dump_ir(ir))
    return ir


def replan(ir: Document) -> Plan:
    """The offline run's plan of `ir` (without `settle`'s repairs)."""
    cands = score_candidates(ir, safe_candidates(ir))
    outcomes = review_all(review_tasks(ir, cands), ir.by_id(), make_reviewer("heuristic"))
    return plan_globally(ir, cands, {o.after_id: o for o in outcomes}, RULES)


def replan_document(doc: SweepDoc, work: Path) -> Replanned:
    ir = load_or_parse(doc, work)
    if ir is None or not ir.elements:
        return Replanned(doc, None, [], 0.0)
    start = time.perf_counter()
    plan = replan(ir)
    seconds = time.perf_counter() - start
    ranges = [(c.page_first, c.page_last) for c in plan.chunks]
    study = [c.kind == "study" for c in plan.chunks]
    sizes = [
        f"{b - a + 1}" if st else f"[{b - a + 1}]" for (a, b), st in zip(ranges, study, strict=True)
    ]
    figures = range_figures(ir, ranges, study) if any(study) else None
    return Replanned(doc, figures, sizes, seconds)


def replan_all(docs: list[SweepDoc], work: Path) -> list[Replanned]:
    """`replan_document` of every document, in order, one process per core (documents are
    independent; one process took about 5 minutes for the sweep's 348 on two slow cores)."""
    with ProcessPoolExecutor(os.cpu_count()) as pool:
        return list(pool.map(partial(replan_document, work=work), docs, chunksize=4))


def report(results: list[Replanned]) -> None:
    """Per document its sessions and figures, then the sweep's plan summary lines."""
    print(f"{'package':<16}{'document':<46}{'5-13':>6}{'chapters':>10}{'naive':>7}  sessions")
    for r in results:
        f = r.figures
        if f is None:
            print(f"{r.doc.package.removeprefix('texlive-'):<16}{r.doc.name[:44]:<46}  no plan")
            continue
        share = "n/a" if f.share_5_13 is None else f"{f.share_5_13:.0%}"
        print(
            f"{r.doc.package.removeprefix('texlive-'):<16}{r.doc.name[:44]:<46}{share:>6}"
            f"{f'{f.honoured}/{f.chapters}':>10}{f.naive_honoured:>7}  {' '.join(r.sizes)}"
        )
    figs = [r.figures for r in results if r.figures is not None]
    print()
    print_plan_totals(figs)
    print(f"planning time: {sum(r.seconds for r in results):.1f} s for {len(results)} documents")
