"""`quire serve` for real, in its own process on a free loopback port, and helpers to talk
to it: a client with (or without) the token, uploads, and waiting for documents."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from services import ServiceError, _die_with_parent, _stop_process, _tail, free_port

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "test-token-" + "x" * 24


class WebServer:
    """`quire serve` with the given environment (store, state folder, token, limits)."""

    def __init__(self, env: dict[str, str], *, processes: int = 2) -> None:
        self.env = env
        self.processes = processes
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        fd, log = tempfile.mkstemp(prefix="quire-serve-", suffix=".log")
        os.close(fd)
        self.log = Path(log)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90.0) -> WebServer:
        for _ in range(3):  # a free port can be taken before the server binds it
            self.port = free_port()
            env = {**os.environ, "PYTHONPATH": str(ROOT), **self.env}
            with open(self.log, "ab") as out:
                self.proc = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "quire.orchestrator.cli",
                        "serve",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        str(self.port),
                        "--processes",
                        str(self.processes),
                    ],
                    stdout=out,
                    stderr=out,
                    stdin=subprocess.DEVNULL,
                    cwd=ROOT,
                    env=env,
                    preexec_fn=_die_with_parent,
                )
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    if httpx.get(f"{self.url}/v1/health", timeout=2).status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
                time.sleep(0.2)
            _stop_process(self.proc)
            if b"address already in use" not in self.log.read_bytes():
                break
        raise ServiceError(f"quire serve did not start:\n{_tail(self.log)}")

    def client(self, token: str | None = TOKEN) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)

    def stop(self) -> None:
        _stop_process(self.proc, timeout=20)

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.log.unlink(missing_ok=True)


def upload(client: httpx.Client, path: Path, **settings: Any) -> httpx.Response:
    with open(path, "rb") as f:
        return client.post(
            "/v1/documents",
            files={"file": (path.name, f)},
            data={k: str(v) for k, v in settings.items()},
        )


def wait_stopped(client: httpx.Client, doc_id: str, timeout: float = 600) -> dict[str, Any]:
    """Poll the document until it is complete, failed or waiting for a decision."""
    deadline = time.monotonic() + timeout
    while True:
        doc: dict[str, Any] = client.get(f"/v1/documents/{doc_id}").json()
        if doc["state"] in ("complete", "failed", "awaiting_decision"):
            return doc
        if time.monotonic() > deadline:
            raise TimeoutError(f"{doc_id[:12]} still {doc['state']} after {timeout}s")
        time.sleep(0.5)
