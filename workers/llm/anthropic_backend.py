"""Anthropic messages API, answer forced through one tool whose input is the schema."""

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
)
from quire.workers.llm.retry import InvalidAnswer, TransientFault
from quire.workers.llm.structured import Mode


class AnthropicBackend(RetryingBackend):
    """`QUIRE_ANTHROPIC_MODEL`, `ANTHROPIC_BASE_URL` and `ANTHROPIC_API_KEY` from the env.

    `QUIRE_ANTHROPIC_MAX_TOKENS` (default 4096) bounds the answer.
    """

    name = "anthropic"

    def __init__(
        self,
        *,
        env: Settings,
        model: str | None = None,
        settings: BackendSettings | None = None,
    ) -> None:
        super().__init__(settings or BackendSettings.from_settings(env))
        key = require_env("ANTHROPIC_API_KEY")
        self._secrets = (key,)
        self.model = model or env.anthropic_model
        self.max_tokens = env.anthropic_max_tokens
        import anthropic  # optional extra; imported only when this backend is used

        self._sdk = anthropic
        # max_retries=0: our retry policy is the only one, so it is predictable and testable.
        self._client: Any = anthropic.Anthropic(
            api_key=key,
            base_url=os.environ.get("ANTHROPIC_BASE_URL") or None,  # the SDK's own variable
            max_retries=0,
            timeout=self.settings.timeout,
        )
        self._describe(str(self._client.base_url), self.model)

    def _request(
        self, *, system: str, user: str, schema: type[BaseModel], task: str, mode: Mode
    ) -> Reply:
        # a forced tool call: the provider enforces the schema (mode is always json_schema)
        tool = schema_name(schema)
        sdk = self._sdk
        try:
            response = self._client.messages.create(
                model=self.model,
                max_tokens=self.max_tokens,
                system=system,
                messages=[{"role": "user", "content": user}],
                tools=[
                    {
                        "name": tool,
                        "description": "Record your answer. Call this exactly once.",
                        "input_schema": schema.model_json_schema(),
                    }
                ],
                tool_choice={"type": "tool", "name": tool},
            )
        except sdk.APIStatusError as exc:
            raise http_fault(
                exc.status_code, exc.response.headers, exc.message, where=f"anthropic {task}"
            ) from exc
        except sdk.APIConnectionError as exc:  # includes APITimeoutError
            raise TransientFault(f"{type(exc).__name__}: {exc.message}") from exc
        except sdk.AnthropicError as exc:
            raise BackendError(f"anthropic {task}: {type(exc).__name__}: {exc}") from exc
        usage = getattr(response, "usage", None)
        tokens = {
            "prompt_tokens": getattr(usage, "input_tokens", 0) or 0,
            "completion_tokens": getattr(usage, "output_tokens", 0) or 0,
        }
        for block in response.content:
            if getattr(block, "type", None) == "tool_use" and getattr(block, "name", None) == tool:
                if not isinstance(block.input, dict):
                    raise InvalidAnswer("the tool input is not a JSON object", **tokens)
                return Reply(dict(block.input), **tokens)
        if response.stop_reason == "max_tokens":
            raise InvalidAnswer("the answer was cut off at the token limit", **tokens)
        raise InvalidAnswer(f"the answer did not call the {tool} tool", **tokens)
