"""Retry policy for backend calls (tenacity), with two separate budgets.

- Transport faults (429, 5xx, timeouts, connection errors, a crashed agent command) are
  retried up to `max_attempts` calls in all, after exponential backoff with equal jitter
  (half fixed, half random), or after exactly the server's Retry-After when it sent one
  (capped at `retry_after_max`).
- Invalid answers (not JSON, wrong shape) are re-asked at once, at most `reasks` times.
The SDKs' own retries are switched off by the backends, so these are the only ones.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from tenacity import RetryCallState

T = TypeVar("T")


class TransientFault(Exception):
    """A fault of the transport worth retrying after a pause."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class InvalidAnswer(Exception):
    """The provider answered, but not with a usable JSON object: ask again. The tokens an
    unusable reply cost (cut off at the limit, empty) still count in the usage report."""

    def __init__(self, message: str, *, prompt_tokens: int = 0, completion_tokens: int = 0):
        super().__init__(message)
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens


@dataclass(frozen=True)
class RetryPolicy:
    """From the QUIRE_BACKEND_* settings (`BackendSettings.from_settings`), whose model
    holds the defaults."""

    max_attempts: int  # transport attempts in all (first call included)
    reasks: int  # extra attempts after invalid answers
    backoff_base: float  # seconds; the n-th retry waits up to base * 2**(n-1)
    backoff_max: float
    retry_after_max: float  # never wait longer than this, whatever the server says


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms is not None:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class _Budget:
    """tenacity wait + stop that keep the two budgets apart (tenacity runs wait, then stop)."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy
        self.transient = 0
        self.invalid = 0

    def wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, InvalidAnswer):
            self.invalid += 1
            return 0.0
        self.transient += 1
        if isinstance(exc, TransientFault) and exc.retry_after is not None:
            return min(exc.retry_after, self.policy.retry_after_max)
        # Equal jitter over transport faults only, so re-asks do not lengthen the backoff.
        cap = min(self.policy.backoff_max, self.policy.backoff_base * 2 ** (self.transient - 1))
        return cap / 2 + random.uniform(0, cap / 2)

    def stop(self, state: RetryCallState) -> bool:
        return self.invalid > self.policy.reasks or self.transient >= self.policy.max_attempts


def call_with_retries(
    fn: Callable[[], T],
    policy: RetryPolicy,
    *,
    on_retry: Callable[[BaseException, float], None] | None = None,
) -> T:
    """Run `fn` under the policy; the last `TransientFault`/`InvalidAnswer` is re-raised."""
    # Imported here: tenacity pulls in tornado (~0.1 s), and an offline run never retries.
    from tenacity import Retrying, retry_if_exception_type

    budget = _Budget(policy)

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        if on_retry is not None and exc is not None:
            on_retry(exc, state.upcoming_sleep)

    retrying = Retrying(
        retry=retry_if_exception_type((TransientFault, InvalidAnswer)),
        wait=budget.wait,
        stop=budget.stop,
        before_sleep=before_sleep,
        reraise=True,
    )
    return retrying(fn)
