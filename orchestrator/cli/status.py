"""What the store holds and how Quire is set up: status, config."""

from __future__ import annotations

import time
from typing import Any

import click
from rich.table import Table

from quire.orchestrator.cli.app import (
    clean_errors,
    current_settings,
    emit,
    flagged,
    main,
    out,
    runtime,
)
from quire.orchestrator.service import resolve_doc


@main.command()
@click.argument("ident", required=False)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@clean_errors
def status(ident: str | None, as_json: bool) -> None:
    """Show every document, one document's state and revision history (by id, id prefix or
    source file name), or a batch's progress (`quire status batch-...`)."""
    from quire.orchestrator.batch import find_batch
    from quire.orchestrator.batch_run import show_status, status_json

    rt = runtime()
    batch_id = find_batch(rt, ident) if ident else None
    if batch_id is not None:
        if as_json:
            click.echo(status_json(rt, batch_id))
        else:
            show_status(rt, batch_id, out)
        return
    if ident is None:
        sessions = [rt.repo.load(d) for d in rt.revisions.list_docs()]
        if as_json:
            emit([_doc_summary(rt, s) for s in sessions])
            return
        table = Table("document", "source", "state", "rev", "error")
        for s in sessions:
            table.add_row(
                s.doc_id[:16], s.source_name, _state(rt, s), str(s.revision), s.error or ""
            )
        out.print(table)
        return
    history = rt.repo.history(resolve_doc(rt, ident))
    cur = history[-1]
    if as_json:
        emit(
            _doc_summary(rt, cur)
            | {
                "history": [
                    {
                        "revision": s.revision,
                        "committed_at": s.committed_at,
                        "state": s.state,
                        "actor": s.actor,
                        "why": s.why,
                    }
                    for s in history
                ]
            }
        )
        return
    state = _state(rt, cur, explain=True)
    error = f" ({cur.error_code}: {cur.error})" if cur.error else ""
    out.print(
        flagged(cur.source_name, f"{cur.doc_id}\nstate: {state}{error}", "bold"), highlight=False
    )
    table = Table("rev", "when (UTC)", "state", "who", "why")
    for s in history:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(s.committed_at))
        table.add_row(str(s.revision), when, s.state, s.actor, s.why)
    out.print(table)


def _state(rt: Any, s: Any, *, explain: bool = False) -> str:
    """The state as people read it: a working state that no run drives says so."""
    from quire.orchestrator.dispatch import dispatcher_for

    if not dispatcher_for(rt).abandoned(s):
        return str(s.state)
    if explain:
        return (
            f"{s.state}, abandoned: its run stopped; the next `quire run`, `batch` or "
            "`serve` on this store resumes it"
        )
    return f"{s.state} (abandoned)"


def _doc_summary(rt: Any, s: Any) -> dict[str, Any]:
    from quire.orchestrator.dispatch import dispatcher_for

    return {
        "doc_id": s.doc_id,
        "source_name": s.source_name,
        "state": s.state,
        "abandoned": dispatcher_for(rt).abandoned(s),
        "revision": s.revision,
        "page_count": s.page_count,
        "error_code": s.error_code,
        "error": s.error,
    }


@main.command("config")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def config_cmd(as_json: bool) -> None:
    """The effective settings (QUIRE_* variables and defaults), secrets redacted."""
    from quire.shared.settings import env_name

    settings = current_settings()
    values = settings.model_dump(mode="json")  # SecretStr values come out as '**********'
    rows = [
        (env_name(f), values[f], "environment" if f in settings.model_fields_set else "default")
        for f in type(settings).model_fields
    ]
    if as_json:
        emit({name: value for name, value, _ in rows})
        return
    table = Table("setting", "value", "from")
    for name, value, source in rows:
        table.add_row(name, "" if value is None else str(value), source)
    out.print(table)
