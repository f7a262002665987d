"""Benchmark Quire's PDF parser against the bare text layer and pymupdf4llm, side by side.

    python3 bench/bench_parse.py [--quick]

For each of the corpus's largest PDFs (r-fullrefman, gnuplot, r-exts, beamer) it prints
pages/s and peak RSS for:
- quire-1p      parse_document in one process (range tasks of 100 pages, merged);
- quire-2p      range tasks (20-50 pages, ~16 per document) on a pool of 2 worker
                processes (results passed as JSON, as the Celery workers do, decoded as
                they arrive), merged in the parent;
- pymupdf4llm   pymupdf4llm.to_markdown without the layout model, on a sample of pages
                (it runs at a few pages/s; the sample is spread over the document);
- get_text      bare page.get_text("dict") over every page (the floor);
- range-task    peak RSS of ONE 100-page range task at the start, middle and end of the
                document (it should not grow with the document).
A second table sets 2 pool workers against 1 on the same tasks: the range tasks alone, and
with the (serial) merge. Last, a batch of all four documents goes through one pool with
each merge queued as a task once its ranges are in (the runtime's shape): its 2-against-1
ratio is the parser's scaling on a library.
Every measurement runs in a fresh interpreter (`--child ...`), so imports are not shared
and ru_maxrss is that measurement's own peak. Times exclude interpreter start-up and
imports; speeds are medians of several runs (one with --quick).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from corpus import CORPUS  # noqa: E402  (tests/corpus.py: the one definition)

DOCS = ["r-fullrefman.pdf", "gnuplot-manual.pdf", "r-exts.pdf", "beamer-user-guide.pdf"]
RANGE = 100  # pages per range task in one process and for the RSS probe


def pool_range(pages: int) -> int:
    """Task size on the pools, the same for 1 and 2 workers (the same work, split alike):
    about 16 tasks, so the last round is short, of 20-50 pages (a worker keeps the PDF
    open between its tasks, so a task costs little more than its pages)."""
    return max(20, min(50, -(-pages // 16)))


def _rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024.0  # Linux: KiB


# --- children: each prints one JSON line --------------------------------------------------


def _child_quire(path: Path) -> dict[str, Any]:
    from quire.workers.parse import parse_document
    from quire.workers.parse.pdf_open import pymupdf_module

    pymupdf_module()
    t = time.perf_counter()
    parsed = parse_document(path, range_pages=RANGE)
    dt = time.perf_counter() - t
    return {
        "pages": parsed.document.page_count,
        "seconds": dt,
        "rss_mb": _rss_mb(),
        "elements": len(parsed.document.elements),
    }


def _range_task(args: tuple[str, int, int, str]) -> bytes:
    from quire.workers.parse import parse_pdf_range

    path, first, last, doc_id = args
    return parse_pdf_range(Path(path), first, last, doc_id=doc_id).to_json()


def _warm(_: int) -> int:
    from quire.workers.parse.pdf_open import pymupdf_module

    pymupdf_module()
    return 0


def _spawn_pool(workers: int) -> Any:
    import multiprocessing as mp

    pool = mp.get_context("spawn").Pool(workers)  # fresh, as Celery prefork children
    pool.map(_warm, range(workers))  # imports done before the clock starts
    return pool


def _child_quire_pool(path: Path, workers: int) -> dict[str, Any]:
    from quire.workers.parse import PdfRangeResult, merge_pdf_ranges, page_ranges, pdf_meta

    with _spawn_pool(workers) as pool:
        t = time.perf_counter()
        meta = pdf_meta(path)
        size = pool_range(meta.page_count)
        tasks = [(str(path), a, b, meta.doc_id) for a, b in page_ranges(meta.page_count, size)]
        # decode each result as it arrives, while the workers go on
        results = [PdfRangeResult.from_json(b) for b in pool.imap(_range_task, tasks)]
        ranges_done = time.perf_counter()
        parsed = merge_pdf_ranges(meta, results)
        dt = time.perf_counter() - t
    return {
        "pages": parsed.document.page_count,
        "seconds": dt,
        "range_seconds": ranges_done - t,
        "task_pages": size,
        "rss_mb": max(_rss_mb(), _rss_mb(resource.RUSAGE_CHILDREN)),
    }


# --- batch: several documents on one pool, merges as tasks, results through files ---------


def _batch_range(args: tuple[str, int, int, str, str]) -> str:
    from quire.workers.parse import parse_pdf_range

    path, first, last, doc_id, out = args
    target = Path(out) / f"{first:06d}.json"
    target.write_bytes(parse_pdf_range(Path(path), first, last, doc_id=doc_id).to_json())
    return path


def _batch_merge(args: tuple[str, str]) -> int:
    from quire.workers.parse import PdfRangeResult, merge_pdf_ranges

    path, out = args
    results = [PdfRangeResult.from_json(f.read_bytes()) for f in sorted(Path(out).iterdir())]
    return merge_pdf_ranges(Path(path), results).document.page_count


def _child_batch(paths: list[Path], workers: int) -> dict[str, Any]:
    """The distributed runtime's shape on one machine: every document's range tasks go to
    one pool, and a document's merge is queued as a task of its own once its last range is
    in, reading the ranges from files (the store) as the FINISH part does. Throughput, not
    one document's latency, is what two workers buy a library-sized batch."""
    import tempfile

    from quire.workers.parse import page_ranges, pdf_meta

    with tempfile.TemporaryDirectory() as tmp, _spawn_pool(workers) as pool:
        t = time.perf_counter()
        tasks: list[tuple[str, int, int, str, str]] = []
        left: dict[str, int] = {}
        outs: dict[str, str] = {}
        for n, path in enumerate(paths):
            meta = pdf_meta(path)  # done at submit time in the runtime
            outs[str(path)] = out = str(Path(tmp) / str(n))
            Path(out).mkdir()
            ranges = page_ranges(meta.page_count, pool_range(meta.page_count))
            tasks += [(str(path), a, b, meta.doc_id, out) for a, b in ranges]
            left[str(path)] = len(ranges)
        merges = []
        for done in pool.imap_unordered(_batch_range, tasks):
            left[done] -= 1
            if left[done] == 0:
                merges.append(pool.apply_async(_batch_merge, ((done, outs[done]),)))
        pages = sum(m.get() for m in merges)
        dt = time.perf_counter() - t
    return {
        "pages": pages,
        "seconds": dt,
        "rss_mb": max(_rss_mb(), _rss_mb(resource.RUSAGE_CHILDREN)),
    }


