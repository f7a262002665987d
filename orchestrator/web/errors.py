"""Errors as the API shows them: `{"error": {"code": ..., "message": ...}}` with a fitting
status, for every failure — ours, the framework's (404, 405, validation) and bugs. Pages
(anything outside `/v1`) get the same code and message as an HTML page."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from quire.orchestrator.web.models import ErrorBody, ErrorOut
from quire.orchestrator.web.redact import hide_paths, server_roots
from quire.shared import errors as qe
from quire.shared.store import NotFound

log = logging.getLogger("quire.web")


class ApiError(Exception):
    """A refusal with its HTTP status, stable code and a message for people."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        doc_id: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.doc_id, self.headers = doc_id, headers


# QuireError codes -> HTTP status; an InputError not listed is 422 (the document is unusable)
_STATUS: dict[type[qe.QuireError], int] = {
    qe.UnknownDocumentError: 404,
    qe.TooLargeError: 413,
    qe.ConflictError: 409,
    qe.NotCompleteError: 409,
    qe.SettingsError: 400,
    qe.NotInstalledError: 400,
    qe.ValidationFailedError: 422,
    qe.InputError: 422,
    qe.TransientError: 503,
}

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    411: "length_required",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
}


def status_of(exc: qe.QuireError) -> int:
    for kind in type(exc).__mro__:
        if kind in _STATUS:
            return _STATUS[kind]
    return 400


def error_response(request: Request, refusal: ApiError) -> Response:
    """The refusal as the error body (API) or an error page (a person's browser)."""
    status, code, headers = refusal.status, refusal.code, refusal.headers
    web = getattr(request.app.state, "web", None) if "app" in request.scope else None
    message = hide_paths(refusal.message, server_roots(web.rt if web is not None else None))
    if request.url.path.startswith("/v1") or "text/html" not in request.headers.get("accept", ""):
        body = ErrorOut(error=ErrorBody(code=code, message=message, doc_id=refusal.doc_id))
        return JSONResponse(
            body.model_dump(mode="json", exclude_none=True), status, headers=headers
        )
    from quire.orchestrator.web.render import templates

    if status == 401:  # a person without the cookie: the sign-in page
        return templates.TemplateResponse(
            request, "login.html", {"next": request.url.path, "message": message}, status_code=401
        )
    return templates.TemplateResponse(
        request,
        "error.html",
        {"status": status, "code": code, "message": message},
        status_code=status,
        headers=headers,
    )


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for e in exc.errors()[:5]:
        where = ".".join(str(p) for p in e.get("loc", ()) if p not in ("body", "query", "path"))
        parts.append(f"{where}: {e.get('msg', 'invalid')}" if where else e.get("msg", "invalid"))
    return "; ".join(parts) or "invalid request"


def install(app: FastAPI) -> None:
    """Register the handlers that turn every exception into the error body."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> Response:
        return error_response(request, exc)

    @app.exception_handler(qe.QuireError)
    async def quire_error(request: Request, exc: qe.QuireError) -> Response:
        return error_response(request, ApiError(status_of(exc), exc.code, str(exc)))

    @app.exception_handler(NotFound)
    async def not_found(request: Request, exc: NotFound) -> Response:
        return error_response(request, ApiError(404, "not_found", "not found"))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        code = _HTTP_CODES.get(exc.status_code, f"http_{exc.status_code}")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        headers = getattr(exc, "headers", None)
        return error_response(request, ApiError(exc.status_code, code, message, headers=headers))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        return error_response(request, ApiError(422, "invalid_request", _validation_message(exc)))

    @app.exception_handler(Exception)
    async def bug(request: Request, exc: Exception) -> Response:
        log.exception("%s %s failed", request.method, request.url.path)
        why = f"internal error ({type(exc).__name__}); see the server log"
        return error_response(request, ApiError(500, "internal", why))
