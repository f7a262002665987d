"""The one interface every LLM backend offers: ask for JSON, get back a validated model.

Callers (topic review, the boundary decider, chunk analysis) never see provider details:
they pass a system prompt, a user prompt and a pydantic model class, and get an instance of
that class or a `shared.errors.BackendError`. Transport retries, re-asks on invalid output
and the concurrency limit live in `RetryingBackend`, so every provider behaves the same.

Secrets: API keys are read from the environment at construction, handed to the SDK and
never logged, put in prompts, task payloads or error messages (`redact` scrubs them).
"""

from __future__ import annotations

import copy
import json
import logging
import os
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from quire.shared.errors import BackendError
from quire.shared.settings import Settings
from quire.workers.llm.retry import (
    InvalidAnswer,
    RetryPolicy,
    TransientFault,
    call_with_retries,
    parse_retry_after,
)
from quire.workers.llm.structured import (
    Mode,
    ModeRefused,
    extract_json_object,
    first_mode,
    learning,
    next_mode,
    remember,
)
from quire.workers.llm.usage import Outcome, UsageMeter

log = logging.getLogger("quire.llm")

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


class JsonBackend(Protocol):
    """Ask a model for one JSON object matching `schema`; `task` labels the call in logs.

    Backends built by `make_backend` also carry `usage` (a `UsageMeter`) and `strict`
    (True: the roles fail an item they cannot answer instead of falling back to the
    heuristic); read them with `usage_of` and `is_strict`, other backends may lack them."""

    name: str

    def ask(self, *, system: str, user: str, schema: type[M], task: str) -> M: ...


class NoValidAnswer(BackendError):
    """The backend answered, but never with a valid JSON object for the schema, however
    often it was re-asked. Unlike a transport failure (server down, timeouts), this is a
    weak answer: the roles fall back to the offline heuristic for the item."""


def usage_of(backend: object) -> UsageMeter | None:
    usage = getattr(backend, "usage", None)
    return usage if isinstance(usage, UsageMeter) else None


def is_strict(backend: object) -> bool:
    return bool(getattr(backend, "strict", False))


@dataclass(frozen=True)
class BackendSettings:
    """Limits shared by all backends, from the QUIRE_BACKEND_* settings (`from_settings`;
    their defaults are the settings model's)."""

    concurrency: int  # QUIRE_BACKEND_CONCURRENCY: calls in flight per provider
    timeout: float  # QUIRE_BACKEND_TIMEOUT: seconds per request / command run
    policy: RetryPolicy

    @classmethod
    def from_settings(cls, s: Settings) -> BackendSettings:
        return cls(
            concurrency=s.backend_concurrency,
            timeout=s.backend_timeout,
            policy=RetryPolicy(
                max_attempts=s.backend_max_attempts,
                reasks=s.backend_reasks,
                backoff_base=s.backend_backoff,
                backoff_max=s.backend_backoff_max,
                retry_after_max=s.backend_retry_after_max,
            ),
        )


