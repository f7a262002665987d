"""Operations shared by the CLI commands: drive documents, export, verify, reconcile."""

from __future__ import annotations

import logging
import time
from pathlib import Path

from rich.console import Console

from quire.orchestrator.consoles import text_console
from quire.orchestrator.dispatch import dispatcher_for
from quire.orchestrator.progress import watch
from quire.shared import keys
from quire.shared.engine import reconcile
from quire.shared.errors import UnknownDocumentError
from quire.shared.layout import Layout
from quire.shared.manifest import VerificationReport, load_manifest
from quire.shared.settings import Settings
from quire.shared.text import sha256_bytes
from quire.workers.runtime import Runtime

log = logging.getLogger("quire.service")


def process_documents(
    rt: Runtime,
    doc_ids: list[str],
    *,
    processes: int | None = None,
    console: Console | None = None,
    poll: float = 0.5,
    timeout: float | None = None,
) -> None:
    """Drive documents until each has stopped, showing their progress: in this process, or
    through the workers when a broker is configured (see `dispatch`)."""
    with watch(console or text_console(stderr=True)) as show:

        def tick() -> None:
            for d in doc_ids:
                show(rt.repo.load(d))

        dispatcher_for(rt, processes=processes, poll=poll).drive(
            doc_ids, tick=tick, timeout=timeout
        )
        tick()


def verify_folder(settings: Settings, out_dir: Path, source: Path | None) -> VerificationReport:
    """`quire verify`: re-run every check; render-compare when the source PDF is known
    (given, or still in the store this folder was exported from)."""
    from quire.workers.verify.report import verify_output, write_report

    manifest = load_manifest((out_dir / Layout.MANIFEST).read_bytes())
    if source is None and "pdf" in manifest.formats:
        rt = Runtime.from_env(settings)
        key = keys.source(manifest.doc_id, "pdf")
        if rt.store.exists(key):
            with rt.file(key) as path:
                report = verify_output(out_dir, source_pdf=path)
                write_report(out_dir, report)
                return report
    report = verify_output(out_dir, source_pdf=source, render=source is not None)
    write_report(out_dir, report)
    return report


def reconcile_forever(rt: Runtime, *, interval: float, once: bool) -> None:
    from quire.workers.tasks import poke

    known: set[str] = set()
    settled: dict[str, int] = {}  # finished documents are not re-read every pass
    while True:
        try:
            known = known_documents(rt, known)
            for doc_id in reconcile(
                rt.repo, sorted(known), scale=rt.env.deadline_scale, settled=settled
            ):
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


def resolve_doc(rt: Runtime, ident: str) -> str:
    """The document `ident` names: a document id or a unique prefix of one, a source file
    name as submitted ("book.pdf"), or the path of a local file (matched by content)."""
    docs = rt.revisions.list_docs()
    matches = [d for d in docs if d.startswith(ident.lower())] if ident.strip() else []
    if not matches:
        path = Path(ident)
        if path.is_file():
            digest = sha256_bytes(path.read_bytes())
            matches = [d for d in docs if d == digest]
        if not matches:
            name = path.name
            matches = [d for d in docs if rt.repo.load(d).source_name == name]
    if len(matches) != 1:
        raise UnknownDocumentError(
            f"{'no' if not matches else 'more than one'} document matches {ident!r}"
        )
    return matches[0]
