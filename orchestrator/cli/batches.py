"""Many documents: batches and the S3 triggers (logic in orchestrator/batch.py,
triggers.py)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from quire.orchestrator.cli.app import F, clean_errors, current_settings, err, main, out, runtime
from quire.orchestrator.cli.options import (
    check_ocr,
    chosen,
    limit_options,
    password_file_option,
    password_map_option,
    settings_options,
)
from quire.shared.errors import QuireError, SettingsError

if TYPE_CHECKING:
    from quire.orchestrator.triggers import TriggerService


@main.command()
@click.argument("sources", nargs=-1, required=True)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Export each document's output folder under DIR.",
)
@click.option("--detach", is_flag=True, help="Print the batch id and return at once.")
@click.option(
    "--report",
    "report_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Where batch-report.json goes [DIR, else working folder].",
)
@click.option(
    "--rerun",
    is_flag=True,
    help="Restart documents that failed, ran with other settings or another Quire version.",
)
@settings_options
@limit_options
@click.option(
    "--processes",
    type=int,
    default=None,
    help="Embedded mode: local worker processes (default: CPU count).",
)
@password_file_option
@password_map_option
@clean_errors
def batch(
    sources: tuple[str, ...],
    out_dir: Path | None,
    detach: bool,
    report_path: Path | None,
    rerun: bool,
    max_file_bytes: int,
    max_doc_pages: int,
    processes: int | None,
    password_file: Path | None,
    password_map: Path | None,
    **choices: object,  # the run choices (settings_options): chosen() reads them
) -> None:
    """Process many documents: files, folders, globs or s3://bucket/prefix.

    Exit 0 only when every document completed with verification passed; a failing
    document never stops the others."""
    from quire.orchestrator import batch as batches
    from quire.orchestrator import batch_run
    from quire.orchestrator.passwords import Passwords
    from quire.orchestrator.sources import expand_sources, skipped_lines
    from quire.workers.llm import check_installed

    env = current_settings()
    settings = chosen().settings(
        max_file_bytes=max_file_bytes, max_doc_pages=max_doc_pages, env=env
    )
    check_ocr(settings)
    passwords = Passwords.load(password_file, password_map, settings=env)
    check_installed(settings.backend)
    rt = runtime()
    own = [str(env.state_dir), env.store_url.removeprefix("file://")]  # Quire's own files
    own += [str(out_dir)] if out_dir else []
    items, skipped = expand_sources(sources, s3_endpoint_url=env.s3_endpoint_url, exclude=own)
    if not items:
        raise QuireError("no documents found in " + " ".join(sources))
    for line in skipped_lines(skipped):
        err.print(line, highlight=False)
    err.print(f"submitting {len(items)} documents...", highlight=False)
    record = batches.create_batch(
        rt, items, settings, out_dir=out_dir, skipped=skipped, rerun=rerun, passwords=passwords
    )
    if detach:
        where = batch_run.start_detached(rt, record, processes=processes)
        err.print(
            f"batch {record.batch_id} runs in {where}; follow it with "
            f"`quire status {record.batch_id}`",
            highlight=False,
        )
        click.echo(record.batch_id)
        return
    sys.exit(
        batch_run.finish_batch(
            rt, record, processes=processes, report_path=report_path, out=out, err=err
        )
    )


@main.command("batch-resume", hidden=True)
@click.argument("batch_id")
@click.option("--processes", type=int, default=None)
@click.option("--report", "report_path", type=click.Path(path_type=Path), default=None)
@click.option("--quiet", is_flag=True, help="No live display (background runs).")
@clean_errors
def batch_resume(
    batch_id: str, processes: int | None, report_path: Path | None, quiet: bool
) -> None:
    """Run or follow an existing batch to its end (used by `batch --detach`)."""
    from quire.orchestrator import batch as batches
    from quire.orchestrator import batch_run

    rt = runtime()
    found = batches.find_batch(rt, batch_id)
    if found is None:
        raise QuireError(f"no batch {batch_id!r}")
    record = batches.load_batch(rt, found)
    sys.exit(
        batch_run.finish_batch(
            rt,
            record,
            processes=processes,
            report_path=report_path,
            live=not quiet,
            out=out,
            err=err,
        )
    )


@main.group()
def trigger() -> None:
    """Turn uploads to a bucket into documents (S3 event notifications).

    Configuration: QUIRE_TRIGGER_BUCKET, QUIRE_TRIGGER_PREFIX (inbox/),
    QUIRE_TRIGGER_OUTPUT_PREFIX (outbox/), QUIRE_WEBHOOK_TOKEN; flags override."""


def trigger_options(fn: F) -> F:
    for opt in reversed(
        [
            click.option("--bucket", default=None, help="Only this bucket [any]."),
            click.option("--prefix", default=None, help="Watched key prefix [inbox/]."),
            click.option("--output-prefix", default=None, help="Where results go [outbox/]."),
            click.option(
                "--processes",
                type=int,
                default=1,
                show_default=True,
                help="Embedded mode: local worker processes.",
            ),
            password_map_option,
        ]
    ):
        fn = opt(fn)
    return fn


def _trigger_service(options: dict[str, Any]) -> TriggerService:
    """The trigger service that the `trigger_options` given describe."""
    from quire.orchestrator.triggers import build_service

    return build_service(runtime(), **options)


@trigger.command("webhook")
@trigger_options
@click.option("--host", default="0.0.0.0", show_default=True)
@click.option("--port", type=int, default=8080, show_default=True)
@clean_errors
def trigger_webhook(host: str, port: int, **options: Any) -> None:
    """Serve POST /events for S3/MinIO webhook notifications (Bearer QUIRE_WEBHOOK_TOKEN)."""
    from quire.orchestrator.webhook import start_webhook, stop_webhook

    server, stop = start_webhook(_trigger_service(options), host=host, port=port)
    err.print(f"webhook on {server.url}/events", highlight=False)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        stop_webhook(server, stop)


@trigger.command("sqs")
@trigger_options
@click.option(
    "--queue-url", default=None, help="[env QUIRE_SQS_QUEUE_URL; endpoint QUIRE_SQS_ENDPOINT_URL]"
)
@click.option("--once", is_flag=True, help="One long poll, then exit.")
@clean_errors
def trigger_sqs(queue_url: str | None, once: bool, **options: Any) -> None:
    """Long-poll an SQS queue that receives the bucket's event notifications."""
    from quire.orchestrator.sqs_poller import SqsPoller

    queue_url = queue_url or current_settings().sqs_queue_url
    if not queue_url:
        raise SettingsError("no SQS queue: pass --queue-url or set QUIRE_SQS_QUEUE_URL")
    poller = SqsPoller(_trigger_service(options), queue_url)
    if once:
        poller.poll_once()
    else:
        poller.run_forever()
