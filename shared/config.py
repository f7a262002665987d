"""Per-document run settings and where the system's state lives (DESIGN.md §5).

Both are built from `quire.shared.settings` (the `QUIRE_*` environment, validated in one
place); command-line flags override the run defaults.

Secrets (API keys, S3 credentials) are deliberately NOT fields here: the SDKs read them from
the environment themselves, so they never enter task payloads, session state or logs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from quire.shared.errors import SettingsError
from quire.shared.plan import PlanSettings
from quire.shared.settings import (
    OCR_LANG_PATTERN,
    Backend,
    OcrMode,
    Settings,
    explain,
    load_settings,
)

OutputFormat = Literal["markdown", "pdf", "both"]
# how RunSettings fields are spelled on the command line, for one-line errors
FLAGS = {
    "output_format": "--output-format",
    "backend": "--backend",
    "decider": "--decider",
    "overlap_pages": "--overlap-pages",
    "plan.min_pages": "--min-pages",
    "plan.max_pages": "--max-pages",
    "plan": "--min-pages/--max-pages",
    "max_file_bytes": "--max-file-bytes",
    "max_pages": "--max-doc-pages",
    "ocr": "--ocr",
    "ocr_lang": "--ocr-lang",
    "strict": "--strict",
    "strict_backend": "--strict-backend",
}


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
    max_file_bytes: int = Field(default=500_000_000, gt=0)
    max_pages: int = Field(default=10_000, gt=0)
    ocr: OcrMode = "auto"
    ocr_lang: str = Field(default="eng", pattern=OCR_LANG_PATTERN)
    strict: bool = False  # a page that ends without text fails the document
    # an LLM backend's weak answer fails the document instead of falling back to the
    # heuristic for that item (transport failures behave the same either way)
    strict_backend: bool = False

    def formats(self, source_format: str = "pdf") -> list[Literal["markdown", "pdf"]]:
        """The formats to write. PDF chunks are source pages, so a DOCX source gets Markdown
        only under "both" (an explicit "pdf" for a DOCX is refused at submission)."""
        if self.output_format == "both":
            return ["markdown", "pdf"] if source_format == "pdf" else ["markdown"]
        return [self.output_format]


def run_settings(
    output_format: str,
    backend: str | None,
    min_pages: float,
    max_pages: float,
    overlap_pages: int,
    ocr: str | None = None,
    ocr_lang: str | None = None,
    strict: bool = False,
    *,
    max_file_bytes: int | None = None,
    max_doc_pages: int | None = None,
    strict_backend: bool | None = None,
    settings: Settings | None = None,
) -> RunSettings:
    """Run settings from command-line options (or an API call), defaults from the
    environment; a value that is not allowed fails in one line naming the flag."""
    env = settings or load_settings()
    values: dict[str, Any] = {
        "output_format": output_format,
        "backend": backend or env.review_backend,
        "plan": {
            "min_pages": min_pages,
            "max_pages": max_pages,
            "soft_max_pages": max_pages + 1,
            "hard_max_pages": max(20, max_pages + 8),
        },
        "overlap_pages": overlap_pages,
        "ocr": ocr or env.ocr,
        "ocr_lang": ocr_lang or env.ocr_lang,
        "strict": strict,
        "strict_backend": env.strict_backend if strict_backend is None else strict_backend,
        "max_file_bytes": env.max_file_bytes if max_file_bytes is None else max_file_bytes,
        "max_pages": env.max_doc_pages if max_doc_pages is None else max_doc_pages,
    }
    try:
        return RunSettings.model_validate(values)
    except ValidationError as exc:
        raise SettingsError(explain(exc, FLAGS)) from None


class Environment(BaseModel):
    """Where the system's state lives."""

    broker_url: str | None = None
    redis_url: str | None = None
    store_url: str = ".quire/store"
    state_dir: Path = Path(".quire")  # embedded revision store lives here
    s3_endpoint_url: str | None = None
    review_backend: Backend = "heuristic"

    @classmethod
    def from_env(cls) -> Environment:
        s = load_settings()
        return cls(
            broker_url=s.broker_url,
            redis_url=s.redis_url,
            store_url=s.store_url,
            state_dir=s.state_dir,
            s3_endpoint_url=s.s3_endpoint_url,
            review_backend=s.review_backend,
        )
