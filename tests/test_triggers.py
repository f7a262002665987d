"""Upload-to-bucket triggers: event parsing and filters (pure), then for real on the moto
server — S3 delivering its notifications to an SQS queue that the poller drains, and a
webhook receiving real HTTP posts — with documents completing and results written under
the output prefix; duplicate and replayed events cause no work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from pipeline_utils import CORPUS, ROOT, SAMPLE_DOCX, local_runtime
from services import _die_with_parent, free_port

from quire.orchestrator.sqs_poller import SqsPoller, sqs_client
from quire.orchestrator.triggers import (
    RESULT_FILE,
    Intake,
    MalformedEvent,
    ObjectEvent,
    S3Objects,
    TriggerConfig,
    TriggerService,
    classify,
    parse_notification,
)
from quire.orchestrator.webhook import WebhookServer, start_webhook, stop_webhook
from quire.shared.config import RunSettings
from quire.workers.runtime import Runtime

CONFIG = TriggerConfig(prefix="inbox/", output_prefix="outbox/")


def aws_record(
    key: str,
    event: str = "ObjectCreated:Put",
    bucket: str = "books",
    etag: str = "abc123",
    **obj: Any,
) -> dict[str, Any]:
    """A record as S3 sends it (key URL-encoded, '+' for spaces)."""
    return {
        "eventVersion": "2.1",
        "eventSource": "aws:s3",
        "awsRegion": "us-east-1",
        "eventName": event,
        "s3": {
            "s3SchemaVersion": "1.0",
            "configurationId": "c",
            "bucket": {"name": bucket, "arn": f"arn:aws:s3:::{bucket}"},
            "object": {"key": quote_plus(key, safe="/"), "size": 10, "eTag": etag, **obj},
        },
    }


def minio_payload(
    bucket: str,
    key: str,
    *,
    event: str = "s3:ObjectCreated:Put",
    etag: str = "d41d8cd98f00b204e9800998ecf8427e",
    size: int = 10,
) -> dict[str, Any]:
    """What MinIO's webhook target posts (key encoded with '/' as %2F)."""
    return {
        "EventName": event,
        "Key": f"{bucket}/{key}",
        "Records": [
            {
                "eventVersion": "2.0",
                "eventSource": "minio:s3",
                "awsRegion": "",
                "eventTime": "2024-05-01T10:00:00.000Z",
                "eventName": event,
                "userIdentity": {"principalId": "minioadmin"},
                "requestParameters": {
                    "principalId": "minioadmin",
                    "region": "",
                    "sourceIPAddress": "172.18.0.1",
                },
                "responseElements": {"x-amz-request-id": "17C9", "x-minio-deployment-id": "d"},
                "s3": {
                    "s3SchemaVersion": "1.0",
                    "configurationId": "Config",
                    "bucket": {
                        "name": bucket,
                        "ownerIdentity": {"principalId": "minioadmin"},
                        "arn": f"arn:aws:s3:::{bucket}",
                    },
                    "object": {
                        "key": quote(key, safe=""),
                        "size": size,
                        "eTag": etag,
                        "contentType": "application/pdf",
                        "userMetadata": {"content-type": "application/pdf"},
                        "sequencer": "17C9A4F1E2B3C4D5",
                    },
                },
                "source": {"host": "172.18.0.1", "port": "", "userAgent": "MinIO (linux; amd64)"},
            }
        ],
    }


# --- pure: parsing and filters -------------------------------------------------------------


def test_aws_records_are_decoded() -> None:
    body = json.dumps(
        {
            "Records": [
                aws_record("inbox/My Book (2nd ed.)+notes.pdf", versionId="v7", sequencer="0A1"),
                aws_record("inbox/x.docx", event="ObjectRemoved:Delete"),
            ]
        }
    )
    first, second = parse_notification(body.encode())
    assert first.key == "inbox/My Book (2nd ed.)+notes.pdf"
    assert (first.event_name, first.bucket, first.size) == ("ObjectCreated:Put", "books", 10)
    assert (first.etag, first.version_id, first.sequencer) == ("abc123", "v7", "0A1")
    assert second.event_name == "ObjectRemoved:Delete"


