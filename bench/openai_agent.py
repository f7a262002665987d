"""A `command` backend program that forwards each Quire task to an OpenAI-compatible server.

    QUIRE_AGENT_COMMAND="python3 bench/openai_agent.py" quire run --backend command ...

It reads Quire's task from stdin (`{"task", "system", "user", "schema", "mode"}`, see
`workers/llm/command_backend.py`), asks `OPENAI_BASE_URL` (key `OPENAI_API_KEY`, model
`QUIRE_OPENAI_MODEL`; `AGENT_MAX_TOKENS` bounds the answer, `AGENT_TIMEOUT` the wait) in
the structured-output mode Quire names, and prints the model's
answer as it is: Quire takes the JSON object out of it and validates it; the tokens the
server counted go to stderr as a `quire-usage:` line. When the server
refuses the mode (an HTTP error naming `response_format`), or `AGENT_MODE` names a weaker
one, it exits with status 3, and Quire asks again in the next mode. Standard library only,
so it runs anywhere Python does.
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.request
from typing import Any

UNSUPPORTED_MODE = 3  # the command backend's "not in this mode, try the next"
MODES = ("json_schema", "json_object", "text")  # strongest first


def response_format(mode: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    if mode == "json_object":  # llama.cpp's server enforces the schema by grammar
        return {"type": "json_object", "schema": schema}
    return None  # text: the schema is in the system prompt Quire sent


def main() -> int:
    task = json.loads(sys.stdin.buffer.read())
    weakest = os.environ.get("AGENT_MODE", "")  # answer in this mode at most (e.g. text)
    if weakest in MODES and MODES.index(task["mode"]) < MODES.index(weakest):
        sys.stderr.write(f"{task['mode']} is not served here; {weakest} is\n")
        return UNSUPPORTED_MODE
    body: dict[str, Any] = {
        "model": os.environ.get("QUIRE_OPENAI_MODEL", "gpt-4o-mini"),
        "messages": [
            {"role": "system", "content": task["system"]},
            {"role": "user", "content": task["user"]},
        ],
    }
    fmt = response_format(task["mode"], task["schema"])
    if fmt:
        body["response_format"] = fmt
    if max_tokens := int(os.environ.get("AGENT_MAX_TOKENS", 0)):
        body["max_tokens"] = (
            max_tokens  # a small model may otherwise write until its context is full
        )
    base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
    request = urllib.request.Request(
        f"{base}/chat/completions",
        data=json.dumps(body).encode(),
        headers={
            "content-type": "application/json",
            "authorization": f"Bearer {os.environ.get('OPENAI_API_KEY', '')}",
        },
    )
    try:
        with urllib.request.urlopen(
            request, timeout=float(os.environ.get("AGENT_TIMEOUT", 900))
        ) as r:
            reply = json.loads(r.read())
    except urllib.error.HTTPError as exc:
        text = exc.read().decode("utf-8", "replace")
        sys.stderr.write(f"HTTP {exc.code}: {text[:500]}\n")
        refused = fmt is not None and re.search(r"response_format|json_schema", text)
        return UNSUPPORTED_MODE if refused and exc.code not in (408, 429) else 1
    usage = reply.get("usage") or {}
    tokens = {k: usage.get(k) or 0 for k in ("prompt_tokens", "completion_tokens")}
    sys.stderr.write(f"quire-usage: {json.dumps(tokens)}\n")  # counted in Quire's report
    sys.stdout.write(reply["choices"][0]["message"]["content"] or "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
