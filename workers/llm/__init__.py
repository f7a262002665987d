"""Backends that ask an LLM (or an external agent) for JSON and return validated models.

Used by topic review, the boundary decider and chunk analysis. `make_backend(name, env=...)`
builds one from the settings its caller was given; see `base.JsonBackend` for the interface.
"""

from __future__ import annotations

from quire.shared.errors import BackendError, NotInstalledError
from quire.shared.settings import Settings
from quire.workers.llm.base import (
    BackendSettings,
    JsonBackend,
    NoValidAnswer,
    RetryingBackend,
    is_strict,
    usage_of,
)
from quire.workers.llm.retry import InvalidAnswer, RetryPolicy, TransientFault

JSON_BACKENDS = ("openai", "anthropic", "command")


def check_installed(name: str) -> None:
    """The provider SDK a backend needs is installed, or one line saying how to get it."""
    import importlib.util

    if name in ("openai", "anthropic") and importlib.util.find_spec(name) is None:
        raise NotInstalledError(f"the {name} backend needs its SDK: pip install 'quire[{name}]'")


def make_backend(
    name: str,
    *,
    env: Settings,
    settings: BackendSettings | None = None,
    strict: bool = False,
) -> RetryingBackend:
    """ "openai" | "anthropic" | "command", configured from `env` (the QUIRE_* settings of
    the entry point; provider keys and endpoints the SDKs read themselves). `strict`:
    the roles fail an item the backend cannot answer validly instead of falling back to
    the offline heuristic (`--strict-backend`)."""
    check_installed(name)
    backend: RetryingBackend
    if name == "openai":
        from quire.workers.llm.openai_backend import OpenAIBackend

        backend = OpenAIBackend(env=env, settings=settings)
    elif name == "anthropic":
        from quire.workers.llm.anthropic_backend import AnthropicBackend

        backend = AnthropicBackend(env=env, settings=settings)
    elif name == "command":
        from quire.workers.llm.command_backend import CommandBackend

        backend = CommandBackend(env=env, settings=settings)
    else:
        backend = _unknown(name)
    backend.strict = strict
    return backend


def backend_named(name: str, env: Settings | None) -> RetryingBackend:
    """A backend a stage was handed by name (library callers and tests; runs hand built
    ones): built from `env`, the caller's settings, which a name alone does not carry."""
    if env is None:
        raise BackendError(f"backend {name!r} named without the settings to build it (env=)")
    return make_backend(name, env=env)


def _unknown(name: str) -> RetryingBackend:
    if name == "heuristic":
        raise BackendError("'heuristic' is not an LLM backend; use workers.review.make_reviewer")
    raise BackendError(f"unknown backend {name!r}; expected one of {', '.join(JSON_BACKENDS)}")


__all__ = [
    "JSON_BACKENDS",
    "BackendError",
    "BackendSettings",
    "InvalidAnswer",
    "JsonBackend",
    "NoValidAnswer",
    "RetryPolicy",
    "RetryingBackend",
    "TransientFault",
    "backend_named",
    "check_installed",
    "is_strict",
    "make_backend",
    "usage_of",
]