def _child_pymupdf4llm(path: Path, sample: int) -> dict[str, Any]:
    sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]
    import pymupdf
    import pymupdf4llm

    pymupdf4llm.use_layout(False)
    doc = pymupdf.open(path)
    step = max(1, doc.page_count // sample)
    pages = list(range(0, doc.page_count, step))[:sample]
    t = time.perf_counter()  # one call: its document-wide header analysis runs once
    pymupdf4llm.to_markdown(doc, pages=pages, show_progress=False)
    dt = time.perf_counter() - t
    return {"pages": len(pages), "seconds": dt, "rss_mb": _rss_mb()}


def _child_get_text(path: Path) -> dict[str, Any]:
    from quire.workers.parse.pdf_open import pymupdf_module

    pymupdf = pymupdf_module()
    doc = pymupdf.open(path)
    t = time.perf_counter()
    for page in doc:
        page.get_text("dict")
    dt = time.perf_counter() - t
    return {"pages": doc.page_count, "seconds": dt, "rss_mb": _rss_mb()}


def _child_range(path: Path, first: int, last: int) -> dict[str, Any]:
    from quire.workers.parse import parse_pdf_range
    from quire.workers.parse.pdf_open import pymupdf_module

    pymupdf_module()
    base = _rss_mb()
    t = time.perf_counter()
    result = parse_pdf_range(path, first, last)
    blob = result.to_json()
    dt = time.perf_counter() - t
    return {
        "pages": last - first + 1,
        "seconds": dt,
        "rss_mb": _rss_mb(),
        "import_rss_mb": base,
        "json_mb": len(blob) / 1e6,
    }


def _run_child(*args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


# --- parent -------------------------------------------------------------------------------


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    secs = statistics.median(r["seconds"] for r in runs)
    out = {
        "pages": runs[0]["pages"],
        "seconds": secs,
        "pps": runs[0]["pages"] / secs,
        "rss_mb": max(r["rss_mb"] for r in runs),
    }
    if "range_seconds" in runs[0]:
        out["range_pps"] = runs[0]["pages"] / statistics.median(r["range_seconds"] for r in runs)
    return out


def _table(head: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, ["-" * w for w in widths], *rows]:
        print(" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="one run each, smaller samples")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        mode, path, *rest = args.child
        fn = {
            "quire": lambda: _child_quire(Path(path)),
            "pool": lambda: _child_quire_pool(Path(path), int(rest[0])),
            "batch": lambda: _child_batch([Path(x) for x in path.split(os.pathsep)], int(rest[0])),
            "p4llm": lambda: _child_pymupdf4llm(Path(path), int(rest[0])),
            "get_text": lambda: _child_get_text(Path(path)),
            "range": lambda: _child_range(Path(path), int(rest[0]), int(rest[1])),
        }[mode]
        print(json.dumps(fn()))
        return

    runs = 1 if args.quick else 3
    sample = 10 if args.quick else 30
    # The parent never imports PyMuPDF: on Linux a child's ru_maxrss starts from the RSS
    # of the process it was forked from, so a big parent would hide the children's peaks.
    rows: list[list[str]] = []
    scaling: list[list[str]] = []
    flat: list[str] = []
    in_process_seconds = 0.0
    for name in DOCS:
        path = str(CORPUS / name)
        print(f"... {name}", file=sys.stderr, flush=True)
        q1 = _median([_run_child("quire", path) for _ in range(runs)])
        in_process_seconds += q1["seconds"]
        n = int(q1["pages"])
        p1 = _median([_run_child("pool", path, "1") for _ in range(runs)])
        p2 = _median([_run_child("pool", path, "2") for _ in range(runs)])
        p4 = _median([_run_child("p4llm", path, str(sample))])
        gt = _median([_run_child("get_text", path) for _ in range(runs)])
        starts = sorted({1, max(1, (n // 2) - RANGE // 2), max(1, n - RANGE + 1)})
        rng = [_run_child("range", path, str(a), str(min(n, a + RANGE - 1))) for a in starts]
        rows.append(
            [
                name,
                str(n),
                f"{q1['pps']:.0f}",
                f"{q1['rss_mb']:.0f}",
                f"{p2['pps']:.0f}",
                f"{p2['rss_mb']:.0f}",
                f"{p4['pps']:.1f} ({p4['pages']}p)",
                f"{p4['rss_mb']:.0f}",
                f"{q1['pps'] / p4['pps']:.0f}x",
                f"{gt['pps']:.0f}",
                f"{gt['rss_mb']:.0f}",
                "/".join(f"{r['rss_mb']:.0f}" for r in rng),
            ]
        )
        scaling.append(
            [
                name,
                f"{p1['range_pps']:.0f}",
                f"{p2['range_pps']:.0f}",
                f"{p2['range_pps'] / p1['range_pps']:.2f}x",
                f"{p1['pps']:.0f}",
                f"{p2['pps']:.0f}",
                f"{p2['pps'] / p1['pps']:.2f}x",
                f"{p2['pps'] / q1['pps']:.2f}x",
            ]
        )
        flat.append(
            f"{name}: range tasks at pages {starts}: peak RSS "
            + ", ".join(
                f"{r['rss_mb']:.0f} MB ({r['seconds']:.2f}s, JSON {r['json_mb']:.1f} MB)"
                for r in rng
            )
        )
    print("... batch", file=sys.stderr, flush=True)
    batch_paths = os.pathsep.join(str(CORPUS / name) for name in DOCS)
    b1 = _median([_run_child("batch", batch_paths, "1") for _ in range(runs)])
    b2 = _median([_run_child("batch", batch_paths, "2") for _ in range(runs)])

    print(
        f"Quire PDF parser benchmark ({'quick, 1 run' if args.quick else f'median of {runs}'};"
        f" pymupdf4llm on {sample} sampled pages, layout model off)"
    )
    _table(
        [
            "document",
            "pages",
            "quire-1p p/s",
            "RSS MB",
            "quire-2p p/s",
            "RSS MB",
            "pymupdf4llm p/s",
            "RSS MB",
            "1p/p4llm",
            "get_text p/s",
            "RSS MB",
            "range-task RSS MB",
        ],
        rows,
    )
    print()
    print("Two processes against one, on the same pool code (p/s):")
    _table(
        [
            "document",
            "ranges 1w",
            "ranges 2w",
            "x",
            "with merge 1w",
            "with merge 2w",
            "x",
            "2w vs quire-1p",
        ],
        scaling,
    )
    print(
        f"batch of {len(DOCS)} documents ({b1['pages']} pages), merges queued as tasks:"
        f" 1 worker {b1['pps']:.0f} p/s, 2 workers {b2['pps']:.0f} p/s ="
        f" {b2['pps'] / b1['pps']:.2f}x (quire-1p in-process, one after another:"
        f" {b1['pages'] / in_process_seconds:.0f} p/s); peak RSS {b2['rss_mb']:.0f} MB"
    )
    print()
    for line in flat:
        print(line)


if __name__ == "__main__":
    main()
