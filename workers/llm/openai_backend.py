"""OpenAI chat completions with structured output (a JSON schema response format)."""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel

from quire.shared.errors import BackendError
from quire.shared.settings import load_settings
from quire.workers.llm.base import (
    BackendSettings,
    RetryingBackend,
    http_fault,
    require_env,
    schema_name,
    strict_json_schema,
)
from quire.workers.llm.retry import InvalidAnswer, TransientFault


class OpenAIBackend(RetryingBackend):
    """`QUIRE_OPENAI_MODEL`, `OPENAI_BASE_URL` and `OPENAI_API_KEY` from the environment."""

    name = "openai"

    def __init__(
        self,
        *,
        model: str | None = None,
        settings: BackendSettings | None = None,
    ) -> None:
        super().__init__(settings or BackendSettings.from_env())
        key = require_env("OPENAI_API_KEY")
        self._secrets = (key,)
        self.model = model or load_settings().openai_model
        import openai  # the SDK is an optional extra; import it only when this backend is used

        self._sdk = openai
        # max_retries=0: our retry policy is the only one, so it is predictable and testable.
        self._client: Any = openai.OpenAI(
            api_key=key,
            base_url=os.environ.get("OPENAI_BASE_URL") or None,  # the SDK's own variable
            max_retries=0,
            timeout=self.settings.timeout,
        )

    def _request(self, *, system: str, user: str, schema: type[BaseModel], task: str) -> str:
        json_schema, strict = strict_json_schema(schema)
        sdk = self._sdk
        try:
            response = self._client.chat.completions.create(
                model=self.model,
                messages=[
                    {"role": "system", "content": system},
                    {"role": "user", "content": user},
                ],
                response_format={
                    "type": "json_schema",
                    "json_schema": {
                        "name": schema_name(schema),
                        "schema": json_schema,
                        "strict": strict,
                    },
                },
            )
        except sdk.APIStatusError as exc:
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
        if getattr(message, "refusal", None):
            raise InvalidAnswer(f"the model refused: {message.refusal}")
        if choice.finish_reason == "length":
            raise InvalidAnswer("the answer was cut off at the token limit")
        if not message.content:
            raise InvalidAnswer("the answer is empty")
        return str(message.content)
