"""The request-body limit (`QUIRE_MAX_UPLOAD_BYTES`), enforced before a body is read.

FastAPI parses a multipart body before any route code runs, so the limit sits below it, as
ASGI middleware: a declared `Content-Length` over the limit is refused at once, and a body
sent without one (chunked) is counted as it arrives and refused when it passes the limit.
"""

from __future__ import annotations

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def refusal(limit: int) -> str:
    return f"request body over the upload limit of {limit} bytes (QUIRE_MAX_UPLOAD_BYTES)"


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            msg = await receive()
            seen += len(msg.get("body", b""))
            if seen > self.max_bytes:  # FastAPI passes an HTTPException through body parsing
                raise HTTPException(413, refusal(self.max_bytes))
            return msg

        await self.app(scope, counted, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        from starlette.requests import Request

        from quire.orchestrator.web.errors import error_response

        response = error_response(Request(scope), 413, "too_large", refusal(self.max_bytes))
        response.headers["Connection"] = "close"  # the unread body must not be parsed as a request
        await response(scope, receive, send)
