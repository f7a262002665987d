"""The library's pages: documents (search, state filter, pages), batches, and one batch with
its failures first. Rendered on the server from the listing, a page at a time: they work
without JavaScript, which only refreshes the rows of the page being read."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from quire.orchestrator.web import lists
from quire.orchestrator.web.errors import ApiError
from quire.orchestrator.web.models import DocumentPage
from quire.orchestrator.web.render import templates
from quire.orchestrator.web.routes.ui import Authorized, WebDep, _page
from quire.orchestrator.web.views import list_url, state_options
from quire.shared.revisions.listing import BatchInfo
from quire.workers.parse.compressed import COMPRESSION_SUFFIXES
from quire.workers.parse.detect import EXTENSIONS

router = APIRouter(include_in_schema=False)
PAGE = 50  # documents per page
Text = Annotated[str, Query(max_length=200)]
Cursor = Annotated[str | None, Query(max_length=64)]


def _documents(
    web: WebDep, q: str, state: str, cursor: str | None, batch: str | None = None
) -> DocumentPage:
    """`state`: one state, "running", or several separated by commas."""
    states = lists.states_of([state])
    return lists.documents(web.rt, states=states, name=q, batch=batch, at=cursor, limit=PAGE)


def _listing(web: WebDep, q: str, state: str, cursor: str | None) -> dict[str, object]:
    """What the documents page's list shows (also refreshed alone, `/ui/documents/listing`)."""
    page = _documents(web, q, state, cursor)
    here = {"q": q, "state": state}
    options = state_options(page.counts)
    return {
        "page": page,
        "documents": page.documents,
        "options": options,
        "option_counts": {value: n for value, _, n in options},
        "newer": list_url("/", **here, cursor=page.prev_cursor) if page.prev_cursor else None,
        "older": list_url("/", **here, cursor=page.next_cursor) if page.next_cursor else None,
        "first": list_url("/", **here) if cursor else None,
        "filtered": bool(q or state),
        "listing_url": list_url("/ui/documents/listing", **here, cursor=cursor),
    }


@router.get("/", dependencies=Authorized)
def documents_page(
    request: Request, web: WebDep, q: Text = "", state: Text = "", cursor: Cursor = None
) -> HTMLResponse:
    listing = _listing(web, q, state, cursor)
    return _page(
        request,
        web,
        "documents.html",
        q=q,
        state=state,
        limits=web.limits,
        # the browser's file picker offers what admission takes (a .pdf.gz ends in .gz)
        accept=",".join(EXTENSIONS + COMPRESSION_SUFFIXES),
        **listing,
    )


@router.get("/ui/documents/listing", dependencies=Authorized)
def document_listing(
    request: Request, web: WebDep, q: Text = "", state: Text = "", cursor: Cursor = None
) -> HTMLResponse:
    """The documents page's list as it is now, polled by the page while it is open."""
    return templates.TemplateResponse(request, "_listing.html", _listing(web, q, state, cursor))


@router.get("/ui/documents/rows", dependencies=Authorized)
def document_rows(
    request: Request,
    web: WebDep,
    q: Text = "",
    state: Text = "",
    cursor: Cursor = None,
    batch: Text = "",
) -> HTMLResponse:
    """The rows of a page of documents, polled by the batch page while it is open."""
    page = _documents(web, q, state, cursor, batch or None)
    return templates.TemplateResponse(
        request, "_rows.html", {"documents": page.documents, "filtered": bool(q or state)}
    )


@router.get("/batches", dependencies=Authorized)
def batches_page(request: Request, web: WebDep, cursor: Cursor = None) -> HTMLResponse:
    found = lists.batches(web.rt, at=cursor, limit=PAGE)
    return _page(
        request,
        web,
        "batches.html",
        batches=found.batches,
        older=list_url("/batches", cursor=found.next_cursor) if found.next_cursor else None,
        first="/batches" if cursor else None,
    )


def _batch(web: WebDep, batch_id: str) -> BatchInfo:
    info = web.rt.revisions.batch(batch_id)
    if info is None:
        raise ApiError(404, "unknown_batch", f"no batch {batch_id!r}")
    return info


@router.get("/batches/{batch_id}", dependencies=Authorized)
def batch_page(
    request: Request,
    web: WebDep,
    batch_id: str,
    cursor: Cursor = None,
    failed: Cursor = None,
) -> HTMLResponse:
    """A batch: its failures first, with their reasons, then its other documents; each
    list pages on its own (`failed` and `cursor`)."""
    info = _batch(web, batch_id)
    base = f"/batches/{batch_id}"
    others = ",".join(s for s in lists.STATES if s != "failed")
    failures = _documents(web, "", "failed", failed, batch_id)
    rest = _documents(web, "", others, cursor, batch_id)

    def at(**cursors: str | None) -> str:
        return list_url(base, **{"failed": failed, "cursor": cursor, **cursors})

    def rows(state: str, at: str | None) -> str:
        return list_url("/ui/documents/rows", batch=batch_id, state=state, cursor=at)

    return _page(
        request,
        web,
        "batch.html",
        info=info,
        summary=lists.batch_summary(web.rt, info),
        failures=failures,
        rest=rest,
        unreadable=[] if failed else info.unreadable,  # shown above the first failures
        failures_nav=(
            at(failed=failures.prev_cursor) if failures.prev_cursor else None,
            at(failed=failures.next_cursor) if failures.next_cursor else None,
        ),
        rest_nav=(
            at(cursor=rest.prev_cursor) if rest.prev_cursor else None,
            at(cursor=rest.next_cursor) if rest.next_cursor else None,
        ),
        failures_rows=rows("failed", failed),
        rest_rows=rows(others, cursor),
    )
