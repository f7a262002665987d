"""Where the time goes at library scale: one `quire batch` over the sweep documents.

    python3 bench/bench_batch.py [--limit N] [--packages P,...|all] [--docs FILE...]
                                 [--cache DIR] [--work DIR]
                                 [--processes N] [--runs N] [--profile]
                                 [--memory 100,1000] [--fixed-runs N]

Documents: the sweep sample (bench/sweep_docs.py) of --packages (default three small ones,
21 documents and 1,339 pages; `all`: every package) among those already unpacked in the
cache (nothing is downloaded here; `bench/bench_sweep.py` or `sweep_docs.select` fetches
them), else the corpus's text PDFs; --docs names files instead, --limit takes the first N.

In one run it prints:
- the structure limit: PyMuPDF's `get_text("dict")` over every page of the same documents
  in this process (pages/s on one core) times the cores the batch gets;
- the batch: one `quire -v batch` subprocess (Markdown output, heuristic backend, fresh
  store and state dir) --runs times; wall time, pages/s (median) and its share of the
  structure limit, the peak resident memory of the whole process tree (sampled every
  0.2 s), every document verified or not, and the CPU and wall seconds of every part
  summed per stage over the documents (from the JSON log lines of `run_part`);
- the per-document fixed cost: `quire run` of a one-page document (a page of the corpus's
  FHS), median wall of --fixed-runs fresh runs in a process of its own and in the warm
  process (the first command starts it; its time is shown too), beside a bare
  `python -c pass` and `import pymupdf`; and the whole FHS (50 pages) run through the
  embedded pool (`--processes 2`), its workers started cold or forked by the warm process;
- with --profile: the same batch in one process (`--processes 1`, parts inline) under
  cProfile, the top 25 functions by own time and by cumulative time;
- with --memory 100,1000: batches of that many copies of one small document (each copy's
  metadata differs, so each is a document of its own), the peak tree memory of each and
  the ratio of the last to the first.
"""

from __future__ import annotations

import argparse
import cProfile  # noqa: F401  (run as `-m cProfile` in a child; imported to fail early)
import io
import json
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

from corpus import CORPUS  # noqa: E402  (tests/corpus.py: the one definition)
from fault_stack import descendants, rss_kib  # noqa: E402
from sweep_docs import DEFAULT_CACHE, QUOTAS, select  # noqa: E402

# Corpus PDFs with a text layer and no password: the fallback when the cache is empty.
CORPUS_DOCS = [
    "fhs-3.0.pdf",
    "latex-news-22.pdf",
    "amsmath-user-guide.pdf",
    "r-intro.pdf",
    "siunitx-manual.pdf",
    "lshort-russian.pdf",
    "octave-refcard-a4.pdf",
    "r-lang-tail-cut.pdf",
]
# A modest sweep (21 documents, 1,339 pages): three small packages of the sweep's.
SMALL_SWEEP = ("texlive-lang-polish", "texlive-lang-spanish", "texlive-lang-italian")
ONE_PAGE_SOURCE = ("fhs-3.0.pdf", 7)  # "Chapter 1. Introduction"


class TreeMemory(threading.Thread):
    """Peak resident memory of a process and all its descendants, sampled."""

    def __init__(self, pid: int, interval: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak_kib = pid, interval, 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.interval):
            total = sum(rss_kib(p) for p in [self.pid, *descendants(self.pid)])
            self.peak_kib = max(self.peak_kib, total)


@dataclass
class BatchRun:
    seconds: float
    peak_mb: float
    pages: int
    documents: int
    verified: int
    failed: list[str]
    tree_cpu: float  # CPU seconds of the whole process tree
    cpu: dict[str, float] = field(default_factory=dict)  # stage -> CPU seconds
    wall: dict[str, float] = field(default_factory=dict)  # stage -> part seconds
    parts: dict[str, int] = field(default_factory=dict)  # stage -> parts run


def pick_docs(args: argparse.Namespace) -> list[Path]:
    if args.docs:
        paths = [Path(p) for p in args.docs]
    else:
        extracted = args.cache / "extract"
        have = {p.name for p in extracted.iterdir()} if extracted.is_dir() else set()
        wanted = set(QUOTAS) if args.packages == "all" else set(args.packages.split(","))
        quotas = {k: v for k, v in QUOTAS.items() if k in have and k in wanted}
        if quotas:
            paths = [d.path for d in select(args.cache, CORPUS, packages=quotas)]
        else:
            print(f"no sweep packages under {extracted}: the corpus's PDFs instead")
            paths = [CORPUS / n for n in CORPUS_DOCS]
    return paths[: args.limit] if args.limit else paths