def require_env(key: str) -> str:
    """A provider's API key (read by name, never stored in settings): missing ->
    BackendError naming the variable."""
    value = os.environ.get(key, "").strip()
    if not value:
        raise BackendError(f"{key} is not set; it is required for this backend")
    return value


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """Remove secret values from text that may end up in logs or error messages."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


_TOOL_NAME = re.compile(r"[^a-zA-Z0-9_-]")


def schema_name(schema: type[BaseModel]) -> str:
    """A provider-safe name (a-z, 0-9, _ and -; at most 64) for a response schema / tool."""
    return _TOOL_NAME.sub("_", schema.__name__)[:64] or "answer"


# Keywords OpenAI's strict mode has rejected at one time or another. They are dropped from
# the copy sent to the provider only; pydantic still enforces them on the answer.
_STRICT_UNSUPPORTED = (
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "default",
)


def strict_json_schema(schema: type[BaseModel]) -> tuple[dict[str, Any], bool]:
    """The model's JSON schema made strict-mode compatible, and whether that was possible.

    Strict mode wants every object closed (`additionalProperties: false`) with all its
    properties required. A property with a default becomes required too, which only means
    the model must state it. Free-form objects (dict fields) cannot be strict: then the
    plain schema is returned with strict=False.
    """
    result = copy.deepcopy(schema.model_json_schema())
    ok = True

    def visit(node: Any) -> None:
        nonlocal ok
        if isinstance(node, dict):
            if node.get("type") == "object":
                props = node.get("properties")
                extra = node.get("additionalProperties")
                if not isinstance(props, dict) or (extra not in (None, False)):
                    ok = False
                else:
                    node["additionalProperties"] = False
                    node["required"] = list(props)
            for key in _STRICT_UNSUPPORTED:
                if key in node and not isinstance(node.get(key), dict):
                    node.pop(key)
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(result)
    return (result, True) if ok else (schema.model_json_schema(), False)


def _reject_constant(token: str) -> Any:
    raise InvalidAnswer(f"answer contains {token}, which is not JSON")


def http_fault(
    status: int, headers: Mapping[str, str], message: str, *, where: str
) -> TransientFault | BackendError:
    """Map an HTTP error status to a retry (429, 408, 409, 5xx) or a final error."""
    if status in (408, 409, 429) or status >= 500:
        return TransientFault(f"HTTP {status}: {message}", retry_after=parse_retry_after(headers))
    return BackendError(f"{where}: HTTP {status}: {message}")


def parse_answer(raw: str | bytes | dict[str, Any], schema: type[M]) -> M:
    """Validate a provider's answer; anything unusable becomes `InvalidAnswer` (re-ask).
    A text answer may hold its JSON object inside prose or a code fence."""
    try:
        if isinstance(raw, dict):
            return schema.model_validate(raw)
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        data = json.loads(extract_json_object(text), parse_constant=_reject_constant)
        if not isinstance(data, dict):
            raise InvalidAnswer(f"expected one JSON object, got {type(data).__name__}")
        return schema.model_validate(data)
    except UnicodeDecodeError as exc:
        raise InvalidAnswer("answer is not UTF-8") from exc
    except json.JSONDecodeError as exc:
        raise InvalidAnswer(f"answer is not valid JSON: {exc.msg} at char {exc.pos}") from exc
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
            for err in exc.errors()[:8]
        )
        raise InvalidAnswer(f"answer does not match the schema: {problems}") from exc


def with_feedback(user: str, feedback: str | None) -> str:
    """The user prompt for a re-ask: the original plus why the last answer was refused."""
    if not feedback:
        return user
    return (
        f"{user}\n\nYour previous answer was rejected: {feedback[:600]}\n"
        "Answer again with exactly one JSON object that matches the schema."
    )


@dataclass(frozen=True)
class Checked(Generic[T]):
    """What `ask_checked` got: the first answer its check accepted, or why there is none."""

    value: T | None
    error: str  # the backend's error, or the rule the last answer broke ("" with a value)
    attempts: int
    # True: no answer at all (transport failure, refused request); False without a value:
    # the answers were invalid or broke the rules every time (a weak answer: fall back)
    backend_failed: bool = False


def ask_checked(
    backend: JsonBackend,
    *,
    system: str,
    user: str,
    schema: type[M],
    task: str,
    check: Callable[[M], T],
    refused: type[Exception],
    reasks: int,
) -> Checked[T]:
    """Ask, and while `check` refuses the answer (raising `refused`), ask again with the
    broken rule in the prompt, 1 + `reasks` times at most. A backend error ends it at once
    (the backend has already retried its own faults and re-asked off-schema answers)."""
    usage = usage_of(backend)
    feedback: str | None = None
    for attempt in range(1, reasks + 2):
        if usage is not None:
            usage.start_ask()
        try:
            answer = backend.ask(
                system=system, user=with_feedback(user, feedback), schema=schema, task=task
            )
        except BackendError as exc:
            if usage is not None:
                usage.item(task, first_time=False, answered=False)
            weak = isinstance(exc, NoValidAnswer)
            return Checked(None, str(exc), attempt, backend_failed=not weak)
        try:
            value = check(answer)
        except refused as exc:
            feedback = str(exc)
            if usage is not None and attempt <= reasks:
                usage.reask(task)
            continue
        if usage is not None:
            first = attempt == 1 and usage.answers_since_start() == 1
            usage.item(task, first_time=first, answered=True)
        return Checked(value, "", attempt)
    if usage is not None:
        usage.item(task, first_time=False, answered=False)
    return Checked(None, feedback or "", reasks + 1)


def note_fallback(backend: JsonBackend, task: str, item: str, reason: str) -> None:
    """Record that the heuristic answered `item` because `backend` gave no valid answer."""
    log.warning("%s %s: no valid answer for %s; the heuristic answers it", backend.name, task, item)
    usage = usage_of(backend)
    if usage is not None:
        usage.fallback(task, item, reason)


_SLOTS: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_SLOTS_LOCK = threading.Lock()


def _slots(name: str, size: int) -> threading.BoundedSemaphore:
    """One semaphore per backend name (and limit) per process: every instance built for
    the same provider, e.g. one per review batch, shares the provider's limit."""
    with _SLOTS_LOCK:
        return _SLOTS.setdefault((name, size), threading.BoundedSemaphore(size))


