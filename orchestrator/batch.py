"""Bulk batches: many documents submitted together, followed to the end, reported on.

A batch is a record in the store (`batches/{batch_id}.json`) listing its documents; its
progress is never stored separately, it is read from the documents' sessions, so `quire
status BATCH` shows the same truth from any machine. The id is derived from the documents
and the settings: submitting the same files with the same settings again names the same
batch, and since documents are keyed by content hash no work is repeated either.

Each document runs isolated: bad input is refused at submission with its reason, a failing
stage fails only its document, and the others still complete.

Running one to its end and showing it on a console is `batch_run.py`'s.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from quire.orchestrator.dispatch import dispatcher_for
from quire.orchestrator.passwords import Passwords
from quire.orchestrator.sources import SourceItem
from quire.shared import keys
from quire.shared.config import RunSettings
from quire.shared.errors import QuireError
from quire.shared.ir import SkippedPage
from quire.shared.job import Job
from quire.shared.layout import Layout
from quire.shared.revisions.listing import BatchEntry, Unreadable
from quire.shared.states import STOPPED
from quire.shared.store import NotFound
from quire.shared.text import sha256_bytes
from quire.workers.parse.compressed import inner_name
from quire.workers.runtime import Runtime

log = logging.getLogger("quire.batch")

# Share of a document's work done when it leaves each state (a rough cost model: parsing and
# verification dominate). Used only for progress and ETA.
_STAGE_WEIGHTS: list[tuple[str, float]] = [
    ("parsing", 0.35),
    ("scoring", 0.05),
    ("topic_review", 0.10),
    ("planning", 0.05),
    ("awaiting_decision", 0.0),
    ("writing", 0.15),
    ("verifying", 0.20),
    ("analysing", 0.05),
    ("repairing", 0.0),
    ("indexing", 0.05),
]


class BatchItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    origin: str
    name: str
    doc_id: str | None  # None when the source could not even be read
    out_name: str  # its folder under --out
    error: str | None = None


class BatchRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    batch_id: str
    created_at: float
    settings: RunSettings
    out_dir: str | None = None
    items: list[BatchItem]
    skipped: list[str] = []  # folder/prefix entries that are not documents

    def doc_ids(self) -> list[str]:
        return list(dict.fromkeys(i.doc_id for i in self.items if i.doc_id))


class DocProgress(BaseModel):
    name: str
    origin: str
    doc_id: str | None
    state: str
    pages: int | None  # PDF pages, or words / 400 for DOCX once parsed
    fraction: float  # 0..1 of the document's work
    chunks: int | None = None
    verification: Literal["passed", "failed"] | None = None
    seconds: float | None = None  # processing time, for stopped documents
    error_code: str | None = None
    error: str | None = None
    pages_without_text: list[SkippedPage] = []  # in no output: no text (with the reason)


class BatchReport(BaseModel):
    batch_id: str
    mode: Literal["embedded", "distributed"]
    store: str
    created_at: float
    finished: bool  # every document complete, failed or waiting for a decision
    ok: bool  # every document complete with verification passed
    counts: dict[str, int]
    pages_total: int
    pages_done: float
    documents: list[DocProgress]


def _out_name(name: str) -> str:
    """A folder name under --out from a document's file name, which comes from outside:
    "...pdf" has the stem "..", and control characters or separators must not pass. A
    compressed document's is its document's ("manual.pdf.gz" -> "manual")."""
    stem = re.sub(r"[\x00-\x1f\x7f/\\]", "_", Path(inner_name(name) or name).stem).strip(". ")
    return stem or "document"


def _out_names(items: Sequence[tuple[SourceItem, str | None]]) -> list[str]:
    """Each document's folder: its file's stem; where stems collide, the stem and the file's
    type when that tells them apart ("manual-pdf", "manual-docx"), else the stem and the
    start of the document id."""
    stems = [_out_name(src.name) for src, _ in items]
    typed = [
        f"{stem}-{_out_name(Path(src.name).suffix.lstrip('.').lower() or 'file')}"
        for stem, (src, _) in zip(stems, items, strict=True)
    ]
    names = [
        stem if stems.count(stem) == 1 else typed[k] if typed.count(typed[k]) == 1 else None
        for k, stem in enumerate(stems)
    ]
    return [
        name if name and names.count(name) == 1 else f"{stem}-{(doc_id or 'unread')[:8]}"
        for name, stem, (_, doc_id) in zip(names, stems, items, strict=True)
    ]


def create_batch(
    rt: Runtime,
    sources: Sequence[SourceItem],
    settings: RunSettings,
    *,
    out_dir: Path | None = None,
    skipped: Sequence[str] = (),
    rerun: bool = False,
    passwords: Passwords | None = None,
) -> BatchRecord:
    """Submit every source (content-keyed: known documents are not redone) and store the
    batch record. Unreadable or refused sources become failed items, never an exception.
    `passwords` open password-protected PDFs at submission (never stored)."""
    from quire.workers.execute import submit_bytes

    passwords = passwords or Passwords.load(settings=rt.env)

    submitted: list[tuple[SourceItem, str | None, str | None]] = []
    for src in sources:
        try:
            data = src.read()
        except (OSError, QuireError) as exc:
            log.warning("cannot read %s: %s", src.origin, exc)
            submitted.append((src, None, f"cannot read: {exc}"))
            continue
        job = submit_bytes(
            rt,
            data,
            src.name,
            settings,
            actor="batch",
            rerun=rerun,
            path=src.path,
            password=passwords.for_document(src.name, src.origin),
        )
        submitted.append((src, job.doc_id, None))
    names = _out_names([(s, d) for s, d, _ in submitted])
    items = [
        BatchItem(origin=s.origin, name=s.name, doc_id=d, out_name=n, error=e)
        for (s, d, e), n in zip(submitted, names, strict=True)
    ]
    digest = sha256_bytes(
        json.dumps(
            {
                "docs": sorted(i.doc_id or i.origin for i in items),
                "settings": settings.model_dump(mode="json"),
            },
            sort_keys=True,
        ).encode()
    )
    batch_id = f"batch-{digest[:12]}"
    created = time.time()
    with contextlib.suppress(NotFound):  # the same batch again: keep its creation time
        created = load_batch(rt, batch_id).created_at
    record = BatchRecord(
        batch_id=batch_id,
        created_at=created,
        settings=settings,
        out_dir=str(out_dir.resolve()) if out_dir else None,
        items=items,
        skipped=list(skipped),
    )
    rt.store.put(keys.batch(batch_id), record.model_dump_json(indent=1).encode())
    rt.revisions.index_batch(batch_entry(record))
    return record


def batch_entry(record: BatchRecord) -> BatchEntry:
    """What the documents listing keeps of a batch (its pages list it without reading it)."""
    return BatchEntry(
        batch_id=record.batch_id,
        created_at=record.created_at,
        doc_ids=record.doc_ids(),
        unreadable=[
            Unreadable(name=i.name, origin=i.origin, error=i.error)
            for i in record.items
            if i.doc_id is None
        ],
    )


def index_batches(rt: Runtime) -> int:
    """List the batches in the store that the listing does not know (batches from before
    it, or a revision store rebuilt); returns how many were listed."""
    missing = [b for b in list_batches(rt) if rt.revisions.batch(b) is None]
    for batch_id in missing:
        rt.revisions.index_batch(batch_entry(load_batch(rt, batch_id)))
    return len(missing)


def load_batch(rt: Runtime, batch_id: str) -> BatchRecord:
    return BatchRecord.model_validate_json(rt.store.get(keys.batch(batch_id)))


def list_batches(rt: Runtime) -> list[str]:
    return [keys.batch_id_of(k) for k in rt.store.list(keys.BATCHES) if k.endswith(".json")]


def find_batch(rt: Runtime, ident: str) -> str | None:
    """The batch id `ident` names (a unique prefix), or None when it names no batch."""
    if not ident.startswith("batch-"):  # never a doc id: those are hex
        return None
    matches = [b for b in list_batches(rt) if b.startswith(ident)]
    if len(matches) > 1:
        raise QuireError(f"ambiguous batch id {ident!r}")
    return matches[0] if matches else None


# --- progress ------------------------------------------------------------------------------


def _fraction(s: Job) -> float:
    return stage_fraction(s.state, len(s.done), len(s.parts or []))


def spell_duration(
    seconds: float, units: tuple[str, str, str] = ("s", "m", "h"), gap: str = ""
) -> str:
    """12.3s, 4m05s, 1h02m: seconds to a tenth under a minute, whole minutes and seconds
    under an hour, else hours and minutes; `units` (seconds, minutes, hours) and the `gap`
    between the two parts spell it ("4 min 05 s" on the web)."""
    s, m, h = units
    if seconds < 60:
        return f"{seconds:.1f}{s}"
    whole = int(seconds)
    if whole < 3600:
        return f"{whole // 60}{m}{gap}{whole % 60:02d}{s}"
    return f"{whole // 3600}{h}{gap}{whole // 60 % 60:02d}{m}"


def stage_fraction(state: str, parts_done: int, parts_total: int) -> float:
    """0..1 of a document's work in `state` with that many of its parts done."""
    if state == "complete":
        return 1.0
    if state in ("queued", "failed"):
        return 0.0 if state == "queued" else 1.0
    done = 0.0
    for name, weight in _STAGE_WEIGHTS:
        if name == state:
            return done + (weight * parts_done / parts_total if parts_total else 0.0)
        done += weight
    return done


