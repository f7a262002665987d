"""A loopback HTTP proxy in front of an S3 server (moto) that injects faults on purpose.

Point `QUIRE_S3_ENDPOINT_URL` at `proxy.endpoint_url` and add rules: each rule matches
requests by operation and object key and injects one kind of fault into a share of them:

- `status(code)`: answer at once with an S3-style XML error (500 InternalError,
  503 SlowDown, 403 AccessDenied...), never reaching the server;
- `delay(seconds)`: a slow response (forwarded after the pause);
- `drop()`: read the request, then close the connection without answering;
- `lose_reply()`: forward the request (the server acts on it), then close the connection
  without answering: the client cannot know whether its write happened;
- `hold()`: keep the request waiting until `release()`, then drop it: the test knows a
  task is in the middle of its work (e.g. about to store its output) and can kill it there.

Operations are the HTTP method, with object listings called "LIST". Every request and every
injected fault is counted (`requests`, `injected`), so tests can prove faults happened.
"""

from __future__ import annotations

import contextlib
import http.client
import random
import re
import socket
import threading
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal
from urllib.parse import parse_qs, unquote, urlsplit

FaultKind = Literal["status", "delay", "drop", "lose_reply", "hold"]

_ERROR_CODES = {
    400: "BadRequest",
    403: "AccessDenied",
    404: "NoSuchKey",
    500: "InternalError",
    502: "BadGateway",
    503: "SlowDown",
    504: "GatewayTimeout",
}
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "upgrade"}


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    status: int = 500
    seconds: float = 0.0


def status(code: int) -> Fault:
    return Fault("status", status=code)


def delay(seconds: float) -> Fault:
    return Fault("delay", seconds=seconds)


def drop() -> Fault:
    return Fault("drop")


def lose_reply() -> Fault:
    return Fault("lose_reply")


def hold() -> Fault:
    return Fault("hold")


Step = tuple[str, "re.Pattern[str]"]


def _matches(
    op: str,
    key: str,
    ops: frozenset[str] | None,
    pattern: re.Pattern[str] | None,
) -> bool:
    if ops is not None and op not in ops:
        return False
    return pattern is None or bool(pattern.search(key))


@dataclass
class Rule:
    """Inject `fault` into `share` of the requests whose operation is in `ops` (None: any)
    and whose key matches `key` (a regex searched in the object key; None: any key), the
    first of them always, at most `limit` times. With `after`, the rule is armed for one
    client connection only once that connection has made requests matching each
    (operation, key regex) step in order: a way to hit one process at one exact point of
    its work."""

    fault: Fault
    ops: frozenset[str] | None = None
    key: re.Pattern[str] | None = None
    share: float = 1.0
    limit: int | None = None
    after: tuple[Step, ...] = ()
    injected: int = 0
    progress: dict[int, int] = field(default_factory=dict)  # client port -> steps seen

    def matches(self, op: str, key: str, client: int) -> bool:
        seen = self.progress.get(client, 0)
        if seen < len(self.after):
            step_op, step_key = self.after[seen]
            if op == step_op and step_key.search(key):
                self.progress[client] = seen + 1
            return False
        return _matches(op, key, self.ops, self.key)


@dataclass(frozen=True)
class Seen:
    op: str
    key: str


@dataclass
class _Held:
    request: Seen
    released: threading.Event = field(default_factory=threading.Event)


