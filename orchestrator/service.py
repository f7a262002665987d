"""Operations shared by the CLI commands: drive documents, export, verify, reconcile."""

from __future__ import annotations

import logging
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from quire.orchestrator.engine import TaskMessage, reconcile
from quire.shared.ir import describe_textless
from quire.shared.manifest import VerificationReport, load_manifest
from quire.workers.runtime import Runtime

log = logging.getLogger("quire.service")


def process_documents(rt: Runtime, doc_ids: list[str], *, processes: int | None = None,
                      console: Console | None = None, poll: float = 0.5,
                      timeout: float | None = None) -> None:
    """Drive documents to a terminal state: in-process, or through the workers when a
    broker is configured (then this only pokes the orchestrator and follows progress)."""
    console = console or Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[state]}"),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        bars = {d: progress.add_task(rt.repo.load(d).source_name, total=None, state="queued")
                for d in doc_ids}

        def show(_: TaskMessage | None = None) -> None:
            for d, bar in bars.items():
                progress.update(bar, state=rt.repo.load(d).state)

        if rt.env.broker_url:
            from quire.workers.app import use_broker
            from quire.workers.tasks import poke

            use_broker(rt.env.broker_url)
            for d in doc_ids:
                poke(d)
            deadline = None if timeout is None else time.monotonic() + timeout
            # awaiting_decision also stops: nothing moves until an agent commits
            while not all(s.terminal or s.state == "awaiting_decision"
                          for s in (rt.repo.load(d) for d in doc_ids)):
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError(f"documents not finished after {timeout}s")
                show()
                time.sleep(poll)
        else:
            import os

            from quire.orchestrator.local import run_documents

            run_documents(rt, doc_ids, processes=processes or os.cpu_count() or 1, on_done=show)
        show()


def export_document(rt: Runtime, doc_id: str, out_dir: Path) -> None:
    """Copy `docs/{doc_id}/out/` to `out_dir` (the DESIGN.md §5 output folder)."""
    prefix = f"docs/{doc_id}/out/"
    out_dir.mkdir(parents=True, exist_ok=True)
    for key in rt.store.list(prefix):
        target = out_dir / key[len(prefix):]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(rt.store.get(key))


def finished_ok(rt: Runtime, doc_id: str) -> tuple[bool, str]:
    s = rt.repo.load(doc_id)
    if s.state != "complete":
        return False, f"{s.source_name}: {s.state} ({s.error_code}: {s.error})"
    report = VerificationReport.model_validate_json(
        rt.store.get(f"docs/{doc_id}/out/verification-report.json"))
    manifest = load_manifest(rt.store.get(f"docs/{doc_id}/out/manifest.json"))
    textless = describe_textless(report.pages_without_text)
    return report.passed, (f"{s.source_name}: {manifest.chunk_count} chunks, verification "
                           f"{'passed' if report.passed else 'FAILED'}"
                           + (f"; {textless}" if textless else ""))


def verify_folder(out_dir: Path, source: Path | None) -> VerificationReport:
    """`quire verify`: re-run every check; render-compare when the source PDF is known
    (given, or still in the store this folder was exported from)."""
    from quire.workers.verify.report import verify_output, write_report

    manifest = load_manifest((out_dir / "manifest.json").read_bytes())
    if source is None and "pdf" in manifest.formats:
        rt = Runtime.from_env()
        key = f"docs/{manifest.doc_id}/source.pdf"
        if rt.store.exists(key):
            with rt.file(key) as path:
                report = verify_output(out_dir, source_pdf=path)
                write_report(out_dir, report)
                return report
    report = verify_output(out_dir, source_pdf=source, render=source is not None)
    write_report(out_dir, report)
    return report


def reconcile_forever(*, interval: float, once: bool) -> None:
    rt = Runtime.from_env()
    from quire.workers.tasks import poke

    known: set[str] = set()
    settled: dict[str, int] = {}  # finished documents are not re-read every pass
    while True:
        try:
            known = known_documents(rt, known)
            for doc_id in reconcile(rt.repo, sorted(known), settled=settled):
                log.warning("re-driving %s", doc_id)
                poke(doc_id)
        except Exception:  # Redis or S3 away for a while: keep reconciling, never exit
            log.exception("reconcile pass failed; retrying in %.1fs", interval)
        if once:
            return
        time.sleep(interval)


def known_documents(rt: Runtime, known: set[str]) -> set[str]:
    """The documents to reconcile: the revision index's, or — on the first pass and
    whenever the index has lost documents it had (Redis flushed or restarted empty) —
    every document with a session in the store. Reconciling them (loading each session)
    writes their revisions back into the index."""
    indexed = set(rt.revisions.list_docs())
    if not known or not known <= indexed:
        indexed |= set(rt.repo.documents_in_store())
    return indexed
