"""One document: run, parse, verify, retrieval chunks, export."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from quire.orchestrator.cli.app import (
    clean_errors,
    current_settings,
    err,
    flagged,
    force_option,
    main,
    runtime,
)
from quire.orchestrator.cli.options import (
    check_ocr,
    chosen,
    ocr_options,
    password_file_option,
    settings_options,
)
from quire.orchestrator.service import resolve_doc
from quire.shared.config import DEFAULT_DECIDER
from quire.shared.layout import Layout

_input_option = click.option(
    "--input",
    "input_path",
    type=click.Path(path_type=Path, exists=True),
    required=True,
    help="A PDF, DOCX, EPUB or HTML file (also compressed: .pdf.gz, .docx.xz ...), or a "
    "folder of HTML chapters with a manifest.txt or an index.html.",
)
_out_option = click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True)


@main.command()
@_input_option
@_out_option
@settings_options
@click.option(
    "--processes",
    type=int,
    default=None,
    help="Embedded mode: local worker processes (default: CPU count; a document parsed "
    "in one part with an offline backend runs in this process).",
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
    processes: int | None,
    decider: str,
    rag_chars: int | None,
    password_file: Path | None,
    force: bool,
    **choices: object,  # the run choices (settings_options): chosen() reads them
) -> None:
    """Process one document end to end; exit 0 only when the output folder as written
    passed verification (3 when it waits for an external agent's boundary decisions)."""
    from quire.orchestrator.one_document import run_document
    from quire.orchestrator.passwords import Passwords
    from quire.orchestrator.progress import watch
    from quire.shared.errors import DocumentFailedError
    from quire.shared.ir import describe_textless

    env = current_settings()
    settings = chosen().settings(decider=decider, env=env)  # type: ignore[arg-type]
    check_ocr(settings)
    rt = runtime()
    password = Passwords.load(password_file, settings=env).for_document(
        input_path.name, str(input_path)
    )
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
                inline_small=True,
            )
    except DocumentFailedError as exc:
        err.print(flagged(f"quire: failed ({exc.code}):", str(exc)))
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
@_input_option
@_out_option
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
    import contextlib
    import tempfile

    from quire.orchestrator.passwords import Passwords
    from quire.shared.ir import dump_ir
    from quire.shared.text import sha256_bytes
    from quire.workers.parse import OcrSettings, parse_document
    from quire.workers.parse.compressed import inner_name, unpacked
    from quire.workers.parse.detect import detect_format
    from quire.workers.parse.pdf_open import unlock_pdf

    env = current_settings()
    settings = chosen().settings(env=env)
    check_ocr(settings)
    password = Passwords.load(password_file, settings=env).for_document(
        input_path.name, str(input_path)
    )
    with contextlib.ExitStack() as stack:
        if inner_name(input_path.name) is not None:  # a .pdf.gz: the document inside
            input_path = stack.enter_context(unpacked(input_path, settings.max_file_bytes))
        unlocked = unlock_pdf(input_path, password) if detect_format(input_path) == "pdf" else None
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="quire-parse-"))
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
    (out_dir / Layout.IR).write_bytes(dump_ir(parsed.document))
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

    report = verify_folder(current_settings(), out_dir, source)
    for f in report.findings[:50]:
        where = f"{f.element_id or ''}{f.page or ''}"
        err.print(flagged(f.kind, f"chunk={f.chunk} {where}: {f.message}"), highlight=False)
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

    env = current_settings()
    name = (backend or env.review_backend) if enrich else None
    build = build_rag(
        out_dir,
        max_chars=max_chars,
        algorithm=algorithm,  # type: ignore[arg-type]
        enrich_backend=name,
        cache_dir=cache_dir,
        env=env,
    )
    for f in build.failures[:20]:
        err.print(flagged("enrichment failed", f"{f.chunk_id}: {f.error}"), highlight=False)
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
@click.argument("ident")
@_out_option
@force_option
@clean_errors
def export(ident: str, out_dir: Path, force: bool) -> None:
    """Copy a completed document's output folder out of the store and verify it there
    (DOC: id, id prefix or source file name)."""
    from quire.orchestrator.outputs import export_document, verify_exported

    rt = runtime()
    export_document(rt, resolve_doc(rt, ident), out_dir, force=force)
    report = verify_exported(out_dir)
    err.print(
        f"exported to {out_dir}; verification {'passed' if report.passed else 'FAILED'}",
        highlight=False,
    )
    sys.exit(0 if report.passed else 1)
