"""Backends that ask an LLM (or an external agent) for JSON and return validated models.

Used by topic review, the boundary decider and chunk analysis. `make_backend(name)` builds
one from the environment; see `base.JsonBackend` for the interface.
"""

from __future__ import annotations

from quire.shared.errors import BackendError, NotInstalledError
from quire.workers.llm.base import BackendSettings, JsonBackend, RetryingBackend
from quire.workers.llm.retry import InvalidAnswer, RetryPolicy, TransientFault

JSON_BACKENDS = ("openai", "anthropic", "command")


def check_installed(name: str) -> None:
    """The provider SDK a backend needs is installed, or one line saying how to get it."""
    import importlib.util

    if name in ("openai", "anthropic") and importlib.util.find_spec(name) is None:
        raise NotInstalledError(f"the {name} backend needs its SDK: pip install 'quire[{name}]'")


def make_backend(name: str, *, settings: BackendSettings | None = None) -> JsonBackend:
    """ "openai" | "anthropic" | "command", configured from the environment."""
    check_installed(name)
    if name == "openai":
        from quire.workers.llm.openai_backend import OpenAIBackend

        return OpenAIBackend(settings=settings)
    if name == "anthropic":
        from quire.workers.llm.anthropic_backend import AnthropicBackend

        return AnthropicBackend(settings=settings)
    if name == "command":
        from quire.workers.llm.command_backend import CommandBackend

        return CommandBackend(settings=settings)
    if name == "heuristic":
        raise BackendError("'heuristic' is not an LLM backend; use workers.review.make_reviewer")
    raise BackendError(f"unknown backend {name!r}; expected one of {', '.join(JSON_BACKENDS)}")


__all__ = [
    "JSON_BACKENDS",
    "BackendError",
    "BackendSettings",
    "InvalidAnswer",
    "JsonBackend",
    "RetryPolicy",
    "RetryingBackend",
    "TransientFault",
    "check_installed",
    "make_backend",
]
