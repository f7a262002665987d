"""`quire serve`'s HTTP server: uvicorn on its h11 protocol, with a deadline for headers.

uvicorn closes a keep-alive connection that stays idle after a response, but waits without
end for a request whose headers never finish (or never start): each such client holds a
socket and a slot for good. Here a connection has `QUIRE_REQUEST_HEADER_TIMEOUT` seconds,
from its opening or from the end of its previous response, to finish a request's headers;
then it is answered 408 and closed. A body that stalls is the ASGI layer's (`limits`).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from quire.shared.settings import Settings

# keep-alive connections idle after a response close sooner than a header deadline
KEEP_ALIVE = 5


def _timeout_response(seconds: float) -> bytes:
    body = json.dumps(
        {
            "error": {
                "code": "request_timeout",
                "message": f"the request's headers did not arrive within {seconds:g} seconds",
            }
        }
    ).encode()
    head = (
        "HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class HeaderDeadline(H11Protocol):
    """uvicorn's h11 protocol; a connection owes each request's headers within
    `header_timeout` seconds."""

    header_timeout = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the headers are in
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is h11.IDLE:  # waiting for the next request
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.header_timeout, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.cycle is None or self.cycle.response_complete:  # no response under way
            self.transport.write(_timeout_response(self.header_timeout))
        self.transport.close()


def serve_http(app: Any, host: str, port: int, settings: Settings) -> None:
    """Run the app until stopped (Ctrl-C, SIGTERM)."""
    protocol = type(
        "QuireHttp", (HeaderDeadline,), {"header_timeout": settings.request_header_timeout}
    )
    uvicorn.run(
        app,
        host=host,
        port=port,
        http=protocol,
        timeout_keep_alive=max(1, min(KEEP_ALIVE, int(settings.request_header_timeout))),
        log_level="warning",
    )
