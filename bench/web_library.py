"""bench_web.py's library case: the list pages and endpoints over 10,000 documents (see
bench_web.py's docstring for what is measured and how the library is made)."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from library import populate
from services import RedisServer
from web_server import WebServer

from quire.shared.config import Environment
from quire.shared.revisions.listing import DocQuery
from quire.workers.runtime import Runtime


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def timed(client: httpx.Client, path: str, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        r = client.get(path, headers={"accept": "text/html"})
        out.append(time.perf_counter() - started)
        assert r.status_code == 200, (path, r.status_code, r.text[:200])
    return out


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def ensure_library(rt: Runtime, count: int) -> str:
    """The synthetic library in `rt`'s store (made once; a kept one is reused)."""
    have = rt.revisions.entries(DocQuery(limit=0)).total
    if have >= count:
        return f"kept from an earlier run: {have:,} documents"
    started = time.perf_counter()
    populate(rt, count, batch_size=1000)
    return f"populated now in {time.perf_counter() - started:.0f} s"


def load_everything(rt: Runtime) -> float:
    """What the documents page and `GET /v1/documents` did before the listing: every
    session loaded (and then summarised), on every request."""
    started = time.perf_counter()
    for doc_id in rt.revisions.list_docs():
        rt.repo.load(doc_id)
    return time.perf_counter() - started


def deep_cursor(client: httpx.Client, position: int) -> str:
    """The cursor of the page starting at `position` (walked there 200 at a time)."""
    cursor = ""
    for _ in range(position // 200):
        cursor = client.get(
            "/v1/documents", params={"limit": 200, "cursor": cursor or None}
        ).json()["next_cursor"]
    return cursor


def measure(client: httpx.Client, rt: Runtime, repeat: int) -> list[tuple[str, list[float], str]]:
    batch = rt.revisions.batches(limit=1).batches[0].batch_id
    deep = deep_cursor(client, 5000)
    cases = [
        ("baseline  GET /v1/health", "/v1/health", ""),
        ("documents page, first page", "/", "page"),
        ("documents page, search + state", "/?q=algebra&state=failed", "page"),
        ("documents page, at 5,000 (cursor)", f"/?cursor={deep}", "page"),
        ("its live refresh (/ui/documents/listing)", f"/ui/documents/listing?cursor={deep}", ""),
        ("GET /v1/documents (50)", "/v1/documents", "api"),
        ("GET /v1/documents, name + state", "/v1/documents?name=Algebra&state=complete", "api"),
        ("GET /v1/documents, at 5,000", f"/v1/documents?cursor={deep}", "api"),
        ("GET /v1/documents, one batch", f"/v1/documents?batch={batch}", "api"),
        ("GET /v1/batches", "/v1/batches", ""),
        ("batch page (1,000 documents)", f"/batches/{batch}", ""),
    ]
    times: list[list[float]] = [[] for _ in cases]
    for _, path, _ in cases:  # warm every path once
        timed(client, path, 1)
    for _ in range(repeat):  # round robin: a burst of load on the machine hits every case
        for i, (_, path, _) in enumerate(cases):
            times[i] += timed(client, path, 1)
    return [(label, t, kind) for (label, _, kind), t in zip(cases, times, strict=True)]


def report(title: str, rows: list[tuple[str, list[float], str]], before: float, size: int) -> None:
    print(f"\n{title}")
    print(f"  {'':40} {'median':>10} {'p95':>10}")
    for label, values, kind in rows:
        target = {"page": 0.3, "api": 0.1}.get(kind)
        verdict = ""
        if target:  # judged on the median, as every benchmark here; the p95 is beside it
            met = "met" if statistics.median(values) < target else "MISSED"
            verdict = f"   target < {target * 1000:.0f} ms: {met}"
        print(f"  {label:40} {ms(statistics.median(values))} {ms(p95(values))}{verdict}")
    print(f"  {'before: every session loaded, once':40} {ms(before)}   (in this process)")
    print(f"  documents page: {size / 1000:.0f} KB of HTML for 50 documents")


@contextmanager
def served(rt: Runtime, extra: dict[str, str]) -> Iterator[httpx.Client]:
    env = {"QUIRE_STORE_URL": rt.store.url, "QUIRE_STATE_DIR": str(rt.env.state_dir), **extra}
    with WebServer(env) as server, server.client(token=None) as client:
        yield client


def run_case(
    label: str, rt: Runtime, made: str, count: int, repeat: int, extra: dict[str, str]
) -> None:
    with served(rt, extra) as client:
        rows = measure(client, rt, repeat)
        size = len(client.get("/", headers={"accept": "text/html"}).content)
    load = os.getloadavg()[0]
    title = (
        f"library of {count:,} documents, {label} ({made}); {repeat} requests each, "
        f"round robin; load average {load:.1f} on {os.cpu_count()} cores"
    )
    report(title, rows, load_everything(rt), size)


def library_case(args: argparse.Namespace) -> None:
    repeat = max(args.repeat, 40)
    folder: Path = args.state / "library"
    env = Environment(store_url=str(folder / "store"), state_dir=folder / "state")
    rt = Runtime.from_env(env)
    made = ensure_library(rt, args.library)
    run_case("embedded: SQLite listing", rt, made, args.library, repeat, {})
    if not args.redis:
        return
    redis = RedisServer().start()  # no persistence: populated afresh, in a folder of its own
    folder = Path(tempfile.mkdtemp(prefix="quire-bench-web-redis-"))
    try:
        env = Environment(
            store_url=str(folder / "store"), state_dir=folder / "state", redis_url=redis.url
        )
        remote = Runtime.from_env(env)
        made = ensure_library(remote, args.library)
        extra = {"QUIRE_REDIS_URL": redis.url}
        run_case("Redis listing", remote, made, args.library, repeat, extra)
    finally:
        redis.stop()
        shutil.rmtree(folder, ignore_errors=True)