def test_minio_and_sns_wrapped_payloads() -> None:
    [event] = parse_notification(minio_payload("quire", "inbox/a b/Ünïcode.pdf"))
    assert (event.event_name, event.bucket, event.key) == (
        "ObjectCreated:Put",
        "quire",
        "inbox/a b/Ünïcode.pdf",
    )
    sns = {
        "Type": "Notification",
        "MessageId": "m",
        "Message": json.dumps({"Records": [aws_record("inbox/x.pdf")]}),
    }
    assert [e.key for e in parse_notification(json.dumps(sns))] == ["inbox/x.pdf"]
    test_event = {"Service": "Amazon S3", "Event": "s3:TestEvent", "Bucket": "books"}
    assert parse_notification(json.dumps(test_event)) == []


@pytest.mark.parametrize(
    "body",
    [
        b"\xff\xfe not json",
        b"[1, 2]",
        b'{"hello": "world"}',
        b'{"Records": []}',
        b'{"Records": [{"eventName": "ObjectCreated:Put", "s3": {"bucket": {"name": "b"}}}]}',
        b'{"Records": ["nope"]}',
    ],
)
def test_malformed_payloads_are_refused(body: bytes) -> None:
    with pytest.raises(MalformedEvent):
        parse_notification(body)


def test_filters_say_why() -> None:
    def event(key: str, name: str = "ObjectCreated:Put", bucket: str = "books") -> ObjectEvent:
        return ObjectEvent(event_name=name, bucket=bucket, key=key)

    assert classify(event("inbox/a.pdf"), CONFIG) is None
    assert (
        classify(event("inbox/deep/B.DOCX", "ObjectCreated:CompleteMultipartUpload"), CONFIG)
        is None
    )
    assert "not an upload" in (classify(event("inbox/a.pdf", "ObjectRemoved:Delete"), CONFIG) or "")
    assert "prefix" in (classify(event("elsewhere/a.pdf"), CONFIG) or "")
    assert "prefix" in (classify(event("outbox/a.pdf/01-x.pdf"), CONFIG) or "")
    assert "not a document" in (classify(event("inbox/a.txt"), CONFIG) or "")
    for book in ("inbox/a.epub", "inbox/b.html", "inbox/c.htmlz"):  # EPUB and HTML uploads
        assert classify(event(book), CONFIG) is None, book
    assert "folder" in (classify(event("inbox/sub/"), CONFIG) or "")
    only = TriggerConfig(bucket="books")
    assert "not watched" in (classify(event("inbox/a.pdf", bucket="other"), only) or "")
    assert CONFIG.output_for("inbox/a/b.pdf") == "outbox/a/b.pdf/"
    for prefix, output in [
        ("inbox/", "inbox/out/"),
        ("data/", "data/"),
        ("", "out/"),
        ("inbox/", ""),
    ]:
        with pytest.raises(ValueError):
            TriggerConfig(prefix=prefix, output_prefix=output)
    # a store under the watched prefix would trigger on its own writes; a compressed upload
    with pytest.raises(ValueError, match="lies under the watched prefix"):
        TriggerConfig(bucket="books", store="s3://books/inbox/quire")
    assert TriggerConfig(bucket="books", store="s3://other/inbox/quire").store
    assert TriggerConfig(store="s3://books/quire").store
    assert classify(event("inbox/manual.pdf.gz"), CONFIG) is None


def test_same_upload_same_identity() -> None:
    a = ObjectEvent(event_name="ObjectCreated:Put", bucket="b", key="k.pdf", etag="e1")
    assert a.identity() == a.model_copy(update={"event_name": "ObjectCreated:Copy"}).identity()
    assert a.identity() != a.model_copy(update={"etag": "e2"}).identity()
    assert a.identity() != a.model_copy(update={"version_id": "v2"}).identity()


# --- for real: S3 -> SQS -> poller ---------------------------------------------------------


@pytest.fixture
def bucket(s3_env: str) -> Iterator[tuple[Any, str]]:
    import boto3

    s3 = boto3.client("s3", endpoint_url=s3_env)
    name = f"inbox-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    yield s3, name


def output_keys(s3: Any, bucket: str, prefix: str = "outbox/") -> list[str]:
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    return sorted(o["Key"] for page in pages for o in page.get("Contents", ()))


def result(s3: Any, bucket: str, output_prefix: str) -> dict[str, Any]:
    body = s3.get_object(Bucket=bucket, Key=output_prefix + RESULT_FILE)["Body"].read()
    return json.loads(body)