def _as_item(p: DocProgress, item: BatchItem) -> DocProgress:
    """A document's progress as the batch item that names it: a file with the same bytes
    as another is that document, and its failure says so rather than name the other."""
    update: dict[str, str | None] = {"name": item.name, "origin": item.origin}
    if p.error and p.name not in (item.name, inner_name(item.name)):
        update["error"] = f"the same bytes as {p.name}, which failed: {p.error}"
    return p.model_copy(update=update)


class ProgressReader:
    """Reads documents' progress; caches what cannot change any more (stopped documents,
    DOCX page estimates) and what has not changed (a document at the revision it was read
    at) so polling a big batch stays cheap."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self._final: dict[str, DocProgress] = {}
        self._pages: dict[str, int] = {}
        self._seen: dict[str, tuple[int, DocProgress]] = {}  # doc_id -> (revision, progress)

    def _docx_pages(self, s: Job) -> int | None:
        if s.doc_id in self._pages:
            return self._pages[s.doc_id]
        if s.state in ("queued", "parsing", "failed"):
            return None
        try:
            pages = int(json.loads(self.rt.store.get(keys.out(s.doc_id, Layout.IR)))["page_count"])
        except (NotFound, KeyError, ValueError):
            return None
        self._pages[s.doc_id] = pages
        return pages

    def _outputs(self, p: DocProgress, doc_id: str) -> None:
        from quire.shared.manifest import VerificationReport, load_manifest

        try:
            manifest = load_manifest(self.rt.store.get(keys.out(doc_id, Layout.MANIFEST)))
            p.chunks = manifest.chunk_count
            p.pages = p.pages or manifest.page_count
        except NotFound:
            pass
        try:
            report = VerificationReport.model_validate_json(
                self.rt.store.get(keys.out(doc_id, Layout.VERIFICATION))
            )
            p.verification = "passed" if report.passed else "failed"
            p.pages_without_text = report.pages_without_text
        except NotFound:
            pass

    def progress(self, item: BatchItem) -> DocProgress:
        if item.doc_id is None:
            return DocProgress(
                name=item.name,
                origin=item.origin,
                doc_id=None,
                state="failed",
                pages=None,
                fraction=1.0,
                error_code="unreadable",
                error=item.error,
            )
        if item.doc_id in self._final:
            return _as_item(self._final[item.doc_id], item)
        # a document waiting or between commits reads as it did at its last revision
        rev = self.rt.repo.current_revision(item.doc_id)
        seen = self._seen.get(item.doc_id)
        if seen is not None and seen[0] == rev:
            return _as_item(seen[1], item)
        s = self.rt.repo.load(item.doc_id, rev)
        pages = s.page_count if s.source_format == "pdf" else self._docx_pages(s)
        p = DocProgress(
            name=s.source_name,  # the file it was read from (`_as_item` names the item)
            origin=item.origin,
            doc_id=s.doc_id,
            state=s.state,
            pages=pages or None,
            fraction=_fraction(s),
            error_code=s.error_code,
            error=s.error,
        )
        if s.state in STOPPED:
            self._outputs(p, s.doc_id)
            p.seconds = round(self.rt.repo.processing_seconds(s), 2)
            if s.state != "awaiting_decision":
                self._final[s.doc_id] = p
        self._seen[s.doc_id] = (rev, p)
        return _as_item(p, item)

    def report(self, record: BatchRecord) -> BatchReport:
        docs = [self.progress(i) for i in record.items]
        counts: dict[str, int] = {}
        for d in docs:
            counts[d.state] = counts.get(d.state, 0) + 1
        total = sum(d.pages or 0 for d in docs)
        done = sum((d.pages or 0) * d.fraction for d in docs)
        return BatchReport(
            batch_id=record.batch_id,
            mode=dispatcher_for(self.rt).mode,
            store=self.rt.store.url,
            created_at=record.created_at,
            finished=all(d.state in STOPPED for d in docs),
            ok=bool(docs)
            and all(d.state == "complete" and d.verification == "passed" for d in docs),
            counts=counts,
            pages_total=total,
            pages_done=round(done, 1),
            documents=docs,
        )
