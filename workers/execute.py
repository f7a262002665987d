"""Running one part, the same way on a Celery worker and in the embedded runner.

A part is skipped when its message is stale (the document moved on) or a duplicate (the
part is already done); its output key is derived from its inputs, so a redelivered task
rewrites the same object with the same bytes. Bad input fails the document, never the
worker; transient faults propagate so Celery retries them.
"""

from __future__ import annotations

import contextlib
import logging
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from quire.shared import keys
from quire.shared.config import RunSettings
from quire.shared.engine import TaskMessage, advance, mark_done, mark_failed, superseded
from quire.shared.errors import InputError, QuireError, TooLargeError, TransientError
from quire.shared.job import Job
from quire.shared.logs import part_fields
from quire.shared.text import sha256_bytes
from quire.shared.version import package_version
from quire.workers import steps
from quire.workers.parse.compressed import decompress, inner_name
from quire.workers.parse.detect import format_of_name
from quire.workers.runtime import Runtime

log = logging.getLogger("quire.execute")
_LOCKED = ("encrypted", "bad_password")


def advance_document(rt: Runtime, doc_id: str) -> list[TaskMessage]:
    try:
        return advance(rt.repo, doc_id, lambda s: steps.parts_for(rt, s))
    except TransientError:
        raise
    except QuireError as exc:
        mark_failed(rt.repo, doc_id, exc.code, str(exc), actor="orchestrator")
        return []


def _fields(msg: TaskMessage) -> dict[str, object]:
    return part_fields(msg.doc_id, msg.state, msg.part, msg.revision)


def run_part(
    rt: Runtime, msg: TaskMessage, *, actor: str, timeouts: tuple[type[BaseException], ...] = ()
) -> bool:
    """Run one part and record it. Returns True when the job changed. `timeouts`:
    the exceptions that mean the part ran out of time (Celery's soft time limit)."""
    s = rt.repo.load(msg.doc_id)
    if superseded(s, msg):
        log.info(
            "skip %s %s:%s@%d (stale, duplicate or re-dispatched)",
            msg.doc_id[:12],
            msg.state,
            msg.part,
            msg.revision,
            extra=_fields(msg),
        )
        return False
    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        result = steps.run(rt, s, msg.part)
    except TransientError:
        raise
    except timeouts:  # a document that takes too long fails alone, with that reason
        mark_failed(
            rt.repo,
            msg.doc_id,
            "timeout",
            f"{s.source_name}: {msg.state}:{msg.part} ran past its time limit after "
            f"{time.perf_counter() - started:.0f}s",
            actor=actor,
            seconds=time.perf_counter() - started,
        )
        return True
    except QuireError as exc:  # named after the document, not the stored copy's key
        reason = f"{s.source_name}: {exc.message}"
        took = time.perf_counter() - started
        mark_failed(rt.repo, msg.doc_id, exc.code, reason, actor=actor, seconds=took)
        return True
    except Exception as exc:  # a bug must fail this document only, with its reason kept
        log.exception("%s %s:%s crashed", msg.doc_id[:12], msg.state, msg.part, extra=_fields(msg))
        mark_failed(
            rt.repo,
            msg.doc_id,
            "internal",
            f"{s.source_name}: {type(exc).__name__}: {exc}",
            actor=actor,
            seconds=time.perf_counter() - started,
        )
        return True
    took = time.perf_counter() - started  # the document's own time (DocEntry.seconds)
    cpu = time.process_time() - cpu_started  # this process's CPU (bench/bench_batch.py)
    log.info(
        "%s %s:%s done in %.2fs",
        msg.doc_id[:12],
        msg.state,
        msg.part,
        took,
        extra={**_fields(msg), "seconds": round(took, 4), "cpu_seconds": round(cpu, 4)},
    )
    return mark_done(
        rt.repo,
        msg,
        result.key,
        actor=actor,
        goto=result.goto,
        artifacts=result.artifacts,
        seconds=took,
    )


def submit(
    rt: Runtime,
    path: Path,
    settings: RunSettings,
    *,
    actor: str = "cli",
    rerun: bool = False,
    password: str | None = None,
) -> Job:
    """Create the document's job, or return the existing one: documents are keyed by
    content hash, so the same file twice is one document. With `rerun`, a finished document
    whose settings differ, that failed, or that another Quire version made (`rerun_reason`)
    starts again, its old outputs removed. Bad input
    is recorded as a failed job with its reason, so a batch keeps going.

    `password` (else QUIRE_PDF_PASSWORD) opens a password-protected PDF here, at
    admission: the stored source is a decrypted copy (the document id stays the hash of the
    uploaded bytes), so no password ever reaches a worker, a task message or a job.

    A folder is an HTML book (html_input): it is submitted as its bundle,
    `<folder>.htmlz` (`book_name`); a folder that states no order for its chapters raises
    InputError."""
    if path.is_dir():
        from quire.workers.parse.html_input import book_name, bundle_folder

        return submit_bytes(
            rt, bundle_folder(path), book_name(path), settings, actor=actor, rerun=rerun
        )
    return submit_bytes(
        rt,
        path.read_bytes(),
        path.name,
        settings,
        actor=actor,
        rerun=rerun,
        path=path,
        password=password,
    )


def submit_bytes(
    rt: Runtime,
    data: bytes,
    name: str,
    settings: RunSettings,
    *,
    actor: str = "cli",
    rerun: bool = False,
    path: Path | None = None,
    password: str | None = None,
) -> Job:
    """`submit` for bytes from anywhere (an S3 object, an HTTP upload); `name` is the file
    name whose extension says what the bytes should be. `path`, when given, is a local file
    holding the same bytes (spares a temporary copy for the format checks)."""
    job, _ = admit_bytes(
        rt, data, name, settings, actor=actor, rerun=rerun, path=path, password=password
    )
    return job


