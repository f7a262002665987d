"""Retrieval-chunk throughput next to the study-session pipeline on real documents.

    python3 bench/bench_rag.py [--docs r-intro.pdf gnuplot-manual.pdf] [--max-chars 2000]

For each document it times the session pipeline (parse, score + plan with the heuristic
decider, write Markdown, verify without render-compare) and then, on that IR and plan:
`rag_chunks` for both algorithms (chunks/s, best of `--repeat`), the concatenation proof
`verify_rag`, and heuristic enrichment (uncached).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from corpus import CORPUS  # noqa: E402  (tests/corpus.py: the one definition)

from quire.shared.ir import dump_ir  # noqa: E402
from quire.shared.plan import Plan, PlanSettings  # noqa: E402
from quire.shared.rag import Algorithm, RagChunk  # noqa: E402
from quire.workers.boundaries import (  # noqa: E402
    HeuristicDecider,
    plan_document,
    safe_candidates,
    score_candidates,
)
from quire.workers.parse import parse_document  # noqa: E402
from quire.workers.rag import RagProblem, rag_chunks, verify_rag  # noqa: E402
from quire.workers.rag.enrich import enrich_all  # noqa: E402
from quire.workers.verify.report import verify_output  # noqa: E402
from quire.workers.write import save_files, write_all  # noqa: E402

DEFAULT_DOCS = ["r-intro.pdf", "gnuplot-manual.pdf", "python-logging-howto-cookbook.docx"]
T = TypeVar("T")


def timed(fn: Callable[[], T], repeat: int = 1) -> tuple[float, T]:
    """Best wall time of `repeat` runs, and the last result."""
    best = float("inf")
    result: T
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - started)
    return best, result


def bench(name: str, max_chars: int, repeat: int) -> None:
    t_parse, parsed = timed(lambda: parse_document(CORPUS / name))
    doc = parsed.document

    def plan_it() -> Plan:
        cands = score_candidates(doc, safe_candidates(doc))
        return plan_document(doc, cands, {}, PlanSettings(), HeuristicDecider())

    t_plan, plan = timed(plan_it)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        t_write, files = timed(
            lambda: write_all(
                doc, plan, formats={"markdown"}, source_pdf=None, images=parsed.images
            )
        )
        files["ir.json"] = dump_ir(doc)
        files["plan.json"] = plan.model_dump_json().encode()
        save_files(out, files)
        t_verify, report = timed(lambda: verify_output(out, render=False))
    assert report.passed, report.findings[:3]
    pipeline = t_parse + t_plan + t_write + t_verify
    chars = sum(len(e.text) for e in doc.elements)
    print(
        f"\n{name}: {doc.page_count} pages, {len(doc.elements)} elements, {chars:,} chars, "
        f"{len(plan.chunks)} sessions"
    )
    print(
        f"  session pipeline {pipeline:6.2f}s  (parse {t_parse:.2f}s, score+plan "
        f"{t_plan:.2f}s, write md {t_write:.2f}s, verify {t_verify:.2f}s)"
    )
    algorithms: tuple[Algorithm, ...] = ("hierarchical", "linear")
    for algorithm in algorithms:

        def cut(a: Algorithm = algorithm) -> list[RagChunk]:
            return rag_chunks(doc, plan, max_chars=max_chars, algorithm=a)

        t_rag, chunks = timed(cut, repeat)

        def prove(c: list[RagChunk] = chunks) -> list[RagProblem]:
            return verify_rag(doc, plan, c, max_chars)

        t_proof, problems = timed(prove, repeat)
        assert problems == [], problems[:3]
        print(
            f"  rag {algorithm:12s} {len(chunks):5d} chunks in {t_rag:5.3f}s = "
            f"{len(chunks) / t_rag:8.0f} chunks/s ({t_rag / pipeline:.1%} of the pipeline); "
            f"proof {t_proof:5.3f}s"
        )
    chunks = rag_chunks(doc, plan, max_chars=max_chars)
    t_enrich, result = timed(lambda: enrich_all(chunks, doc, plan, "heuristic"))
    print(
        f"  heuristic enrichment {t_enrich:5.3f}s = {len(chunks) / t_enrich:6.0f} chunks/s, "
        f"{len(result.failures)} failures"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", nargs="+", default=DEFAULT_DOCS)
    ap.add_argument("--max-chars", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for name in args.docs:
        bench(name, args.max_chars, args.repeat)


if __name__ == "__main__":
    main()
