"""`/v1/batches`: many documents submitted together, each isolated (a refused or failing
document never stops the others), with their progress read from the documents themselves."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, File, Form, Query, UploadFile

from quire.orchestrator.batch import BatchReport, ProgressReader, find_batch, load_batch
from quire.orchestrator.web import lists
from quire.orchestrator.web.context import Web, web_of
from quire.orchestrator.web.errors import ApiError
from quire.orchestrator.web.models import BatchList
from quire.orchestrator.web.redact import hide_paths
from quire.orchestrator.web.submit import (
    SubmitSettings,
    s3_sources,
    submit_batch,
    upload_name,
    uploaded,
)

router = APIRouter(tags=["batches"])
WebDep = Annotated[Web, Depends(web_of)]


@router.post("/batches", status_code=201)
def post_batch(
    web: WebDep,
    settings: Annotated[SubmitSettings, Form()],
    files: Annotated[list[UploadFile] | None, File()] = None,
    sources: Annotated[
        list[str] | None, Form(description="s3://bucket/key or s3://bucket/prefix, repeatable")
    ] = None,
) -> BatchReport:
    """Submit uploads (`files`) and/or `s3://` objects and prefixes (`sources`) as one
    batch. The same documents with the same settings name the same batch again."""
    items = [uploaded(upload_name(f.filename), f.file.read()) for f in files or []]
    items += s3_sources(sources or [], web.rt.env.s3_endpoint_url)
    if not items:
        raise ApiError(422, "invalid_request", "a batch needs files or s3:// sources")
    record = submit_batch(web.rt, items, settings.run_settings(web.limits), rerun=settings.rerun)
    web.driver.submit(record.doc_ids())
    return _shown(web, ProgressReader(web.rt).report(record))


@router.get("/batches")
def batches(
    web: WebDep,
    cursor: Annotated[str | None, Query(max_length=64, description="next_cursor")] = None,
    limit: Annotated[int, Query(ge=1, le=lists.MAX_LIMIT)] = 50,
) -> BatchList:
    """A page of batches with their documents' states, newest first (their documents:
    `GET /v1/documents?batch=ID`)."""
    return lists.batches(web.rt, at=cursor, limit=limit)


@router.get("/batches/{batch_id}")
def batch(web: WebDep, batch_id: str) -> BatchReport:
    """A batch's report: per document state, progress, pages, sessions, verification."""
    found = find_batch(web.rt, batch_id)
    if found is None:
        raise ApiError(404, "unknown_batch", f"no batch {batch_id!r}")
    return _shown(web, ProgressReader(web.rt).report(load_batch(web.rt, found)))


def _shown(web: Web, report: BatchReport) -> BatchReport:
    """The report with no server path in its documents' failure reasons."""
    docs = [
        d.model_copy(update={"error": hide_paths(d.error, web.reader.roots)}) if d.error else d
        for d in report.documents
    ]
    return report.model_copy(update={"documents": docs})
