"""Celery task wrappers: one task name per queue, each a thin call into `workers.execute`.

Task names and arguments are readable in Flower: `quire.advance` (args: doc id) on the
`orchestrate` queue, and `quire.part.<queue>` (args: doc id, state, part, revision) for the
work. Only transient faults are retried, with exponential backoff and jitter.
"""

from __future__ import annotations

import functools
from typing import Any

from celery import Task

from orchestrator.engine import TaskMessage
from orchestrator.states import QUEUES
from shared.errors import TransientError
from workers.app import TIME_LIMITS, app
from workers.runtime import Runtime


@functools.cache
def runtime() -> Runtime:
    return Runtime.from_env()


def send(messages: list[TaskMessage]) -> None:
    for m in messages:
        app.send_task(f"quire.part.{m.queue}", args=[m.doc_id, m.state, m.part, m.revision],
                      queue=m.queue)


def poke(doc_id: str) -> None:
    """Ask the orchestrator to advance a document."""
    app.send_task(ADVANCE, args=[doc_id], queue="orchestrate")


def _orchestrate(doc_id: str) -> None:
    from workers.execute import advance_document

    send(advance_document(runtime(), doc_id))


def _run_part(doc_id: str, state: str, part: str, revision: int) -> None:
    from workers.execute import advance_document, run_part

    msg = TaskMessage(doc_id=doc_id, state=state, part=part, revision=revision)
    if run_part(runtime(), msg, actor=f"worker:{msg.queue}"):
        # advance right here rather than through the orchestrate queue: the same
        # idempotent, revision-checked step, minus a queue hop behind other parts
        send(advance_document(runtime(), doc_id))


def _register(name: str, queue: str, body: Any) -> Task[Any, Any]:
    soft, hard = TIME_LIMITS[queue]
    return app.task(
        name=name, queue=queue, soft_time_limit=soft, time_limit=hard,
        autoretry_for=(TransientError,), retry_backoff=2, retry_backoff_max=120,
        retry_jitter=True, max_retries=6, acks_late=True,
    )(body)


ADVANCE = "quire.advance"
TASKS = {ADVANCE: _register(ADVANCE, "orchestrate", _orchestrate)} | {
    f"quire.part.{q}": _register(f"quire.part.{q}", q, _run_part) for q in QUEUES}
