"""Structured output that negotiates: servers (the real OpenAI SDK over loopback to
`llm_servers.FakeProvider`) and agent programs that refuse a response format get the next
one, the mode that worked is remembered per endpoint and model, and the answers are
validated the same way whatever the mode."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field

from quire.shared.errors import BackendError
from quire.shared.settings import load_settings
from quire.workers.llm import make_backend
from quire.workers.llm.base import NoValidAnswer
from quire.workers.llm.structured import extract_json_object, known_modes, names_response_format
from tests.llm_servers import KEYS, FakeProvider, Reply, answer, quick_llm_env, status

pytestmark = pytest.mark.usefixtures("fast_llm")

GOOD = {"label": "alpha", "score": 0.5}


class Pick(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str = Field(min_length=2)
    score: float = Field(ge=0, le=1)


def serve(monkeypatch: pytest.MonkeyPatch, *refuse: str) -> FakeProvider:
    server = FakeProvider("openai", refuse=refuse)
    monkeypatch.setenv("OPENAI_API_KEY", KEYS["openai"])
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("QUIRE_OPENAI_MODEL", "fake-openai-model")
    return server


@pytest.fixture
def llama(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    """Like llama.cpp's server: no json_schema response format, json_object with a schema."""
    with serve(monkeypatch, "json_schema") as server:
        yield server


def ask(kind: str = "openai", user: str = "Pick one.") -> Pick:
    return make_backend(kind, env=load_settings()).ask(
        system="You pick.", user=user, schema=Pick, task="test.pick"
    )


