"""OpenAI chat completions (or any OpenAI-compatible server) with structured output.

The response format negotiates (see `structured`): strict `json_schema` first; a server
that refuses it (an HTTP error naming `response_format`, as llama.cpp's server, older
vLLM and many gateways do) is asked with `json_object` plus the schema, then with plain
text; the schema is in the prompt whenever the server does not enforce it.
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel

from quire.shared.errors import BackendError
from quire.shared.settings import Settings
from quire.workers.llm.base import (
    BackendSettings,
    Reply,
    RetryingBackend,
    http_fault,
    require_env,
    schema_name,
    strict_json_schema,
)
from quire.workers.llm.retry import InvalidAnswer, TransientFault
from quire.workers.llm.structured import Mode, ModeRefused, names_response_format, system_for


class OpenAIBackend(RetryingBackend):
    """`QUIRE_OPENAI_MODEL`, `OPENAI_BASE_URL` and `OPENAI_API_KEY` from the environment."""

    name = "openai"
    negotiates = True

    def __init__(
        self,
        *,
        env: Settings,
        model: str | None = None,
        settings: BackendSettings | None = None,
    ) -> None:
        super().__init__(settings or BackendSettings.from_settings(env))
        key = require_env("OPENAI_API_KEY")
        self._secrets = (key,)
        import openai  # the SDK is an optional extra; import it only when this backend is used

        self._sdk = openai
        # max_retries=0: our retry policy is the only one, so it is predictable and testable.
        self._client: Any = openai.OpenAI(
            api_key=key,
            base_url=os.environ.get("OPENAI_BASE_URL") or None,  # the SDK's own variable
            max_retries=0,
            timeout=self.settings.timeout,
        )
        self.max_tokens = env.openai_max_tokens
        if env.openai_response_format != "auto":  # e.g. text where grammar decoding is slow
            self.first = env.openai_response_format
        self._describe(str(self._client.base_url), model or env.openai_model)

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
            raise http_fault(
                exc.status_code, exc.response.headers, exc.message, where=f"openai {task}"
            ) from exc
        except sdk.APIConnectionError as exc:  # includes APITimeoutError
            raise TransientFault(f"{type(exc).__name__}: {exc.message}") from exc
        except sdk.OpenAIError as exc:
            raise BackendError(f"openai {task}: {type(exc).__name__}: {exc}") from exc
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