def structure_limit(paths: list[Path]) -> tuple[int, float, float]:
    """(pages, wall seconds, CPU seconds) of get_text("dict") over every page, in this
    process (the CPU figure does not depend on what else the machine runs)."""
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    pages, seconds, cpu = 0, 0.0, 0.0
    for p in paths:
        with pymupdf.open(p) as doc:
            start, cpu_start = time.perf_counter(), time.process_time()
            for page in doc:
                page.get_text("dict")
                pages += 1
            seconds += time.perf_counter() - start
            cpu += time.process_time() - cpu_start
    return pages, seconds, cpu


# Bytecode of Quire and its libraries, as an installed package has it (pip compiles it at
# install time); without it every command and worker compiles ~125 modules (~1 s of CPU).
PYCACHE = Path("~/.cache/quire-bench-pycache").expanduser()


def _env(work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {
        **env,
        "PYTHONPYCACHEPREFIX": str(PYCACHE),
        "QUIRE_STATE_DIR": str(work / "state"),
        "QUIRE_STORE_URL": str(work / "store"),
        "QUIRE_LOG_FORMAT": "json",
        "QUIRE_REVIEW_BACKEND": "heuristic",
        "PYTHONPATH": str(ROOT),
        "QUIRE_WARM": "0",  # every command measured in a process of its own, unless asked
    }


def stage_seconds(stderr: Path) -> tuple[dict[str, float], dict[str, float], dict[str, int]]:
    """CPU seconds, wall seconds and number of parts per stage, from the part log lines."""
    cpu: dict[str, float] = defaultdict(float)
    wall: dict[str, float] = defaultdict(float)
    parts: dict[str, int] = defaultdict(int)
    for line in stderr.read_text(errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and "cpu_seconds" in rec:
            cpu[rec["state"]] += rec["cpu_seconds"]
            wall[rec["state"]] += rec["seconds"]
            parts[rec["state"]] += 1
    return dict(cpu), dict(wall), dict(parts)


def batch_cmd(paths: list[Path], work: Path, processes: int | None) -> list[str]:
    cmd = ["-m", "quire.orchestrator.cli", "-v", "batch", *map(str, paths)]
    cmd += ["--out", str(work / "out"), "--report", str(work / "batch-report.json")]
    cmd += ["--output-format", "markdown"]
    if processes:
        cmd += ["--processes", str(processes)]
    return cmd


def run_batch(paths: list[Path], work: Path, processes: int | None) -> BatchRun:
    work.mkdir(parents=True)
    cmd = [sys.executable, *batch_cmd(paths, work, processes)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with (work / "batch.stdout").open("wb") as out, (work / "batch.stderr").open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=_env(work), stdout=out, stderr=err, cwd=work)
        mem = TreeMemory(proc.pid)
        mem.start()
        proc.wait()
        seconds = time.perf_counter() - start
        mem.done.set()
        mem.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    tree_cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    report = json.loads((work / "batch-report.json").read_text())
    docs = report["documents"]
    failed = [f"{d['name']}: {d.get('error_code')}" for d in docs if d["verification"] != "passed"]
    cpu, wall, parts = stage_seconds(work / "batch.stderr")
    return BatchRun(
        seconds=seconds,
        peak_mb=mem.peak_kib / 1024,
        pages=report["pages_total"],
        documents=len(docs),
        verified=sum(d["verification"] == "passed" for d in docs),
        failed=failed,
        tree_cpu=tree_cpu,
        cpu=cpu,
        wall=wall,
        parts=parts,
    )


def profile_batch(paths: list[Path], work: Path, top: int = 25) -> str:
    """The batch in one process (parts inline) under cProfile: its top functions."""
    work.mkdir(parents=True)
    prof = work / "batch.prof"
    cmd = [sys.executable, "-m", "cProfile", "-o", str(prof), *batch_cmd(paths, work, 1)]
    with (work / "batch.stderr").open("wb") as err:
        subprocess.run(cmd, env=_env(work), stdout=subprocess.DEVNULL, stderr=err, cwd=work)
    text = io.StringIO()
    stats = pstats.Stats(str(prof), stream=text)
    stats.strip_dirs().sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return text.getvalue()


def one_page(target: Path, copy: int | None = None) -> Path:
    """A one-page PDF cut from the corpus; `copy` gives each copy other metadata (bytes)."""
    import pymupdf

    name, pno = ONE_PAGE_SOURCE
    with pymupdf.open(CORPUS / name) as src, pymupdf.open() as doc:
        doc.insert_pdf(src, from_page=pno, to_page=pno)
        if copy is not None:
            doc.set_metadata({"title": f"copy {copy}"})
        doc.save(target, garbage=4, deflate=True)
    return target


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process tree) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


# PyMuPDF as Quire imports it: without its ONNX layout model and pymupdf4llm
QUIET_PYMUPDF = "from quire.workers.parse.pdf_open import pymupdf_module; pymupdf_module()"


COLD_RUN = "quire run, one page, in a process of its own (QUIRE_WARM=0)"
FIRST_RUN = "quire run, one page, the first command (it starts the warm process)"
WARM_RUN = "quire run, one page, in the warm process (CPU: the caller's only)"
COLD_POOL = "quire run --processes 2, 50 pages (FHS), in processes of their own"
WARM_POOL = "quire run --processes 2, 50 pages (FHS), forked by the warm process"


def fixed_cost(work: Path, runs: int) -> dict[str, tuple[float, float, int]]:
    """Median (wall, CPU) seconds of `quire run` on one page, in a process of its own and in
    the warm process (orchestrator/warm.py), of interpreter starts, and of a whole
    document run through the embedded pool (its workers started cold or forked warm)."""
    work.mkdir(parents=True)
    doc = one_page(work / "one-page.pdf")
    cmds: dict[str, list[str]] = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python: import quire and PyMuPDF (as Quire does)": [sys.executable, "-c", QUIET_PYMUPDF],
    }
    found: dict[str, list[tuple[float, float]]] = {COLD_RUN: [], FIRST_RUN: [], WARM_RUN: []}
    found |= {COLD_POOL: [], WARM_POOL: []} | {name: [] for name in cmds}
    pooled = ("--input", str(CORPUS / ONE_PAGE_SOURCE[0]), "--processes", "2")

    def run(name: str, out: Path, *args: str, **env: str) -> None:
        args = args or ("--input", str(doc))
        cmd = [sys.executable, "-m", "quire", "run", *args, "--out", str(out)]
        found[name].append(timed(cmd, {**_env(out.parent), "QUIRE_LOG_FORMAT": "text", **env}))

    # a socket folder of the bench's own (short: a socket's path is at most 107 bytes)
    with tempfile.TemporaryDirectory(prefix="qb-") as runtime:
        warm = {"QUIRE_WARM": "1", "XDG_RUNTIME_DIR": runtime, "QUIRE_WARM_IDLE": "60"}
        run(FIRST_RUN, work / "first" / "out", **warm)
        deadline = time.monotonic() + 120
        while not (sock := next(Path(runtime).glob("quire-warm-*/*.sock"), None)):
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        for i in range(runs):
            run(COLD_RUN, work / f"cold{i}" / "out")
            run(WARM_RUN, work / f"warm{i}" / "out", **warm)
            run(COLD_POOL, work / f"cold-pool{i}" / "out", *pooled)
            run(WARM_POOL, work / f"warm-pool{i}" / "out", *pooled, **warm)
            for name, other in cmds.items():
                found[name].append(timed(other, _env(work)))
        if sock:
            subprocess.run(["pkill", "-f", str(sock)], check=False)  # its command line names it
    return {
        name: (
            statistics.median(w for w, _ in runs_),
            statistics.median(c for _, c in runs_),
            len(runs_),
        )
        for name, runs_ in found.items()
    }


