"""How a run used its LLM backend: calls, structured-output modes, re-asks and fallbacks.

Pure data, written to `semantic-review-report.json` (`backend_usage`) and, for the
fallbacks, to `manifest.json` (`backend_fallbacks`). The logic lives in
`workers.llm.usage` (the meter each backend carries) and `workers.llm.structured`.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BackendFallback(_Model):
    """One item (a vote, a decision, an analysis, a repair, the study index) that the
    backend could not answer validly and specifically after its re-asks, so the offline
    heuristic answered it instead."""

    role: str  # "review", "decide", "analysis", "repair", "index"
    item: str  # which one, e.g. "chunk 3", "after el-000120 (adjudicator)"
    backend: str  # the backend that failed to answer
    reason: str  # the last rule its answer broke


class RoleUsage(_Model):
    """One role's calls. An item is one answer asked for (a vote, a decision...)."""

    calls: int = 0  # requests sent (HTTP requests or command runs), every mode and retry
    items: int = 0
    valid_first_time: int = 0  # items whose very first answer was valid and specific
    reasks: int = 0  # requests sent again after an invalid or unspecific answer
    fallbacks: int = 0  # items answered by the offline heuristic instead
    failed: int = 0  # items with no answer at all (transport failures, refusals)
    transport_faults: int = 0  # timeouts, 429s, 5xx, crashed commands
    seconds: float = 0.0  # summed request latency
    prompt_tokens: int = 0  # as the server reports them (0 when it does not)
    completion_tokens: int = 0
    modes: dict[str, int] = Field(default_factory=dict)  # answers per structured-output mode

    def add(self, other: RoleUsage) -> RoleUsage:
        data = {k: getattr(self, k) + getattr(other, k) for k in _COUNTS}
        modes = dict(self.modes)
        for mode, n in other.modes.items():
            modes[mode] = modes.get(mode, 0) + n
        return RoleUsage(**data, modes=modes)


_COUNTS = [k for k in RoleUsage.model_fields if k != "modes"]


class BackendUsage(_Model):
    backend: str
    endpoint: str | None = None  # base URL, or the command line's program
    model: str | None = None
    modes: list[str] = []  # structured-output modes the answers came in
    refused_modes: list[str] = []  # modes the server refused (then the next was tried)
    roles: dict[str, RoleUsage] = {}
    fallbacks: list[BackendFallback] = []


_MODE_ORDER = ("json_schema", "json_object", "text")


def merge_usage(parts: Iterable[BackendUsage]) -> BackendUsage | None:
    """Add up the usage of a run's parts (None when no part used an LLM backend)."""
    parts = list(parts)
    if not parts:
        return None
    roles: dict[str, RoleUsage] = {}
    for p in parts:
        for role, usage in p.roles.items():
            roles[role] = roles[role].add(usage) if role in roles else usage
    modes = {m for p in parts for m in p.modes}
    refused = {m for p in parts for m in p.refused_modes}
    first = parts[0]
    return BackendUsage(
        backend=first.backend,
        endpoint=first.endpoint,
        model=first.model,
        modes=[m for m in _MODE_ORDER if m in modes] + sorted(modes - set(_MODE_ORDER)),
        refused_modes=[m for m in _MODE_ORDER if m in refused],
        roles=dict(sorted(roles.items())),
        fallbacks=[f for p in parts for f in p.fallbacks],
    )
