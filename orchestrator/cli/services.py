"""Long-running services: Celery worker, reconciler, Flower, metrics, the web workspace."""

from __future__ import annotations

import os
import threading

import click

from quire.orchestrator.cli.app import (
    clean_errors,
    current_settings,
    err,
    main,
    require_extra,
    runtime,
)
from quire.shared.errors import NotInstalledError, SettingsError


@main.command(context_settings={"ignore_unknown_options": True})
@click.option(
    "-Q", "--queues", default="orchestrate,parse,review,write,render,analysis", show_default=True
)
@click.option("-c", "--concurrency", type=int, default=None)
@click.argument("celery_args", nargs=-1, type=click.UNPROCESSED)
@clean_errors
def worker(queues: str, concurrency: int | None, celery_args: tuple[str, ...]) -> None:
    """Run a Celery worker on the given queues (needs QUIRE_BROKER_URL)."""
    from quire.orchestrator.dispatch import check_worker

    check_worker(current_settings())
    from quire.workers.tasks import app

    argv = ["worker", "-Q", queues, "--loglevel", "INFO", *celery_args]
    if concurrency:
        argv += ["-c", str(concurrency)]
    app.worker_main(argv)


@main.command()
@click.option("--interval", type=float, default=30.0, show_default=True)
@click.option("--once", is_flag=True, help="Reconcile once and exit.")
@click.option(
    "--webhook-port",
    type=int,
    default=None,
    help="Also serve the S3 event webhook on this port (see `quire trigger`).",
)
@clean_errors
def orchestrator(interval: float, once: bool, webhook_port: int | None) -> None:
    """Run the reconciler: re-drive documents stuck past their state's deadline."""
    from quire.orchestrator.service import reconcile_forever

    if webhook_port is not None:
        from quire.orchestrator.triggers import build_service
        from quire.orchestrator.webhook import start_webhook

        rt = runtime()
        start_webhook(build_service(rt), port=webhook_port)
    reconcile_forever(runtime(), interval=interval, once=once)


@main.command(context_settings={"ignore_unknown_options": True})
@click.argument("flower_args", nargs=-1, type=click.UNPROCESSED)
@clean_errors
def flower(flower_args: tuple[str, ...]) -> None:
    """Run Flower on the same broker; it refuses to start without credentials
    (FLOWER_BASIC_AUTH=user:password, or Flower's own --basic-auth / --auth options)."""
    require_extra("ops", "flower")
    authenticated = (
        os.environ.get("FLOWER_BASIC_AUTH")
        or os.environ.get("FLOWER_AUTH")
        or any(
            a.lstrip("-").replace("-", "_").startswith(("basic_auth", "auth")) for a in flower_args
        )
    )
    if not authenticated:
        raise SettingsError(
            "Flower would serve an open UI: set FLOWER_BASIC_AUTH=user:password "
            "(or pass --basic-auth / --auth)"
        )
    from quire.workers.tasks import app

    app.start(["flower", *flower_args])


@main.command()
@click.option(
    "--serve",
    "port",
    type=int,
    default=None,
    help="Serve GET /metrics on this port instead of printing once.",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to serve on; 0.0.0.0 exposes the metrics to the network.",
)
def metrics(port: int | None, host: str) -> None:
    """Queue depths, documents per state, per-stage latency and failures (Prometheus)."""
    from quire.orchestrator.metrics import Collector, registry, render, serve

    reg = registry(Collector(runtime()))
    if port is None:
        click.echo(render(reg), nl=False)
        return
    err.print(f"metrics on http://{host}:{serve(reg, host, port)}/metrics", highlight=False)
    threading.Event().wait()  # the server runs in its own thread until we are stopped


# --- the web workspace and HTTP API (orchestrator/web/) ------------------------------------------

WEB_MODULES = ("fastapi", "starlette", "uvicorn", "h11", "jinja2", "multipart", "markdown_it")


@main.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to serve on; any other than loopback needs QUIRE_API_TOKEN.",
)
@click.option("--port", type=int, default=8000, show_default=True)
@click.option(
    "--processes",
    type=int,
    default=None,
    help="Embedded mode: worker processes per document [CPUs, at least 2].",
)
@clean_errors
def serve(host: str, port: int, processes: int | None) -> None:
    """The web workspace and the HTTP API (/v1) over the same store, revision store and
    dispatcher as the other commands, embedded or distributed."""
    try:
        from quire.orchestrator.web import create_app
        from quire.orchestrator.web.auth import check_bind
        from quire.orchestrator.web.server import serve_http
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in WEB_MODULES:
            raise
        raise NotInstalledError(
            "the web workspace needs the web extra: pip install 'quire[web]'"
        ) from exc
    settings = current_settings()
    secret = settings.api_token
    token = secret.get_secret_value() if secret else None
    check_bind(host, token)
    app = create_app(runtime(), processes=processes)
    where = f"[{host}]" if ":" in host else host
    err.print(
        f"Quire workspace on http://{where}:{port}/ ({app.state.web.mode}; "
        f"{'token required' if token else 'no token: this machine only'})",
        highlight=False,
        markup=False,
    )
    serve_http(app, host, port, settings)
