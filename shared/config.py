"""Per-document run settings and where the system's state lives (DESIGN.md §5).

Both are built from `quire.shared.settings` (the `QUIRE_*` environment, validated in one
place); what a person chooses for a run (`RunChoices`: flags, arguments, form fields)
overrides the environment's defaults.

Secrets (API keys, S3 credentials) are deliberately NOT fields here: the SDKs read them from
the environment themselves, so they never enter task payloads, session state or logs.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from quire.shared.errors import SettingsError
from quire.shared.plan import MAX_PAGES, MIN_PAGES, PlanSettings
from quire.shared.settings import (
    OCR_LANG_PATTERN,
    Backend,
    OcrMode,
    Settings,
    explain,
)

OutputFormat = Literal["markdown", "pdf", "both"]
# "agent": planning pauses in awaiting_decision for boundary-context / commit-boundary
Decider = Literal["backend", "agent"]
DEFAULT_DECIDER: Decider = "backend"
# the defaults the environment may change (QUIRE_*), as `Settings` declares them
ENV_DEFAULTS = Settings.model_construct()
# how RunSettings and RunChoices fields are spelled on the command line, for one-line errors
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
CHOICE_FLAGS = FLAGS | {"min_pages": "--min-pages", "max_pages": "--max-pages"}


class RunChoices(BaseModel):
    """What a person chooses for a run, with the one set of defaults every way in takes:
    the flags of `quire run`, `batch` and `parse`, the arguments of `quire.split` and
    `quire.parse`, the HTTP API's form fields and the MCP tool's inputs (a test holds them
    to these). None: the environment's default (`Settings`: QUIRE_REVIEW_BACKEND,
    QUIRE_OCR, QUIRE_OCR_LANG)."""

    model_config = ConfigDict(extra="forbid")

    output_format: OutputFormat = Field(
        default="markdown", description="Markdown chunks, PDF chunks (source pages) or both."
    )
    backend: Backend | None = Field(
        default=None,
        description="Backend of the pipeline's own reviews, decisions and analyses "
        f"[QUIRE_REVIEW_BACKEND; {ENV_DEFAULTS.review_backend}].",
    )
    min_pages: float = Field(default=MIN_PAGES, gt=0, description="Preferred session minimum.")
    max_pages: float = Field(default=MAX_PAGES, gt=0, description="Preferred session maximum.")
    overlap_pages: int = Field(
        default=1, ge=0, le=5, description="Neighbouring pages added on each side of a PDF chunk."
    )
    ocr: OcrMode | None = Field(
        default=None,
        description="OCR pages without a usable text layer (auto), every page that is not "
        f"blank (force), or none (off) [QUIRE_OCR; {ENV_DEFAULTS.ocr}].",
    )
    ocr_lang: str | None = Field(
        default=None,
        pattern=OCR_LANG_PATTERN,
        description="OCR languages, e.g. eng+fas+chi_sim "
        f"[QUIRE_OCR_LANG; {ENV_DEFAULTS.ocr_lang}].",
    )
    strict: bool = Field(default=False, description="Fail a document with pages without text.")
    strict_backend: bool | None = Field(
        default=None,
        description="Fail a document when an LLM backend's answer stays weak after its "
        "re-asks, instead of answering that item with the heuristic "
        f"[QUIRE_STRICT_BACKEND; {ENV_DEFAULTS.strict_backend}].",
    )

    @classmethod
    def given(cls, **values: Any) -> RunChoices:
        """From flags or arguments; a value that is not allowed fails in one line naming
        the flag."""
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            raise SettingsError(explain(exc, CHOICE_FLAGS)) from None

    def settings(
        self,
        *,
        decider: Decider = DEFAULT_DECIDER,
        max_file_bytes: int | None = None,
        max_doc_pages: int | None = None,
        env: Settings,
    ) -> RunSettings:
        """The run settings these choices make, the entry point's settings (`env`) filling
        what they leave open; a value that is not allowed fails in one line naming the
        flag."""
        values: dict[str, Any] = {
            "output_format": self.output_format,
            "backend": self.backend or env.review_backend,
            "decider": decider,
            "plan": {
                "min_pages": self.min_pages,
                "max_pages": self.max_pages,
                "soft_max_pages": self.max_pages + 1,
                "hard_max_pages": max(20, self.max_pages + 8),
            },
            "overlap_pages": self.overlap_pages,
            "ocr": self.ocr or env.ocr,
            "ocr_lang": self.ocr_lang or env.ocr_lang,
            "strict": self.strict,
            "strict_backend": (
                env.strict_backend if self.strict_backend is None else self.strict_backend
            ),
            "max_file_bytes": env.max_file_bytes if max_file_bytes is None else max_file_bytes,
            "max_pages": env.max_doc_pages if max_doc_pages is None else max_doc_pages,
        }
        try:
            return RunSettings.model_validate(values)
        except ValidationError as exc:
            raise SettingsError(explain(exc, FLAGS)) from None


DEFAULTS = RunChoices()


class RunSettings(BaseModel):
    """Per-document settings, stored in the session so every task sees the same ones."""

    model_config = ConfigDict(extra="forbid")

    output_format: OutputFormat = DEFAULTS.output_format
    backend: Backend = ENV_DEFAULTS.review_backend
    decider: Decider = DEFAULT_DECIDER
    plan: PlanSettings = Field(default_factory=PlanSettings)
    overlap_pages: int = Field(default=DEFAULTS.overlap_pages, ge=0, le=5)
    range_pages: int = Field(default=100, ge=1)  # pages per parse task
    render_batch_pages: int = Field(default=200, ge=1)  # pages per render-compare task
    render_dpi: int = 36
    max_file_bytes: int = Field(default=ENV_DEFAULTS.max_file_bytes, gt=0)
    max_pages: int = Field(default=ENV_DEFAULTS.max_doc_pages, gt=0)
    ocr: OcrMode = ENV_DEFAULTS.ocr
    ocr_lang: str = Field(default=ENV_DEFAULTS.ocr_lang, pattern=OCR_LANG_PATTERN)
    strict: bool = DEFAULTS.strict  # a page that ends without text fails the document
    # an LLM backend's weak answer fails the document instead of falling back to the
    # heuristic for that item (transport failures behave the same either way)
    strict_backend: bool = ENV_DEFAULTS.strict_backend

    def formats(self, source_format: str = "pdf") -> list[Literal["markdown", "pdf"]]:
        """The formats to write. PDF chunks are source pages, so a DOCX source gets Markdown
        only under "both" (an explicit "pdf" for a DOCX is refused at submission)."""
        if self.output_format == "both":
            return ["markdown", "pdf"] if source_format == "pdf" else ["markdown"]
        return [self.output_format]


class Environment(Settings):
    """Settings whose state lives where they say: the broker, revision store, object store
    and state folder given here, else the model's defaults (an embedded folder), never the
    environment's; the other fields as `Settings` reads them. Tests and benchmarks place
    their state in a folder of their own this way; entry points build a plain `Settings`
    (`load_settings()`) and pass it down."""

    def __init__(self, **values: Any) -> None:
        for name in LOCATION:
            values.setdefault(name, Settings.model_fields[name].get_default())
        super().__init__(**values)


LOCATION = ("broker_url", "redis_url", "store_url", "state_dir")
