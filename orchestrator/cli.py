"""The `quire` command line: a thin layer over the same functions the workers call."""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.table import Table

from shared.config import RunSettings
from shared.errors import QuireError
from shared.plan import PlanSettings

err = Console(stderr=True, soft_wrap=True)
out = Console()
F = TypeVar("F", bound=Callable[..., Any])


def clean_errors(fn: F) -> F:
    """Bad input and refused decisions print one clear line and exit non-zero."""
    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except QuireError as exc:
            err.print(f"[red]quire: error ({exc.code}):[/red] {exc}", highlight=False)
            sys.exit(2)
    return wrapper  # type: ignore[return-value]


@click.group()
@click.option("-v", "--verbose", is_flag=True, help="Log progress to stderr.")
def main(verbose: bool) -> None:
    """Quire: cut long textbooks into verified study-sized sessions."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")


def run_settings(output_format: str, backend: str | None, min_pages: float, max_pages: float,
                 overlap_pages: int) -> RunSettings:
    return RunSettings(
        output_format=output_format,
        backend=backend or os.environ.get("QUIRE_REVIEW_BACKEND") or "heuristic",
        plan=PlanSettings(min_pages=min_pages, max_pages=max_pages,
                          soft_max_pages=max_pages + 1,
                          hard_max_pages=max(20, max_pages + 8)),
        overlap_pages=overlap_pages,
    )


def settings_options(fn: F) -> F:
    for opt in reversed([
        click.option("--output-format", type=click.Choice(["markdown", "pdf", "both"]),
                     default="markdown", show_default=True),
        click.option("--backend", type=click.Choice(["heuristic", "command", "openai",
                                                     "anthropic"]), default=None,
                     help="Review/decision backend [env QUIRE_REVIEW_BACKEND; heuristic]."),
        click.option("--min-pages", type=float, default=5, show_default=True),
        click.option("--max-pages", type=float, default=12, show_default=True),
        click.option("--overlap-pages", type=int, default=1, show_default=True),
    ]):
        fn = opt(fn)
    return fn


@main.command()
@click.option("--input", "input_path", type=click.Path(path_type=Path, exists=True,
                                                       dir_okay=False), required=True)
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True)
@settings_options
@click.option("--processes", type=int, default=None,
              help="Embedded mode: local worker processes (default: CPU count).")
@click.option("--decider", type=click.Choice(["backend", "agent"]), default="backend",
              show_default=True, help="agent: pause for boundary-context / commit-boundary.")
@clean_errors
def run(input_path: Path, out_dir: Path, output_format: str, backend: str | None,
        min_pages: float, max_pages: float, overlap_pages: int, processes: int | None,
        decider: str) -> None:
    """Process one document end to end; exit 0 only when verification passed (3 when it
    waits for an external agent's boundary decisions)."""
    from orchestrator.service import export_document, finished_ok, process_documents
    from workers.execute import submit
    from workers.runtime import Runtime

    rt = Runtime.from_env()
    settings = run_settings(output_format, backend, min_pages, max_pages, overlap_pages)
    settings.decider = decider  # type: ignore[assignment]
    session = submit(rt, input_path, settings, rerun=True)
    process_documents(rt, [session.doc_id], processes=processes, console=err)
    session = rt.repo.load(session.doc_id)
    if session.state == "awaiting_decision":
        err.print(f"{input_path.name}: waiting for boundary decisions; run "
                  f"`quire boundary-context {session.doc_id[:16]}`", highlight=False)
        sys.exit(3)
    if session.state == "failed":
        err.print(f"[red]quire: {input_path.name} failed ({session.error_code}):[/red] "
                  f"{session.error}", highlight=False)
        sys.exit(1)
    export_document(rt, session.doc_id, out_dir)
    ok, summary = finished_ok(rt, session.doc_id)
    err.print(summary, highlight=False)
    sys.exit(0 if ok else 1)


@main.command()
@click.option("--input", "input_path", type=click.Path(path_type=Path, exists=True,
                                                       dir_okay=False), required=True)
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True)
@clean_errors
def parse(input_path: Path, out_dir: Path) -> None:
    """Parse one document and write DIR/ir.json (and DIR/images/)."""
    from shared.ir import dump_ir
    from workers.parse import parse_document

    parsed = parse_document(input_path)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in parsed.images.items():
        (out_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (out_dir / name).write_bytes(data)
    (out_dir / "ir.json").write_bytes(dump_ir(parsed.document))
    doc = parsed.document
    err.print(f"{input_path.name}: {len(doc.elements)} elements, {doc.page_count} pages, "
              f"{len(doc.skipped_pages)} skipped -> {out_dir / 'ir.json'}", highlight=False)


@main.command()
@click.option("--out", "out_dir", type=click.Path(path_type=Path, exists=True,
                                                  file_okay=False), required=True)
@click.option("--source", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              default=None, help="Source PDF for render-compare (default: looked up).")
@clean_errors
def verify(out_dir: Path, source: Path | None) -> None:
    """Re-run every check on an output folder; non-zero exit on failure."""
    from orchestrator.service import verify_folder

    report = verify_folder(out_dir, source)
    for f in report.findings[:50]:
        err.print(f"[red]{f.kind}[/red] chunk={f.chunk} {f.element_id or ''}"
                  f"{f.page or ''}: {f.message}", highlight=False)
    err.print(f"verification {'passed' if report.passed else 'FAILED'}: "
              f"{len(report.findings)} findings", highlight=False)
    sys.exit(0 if report.passed else 1)


@main.command()
@click.argument("ident", required=False)
@clean_errors
def status(ident: str | None) -> None:
    """Show every document, or one document's state and revision history."""
    from workers.runtime import Runtime

    rt = Runtime.from_env()
    if ident is None:
        table = Table("document", "source", "state", "rev", "error")
        for doc_id in rt.revisions.list_docs():
            s = rt.repo.load(doc_id)
            table.add_row(doc_id[:16], s.source_name, s.state, str(s.revision), s.error or "")
        out.print(table)
        return
    doc_id = resolve_doc(rt.revisions.list_docs(), ident)
    history = rt.repo.history(doc_id)
    cur = history[-1]
    out.print(f"[bold]{cur.source_name}[/bold] {doc_id}\nstate: {cur.state}"
              + (f" ({cur.error_code}: {cur.error})" if cur.error else ""), highlight=False)
    table = Table("rev", "when (UTC)", "state", "who", "why")
    for s in history:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(s.committed_at))
        table.add_row(str(s.revision), when, s.state, s.actor, s.why)
    out.print(table)


