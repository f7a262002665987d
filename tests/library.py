"""A library of synthetic documents, for the list pages at scale: each document's job is
committed straight through `JobRepo` (submitted, then stopped: complete with a valid
empty manifest and a verification report, failed with a reason, or waiting for a decision),
so the store, the revision store and its listing hold exactly what the pipeline would leave,
without running it. 10,000 documents take about half a minute (from 16 threads: the
folder store syncs every object it writes).

Only stopped states are made: a server resumes every document that is queued or working,
and a synthetic one has no source to work on."""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from quire.orchestrator.batch import BatchItem, BatchRecord, batch_entry
from quire.shared import keys
from quire.shared.config import RunSettings
from quire.shared.job import Job
from quire.shared.manifest import Manifest, VerificationReport, dump_manifest, dump_report
from quire.workers.runtime import Runtime

THREADS = 16
SUBJECTS = (
    "Linear Algebra",
    "Organic Chemistry",
    "Cell Biology",
    "Thermodynamics",
    "Medieval History",
    "Microeconomics",
    "Number Theory",
    "Compiler Design",
    "Statistics",
    "Ünïcode Typography",
)
KINDS = ("lecture notes", "textbook", "manual", "exercises", "reader")
FAILURES = (
    ("corrupt", "not a PDF file: no trailer"),
    ("too_large", "612 pages, over the limit of 500"),
    ("encrypted", "the PDF is password-protected: give its password"),
    ("timeout", "verifying:render ran past its time limit after 900s"),
)


UNREADABLE = BatchItem(
    origin="/library/lost.pdf",
    name="lost.pdf",
    doc_id=None,
    out_name="lost",
    error="cannot read: [Errno 2] No such file or directory: '/library/lost.pdf'",
)


@dataclass(frozen=True)
class Made:
    names: dict[str, str]  # doc id -> source name
    states: dict[str, str]  # doc id -> state
    seconds: dict[str, float]  # doc id -> its own processing time
    batches: dict[str, list[str]]  # batch id -> its documents (the first also has UNREADABLE)


def name_of(i: int) -> str:
    subject = SUBJECTS[i % len(SUBJECTS)]
    kind = KINDS[(i // len(SUBJECTS)) % len(KINDS)]
    return f"{subject} {kind} {i:05d}.{'docx' if i % 9 == 4 else 'pdf'}"


def state_of(i: int) -> str:
    """About 88 % complete, 8 % failed, 4 % waiting for a decision."""
    return "failed" if i % 13 == 5 else "awaiting_decision" if i % 25 == 7 else "complete"


def _outputs(rt: Runtime, s: Job, sessions: int) -> None:
    """A complete document's manifest and report: valid, with no files to point at."""
    manifest = Manifest(
        doc_id=s.doc_id,
        source_name=s.source_name,
        source_format=s.source_format,
        page_count=s.page_count,
        page_basis="pdf" if s.source_format == "pdf" else "words",
        formats=["markdown"],
        overlap_pages=0,
        chunk_count=sessions,
        element_count=0,
        word_count=0,
        chunks=[],
    )
    report = VerificationReport(doc_id=s.doc_id, passed=True, checked={"elements": 0})
    rt.store.put(keys.out(s.doc_id, "manifest.json"), dump_manifest(manifest))
    rt.store.put(keys.out(s.doc_id, "verification-report.json"), dump_report(report))


def work_seconds(i: int) -> float:
    return 0.4 + (i * 7919) % 1000 / 20  # 0.4-50 s, different for most documents


def document(rt: Runtime, i: int, *, seed: str = "library") -> tuple[str, str]:
    """Commit synthetic document `i`: submitted (revision 1), then stopped (revision 2)."""
    name = name_of(i)
    doc_id = hashlib.sha256(f"{seed}/{i}".encode()).hexdigest()
    fmt = "docx" if name.endswith(".docx") else "pdf"
    pages = 20 + (i * 37) % 400
    s = Job(
        doc_id=doc_id,
        source_name=name,
        source_format=fmt,
        source_key=keys.source(doc_id, fmt),
        page_count=pages if fmt == "pdf" else 0,
        state_entered_at=time.time(),
    )
    rt.repo.commit(s, expected=0, actor="synthetic", why=f"submitted {name}")
    state = state_of(i)
    if state == "failed":
        code, reason = FAILURES[i % len(FAILURES)]
        s.fail(code, f"{name}: {reason}", time.time())
    else:
        s.enter("complete" if state == "complete" else "awaiting_decision", time.time())
        if state == "complete":
            _outputs(rt, s.model_copy(update={"page_count": pages}), sessions=2 + pages // 9)
    s.work_seconds = work_seconds(i)
    rt.repo.commit(s, expected=1, actor="synthetic", why=f"stopped: {state}")
    return doc_id, state


def add(rt: Runtime, made: Made, i: int, *, seed: str) -> str:
    """One more synthetic document, recorded in `made`."""
    doc_id, state = document(rt, i, seed=seed)
    made.names[doc_id], made.states[doc_id] = name_of(i), state
    made.seconds[doc_id] = round(work_seconds(i), 2)
    return doc_id


def populate(rt: Runtime, count: int, *, batch_size: int = 1000, seed: str = "library") -> Made:
    """`count` synthetic documents in batches of `batch_size` (each a batch record in the
    store, listed as `quire batch` lists one; the first also has an unreadable source).
    Committed from several threads, so their order in the listing is not their number's."""
    with ThreadPoolExecutor(THREADS) as pool:  # the store syncs every object to disk: overlap
        made = list(pool.map(lambda i: document(rt, i, seed=seed), range(count)))
    batches: dict[str, list[str]] = {}
    for start in range(0, count, batch_size):
        part = made[start : start + batch_size]
        batch_id = "batch-" + hashlib.sha256(f"{seed}/batch/{start}".encode()).hexdigest()[:12]
        items = [
            BatchItem(
                origin=f"/library/{name_of(start + k)}",
                name=name_of(start + k),
                doc_id=doc_id,
                out_name=f"doc-{start + k}",
            )
            for k, (doc_id, _) in enumerate(part)
        ]
        record = BatchRecord(
            batch_id=batch_id,
            created_at=time.time(),
            settings=RunSettings(),
            items=items + ([UNREADABLE] if not batches else []),
        )
        rt.store.put(keys.batch(batch_id), record.model_dump_json().encode())
        rt.revisions.index_batch(batch_entry(record))
        batches[batch_id] = [d for d, _ in part]
    return Made(
        names={d: name_of(i) for i, (d, _) in enumerate(made)},
        states=dict(made),
        seconds={d: round(work_seconds(i), 2) for i, (d, _) in enumerate(made)},
        batches=batches,
    )
