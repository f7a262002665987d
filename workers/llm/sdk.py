"""What the backends built on a provider's Python SDK (OpenAI, Anthropic) share: the client
set-up and the mapping of the SDK's errors onto our retry policy."""

from __future__ import annotations

import importlib
import os
from abc import abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any, ClassVar

from quire.shared.errors import BackendError
from quire.shared.settings import Settings
from quire.workers.llm.base import BackendSettings, RetryingBackend, http_fault, require_env
from quire.workers.llm.retry import TransientFault


class SdkBackend(RetryingBackend):
    """A backend that calls its provider through the provider's SDK: `module.client`, with
    the API key from `key_var` and the base URL from `url_var` (the SDK's own variables)."""

    module: ClassVar[str]
    client: ClassVar[str]
    key_var: ClassVar[str]
    url_var: ClassVar[str]

    def __init__(
        self,
        *,
        env: Settings,
        model: str | None = None,
        settings: BackendSettings | None = None,
    ) -> None:
        super().__init__(settings or BackendSettings.from_settings(env))
        self._sdk, self._client, key = sdk_client(
            self.module,
            self.client,
            key_var=self.key_var,
            url_var=self.url_var,
            timeout=self.settings.timeout,
        )
        self._secrets = (key,)
        default_model = self._configure(env)
        self._describe(str(self._client.base_url), model or default_model)

    @abstractmethod
    def _configure(self, env: Settings) -> str:
        """Take this provider's own settings; returns the model to use when none is given."""


def sdk_client(
    module: str, client: str, *, key_var: str, url_var: str, timeout: float
) -> tuple[ModuleType, Any, str]:
    """The SDK, its client and the API key (a secret to redact). The key and base URL come
    from the SDK's own variables; the key is checked before the SDK, an optional extra, is
    imported."""
    key = require_env(key_var)
    sdk = importlib.import_module(module)
    # max_retries=0: our retry policy is the only one, so it is predictable and testable.
    made = getattr(sdk, client)(
        api_key=key,
        base_url=os.environ.get(url_var) or None,
        max_retries=0,
        timeout=timeout,
    )
    return sdk, made, key


@contextmanager
def sdk_faults(sdk: Any, base_error: type[Exception], where: str) -> Iterator[None]:
    """An SDK call's errors as a retry (429, 5xx, connection faults) or a final error."""
    try:
        yield
    except sdk.APIStatusError as exc:
        raise http_fault(exc.status_code, exc.response.headers, exc.message, where=where) from exc
    except sdk.APIConnectionError as exc:  # includes APITimeoutError
        raise TransientFault(f"{type(exc).__name__}: {exc.message}") from exc
    except base_error as exc:
        raise BackendError(f"{where}: {type(exc).__name__}: {exc}") from exc
