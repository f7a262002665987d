"""The web workspace: a document's page and a session's page, rendered on the server from
the same reads as the API; plus sign-in when the server has a token. The list pages
(documents, batches) are in `library.py`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from quire.orchestrator.web.auth import COOKIE, require_auth
from quire.orchestrator.web.context import Web, web_of
from quire.orchestrator.web.errors import ApiError
from quire.orchestrator.web.markdown import ElementHtml, Rewrite, session_html, to_html
from quire.orchestrator.web.models import PlanOut
from quire.orchestrator.web.reads import Outputs
from quire.orchestrator.web.render import templates
from quire.orchestrator.web.session_view import session_confidence, vote_summary, why_sentence
from quire.orchestrator.web.views import cell_width, page_strip, place_findings
from quire.shared.analysis import INDEX_FILES
from quire.shared.job import Job
from quire.shared.layout import Layout
from quire.shared.states import STOPPED

router = APIRouter(include_in_schema=False)
WebDep = Annotated[Web, Depends(web_of)]
Authorized = [Depends(require_auth)]
T = TypeVar("T")
KEY_TERMS_SHOWN = 8  # on a session's page before "N more"


def _page(request: Request, web: Web, name: str, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(
        request, name, {"mode": web.mode, "signed_in": web.auth.required, **context}
    )


def _doc_page(request: Request, web: Web, name: str, s: Job, **context: Any) -> HTMLResponse:
    """A page about one document: its summary and job head every such page."""
    return _page(request, web, name, doc=web.reader.summary(s), session=s, **context)


def _links(doc_id: str, plan: PlanOut | None) -> tuple[Rewrite, Rewrite]:
    """How links and images in a document's Markdown reach this server."""
    sessions = {s.markdown_file: s.number for s in plan.sessions} if plan else {}
    anchors = {name: f"#{key}" for key, name in INDEX_FILES.items()}

    def image(src: str) -> str | None:
        if src.startswith(Layout.IMAGES):
            return f"/v1/documents/{doc_id}/images/{src[len('images/') :]}"
        return None  # nothing is loaded from anywhere else

    def link(href: str) -> str | None:
        file, hash_, anchor = href.partition("#")  # a cross-reference names an anchor
        if file in sessions:
            return f"/documents/{doc_id}/sessions/{sessions[file]}{hash_}{anchor}"
        return anchors.get(href)

    return image, link


def _optional(read: Callable[[], T]) -> T | None:
    """An output the document may not have written yet: None until it has."""
    try:
        return read()
    except ApiError as exc:
        if exc.code == "not_ready":
            return None
        raise


@router.get("/documents/{doc}", dependencies=Authorized)
def document_page(request: Request, web: WebDep, doc: str) -> HTMLResponse:
    s = web.reader.job(doc)
    out = web.reader.outputs(s)
    plan = _optional(lambda: out.plan_out)
    pages = _optional(lambda: out.pages)
    image, link = _links(s.doc_id, plan)
    cell = cell_width(pages.page_count if pages else 1)
    indexes = out.derived(
        "indexes",
        lambda: {
            key: to_html(text.decode("utf-8"), image=image, link=link, shift=2)
            for key, name in INDEX_FILES.items()
            if (text := out.raw(name)) is not None
        },
    )
    return _doc_page(
        request,
        web,
        "document.html",
        s,
        plan=plan,
        pages=pages,
        report=out.verification,
        indexes=indexes,
        strip=page_strip(plan, pages, out.verification) if pages else [],
        cell=cell,
        labels=cell >= 8,
        running=s.state not in STOPPED,
    )


@router.get("/documents/{doc}/sessions/{number}", dependencies=Authorized)
def session_page(request: Request, web: WebDep, doc: str, number: int) -> HTMLResponse:
    s = web.reader.job(doc)
    out: Outputs = web.reader.outputs(s)
    detail = out.session_detail(number)
    image, link = _links(s.doc_id, out.plan_out)

    def render() -> list[ElementHtml]:
        text = out.raw(detail.markdown_file) if detail.markdown_file else None
        return session_html(text.decode("utf-8"), image=image, link=link) if text else []

    elements = out.derived(f"session-{number}", render)
    here = {e.element_id for e in elements}
    base = f"/documents/{s.doc_id}/sessions/"

    def evidence(ids: list[str], other: int | None) -> list[tuple[str, str | None]]:
        """Evidence ids with where to read them: here, or in the neighbouring session."""
        return [(i, f"#{i}" if i in here else f"{base}{other}#{i}" if other else None) for i in ids]

    pages = (
        list(range(detail.page_first, detail.page_last + 1)) if s.source_format == "pdf" else []
    )  # a DOCX has no page images
    return _doc_page(
        request,
        web,
        "session.html",
        s,
        detail=detail,
        total=len(out.plan_out.sessions),
        elements=elements,
        settings=out.plan_out.settings,
        evidence=evidence,
        page_numbers=pages,
        findings=place_findings(detail.verification_findings, here, set(pages)),
        why=why_sentence(detail),
        confidence=session_confidence(detail),
        vote_summary=vote_summary,
        key_terms_shown=KEY_TERMS_SHOWN,
    )


@router.get("/login")
def login_page(request: Request, next: str = "/") -> HTMLResponse:
    return templates.TemplateResponse(request, "login.html", {"next": next, "message": ""})


def _safe_next(target: str) -> str:
    """Only a path on this server: never an open redirect to another site."""
    return target if target.startswith("/") and not target.startswith("//") else "/"


@router.post("/login")
def login(
    request: Request, web: WebDep, token: Annotated[str, Form()], next: Annotated[str, Form()] = "/"
) -> Response:
    if not web.auth.required:
        return RedirectResponse(_safe_next(next), status_code=303)
    if not web.auth.token_matches(token):
        return templates.TemplateResponse(
            request,
            "login.html",
            {"next": next, "message": "That is not this server's token."},
            status_code=401,
        )
    response = RedirectResponse(_safe_next(next), status_code=303)
    response.set_cookie(
        COOKIE,
        web.auth.cookie_value(),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@router.post("/logout")
def logout() -> Response:
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE)
    return response
