"""The web workspace at scale: one 2,415-page manual, and a library of 10,000 documents.

    python3 bench/bench_web.py [--doc r-fullrefman.pdf] [--state DIR] [--repeat 15]
                               [--library 10000] [--redis] [--only document|library]

The manual: processed once with the embedded runner (Markdown only; kept in `--state`, so
later runs start at once); `quire serve` on a loopback port over that store is timed over
HTTP: the document page (first request, then warm), its plan as JSON, a session page, and
source page images (first request: rendered and stored; then cached; then a 304
revalidation), beside two baselines measured in the same run — the server's /v1/health
(HTTP and framework floor) and a bare PyMuPDF render of the same pages in this process.
Targets (printed, not asserted): document page under 1 s, cached page image under 100 ms.

The library: `--library` synthetic documents (tests/library.py: each session committed
through JobRepo — submitted, then complete, failed or waiting — with a manifest and
verification report for the complete ones, in batches of 1,000; no pipeline run; kept in
`--state/library`), served by `quire serve` and timed over HTTP (median and p95): the
documents page (first page, search and state filter, a page deep in the list, its live
refresh), a page of `GET /v1/documents` (plain, filtered, deep), `GET /v1/batches` and a batch
page, beside the /v1/health floor and what listing every document cost before the listing
existed (every session loaded, in this process). `--redis` repeats it with the revision
store and its listing in a private redis-server (populated afresh). Targets (printed):
documents page under 300 ms, an API page under 100 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import httpx  # noqa: E402
from corpus import CORPUS  # noqa: E402  (tests/corpus.py: the one definition)
from web_library import library_case  # noqa: E402  (bench/web_library.py)
from web_server import WebServer  # noqa: E402  (tests/web_server.py: `quire serve` for real)

from quire.orchestrator.dispatch import dispatcher_for  # noqa: E402
from quire.orchestrator.web.pages import DEFAULT_DPI, image_key, render_png  # noqa: E402
from quire.shared.config import Environment, RunSettings  # noqa: E402
from quire.workers.execute import submit  # noqa: E402
from quire.workers.parse.pdf_open import pymupdf_module  # noqa: E402
from quire.workers.runtime import Runtime  # noqa: E402


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def timings(fn: Callable[[], object], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return out


def get(client: httpx.Client, path: str, **headers: str) -> Callable[[], httpx.Response]:
    def call() -> httpx.Response:
        r = client.get(path, headers=headers)
        assert r.status_code in (200, 304), (path, r.status_code, r.text[:200])
        return r

    return call


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def prepare(rt: Runtime, source: Path) -> str:
    """The document, processed once (Markdown only, embedded)."""
    started = time.perf_counter()
    s = submit(rt, source, RunSettings(output_format="markdown"))
    was = s.state
    dispatcher_for(rt).drive([s.doc_id])
    s = rt.repo.load(s.doc_id)
    assert s.state == "complete", (s.state, s.error)
    how = (
        "processed before"
        if was == "complete"
        else f"processed now in {time.perf_counter() - started:.0f} s"
    )
    print(f"{source.name}: {s.page_count} pages, complete ({how}; store {rt.store.url})")
    return s.doc_id


def document_case(args: argparse.Namespace) -> None:
    env = Environment(store_url=str(args.state / "store"), state_dir=args.state / "state")
    rt = Runtime.from_env(env)
    doc_id = prepare(rt, CORPUS / args.doc)
    job = rt.repo.load(doc_id)
    n = args.repeat

    with (
        WebServer(
            {"QUIRE_STORE_URL": env.store_url, "QUIRE_STATE_DIR": str(env.state_dir)}
        ) as server,
        server.client(token=None) as client,
    ):
        assert server.proc is not None
        health = timings(get(client, "/v1/health"), n)
        first_doc = timings(get(client, f"/documents/{doc_id}"), 1)[0]
        warm_doc = timings(get(client, f"/documents/{doc_id}"), n)
        size = len(client.get(f"/documents/{doc_id}").content)
        plan = timings(get(client, f"/v1/documents/{doc_id}/plan"), n)
        sessions = len(client.get(f"/v1/documents/{doc_id}/plan").json()["sessions"])
        middle = sessions // 2
        session_page = timings(get(client, f"/documents/{doc_id}/sessions/{middle}"), n)

        # page images: pages no run has asked for yet (from the middle of the book on),
        # each rendered once and stored; then the same pages again, from the store
        start = job.page_count // 2
        order = [*range(start, job.page_count + 1), *range(1, start)]
        pages = [p for p in order if not rt.store.exists(image_key(doc_id, p, DEFAULT_DPI))][:n]
        first_img = [
            timings(get(client, f"/v1/documents/{doc_id}/pages/{p}.png"), 1)[0] for p in pages
        ]
        cached = [
            timings(get(client, f"/v1/documents/{doc_id}/pages/{p}.png"), 1)[0]
            for p in pages or [start]
        ]
        tag = client.get(f"/v1/documents/{doc_id}/pages/{start}.png").headers["etag"]
        revalidate = timings(
            get(client, f"/v1/documents/{doc_id}/pages/{start}.png", **{"if-none-match": tag}), n
        )
        rss = peak_rss_mb(server.proc.pid)

    with rt.file(job.source_key) as path:
        pdf = pymupdf_module().open(path)
        bare = []
        for p in pages or [start]:  # the same pages, rendered here without a server
            started = time.perf_counter()
            render_png(pdf, p, DEFAULT_DPI)
            bare.append(time.perf_counter() - started)
        pdf.close()

    med = statistics.median
    print(f"\nmedians of {n} requests over HTTP on loopback (server: quire serve, embedded)")
    print(f"  baseline  GET /v1/health                     {ms(med(health))}")
    print(
        f"  document page, first request                 {ms(first_doc)}   "
        f"({size / 1e6:.2f} MB of HTML, {sessions} sessions)"
    )
    print(
        f"  document page, warm                          {ms(med(warm_doc))}   "
        f"target < 1000 ms: {'met' if max(first_doc, med(warm_doc)) < 1 else 'MISSED'}"
    )
    print(f"  plan JSON                                    {ms(med(plan))}")
    print(f"  session page {middle:<4}                            {ms(med(session_page))}")
    if first_img:
        print(
            f"  page image, first request (render + store)   {ms(med(first_img))}   "
            f"({len(first_img)} pages)"
        )
    print(f"  baseline  bare PyMuPDF render, 110 dpi       {ms(med(bare))}")
    print(
        f"  page image, cached                           {ms(med(cached))}   "
        f"target < 100 ms: {'met' if med(cached) < 0.1 else 'MISSED'}"
    )
    print(f"  page image, 304 revalidation                 {ms(med(revalidate))}")
    print(f"  server peak RSS {rss:.0f} MB; this process {peak_rss_mb(os.getpid()):.0f} MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--doc", default="r-fullrefman.pdf")
    ap.add_argument("--state", type=Path, default=Path(tempfile.gettempdir()) / "quire-bench-web")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--library", type=int, default=10_000, help="documents (0: no library)")
    ap.add_argument("--redis", action="store_true", help="the library on Redis as well")
    ap.add_argument("--only", choices=("document", "library"))
    args = ap.parse_args()
    if args.only != "library":
        document_case(args)
    if args.only != "document" and args.library:
        library_case(args)


if __name__ == "__main__":
    main()
