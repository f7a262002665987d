"""Operator metrics for Prometheus (prometheus_client): `quire metrics` prints them once,
`quire metrics --serve PORT` answers `GET /metrics` (on 127.0.0.1 unless told otherwise).

- `quire_queue_depth{queue}` and `quire_queue_unacked`: messages waiting per Celery queue
  (Redis `LLEN`, priority sub-queues included) and delivered but not yet acknowledged;
- `quire_documents{state}`: documents per state now;
- `quire_stage_seconds{state}`: a histogram of how long documents spent in each state, from
  the session revisions (every state change is a revision with its time);
- `quire_stage_exits_total{state}` and `quire_document_failures_total{code,stage}`: counters
  of documents leaving each state and of failures by reason and the stage they happened in;
- the standard `process_*` and `python_*` metrics of the serving process.

Session histories are append-only and read incrementally per document, so the counters only
grow and a scrape reads only the revisions committed since the previous one.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, generate_latest, start_http_server
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

from quire.orchestrator.dispatch import dispatcher_for
from quire.workers.runtime import Runtime

log = logging.getLogger("quire.metrics")

# seconds a document spends in one state: from a quick scoring step to a book's parsing
STAGE_BUCKETS = (0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)


@dataclass
class _DocClock:
    """What one document's history has told so far."""

    revision: int = 0
    state: str = ""
    entered_at: float = 0.0
    durations: list[tuple[str, float]] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)  # (code, stage) per failure


@dataclass
class Snapshot:
    queue_depth: dict[str, int]
    unacked: int | None
    documents: dict[str, int]
    stage_seconds: dict[str, list[float]]
    failures: dict[tuple[str, str], int]  # (code, stage) -> failures so far


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
                    clock.failures.append((s.error_code or "unknown", clock.state or "submission"))
                clock.state, clock.entered_at = s.state, s.committed_at
            clock.revision = rev
        return clock

    def collect(self) -> Snapshot:
        with self._lock:
            depths: dict[str, int] = {}
            unacked: int | None = None
            try:
                found = dispatcher_for(self.rt).queue_depths()
            except Exception as exc:
                log.warning("queue depth unavailable: %s", exc)
            else:
                if found is not None:
                    depths, unacked = found
            documents: dict[str, int] = {}
            stages: dict[str, list[float]] = {}
            failures: dict[tuple[str, str], int] = {}
            for doc_id in self.rt.revisions.list_docs():
                clock = self._advance(doc_id)
                documents[clock.state] = documents.get(clock.state, 0) + 1
                for state, seconds in clock.durations:
                    stages.setdefault(state, []).append(seconds)
                for key in clock.failures:
                    failures[key] = failures.get(key, 0) + 1
            return Snapshot(depths, unacked, documents, stages, failures)


class QuireMetrics:
    """A prometheus_client collector over a `Collector`'s snapshots."""

    def __init__(self, collector: Collector) -> None:
        self.collector = collector

    def collect(self) -> Iterator[Metric]:
        snap = self.collector.collect()
        if snap.queue_depth:
            depth = GaugeMetricFamily(
                "quire_queue_depth", "Messages waiting in each Celery queue.", labels=["queue"]
            )
            for q, n in sorted(snap.queue_depth.items()):
                depth.add_metric([q], n)
            yield depth
        if snap.unacked is not None:
            yield GaugeMetricFamily(
                "quire_queue_unacked",
                "Messages delivered to workers and not yet acknowledged.",
                value=snap.unacked,
            )
        docs = GaugeMetricFamily("quire_documents", "Documents per state.", labels=["state"])
        for state, n in sorted(snap.documents.items()):
            docs.add_metric([state], n)
        yield docs
        stages = HistogramMetricFamily(
            "quire_stage_seconds", "Time documents spent in each state.", labels=["state"]
        )
        exits = CounterMetricFamily(
            "quire_stage_exits", "Documents that left each state.", labels=["state"]
        )
        for state, values in sorted(snap.stage_seconds.items()):
            buckets = [(str(b), sum(v <= b for v in values)) for b in STAGE_BUCKETS]
            stages.add_metric([state], [*buckets, ("+Inf", len(values))], sum(values))
            exits.add_metric([state], len(values))
        yield stages
        yield exits
        failures = CounterMetricFamily(
            "quire_document_failures",
            "Documents that failed, by reason and the stage they failed in.",
            labels=["code", "stage"],
        )
        for (code, stage), n in sorted(snap.failures.items()):
            failures.add_metric([code, stage], n)
        yield failures


def registry(collector: Collector) -> CollectorRegistry:
    """Quire's metrics and the serving process's own (CPU, memory, open files, GC)."""
    reg = CollectorRegistry()
    reg.register(QuireMetrics(collector))
    ProcessCollector(registry=reg)
    PlatformCollector(registry=reg)
    return reg


def render(reg: CollectorRegistry) -> str:
    return generate_latest(reg).decode("utf-8")


def serve(reg: CollectorRegistry, host: str, port: int) -> int:
    """Serve `GET /metrics` in a background thread; returns the port (0 picks a free one)."""
    server, _thread = start_http_server(port, addr=host, registry=reg)
    return int(server.server_address[1])
