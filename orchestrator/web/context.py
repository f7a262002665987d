"""What every request works with: the runtime and the server's parts, kept on the app
(`request.app.state.web`) and handed to routes by the `web_of` dependency."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from fastapi import Request

from quire.orchestrator.web.auth import Auth
from quire.orchestrator.web.driver import Driver
from quire.orchestrator.web.pages import PageImages
from quire.orchestrator.web.reads import Reader
from quire.shared.settings import Settings
from quire.workers.runtime import Runtime


@dataclass
class Web:
    """The server's parts, built once by `create_app`."""

    rt: Runtime
    limits: Settings
    auth: Auth
    driver: Driver
    reader: Reader
    images: PageImages

    @property
    def mode(self) -> Literal["embedded", "distributed"]:
        return self.driver.dispatcher.mode


def web_of(request: Request) -> Web:
    web: Web = request.app.state.web
    return web
