"""Celery task wrappers: one task name per queue, each a thin call into `workers.execute`.

Task names and arguments are readable in Flower: `quire.advance` (args: doc id) on the
`orchestrate` queue, and `quire.part.<queue>` (args: doc id, state, part, revision) for the
work. Only transient faults are retried, with exponential backoff and jitter.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from celery import Task, current_task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from celery.signals import setup_logging, worker_init

from quire.shared.engine import TaskMessage
from quire.shared.errors import TransientError
from quire.shared.logs import configure_logging
from quire.shared.states import QUEUES
from quire.workers.app import SETTINGS, app, time_limits
from quire.workers.runtime import Runtime


@setup_logging.connect
def _logging(loglevel: int | str | None = None, **_: Any) -> None:
    """Celery leaves logging to us when this signal is connected: the same text or JSON
    lines (QUIRE_LOG_FORMAT) as every other Quire process."""
    level = logging.getLevelName(loglevel.upper()) if isinstance(loglevel, str) else loglevel
    configure_logging(level or logging.INFO, SETTINGS.log_format)


@worker_init.connect
def _preload(**_: Any) -> None:
    """Import the stage code in the worker's main process, before it forks its pool: each
    child (and each replacement child) then starts with it imported, not ~0.5 s later."""
    import quire.workers.analysis
    import quire.workers.boundaries.planner
    import quire.workers.parse
    import quire.workers.review
    import quire.workers.verify.report
    import quire.workers.write  # noqa: F401
    from quire.workers.parse.pdf_open import pymupdf_module

    pymupdf_module()


@functools.cache
def runtime() -> Runtime:
    return Runtime.from_env(SETTINGS)


def send(messages: list[TaskMessage]) -> None:
    for m in messages:
        app.send_task(
            f"quire.part.{m.queue}", args=[m.doc_id, m.state, m.part, m.revision], queue=m.queue
        )


def poke(doc_id: str) -> None:
    """Ask the orchestrator to advance a document."""
    app.send_task(ADVANCE, args=[doc_id], queue="orchestrate")


def _orchestrate(doc_id: str) -> None:
    from quire.workers.execute import advance_document

    send(advance_document(runtime(), doc_id))


def _run_part(doc_id: str, state: str, part: str, revision: int) -> None:
    from quire.workers.execute import advance_document, run_part

    msg = TaskMessage(doc_id=doc_id, state=state, part=part, revision=revision)
    try:
        run_part(runtime(), msg, actor=f"worker:{msg.queue}", timeouts=(SoftTimeLimitExceeded,))
    except TransientError as exc:
        if current_task.request.retries < current_task.max_retries:
            raise  # autoretry: again after a backoff
        _give_up(msg, exc)
        return
    # advance right here rather than through the orchestrate queue: the same idempotent,
    # revision-checked step, minus a queue hop behind other parts. Also when this delivery
    # changed nothing: a duplicate of a part whose worker died after recording it and
    # before advancing must still advance, or the document waits for the reconciler.
    send(advance_document(runtime(), doc_id))


def _give_up(msg: TaskMessage, exc: TransientError) -> None:
    """A fault that outlasted every retry is no longer transient for this document: fail
    it with the fault as the reason, instead of leaving it for the reconciler to time out."""
    from quire.shared.engine import mark_failed

    rt = runtime()
    name = rt.repo.load(msg.doc_id).source_name
    attempts = current_task.request.retries + 1
    mark_failed(
        rt.repo,
        msg.doc_id,
        exc.code,
        f"{name}: {msg.state}:{msg.part} gave up after {attempts} attempts: {exc}",
        actor=f"worker:{msg.queue}",
    )


class PartTask(Task[Any, Any]):
    """A part task that fails its document when the hard time limit kills it."""

    def on_failure(self, exc: Exception, task_id: str, args: Any, kwargs: Any, einfo: Any) -> None:
        # Celery calls this in the worker's main process after the hard limit killed the
        # child (code that never returned to Python, e.g. stuck in MuPDF): fail the
        # document now, rather than leave it to the reconciler's deadline.
        if isinstance(exc, TimeLimitExceeded):
            _killed(TaskMessage(doc_id=args[0], state=args[1], part=args[2], revision=args[3]))


def _killed(msg: TaskMessage) -> None:
    from quire.shared.engine import mark_failed, superseded

    # A Runtime of its own, dropped after use: the cached one would be inherited by the
    # children this process forks later, sockets and all.
    rt = Runtime.from_env(SETTINGS)
    try:
        s = rt.repo.load(msg.doc_id)
        if superseded(s, msg):
            return  # the document moved on, or the part went out again
        mark_failed(
            rt.repo,
            msg.doc_id,
            "timeout",
            f"{s.source_name}: {msg.state}:{msg.part} was killed at its hard time limit",
            actor=f"worker:{msg.queue}",
        )
    finally:
        rt.revisions.close()


def _register(
    name: str, queue: str, body: Any, base: type[Task[Any, Any]] = Task
) -> Task[Any, Any]:
    """Retries of transient faults: QUIRE_TASK_MAX_RETRIES after exponential backoff from
    QUIRE_TASK_RETRY_BACKOFF seconds, capped at 120, with full jitter."""
    soft, hard = time_limits(queue, SETTINGS.time_limit_scale)
    return app.task(
        base=base,
        name=name,
        queue=queue,
        soft_time_limit=soft,
        time_limit=hard,
        autoretry_for=(TransientError,),
        retry_backoff=SETTINGS.task_retry_backoff,
        retry_backoff_max=120,
        retry_jitter=True,
        max_retries=SETTINGS.task_max_retries,
        acks_late=True,
    )(body)


ADVANCE = "quire.advance"
TASKS = {ADVANCE: _register(ADVANCE, "orchestrate", _orchestrate)} | {
    f"quire.part.{q}": _register(f"quire.part.{q}", q, _run_part, PartTask) for q in QUEUES
}
