"""OpenAI chat completions (or any OpenAI-compatible server) with structured output.

The response format negotiates (see `structured`): strict `json_schema` first; a server
that refuses it (an HTTP error naming `response_format`, as llama.cpp's server, older
vLLM and many gateways do) is asked with `json_object` plus the schema, then with plain
text; the schema is in the prompt whenever the server does not enforce it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from quire.shared.settings import Settings
from quire.workers.llm.base import (
    Reply,
    schema_name,
    strict_json_schema,
)
from quire.workers.llm.retry import InvalidAnswer
from quire.workers.llm.sdk import SdkBackend, sdk_faults
from quire.workers.llm.structured import Mode, ModeRefused, names_response_format, system_for


class OpenAIBackend(SdkBackend):
    """`QUIRE_OPENAI_MODEL`, `OPENAI_BASE_URL` and `OPENAI_API_KEY` from the environment."""

    name = "openai"
    negotiates = True
    module, client = "openai", "OpenAI"
    key_var, url_var = "OPENAI_API_KEY", "OPENAI_BASE_URL"

    def _configure(self, env: Settings) -> str:
        self.max_tokens = env.openai_max_tokens
        if env.openai_response_format != "auto":  # e.g. text where grammar decoding is slow
            self.first = env.openai_response_format
        return env.openai_model

    def _request(
        self, *, system: str, user: str, schema: type[BaseModel], task: str, mode: Mode
    ) -> Reply:
        json_schema, strict = strict_json_schema(schema)
        sdk = self._sdk
        formats: dict[Mode, dict[str, Any] | None] = {
            "json_schema": {
                "type": "json_schema",
                "json_schema": {
                    "name": schema_name(schema),
                    "schema": json_schema,
                    "strict": strict,
                },
            },
            # llama.cpp's server turns this schema into a grammar; others ignore it
            "json_object": {"type": "json_object", "schema": json_schema},
            "text": None,
        }
        extra: dict[str, Any] = {"response_format": formats[mode]} if formats[mode] else {}
        if self.max_tokens:
            extra["max_tokens"] = self.max_tokens
        with sdk_faults(sdk, sdk.OpenAIError, f"openai {task}"):
            try:
                response = self._client.chat.completions.create(
                    model=self.model,
                    messages=[
                        {"role": "system", "content": system_for(system, json_schema, mode)},
                        {"role": "user", "content": user},
                    ],
                    **extra,
                )
            except sdk.APIStatusError as exc:
                if mode != "text" and names_response_format(exc.status_code, _error_text(exc)):
                    raise ModeRefused(f"HTTP {exc.status_code}: {exc.message[:300]}") from exc
                raise  # an HTTP fault like any other
        if not response.choices:
            raise InvalidAnswer("the response has no choices")
        choice = response.choices[0]
        message = choice.message
        usage = getattr(response, "usage", None)
        tokens = {
            "prompt_tokens": getattr(usage, "prompt_tokens", 0) or 0,
            "completion_tokens": getattr(usage, "completion_tokens", 0) or 0,
        }
        if getattr(message, "refusal", None):
            raise InvalidAnswer(f"the model refused: {message.refusal}", **tokens)
        if choice.finish_reason == "length":
            raise InvalidAnswer("the answer was cut off at the token limit", **tokens)
        if not message.content:
            raise InvalidAnswer("the answer is empty", **tokens)
        return Reply(str(message.content), **tokens)


def _error_text(exc: Any) -> str:
    """The error's message and body: servers put the offending field in either."""
    try:
        body = exc.response.text
    except Exception:  # a streamed or closed response has no text to give
        body = ""
    return f"{exc.message} {body}"