def resolve_doc(doc_ids: list[str], ident: str) -> str:
    matches = [d for d in doc_ids if d.startswith(ident)]
    if len(matches) != 1:
        raise QuireError(f"{'no' if not matches else 'ambiguous'} document matching {ident!r}")
    return matches[0]


@main.command()
@click.argument("ident")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True)
@clean_errors
def export(ident: str, out_dir: Path) -> None:
    """Copy a document's output folder out of the store."""
    from orchestrator.service import export_document
    from workers.runtime import Runtime

    rt = Runtime.from_env()
    export_document(rt, resolve_doc(rt.revisions.list_docs(), ident), out_dir)


# --- the agent loop (JSON on stdout) -------------------------------------------------------

def _emit(data: Any) -> None:
    import json

    from pydantic import BaseModel

    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json")
    click.echo(json.dumps(data, ensure_ascii=False, indent=1))


def _agent_rt() -> tuple[Any, Any]:
    from orchestrator import agent
    from workers.runtime import Runtime

    return agent, Runtime.from_env()


def _continue(rt: Any, doc_id: str) -> None:
    """After a commit that moved the document on, drive it to its next stop."""
    from orchestrator.service import process_documents

    if rt.repo.load(doc_id).state not in ("awaiting_decision", "complete", "failed"):
        process_documents(rt, [doc_id], console=err)


doc_arg = click.argument("ident")
chunk_opt = click.option("--chunk-id", "chunk", type=int, required=True)
revision_opt = click.option("--revision", type=int, required=True,
                            help="The revision the context was read at.")


@main.command("boundary-context")
@doc_arg
@clean_errors
def boundary_context_cmd(ident: str) -> None:
    """The window and safe candidates for the next boundary decision."""
    agent, rt = _agent_rt()
    _emit(agent.boundary_context(rt, resolve_doc(rt.revisions.list_docs(), ident)))


@main.command("commit-boundary")
@doc_arg
@revision_opt
@click.option("--action", type=click.Choice(["cut", "extend"]), required=True)
@click.option("--element-id", default=None, help="For cut: a listed candidate's after_id.")
@click.option("--reason", required=True)
@click.option("--evidence", multiple=True, help="Element ids supporting the decision.")
@clean_errors
def commit_boundary_cmd(ident: str, revision: int, action: str, element_id: str | None,
                        reason: str, evidence: tuple[str, ...]) -> None:
    """Validate and record one boundary decision (refused when stale or invalid)."""
    agent, rt = _agent_rt()
    doc_id = resolve_doc(rt.revisions.list_docs(), ident)
    snap = agent.commit_boundary(rt, doc_id, revision=revision, action=action,
                                 element_id=element_id, reason=reason, evidence=list(evidence))
    _continue(rt, doc_id)
    _emit(snap)


@main.command("get-chunk")
@doc_arg
@chunk_opt
@clean_errors
def get_chunk_cmd(ident: str, chunk: int) -> None:
    """A chunk's plan entry and full Markdown content."""
    agent, rt = _agent_rt()
    _emit(agent.get_chunk(rt, resolve_doc(rt.revisions.list_docs(), ident), chunk))


