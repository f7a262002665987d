"""Topic changes without headings: Quire's change scorer and plan against TextTiling, on
Choi-style documents built from the corpus.

    python3 bench/bench_topics.py [--seeds 5] [--variants documents chapters] [--no-plan]

Each document is 10 segments of body paragraphs (no headings, no short lines), 6-11 pages
each (words / 400), written as a DOCX of plain paragraphs:
- variant "documents": every segment from a different manual of the corpus;
- variant "chapters": every segment from a different chapter of one book (r-fullrefman,
  r-exts or the beamer user guide, by seed; beamer has only 5 chapters long enough).

For each document and method it prints the recall of the true switches within
`--tolerance` words (150), Pk and WindowDiff (k = half the mean true segment length, one
flag per word gap), then the means per variant:
- scorer: Quire's `score_candidates` alone, its k best candidates (k = number of switches);
- plan: the cuts of `quire run --backend heuristic` on the DOCX (the whole pipeline, so
  whatever planner the code has); its `ir.json` is the IR every method is measured on;
- texttiling: NLTK's TextTilingTokenizer (default settings, the scorer's English stop
  words), its k deepest boundaries.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from choi import (  # noqa: E402
    ChoiDocument,
    Variant,
    build_choi,
    pk,
    pools_by_chapter,
    pools_by_document,
    recall_within,
    windowdiff,
    write_docx,
)
from corpus import CORPUS  # noqa: E402  (tests/corpus.py: the one definition)
from texttiling import top_k_boundaries  # noqa: E402

from quire.shared.ir import Document, dump_ir, load_ir  # noqa: E402
from quire.workers.boundaries import safe_candidates, score_candidates  # noqa: E402
from quire.workers.boundaries.tokens import stop_words  # noqa: E402
from quire.workers.parse import parse_document  # noqa: E402

# English manuals with at least 11 pages of body paragraphs (hashlib has 5).
DOCUMENTS = [
    "r-intro.pdf",
    "r-exts.pdf",
    "r-lang-tail-cut.pdf",
    "r-fullrefman.pdf",
    "gnuplot-manual.pdf",
    "beamer-user-guide.pdf",
    "amsmath-user-guide.pdf",
    "siunitx-manual.pdf",
    "fhs-3.0.pdf",
    "freefem-manual-scanned-pages.pdf",
    "maint-guide-permissions-restricted.pdf",
    "python-logging-howto-cookbook.docx",
    "debian-handbook-en-ch12-14.docx",
]
BOOKS = ["r-fullrefman.pdf", "r-exts.pdf", "beamer-user-guide.pdf"]
METHODS = ("scorer", "plan", "texttiling")


@dataclass
class Result:
    recall: float
    pk: float
    wd: float
    cuts: int
    failure: str | None = None  # the plan's run failed (counted as no cuts)


def parsed_sources(names: Sequence[str], cache: Path | None) -> dict[str, Document]:
    """The IR of each corpus file (read from `cache` if it holds one, written there if not)."""
    out: dict[str, Document] = {}
    for name in names:
        cached = cache / f"{name}.ir.json" if cache else None
        if cached and cached.exists():
            out[name] = load_ir(cached.read_bytes())
            continue
        out[name] = parse_document(CORPUS / name).document
        if cached:
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.write_bytes(dump_ir(out[name]))
    return out


def choi_documents(
    variants: Sequence[Variant], seeds: int, sources: dict[str, Document]
) -> list[ChoiDocument]:
    docs: list[ChoiDocument] = []
    for variant in variants:
        for seed in range(seeds):
            if variant == "documents":
                pools = pools_by_document({n: sources[n] for n in DOCUMENTS})
                name = f"documents-{seed}"
            else:
                book = BOOKS[seed % len(BOOKS)]
                pools = pools_by_chapter(sources[book], book)
                name = f"chapters-{seed}-{Path(book).stem}"
            docs.append(build_choi(pools, variant=variant, seed=seed, name=name))
    return docs


def run_quire(docx: Path, work: Path) -> tuple[Document, list[str]] | str:
    """`quire run` on the DOCX in a private store: the IR and the plan's cut element ids,
    or why the run failed."""
    out = work / "out"
    env = dict(os.environ, QUIRE_STORE_URL=str(work / "store"), QUIRE_STATE_DIR=str(work))
    env.pop("QUIRE_BROKER_URL", None)
    env.pop("QUIRE_REDIS_URL", None)
    cmd = [
        sys.executable,
        "-m",
        "quire.orchestrator.cli",
        "run",
        "--input",
        str(docx),
        "--out",
        str(out),
        "--backend",
        "heuristic",
        "--processes",
        "1",
    ]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "no output"
    plan = json.loads((out / "plan.json").read_text())
    return load_ir((out / "ir.json").read_bytes()), [b["after_id"] for b in plan["boundaries"]]


def checked_ends(ir: Document, choi: ChoiDocument) -> list[int]:
    """Word count after each paragraph, from the IR (what Quire measures); the IR must be
    exactly the document's paragraphs, or the true boundaries would not map."""
    if len(ir.elements) != len(choi.paragraphs) or any(e.type != "paragraph" for e in ir.elements):
        kinds = sorted({e.type for e in ir.elements})
        raise RuntimeError(
            f"{choi.name}: IR has {len(ir.elements)} elements ({kinds}), the DOCX "
            f"{len(choi.paragraphs)} paragraphs"
        )
    return list(accumulate(e.word_count for e in ir.elements))


