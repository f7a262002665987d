"""`/v1/documents`: submit, list and inspect documents and everything they produced.

A document is named by its id (the sha256 of its bytes) or a unique prefix of 6+ hex digits.
Outputs a document has not written yet answer 404 with code `not_ready`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal, TypeVar

from fastapi import APIRouter, Depends, File, Form, Path, Query, Request, Response, UploadFile

from quire.orchestrator.web import lists
from quire.orchestrator.web.context import Web, web_of
from quire.orchestrator.web.errors import ApiError
from quire.orchestrator.web.models import (
    DocumentDetail,
    DocumentPage,
    PagesOut,
    PlanOut,
    ReviewReport,
    SessionDetail,
    Submitted,
)
from quire.orchestrator.web.pages import DEFAULT_DPI, MAX_DPI, MIN_DPI, etag
from quire.orchestrator.web.reads import NotReady, Outputs
from quire.orchestrator.web.submit import (
    SubmitSettings,
    s3_sources,
    submit_document,
    upload_name,
    uploaded,
)
from quire.shared.analysis import INDEX_FILES, ChunkAnalysis
from quire.shared.layout import Layout
from quire.shared.manifest import VerificationReport
from quire.shared.rag import RAG_CHUNKS_FILE

router = APIRouter(tags=["documents"])
WebDep = Annotated[Web, Depends(web_of)]
IMMUTABLE = "private, max-age=31536000, immutable"
R = TypeVar("R")


@router.get("/documents")
def list_documents(
    web: WebDep,
    state: Annotated[
        list[str] | None,
        Query(description="only these states (repeat or comma-separate; running: any working one)"),
    ] = None,
    name: Annotated[str, Query(max_length=200, description="name contains, any case")] = "",
    batch: Annotated[str | None, Query(max_length=64, description="only this batch's")] = None,
    cursor: Annotated[str | None, Query(max_length=64, description="next_ or prev_cursor")] = None,
    limit: Annotated[int, Query(ge=1, le=lists.MAX_LIMIT)] = 50,
) -> DocumentPage:
    """A page of documents with their state and progress, most recently submitted first;
    `next_cursor` continues with older ones, `prev_cursor` goes back to newer ones."""
    if batch is not None and web.rt.revisions.batch(batch) is None:
        raise ApiError(404, "unknown_batch", f"no batch {batch!r}")
    states = lists.states_of(state or [])
    return lists.documents(web.rt, states=states, name=name, batch=batch, at=cursor, limit=limit)


@router.post("/documents", status_code=201, responses={200: {"model": Submitted}})
def post_document(
    web: WebDep,
    response: Response,
    settings: Annotated[SubmitSettings, Form()],
    file: Annotated[UploadFile | None, File(description="A PDF or DOCX.")] = None,
    source: Annotated[str | None, Form(description="Or: s3://bucket/key")] = None,
) -> Submitted:
    """Submit one document: a multipart upload (`file`) or an `s3://` reference (`source`),
    with the run settings as form fields. 201 when new, 200 when these bytes were submitted
    before (documents are keyed by content; `rerun` starts a finished one again)."""
    if (file is None) == (source is None):
        raise ApiError(422, "invalid_request", "send either a file or an s3:// source")
    if file is not None:
        item = uploaded(upload_name(file.filename), file.file.read())
    else:
        items = s3_sources([source or ""], web.rt.env.s3_endpoint_url)
        if [i.origin for i in items] != [source]:
            raise ApiError(
                422,
                "bad_source",
                f"{source} is a prefix of {len(items)} documents: "
                "submit one object, or the prefix as a batch (POST /v1/batches)",
            )
        item = items[0]
    s, created = submit_document(
        web.rt, item, settings.run_settings(web.limits), rerun=settings.rerun
    )
    web.driver.submit([s.doc_id])
    if not created:
        response.status_code = 200
    return Submitted(created=created, document=web.reader.summary(web.rt.repo.load(s.doc_id)))


@router.get("/documents/{doc}")
def document(web: WebDep, doc: str) -> DocumentDetail:
    """State, progress, settings and the revision history (who moved it, when and why)."""
    return web.reader.detail(web.reader.job(doc))


@router.get("/documents/{doc}/plan")
def plan(web: WebDep, doc: str) -> PlanOut:
    """The sessions: page ranges, titles, why each ends, the cut's reviewer votes."""
    s = web.reader.job(doc)
    return web.reader.outputs(s).plan_out


@router.get("/documents/{doc}/pages")
def pages(web: WebDep, doc: str) -> PagesOut:
    """The book's pages: count, outline (chapter starts) and pages without text."""
    s = web.reader.job(doc)
    return web.reader.outputs(s).pages


