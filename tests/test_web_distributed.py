"""The HTTP API on the distributed test stack: `quire serve` over redis-server (broker and
revisions), moto S3 and two real Celery workers. Uploads and `s3://` references become
documents the workers process; pages are rendered from the S3 copy and cached in S3."""

from __future__ import annotations

import itertools
import os
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest
from corpus import CORPUS
from library import add, populate
from list_checks import check_batches, check_document_pages, check_filters, check_refusals
from pipeline_utils import SAMPLE_PDF
from services import CeleryWorker, RedisServer
from web_server import TOKEN, WebServer, upload, wait_stopped

from quire.shared import keys
from quire.shared.settings import load_settings
from quire.shared.store.s3 import S3Store
from quire.workers.runtime import Runtime

pytestmark = [pytest.mark.services, pytest.mark.xdist_group("web_distributed")]


@pytest.fixture
def stack(
    private_redis: RedisServer, s3_store: S3Store, tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[httpx.Client, Runtime, S3Store]]:
    base = private_redis.url.rsplit("/", 1)[0]
    for name, value in {
        "QUIRE_BROKER_URL": f"{base}/0",
        "QUIRE_REDIS_URL": f"{base}/1",
        "QUIRE_STORE_URL": s3_store.url,
        "QUIRE_STATE_DIR": f"{tmp_path}/state",
    }.items():
        monkeypatch.setenv(name, value)
    env = {k: v for k, v in os.environ.items() if k.startswith(("AWS_", "QUIRE_"))}
    with (
        CeleryWorker(f"a{uuid.uuid4().hex[:6]}", "orchestrate,parse,review", env),
        CeleryWorker(f"b{uuid.uuid4().hex[:6]}", "write,render,analysis,parse", env),
        WebServer({**env, "QUIRE_API_TOKEN": TOKEN}) as server,
        server.client() as api,
    ):
        yield api, Runtime.from_env(load_settings()), s3_store


def test_uploads_and_s3_references_run_on_the_workers(
    stack: tuple[httpx.Client, Runtime, S3Store],
) -> None:
    api, rt, store = stack
    assert api.get("/v1/health").json()["mode"] == "distributed"

    r = upload(api, SAMPLE_PDF)
    assert r.status_code == 201, r.text
    book = r.json()["document"]["doc_id"]
    inbox = S3Store(
        store.bucket, endpoint_url=rt.env.s3_endpoint_url
    )  # the same bucket, outside Quire's prefix
    small = CORPUS / "latex-news-22.pdf"
    inbox.put(f"incoming/{small.name}", small.read_bytes())
    r = api.post("/v1/documents", data={"source": f"s3://{store.bucket}/incoming/{small.name}"})
    assert r.status_code == 201, r.text
    news = r.json()["document"]["doc_id"]
    assert r.json()["document"]["source_name"] == small.name

    for doc in (book, news):
        done = wait_stopped(api, doc, timeout=300)
        assert done["state"] == "complete" and done["verification"] == "passed", done
        assert {h["actor"] for h in done["history"]} >= {"web", "orchestrator", "worker:parse"}

    plan = api.get(f"/v1/documents/{book}/plan").json()
    assert plan["sessions"][-1]["page_last"] == 50
    md = api.get(f"/v1/documents/{book}/sessions/1/markdown")
    assert md.status_code == 200 and md.text.startswith("<!-- quire-chunk")
    assert api.get(f"/v1/documents/{book}/verification").json()["passed"] is True

    cached = keys.work(book, "page-images/110/00003.png")
    assert not rt.store.exists(cached)
    png = api.get(f"/v1/documents/{book}/pages/3.png")
    assert png.status_code == 200 and png.content[:4] == b"\x89PNG"
    assert rt.store.get(cached) == png.content  # in S3, for every server of this store
    page = api.get(f"/documents/{book}/sessions/1", headers={"accept": "text/html"})
    assert page.status_code == 200 and f"/v1/documents/{book}/pages/1.png" in page.text

    # a prefix is a batch; documents already processed are not processed again
    r = api.post("/v1/batches", data={"sources": f"s3://{store.bucket}/incoming/"})
    assert r.status_code == 201, r.text
    report = r.json()
    assert [d["doc_id"] for d in report["documents"]] == [news]
    deadline = time.monotonic() + 60
    while not report["finished"]:
        assert time.monotonic() < deadline, report
        time.sleep(0.5)
        report = api.get(f"/v1/batches/{report['batch_id']}").json()
    assert report["ok"] is True and report["mode"] == "distributed"
    r = api.post("/v1/documents", data={"source": f"s3://{store.bucket}/incoming/"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_source"
    r = api.post("/v1/documents", data={"source": f"s3://{store.bucket}/missing.pdf"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "source"


def test_the_lists_page_from_the_redis_listing(
    stack: tuple[httpx.Client, Runtime, S3Store],
) -> None:
    """The same list checks as the embedded server's (test_web_lists.py), with the listing
    in Redis and the sessions in S3; documents arrive from this process while pages are
    read from the server's."""
    api, rt, _ = stack
    made = populate(rt, 150, batch_size=60)
    numbers = itertools.count(5000)
    check_document_pages(api, made, lambda: add(rt, made, next(numbers), seed="late"))
    check_filters(api, made)
    check_refusals(api)
    check_batches(api, made)
