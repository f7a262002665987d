"""Planner benchmark: the global plan beside the previous greedy plan and a naive splitter.

    python3 bench/bench_plan.py [--docs NAME ...] [--ir-dir DIR] [--books PATH ...] [--debian]

For every corpus PDF with an outline, and every EPUB or HTML book (`--books`: EPUB files,
HTML files or folders of chapters; default the test books in tests/data; `--debian` adds
the whole New Maintainers' Guide in English and Chinese as bench/bench_epub.py fetches it),
it prints, for three planners side by side in the same run:

- global: `plan_globally` (the unattended planner), on the heuristic reviewers' outcomes;
- greedy: the previous one-boundary-at-a-time planner (`plan_document` with the
  `HeuristicDecider`), on the same candidates and outcomes;
- naive: cut at every top-level outline entry, split long chapters evenly into pieces of
  at most 12 pages, merge pieces under 5 pages into the next (page ranges, so its cuts
  fall at arbitrary page breaks: the "safe" column counts those at a safe candidate).

Beside them, the page-level oracle: the most chapter starts any plan could honour under
the size rules, free to cut at any page (`plan_metrics.oracle_honoured`), so every
document shows what was possible beside what each planner did.

Columns: study sessions (reference sessions in brackets), the share of study sessions of
5-13 pages, the smallest and largest study session, runts (study sessions under 5 pages
the runt rule does not allow: joining one to a neighbouring study session would not pass
13 pages), chapter starts honoured (top-level outline entries at least 5 pages after the
previous counted one; honoured when a session starts on that page or the next), chapters
the outline places after the contents that front or back matter holds, and the share of
cuts at a safe candidate. Then totals: chapter starts honoured overall and the documents
where a planner honours at least as many as the naive splitter, planning time of the
global and greedy planners, and peak memory.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

from bench_epub import DEFAULT as TEST_BOOKS  # noqa: E402
from bench_epub import debian_books  # noqa: E402
from corpus import CORPUS  # noqa: E402  (tests/corpus.py: the one definition)
from plan_metrics import (  # noqa: E402
    chapter_starts,
    chapters_in_matter,
    honoured,
    naive_split,
    oracle_honoured,
    runts,
    safe_page_cuts,
)

from quire.shared.errors import InputError  # noqa: E402
from quire.shared.ir import Document, load_ir  # noqa: E402
from quire.shared.plan import Plan, PlanSettings  # noqa: E402
from quire.workers.boundaries import (  # noqa: E402
    HeuristicDecider,
    plan_document,
    review_tasks,
    safe_candidates,
    score_candidates,
)
from quire.workers.boundaries.planner import plan_globally  # noqa: E402
from quire.workers.parse import parse_document  # noqa: E402
from quire.workers.review import make_reviewer, review_all  # noqa: E402

RULES = PlanSettings()


@dataclass
class Sessions:
    """A plan as page ranges, with the kind of each (study or reference)."""

    ranges: list[tuple[int, int]]
    study: list[bool]
    safe: tuple[int, int]  # cuts at a safe candidate, all cuts


def from_plan(plan: Plan, kinds: bool = True) -> Sessions:
    """`kinds=False`: every session counts as study (the greedy planner had no kinds)."""
    cuts = len(plan.chunks) - 1
    return Sessions(
        [(c.page_first, c.page_last) for c in plan.chunks],
        [c.kind == "study" or not kinds for c in plan.chunks],
        (cuts, cuts),
    )


def naive(doc: Document) -> Sessions:
    ranges = naive_split(doc, RULES)
    return Sessions(ranges, [True] * len(ranges), (safe_page_cuts(doc, ranges), len(ranges) - 1))


@dataclass
class Row:
    sessions: int
    reference: int
    share: float | None
    smallest: float
    largest: float
    runts: int
    honoured: int
    chapters: int
    held: int  # chapters after the contents that front or back matter holds
    safe: tuple[int, int]


def measure(doc: Document, s: Sessions) -> Row:
    sizes = [b - a + 1 for a, b in s.ranges]
    study = [n for n, st in zip(sizes, s.study, strict=True) if st]
    done, chapters = honoured(doc, {a for a, _ in s.ranges})
    share = (
        sum(RULES.min_pages <= n <= RULES.soft_max_pages for n in study) / len(study)
        if len(study) > 1
        else None
    )
    return Row(
        len(study),
        len(sizes) - len(study),
        share,
        min(study),
        max(study),
        len(runts(s.ranges, s.study, RULES)),
        done,
        chapters,
        len(chapters_in_matter(doc, s.ranges, s.study)),
        s.safe,
    )


def load(path: Path, ir_dir: Path | None) -> Document | None:
    if ir_dir is not None and (ir_dir / f"{path.name}.json").exists():
        return load_ir((ir_dir / f"{path.name}.json").read_bytes())
    try:
        return parse_document(path).document
    except InputError:
        return None


def plannable(doc: Document | None, book: bool) -> bool:
    """Documents with chapters to honour: PDFs with an outline, and every EPUB or HTML book
    (its navigation is the outline; its pages are print pages or estimates). The corpus's
    DOCX files have estimated pages and no outline a reader checks against, so they stay out."""
    if doc is None or len(chapter_starts(doc)) < 2:
        return False
    return book or doc.page_basis == "pdf"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", nargs="*", help="corpus file names (default: every PDF)")
    ap.add_argument("--ir-dir", type=Path, help="read NAME.json IRs from here when present")
    ap.add_argument("--books", nargs="*", type=Path, help="EPUB/HTML books (default: tests/data)")
    ap.add_argument("--debian", action="store_true", help="add the whole maint-guide (en, zh)")
    args = ap.parse_args()
    names = sorted(p.name for p in CORPUS.glob("*.pdf")) if args.docs is None else args.docs
    books = [*(TEST_BOOKS if args.books is None else args.books)]
    books += debian_books(None) if args.debian else []
    paths = [(CORPUS / n, False) for n in names] + [(b, True) for b in books]
    head = f"{'document':<28}{'planner':<8}{'sessions':>12}{'5-13':>7}{'min':>5}{'max':>5}"
    print(head + f"{'runts':>6}{'chapters':>10}{'held':>5}{'safe cuts':>11}")
    totals: dict[str, list[int]] = {}
    shares: dict[str, list[float]] = {}
    short: dict[str, int] = {}
    at_least_naive: dict[str, list[int]] = {}
    oracle = [0, 0]
    timing = {"global": 0.0, "greedy": 0.0}
    pages_planned = 0
    for path, book in paths:
        doc = load(path, args.ir_dir)
        if doc is None or not plannable(doc, book):
            continue
        name = path.name if path.name != "html" else path.parent.name  # Debian's .../NAME/html
        cands = score_candidates(doc, safe_candidates(doc))
        outcomes = {
            o.after_id: o
            for o in review_all(review_tasks(doc, cands), doc.by_id(), make_reviewer("heuristic"))
        }
        t = time.perf_counter()
        best = plan_globally(doc, cands, outcomes, RULES)
        timing["global"] += time.perf_counter() - t
        t = time.perf_counter()
        greedy = plan_document(doc, cands, outcomes, RULES, HeuristicDecider())
        timing["greedy"] += time.perf_counter() - t
        pages_planned += doc.page_count
        possible, chapters = oracle_honoured(doc, RULES)
        oracle = [oracle[0] + possible, oracle[1] + chapters]
        naive_plan = naive(doc)
        naive_done = measure(doc, naive_plan).honoured
        for label, s in (
            ("global", from_plan(best)),
            ("greedy", from_plan(greedy, kinds=False)),
            ("naive", naive_plan),
        ):
            r = measure(doc, s)
            t_h, t_c, t_s, t_n = totals.setdefault(label, [0, 0, 0, 0])
            totals[label] = [t_h + r.honoured, t_c + r.chapters, t_s + r.safe[0], t_n + r.safe[1]]
            if r.share is not None:
                shares.setdefault(label, []).append(r.share)
            short[label] = short.get(label, 0) + r.runts
            done, seen = at_least_naive.setdefault(label, [0, 0])
            at_least_naive[label] = [done + (r.honoured >= naive_done), seen + 1]
            sessions = f"{r.sessions}" + (f" [{r.reference}]" if r.reference else "")
            share = "n/a" if r.share is None else f"{r.share:.0%}"
            print(
                f"{name[:27]:<28}{label:<8}{sessions:>12}{share:>7}{r.smallest:>5g}"
                f"{r.largest:>5g}{r.runts:>6}{f'{r.honoured}/{r.chapters}':>10}{r.held:>5}"
                f"{f'{r.safe[0]}/{r.safe[1]}':>11}"
            )
        print(f"{name[:27]:<28}{'oracle':<8}{'':>41}{f'{possible}/{chapters}':>10}")
    print()
    for label, (h, c, safe, n) in totals.items():
        mean = sum(shares.get(label, [])) / max(len(shares.get(label, [])), 1)
        done, seen = at_least_naive[label]
        print(
            f"{label:<7} chapter starts honoured {h}/{c} ({h / max(c, 1):.0%}), at least the "
            f"naive splitter's on {done}/{seen} documents; mean share of 5-13-page study "
            f"sessions {mean:.0%}; runts the rule does not allow: {short[label]}; cuts at a "
            f"safe candidate {safe}/{n}"
        )
    h, c = oracle
    print(f"oracle  chapter starts honoured {h}/{c} ({h / max(c, 1):.0%}): the size rules' best")
    for label, secs in timing.items():
        print(
            f"{label} planning: {secs:.1f} s for {pages_planned} pages "
            f"({pages_planned / max(secs, 1e-9):.0f} pages/s)"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
