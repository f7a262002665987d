"""Runtime configuration from the environment (DESIGN.md §5). Flags override these.

Secrets (API keys, S3 credentials) are deliberately NOT fields here: the SDKs read them from
the environment themselves, so they never enter task payloads, session state or logs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from quire.shared.plan import PlanSettings

Backend = Literal["heuristic", "command", "openai", "anthropic"]
OutputFormat = Literal["markdown", "pdf", "both"]
# auto: OCR pages without a usable text layer; force: every page that is not blank; off: none
OcrMode = Literal["auto", "off", "force"]
# Tesseract language codes joined by "+", e.g. "eng+fas+chi_sim"
OCR_LANG_PATTERN = r"^[a-z][a-z0-9_]*(\+[a-z][a-z0-9_]*)*$"


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
    ocr: OcrMode = "auto"
    ocr_lang: str = Field(default="eng", pattern=OCR_LANG_PATTERN)
    strict: bool = False  # a page that ends without text fails the document

    def formats(self, source_format: str = "pdf") -> list[Literal["markdown", "pdf"]]:
        """The formats to write. PDF chunks are source pages, so a DOCX source gets Markdown
        only under "both" (an explicit "pdf" for a DOCX is refused at submission)."""
        if self.output_format == "both":
            return ["markdown", "pdf"] if source_format == "pdf" else ["markdown"]
        return [self.output_format]


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
