"""The application factory: one FastAPI app over the runtime the CLI uses (store, revision
store, dispatcher — embedded or distributed, as the environment says)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.staticfiles import StaticFiles

from quire.orchestrator.dispatch import dispatcher_for
from quire.orchestrator.web.auth import Auth, require_auth
from quire.orchestrator.web.context import Web
from quire.orchestrator.web.driver import Driver
from quire.orchestrator.web.errors import install
from quire.orchestrator.web.limits import BodyLimit
from quire.orchestrator.web.models import Health
from quire.orchestrator.web.pages import PageImages
from quire.orchestrator.web.reads import Reader
from quire.shared.version import package_version
from quire.workers.runtime import Runtime

STATIC = Path(__file__).parent / "static"
# Book text is shown on these pages: only this server's own scripts, styles and images run
# or load, whatever a document holds (its Markdown is escaped as well, see markdown.py).
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self'; style-src 'self' "
    "'unsafe-inline'; script-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def create_app(rt: Runtime, *, processes: int | None = None) -> FastAPI:
    """The workspace and API. The token (`QUIRE_API_TOKEN`) and limits come from the
    settings the runtime was built from (`rt.env`); `processes`: embedded worker processes
    per document driven (default: CPUs; at least 2, so that parts always run in worker
    processes, never in the server's)."""
    from quire.orchestrator.web.routes import batches, documents, library, ui

    version = package_version()
    limits = rt.env
    workers = max(2, processes or os.cpu_count() or 2)  # 1 would run parts in this process
    driver = Driver(dispatcher_for(rt, processes=workers))
    token = limits.api_token.get_secret_value() if limits.api_token else None
    web = Web(
        rt=rt,
        limits=limits,
        auth=Auth(token),
        driver=driver,
        reader=Reader(rt),
        images=PageImages(rt),
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        driver.start()
        yield
        web.images.close()

    app = FastAPI(
        title="Quire",
        version=version,
        lifespan=lifespan,
        summary="Cut long textbooks into verified study sessions.",
        openapi_url="/v1/openapi.json",
        docs_url=None,
        redoc_url=None,
    )  # their pages load scripts from a CDN
    app.state.web = web
    app.add_middleware(
        BodyLimit, max_bytes=limits.upload_limit, stall_timeout=limits.request_body_timeout
    )

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Any:
        response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    install(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/v1/health", tags=["meta"])
    def health() -> Health:
        """Whether the server is up, and how it runs documents (no token needed)."""
        return Health(mode=web.mode, version=version)

    protected = [Depends(require_auth)]
    app.include_router(documents.router, prefix="/v1", dependencies=protected)
    app.include_router(batches.router, prefix="/v1", dependencies=protected)
    app.include_router(library.router)
    app.include_router(ui.router)
    return app
