"""Operator metrics in the Prometheus text format: `quire metrics` prints them once,
`quire metrics --serve PORT` answers `GET /metrics`.

- queue depth per Celery queue (Redis `LLEN` on the broker, priority sub-queues included)
  and tasks reserved by workers but not yet acknowledged;
- documents per state;
- per-stage latency (how long documents spent in each state, from the session revisions:
  every state change is a revision with its time, so no extra bookkeeping is needed);
- failures by reason code and by the stage they happened in.

Session histories are read incrementally and cached per document, so a scrape reads only
the revisions committed since the previous one.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from quire.shared.states import QUEUES
from quire.workers.runtime import Runtime

log = logging.getLogger("quire.metrics")

# kombu's Redis transport keeps priority levels in sibling lists: "{queue}\x06\x16{n}"
_PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")


def queue_depths(broker_url: str) -> tuple[dict[str, int], int]:
    """Messages waiting per queue, and messages delivered but not yet acknowledged."""
    import redis

    client = redis.Redis.from_url(broker_url, socket_timeout=5)
    try:
        depths = {q: sum(int(client.llen(q + s)) for s in _PRIORITY_SUFFIXES) for q in QUEUES}
        unacked = int(client.hlen("unacked"))
    finally:
        client.close()
    return depths, unacked


@dataclass
class _DocClock:
    """What one document's history has told so far."""

    revision: int = 0
    state: str = ""
    entered_at: float = 0.0
    error_code: str | None = None
    durations: list[tuple[str, float]] = field(default_factory=list)
    failed_in: str | None = None


@dataclass
class Snapshot:
    queue_depth: dict[str, int]
    unacked: int | None
    documents: dict[str, int]
    stage_seconds: dict[str, list[float]]
    failures: dict[tuple[str, str], int]  # (code, stage) -> count


class Collector:
    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self._clocks: dict[str, _DocClock] = {}
        self._lock = threading.Lock()

    def _advance(self, doc_id: str) -> _DocClock:
        clock = self._clocks.setdefault(doc_id, _DocClock())
        current = self.rt.repo.current_revision(doc_id)
        for rev in range(clock.revision + 1, current + 1):
            s = self.rt.repo.load(doc_id, rev)
            if s.state != clock.state:
                if clock.state:
                    clock.durations.append(
                        (clock.state, max(0.0, s.committed_at - clock.entered_at))
                    )
                if s.state == "failed":
                    clock.failed_in = "submission" if not clock.state else clock.state
                clock.state, clock.entered_at = s.state, s.committed_at
            clock.revision, clock.error_code = rev, s.error_code
        return clock

    def collect(self) -> Snapshot:
        with self._lock:
            depths: dict[str, int] = {}
            unacked: int | None = None
            if self.rt.env.broker_url and self.rt.env.broker_url.startswith("redis"):
                try:
                    depths, unacked = queue_depths(self.rt.env.broker_url)
                except Exception as exc:
                    log.warning("queue depth unavailable: %s", exc)
            documents: dict[str, int] = {}
            stages: dict[str, list[float]] = {}
            failures: dict[tuple[str, str], int] = {}
            for doc_id in self.rt.revisions.list_docs():
                clock = self._advance(doc_id)
                documents[clock.state] = documents.get(clock.state, 0) + 1
                for state, seconds in clock.durations:
                    stages.setdefault(state, []).append(seconds)
                if clock.state == "failed":
                    key = (clock.error_code or "unknown", clock.failed_in or "unknown")
                    failures[key] = failures.get(key, 0) + 1
            return Snapshot(depths, unacked, documents, stages, failures)


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def render(snap: Snapshot) -> str:
    lines: list[str] = []

    def metric(name: str, kind: str, help_text: str, rows: list[tuple[str, float]]) -> None:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {kind}")
        lines.extend(f"{name}{labels} {value:g}" for labels, value in rows)

    if snap.queue_depth:
        metric(
            "quire_queue_depth",
            "gauge",
            "Messages waiting in each Celery queue.",
            [(f'{{queue="{q}"}}', n) for q, n in sorted(snap.queue_depth.items())],
        )
    if snap.unacked is not None:
        metric(
            "quire_queue_unacked",
            "gauge",
            "Messages delivered to workers and not yet acknowledged.",
            [("", snap.unacked)],
        )
    metric(
        "quire_documents",
        "gauge",
        "Documents per state.",
        [(f'{{state="{_label(s)}"}}', n) for s, n in sorted(snap.documents.items())],
    )
    rows: list[tuple[str, float]] = []
    for state, values in sorted(snap.stage_seconds.items()):
        label = f'{{state="{_label(state)}"}}'
        rows += [("_sum" + label, sum(values)), ("_count" + label, len(values))]
    lines.append("# HELP quire_stage_seconds Time documents spent in each state.")
    lines.append("# TYPE quire_stage_seconds summary")
    lines.extend(f"quire_stage_seconds{suffix} {value:g}" for suffix, value in rows)
    metric(
        "quire_stage_seconds_max",
        "gauge",
        "Longest time a document spent in each state.",
        [(f'{{state="{_label(s)}"}}', max(v)) for s, v in sorted(snap.stage_seconds.items())],
    )
    metric(
        "quire_failed_documents",
        "gauge",
        "Failed documents by reason and stage.",
        [
            (f'{{code="{_label(c)}",stage="{_label(st)}"}}', n)
            for (c, st), n in sorted(snap.failures.items())
        ],
    )
    return "\n".join(lines) + "\n"


class _Handler(BaseHTTPRequestHandler):
    server: MetricsServer

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.client_address[0], format % args)

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] != "/metrics":
            self.send_error(404)
            return
        try:
            body = render(self.server.collector.collect()).encode()
            status = 200
        except Exception:
            log.exception("collecting metrics failed")
            body, status = b"# collection failed; see the server log\n", 500
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class MetricsServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], collector: Collector) -> None:
        super().__init__(address, _Handler)
        self.collector = collector
