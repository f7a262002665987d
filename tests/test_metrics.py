"""Metrics from real sessions: documents per state, per-stage latency from the revision
history, failures by reason and stage, served as Prometheus text over HTTP."""

from __future__ import annotations

import threading
import urllib.request
from pathlib import Path

from pipeline_utils import CORPUS, local_runtime, run_embedded

from quire.orchestrator.metrics import Collector, MetricsServer, render
from quire.shared.config import RunSettings
from quire.workers.execute import submit


def test_metrics_from_sessions(tmp_path: Path) -> None:
    rt = local_runtime(tmp_path)
    done = run_embedded(rt, CORPUS / "latex-news-22.pdf", RunSettings())
    assert done.state == "complete"
    assert submit(rt, CORPUS / "r-data-truncated.pdf", RunSettings()).state == "failed"
    image_only = run_embedded(rt, CORPUS / "liboctave-excerpt-image-only.pdf",
                              RunSettings(ocr="off"))
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

    server = MetricsServer(("127.0.0.1", 0), collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        with urllib.request.urlopen(f"{url}/metrics", timeout=10) as resp:
            assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            text = resp.read().decode()
    finally:
        server.shutdown()
        server.server_close()
    lines = text.splitlines()
    assert 'quire_documents{state="complete"} 1' in lines
    assert 'quire_failed_documents{code="empty",stage="parsing"} 1' in lines
    assert "# TYPE quire_stage_seconds summary" in lines
    assert 'quire_stage_seconds_count{state="parsing"} 2' in lines
    assert text == render(collector.collect())  # a second scrape reads only what is new
