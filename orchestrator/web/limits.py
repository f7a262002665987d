"""The request-body limits, enforced before a body is read: its size
(`QUIRE_MAX_UPLOAD_BYTES`) and how long it may stall (`QUIRE_REQUEST_BODY_TIMEOUT`).

FastAPI parses a multipart body before any route code runs, so the limits sit below it, as
ASGI middleware: a declared `Content-Length` over the limit is refused at once, and a body
sent without one (chunked) is counted as it arrives and refused when it passes the limit. A
client that stops sending in the middle of a body is answered 408 and the connection closed,
instead of holding a worker thread while the form parser waits.
"""

from __future__ import annotations

import asyncio

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def refusal(limit: int) -> str:
    return f"request body over the upload limit of {limit} bytes (QUIRE_MAX_UPLOAD_BYTES)"


def stalled(seconds: float) -> str:
    return f"the request body stalled for {seconds:g} seconds (QUIRE_REQUEST_BODY_TIMEOUT)"


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int, stall_timeout: float = 30.0) -> None:
        self.app, self.max_bytes, self.stall_timeout = app, max_bytes, stall_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(scope, receive, send)
            return
        seen = 0
        ended = False  # the whole body arrived: later receives only wait for a disconnect

        async def counted() -> Message:
            nonlocal seen, ended
            if ended:
                return await receive()
            try:
                msg = await asyncio.wait_for(receive(), self.stall_timeout)
            except TimeoutError:  # FastAPI passes an HTTPException through body parsing
                raise HTTPException(
                    408, stalled(self.stall_timeout), headers={"Connection": "close"}
                ) from None
            seen += len(msg.get("body", b""))
            ended = msg["type"] != "http.request" or not msg.get("more_body", False)
            if seen > self.max_bytes:
                raise HTTPException(413, refusal(self.max_bytes))
            return msg

        await self.app(scope, counted, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        from starlette.requests import Request

        from quire.orchestrator.web.errors import ApiError, error_response

        too_large = ApiError(413, "too_large", refusal(self.max_bytes))
        response = error_response(Request(scope), too_large)
        response.headers["Connection"] = "close"  # the unread body must not be parsed as a request
        await response(scope, receive, send)