def scorer_top_k(ir: Document, k: int) -> tuple[list[str], float]:
    started = time.perf_counter()
    scored = score_candidates(ir, safe_candidates(ir))
    elapsed = time.perf_counter() - started
    best = sorted(scored, key=lambda c: -c.score)[:k]
    return [c.after_id for c in best], elapsed


def measure(truth: list[int], found: list[int], total: int, tolerance: int) -> Result:
    return Result(
        recall=recall_within(truth, found, tolerance),
        pk=pk(truth, found, total),
        wd=windowdiff(truth, found, total),
        cuts=len(found),
    )


def evaluate(
    choi: ChoiDocument, work: Path, tolerance: int, with_plan: bool
) -> tuple[dict[str, Result], dict[str, float]]:
    docx = write_docx(choi, work / f"{choi.name}.docx")
    times: dict[str, float] = {}
    started = time.perf_counter()
    run = run_quire(docx, work / choi.name) if with_plan else "not run"
    times["quire run" if with_plan else "parse"] = time.perf_counter() - started
    plan_ids: list[str]
    if isinstance(run, str):  # a failed run plans nothing: no cuts, and the reason shown
        ir, plan_ids, failure = parse_document(docx).document, [], run
    else:
        (ir, plan_ids), failure = run, None
    ends = checked_ends(ir, choi)
    index = {e.id: i for i, e in enumerate(ir.elements)}
    truth = [ends[b] for b in choi.boundaries()]
    k = len(truth)
    scorer_ids, times["scorer"] = scorer_top_k(ir, k)
    started = time.perf_counter()
    tiles = top_k_boundaries(choi.paragraphs, k, sorted(stop_words("en")))
    times["texttiling"] = time.perf_counter() - started
    found: dict[str, list[int]] = {
        "scorer": [ends[index[i]] for i in scorer_ids],
        "texttiling": [ends[j] for j in tiles],
    }
    if with_plan:
        found["plan"] = [ends[index[i]] for i in plan_ids]
    results = {m: measure(truth, f, ends[-1], tolerance) for m, f in found.items()}
    if with_plan and failure:
        results["plan"].failure = failure
    return results, times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="documents per variant")
    ap.add_argument(
        "--variants",
        nargs="+",
        default=["documents", "chapters"],
        choices=["documents", "chapters"],
    )
    ap.add_argument("--tolerance", type=int, default=150, help="words")
    ap.add_argument("--no-plan", action="store_true", help="skip `quire run` (scorer only)")
    ap.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="folder to keep the parsed corpus IRs in between runs",
    )
    args = ap.parse_args()
    started = time.perf_counter()
    names = sorted(
        set(DOCUMENTS if "documents" in args.variants else [])
        | set(BOOKS if "chapters" in args.variants else [])
    )
    sources = parsed_sources(names, args.cache)
    docs = choi_documents(args.variants, args.seeds, sources)
    print(
        f"built {len(docs)} documents from {len(sources)} sources in "
        f"{time.perf_counter() - started:.1f}s; recall within {args.tolerance} words"
    )
    methods = [m for m in METHODS if m != "plan" or not args.no_plan]
    rows: dict[str, dict[str, list[Result]]] = {}
    timing: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-topics-") as tmp:
        for choi in docs:
            results, times = evaluate(choi, Path(tmp), args.tolerance, not args.no_plan)
            for what, seconds in times.items():
                timing.setdefault(what, []).append(seconds)
            pages = [f"{s.pages:.1f}" for s in choi.segments]
            print(
                f"\n{choi.name}: {len(choi.segments)} segments of {', '.join(pages)} pages, "
                f"{len(choi.segments) - 1} switches"
            )
            for m in methods:
                r = results[m]
                rows.setdefault(choi.variant, {}).setdefault(m, []).append(r)
                print(
                    f"  {m:10s} recall {r.recall:5.0%}  Pk {r.pk:.3f}  WindowDiff "
                    f"{r.wd:.3f}  ({r.cuts} cuts)"
                    + (f"  RUN FAILED: {r.failure}" if r.failure else "")
                )
    print("\nmeans")
    for variant, by_method in rows.items():
        for m in methods:
            rs = by_method[m]
            print(
                f"  {variant:9s} {m:10s} recall {_mean(rs, lambda r: r.recall):5.1%}  "
                f"Pk {_mean(rs, lambda r: r.pk):.3f}  WindowDiff "
                f"{_mean(rs, lambda r: r.wd):.3f}  (n={len(rs)}"
                + (
                    f", {failed} failed runs)"
                    if (failed := sum(bool(r.failure) for r in rs))
                    else ")"
                )
            )
    print(
        "\nmedian seconds per document: "
        + ", ".join(f"{what} {statistics.median(v):.3f}" for what, v in timing.items())
    )


def _mean(results: list[Result], field: Callable[[Result], float]) -> float:
    return statistics.fmean(field(r) for r in results)


if __name__ == "__main__":
    main()
