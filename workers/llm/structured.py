"""Structured output that negotiates: which way of asking for JSON a server takes.

Three modes, strongest first:

- `json_schema`: the server enforces the schema (OpenAI's strict structured output);
- `json_object`: the server guarantees JSON, and is given the schema as well (llama.cpp's
  server enforces it by grammar; others ignore it); the schema is in the prompt too;
- `text`: plain text with the schema in the prompt; the JSON object is taken out of it.

Whatever the mode, the answer is validated locally with the same pydantic model and
re-asked with the validation error. A server that refuses a mode (an HTTP error naming
`response_format`, or a command that exits with `UNSUPPORTED_MODE_EXIT`) is asked again at
once in the next mode, and the mode that worked is remembered per endpoint and model for
the life of the process, so later calls go straight to it.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

Mode = Literal["json_schema", "json_object", "text"]
MODES: tuple[Mode, ...] = ("json_schema", "json_object", "text")
UNSUPPORTED_MODE_EXIT = 3  # a command backend program's "I cannot answer in this mode"

_KNOWN: dict[tuple[str, str], Mode] = {}
_LEARNING: dict[tuple[str, str], threading.Lock] = {}
_LOCK = threading.Lock()


class ModeRefused(Exception):
    """The server (or program) does not take this structured-output mode."""


def first_mode(endpoint: str, model: str) -> Mode:
    """The mode to try first: the one that last worked here, else the strongest."""
    with _LOCK:
        return _KNOWN.get((endpoint, model), MODES[0])


@contextmanager
def learning(endpoint: str, model: str) -> Iterator[None]:
    """Hold this around a call while the mode for (endpoint, model) is not known yet:
    concurrent first calls (a review batch asks from several threads) wait for the first
    to find the mode instead of each being refused in turn."""
    key = (endpoint, model)
    with _LOCK:
        lock = None if key in _KNOWN else _LEARNING.setdefault(key, threading.Lock())
    if lock is None:
        yield
        return
    with lock:
        with _LOCK:
            learnt = key in _KNOWN  # by the call this one waited for
        if not learnt:
            yield
            return
    yield


def remember(endpoint: str, model: str, mode: Mode) -> None:
    with _LOCK:
        _KNOWN[(endpoint, model)] = mode


def known_modes() -> dict[tuple[str, str], Mode]:
    """What this process has learnt, (endpoint, model) -> mode."""
    with _LOCK:
        return dict(_KNOWN)


def forget_modes() -> None:
    """Forget every learnt mode (tests start each case from a clean process state)."""
    with _LOCK:
        _KNOWN.clear()


def next_mode(mode: Mode) -> Mode | None:
    i = MODES.index(mode)
    return MODES[i + 1] if i + 1 < len(MODES) else None


_NAMES_FORMAT = re.compile(r"response_format|json_schema|json_object|structured output", re.I)


def names_response_format(status: int, message: str) -> bool:
    """An HTTP error that refuses the structured-output request itself (not the prompt,
    not the server's health): a 4xx/5xx whose message names `response_format`. Rate
    limits and timeouts never count, whatever they say."""
    return status >= 400 and status not in (408, 409, 429) and bool(_NAMES_FORMAT.search(message))


def schema_instructions(schema: dict[str, Any]) -> str:
    """What a prompt adds when the server does not enforce the schema itself."""
    return (
        "Answer with exactly one JSON object, and nothing else, that matches this JSON "
        f"schema:\n{json.dumps(schema, ensure_ascii=False, separators=(',', ':'))}"
    )


def system_for(system: str, schema: dict[str, Any], mode: Mode) -> str:
    """The system prompt for `mode`: the schema is spelt out unless the server enforces it."""
    return system if mode == "json_schema" else f"{system}\n\n{schema_instructions(schema)}"


_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)


def extract_json_object(text: str) -> str:
    """The JSON object inside `text`: all of it if it is one, else a fenced block that is
    one, else the first `{...}` that parses as an object. Small models wrap their JSON in
    prose or code fences; the object is validated against the schema afterwards, so
    finding it leniently does not lower the bar. Returns `text` unchanged when there is
    none (the caller's JSON error then says why)."""
    stripped = text.strip()
    if _is_object(stripped):
        return stripped
    for block in _FENCE.findall(text):
        if _is_object(block.strip()):
            return str(block.strip())
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, end = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return text[match.start() : end]
    return text


def _is_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False
