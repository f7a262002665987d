"""JSON backends against local fake provider servers (real SDKs) and real agent scripts."""

from __future__ import annotations

import json
import logging
import shlex
import sys
import threading
import time
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from quire.shared.errors import BackendError
from quire.shared.settings import load_settings
from quire.workers.llm import make_backend
from quire.workers.llm.base import strict_json_schema
from quire.workers.llm.retry import parse_retry_after
from tests.llm_servers import KEYS, FakeProvider, answer, status

pytestmark = pytest.mark.usefixtures("fast_llm")

GOOD = {"label": "alpha", "score": 0.5, "tags": ["x"]}


class Pick(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: Literal["alpha", "beta"]
    score: float = Field(ge=0, le=1)
    tags: list[str]


def ask(kind: str, user: str = "Pick one.") -> Pick:
    return make_backend(kind, env=load_settings()).ask(
        system="You pick.", user=user, schema=Pick, task="test.pick"
    )


def assert_key_only_in_auth(server: FakeProvider) -> None:
    key = KEYS[server.kind]
    assert server.requests
    for req in server.requests:
        assert key not in req.raw.decode()
        assert key not in req.path
        holders = [name for name, value in req.headers.items() if key in value]
        assert holders in (["authorization"], ["x-api-key"]), holders


def test_success_sends_schema_prompts_and_key_only_in_auth_header(provider: FakeProvider) -> None:
    provider.enqueue(answer(GOOD))
    result = ask(provider.kind, user="Which label fits?")
    assert result == Pick(label="alpha", score=0.5, tags=["x"])
    assert len(provider.requests) == 1
    body = provider.requests[0].body
    assert body["model"] == f"fake-{provider.kind}-model"
    if provider.kind == "openai":
        assert provider.requests[0].path == "/v1/chat/completions"
        assert body["messages"] == [
            {"role": "system", "content": "You pick."},
            {"role": "user", "content": "Which label fits?"},
        ]
        fmt = body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        sent = fmt["json_schema"]["schema"]
        assert sent["additionalProperties"] is False
        assert sorted(sent["required"]) == ["label", "score", "tags"]
        assert sent["properties"]["label"]["enum"] == ["alpha", "beta"]
    else:
        assert provider.requests[0].path == "/v1/messages"
        assert body["system"] == "You pick."
        assert body["messages"] == [{"role": "user", "content": "Which label fits?"}]
        assert body["tools"][0]["input_schema"] == Pick.model_json_schema()
        assert body["tool_choice"] == {"type": "tool", "name": "Pick"}
    # The SDK's own retries are off: every request is a first try.
    assert provider.requests[0].headers.get("x-stainless-retry-count") == "0"
    assert_key_only_in_auth(provider)


@pytest.mark.parametrize(
    "header,value,min_wait",
    [
        ("Retry-After", "0", 0.0),
        ("retry-after-ms", "400", 0.4),
        ("Retry-After", "1", 1.0),
    ],
)
def test_429_waits_for_retry_after_then_succeeds(
    provider: FakeProvider, header: str, value: str, min_wait: float
) -> None:
    provider.enqueue(status(429, headers={header: value}), answer(GOOD))
    assert ask(provider.kind).label == "alpha"
    assert len(provider.requests) == 2  # one 429, one retry by us; none by the SDK
    assert [r.headers.get("x-stainless-retry-count") for r in provider.requests] == ["0", "0"]
    # The wait as the server saw it (not the client's set-up, slow on a loaded machine).
    # The backoff base is 1 ms here, so a wait this long can only come from Retry-After.
    waited = provider.requests[1].arrived - provider.requests[0].arrived
    assert waited >= min_wait
    assert waited < min_wait + 1.0


def test_5xx_then_success(provider: FakeProvider) -> None:
    provider.enqueue(status(500), status(503), answer(GOOD))
    assert ask(provider.kind).score == 0.5
    assert len(provider.requests) == 3


def test_persistent_5xx_stops_after_max_attempts(
    provider: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_BACKEND_MAX_ATTEMPTS", "3")
    provider.enqueue(*[status(502)] * 5)
    with pytest.raises(BackendError, match="no valid answer after retries"):
        ask(provider.kind)
    assert len(provider.requests) == 3


def test_client_error_is_final_and_never_shows_the_key(provider: FakeProvider) -> None:
    provider.enqueue(status(401), answer(GOOD))
    with pytest.raises(BackendError, match="HTTP 401") as info:
        ask(provider.kind)
    assert len(provider.requests) == 1
    assert KEYS[provider.kind] not in str(info.value)


def test_malformed_answer_is_reasked_with_feedback(provider: FakeProvider) -> None:
    garbage = "this is not JSON {" if provider.kind == "openai" else "I would pick alpha."
    provider.enqueue(answer(garbage), answer({**GOOD, "score": 7}), answer(GOOD))
    assert ask(provider.kind, user="Original question.") == Pick(**GOOD)
    assert len(provider.requests) == 3
    users = [r.body["messages"][-1]["content"] for r in provider.requests]
    assert users[0] == "Original question."
    assert users[1].startswith("Original question.") and "rejected" in users[1]
    assert "score" in users[2]  # the schema violation is explained to the model


def test_persistent_garbage_raises_backend_error(provider: FakeProvider) -> None:
    provider.enqueue(*[answer("[1, 2, 3]")] * 6)
    with pytest.raises(BackendError, match="no valid answer"):
        ask(provider.kind)
    assert len(provider.requests) == 3  # the first ask and two re-asks


def test_timeout_is_retried(provider: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIRE_BACKEND_TIMEOUT", "0.3")
    provider.enqueue(answer(GOOD, delay=1.5), answer(GOOD))
    assert ask(provider.kind).label == "alpha"
    assert len(provider.requests) == 2


def test_concurrency_limit_is_respected(
    provider: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_BACKEND_CONCURRENCY", "2")
    provider.default = answer(GOOD, delay=0.15)
    backends = [
        make_backend(provider.kind, env=load_settings()) for _ in range(2)
    ]  # instances share the limit
    results: list[Pick] = []

    def one(n: int) -> None:
        backend = backends[n % 2]
        results.append(backend.ask(system="s", user="u", schema=Pick, task="test.pick"))

    threads = [threading.Thread(target=one, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(results) == 6 and len(provider.requests) == 6
    assert provider.max_in_flight == 2


def test_logs_never_contain_the_key(
    provider: FakeProvider, caplog: pytest.LogCaptureFixture
) -> None:
    provider.enqueue(status(429, headers={"Retry-After": "0"}), answer("nope"), answer(GOOD))
    with caplog.at_level(logging.DEBUG):
        ask(provider.kind)
    assert any("retrying" in r.getMessage() for r in caplog.records)
    assert all(KEYS[provider.kind] not in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    "kind,key",
    [
        ("openai", "OPENAI_API_KEY"),
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("command", "QUIRE_AGENT_COMMAND"),
    ],
)
def test_missing_configuration_fails_at_construction(kind: str, key: str) -> None:
    with pytest.raises(BackendError, match=key):
        make_backend(kind, env=load_settings())


def test_unknown_and_heuristic_names_are_not_json_backends() -> None:
    with pytest.raises(BackendError, match="unknown backend"):
        make_backend("gpt", env=load_settings())
    with pytest.raises(BackendError, match="make_reviewer"):
        make_backend("heuristic", env=load_settings())


def test_strict_schema_only_where_possible() -> None:
    class Free(BaseModel):
        data: dict[str, Any]

    schema, strict = strict_json_schema(Pick)
    assert strict and "minimum" not in json.dumps(schema)
    assert Pick.model_json_schema()["properties"]["score"]["minimum"] == 0  # copy untouched
    _, strict = strict_json_schema(Free)
    assert not strict


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"Retry-After": "-3"}) == 0.0
    assert (
        parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, now=1445412480.0)
        == 10.0
    )
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


# --- command backend ---------------------------------------------------------------------


def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> Path:
    """Write a python agent script and point QUIRE_AGENT_COMMAND at it."""
    script = tmp_path / "agent.py"
    script.write_text(
        f"import json, sys, time, pathlib\nSTATE = pathlib.Path({str(tmp_path)!r})\n" + body
    )
    monkeypatch.setenv(
        "QUIRE_AGENT_COMMAND", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    )
    return script


def calls(tmp_path: Path) -> int:
    counter = tmp_path / "calls"
    return int(counter.read_text()) if counter.exists() else 0


COUNT = """
counter = STATE / "calls"
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
task = json.loads(sys.stdin.read())
(STATE / f"task-{n}.json").write_text(json.dumps(task))
"""


def test_command_good_answer_receives_the_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent(tmp_path, monkeypatch, COUNT + f"print(json.dumps({GOOD!r}))\n")
    assert ask("command", user="Choose ünïcode.") == Pick(**GOOD)
    task = json.loads((tmp_path / "task-1.json").read_text())
    assert task == {
        "task": "test.pick",
        "system": "You pick.",
        "user": "Choose ünïcode.",
        "schema": Pick.model_json_schema(),
        "mode": "json_schema",
    }


@pytest.mark.parametrize(
    ("report", "tokens"),
    [
        # the last line counts; an unusable answer, re-asked, still cost its tokens
        (
            'quire-usage: {"prompt_tokens": 1}\nquire-usage: {"prompt_tokens": 120, '
            '"completion_tokens": 7}',
            (240, 14),
        ),
        ('quire-usage: {"prompt_tokens": -3}', (0, 0)),  # malformed: counts nothing
    ],
)
def test_command_reports_the_tokens_its_program_counted(
    report: str, tokens: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent(
        tmp_path,
        monkeypatch,
        COUNT
        + f"""
sys.stderr.write("thinking...\\n" + {report!r} + "\\n")
if n == 1:
    print('{{"label": "alpha", oops')
else:
    print(json.dumps({GOOD!r}))
""",
    )
    backend = make_backend("command", env=load_settings())
    answer = backend.ask(system="You pick.", user="Pick.", schema=Pick, task="test.pick")
    assert answer.label == "alpha"
    role = backend.usage.snapshot().roles["test"]
    assert (role.calls, role.prompt_tokens, role.completion_tokens) == (2, *tokens)


def test_command_invalid_then_good(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent(
        tmp_path,
        monkeypatch,
        COUNT
        + f"""
if n == 1:
    print('{{"label": "alpha", oops')
elif n == 2:
    print('I would pick alpha, with a score of one half.')
else:
    print('Here is my answer:\\n```json\\n' + json.dumps({GOOD!r}) + '\\n```\\nGood luck!')
""",
    )
    assert ask("command").label == "alpha"
    # broken JSON, then prose without an object, then prose holding one (taken out of it)
    assert calls(tmp_path) == 3
    second = json.loads((tmp_path / "task-2.json").read_text())
    assert "rejected" in second["user"]


def test_command_nonzero_exit_then_good(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent(
        tmp_path,
        monkeypatch,
        COUNT + (f"if n == 1:\n    sys.exit('agent crashed')\nprint(json.dumps({GOOD!r}))\n"),
    )
    assert ask("command").label == "alpha"
    assert calls(tmp_path) == 2


def test_command_timeout_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIRE_AGENT_TIMEOUT", "0.5")
    monkeypatch.setenv("QUIRE_BACKEND_MAX_ATTEMPTS", "2")
    agent(tmp_path, monkeypatch, COUNT + "time.sleep(30)\n")
    started = time.monotonic()
    with pytest.raises(BackendError, match="timed out"):
        ask("command")
    assert calls(tmp_path) == 2
    assert time.monotonic() - started < 5


def test_command_huge_output_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent(
        tmp_path,
        monkeypatch,
        COUNT + ("sys.stdout.write('{\"tags\": [' + ','.join(['\"x\"'] * 600000) + ']}')\n"),
    )
    with pytest.raises(BackendError, match="exceeds"):
        ask("command")
    assert calls(tmp_path) == 3


def test_command_program_must_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIRE_AGENT_COMMAND", "/nonexistent/agent --flag")
    with pytest.raises(BackendError, match="not found"):
        make_backend("command", env=load_settings())
