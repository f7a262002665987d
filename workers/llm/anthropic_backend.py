"""Anthropic messages API, answer forced through one tool whose input is the schema."""

from __future__ import annotations

from pydantic import BaseModel

from quire.shared.settings import Settings
from quire.workers.llm.base import (
    Reply,
    schema_name,
)
from quire.workers.llm.retry import InvalidAnswer
from quire.workers.llm.sdk import SdkBackend, sdk_faults
from quire.workers.llm.structured import Mode


class AnthropicBackend(SdkBackend):
    """`QUIRE_ANTHROPIC_MODEL`, `ANTHROPIC_BASE_URL` and `ANTHROPIC_API_KEY` from the env.

    `QUIRE_ANTHROPIC_MAX_TOKENS` (default 4096) bounds the answer.
    """

    name = "anthropic"
    module, client = "anthropic", "Anthropic"
    key_var, url_var = "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"

    def _configure(self, env: Settings) -> str:
        self.max_tokens = env.anthropic_max_tokens
        return env.anthropic_model

    def _request(
        self, *, system: str, user: str, schema: type[BaseModel], task: str, mode: Mode
    ) -> Reply:
        # a forced tool call: the provider enforces the schema (mode is always json_schema)
        tool = schema_name(schema)
        with sdk_faults(self._sdk, self._sdk.AnthropicError, f"anthropic {task}"):
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
