"""Backends that ask an LLM (or an external agent) for JSON and return validated models.

Used by topic review, the boundary decider and chunk analysis. `make_backend(name)` builds
one from the environment; see `base.JsonBackend` for the interface.
"""

from __future__ import annotations

from quire.shared.errors import BackendError
from quire.workers.llm.base import BackendSettings, JsonBackend, RetryingBackend
from quire.workers.llm.retry import InvalidAnswer, RetryPolicy, TransientFault

JSON_BACKENDS = ("openai", "anthropic", "command")


def make_backend(name: str, *, settings: BackendSettings | None = None) -> JsonBackend:
    """ "openai" | "anthropic" | "command", configured from the environment."""
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
    "make_backend",
]
