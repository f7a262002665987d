"""The `quire` command line: a thin layer over the same functions the workers call."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from quire.orchestrator.service import resolve_doc
from quire.shared.config import (
    DEFAULT_DECIDER,
    DEFAULTS,
    ENV_DEFAULTS,
    RunChoices,
    RunSettings,
)
from quire.shared.errors import NotInstalledError, QuireError, SettingsError
from quire.shared.settings import load_settings

err = Console(stderr=True, soft_wrap=True)
out = Console()
F = TypeVar("F", bound=Callable[..., Any])


def require_extra(extra: str, *modules: str) -> None:
    """One line naming the extra to install when a command's optional packages are missing."""
    import importlib.util

    if any(importlib.util.find_spec(m) is None for m in modules):
        raise NotInstalledError(
            f"this command needs the {extra} extra: pip install 'quire[{extra}]'"
        )


def clean_errors(fn: F) -> F:
    """Bad input and refused decisions print one clear line and exit non-zero."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except QuireError as exc:
            err.print(
                f"[red]quire: error ({exc.code}):[/red] {escape(str(exc))}", highlight=False
            )  # escaped: "pip install 'quire[web]'" is not markup
            sys.exit(2)

    return wrapper  # type: ignore[return-value]


force_option = click.option(
    "--force",
    is_flag=True,
    help="Write into a non-empty output folder that Quire did not write (its files stay).",
)


@click.group()
@click.version_option(package_name="quire", prog_name="quire")
@click.option("-v", "--verbose", is_flag=True, help="Log progress to stderr.")
def main(verbose: bool) -> None:
    """Quire: cut long textbooks into verified study-sized sessions."""
    from quire.shared.logs import configure_logging

    try:  # every QUIRE_* setting is checked once, here, before any command runs
        settings = load_settings()
    except SettingsError as exc:
        err.print(f"[red]quire: error ({exc.code}):[/red] {exc}", highlight=False)
        sys.exit(2)
    configure_logging(logging.INFO if verbose else logging.WARNING, settings.log_format)


def check_ocr(settings: RunSettings, asked: bool) -> None:
    """OCR asked for explicitly and run in this process: say now, in one line, when no engine
    reads the languages (workers check their own when they parse). `force` stops here; `auto`
    goes on and lists the pages that needed OCR without text."""
    from quire.shared.config import Environment

    if asked and settings.ocr != "off" and not Environment.from_env().broker_url:
        from quire.shared.errors import OcrUnavailableError
        from quire.workers.parse.ocr_engines import pick_engine

        needs = pick_engine(settings.ocr_lang).choice.needs
        if needs and settings.ocr == "force":
            raise OcrUnavailableError(f"no OCR engine reads {settings.ocr_lang}: {needs}")
        if needs:
            err.print(
                f"quire: warning: no OCR engine reads {settings.ocr_lang} ({escape(needs)}); "
                "pages that need OCR will be listed without text",
                highlight=False,
            )


def _ocr_lang(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    import re

    from quire.shared.config import OCR_LANG_PATTERN

    if value is not None and not re.fullmatch(OCR_LANG_PATTERN, value):
        raise click.BadParameter("Tesseract language codes joined by '+', e.g. eng+fas+chi_sim")
    return value


def ocr_options(fn: F) -> F:
    for opt in reversed(
        [
            click.option(
                "--ocr",
                type=click.Choice(["auto", "off", "force"]),
                default=None,
                help="OCR pages without a usable text layer (auto), every page that is "
                f"not blank (force), or none (off) [env QUIRE_OCR; {ENV_DEFAULTS.ocr}].",
            ),
            click.option(
                "--ocr-lang",
                default=None,
                metavar="LANGS",
                callback=_ocr_lang,
                help="Tesseract languages, e.g. eng+fas+chi_sim "
                f"[env QUIRE_OCR_LANG; {ENV_DEFAULTS.ocr_lang}].",
            ),
            click.option(
                "--strict", is_flag=True, help="Fail a document with pages that end without text."
            ),
        ]
    ):
        fn = opt(fn)
    return fn


password_file_option = click.option(
    "--password-file",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    default=None,
    help="The user password of password-protected PDFs (first line) [env QUIRE_PDF_PASSWORD].",
)
password_map_option = click.option(
    "--password-map",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    default=None,
    help="JSON object of glob patterns (file name or origin) to passwords "
    "[env QUIRE_PDF_PASSWORD_MAP].",
)


def chosen() -> RunChoices:
    """The run choices of the command being run, from its options (`settings_options`,
    `ocr_options`); the ones it does not have keep their defaults."""
    given = click.get_current_context().params
    return RunChoices.given(**{f: given[f] for f in RunChoices.model_fields if f in given})


def settings_options(fn: F) -> F:
    for opt in reversed(
        [
            click.option(
                "--output-format",
                type=click.Choice(["markdown", "pdf", "both"]),
                default=DEFAULTS.output_format,
                show_default=True,
            ),
            click.option(
                "--backend",
                type=click.Choice(["heuristic", "command", "openai", "anthropic"]),
                default=DEFAULTS.backend,
                help="Review/decision backend "
                f"[env QUIRE_REVIEW_BACKEND; {ENV_DEFAULTS.review_backend}].",
            ),
            click.option("--min-pages", type=float, default=DEFAULTS.min_pages, show_default=True),
            click.option("--max-pages", type=float, default=DEFAULTS.max_pages, show_default=True),
            click.option(
                "--overlap-pages", type=int, default=DEFAULTS.overlap_pages, show_default=True
            ),
            click.option(
                "--strict-backend",
                is_flag=True,
                default=None,
                help="Fail a document when the LLM backend's answer for an item stays "
                "invalid or unspecific after its re-asks, instead of letting the heuristic "
                "answer that item [env QUIRE_STRICT_BACKEND].",
            ),
        ]
    ):
        fn = opt(fn)
    return ocr_options(fn)


@main.command()
@click.option(
    "--input",
    "input_path",
    type=click.Path(path_type=Path, exists=True),
    required=True,
    help="A PDF, DOCX, EPUB or HTML file, or a folder of HTML chapters with a manifest.txt "
    "or an index.html.",
)
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True)
@settings_options
@click.option(
    "--processes",
    type=int,
    default=None,
    help="Embedded mode: local worker processes (default: CPU count).",
)
@click.option(
    "--decider",
    type=click.Choice(["backend", "agent"]),
    default=DEFAULT_DECIDER,
    show_default=True,
    help="agent: pause for boundary-context / commit-boundary.",
)
@click.option(
    "--rag",
    "rag_chars",
    type=int,
    default=None,
    metavar="MAX_CHARS",
    help="Also write verified retrieval chunks (rag-chunks.jsonl) of this size.",
)
@password_file_option
@force_option
@clean_errors
def run(
    input_path: Path,
    out_dir: Path,
    output_format: str,
    backend: str | None,
    strict_backend: bool | None,
    min_pages: float,
    max_pages: float,
    overlap_pages: int,
    ocr: str | None,
    ocr_lang: str | None,
    strict: bool,
    processes: int | None,
    decider: str,
    rag_chars: int | None,
    password_file: Path | None,
    force: bool,
) -> None:
    """Process one document end to end; exit 0 only when the output folder as written
    passed verification (3 when it waits for an external agent's boundary decisions)."""
    from quire.api import run_document
    from quire.orchestrator.passwords import Passwords
    from quire.orchestrator.progress import watch
    from quire.shared.errors import DocumentFailedError
    from quire.shared.ir import describe_textless
    from quire.workers.runtime import Runtime

    settings = chosen().settings(decider=decider)  # type: ignore[arg-type]
    check_ocr(settings, bool(ocr or ocr_lang))
    rt = Runtime.from_env()
    password = Passwords.load(password_file).for_document(input_path.name, str(input_path))
    try:
        with watch(err) as show:
            result = run_document(
                rt,
                input_path,
                out_dir,
                settings,
                force=force,
                processes=processes,
                on_progress=show,
                password=password,
            )
    except DocumentFailedError as exc:
        err.print(f"[red]quire: failed ({exc.code}):[/red] {exc}", highlight=False)
        sys.exit(1)
    if result.state == "awaiting_decision":
        err.print(
            f"{input_path.name}: waiting for boundary decisions; run "
            f"`quire boundary-context {result.doc_id[:16]}`",
            highlight=False,
        )
        sys.exit(3)
    report = result.verification
    assert report is not None
    summary = (
        f"{input_path.name}: {len(result.sessions)} chunks, verification "
        f"{'passed' if report.passed else 'FAILED'}"
    )
    if textless := describe_textless(report.pages_without_text):
        summary += f"; {textless}"
    if not report.passed:
        summary += f" ({len(report.findings)} findings; see {out_dir / 'verification-report.json'})"
    elif rag_chars:
        from quire.workers.rag.cli_support import build_rag

        summary += f"; {len(build_rag(out_dir, max_chars=rag_chars).chunks)} retrieval chunks"
    err.print(summary, highlight=False)
    sys.exit(0 if report.passed else 1)


@main.command()
@click.option(
    "--input",
    "input_path",
    type=click.Path(path_type=Path, exists=True),
    required=True,
    help="A PDF, DOCX, EPUB or HTML file, or a folder of HTML chapters with a manifest.txt "
    "or an index.html.",
)
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True)
@ocr_options
@password_file_option
@clean_errors
def parse(
    input_path: Path,
    out_dir: Path,
    ocr: str | None,
    ocr_lang: str | None,
    strict: bool,
    password_file: Path | None,
) -> None:
    """Parse one document and write DIR/ir.json (and DIR/images/)."""
    import tempfile

    from quire.orchestrator.passwords import Passwords
    from quire.shared.ir import dump_ir
    from quire.shared.text import sha256_bytes
    from quire.workers.parse import OcrSettings, parse_document
    from quire.workers.parse.detect import detect_format
    from quire.workers.parse.pdf_open import unlock_pdf

    settings = chosen().settings()
    check_ocr(settings, bool(ocr or ocr_lang))
    password = Passwords.load(password_file).for_document(input_path.name, str(input_path))
    unlocked = unlock_pdf(input_path, password) if detect_format(input_path) == "pdf" else None
    with tempfile.TemporaryDirectory(prefix="quire-parse-") as tmp:
        source, doc_id = input_path, None
        if unlocked is not None:  # a decrypted copy; the id stays the hash of the file given
            source, doc_id = Path(tmp) / input_path.name, sha256_bytes(input_path.read_bytes())
            source.write_bytes(unlocked)
        parsed = parse_document(
            source,
            ocr=OcrSettings(mode=settings.ocr, lang=settings.ocr_lang),
            strict=strict,
            doc_id=doc_id,
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in parsed.images.items():
        (out_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (out_dir / name).write_bytes(data)
    (out_dir / "ir.json").write_bytes(dump_ir(parsed.document))
    doc = parsed.document
    err.print(
        f"{input_path.name}: {len(doc.elements)} elements, {doc.page_count} pages, "
        f"{len(doc.skipped_pages)} skipped -> {out_dir / 'ir.json'}",
        highlight=False,
    )


@main.command()
@click.option(
    "--out", "out_dir", type=click.Path(path_type=Path, exists=True, file_okay=False), required=True
)
@click.option(
    "--source",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    default=None,
    help="Source PDF for render-compare (default: looked up).",
)
@clean_errors
def verify(out_dir: Path, source: Path | None) -> None:
    """Re-run every check on an output folder; non-zero exit on failure."""
    from quire.orchestrator.service import verify_folder

    report = verify_folder(out_dir, source)
    for f in report.findings[:50]:
        err.print(
            f"[red]{f.kind}[/red] chunk={f.chunk} {f.element_id or ''}{f.page or ''}: {f.message}",
            highlight=False,
        )
    err.print(
        f"verification {'passed' if report.passed else 'FAILED'}: {len(report.findings)} findings",
        highlight=False,
    )
    sys.exit(0 if report.passed else 1)


@main.command()
@click.option(
    "--out", "out_dir", type=click.Path(path_type=Path, exists=True, file_okay=False), required=True
)
@click.option("--max-chars", type=int, default=2000, show_default=True)
@click.option(
    "--algorithm",
    type=click.Choice(["hierarchical", "linear"]),
    default="hierarchical",
    show_default=True,
)
@click.option("--enrich", is_flag=True, help="Add context, summary, keywords, questions.")
@click.option(
    "--backend",
    type=click.Choice(["heuristic", "command", "openai", "anthropic"]),
    default=None,
    help="Enrichment backend [env QUIRE_REVIEW_BACKEND; heuristic].",
)
@click.option(
    "--cache",
    "cache_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Enrichment cache folder [DIR/rag-cache].",
)
@clean_errors
def rag(
    out_dir: Path,
    max_chars: int,
    algorithm: str,
    enrich: bool,
    backend: str | None,
    cache_dir: Path | None,
) -> None:
    """Write verified retrieval chunks (DIR/rag-chunks.jsonl) from DIR's IR and sessions."""
    from quire.workers.rag.cli_support import build_rag

    name = (backend or load_settings().review_backend) if enrich else None
    build = build_rag(
        out_dir,
        max_chars=max_chars,
        algorithm=algorithm,  # type: ignore[arg-type]
        enrich_backend=name,
        cache_dir=cache_dir,
    )
    for f in build.failures[:20]:
        err.print(f"[red]enrichment failed[/red] {f.chunk_id}: {f.error}", highlight=False)
    enriched = (
        f", enriched by {name}: {build.calls} calls, {build.cache_hits} cached, "
        f"{len(build.failures)} failed"
        if name
        else ""
    )
    err.print(
        f"{len(build.chunks)} retrieval chunks from {build.sessions} sessions "
        f"-> {build.path}{enriched}",
        highlight=False,
    )
    sys.exit(1 if build.failures else 0)


@main.command()
@click.argument("ident", required=False)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@clean_errors
def status(ident: str | None, as_json: bool) -> None:
    """Show every document, one document's state and revision history (by id, id prefix or
    source file name), or a batch's progress (`quire status batch-...`)."""
    from quire.orchestrator.batch import find_batch, show_status, status_json
    from quire.workers.runtime import Runtime

    rt = Runtime.from_env()
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
            _emit([_doc_summary(rt, s) for s in sessions])
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
        _emit(
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
    out.print(
        f"[bold]{escape(cur.source_name)}[/bold] {cur.doc_id}\nstate: {escape(state)}"
        + (f" ({cur.error_code}: {escape(cur.error)})" if cur.error else ""),
        highlight=False,
    )
    table = Table("rev", "when (UTC)", "state", "who", "why")
    for s in history:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(s.committed_at))
        table.add_row(str(s.revision), when, s.state, s.actor, s.why)
    out.print(table)


def _state(rt: Any, s: Any, *, explain: bool = False) -> str:
    """The state as people read it: a working state that no run drives says so."""
    from quire.orchestrator.leases import abandoned

    if not abandoned(rt, s):
        return str(s.state)
    if explain:
        return (
            f"{s.state}, abandoned: its run stopped; the next `quire run`, `batch` or "
            "`serve` on this store resumes it"
        )
    return f"{s.state} (abandoned)"


def _doc_summary(rt: Any, s: Any) -> dict[str, Any]:
    from quire.orchestrator.leases import abandoned

    return {
        "doc_id": s.doc_id,
        "source_name": s.source_name,
        "state": s.state,
        "abandoned": abandoned(rt, s),
        "revision": s.revision,
        "page_count": s.page_count,
        "error_code": s.error_code,
        "error": s.error,
    }


@main.command()
@click.argument("ident")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True)
@force_option
@clean_errors
def export(ident: str, out_dir: Path, force: bool) -> None:
    """Copy a completed document's output folder out of the store and verify it there
    (DOC: id, id prefix or source file name)."""
    from quire.orchestrator.outputs import export_document, verify_exported
    from quire.workers.runtime import Runtime

    rt = Runtime.from_env()
    export_document(rt, resolve_doc(rt, ident), out_dir, force=force)
    report = verify_exported(out_dir)
    err.print(
        f"exported to {out_dir}; verification {'passed' if report.passed else 'FAILED'}",
        highlight=False,
    )
    sys.exit(0 if report.passed else 1)


@main.command("config")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def config_cmd(as_json: bool) -> None:
    """The effective settings (QUIRE_* variables and defaults), secrets redacted."""
    from quire.shared.settings import env_name

    settings = load_settings()
    values = settings.model_dump(mode="json")  # SecretStr values come out as '**********'
    rows = [
        (env_name(f), values[f], "environment" if f in settings.model_fields_set else "default")
        for f in type(settings).model_fields
    ]
    if as_json:
        _emit({name: value for name, value, _ in rows})
        return
    table = Table("setting", "value", "from")
    for name, value, source in rows:
        table.add_row(name, "" if value is None else str(value), source)
    out.print(table)


# --- the agent loop (JSON on stdout) -------------------------------------------------------


def _emit(data: Any) -> None:
    import json

    from pydantic import BaseModel

    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json")
    click.echo(json.dumps(data, ensure_ascii=False, indent=1))


def _agent_rt() -> tuple[Any, Any]:
    from quire.orchestrator import agent
    from quire.workers.runtime import Runtime

    return agent, Runtime.from_env()


def _continue(rt: Any, doc_id: str) -> None:
    """After a commit that moved the document on, drive it to its next stop."""
    from quire.orchestrator.service import process_documents

    if rt.repo.load(doc_id).state not in ("awaiting_decision", "complete", "failed"):
        process_documents(rt, [doc_id], console=err)


doc_arg = click.argument("ident")
chunk_opt = click.option("--chunk-id", "chunk", type=int, required=True)
revision_opt = click.option(
    "--revision", type=int, required=True, help="The revision the context was read at."
)


@main.command("boundary-context")
@doc_arg
@clean_errors
def boundary_context_cmd(ident: str) -> None:
    """The window and safe candidates for the next boundary decision."""
    agent, rt = _agent_rt()
    _emit(agent.boundary_context(rt, resolve_doc(rt, ident)))


@main.command("commit-boundary")
@doc_arg
@revision_opt
@click.option("--action", type=click.Choice(["cut", "extend"]), required=True)
@click.option("--element-id", default=None, help="For cut: a listed candidate's after_id.")
@click.option("--reason", required=True)
@click.option("--evidence", multiple=True, help="Element ids supporting the decision.")
@clean_errors
def commit_boundary_cmd(
    ident: str,
    revision: int,
    action: str,
    element_id: str | None,
    reason: str,
    evidence: tuple[str, ...],
) -> None:
    """Validate and record one boundary decision (refused when stale or invalid)."""
    agent, rt = _agent_rt()
    doc_id = resolve_doc(rt, ident)
    snap = agent.commit_boundary(
        rt,
        doc_id,
        revision=revision,
        action=action,
        element_id=element_id,
        reason=reason,
        evidence=list(evidence),
    )
    _continue(rt, doc_id)
    _emit(snap)


@main.command("get-chunk")
@doc_arg
@chunk_opt
@clean_errors
def get_chunk_cmd(ident: str, chunk: int) -> None:
    """A chunk's plan entry and full Markdown content."""
    agent, rt = _agent_rt()
    _emit(agent.get_chunk(rt, resolve_doc(rt, ident), chunk))


@main.command("analysis-context")
@doc_arg
@chunk_opt
@clean_errors
def analysis_context_cmd(ident: str, chunk: int) -> None:
    """A chunk's full content, neighbours' titles and key terms, for an analysis."""
    agent, rt = _agent_rt()
    _emit(agent.analysis_context(rt, resolve_doc(rt, ident), chunk))


@main.command("commit-analysis")
@doc_arg
@chunk_opt
@revision_opt
@click.option(
    "--json",
    "answer_file",
    type=click.File("r"),
    required=True,
    help="The analysis JSON (topic_en, topic_fa, study_focus_en, study_focus_fa, "
    "coherence, reason); '-' reads stdin.",
)
@clean_errors
def commit_analysis_cmd(ident: str, chunk: int, revision: int, answer_file: Any) -> None:
    """Validate and store a chunk analysis; the document is retitled and re-verified."""
    import json

    agent, rt = _agent_rt()
    doc_id = resolve_doc(rt, ident)
    analysis = agent.commit_analysis(rt, doc_id, chunk, json.load(answer_file), revision=revision)
    _continue(rt, doc_id)
    _emit(analysis)


@main.command("repair-context")
@doc_arg
@chunk_opt
@clean_errors
def repair_context_cmd(ident: str, chunk: int) -> None:
    """The safe candidates strictly inside a chunk, for a split-only repair."""
    agent, rt = _agent_rt()
    _emit(agent.repair_context(rt, resolve_doc(rt, ident), chunk))


@main.command("repair-boundary")
@doc_arg
@chunk_opt
@revision_opt
@click.option("--element-id", required=True)
@click.option("--reason", required=True)
@clean_errors
def repair_boundary_cmd(
    ident: str, chunk: int, revision: int, element_id: str, reason: str
) -> None:
    """Split a chunk at one listed inner candidate; later chunks are renumbered."""
    agent, rt = _agent_rt()
    doc_id = resolve_doc(rt, ident)
    plan = agent.repair_boundary(
        rt, doc_id, chunk, revision=revision, element_id=element_id, reason=reason
    )
    _continue(rt, doc_id)
    _emit({"chunks": len(plan.chunks)})


@main.command("index")
@doc_arg
@clean_errors
def index_cmd(ident: str) -> None:
    """The verified chunk metadata a study index is written from."""
    agent, rt = _agent_rt()
    _emit(agent.index_context(rt, resolve_doc(rt, ident)))


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
    _emit(
        agent.commit_index(
            rt,
            resolve_doc(rt, ident),
            revision=revision,
            en=en.read(),
            fa=fa.read(),
            study_map=study_map.read(),
        )
    )


@main.command(context_settings={"ignore_unknown_options": True})
@click.option(
    "-Q", "--queues", default="orchestrate,parse,review,write,render,analysis", show_default=True
)
@click.option("-c", "--concurrency", type=int, default=None)
@click.argument("celery_args", nargs=-1, type=click.UNPROCESSED)
@clean_errors
def worker(queues: str, concurrency: int | None, celery_args: tuple[str, ...]) -> None:
    """Run a Celery worker on the given queues (needs QUIRE_BROKER_URL)."""
    from quire.shared.config import Environment

    if not Environment.from_env().broker_url:
        raise SettingsError(
            "QUIRE_BROKER_URL is not set: a worker needs a broker, e.g. "
            "redis://localhost:6379/0 (without one, `quire run` and `quire batch` "
            "process documents in this process)"
        )
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

        start_webhook(build_service(), port=webhook_port)
    reconcile_forever(interval=interval, once=once)


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


# --- batches, triggers, metrics (logic in orchestrator/batch.py, triggers.py, metrics.py) --


def limit_options(fn: F) -> F:
    for opt in reversed(
        [
            click.option(
                "--max-file-bytes",
                type=int,
                default=None,
                help="Refuse larger files "
                f"[env QUIRE_MAX_FILE_BYTES; {ENV_DEFAULTS.max_file_bytes}].",
            ),
            click.option(
                "--max-doc-pages",
                type=int,
                default=None,
                help="Refuse documents with more pages "
                f"[env QUIRE_MAX_DOC_PAGES; {ENV_DEFAULTS.max_doc_pages}].",
            ),
        ]
    ):
        fn = opt(fn)
    return fn


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
    "--rerun", is_flag=True, help="Restart documents that failed or ran with other settings."
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
    output_format: str,
    backend: str | None,
    strict_backend: bool | None,
    min_pages: float,
    max_pages: float,
    overlap_pages: int,
    ocr: str | None,
    ocr_lang: str | None,
    strict: bool,
    max_file_bytes: int,
    max_doc_pages: int,
    processes: int | None,
    password_file: Path | None,
    password_map: Path | None,
) -> None:
    """Process many documents: files, folders, globs or s3://bucket/prefix.

    Exit 0 only when every document completed with verification passed; a failing
    document never stops the others."""
    from quire.orchestrator import batch as batches
    from quire.orchestrator.passwords import Passwords
    from quire.orchestrator.sources import expand_sources
    from quire.workers.llm import check_installed
    from quire.workers.runtime import Runtime

    settings = chosen().settings(max_file_bytes=max_file_bytes, max_doc_pages=max_doc_pages)
    check_ocr(settings, bool(ocr or ocr_lang))
    passwords = Passwords.load(password_file, password_map)
    check_installed(settings.backend)
    rt = Runtime.from_env()
    items, skipped = expand_sources(sources)
    if not items:
        raise QuireError("no documents found in " + " ".join(sources))
    for origin in skipped:
        err.print(f"skipping {origin}: not a .pdf, .docx, .epub or .htmlz", highlight=False)
    err.print(f"submitting {len(items)} documents...", highlight=False)
    record = batches.create_batch(
        rt, items, settings, out_dir=out_dir, skipped=skipped, rerun=rerun, passwords=passwords
    )
    if detach:
        where = batches.start_detached(rt, record, processes=processes)
        err.print(
            f"batch {record.batch_id} runs in {where}; follow it with "
            f"`quire status {record.batch_id}`",
            highlight=False,
        )
        click.echo(record.batch_id)
        return
    sys.exit(
        batches.finish_batch(
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
    from quire.workers.runtime import Runtime

    rt = Runtime.from_env()
    found = batches.find_batch(rt, batch_id)
    if found is None:
        raise QuireError(f"no batch {batch_id!r}")
    record = batches.load_batch(rt, found)
    sys.exit(
        batches.finish_batch(
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


@trigger.command("webhook")
@trigger_options
@click.option("--host", default="0.0.0.0", show_default=True)
@click.option("--port", type=int, default=8080, show_default=True)
@clean_errors
def trigger_webhook(
    bucket: str | None,
    prefix: str | None,
    output_prefix: str | None,
    processes: int,
    password_map: Path | None,
    host: str,
    port: int,
) -> None:
    """Serve POST /events for S3/MinIO webhook notifications (Bearer QUIRE_WEBHOOK_TOKEN)."""
    from quire.orchestrator.triggers import build_service
    from quire.orchestrator.webhook import start_webhook, stop_webhook

    server, stop = start_webhook(
        build_service(
            bucket=bucket,
            prefix=prefix,
            output_prefix=output_prefix,
            processes=processes,
            password_map=password_map,
        ),
        host=host,
        port=port,
    )
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
def trigger_sqs(
    bucket: str | None,
    prefix: str | None,
    output_prefix: str | None,
    processes: int,
    password_map: Path | None,
    queue_url: str | None,
    once: bool,
) -> None:
    """Long-poll an SQS queue that receives the bucket's event notifications."""
    from quire.orchestrator.sqs_poller import SqsPoller
    from quire.orchestrator.triggers import build_service

    queue_url = queue_url or load_settings().sqs_queue_url
    if not queue_url:
        raise SettingsError("no SQS queue: pass --queue-url or set QUIRE_SQS_QUEUE_URL")
    poller = SqsPoller(
        build_service(
            bucket=bucket,
            prefix=prefix,
            output_prefix=output_prefix,
            processes=processes,
            password_map=password_map,
        ),
        queue_url,
    )
    if once:
        poller.poll_once()
    else:
        poller.run_forever()


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
    from quire.workers.runtime import Runtime

    reg = registry(Collector(Runtime.from_env()))
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
    settings = load_settings()
    secret = settings.api_token
    token = secret.get_secret_value() if secret else None
    check_bind(host, token)
    app = create_app(processes=processes)
    where = f"[{host}]" if ":" in host else host
    err.print(
        f"Quire workspace on http://{where}:{port}/ ({app.state.web.mode}; "
        f"{'token required' if token else 'no token: this machine only'})",
        highlight=False,
        markup=False,
    )
    serve_http(app, host, port, settings)


# --- MCP: AI hosts drive the agent loop (orchestrator/mcp/) -------------------------------------


@main.group()
def mcp() -> None:
    """The MCP server that lets AI hosts (Claude Code, Codex, Cursor...) drive the agent loop."""


@mcp.command("serve")
@click.option(
    "--processes",
    type=int,
    default=None,
    help="Embedded mode: local worker processes [env QUIRE_MCP_PROCESSES; CPUs].",
)
@clean_errors
def mcp_serve(processes: int | None) -> None:
    """Serve Quire's agent loop over MCP on stdin/stdout."""
    require_extra("mcp", "mcp", "anyio")
    from quire.orchestrator.mcp.server import serve

    if processes:
        os.environ["QUIRE_MCP_PROCESSES"] = str(processes)
    serve()


@mcp.command("install")
@click.option("--write", is_flag=True, help="Also write the project-level .mcp.json.")
@click.option(
    "--project",
    type=click.Path(path_type=Path, file_okay=False),
    default=".",
    show_default=True,
    help="The project the server works for.",
)
@clean_errors
def mcp_install(write: bool, project: Path) -> None:
    """Print registration snippets for common MCP hosts (with --write, write .mcp.json)."""
    from quire.orchestrator.mcp.install import registration, snippets, write_project_config

    reg = registration(project.resolve())
    click.echo(snippets(reg))
    if write:
        err.print(f"wrote {write_project_config(project.resolve(), reg)}", highlight=False)


if __name__ == "__main__":
    main()