def test_a_server_refusing_json_schema_gets_json_object_with_the_schema(
    llama: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_BACKEND_MAX_ATTEMPTS", "1")  # a refusal is not a transport fault
    llama.enqueue(answer(GOOD))
    backend = make_backend("openai", env=load_settings())
    assert (
        backend.ask(system="You pick.", user="Which?", schema=Pick, task="test.pick").score == 0.5
    )
    assert [r.mode for r in llama.requests] == ["json_schema", "json_object"]
    fmt = llama.requests[1].body["response_format"]
    assert fmt["schema"]["properties"]["label"]["type"] == "string"
    assert fmt["schema"]["additionalProperties"] is False  # every field required
    system = llama.requests[1].body["messages"][0]["content"]
    assert system.startswith("You pick.") and "JSON schema" in system and '"label"' in system
    assert llama.requests[1].user == "Which?"
    usage = backend.usage.snapshot()
    assert (usage.modes, usage.refused_modes) == (["json_object"], ["json_schema"])
    assert usage.roles["test"].calls == 2 and usage.roles["test"].transport_faults == 0


def test_max_tokens_bounds_each_answer_when_set(
    llama: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    llama.enqueue(answer(GOOD), answer(GOOD))
    ask()
    assert all("max_tokens" not in r.body for r in llama.requests)  # the server's own limit
    monkeypatch.setenv("QUIRE_OPENAI_MAX_TOKENS", "512")
    ask()
    assert llama.requests[-1].body["max_tokens"] == 512


def test_a_pinned_response_format_is_where_asking_starts(
    llama: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_OPENAI_RESPONSE_FORMAT", "text")
    llama.enqueue(answer(GOOD))
    assert ask() == Pick(**GOOD)
    assert [r.mode for r in llama.requests] == ["text"]


def test_the_working_mode_is_remembered_per_endpoint_and_model(
    llama: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    llama.enqueue(answer(GOOD), answer(GOOD), answer(GOOD))
    ask()
    ask()  # a new backend instance, same endpoint and model: straight to json_object
    assert [r.mode for r in llama.requests] == ["json_schema", "json_object", "json_object"]
    assert known_modes()[(llama.base_url + "/", "fake-openai-model")] == "json_object"
    monkeypatch.setenv("QUIRE_OPENAI_MODEL", "another-model")  # another model: ask afresh
    llama.enqueue(answer(GOOD))
    ask()
    assert [r.mode for r in llama.requests[3:]] == ["json_schema", "json_object"]


def test_a_server_refusing_both_formats_gets_text_with_the_schema_in_the_prompt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with serve(monkeypatch, "json_schema", "json_object") as server:
        prose = f"Sure! Here is the JSON you asked for:\n```json\n{json.dumps(GOOD)}\n```"
        server.enqueue(answer(prose), answer("I pick alpha."), answer(GOOD))
        assert ask() == Pick(**GOOD)
        assert [r.mode for r in server.requests] == ["json_schema", "json_object", "text"]
        text = server.requests[2].body
        assert "response_format" not in text
        assert "JSON schema" in text["messages"][0]["content"]
        # remembered: the next ask is text at once; prose without JSON is re-asked
        assert ask().label == "alpha"
        assert [r.mode for r in server.requests[3:]] == ["text", "text"]
        assert "rejected" in server.requests[4].user


def test_schema_errors_are_reasked_in_the_negotiated_mode_then_end_as_a_weak_answer(
    llama: FakeProvider,
) -> None:
    llama.enqueue(*[answer({"label": "a", "score": 3})] * 3)
    with pytest.raises(NoValidAnswer, match="does not match the schema") as info:
        ask()
    assert "label" in str(info.value) and "score" in str(info.value)
    assert [r.mode for r in llama.requests] == ["json_schema"] + ["json_object"] * 3
    assert "score" in llama.requests[-1].user  # the validation error goes into the re-ask


def test_answers_cut_off_at_the_token_limit_still_count_their_tokens(
    llama: FakeProvider,
) -> None:
    """A small model that runs out of tokens was paid for: the usage report says so (it
    said 0 tokens for Gemma 3 270M's cut-off study indexes in bench_llm)."""
    cut_off = {
        "id": "chatcmpl-cut",
        "object": "chat.completion",
        "created": 0,
        "model": "fake-openai-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": "length",
                "message": {"role": "assistant", "content": '{"label": "alp'},
            }
        ],
        "usage": {"prompt_tokens": 900, "completion_tokens": 200, "total_tokens": 1100},
    }
    llama.enqueue(*[Reply(raw=json.dumps(cut_off).encode())] * 3)
    backend = make_backend("openai", env=load_settings())
    with pytest.raises(NoValidAnswer, match="cut off at the token limit"):
        backend.ask(system="You pick.", user="Pick one.", schema=Pick, task="test.pick")
    role = backend.usage.snapshot().roles["test"]
    answered = [r for r in llama.requests if r.mode == "json_object"]
    assert len(answered) == 3 and role.calls == 4  # the refused json_schema request too
    assert (role.prompt_tokens, role.completion_tokens) == (3 * 900, 3 * 200)


def test_transport_failures_are_not_weak_answers(llama: FakeProvider) -> None:
    llama.enqueue(*[status(503)] * 6)
    with pytest.raises(BackendError, match="HTTP 503") as info:
        ask()
    assert not isinstance(info.value, NoValidAnswer)


def test_rate_limits_never_count_as_a_refused_mode() -> None:
    assert names_response_format(500, "loc: ('body', 'response_format', 'type')")
    assert names_response_format(400, "json_schema is not supported by this model")
    assert not names_response_format(429, "response_format: too many requests")
    assert not names_response_format(400, "context length exceeded")


@pytest.mark.parametrize(
    "text,found",
    [
        ('{"a": 1}', '{"a": 1}'),
        ('Here:\n```json\n{"a": 1}\n```\nDone.', '{"a": 1}'),
        ('The answer is {"a": {"b": 2}} as asked.', '{"a": {"b": 2}}'),
        ("[1, 2]", "[1, 2]"),  # not an object: left for the JSON check to refuse
        ("no braces at all", "no braces at all"),
    ],
)
def test_extract_json_object(text: str, found: str) -> None:
    assert extract_json_object(text) == found


# --- the command backend's contract -----------------------------------------------------


AGENT = """
import json, pathlib, sys
state = pathlib.Path(sys.argv[1])
task = json.loads(sys.stdin.read())
with (state / "modes").open("a") as f:
    f.write(task["mode"] + "\\n")
if task["mode"] == "json_schema":
    sys.exit(3)  # cannot enforce a schema: Quire asks again in the next mode
assert "JSON schema" in task["system"] and task["schema"]["title"] == "Pick"
print("Thinking... the answer is " + json.dumps({"label": "beta", "score": 1}))
"""


def test_a_command_that_refuses_a_mode_gets_the_next_and_it_is_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quick_llm_env(monkeypatch)
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    line = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {shlex.quote(str(tmp_path))}"
    monkeypatch.setenv("QUIRE_AGENT_COMMAND", line)
    backend = make_backend("command", env=load_settings())
    assert ask("command").label == "beta"
    assert ask("command").label == "beta"
    assert (tmp_path / "modes").read_text().split() == ["json_schema", "json_object", "json_object"]
    assert backend.usage.endpoint == Path(sys.executable).name  # never the arguments
