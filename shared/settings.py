"""Every `QUIRE_*` setting in one validated model.

`load_settings()` reads the environment each time it is called, and a bad value fails in
one line naming the variable and what is allowed (`SettingsError`). Only entry points call
it (the `quire` command group, the Celery worker, the MCP server, each `quire.api` call;
tests/test_settings_entry_points.py holds the list): they build one `Settings` and pass it
down (`Runtime.env`, arguments), so nothing below them reads the environment.
Command-line flags override the run defaults found here; they are validated by
`RunSettings` and explained the same way (`explain`). The README's and
OPERATIONS.md's tables list every field, and a test fails when code reads a `QUIRE_*`
variable this model does not define.

Provider keys and S3 credentials are not here on purpose: the SDKs read `OPENAI_API_KEY`,
`ANTHROPIC_API_KEY` and the standard AWS variables themselves, so they never pass through
Quire's settings, sessions or logs. Secrets that are here are `SecretStr` (redacted when
printed, e.g. by `quire config`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, model_validator

from quire.shared.environment import PREFIX, quire_variables
from quire.shared.errors import SettingsError

Backend = Literal["heuristic", "command", "openai", "anthropic"]
OcrMode = Literal["auto", "off", "force"]
LogFormat = Literal["text", "json"]
# Tesseract language codes joined by "+", e.g. "eng+fas+chi_sim"
OCR_LANG_PATTERN = r"^[a-z][a-z0-9_]*(\+[a-z][a-z0-9_]*)*$"

Positive = Annotated[float, Field(gt=0)]
Count = Annotated[int, Field(ge=0)]


Mode = Literal["embedded", "distributed"]


class Deployment(BaseModel):
    """Where documents run and where their state lives, checked together once (`Runtime`,
    `quire worker`) so a combination that cannot work stops at start with one line.

    The rules: with no broker everything runs in this process, so any revision store and
    any object store do (SQLite or Redis; a folder or S3). With a Celery broker, a worker
    may run on another host, so both stores must be reachable from there: the revisions in
    Redis (QUIRE_REDIS_URL; the embedded SQLite file lives in this host's QUIRE_STATE_DIR)
    and the objects in S3 (`s3://…`; a folder, `file://` URL included, is this host's).
    """

    model_config = ConfigDict(frozen=True)

    broker: str | None = None  # Celery broker URL; None: embedded
    revisions: str | None = None  # Redis URL; None: SQLite in the state folder
    store: str = ".quire/store"  # `s3://bucket/prefix`, or a folder

    @property
    def mode(self) -> Mode:
        return "distributed" if self.broker else "embedded"

    @model_validator(mode="after")
    def _fits_together(self) -> Deployment:
        if not self.broker:
            return self
        local: list[tuple[str, str]] = []  # (what only this host sees, the setting to use)
        if not self.revisions:
            local.append(
                ("the SQLite revision store in QUIRE_STATE_DIR", "QUIRE_REDIS_URL=redis://…")
            )
        if not self.store.startswith("s3://"):
            local.append((f"the folder store {self.store}", "QUIRE_STORE_URL=s3://…"))
        if local:
            # a SettingsError, not a ValueError, passes through pydantic as it is: one line
            raise SettingsError(
                "QUIRE_BROKER_URL is set, but a Celery worker on another host could not see "
                + " or ".join(what for what, _ in local)
                + ": set "
                + " and ".join(setting for _, setting in local)
                + ", or unset QUIRE_BROKER_URL to run embedded"
            )
        return self


class FromEnvironment(BaseModel):
    """A model that reads every field it is not given from `QUIRE_<FIELD>` (in any case;
    an empty variable is unset), the text parsed as the field's type: pydantic-settings'
    `BaseSettings` as far as Quire used it, whose import (asyncio, a command-line parser,
    dotenv) cost every command about 110 ms of its start."""

    model_config = ConfigDict(frozen=True, extra="ignore", validate_default=True)

    @model_validator(mode="before")
    @classmethod
    def _from_environment(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        found = quire_variables()
        read = {f: found[f] for f in cls.model_fields if f in found}
        return {**read, **data}


class Settings(FromEnvironment):
    """The process's settings, from `QUIRE_*` environment variables (see the README)."""

    # -- where the state lives
    broker_url: str | None = Field(
        None, description="Celery broker; unset: embedded, in this process"
    )
    redis_url: str | None = Field(
        None, description="revision store; unset: embedded SQLite in QUIRE_STATE_DIR"
    )
    store_url: str = Field(".quire/store", description="`s3://bucket/prefix` or a folder")
    state_dir: Path = Field(Path(".quire"), description="embedded revision store, batch logs")
    s3_endpoint_url: str | None = Field(
        None,
        description="MinIO or another S3-compatible "
        "endpoint (credentials: the standard AWS variables)",
    )
    # -- defaults of every run (command-line flags override them)
    review_backend: Backend = Field(
        "heuristic", description="review, decision, analysis and index backend"
    )
    max_file_bytes: Annotated[int, Field(gt=0)] = Field(
        500_000_000, description="refuse larger files (`too_large`)"
    )
    max_doc_pages: Annotated[int, Field(gt=0)] = Field(
        10_000, description="refuse documents with more pages (`too_large`)"
    )
    ocr: OcrMode = Field(
        "auto",
        description="OCR pages without a usable text layer "
        "(`auto`), every page that is not blank (`force`), or none (`off`)",
    )
    ocr_lang: str = Field(
        "eng",
        pattern=OCR_LANG_PATTERN,
        description="OCR languages as Tesseract codes, e.g. `eng+fas`; `eng` and `chi_sim` "
        "need nothing beyond pip, others Debian's `tesseract-ocr-<lang>`",
    )
    pdf_password: SecretStr | None = Field(
        None, description="user password tried on password-protected PDFs"
    )
    pdf_password_map: Path | None = Field(
        None, description="JSON file of glob patterns (file name or origin) to passwords"
    )
    log_format: LogFormat = Field(
        "text",
        description="`json`: one JSON object per log line "
        "with `doc_id`, `state`, `part`, `revision` fields",
    )
    # -- LLM backends (their keys: OPENAI_API_KEY, ANTHROPIC_API_KEY; endpoints:
    #    OPENAI_BASE_URL, ANTHROPIC_BASE_URL, read by the SDKs)
    openai_model: str = Field("gpt-4o-mini", description="model of the openai backend")
    openai_response_format: Literal["auto", "json_schema", "json_object", "text"] = Field(
        "auto",
        description="structured output to ask the openai backend's server for first (`auto`: "
        "json_schema, stepping down to json_object and text when refused)",
    )
    openai_max_tokens: Count = Field(
        0,
        description="bounds each openai answer (`max_tokens`; set it for small local models, "
        "which may write until their context is full); 0: the server's own limit",
    )
    anthropic_model: str = Field("claude-haiku-4-5", description="model of the anthropic backend")
    anthropic_max_tokens: Annotated[int, Field(gt=0)] = Field(
        4096, description="bounds each Anthropic answer"
    )
    agent_command: str | None = Field(
        None,
        description="the `command` backend's program "
        "(JSON on stdin and stdout; split like a shell line)",
    )
    agent_timeout: Positive | None = Field(
        None, description="seconds per `command` run (default: QUIRE_BACKEND_TIMEOUT)"
    )
    backend_concurrency: Annotated[int, Field(ge=1)] = Field(
        4, description="LLM calls in flight per provider and process"
    )
    backend_timeout: Positive = Field(120.0, description="seconds per LLM request")
    backend_max_attempts: Annotated[int, Field(ge=1)] = Field(
        6, description="transport attempts per LLM call (first included)"
    )
    backend_reasks: Count = Field(2, description="extra asks after answers that break a rule")
    backend_backoff: Annotated[float, Field(ge=0)] = Field(
        1.0, description="seconds; the n-th retry waits up to this x 2^(n-1)"
    )
    backend_backoff_max: Annotated[float, Field(ge=0)] = Field(
        60.0, description="longest wait between LLM retries, seconds"
    )
    backend_retry_after_max: Annotated[float, Field(ge=0)] = Field(
        120.0, description="longest Retry-After honoured, seconds"
    )
    strict_backend: bool = Field(
        False,
        description="an LLM backend's invalid or unspecific answer (after its re-asks) "
        "fails the document instead of falling back to the heuristic (`--strict-backend`)",
    )
    # -- the distributed runtime
    deadline_scale: Positive = Field(
        1.0, description="multiplies every state's deadline before the reconciler re-drives it"
    )
    time_limit_scale: Positive = Field(
        1.0, description="multiplies every task's soft and hard time limit"
    )
    visibility_timeout: Positive = Field(
        1800.0, description="seconds before Redis redelivers a task whose worker died"
    )
    task_max_retries: Count = Field(6, description="Celery retries of a transient fault")
    task_retry_backoff: Count = Field(
        2,
        description="seconds before the first Celery retry (doubling, capped at 120, with jitter)",
    )
    # -- upload triggers (deploy/OPERATIONS.md)
    webhook_token: SecretStr | None = Field(
        None, description="Bearer token S3/MinIO sends to the webhook (required to serve it)"
    )
    trigger_bucket: str | None = Field(
        None, description="only uploads to this bucket (default: any that notifies)"
    )
    trigger_prefix: str = Field("inbox/", description="uploads under this prefix become documents")
    trigger_output_prefix: str = Field(
        "outbox/", min_length=1, description="where each upload's results go"
    )
    sqs_queue_url: str | None = Field(None, description="the queue `quire trigger sqs` polls")
    sqs_endpoint_url: str | None = Field(None, description="an SQS-compatible endpoint")
    # -- the web workspace and HTTP API (`quire serve`)
    api_token: SecretStr | None = Field(
        None,
        description="bearer token every "
        "request must carry (16+ characters); required to "
        "serve beyond loopback",
    )
    max_upload_bytes: Annotated[int, Field(gt=0)] | None = Field(
        None,
        description="refuse larger request bodies before reading them (413 `too_large`)"
        "; default QUIRE_MAX_FILE_BYTES + 1 MiB",
    )
    request_header_timeout: Positive = Field(
        10.0, description="seconds a connection has to send a request's headers (then 408)"
    )
    request_body_timeout: Positive = Field(
        30.0, description="seconds a request body may stall before 408 `request_timeout`"
    )
    # -- the warm process (orchestrator/warm.py reads these two itself, before any import)
    warm: bool = Field(
        True,
        description="hand each command to a warm Quire process, started by the first one "
        "and gone after QUIRE_WARM_IDLE seconds without a command; 0: every command "
        "starts afresh",
    )
    warm_idle: Positive = Field(
        600.0, description="seconds the warm process waits for a command before it ends"
    )
    # -- the MCP server
    mcp_runs_dir: Path | None = Field(
        None, description="where isolated run folders go (default: QUIRE_STATE_DIR/runs)"
    )
    mcp_processes: Annotated[int, Field(ge=1)] | None = Field(
        None, description="embedded worker processes of the MCP server (default: CPUs)"
    )

    @property
    def upload_limit(self) -> int:
        """The largest request body `quire serve` reads: one document and its form."""
        return self.max_upload_bytes or self.max_file_bytes + 2**20

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        if self.backend_backoff > self.backend_backoff_max:
            raise ValueError("QUIRE_BACKEND_BACKOFF must not exceed QUIRE_BACKEND_BACKOFF_MAX")
        a, b = self.trigger_prefix, self.trigger_output_prefix
        if a.startswith(b) or b.startswith(a):
            raise ValueError(
                f"QUIRE_TRIGGER_OUTPUT_PREFIX {b!r} overlaps QUIRE_TRIGGER_PREFIX "
                f"{a!r}: results would be written over (or trigger as) uploads"
            )
        return self

    @property
    def deployment(self) -> Deployment:
        """The broker and stores, checked together (raises SettingsError)."""
        return Deployment(broker=self.broker_url, revisions=self.redis_url, store=self.store_url)


def revealed(settings: Settings) -> dict[str, Any]:
    """The settings as JSON-ready values, secrets included: for handing them to a child
    process over a pipe (`Settings.model_validate` reads them back), never for printing."""
    values = settings.model_dump(mode="json")
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            values[name] = value.get_secret_value()
    return values


def env_name(field: str) -> str:
    return PREFIX + field.upper()


ENV_NAMES = tuple(env_name(f) for f in Settings.model_fields)


def load_settings() -> Settings:
    """The settings as the environment gives them now; SettingsError in one line if not."""
    try:
        return Settings()
    except ValidationError as exc:
        raise SettingsError(explain(exc, {f: env_name(f) for f in Settings.model_fields})) from None


def explain(exc: ValidationError, names: Mapping[str, str]) -> str:
    """The first problem of a validation error as one line: the setting's name as the user
    wrote it (`names` maps field paths such as "plan.min_pages" to "--min-pages"), the value
    (never a secret's) and what is allowed."""
    err = exc.errors(include_url=False)[0]
    path = ".".join(str(p) for p in err["loc"])
    name = names.get(path) or path
    message = err["msg"].removeprefix("Value error, ")
    if not path:  # a rule across several settings: its message names them
        return message
    value = err.get("input")
    secret = "password" in path or "token" in path
    shown = "" if secret or isinstance(value, dict) else f"={value!r}"
    return f"{name}{shown}: {message}"


def markdown_table() -> str:
    """The README's table of settings, made from the model (a test keeps them equal)."""
    rows = ["| variable | meaning | default |", "|---|---|---|"]
    for field, info in Settings.model_fields.items():
        default = info.get_default()
        shown = "" if default is None else f"`{default}`"
        rows.append(f"| `{env_name(field)}` | {info.description or ''} | {shown} |")
    return "\n".join(rows) + "\n"
