"""The Celery application: queues, routing and the reliability settings (DESIGN.md §3).

Messages are small JSON (`TaskMessage`: ids, part names, revisions). Fan-in is tracked in
our own revision-checked session state, not with chords, so no result backend is needed.

This module is the Celery worker's entry point (`celery -A quire.workers.tasks` and
`quire worker` import it and Celery builds the app then): the `QUIRE_*` settings are read
here, once (`SETTINGS`), and passed to everything the worker builds.
"""

from __future__ import annotations

from celery import Celery
from kombu import Queue

from quire.shared.settings import Settings, load_settings
from quire.shared.states import QUEUES

# soft / hard time limits per queue, seconds
TIME_LIMITS: dict[str, tuple[int, int]] = {
    "orchestrate": (120, 180),
    "parse": (600, 660),
    "review": (300, 360),
    "write": (300, 360),
    "render": (600, 660),
    "analysis": (300, 360),
}


def time_limits(queue: str, scale: float) -> tuple[float, float]:
    """(soft, hard) seconds for a queue's tasks, multiplied by `scale`
    (`QUIRE_TIME_LIMIT_SCALE`; tests use small values). The soft limit fails the document
    with code "timeout"; the hard limit (kept at least 5 s later) kills a task stuck in
    native code."""
    soft, hard = TIME_LIMITS[queue]
    return soft * scale, max(hard * scale, soft * scale + 5)


def broker_transport_options(settings: Settings) -> dict[str, float]:
    """Redis redelivers an unacknowledged task (its worker died) only after the visibility
    timeout: `QUIRE_VISIBILITY_TIMEOUT` seconds (default 1800). A task running longer than
    this is delivered a second time, which is harmless (parts are idempotent) but wasteful,
    so keep it above the longest time limit in production. A timeout set here also makes
    the restore sweep run every quarter timeout (at most every 10 s), so it takes effect."""
    timeout = settings.visibility_timeout
    if "visibility_timeout" not in settings.model_fields_set:
        return {"visibility_timeout": timeout}
    return {
        "visibility_timeout": timeout,
        "unacked_restore_interval": max(1.0, min(10.0, timeout / 4)),
        "unacked_restore_throttle": 1,
    }


def make_app(env: Settings) -> Celery:
    app = Celery("quire", broker=env.broker_url or "memory://")
    app.conf.update(
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        result_expires=3600,
        task_queues=[Queue(q) for q in QUEUES],
        task_default_queue="orchestrate",
        task_routes={"quire.advance": {"queue": "orchestrate"}}
        | {f"quire.part.{q}": {"queue": q} for q in QUEUES},
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        # PyMuPDF is a native library: recycle children to bound leaks. The memory cap is
        # the real guard; the task count is high because a new child starts cold (its IR
        # cache, open PDF and MuPDF's font store empty) and a book is a few hundred tasks.
        worker_max_tasks_per_child=1000,
        worker_max_memory_per_child=1_500_000,  # KiB
        # Redis redelivers unacknowledged tasks only after this; the reconciler covers loss
        broker_transport_options=broker_transport_options(env),
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        task_send_sent_event=True,
        worker_send_task_events=True,
    )
    return app


SETTINGS = load_settings()
app = make_app(SETTINGS)


def use_broker(url: str) -> None:
    """Point the (import-time) app at `url` before the first send, e.g. in a CLI process
    whose environment was set after import."""
    if app.conf.broker_url != url:
        app._after_fork()  # Celery's own reset of pooled broker connections
        app.conf.broker_url = url
