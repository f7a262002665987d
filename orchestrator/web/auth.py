"""Who may use the server: everyone on a loopback-only server without a token; with
`QUIRE_API_TOKEN` set, only requests that carry it — as `Authorization: Bearer <token>`
(API clients) or as the cookie the sign-in page sets (people in a browser).

The cookie holds an HMAC of the token, not the token; it is HttpOnly and SameSite=Strict, so
another site can neither read it nor make the browser send it with a forged upload.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

from fastapi import Request

from quire.orchestrator.web.errors import ApiError
from quire.shared.errors import SettingsError

COOKIE = "quire_session"
MIN_TOKEN_CHARS = 16


def is_loopback(host: str) -> bool:
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve an open API beyond this machine, or behind a guessable token."""
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise SettingsError(
            f"QUIRE_API_TOKEN is too short: use at least {MIN_TOKEN_CHARS} "
            "random characters (e.g. `openssl rand -hex 24`)"
        )
    if token is None and not is_loopback(host):
        raise SettingsError(
            f"refusing to serve on {host} without QUIRE_API_TOKEN: anyone who "
            "can reach it could submit and read documents; set the token or "
            "serve on 127.0.0.1"
        )


class Auth:
    def __init__(self, token: str | None) -> None:
        self.token = token

    @property
    def required(self) -> bool:
        return self.token is not None

    def cookie_value(self) -> str:
        assert self.token is not None
        return hmac.new(self.token.encode(), b"quire web session", hashlib.sha256).hexdigest()

    def token_matches(self, given: str) -> bool:
        return self.token is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def allowed(self, request: Request) -> bool:
        if self.token is None:
            return True
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and given:
            return self.token_matches(given.strip())
        cookie = request.cookies.get(COOKIE)
        return cookie is not None and hmac.compare_digest(cookie, self.cookie_value())


def require_auth(request: Request) -> None:
    """The dependency every protected route has."""
    auth: Auth = request.app.state.web.auth
    if not auth.allowed(request):
        raise ApiError(
            401,
            "unauthorized",
            "this server needs its API token: send `Authorization: Bearer <token>` "
            "(QUIRE_API_TOKEN), or sign in on the web page",
            headers={"WWW-Authenticate": "Bearer"},
        )
