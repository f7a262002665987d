"""Local fake LLM provider servers for tests: the real SDKs talk to them over loopback.

`FakeProvider("openai")` answers `POST /v1/chat/completions` like OpenAI (the answer JSON
is the string in choices[0].message.content); `FakeProvider("anthropic")` answers
`POST /v1/messages` like Anthropic (the answer is the input of a tool_use block named as
the request's forced tool). Each test scripts a queue of replies (`answer`, `status`,
`raw`) and then inspects `requests` (path, headers, body) and `max_in_flight`.

`refuse` lists the OpenAI response formats the server does not take ("json_schema",
"json_object"): such a request gets the error llama.cpp's server sends (HTTP 500 naming
`response_format`) before any scripted reply is used, as a real server refuses it before
the model runs.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest

from quire.workers.llm.structured import forget_modes

Kind = Literal["openai", "anthropic"]
PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}


@dataclass
class Reply:
    status: int = 200
    answer: dict[str, Any] | str | None = None  # rendered in the provider's format
    raw: bytes | None = None  # sent as-is instead (for malformed HTTP bodies)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def answer(data: dict[str, Any] | str, *, delay: float = 0.0) -> Reply:
    """A successful reply whose answer is `data` (a str is sent as unparsed text)."""
    return Reply(answer=data, delay=delay)


def refusal(mode: str) -> Reply:
    """llama-cpp-python's server refusing a response format (a pydantic error, HTTP 500)."""
    body = {
        "error": {
            "message": f"[{{'type': 'literal_error', 'loc': ('body', 'response_format', "
            f"'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': '{mode}'}}]",
            "type": "internal_server_error",
        }
    }
    return Reply(status=500, raw=json.dumps(body).encode())


def status(code: int, *, headers: dict[str, str] | None = None, delay: float = 0.0) -> Reply:
    body = json.dumps(
        {"type": "error", "error": {"type": "fake_error", "message": f"fake status {code}"}}
    )
    return Reply(status=code, raw=body.encode(), headers=headers or {}, delay=delay)


@dataclass
class Request:
    path: str
    headers: dict[str, str]  # lower-cased names
    raw: bytes
    arrived: float = field(default_factory=time.monotonic)  # when its body was read

    @property
    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.raw)
        return data

    @property
    def mode(self) -> str:
        """The OpenAI response format asked for: json_schema, json_object or text."""
        fmt = self.body.get("response_format") or {}
        return str(fmt.get("type", "text"))

    @property
    def task(self) -> str:
        """Which Quire task asked: the response schema's name (OpenAI structured output),
        or, in the modes that only spell the schema out, its title in the system prompt."""
        fmt = self.body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("name") or fmt.get("schema")
        if schema is None:  # text mode: the schema ends the system prompt
            system = next(
                (str(m["content"]) for m in self.body.get("messages", []) if m["role"] == "system"),
                "",
            )
            with contextlib.suppress(ValueError):
                schema = json.loads(system.rpartition("JSON schema:\n")[2])
        if isinstance(schema, dict):
            return str(schema.get("title", "?"))
        return str(schema or "?")

    @property
    def user(self) -> str:
        """The first user message."""
        messages = self.body.get("messages", [])
        return next((str(m["content"]) for m in messages if m.get("role") == "user"), "")


def _render(kind: Kind, request: dict[str, Any], content: dict[str, Any] | str) -> bytes:
    if kind == "openai":
        text = content if isinstance(content, str) else json.dumps(content)
        body: dict[str, Any] = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": request.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": text},
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    else:
        tool = (request.get("tool_choice") or {}).get("name", "answer")
        block: dict[str, Any] = (
            {"type": "text", "text": content}
            if isinstance(content, str)
            else {"type": "tool_use", "id": "toolu_fake", "name": tool, "input": content}
        )
        body = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": request.get("model", "fake"),
            "content": [block],
            "stop_reason": "end_turn" if isinstance(content, str) else "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    return json.dumps(body).encode()


class FakeProvider:
    """A threaded HTTP server on a free loopback port; use as a context manager."""

    def __init__(
        self, kind: Kind, *, default: Reply | None = None, refuse: tuple[str, ...] = ()
    ) -> None:
        self.kind = kind
        self.default = default  # used when the script is exhausted (else a 599 error)
        self.refuse = refuse  # response formats answered with `refusal`
        self.script: deque[Reply] = deque()
        self.requests: list[Request] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def base_url(self) -> str:
        root = f"http://127.0.0.1:{self._server.server_address[1]}"
        return f"{root}/v1" if self.kind == "openai" else root

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self.script.extend(replies)

    def __enter__(self) -> FakeProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def choose(self, request: Request) -> Reply:
        """The reply to `request`: the next scripted one, else the default (else a 599).
        Subclasses answer by what the request asks."""
        with self._lock:
            if self.script:
                return self.script.popleft()
        return self.default or status(599)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                request = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, raw)
                with provider._lock:
                    provider.requests.append(request)
                    provider.in_flight += 1
                    provider.max_in_flight = max(provider.max_in_flight, provider.in_flight)
                try:
                    if self.path.split("?")[0] != PATHS[provider.kind]:
                        reply = status(404)
                    elif request.mode in provider.refuse:
                        reply = refusal(request.mode)
                    else:
                        reply = provider.choose(request)
                    time.sleep(reply.delay)
                    if reply.raw is not None:
                        data = reply.raw
                    else:
                        data = _render(provider.kind, json.loads(raw), reply.answer or {})
                finally:
                    with provider._lock:
                        provider.in_flight -= 1
                with contextlib.suppress(OSError):  # the client may have given up (timeouts)
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)

        return Handler


# --- fixtures' helpers: each LLM test module has the same two fixtures ----------------------

_LLM_ENV = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "QUIRE_AGENT_COMMAND",
    "QUIRE_AGENT_TIMEOUT",
    "QUIRE_BACKEND_CONCURRENCY",
    "QUIRE_REVIEW_BACKEND",
)


# The API keys the fake providers are served with: tests check they never leave the
# Authorization header (not in bodies, prompts, outputs or logs).
KEYS: dict[Kind, str] = {
    "openai": "sk-test-OPENAI-5ecret-0001",
    "anthropic": "sk-ant-test-5ecret-0002",
}


def quick_llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No provider configured from the outside; retries and timeouts short."""
    for key in _LLM_ENV:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("QUIRE_BACKEND_BACKOFF", "0.001")
    monkeypatch.setenv("QUIRE_BACKEND_TIMEOUT", "5")
    forget_modes()  # a new server may get the port (the endpoint) of an earlier test's


@contextlib.contextmanager
def serving(
    kind: Kind, key: str, monkeypatch: pytest.MonkeyPatch, *, default: Reply | None = None
) -> Iterator[FakeProvider]:
    """A fake `kind` provider, with the environment pointing its official SDK at it."""
    with FakeProvider(kind, default=default) as server:
        monkeypatch.setenv(f"{kind.upper()}_API_KEY", key)
        monkeypatch.setenv(f"{kind.upper()}_BASE_URL", server.base_url)
        yield server