def memory_scale(work: Path, counts: list[int], processes: int | None) -> list[BatchRun]:
    """Batches of `count` copies of one small document: peak tree memory of each."""
    sources = work / "copies"
    sources.mkdir(parents=True)
    paths = [one_page(sources / f"copy-{i:05d}.pdf", copy=i) for i in range(max(counts))]
    return [run_batch(paths[:n], work / f"batch-{n}", processes) for n in counts]


def print_batch(run: BatchRun, limit_pps: float, one_core: float) -> None:
    pps = run.pages / run.seconds
    per_cpu = run.pages / run.tree_cpu
    print(
        f"  {run.documents} documents, {run.pages} pages in {run.seconds:.1f} s: "
        f"{pps:.1f} pages/s = {100 * pps / limit_pps:.1f} % of the structure limit; "
        f"peak tree memory {run.peak_mb:.0f} MB; verified {run.verified}/{run.documents}\n"
        f"  process tree CPU {run.tree_cpu:.1f} s: {per_cpu:.1f} pages per CPU second = "
        f"{100 * per_cpu / one_core:.1f} % of get_text('dict') per core"
    )
    for f in run.failed:
        print(f"    not verified: {f}")


def print_runs(runs: list[BatchRun], limit_pps: float, one_core: float) -> None:
    for run in runs:
        print_batch(run, limit_pps, one_core)
    median = statistics.median(r.pages / r.seconds for r in runs)
    peak = max(r.peak_mb for r in runs)
    print(
        f"batch: median {median:.1f} pages/s = {100 * median / limit_pps:.1f} % of the "
        f"structure limit; peak tree memory {peak:.0f} MB"
    )
    last = runs[-1]
    print("stage          parts   CPU s   part s")
    for stage in sorted(last.cpu, key=lambda k: -last.cpu[k]):
        print(f"  {stage:12} {last.parts[stage]:5} {last.cpu[stage]:7.1f} {last.wall[stage]:8.1f}")
    print(f"  {'total':12} {sum(last.parts.values()):5} {sum(last.cpu.values()):7.1f}")