@dataclass(frozen=True)
class Reply:
    """One provider answer: its content and the tokens the server says it cost."""

    content: str | bytes | dict[str, Any]
    prompt_tokens: int = 0
    completion_tokens: int = 0


class RetryingBackend(ABC):
    """Shared `ask`: concurrency slots, retries with backoff, re-asks, one error type out.

    Subclasses implement `_request`, one provider call in a structured-output `mode`
    (see `structured`), returning the raw answer (a JSON string, text holding one JSON
    object, or an already-decoded object) or a `Reply`. It raises `ModeRefused` when the
    server does not take the mode, `TransientFault` for faults worth retrying after a pause
    (429, 5xx, timeouts, connection errors, crashed commands), `InvalidAnswer` for output
    worth re-asking, and `BackendError` for everything final. Backends whose `negotiates`
    is False always get mode "json_schema" (their provider enforces the schema itself).
    """

    name: str = "backend"
    negotiates: bool = False
    endpoint: str = ""  # where the mode is remembered: the base URL, or the command line
    model: str = ""
    first: Mode | None = None  # the mode to start from; None: the remembered or strongest
    strict: bool = False  # the roles fail an item they cannot answer (--strict-backend)

    def __init__(self, settings: BackendSettings) -> None:
        self.settings = settings
        # Held only while a request is in flight, not during backoff sleeps.
        self._slots = _slots(self.name, self.settings.concurrency)
        self._secrets: tuple[str, ...] = ()
        self.usage = UsageMeter(self.name)

    @abstractmethod
    def _request(
        self, *, system: str, user: str, schema: type[BaseModel], task: str, mode: Mode
    ) -> str | bytes | dict[str, Any] | Reply: ...

    def _describe(self, endpoint: str, model: str) -> None:
        """Name where this backend's answers come from (for the mode memory and reports)."""
        self.endpoint, self.model = endpoint, model
        self.usage.endpoint, self.usage.model = endpoint or None, model or None

    def _negotiated(self, system: str, user: str, schema: type[M], task: str) -> M:
        """One answer, stepping down the structured-output modes the server refuses."""
        if not self.negotiates:
            return self._in_modes(system, user, schema, task, "json_schema")
        if self.first is not None:
            return self._in_modes(system, user, schema, task, self.first)
        with learning(self.endpoint, self.model):
            return self._in_modes(system, user, schema, task, first_mode(self.endpoint, self.model))

    def _in_modes(self, system: str, user: str, schema: type[M], task: str, mode: Mode) -> M:
        while True:
            try:
                reply, seconds = self._metered(system, user, schema, task, mode)
            except ModeRefused as exc:
                lower = next_mode(mode)
                if lower is None:
                    raise BackendError(
                        f"{self.name} {task}: the server refused every structured-output "
                        f"mode: {exc}"
                    ) from None
                why = redact(str(exc), self._secrets)
                log.warning("%s %s: %s refused (%s); trying %s", self.name, task, mode, why, lower)
                mode = lower
                continue
            except InvalidAnswer:
                if self.negotiates:  # the server took this mode; the answer was unusable
                    remember(self.endpoint, self.model, mode)
                raise
            if self.negotiates:
                remember(self.endpoint, self.model, mode)  # the server takes this mode
            try:
                answer = parse_answer(reply.content, schema)
            except InvalidAnswer:
                self._record(task, mode, "invalid", seconds, reply)
                raise
            self._record(task, mode, "ok", seconds, reply)
            return answer

    def _metered(
        self, system: str, user: str, schema: type[BaseModel], task: str, mode: Mode
    ) -> tuple[Reply, float]:
        """One request and its latency; faults and refusals are recorded here, answers by
        the caller once it has judged them."""
        started = time.monotonic()
        try:
            with self._slots:
                raw = self._request(system=system, user=user, schema=schema, task=task, mode=mode)
        except (ModeRefused, InvalidAnswer, TransientFault, BackendError) as exc:
            outcome: Outcome = (
                "refused"
                if isinstance(exc, ModeRefused)
                else "invalid"  # an unusable reply: cut off, refused by the model, empty
                if isinstance(exc, InvalidAnswer)
                else "transport"
            )
            spent = (
                Reply("", prompt_tokens=exc.prompt_tokens, completion_tokens=exc.completion_tokens)
                if isinstance(exc, InvalidAnswer)
                else None
            )  # an unusable answer still cost its tokens
            self._record(task, mode, outcome, time.monotonic() - started, spent)
            raise
        return (raw if isinstance(raw, Reply) else Reply(raw)), time.monotonic() - started

    def _record(
        self, task: str, mode: Mode, outcome: Outcome, seconds: float, reply: Reply | None = None
    ) -> None:
        self.usage.request(
            task,
            mode=mode,
            outcome=outcome,
            seconds=seconds,
            prompt_tokens=reply.prompt_tokens if reply else 0,
            completion_tokens=reply.completion_tokens if reply else 0,
        )
        log.info("%s %s: %s in %.2fs (%s)", self.name, task, outcome, seconds, mode)

    def ask(self, *, system: str, user: str, schema: type[M], task: str) -> M:
        feedback: list[str] = []  # reason the latest answer was refused, for the re-ask

        def attempt() -> M:
            prompt = with_feedback(user, feedback[-1] if feedback else None)
            try:
                return self._negotiated(system, prompt, schema, task)
            except InvalidAnswer as exc:
                feedback.append(str(exc))
                raise

        def on_retry(exc: BaseException, wait: float) -> None:
            if isinstance(exc, InvalidAnswer):
                self.usage.reask(task)
            log.warning(
                "%s %s: %s; retrying in %.2fs",
                self.name,
                task,
                redact(str(exc), self._secrets),
                wait,
            )

        try:
            return call_with_retries(attempt, self.settings.policy, on_retry=on_retry)
        except InvalidAnswer as exc:
            raise NoValidAnswer(
                f"{self.name} {task}: no valid answer after retries: "
                f"{redact(str(exc), self._secrets)}"
            ) from None
        except TransientFault as exc:
            raise BackendError(
                f"{self.name} {task}: no valid answer after retries: "
                f"{redact(str(exc), self._secrets)}"
            ) from None
        except BackendError as exc:
            raise BackendError(redact(str(exc), self._secrets)) from None