@main.command("analysis-context")
@doc_arg
@chunk_opt
@clean_errors
def analysis_context_cmd(ident: str, chunk: int) -> None:
    """A chunk's full content, neighbours' titles and key terms, for an analysis."""
    agent, rt = _agent_rt()
    _emit(agent.analysis_context(rt, resolve_doc(rt.revisions.list_docs(), ident), chunk))


@main.command("commit-analysis")
@doc_arg
@chunk_opt
@revision_opt
@click.option("--json", "answer_file", type=click.File("r"), required=True,
              help="The analysis JSON (topic_en, topic_fa, study_focus_en, study_focus_fa, "
                   "coherence, reason); '-' reads stdin.")
@clean_errors
def commit_analysis_cmd(ident: str, chunk: int, revision: int, answer_file: Any) -> None:
    """Validate and store a chunk analysis; the document is retitled and re-verified."""
    import json

    agent, rt = _agent_rt()
    doc_id = resolve_doc(rt.revisions.list_docs(), ident)
    analysis = agent.commit_analysis(rt, doc_id, chunk, json.load(answer_file),
                                     revision=revision)
    _continue(rt, doc_id)
    _emit(analysis)


@main.command("repair-context")
@doc_arg
@chunk_opt
@clean_errors
def repair_context_cmd(ident: str, chunk: int) -> None:
    """The safe candidates strictly inside a chunk, for a split-only repair."""
    agent, rt = _agent_rt()
    _emit(agent.repair_context(rt, resolve_doc(rt.revisions.list_docs(), ident), chunk))


@main.command("repair-boundary")
@doc_arg
@chunk_opt
@revision_opt
@click.option("--element-id", required=True)
@click.option("--reason", required=True)
@clean_errors
def repair_boundary_cmd(ident: str, chunk: int, revision: int, element_id: str,
                        reason: str) -> None:
    """Split a chunk at one listed inner candidate; later chunks are renumbered."""
    agent, rt = _agent_rt()
    doc_id = resolve_doc(rt.revisions.list_docs(), ident)
    plan = agent.repair_boundary(rt, doc_id, chunk, revision=revision, element_id=element_id,
                                 reason=reason)
    _continue(rt, doc_id)
    _emit({"chunks": len(plan.chunks)})


@main.command("index")
@doc_arg
@clean_errors
def index_cmd(ident: str) -> None:
    """The verified chunk metadata a study index is written from."""
    agent, rt = _agent_rt()
    _emit(agent.index_context(rt, resolve_doc(rt.revisions.list_docs(), ident)))


@main.command("commit-index")
@doc_arg
@revision_opt
@click.option("--en", type=click.File("r"), required=True)
@click.option("--fa", type=click.File("r"), required=True)
@click.option("--map", "study_map", type=click.File("r"), required=True)
@clean_errors
def commit_index_cmd(ident: str, revision: int, en: Any, fa: Any, study_map: Any) -> None:
    """Validate and store study-index-en.md, study-index-fa.md and study-map.md."""
    agent, rt = _agent_rt()
    _emit(agent.commit_index(rt, resolve_doc(rt.revisions.list_docs(), ident),
                             revision=revision, en=en.read(), fa=fa.read(),
                             study_map=study_map.read()))


@main.command(context_settings={"ignore_unknown_options": True})
@click.option("-Q", "--queues", default="orchestrate,parse,review,write,render,analysis",
              show_default=True)
@click.option("-c", "--concurrency", type=int, default=None)
@click.argument("celery_args", nargs=-1, type=click.UNPROCESSED)
def worker(queues: str, concurrency: int | None, celery_args: tuple[str, ...]) -> None:
    """Run a Celery worker on the given queues (needs QUIRE_BROKER_URL)."""
    from workers.tasks import app

    argv = ["worker", "-Q", queues, "--loglevel", "INFO", *celery_args]
    if concurrency:
        argv += ["-c", str(concurrency)]
    app.worker_main(argv)


@main.command()
@click.option("--interval", type=float, default=30.0, show_default=True)
@click.option("--once", is_flag=True, help="Reconcile once and exit.")
def orchestrator(interval: float, once: bool) -> None:
    """Run the reconciler: re-drive documents stuck past their state's deadline."""
    from orchestrator.service import reconcile_forever

    reconcile_forever(interval=interval, once=once)


@main.command()
@click.argument("flower_args", nargs=-1, type=click.UNPROCESSED)
def flower(flower_args: tuple[str, ...]) -> None:
    """Run Flower on the same broker (set FLOWER_BASIC_AUTH=user:password)."""
    from workers.tasks import app

    app.start(["flower", *flower_args])


if __name__ == "__main__":
    main()