@router.get(
    "/documents/{doc}/pages/{page}.png",
    response_class=Response,
    responses={200: {"content": {"image/png": {}}}},
)
def page_image(
    web: WebDep,
    request: Request,
    doc: str,
    page: int,
    dpi: Annotated[int, Query(ge=MIN_DPI, le=MAX_DPI)] = DEFAULT_DPI,
) -> Response:
    """A source page as PNG, rendered on first request and cached."""
    s = web.reader.job(doc)
    if s.source_format != "pdf":
        raise ApiError(
            404,
            "no_pages",
            f"{s.source_name} is a {s.source_format.upper()}: it has no pages to show",
        )
    if not 1 <= page <= s.page_count:
        raise ApiError(
            404, "unknown_page", f"{s.source_name} has pages 1-{s.page_count}", doc_id=s.doc_id
        )
    tag = etag(s.doc_id, page, dpi)
    if request.headers.get("if-none-match") == tag:
        return Response(status_code=304, headers={"ETag": tag, "Cache-Control": IMMUTABLE})
    return Response(
        web.images.png(s, page, dpi),
        media_type="image/png",
        headers={"ETag": tag, "Cache-Control": IMMUTABLE},
    )


@router.get("/documents/{doc}/sessions/{number}")
def session(web: WebDep, doc: str, number: int) -> SessionDetail:
    """One session: its plan entry, why it starts and ends there, its analysis and its
    verification findings."""
    s = web.reader.job(doc)
    return web.reader.outputs(s).session_detail(number)


def _session_file(web: Web, doc: str, number: int, kind: Literal["markdown", "pdf"]) -> bytes:
    s = web.reader.job(doc)
    out = web.reader.outputs(s)
    detail = out.session_detail(number)
    name = detail.markdown_file if kind == "markdown" else detail.pdf_file
    if name is None:
        raise NotReady(s, f"{kind} file for session {number}")
    return out.need(name, f"{kind} file for session {number}")


@router.get(
    "/documents/{doc}/sessions/{number}/markdown",
    response_class=Response,
    responses={200: {"content": {"text/markdown": {}}}},
)
def session_markdown(web: WebDep, doc: str, number: int) -> Response:
    return Response(
        _session_file(web, doc, number, "markdown"), media_type="text/markdown; charset=utf-8"
    )


@router.get(
    "/documents/{doc}/sessions/{number}/pdf",
    response_class=Response,
    responses={200: {"content": {"application/pdf": {}}}},
)
def session_pdf(web: WebDep, doc: str, number: int) -> Response:
    return Response(_session_file(web, doc, number, "pdf"), media_type="application/pdf")


@router.get("/documents/{doc}/verification")
def verification(web: WebDep, doc: str) -> VerificationReport:
    """The verification report: what was checked, and every finding with its place."""
    return _report(web, doc, lambda out: out.verification, "verification report")


@router.get("/documents/{doc}/review")
def review(web: WebDep, doc: str) -> ReviewReport:
    """The topic review: every candidate transition with each reviewer's vote."""
    return _report(web, doc, lambda out: out.review, "topic review")


def _report(web: Web, doc: str, pick: Callable[[Outputs], R | None], what: str) -> R:
    """A report the document writes at one of its stages; before that, 404 not_ready."""
    s = web.reader.job(doc)
    report = pick(web.reader.outputs(s))
    if report is None:
        raise NotReady(s, what)
    return report


@router.get("/documents/{doc}/analysis")
def analysis(web: WebDep, doc: str) -> list[ChunkAnalysis]:
    """Each session's analysis: English and Persian topic and study focus, coherence."""
    s = web.reader.job(doc)
    return sorted(web.reader.outputs(s).analyses.values(), key=lambda a: a.chunk)


@router.get(
    "/documents/{doc}/study-index/{name}",
    response_class=Response,
    responses={200: {"content": {"text/markdown": {}}}},
)
def study_index(web: WebDep, doc: str, name: Literal["en", "fa", "map"]) -> Response:
    """`study-index-en.md`, `study-index-fa.md` or `study-map.md`."""
    s = web.reader.job(doc)
    data = web.reader.outputs(s).need(INDEX_FILES[name], f"study index ({name})")
    return Response(data, media_type="text/markdown; charset=utf-8")


@router.get(
    "/documents/{doc}/retrieval-chunks",
    response_class=Response,
    responses={200: {"content": {"application/x-ndjson": {}}}},
)
def retrieval_chunks(web: WebDep, doc: str) -> Response:
    """`rag-chunks.jsonl`, one retrieval chunk per line (after `quire rag`)."""
    s = web.reader.job(doc)
    data = web.reader.outputs(s).need(RAG_CHUNKS_FILE, "retrieval chunks")
    return Response(data, media_type="application/x-ndjson")


@router.get(
    "/documents/{doc}/images/{name}",
    response_class=Response,
    responses={200: {"content": {"image/*": {}}}},
)
def image(
    web: WebDep, doc: str, name: Annotated[str, Path(pattern=r"^[0-9a-f]{16,64}\.[a-z0-9]{2,5}$")]
) -> Response:
    """An image the sessions' Markdown links to (`images/<sha256>.<ext>`)."""
    s = web.reader.job(doc)
    data = web.reader.outputs(s).need(Layout.IMAGES + name, f"image {name}")
    kind = name.rsplit(".", 1)[-1].lower()
    media = {
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "png": "image/png",
        "gif": "image/gif",
        "webp": "image/webp",
        "bmp": "image/bmp",
        "tif": "image/tiff",
        "tiff": "image/tiff",
    }
    return Response(
        data,
        media_type=media.get(kind, "application/octet-stream"),
        headers={"Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff"},
    )