class S3FaultProxy:
    """A threaded proxy on a free loopback port; use as a context manager."""

    def __init__(self, upstream: str, *, seed: int = 1) -> None:
        parts = urlsplit(upstream)
        assert parts.hostname and parts.port, upstream
        self.upstream = (parts.hostname, parts.port)
        self.rules: list[Rule] = []
        self.requests: Counter[str] = Counter()  # operation -> count
        self.injected: Counter[str] = Counter()  # fault kind -> count
        self.log: list[tuple[Seen, str]] = []  # (request, fault kind) of every injection
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._held: list[_Held] = []
        self._held_cond = threading.Condition(self._lock)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def add(
        self,
        fault: Fault,
        *,
        ops: set[str] | None = None,
        key: str | None = None,
        share: float = 1.0,
        limit: int | None = None,
        after: list[tuple[str, str]] | None = None,
    ) -> Rule:
        rule = Rule(
            fault,
            frozenset(ops) if ops else None,
            re.compile(key) if key else None,
            share,
            limit,
            tuple((op, re.compile(k)) for op, k in after or ()),
        )
        with self._lock:
            self.rules.append(rule)
        return rule

    def clear(self) -> None:
        """Remove every rule and reset the counters; held requests go (they are dropped)."""
        with self._lock:
            self.rules.clear()
            self.requests.clear()
            self.injected.clear()
            self.log.clear()
        self.release()

    def wait_held(self, timeout: float) -> Seen:
        """Block until a request is held by a `hold()` rule; returns it."""
        with self._held_cond:
            if not self._held_cond.wait_for(
                lambda: any(not h.released.is_set() for h in self._held), timeout
            ):
                raise TimeoutError(f"no request was held within {timeout}s")
            return next(h.request for h in self._held if not h.released.is_set())

    def release(self) -> None:
        with self._lock:
            for h in self._held:
                h.released.set()

    def _pick(self, op: str, key: str, client: int) -> Fault | None:
        with self._lock:
            self.requests[op] += 1
            for rule in self.rules:
                if not rule.matches(op, key, client):
                    continue
                if rule.limit is not None and rule.injected >= rule.limit:
                    continue
                # the first match always: the fault a test adds happens, however few
                # requests the run makes (a 2 % share missed all of 80 now and then)
                if rule.injected and rule.share < 1.0 and self._random.random() >= rule.share:
                    continue
                rule.injected += 1
                self.injected[rule.fault.kind] += 1
                self.log.append((Seen(op, key), rule.fault.kind))
                return rule.fault
        return None

    def _hold(self, seen: Seen) -> None:
        held = _Held(seen)
        with self._held_cond:
            self._held.append(held)
            self._held_cond.notify_all()
        held.released.wait()

    def __enter__(self) -> S3FaultProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _body(self) -> bytes:
                if "chunked" in self.headers.get("transfer-encoding", "").lower():
                    data = bytearray()
                    while True:
                        size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                        if size == 0:
                            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                                pass  # trailers
                            return bytes(data)
                        data += self.rfile.read(size)
                        self.rfile.readline()
                return self.rfile.read(int(self.headers.get("content-length") or 0))

            def _operation(self) -> tuple[str, str]:
                parts = urlsplit(self.path)
                _, _, key = parts.path.lstrip("/").partition("/")
                query = parse_qs(parts.query)
                if self.command == "GET" and not key and "list-type" in query:
                    return "LIST", unquote(query.get("prefix", [""])[0])
                return self.command, unquote(key)

            def _drop(self) -> None:
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)

            def _error(self, code: int) -> None:
                name = _ERROR_CODES.get(code, "InjectedFault")
                body = (
                    '<?xml version="1.0" encoding="UTF-8"?>\n'
                    f"<Error><Code>{name}</Code><Message>injected fault {code}</Message>"
                    "<RequestId>fault-proxy</RequestId></Error>"
                ).encode()
                self.send_response_only(code)
                self.send_header("content-type", "application/xml")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _forward(self, body: bytes, *, reply: bool = True) -> None:
                conn = http.client.HTTPConnection(*proxy.upstream, timeout=120)
                try:
                    headers = {
                        k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP
                    }
                    headers["content-length"] = str(len(body))
                    conn.request(self.command, self.path, body=body, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                    if not reply:
                        self._drop()
                        return
                    self.send_response_only(resp.status, resp.reason)
                    for k, v in resp.getheaders():
                        if k.lower() not in _HOP_BY_HOP:
                            self.send_header(k, v)
                    length = resp.getheader("content-length") if self.command == "HEAD" else None
                    self.send_header("content-length", length or str(len(data)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(data)
                finally:
                    conn.close()

            def _handle(self) -> None:
                body = self._body()
                op, key = self._operation()
                fault = proxy._pick(op, key, self.client_address[1])
                try:
                    if fault is None or fault.kind == "delay":
                        if fault is not None:
                            threading.Event().wait(fault.seconds)
                        self._forward(body)
                    elif fault.kind == "status":
                        self._error(fault.status)
                    elif fault.kind == "lose_reply":
                        self._forward(body, reply=False)
                    elif fault.kind == "hold":
                        proxy._hold(Seen(op, key))
                        self._drop()
                    else:
                        self._drop()
                except OSError:  # the client went away (killed, timed out)
                    self.close_connection = True

            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = _handle

        return Handler
