"""Uploads and `s3://` references become documents and batches, through the same
`submit_bytes` / `create_batch` as the CLI, the batch command and the upload triggers.

The server reads no local paths on a client's behalf: a reference must be `s3://`.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from pydantic import ConfigDict, Field, model_validator

from quire.orchestrator.batch import BatchRecord, create_batch
from quire.orchestrator.sources import BadSourceError, SourceItem, expand_sources
from quire.orchestrator.web.errors import ApiError
from quire.orchestrator.web.pages import PYMUPDF
from quire.shared.config import RunChoices, RunSettings
from quire.shared.job import Job
from quire.shared.settings import Settings
from quire.workers.runtime import Runtime


class SubmitSettings(RunChoices):
    """The run settings a submission may choose, with the defaults of every way in: form
    fields beside the file (FastAPI binds the whole form to this model, so the other fields
    — the file, the sources — are ignored here, not refused)."""

    model_config = ConfigDict(extra="ignore")

    rerun: bool = Field(
        default=False, description="Start again a document that failed or ran with other settings."
    )

    @model_validator(mode="after")
    def _window(self) -> SubmitSettings:
        if self.max_pages < self.min_pages:
            raise ValueError("max_pages must not be below min_pages")
        return self

    def run_settings(self, limits: Settings) -> RunSettings:
        from quire.workers.llm import check_installed

        choices = RunChoices.model_validate(self.model_dump(exclude={"rerun"}))
        settings = choices.settings(env=limits)
        check_installed(settings.backend)
        return settings


def upload_name(filename: str | None) -> str:
    """The file name a browser or client sent, as a plain name (no folders, no controls)."""
    name = PurePath((filename or "").replace("\\", "/")).name
    name = re.sub(r"[\x00-\x1f\x7f]", "", name).strip()
    if not name:
        raise ApiError(
            422,
            "invalid_request",
            "the upload has no file name (its extension says which format the book is in)",
        )
    return name


def uploaded(name: str, data: bytes) -> SourceItem:
    return SourceItem(origin=f"upload:{name}", name=name, size=len(data), _read=lambda: data)


def s3_sources(refs: list[str], endpoint_url: str | None) -> list[SourceItem]:
    bad = [r for r in refs if not r.startswith("s3://")]
    if bad:
        raise ApiError(
            422,
            "bad_source",
            f"{bad[0]!r} is not an s3://bucket/key reference "
            "(the server reads no local paths; upload the file instead)",
        )
    try:
        items, _ = expand_sources(refs, s3_endpoint_url=endpoint_url)
    except BadSourceError as exc:
        raise ApiError(422, exc.code, str(exc)) from None
    return items


def submit_document(
    rt: Runtime, item: SourceItem, settings: RunSettings, *, rerun: bool
) -> tuple[Job, bool]:
    """Admit one document; returns its job and whether it is new. A document refused
    at admission (too large, not a PDF or DOCX, unreadable) is an error naming it."""
    from quire.workers.execute import admit_bytes

    data = item.read()
    with PYMUPDF:  # admission counts a PDF's pages
        s, created = admit_bytes(rt, data, item.name, settings, actor="web", rerun=rerun)
    if s.state == "failed" and s.revision == 1:
        code = s.error_code or "bad_input"
        raise ApiError(
            413 if code == "too_large" else 422,
            code,
            s.error or f"{item.name} was refused",
            doc_id=s.doc_id,
        )
    return s, created


def submit_batch(
    rt: Runtime, items: list[SourceItem], settings: RunSettings, *, rerun: bool
) -> BatchRecord:
    """Admit many documents as one batch; each is refused or admitted on its own."""
    with PYMUPDF:  # admission counts a PDF's pages
        return create_batch(rt, items, settings, rerun=rerun)
