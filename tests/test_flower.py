"""Operations for real: `quire flower` with basic auth against the same broker as a real
Celery worker; a document runs through and Flower's API shows our tasks (named for their
queue, arguments naming document, state, part and revision). Then `quire metrics` reads the
queue depths the broker really holds and the documents' states and stage latencies."""

from __future__ import annotations

import base64
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
from typing import TYPE_CHECKING, Any

import pytest
from pipeline_utils import CORPUS, ROOT
from services import CeleryWorker, RedisServer, _die_with_parent, free_port

from quire.orchestrator.service import process_documents
from quire.shared.config import RunSettings
from quire.shared.settings import load_settings
from quire.workers.execute import submit
from quire.workers.runtime import Runtime

if TYPE_CHECKING:
    from quire.shared.store.s3 import S3Store

pytestmark = pytest.mark.services

USER, PASSWORD = "operator", "flower-test-pw"


@pytest.fixture(autouse=True)
def fresh_broker_connections() -> Iterator[None]:
    """The Celery app is process-wide: drop its pooled connections to an earlier test's
    (stopped) broker before and after each test."""
    from quire.workers.app import app

    app._after_fork()
    yield
    app._after_fork()


def get(url: str, auth: bool = True) -> tuple[int, Any]:
    req = urllib.request.Request(url)
    if auth:
        token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        req.add_header("Authorization", f"Basic {token}")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, None


@pytest.fixture
def stack(
    private_redis: RedisServer,
    s3_store: S3Store,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[dict[str, str]]:
    base = private_redis.url.rsplit("/", 1)[0]
    env = {
        "QUIRE_BROKER_URL": f"{base}/0",
        "QUIRE_REDIS_URL": f"{base}/1",
        "QUIRE_STORE_URL": s3_store.url,  # a folder is refused with a broker (Deployment)
        "QUIRE_STATE_DIR": str(tmp_path / "state"),
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    yield env


@pytest.fixture
def flower(stack: dict[str, str], tmp_path: Path) -> Iterator[str]:
    port = free_port()
    log = tmp_path / "flower.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "quire.orchestrator.cli",
                "flower",
                f"--port={port}",
                "--address=127.0.0.1",
            ],
            env={**os.environ, "FLOWER_BASIC_AUTH": f"{USER}:{PASSWORD}"},
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, log.read_text()[-2000:]
            try:
                if get(f"{url}/api/tasks")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def test_flower_shows_our_tasks_and_metrics_show_the_queues(
    stack: dict[str, str], flower: str
) -> None:
    assert get(f"{flower}/api/tasks", auth=False)[0] == 401  # authentication is on
    rt = Runtime.from_env(load_settings())
    worker_env = {k: v for k, v in os.environ.items() if k.startswith(("AWS_", "QUIRE_"))}
    with CeleryWorker(
        f"fl{uuid.uuid4().hex[:6]}", "orchestrate,parse,review,write,render,analysis", worker_env
    ):
        session = submit(rt, CORPUS / "latex-news-22.pdf", RunSettings())
        process_documents(rt, [session.doc_id], poll=0.2, timeout=120)
        assert rt.repo.load(session.doc_id).state == "complete"
        deadline = time.monotonic() + 30
        while True:  # Flower learns of tasks from the workers' events, a moment later
            status, tasks = get(f"{flower}/api/tasks")
            assert status == 200
            parse = [
                t
                for t in tasks.values()
                if t["name"] == "quire.part.parse"
                and t["state"] == "SUCCESS"
                and "'00001-00002'" in t["args"]
            ]
            if parse:
                break
            assert time.monotonic() < deadline, json.dumps(tasks)[:2000]
            time.sleep(0.5)
    # an operator can tell what ran: document, state, page range and revision
    assert session.doc_id in parse[0]["args"] and "'parsing'" in parse[0]["args"]
    names = {t["name"] for t in tasks.values()}
    assert {"quire.advance", "quire.part.write", "quire.part.render"} & names

    # with no worker left, pokes wait in the orchestrate queue: the metrics see them
    from quire.workers.tasks import poke

    for _ in range(3):
        poke(session.doc_id)
    run = subprocess.run(
        [sys.executable, "-m", "quire.orchestrator.cli", "metrics"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=os.environ.copy(),
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    lines = set(run.stdout.splitlines())
    assert 'quire_queue_depth{queue="orchestrate"} 3.0' in lines, run.stdout
    assert 'quire_queue_depth{queue="parse"} 0.0' in lines
    assert 'quire_documents{state="complete"} 1.0' in lines
    assert 'quire_stage_seconds_count{state="parsing"} 1.0' in lines