def drain(poller: SqsPoller, until: Any, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "trigger did not finish in time"
        poller.poll_once(wait_seconds=1)


@pytest.mark.services
def test_sqs_notifications_become_documents(
    bucket: tuple[Any, str], s3_env: str, tmp_path: Path
) -> None:
    s3, name = bucket
    sqs = sqs_client(s3_env)
    queue_url = sqs.create_queue(QueueName=f"events-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    # every creation and deletion in the bucket is notified; our filters do the rest
    s3.put_bucket_notification_configuration(
        Bucket=name,
        NotificationConfiguration={
            "QueueConfigurations": [
                {"QueueArn": arn, "Events": ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"]}
            ]
        },
    )
    pdf = (CORPUS / "latex-news-22.pdf").read_bytes()
    docx = (SAMPLE_DOCX).read_bytes()
    uploads = {
        "inbox/latex news 22.pdf": pdf,
        "inbox/python/hashlib (3.11).docx": docx,
        "inbox/notes.txt": b"not a document",
        "elsewhere/fhs.pdf": (CORPUS / "latex-news-22.pdf").read_bytes(),
    }
    for key, data in uploads.items():
        s3.put_object(Bucket=name, Key=key, Body=data)
    s3.delete_object(Bucket=name, Key="inbox/notes.txt")

    rt = local_runtime(tmp_path)
    service = TriggerService(Intake(rt, TriggerConfig(bucket=name), RunSettings()))
    poller = SqsPoller(service, queue_url, client=sqs)
    pdf_out, docx_out = "outbox/latex news 22.pdf/", "outbox/python/hashlib (3.11).docx/"
    drain(
        poller,
        lambda: (
            not service.intake.pending() and f"{docx_out}{RESULT_FILE}" in output_keys(s3, name)
        ),
    )

    keys = output_keys(s3, name)
    for out in (pdf_out, docx_out):
        res = result(s3, name, out)
        assert res["state"] == "complete", res
        assert out + "manifest.json" in keys and out + "verification-report.json" in keys
        report = json.loads(
            s3.get_object(Bucket=name, Key=out + "verification-report.json")["Body"].read()
        )
        assert report["passed"]
        assert any(k.startswith(out) and k.endswith(".md") for k in keys)
    assert not [k for k in keys if not k.startswith((pdf_out, docx_out))]
    # inputs untouched; the deleted and out-of-prefix objects made no documents
    assert s3.get_object(Bucket=name, Key="inbox/latex news 22.pdf")["Body"].read() == pdf
    assert len(rt.revisions.list_docs()) == 2
    revisions = {d: rt.repo.current_revision(d) for d in rt.revisions.list_docs()}

    # duplicates: the same object re-uploaded (same ETag), a replayed notification, and a
    # message that is not an event at all; the result is not even rewritten
    s3.delete_object(Bucket=name, Key=pdf_out + RESULT_FILE)
    s3.put_object(Bucket=name, Key="inbox/latex news 22.pdf", Body=pdf)
    etag = s3.head_object(Bucket=name, Key="inbox/latex news 22.pdf")["ETag"].strip('"')
    replay = {"Records": [aws_record("inbox/latex news 22.pdf", bucket=name, etag=etag)]}
    sqs.send_message(QueueUrl=queue_url, MessageBody=json.dumps(replay))
    sqs.send_message(QueueUrl=queue_url, MessageBody="garbage that must not wedge the queue")
    for _ in range(3):
        poller.poll_once(wait_seconds=1)
    assert sqs.get_queue_attributes(
        QueueUrl=queue_url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"] == {
        "ApproximateNumberOfMessages": "0",
        "ApproximateNumberOfMessagesNotVisible": "0",
    }
    assert pdf_out + RESULT_FILE not in output_keys(s3, name)
    assert {d: rt.repo.current_revision(d) for d in rt.revisions.list_docs()} == revisions

    # the same bytes under a new key: delivered there, but the document is not redone
    s3.put_object(Bucket=name, Key="inbox/copy.pdf", Body=pdf)
    drain(poller, lambda: "outbox/copy.pdf/quire-result.json" in output_keys(s3, name))
    assert result(s3, name, "outbox/copy.pdf/")["state"] == "complete"
    assert {d: rt.repo.current_revision(d) for d in rt.revisions.list_docs()} == revisions


# --- for real: webhook ---------------------------------------------------------------------

TOKEN = "s3cr3t-token-for-tests"


@pytest.fixture
def webhook(bucket: tuple[Any, str], tmp_path: Path) -> Iterator[tuple[WebhookServer, Runtime]]:
    _, name = bucket
    rt = local_runtime(tmp_path)
    objects = S3Objects(rt.env.s3_endpoint_url)
    service = TriggerService(Intake(rt, TriggerConfig(bucket=name), RunSettings(), objects))
    server, stop = start_webhook(service, host="127.0.0.1", port=0, token=TOKEN, work_interval=0.5)
    yield server, rt
    stop_webhook(server, stop)


def post(url: str, body: bytes, token: str | None = TOKEN) -> tuple[int, dict[str, Any]]:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


@pytest.mark.services
def test_webhook_accepts_authenticated_events_only(
    webhook: tuple[WebhookServer, Runtime],
    bucket: tuple[Any, str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    server, rt = webhook
    s3, name = bucket
    url = f"{server.url}/events"
    key = "inbox/shelf/python hashlib.docx"
    data = (SAMPLE_DOCX).read_bytes()
    s3.put_object(Bucket=name, Key=key, Body=data)
    etag = s3.head_object(Bucket=name, Key=key)["ETag"].strip('"')
    event = json.dumps(minio_payload(name, key, etag=etag, size=len(data))).encode()

    caplog.set_level("INFO", logger="quire")
    assert post(url, event, token=None)[0] == 401
    assert post(url, event, token="wrong")[0] == 401
    assert post(url, b"{not json", token=TOKEN)[0] == 400
    assert post(url, b'{"Records": "x"}')[0] == 400
    assert post(f"{server.url}/elsewhere", event)[0] == 404
    assert post(url, b"x" * 2_000_000)[0] == 413
    assert rt.revisions.list_docs() == []  # nothing above made a document
    rejected = [r.getMessage() for r in caplog.records if "rejected" in r.getMessage()]
    assert len(rejected) >= 4 and all(TOKEN not in m for m in rejected)

    status, body = post(
        url, json.dumps(minio_payload(name, key, event="s3:ObjectRemoved:Delete")).encode()
    )
    assert status == 200 and body["outcomes"][0]["action"] == "ignored"
    status, body = post(url, json.dumps(minio_payload(name, "archive/x.pdf")).encode())
    assert status == 200 and "prefix" in body["outcomes"][0]["reason"]

    status, body = post(url, event)
    assert status == 200, body
    [outcome] = body["outcomes"]
    assert outcome["action"] == "submitted" and outcome["doc_id"]
    out = f"outbox/shelf/python hashlib.docx/{RESULT_FILE}"
    deadline = time.monotonic() + 60
    while out not in output_keys(s3, name):
        assert time.monotonic() < deadline, "webhook document not delivered"
        time.sleep(0.2)
    assert result(s3, name, "outbox/shelf/python hashlib.docx/")["state"] == "complete"
    revision = rt.repo.current_revision(outcome["doc_id"])

    # MinIO delivers at least once: the same event again is recognised and does nothing
    status, body = post(url, event)
    assert status == 200 and body["outcomes"][0]["action"] == "duplicate"
    time.sleep(1.0)  # give the work loop a chance to (wrongly) do something
    assert rt.repo.current_revision(outcome["doc_id"]) == revision
    assert rt.revisions.list_docs() == [outcome["doc_id"]]
    with urllib.request.urlopen(f"{server.url}/healthz", timeout=5) as resp:
        assert resp.status == 200  # still serving after all of the above


def test_trigger_webhook_command(tmp_path: Path) -> None:
    """`quire trigger webhook` as an operator starts it: refuses to run without a token,
    serves /healthz and rejects unauthenticated posts when it has one."""
    env = {
        **os.environ,
        "QUIRE_STORE_URL": str(tmp_path / "store"),
        "QUIRE_STATE_DIR": str(tmp_path / "state"),
    }
    env.pop("QUIRE_WEBHOOK_TOKEN", None)
    env.pop("QUIRE_BROKER_URL", None)
    port = free_port()
    argv = [
        sys.executable,
        "-m",
        "quire.orchestrator.cli",
        "trigger",
        "webhook",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--prefix",
        "uploads/",
    ]
    refused = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "QUIRE_WEBHOOK_TOKEN" in refused.stderr

    proc = subprocess.Popen(
        argv,
        env={**env, "QUIRE_WEBHOOK_TOKEN": TOKEN},
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=_die_with_parent,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=2) as resp:
                    assert resp.status == 200
                    break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert post(f"{url}/events", b"{}", token="nope")[0] == 401
        status, body = post(
            f"{url}/events", json.dumps(minio_payload("any", "inbox/a.pdf")).encode()
        )
        assert status == 200 and "uploads/" in body["outcomes"][0]["reason"]
    finally:
        proc.terminate()
        proc.wait(10)