def _counts(text: str) -> list[int]:
    """--memory's copy counts, checked before the batch runs rather than after it."""
    try:
        counts = [int(c) for c in text.split(",")]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"want counts of 1 or more, e.g. 100,1000: {text!r}")
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", nargs="*", help="these files instead of the sweep sample")
    ap.add_argument("--limit", type=int, default=0, help="the first N documents only")
    ap.add_argument(
        "--packages",
        default=",".join(SMALL_SWEEP),
        help="sweep packages to take documents from (those in the cache), or 'all'",
    )
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--work", type=Path, default=None, help="kept when given")
    ap.add_argument("--processes", type=int, default=None, help="batch workers [CPUs]")
    ap.add_argument("--runs", type=int, default=1, help="batch runs (median; 0: none)")
    ap.add_argument("--fixed-runs", type=int, default=5, help="one-page runs (0: none)")
    ap.add_argument("--profile", action="store_true", help="also cProfile the batch inline")
    ap.add_argument("--memory", type=_counts, default=[], help="copy counts, e.g. 100,1000")
    args = ap.parse_args()

    paths = pick_docs(args)
    cores = args.processes or os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="quire-bench-batch-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        pages, seconds, cpu = structure_limit(paths)
        limit_pps = pages / seconds * cores
        one_core = pages / cpu
        print(f"{len(paths)} documents, {pages} pages")
        print(
            f"structure limit: get_text('dict') {pages / seconds:.1f} pages/s per core x "
            f"{cores} = {limit_pps:.1f} pages/s; {one_core:.1f} pages per CPU second"
        )
        runs = [run_batch(paths, work / f"batch{i}", args.processes) for i in range(args.runs)]
        if runs:
            print_runs(runs, limit_pps, one_core)
        if args.fixed_runs:
            for name, (wall, cpu, n) in fixed_cost(work / "fixed", args.fixed_runs).items():
                how = f"medians of {n}" if n > 1 else "one run"
                print(f"fixed cost: {name}: {wall:.2f} s wall, {cpu:.2f} s CPU ({how})")
        if args.memory:
            counts = args.memory
            scaled = memory_scale(work / "memory", counts, args.processes)
            for n, run in zip(counts, scaled, strict=True):
                print(f"memory, {n} copies of a one-page document:")
                print_batch(run, limit_pps, one_core)
            ratio = scaled[-1].peak_mb / scaled[0].peak_mb
            print(f"memory ratio {counts[-1]}/{counts[0]} documents: {ratio:.2f}")
        if args.profile:
            print(profile_batch(paths, work / "profile"))


if __name__ == "__main__":
    main()
