"""Secrets stay where they belong: API keys and S3 credentials come from the environment,
reach their provider in its authentication header, and appear nowhere else; a PDF's
password is used at submission (to store a decrypted copy) and appears nowhere else.

Documents run on the real distributed stack with the `openai` backend pointed at a local
fake provider (one document also gets a 401 whose message quotes the key, as providers do),
while every command sent to Redis is recorded (MONITOR: task messages and revisions). Then
logs, task messages, session objects, every stored object and the prompts are scanned for
the secrets, raw and base64-decoded.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from fault_stack import Stack
from gen_docs import textbook_docx, textbook_pdf
from llm_servers import Reply
from llm_smart import SmartProvider
from scans import encrypt_pdf
from services import MotoServer

from quire.shared.config import RunSettings

pytestmark = pytest.mark.services

OPENAI_KEY = f"sk-proj-QUIRE{uuid.uuid4().hex}SECRET"
ANTHROPIC_KEY = f"sk-ant-api03-{uuid.uuid4().hex}QUIRE"
AWS_SECRET = f"quireAwsSecret{uuid.uuid4().hex}"
PDF_PASSWORD = f"quirePdf{uuid.uuid4().hex[:24]}"  # at submission only (PDF: <= 40 chars)
SECRETS = {
    "OPENAI_API_KEY": OPENAI_KEY,
    "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
    "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
    "PDF_PASSWORD": PDF_PASSWORD,
}
_B64 = re.compile(rb"[A-Za-z0-9+/]{16,}={0,2}")


def leaks(blob: bytes) -> list[str]:
    """Names of the secrets found in `blob`, as they are or inside base64 (Celery message
    bodies are base64 in the Redis payloads), whole or by a distinctive 16-char middle."""
    texts = [blob]
    for run in _B64.findall(blob):
        try:
            texts.append(base64.b64decode(run + b"=" * (-len(run) % 4)))
        except (binascii.Error, ValueError):
            continue
    found = []
    for name, secret in SECRETS.items():
        middle = secret[len(secret) // 2 - 8 : len(secret) // 2 + 8].encode()
        if any(secret.encode() in t or middle in t for t in texts):
            found.append(name)
    return found


class Monitor:
    """Every command Redis receives, recorded from a MONITOR connection."""

    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url)
        self.commands: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with self.client.monitor() as m:
            self._ready.set()
            while not self._stop.is_set():
                try:
                    cmd = m.next_command()
                except (redis.ConnectionError, redis.TimeoutError):
                    return
                self.commands.append(str(cmd.get("command", "")).encode("utf-8", "replace"))

    def __enter__(self) -> Monitor:
        self._ready = threading.Event()
        self._thread.start()
        assert self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.client.ping()  # one more command so next_command returns
        self._thread.join(timeout=5)
        self.client.close()


@pytest.fixture(scope="module")
def llm() -> Iterator[SmartProvider]:
    with SmartProvider() as server:
        yield server


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, llm: SmartProvider) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("secrets")
    with MotoServer() as moto:
        stack = Stack(
            tmp,
            moto,
            extra_env={
                **{k: v for k, v in SECRETS.items() if k != "PDF_PASSWORD"},
                "AWS_ACCESS_KEY_ID": "AKIAQUIRETESTKEY0001",
                "OPENAI_BASE_URL": llm.base_url,
                "QUIRE_OPENAI_MODEL": "fake-model",
                "QUIRE_BACKEND_BACKOFF": "0.001",
            },
        ).start()
        try:
            yield stack
        finally:
            stack.stop()


def test_no_secret_in_logs_messages_sessions_or_outputs(
    stack: Stack, llm: SmartProvider, tmp_path: Path
) -> None:
    good = textbook_pdf(tmp_path / "keys.pdf", 71, chapter_count=5, paragraphs=12)
    opened = textbook_pdf(tmp_path / "open.pdf", 73, chapter_count=3, paragraphs=12)
    locked = encrypt_pdf(opened, tmp_path / "locked.pdf", user=PDF_PASSWORD, owner="owner-pw")
    refused = textbook_docx(tmp_path / "refused.docx", 72)
    settings_pdf = RunSettings(output_format="both", backend="openai")
    settings_docx = RunSettings(backend="openai")
    # a provider that quotes the key it refuses, for every analysis of the second document
    body = json.dumps(
        {
            "error": {
                "message": f"Incorrect API key provided: {OPENAI_KEY}",
                "type": "invalid_request_error",
                "code": "invalid_api_key",
            }
        }
    )
    unauthorized = Reply(status=401, raw=body.encode())
    with Monitor(stack.redis.url) as monitor:
        good_id = stack.submit(good, settings_pdf)
        stack.poke([good_id])
        assert stack.wait_terminal([good_id], 120)[good_id].state == "complete"
        # a password-protected PDF: the password opens it at submission, nowhere else
        locked_id = stack.submit(locked, RunSettings(output_format="both"), password=PDF_PASSWORD)
        stack.poke([locked_id])
        assert stack.wait_terminal([locked_id], 120)[locked_id].state == "complete"
        llm.always["AnalysisAnswer"] = unauthorized
        try:
            refused_id = stack.submit(refused, settings_docx)
            stack.poke([refused_id])
            s = stack.wait_terminal([refused_id], 120)[refused_id]
        finally:
            llm.always.clear()
    assert s.state == "failed" and s.error and "HTTP 401" in s.error, s.error
    assert "***" in s.error  # the quoted key was redacted, the rest of the reason kept

    # the key went to the provider, and only in the Authorization header
    assert llm.requests
    for req in llm.requests:
        assert req.headers.get("authorization") == f"Bearer {OPENAI_KEY}"
        assert not leaks(req.raw), "a prompt carries a secret"
    # task messages and revisions: everything sent to Redis
    assert sum(b"quire.part" in c for c in monitor.commands) > 20
    found = {n for c in monitor.commands for n in leaks(c)}
    assert not found, f"secrets in Redis commands: {found}"
    # logs of every worker and the reconciler
    logs = stack.logs().encode()
    assert b"quire.part." in logs and not leaks(logs), leaks(logs)
    # session objects, outputs, intermediate results: every object in the bucket
    store = stack.runtime.store
    keys = store.list("")
    assert any("/session/rev-" in k for k in keys) and any("/out/" in k for k in keys)
    dirty = {k: leaks(store.get(k)) for k in keys}
    assert not {k: v for k, v in dirty.items() if v}
