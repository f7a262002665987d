"""End-to-end pipeline benchmark: embedded vs distributed with 1 and 2 Celery workers.

    python3 bench/bench_pipeline.py [--docs N] [--runs N]

Runs the same batch of corpus documents (markdown + pdf output, heuristic backend) three
ways in one run and prints pages/s and wall time for each, with the two ratios the runtime
issue asks for: orchestration overhead (distributed, 1 worker process / embedded, 1
process; target <= 1.15) and scaling (2 worker processes / 1; target >= 1.7x).
The distributed runs use a real redis-server (broker + revisions) and a moto S3 server over
HTTP on loopback (a broker with a folder store is refused: `Deployment`).
Each configuration runs --runs times (default 3), in turn, each in a fresh process; the
figures are medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from corpus import CORPUS  # noqa: E402  (tests/corpus.py: the one definition)
from services import CeleryWorker, MotoServer, RedisServer  # noqa: E402

from quire.orchestrator.local import run_documents  # noqa: E402
from quire.orchestrator.service import process_documents  # noqa: E402
from quire.shared.config import Environment, RunSettings  # noqa: E402
from quire.shared.settings import load_settings  # noqa: E402
from quire.workers.execute import submit  # noqa: E402
from quire.workers.runtime import Runtime  # noqa: E402

DOCS = [
    "r-intro.pdf",
    "amsmath-user-guide.pdf",
    "fhs-3.0.pdf",
    "r-lang-tail-cut.pdf",
    "siunitx-manual.pdf",
    "python-logging-howto-cookbook.docx",
    "debian-handbook-en-ch12-14.docx",
    "latex-news-22.pdf",
]
SETTINGS = RunSettings(output_format="both", range_pages=50, render_batch_pages=100)


def pages_of(rt: Runtime, ids: list[str]) -> int:
    return sum(max(rt.repo.load(d).page_count, 1) for d in ids)


def embedded(paths: list[Path], tmp: Path) -> tuple[float, int]:
    rt = Runtime.from_env(Environment(store_url=str(tmp / "store"), state_dir=tmp / "state"))
    ids = [submit(rt, p, SETTINGS).doc_id for p in paths]
    start = time.perf_counter()
    run_documents(rt, ids, processes=1)
    elapsed = time.perf_counter() - start
    assert all(rt.repo.load(d).state == "complete" for d in ids)
    return elapsed, _doc_pages(rt, ids)


def _doc_pages(rt: Runtime, ids: list[str]) -> int:
    from quire.shared.ir import load_ir

    return sum(load_ir(rt.store.get(f"docs/{d}/out/ir.json")).page_count for d in ids)


def distributed(paths: list[Path], tmp: Path, workers: int) -> tuple[float, int]:
    with RedisServer() as redis:
        base = redis.url.rsplit("/", 1)[0]
        env = {
            "QUIRE_BROKER_URL": f"{base}/0",
            "QUIRE_REDIS_URL": f"{base}/1",
            "QUIRE_STATE_DIR": str(tmp / "state"),
        }
        moto = MotoServer().start()
        try:
            env |= {
                "QUIRE_STORE_URL": f"s3://bench-{uuid.uuid4().hex[:8]}/q",
                "QUIRE_S3_ENDPOINT_URL": moto.endpoint_url,
                "AWS_ACCESS_KEY_ID": "bench",
                "AWS_SECRET_ACCESS_KEY": "bench",
                "AWS_DEFAULT_REGION": "us-east-1",
            }
            os.environ.update(env)
            rt = Runtime.from_env(load_settings())
            rt.store.ensure_bucket()  # type: ignore[attr-defined]
            ids = [submit(rt, p, SETTINGS).doc_id for p in paths]
            pool = [
                CeleryWorker(
                    f"w{i}{uuid.uuid4().hex[:4]}",
                    "orchestrate,parse,review,write,render,analysis",
                    env,
                )
                for i in range(workers)
            ]
            for w in pool:
                w.start()
            try:
                start, moto_start = time.perf_counter(), _cpu_seconds(moto)
                process_documents(rt, ids, poll=0.1, timeout=3600)
                elapsed = time.perf_counter() - start
                # how much of the run the (single-threaded) S3 took
                print(f"moto-busy {(_cpu_seconds(moto) - moto_start) / elapsed:.2f}")
            finally:
                for w in pool:
                    w.stop()
            bad = [rt.repo.load(d).error for d in ids if rt.repo.load(d).state != "complete"]
            assert not bad, bad
            return elapsed, _doc_pages(rt, ids)
        finally:
            moto.stop()
            for k in env:
                os.environ.pop(k, None)


def _cpu_seconds(moto: MotoServer) -> float:
    """CPU time (user + system) of the moto server process so far; 0 before it started."""
    if moto.proc is None:
        return 0.0
    fields = Path(f"/proc/{moto.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def in_child(mode: str, args: argparse.Namespace, tmp: Path, workers: int = 0) -> float:
    """Each run in a fresh process: no broker connection or warm cache carries over."""
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            mode,
            "--workers",
            str(workers),
            "--docs",
            str(args.docs),
            "--tmp",
            str(tmp),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = out.stdout.strip().splitlines()
    busy = [line.split()[1] for line in lines if line.startswith("moto-busy ")]
    if busy:
        MOTO_BUSY.setdefault(workers, []).append(float(busy[0]))
    return float(lines[-1])


MOTO_BUSY: dict[int, list[float]] = {}  # workers -> share of wall time moto was on a CPU


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=len(DOCS))
    ap.add_argument("--runs", type=int, default=3, help="runs of each configuration")
    ap.add_argument("--child", choices=["embedded", "distributed"], help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--tmp", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    paths = [CORPUS / name for name in DOCS[: args.docs]]
    if args.child:
        if args.child == "embedded":
            elapsed, _ = embedded(paths, args.tmp)
        else:
            elapsed, _ = distributed(paths, args.tmp, args.workers)
        print(elapsed)
        return
    times: dict[str, list[float]] = {"e": [], "d1": [], "d2": []}
    with tempfile.TemporaryDirectory(prefix="quire-bench-") as tmp:
        for n in range(args.runs):  # interleaved, so a noisy minute hits all three alike
            times["e"].append(in_child("embedded", args, Path(tmp) / f"e{n}"))
            times["d1"].append(in_child("distributed", args, Path(tmp) / f"d1-{n}", 1))
            times["d2"].append(in_child("distributed", args, Path(tmp) / f"d2-{n}", 2))
        rt = Runtime.from_env(
            Environment(
                store_url=str(Path(tmp) / "e0" / "store"), state_dir=Path(tmp) / "e0" / "state"
            )
        )
        pages = _doc_pages(rt, rt.revisions.list_docs())
    t_e, t_1, t_2 = (statistics.median(times[k]) for k in ("e", "d1", "d2"))
    print(
        "runs (s): "
        + "; ".join(f"{k} " + " ".join(f"{t:.1f}" for t in v) for k, v in times.items())
    )
    print(
        f"{len(paths)} documents, {pages} pages, store=s3, output markdown+pdf,"
        f" median of {args.runs}"
    )
    print(f"{'run':<28}{'wall s':>9}{'pages/s':>10}")
    for name, t in (
        ("embedded, 1 process", t_e),
        ("distributed, 1 worker", t_1),
        ("distributed, 2 workers", t_2),
    ):
        print(f"{name:<28}{t:>9.1f}{pages / t:>10.1f}")
    print(f"orchestration overhead (distributed 1 / embedded 1): {t_1 / t_e:.2f} (target <= 1.15)")
    print(f"scaling (2 workers / 1 worker, pages/s): {t_1 / t_2:.2f}x (target >= 1.7x)")
    for workers, shares in sorted(MOTO_BUSY.items()):
        print(
            f"moto S3 server on a CPU for {statistics.median(shares):.0%} of the distributed"
            f" run with {workers} worker(s) (it serves one request at a time)"
        )


if __name__ == "__main__":
    main()
