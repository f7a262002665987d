"""The distributed stack for real: redis-server (broker + revisions), moto S3 over HTTP and
two Celery worker processes on different queues. Outputs must be byte-identical to the
embedded run of the same documents with the same settings."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from pipeline_utils import SAMPLE_DOCX, SAMPLE_PDF, local_runtime, outputs, run_embedded
from services import CeleryWorker, RedisServer

from quire.orchestrator.service import process_documents
from quire.shared.config import RunSettings
from quire.shared.settings import load_settings
from quire.shared.store.s3 import S3Store
from quire.workers.execute import submit
from quire.workers.runtime import Runtime

pytestmark = pytest.mark.services

DOCS = [
    (SAMPLE_PDF, RunSettings(output_format="both", range_pages=20, render_batch_pages=40)),
    (SAMPLE_DOCX, RunSettings()),
]


@pytest.fixture
def stack(
    private_redis: RedisServer, s3_store: S3Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Runtime]:
    base = private_redis.url.rsplit("/", 1)[0]
    env = {
        "QUIRE_BROKER_URL": f"{base}/0",
        "QUIRE_REDIS_URL": f"{base}/1",
        "QUIRE_STORE_URL": s3_store.url,
        "QUIRE_STATE_DIR": str(tmp_path / "state"),
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    import os

    worker_env = {k: v for k, v in os.environ.items() if k.startswith(("AWS_", "QUIRE_"))}
    with (
        CeleryWorker(f"a{uuid.uuid4().hex[:6]}", "orchestrate,parse,review", worker_env),
        CeleryWorker(f"b{uuid.uuid4().hex[:6]}", "write,render,analysis,parse", worker_env),
    ):
        yield Runtime.from_env(load_settings())


def test_distributed_run_matches_embedded(stack: Runtime, tmp_path: Path) -> None:
    ids = [submit(stack, path, settings).doc_id for path, settings in DOCS]
    process_documents(stack, ids, poll=0.2, timeout=240)
    embedded = local_runtime(tmp_path / "embedded")
    for doc_id, (path, settings) in zip(ids, DOCS, strict=True):
        s = stack.repo.load(doc_id)
        assert s.state == "complete", (s.state, s.error)
        local = run_embedded(embedded, path, settings)
        assert local.state == "complete", local.error
        distributed, expected = outputs(stack, doc_id), outputs(embedded, doc_id)
        assert sorted(distributed) == sorted(expected)
        assert any(name.endswith(".pdf") for name in expected) == (path.suffix == ".pdf")
        for name, data in expected.items():
            assert distributed[name] == data, name
        history = stack.repo.history(doc_id)
        assert [h.revision for h in history] == list(range(1, len(history) + 1))
        assert {h.actor for h in history} >= {"worker:parse", "orchestrator"}
