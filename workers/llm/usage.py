"""The meter every backend instance carries: what its calls cost and how they went.

`RetryingBackend` records each request (mode, latency, tokens, outcome) and each re-ask
of an off-schema answer; `ask_checked` records each item (its first answer valid and
specific or not) and each re-ask after a broken rule; the roles record fallbacks. A
stage part reads `snapshot()` once it is done and stores it with its results, so a run's
report adds its parts up (`shared.backend_usage.merge_usage`). Thread-safe: a review
batch asks from several threads at once.
"""

from __future__ import annotations

import threading
from typing import Literal

from quire.shared.backend_usage import BackendFallback, BackendUsage, RoleUsage
from quire.workers.llm.structured import MODES

Outcome = Literal["ok", "invalid", "transport", "refused"]


def role_of(task: str) -> str:
    """ "review.transition" -> "review"; "analysis" -> "analysis"."""
    return task.partition(".")[0]


class UsageMeter:
    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.endpoint: str | None = None
        self.model: str | None = None
        self._lock = threading.Lock()
        self._roles: dict[str, RoleUsage] = {}
        self._modes: set[str] = set()
        self._refused: set[str] = set()
        self._fallbacks: list[BackendFallback] = []
        self._local = threading.local()

    def _bump(self, task: str, **counts: float) -> None:
        role = role_of(task)
        with self._lock:
            usage = self._roles.get(role, RoleUsage())
            self._roles[role] = usage.add(RoleUsage.model_validate(counts))

    def request(
        self,
        task: str,
        *,
        mode: str,
        outcome: Outcome,
        seconds: float,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
    ) -> None:
        """One request sent and how it went."""
        if outcome in ("ok", "invalid"):  # an answer, not a fault or a refused mode
            self._local.answers = getattr(self._local, "answers", 0) + 1
        self._bump(
            task,
            calls=1,
            seconds=seconds,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            transport_faults=int(outcome == "transport"),
        )
        with self._lock:
            if outcome == "refused":
                self._refused.add(mode)
            elif outcome in ("ok", "invalid"):
                self._modes.add(mode)
                if outcome == "ok":
                    role = self._roles[role_of(task)]
                    role.modes[mode] = role.modes.get(mode, 0) + 1

    def reask(self, task: str) -> None:
        self._bump(task, reasks=1)

    def start_ask(self) -> None:
        """Count this thread's answers from here (see `answers_since_start`)."""
        self._local.answers = 0

    def answers_since_start(self) -> int:
        """Answers this thread got since `start_ask`: 1 after an ask whose first answer
        was valid (faults and refused modes are not answers)."""
        return int(getattr(self._local, "answers", 0))

    def item(self, task: str, *, first_time: bool, answered: bool) -> None:
        """One item asked for: answered (valid and specific) or not, on the first try or
        not (`first_time` implies `answered`)."""
        self._bump(task, items=1, valid_first_time=int(first_time), failed=int(not answered))

    def fallback(self, task: str, item: str, reason: str) -> None:
        """The item had no valid answer: the heuristic answered it (it is no failure)."""
        self._bump(task, fallbacks=1, failed=-1)
        with self._lock:
            self._fallbacks.append(
                BackendFallback(
                    role=role_of(task), item=item, backend=self.backend, reason=reason[:600]
                )
            )

    def snapshot(self) -> BackendUsage:
        with self._lock:
            return BackendUsage(
                backend=self.backend,
                endpoint=self.endpoint,
                model=self.model,
                modes=[m for m in MODES if m in self._modes],
                refused_modes=[m for m in MODES if m in self._refused],
                roles={r: u.model_copy(deep=True) for r, u in sorted(self._roles.items())},
                fallbacks=list(self._fallbacks),
            )

    @property
    def empty(self) -> bool:
        with self._lock:
            return not self._roles