def admit_bytes(
    rt: Runtime,
    data: bytes,
    name: str,
    settings: RunSettings,
    *,
    actor: str = "cli",
    rerun: bool = False,
    path: Path | None = None,
    password: str | None = None,
) -> tuple[Job, bool]:
    """`submit_bytes`, and whether this call created the document: of any number of
    concurrent submissions of the same new bytes exactly one did (its first revision's
    create-only write won)."""
    unpacked: InputError | None = None
    if (inner := inner_name(name)) is not None:  # a .pdf.gz: the document inside
        try:
            data, name, path = decompress(data, name, settings.max_file_bytes), inner, None
        except InputError as exc:
            unpacked = exc
    if format_of_name(name) == "html" and not data.startswith(b"PK\x03\x04"):
        data = _html_bundle(data, name, path)
    doc_id = sha256_bytes(data)
    if password is None and (secret := rt.env.pdf_password) is not None:
        password = secret.get_secret_value()
    expected = 0
    if rt.repo.exists(doc_id):
        old = rt.repo.load(doc_id)
        refused = old.state == "failed" and old.why.startswith(_submitted(""))
        # refused for want of the right password, and a password is given now
        unlocking = refused and bool(password) and old.error_code in _LOCKED
        if not unlocking and not (rerun and old.terminal and rerun_reason(old, settings)):
            return old, False
        if not refused:
            return restart(rt, old, settings, actor=actor), False
        expected = old.revision  # refused at submission (a limit, a password): admit again
    now = time.time()
    fmt = format_of_name(name) or "pdf"  # another extension is refused by _admit
    job = Job(
        doc_id=doc_id,
        made_by=package_version(),
        source_name=name,
        source_format=fmt,
        source_key=keys.source(doc_id, fmt),
        settings=settings,
        state_entered_at=now,
    )
    try:
        if unpacked is not None:
            raise unpacked
        if len(data) > settings.max_file_bytes:
            raise TooLargeError(
                f"file is {len(data)} bytes, over the limit of {settings.max_file_bytes}",
                source=name,
            )
        with _local_copy(data, name, path) as local:
            _admit(rt, job, data, local, password)
    except InputError as exc:
        job.fail(exc.code, str(exc), now)
    try:
        committed = rt.repo.commit(job, expected=expected, actor=actor, why=_submitted(name))
    except QuireError:
        return rt.repo.load(doc_id), False  # submitted concurrently by someone else
    return committed, expected == 0


def source_bytes(path: Path) -> bytes:
    """The bytes `submit` stores for `path` (whose hash is the document's id): the file's
    own, or an HTML file's or folder's bundle."""
    if path.is_dir() or (format_of_name(path.name) == "html" and path.is_file()):
        from quire.workers.parse.html_input import bundle_path

        return bundle_path(path)
    return path.read_bytes()


def _html_bundle(data: bytes, name: str, path: Path | None) -> bytes:
    """An HTML file as its bundle: with the images beside it when it is a local file."""
    from quire.workers.parse.html_input import bundle_bytes, bundle_path

    if path is not None and path.is_file():
        return bundle_path(path)
    return bundle_bytes(data, name)


def _submitted(name: str) -> str:
    """The `why` of a submission's commit (a failed job with it was refused there)."""
    return f"submitted {name}"


def _admit(rt: Runtime, job: Job, data: bytes, path: Path, password: str | None) -> None:
    """Check the format and the page limit, and store the source (a password-protected PDF
    as its decrypted copy); InputError refuses."""
    from quire.workers.parse.detect import detect_format
    from quire.workers.parse.pdf_open import pdf_page_count, unlock_pdf

    job.source_format = detect_format(path)
    job.source_key = keys.source(job.doc_id, job.source_format)
    if job.source_format == "pdf":
        unlocked = unlock_pdf(path, password)
        if unlocked is not None:
            with _local_copy(unlocked, path.name, None) as copy:
                job.page_count = pdf_page_count(copy)
            rt.store.put(job.source_key, unlocked)
        else:
            job.page_count = pdf_page_count(path)
            rt.store.put(job.source_key, data)
    else:
        rt.store.put(job.source_key, data)
    if job.page_count > job.settings.max_pages:
        raise TooLargeError(
            f"{job.page_count} pages, over the limit of {job.settings.max_pages}",
            source=path.name,
        )


@contextlib.contextmanager
def _local_copy(data: bytes, name: str, path: Path | None) -> Iterator[Path]:
    if path is not None:
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="quire-submit-") as tmp:
        local = Path(tmp) / (Path(name).name or "source")
        local.write_bytes(data)
        yield local


def rerun_reason(old: Job, settings: RunSettings) -> str | None:
    """Why a finished document runs again when asked to (`rerun`): other settings, a
    failure, or another Quire version than the one that made it (an upgrade's better
    parse or plan must reach the folder; the same version's output would be the same)."""
    if old.state == "failed":
        return "re-run after a failure"
    if old.settings != settings:
        return "re-run with new settings"
    if old.made_by != package_version():
        return f"re-run by Quire {package_version()} (made by {old.made_by or 'an older one'})"
    return None


def restart(rt: Runtime, old: Job, settings: RunSettings, *, actor: str) -> Job:
    for prefix in (keys.out(old.doc_id), keys.work(old.doc_id)):
        for key in rt.store.list(prefix):
            rt.store.delete(key)
    new = old.model_copy(deep=True)
    new.enter("queued", time.time())
    new.settings, new.error, new.error_code = settings, None, None
    new.work_seconds = 0.0  # this run's time only
    why = rerun_reason(old, settings) or "re-run on request"
    new.made_by = package_version()
    return rt.repo.commit(new, expected=old.revision, actor=actor, why=why)
