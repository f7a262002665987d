"""Backends that ask an LLM (or an external agent) for JSON and return validated models.

Used by topic review, the boundary decider and chunk analysis. `make_backend(name)` builds
one from the environment; see `base.JsonBackend` for the interface.
"""

from __future__ import annotations

from shared.errors import BackendError
from workers.llm.base import BackendSettings, JsonBackend, RetryingBackend
from workers.llm.retry import InvalidAnswer, RetryPolicy, TransientFault

JSON_BACKENDS = ("openai", "anthropic", "command")


def make_backend(name: str, *, settings: BackendSettings | None = None) -> JsonBackend:
    """ "openai" | "anthropic" | "command", configured from the environment."""
    if name == "openai":
        from workers.llm.openai_backend import OpenAIBackend

        return OpenAIBackend(settings=settings)
    if name == "anthropic":
        from workers.llm.anthropic_backend import AnthropicBackend

        return AnthropicBackend(settings=settings)
    if name == "command":
        from workers.llm.command_backend import CommandBackend

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
