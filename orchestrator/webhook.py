"""The webhook endpoint for S3 event notifications (MinIO's webhook target, or any sender
of the AWS S3 event JSON).

`POST /events` (or `/`) with `Authorization: Bearer <QUIRE_WEBHOOK_TOKEN>` — MinIO sends
exactly that when its target has `auth_token` set. Unauthenticated requests get 401,
malformed ones 400, oversized ones 413, each logged with the client address (never the
token); a transient fault answers 503 so the sender retries later; nothing a client sends
can stop the server. `GET /healthz` is open (for container health checks) and says nothing
else. The handler only submits; documents run and results are delivered by the service's
background loop, so MinIO gets its answer quickly.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from quire.orchestrator.triggers import MalformedEvent, TriggerService
from quire.shared.errors import QuireError, TransientError

log = logging.getLogger("quire.webhook")

EVENT_PATHS = ("/", "/events")
MAX_BODY = 1_000_000  # an S3 notification is a few KB; MinIO sends one record per request
DISCARD_LIMIT = 16_000_000  # refused bodies up to this size are read to the end


class WebhookServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        service: TriggerService,
        token: str,
        max_body: int = MAX_BODY,
    ) -> None:
        if not token:
            raise QuireError("the webhook needs a shared token: set QUIRE_WEBHOOK_TOKEN")
        super().__init__(address, _Handler)
        self.service = service
        self.token = token.encode()
        self.max_body = max_body

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class _Handler(BaseHTTPRequestHandler):
    server: WebhookServer
    server_version = "quire-webhook"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.client_address[0], format % args)

    def _reply(
        self,
        status: int,
        body: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _refuse(self, status: int, why: str, headers: dict[str, str] | None = None) -> None:
        log.warning(
            "rejected %s %s from %s: %s", self.command, self.path, self.client_address[0], why
        )
        self._reply(status, {"error": why}, headers)

    def _discard(self, length: int) -> None:
        """Read and drop a refused body (up to a bound), so the client sees our answer
        rather than a reset connection; past the bound, just close."""
        self.close_connection = True
        if length > DISCARD_LIMIT:
            return
        while length > 0:
            chunk = self.rfile.read(min(length, 65536))
            if not chunk:
                return
            length -= len(chunk)

    def do_HEAD(self) -> None:  # MinIO probes its target's liveness
        self._reply(200, {})

    def do_GET(self) -> None:
        if self.path == "/healthz":
            self._reply(200, {"ok": True})
        else:
            self._reply(404, {"error": "not found"})

    def _authorized(self) -> bool:
        scheme, _, given = (self.headers.get("Authorization") or "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode(), self.server.token
        )

    def do_POST(self) -> None:
        try:
            self._post()
        except Exception:  # the last line of defence: answer, log, keep serving
            log.exception("webhook request from %s failed", self.client_address[0])
            with contextlib.suppress(OSError):
                self._reply(500, {"error": "internal error"})

    def _post(self) -> None:
        if self.path.split("?", 1)[0] not in EVENT_PATHS:
            self._reply(404, {"error": "not found"})
            return
        try:
            length = int(self.headers.get("Content-Length") or "")
        except ValueError:
            length = -1
        too_big = length < 0 or length > self.server.max_body
        if not self._authorized():
            if not too_big:
                self.rfile.read(length)  # so the client sees our answer, not a reset
            self._refuse(401, "missing or wrong bearer token", {"WWW-Authenticate": "Bearer"})
            return
        if length < 0:
            self._refuse(411, "a Content-Length is required")
            return
        if too_big:
            self._discard(length)
            self._refuse(413, f"body of {length} bytes is over {self.server.max_body}")
            return
        body = self.rfile.read(length)
        try:
            outcomes = self.server.service.handle_payload(body)
        except MalformedEvent as exc:
            self._refuse(400, f"malformed event: {exc}")
            return
        except TransientError as exc:
            self._refuse(503, f"temporarily unavailable: {exc}", {"Retry-After": "10"})
            return
        self._reply(200, {"outcomes": [o.model_dump() for o in outcomes]})


def start_webhook(
    service: TriggerService,
    *,
    host: str = "0.0.0.0",
    port: int = 8080,
    token: str | None = None,
    work_interval: float = 5.0,
) -> tuple[WebhookServer, threading.Event]:
    """Serve in background threads (HTTP + the service's work loop); returns the server and
    an event that stops the work loop (call `server.shutdown()` too). `token`: else the
    service's settings' (QUIRE_WEBHOOK_TOKEN)."""
    secret = service.rt.env.webhook_token
    server = WebhookServer(
        (host, port), service, token or (secret.get_secret_value() if secret else "")
    )
    stop = threading.Event()
    threading.Thread(target=server.serve_forever, name="webhook-http", daemon=True).start()
    threading.Thread(
        target=service.work_forever, args=(stop, work_interval), name="webhook-work", daemon=True
    ).start()
    log.info("webhook listening on %s (paths %s)", server.url, ", ".join(EVENT_PATHS))
    return server, stop


def stop_webhook(server: WebhookServer, stop: threading.Event) -> None:
    stop.set()
    server.service.wake.set()
    server.shutdown()
    server.server_close()
