"""Runtime configuration from the environment (DESIGN.md §5). Flags override these.

Secrets (API keys, S3 credentials) are deliberately NOT fields here: the SDKs read them from
the environment themselves, so they never enter task payloads, session state or logs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from quire.shared.logs import LogFormat
from quire.shared.plan import PlanSettings

Backend = Literal["heuristic", "command", "openai", "anthropic"]
OutputFormat = Literal["markdown", "pdf", "both"]


class RunSettings(BaseModel):
    """Per-document settings, stored in the session so every task sees the same ones."""

    model_config = ConfigDict(extra="forbid")

    output_format: OutputFormat = "markdown"
    backend: Backend = "heuristic"
    # "agent": planning pauses in awaiting_decision for boundary-context / commit-boundary
    decider: Literal["backend", "agent"] = "backend"
    plan: PlanSettings = Field(default_factory=PlanSettings)
    overlap_pages: int = Field(default=1, ge=0, le=5)
    range_pages: int = Field(default=100, ge=1)  # pages per parse task
    render_batch_pages: int = Field(default=200, ge=1)  # pages per render-compare task
    render_dpi: int = 36
    max_file_bytes: int = 500_000_000
    max_pages: int = 10_000

    def formats(self, source_format: str = "pdf") -> list[Literal["markdown", "pdf"]]:
        """The formats to write. PDF chunks are source pages, so a DOCX source gets Markdown
        only under "both" (an explicit "pdf" for a DOCX is refused at submission)."""
        if self.output_format == "both":
            return ["markdown", "pdf"] if source_format == "pdf" else ["markdown"]
        return [self.output_format]


def run_settings(output_format: str, backend: str | None, min_pages: float, max_pages: float,
                 overlap_pages: int) -> RunSettings:
    """Settings from the command-line options (or the MCP tool's arguments)."""
    return RunSettings(
        output_format=output_format,
        backend=backend or os.environ.get("QUIRE_REVIEW_BACKEND") or "heuristic",
        plan=PlanSettings(min_pages=min_pages, max_pages=max_pages,
                          soft_max_pages=max_pages + 1,
                          hard_max_pages=max(20, max_pages + 8)),
        overlap_pages=overlap_pages,
    )


def log_format() -> LogFormat:
    """`QUIRE_LOG_FORMAT`: "text" (default) or "json" (one JSON object per log line)."""
    value = (os.environ.get("QUIRE_LOG_FORMAT") or "text").strip().lower()
    if value == "text":
        return "text"
    if value == "json":
        return "json"
    raise ValueError(f"QUIRE_LOG_FORMAT must be text or json, got {value!r}")


class Environment(BaseModel):
    """Where the system's state lives; read once from the environment."""

    broker_url: str | None = None
    redis_url: str | None = None
    store_url: str = ".quire/store"
    state_dir: Path = Path(".quire")  # embedded revision store lives here
    s3_endpoint_url: str | None = None
    review_backend: Backend = "heuristic"

    @classmethod
    def from_env(cls) -> Environment:
        env = os.environ
        return cls(
            broker_url=env.get("QUIRE_BROKER_URL") or None,
            redis_url=env.get("QUIRE_REDIS_URL") or None,
            store_url=env.get("QUIRE_STORE_URL") or ".quire/store",
            state_dir=Path(env.get("QUIRE_STATE_DIR") or ".quire"),
            s3_endpoint_url=env.get("QUIRE_S3_ENDPOINT_URL") or None,
            review_backend=env.get("QUIRE_REVIEW_BACKEND") or "heuristic",
        )


def api_token() -> str | None:
    """`QUIRE_API_TOKEN`: the bearer token `quire serve` requires of every request. A secret:
    read where it is checked, never kept in a settings object, state or logs."""
    return os.environ.get("QUIRE_API_TOKEN") or None


class ServeSettings(BaseModel):
    """What `quire serve` admits: the per-document limits of `quire batch`
    (`QUIRE_MAX_FILE_BYTES`, `QUIRE_MAX_DOC_PAGES`) and the size of one request body
    (`QUIRE_MAX_UPLOAD_BYTES`; default one document's limit plus 1 MiB for the form)."""

    model_config = ConfigDict(extra="forbid")

    max_file_bytes: int = Field(default=RunSettings().max_file_bytes, ge=1)
    max_doc_pages: int = Field(default=RunSettings().max_pages, ge=1)
    max_upload_bytes: int = Field(default=RunSettings().max_file_bytes + 2**20, ge=1)

    @classmethod
    def from_env(cls) -> ServeSettings:
        env = os.environ
        file_bytes = int(env.get("QUIRE_MAX_FILE_BYTES") or cls().max_file_bytes)
        return cls(
            max_file_bytes=file_bytes,
            max_doc_pages=int(env.get("QUIRE_MAX_DOC_PAGES") or cls().max_doc_pages),
            max_upload_bytes=int(env.get("QUIRE_MAX_UPLOAD_BYTES") or file_bytes + 2**20),
        )
