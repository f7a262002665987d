"""Metrics from real sessions: documents per state, per-stage latency from the revision
history, failures by reason and stage, served as Prometheus text over HTTP."""

from __future__ import annotations

import urllib.request
from pathlib import Path

from pipeline_utils import CORPUS, local_runtime, run_embedded

from quire.orchestrator.metrics import Collector, registry, render, serve
from quire.shared.config import RunSettings
from quire.workers.execute import submit


def test_metrics_from_sessions(tmp_path: Path) -> None:
    rt = local_runtime(tmp_path)
    done = run_embedded(rt, CORPUS / "latex-news-22.pdf", RunSettings())
    assert done.state == "complete"
    assert submit(rt, CORPUS / "r-data-truncated.pdf", RunSettings()).state == "failed"
    image_only = run_embedded(
        rt, CORPUS / "liboctave-excerpt-image-only.pdf", RunSettings(ocr="off")
    )
    assert (image_only.state, image_only.error_code) == ("failed", "empty")

    collector = Collector(rt)
    snap = collector.collect()
    assert snap.documents == {"complete": 1, "failed": 2}
    assert snap.failures == {("corrupt", "submission"): 1, ("empty", "parsing"): 1}
    assert len(snap.stage_seconds["parsing"]) == 2  # both parsed documents left parsing
    assert len(snap.stage_seconds["verifying"]) >= 1  # re-verified after analysis, maybe
    spans = 0.0  # each document's time from submission to its last revision
    for doc_id in rt.revisions.list_docs():
        history = rt.repo.history(doc_id)
        spans += history[-1].committed_at - history[0].committed_at
    measured = [v for vals in snap.stage_seconds.values() for v in vals]
    assert min(measured) >= 0 and 0 < sum(measured) <= spans + 1e-6
    assert snap.queue_depth == {} and snap.unacked is None  # embedded: no broker

    reg = registry(collector)
    port = serve(reg, "127.0.0.1", 0)
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = resp.read().decode()
    lines = text.splitlines()
    assert 'quire_documents{state="complete"} 1.0' in lines
    assert 'quire_document_failures_total{code="empty",stage="parsing"} 1.0' in lines
    assert 'quire_document_failures_total{code="corrupt",stage="submission"} 1.0' in lines
    assert "# TYPE quire_stage_seconds histogram" in lines
    assert 'quire_stage_seconds_count{state="parsing"} 2.0' in lines
    assert 'quire_stage_seconds_bucket{le="+Inf",state="parsing"} 2.0' in lines
    assert 'quire_stage_exits_total{state="parsing"} 2.0' in lines
    assert any(line.startswith("process_resident_memory_bytes ") for line in lines)
    scraped = [ln for ln in lines if ln.startswith("quire_")]
    again = [ln for ln in render(reg).splitlines() if ln.startswith("quire_")]
    assert scraped == again  # a second scrape reads only what is new, and agrees


def test_a_rerun_failure_keeps_the_failure_counter_growing(tmp_path: Path) -> None:
    """Counters only grow: a document that failed and then completed on a re-run still
    counts its failure (histories are append-only)."""
    rt = local_runtime(tmp_path)
    bad = run_embedded(
        rt, CORPUS / "latex-news-22.pdf", RunSettings(output_format="pdf", max_pages=1)
    )
    assert (bad.state, bad.error_code) == ("failed", "too_large")
    collector = Collector(rt)
    assert collector.collect().failures == {("too_large", "submission"): 1}
    good = submit(rt, CORPUS / "latex-news-22.pdf", RunSettings(), rerun=True)
    run_embedded(rt, CORPUS / "latex-news-22.pdf", RunSettings())
    assert rt.repo.load(good.doc_id).state == "complete"
    snap = collector.collect()
    assert snap.failures == {("too_large", "submission"): 1}
    assert snap.documents == {"complete": 1}


def test_metrics_serve_on_loopback_unless_told_otherwise() -> None:
    from quire.orchestrator.cli import metrics

    host = next(p for p in metrics.params if p.name == "host")
    assert host.default == "127.0.0.1"
