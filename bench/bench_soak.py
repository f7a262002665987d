"""Soak run: hundreds of documents through the distributed stack with 2 workers.

    python3 bench/bench_soak.py [--generated 190] [--json out.json]

Corpus documents (small and medium ones, including the broken and encrypted edge cases)
plus small generated PDFs and DOCX files, a few of them deliberately damaged, go through
a real redis-server (broker + revisions), moto S3 over HTTP, two Celery workers serving
every queue (one pool process each) and the reconciler. Reports documents/hour, pages/s,
the largest queue depth (LLEN sampled every 0.5 s), peak worker RSS (each worker's
process tree), and checks that every document ended `complete` or `failed` with a reason.
A benchmark script, not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from corpus import CORPUS  # noqa: E402  (tests/corpus.py: the one definition)
from fault_stack import Stack, descendants, rss_kib  # noqa: E402
from gen_docs import textbook_docx, textbook_pdf  # noqa: E402
from services import MotoServer  # noqa: E402

from quire.shared.config import RunSettings  # noqa: E402
from quire.shared.ir import load_ir  # noqa: E402
from quire.shared.states import QUEUES  # noqa: E402

CORPUS_DOCS = [
    "fhs-3.0.pdf",
    "latex-news-22.pdf",
    "octave-refcard-a4.pdf",
    "amsmath-user-guide.pdf",
    "siunitx-manual.pdf",
    "r-lang-tail-cut.pdf",
    "freefem-manual-scanned-pages.pdf",
    "maint-guide-permissions-restricted.pdf",
    "debian-faq-password.pdf",
    "r-data-truncated.pdf",
    "liboctave-excerpt-image-only.pdf",
    "python-hashlib.docx",
    "python-logging-howto-cookbook.docx",
    "debian-handbook-fa-ch03-04.docx",
    "debian-handbook-en-virtualization-lo-quirk.docx",
]
ALL_QUEUES = ",".join(QUEUES)


def make_documents(tmp: Path, generated: int, seed: int) -> list[tuple[Path, RunSettings]]:
    rng = random.Random(seed)
    docs: list[tuple[Path, RunSettings]] = []
    for name in CORPUS_DOCS:
        fmt = "both" if name.endswith(".pdf") else "markdown"
        docs.append((CORPUS / name, RunSettings(output_format=fmt, range_pages=50)))
    for n in range(generated):
        chapters, paragraphs = rng.randint(2, 5), rng.randint(4, 14)
        if n % 2:
            path = textbook_docx(
                tmp / f"gen-{n:03d}.docx",
                1000 + n,
                chapter_count=chapters,
                paragraphs=paragraphs * 2,
            )
            settings = RunSettings()
        else:
            path = textbook_pdf(
                tmp / f"gen-{n:03d}.pdf", 1000 + n, chapter_count=chapters, paragraphs=paragraphs
            )
            settings = RunSettings(output_format="both" if n % 4 == 0 else "markdown")
        if n % 37 == 5:  # a damaged upload now and then
            data = path.read_bytes()
            path.write_bytes(data[: len(data) // 3])
        docs.append((path, settings))
    return docs


class Sampler:
    """Samples queue depths (LLEN) and worker RSS twice a second."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.max_depth = 0
        self.max_depth_by_queue: Counter[str] = Counter()
        self.peak_rss_kib = 0  # largest single process
        self.peak_worker_kib = 0  # largest worker process tree
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        client = self.stack.redis.client()
        while not self._stop.is_set():
            try:
                depths = {q: int(client.llen(q)) for q in QUEUES}
            except Exception:
                depths = {}
            total = sum(depths.values())
            self.max_depth = max(self.max_depth, total)
            for q, d in depths.items():
                self.max_depth_by_queue[q] = max(self.max_depth_by_queue[q], d)
            for worker in self.stack.workers.values():
                if worker.proc is None:
                    continue
                pids = [worker.proc.pid, *descendants(worker.proc.pid)]
                sizes = [rss_kib(p) for p in pids]
                self.peak_rss_kib = max(self.peak_rss_kib, *sizes)
                self.peak_worker_kib = max(self.peak_worker_kib, sum(sizes))
            self.samples += 1
            self._stop.wait(0.5)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generated", type=int, default=190)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=3 * 3600)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="quire-soak-") as tmp_name, MotoServer() as moto:
        tmp = Path(tmp_name)
        (tmp / "docs").mkdir()
        docs = make_documents(tmp / "docs", args.generated, args.seed)
        stack = Stack(tmp / "stack", moto, visibility_timeout=None, reconciler_interval=30.0)
        (tmp / "stack").mkdir()
        stack.start(workers=(("a", ALL_QUEUES), ("b", ALL_QUEUES)))
        try:
            submitted = time.perf_counter()
            ids = list(dict.fromkeys(stack.submit(p, st) for p, st in docs))
            submit_s = time.perf_counter() - submitted
            with Sampler(stack) as sampler:
                started = time.perf_counter()
                stack.poke(ids)
                sessions = stack.wait_terminal(ids, args.timeout, poll=5.0, indexed=True)
                elapsed = time.perf_counter() - started
            rt = stack.runtime
            states = Counter(s.state for s in sessions.values())
            failed = [s for s in sessions.values() if s.state == "failed"]
            no_reason = [s.source_name for s in failed if not (s.error and s.error_code)]
            stuck = [s.source_name for s in sessions.values() if not s.terminal]
            pages = 0
            for d, s in sessions.items():
                if s.state == "complete":
                    pages += load_ir(rt.store.get(f"docs/{d}/out/ir.json")).page_count
            reasons = Counter(s.error_code for s in failed)
            result = {
                "documents": len(ids),
                "complete": states["complete"],
                "failed": states["failed"],
                "failure_codes": dict(reasons),
                "failed_without_reason": no_reason,
                "not_terminal": stuck,
                "pages_complete": pages,
                "submit_seconds": round(submit_s, 1),
                "wall_seconds": round(elapsed, 1),
                "documents_per_hour": round(len(ids) / elapsed * 3600, 1),
                "pages_per_second": round(pages / elapsed, 2),
                "max_queue_depth": sampler.max_depth,
                "max_queue_depth_by_queue": dict(sampler.max_depth_by_queue),
                "peak_process_rss_mb": round(sampler.peak_rss_kib / 1024, 1),
                "peak_worker_tree_rss_mb": round(sampler.peak_worker_kib / 1024, 1),
                "worker_max_memory_per_child_mb": 1_500_000 // 1024,
                "samples": sampler.samples,
                "workers": 2,
                "concurrency_per_worker": 1,
            }
        finally:
            stack.stop()
    print(json.dumps(result, indent=1))
    for s in failed:
        print(f"  failed {s.source_name}: {s.error_code}: {(s.error or '')[:110]}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    ok = not no_reason and not stuck and states["complete"] + states["failed"] == len(ids)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
