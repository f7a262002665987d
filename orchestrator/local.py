"""The embedded runner: the same parts as the Celery workers, run in a local process pool.

No broker, Redis or S3: the runtime comes from the environment (by default a LocalStore and
the SQLite revision store), and every document advances through the same `advance` /
`run_part` pair that the distributed system uses.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

from quire.shared.config import Environment
from quire.shared.engine import TaskMessage
from quire.shared.logs import configure_logging
from quire.shared.settings import LogFormat, load_settings
from quire.workers.execute import advance_document, run_part
from quire.workers.runtime import Runtime

_RT: Runtime | None = None


def _init(env: Environment, level: int, fmt: LogFormat) -> None:
    global _RT
    configure_logging(level, fmt)  # a spawned child starts bare
    _RT = Runtime.from_env(env)


def _run(msg: TaskMessage) -> None:
    assert _RT is not None
    run_part(_RT, msg, actor="embedded")


Submit = Callable[[TaskMessage], "Future[None]"]


def _inline(rt: Runtime) -> Submit:
    """Run each part at once in this process: no pool start-up cost for small jobs."""

    def submit(msg: TaskMessage) -> Future[None]:
        fut: Future[None] = Future()
        try:
            run_part(rt, msg, actor="embedded")
            fut.set_result(None)
        except BaseException as exc:
            fut.set_exception(exc)
        return fut

    return submit


Progress = Callable[[TaskMessage], object]


def run_documents(
    rt: Runtime, doc_ids: list[str], *, processes: int = 1, on_done: Progress | None = None
) -> None:
    """Drive documents until each is complete, failed or waiting for an external decision."""
    if processes <= 1:
        _drive(rt, doc_ids, _inline(rt), on_done)
        return
    gc.collect()  # see BASELINES.md: never let a child free ONNX sessions it inherited
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        processes,
        mp_context=ctx,
        initializer=_init,
        initargs=(rt.env, logging.getLogger().level, load_settings().log_format),
    ) as pool:
        _drive(rt, doc_ids, lambda msg: pool.submit(_run, msg), on_done)


def _drive(rt: Runtime, doc_ids: list[str], submit: Submit, on_done: Progress | None) -> None:
    ready = list(dict.fromkeys(doc_ids))
    running: dict[Future[None], TaskMessage] = {}
    while ready or running:
        for doc_id in ready:
            for msg in advance_document(rt, doc_id):
                running[submit(msg)] = msg
        ready = []
        if not running:
            break
        finished, _ = wait(running, return_when=FIRST_COMPLETED)
        for fut in finished:
            msg = running.pop(fut)
            fut.result()  # run_part records document failures itself; this is a real bug
            if on_done:
                on_done(msg)
            ready.append(msg.doc_id)  # advance is idempotent: it sends only new parts
        ready = list(dict.fromkeys(ready))
