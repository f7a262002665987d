"""The embedded runner: the same parts as the Celery workers, run in this process or in a pool
of worker processes (`orchestrator.pool`).

No broker, Redis or S3: the runtime comes from the environment (by default a LocalStore and
the SQLite revision store), and every document advances through the same `advance` /
`run_part` pair that the distributed system uses. A document is driven only under its lease
(`orchestrator.leases`): one held by another live run is followed until it stops or its run
ends, and then taken over.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait

from quire.orchestrator.leases import Leases
from quire.orchestrator.pool import PartPool, WorkerCrashed
from quire.shared.engine import TaskMessage, mark_failed
from quire.shared.states import STOPPED
from quire.workers.execute import advance_document, run_part
from quire.workers.runtime import Runtime

Submit = Callable[[TaskMessage], "Future[None]"]
SIGNAL_CHECK = 0.5  # s: the longest the driver waits for a part before it looks again
Tick = Callable[[], object]


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


@contextlib.contextmanager
def _parts(rt: Runtime, processes: int) -> Iterator[Submit]:
    if processes <= 1:
        yield _inline(rt)
        return
    pool = PartPool(rt, processes)
    try:
        yield pool.submit
    except BaseException:
        pool.close(kill=True)  # abandoned: its parts are sent again by the next run
        raise
    pool.close()


def window(processes: int) -> int:
    """Documents in progress at once: enough for every worker to have parts while some
    documents are in a stage of one part (scoring, planning), few enough that each worker's
    caches (IR, document statistics) still hold a document's data when its next stage
    comes, and that a batch's memory is that of the documents in progress, not the batch."""
    return 2 * max(processes, 1) + 1


def run_documents(
    rt: Runtime,
    doc_ids: list[str],
    *,
    processes: int = 1,
    tick: Tick | None = None,
    poll: float = 1.0,
) -> None:
    """Drive documents until each is complete, failed or waiting for an external decision;
    `tick` is called as they progress (also those another run drives, checked every
    `poll` seconds). Every document is leased at once, but only `window(processes)` are
    in progress at a time, in the order given."""
    with Leases(rt) as leases, _parts(rt, processes) as submit:
        _Drive(rt, leases, submit, tick, poll, window(processes)).run(doc_ids)


class _Drive:
    def __init__(
        self,
        rt: Runtime,
        leases: Leases,
        submit: Submit,
        tick: Tick | None,
        poll: float,
        size: int,
    ) -> None:
        self.rt, self.leases, self.submit, self.tick, self.poll = rt, leases, submit, tick, poll
        self.running: dict[Future[None], TaskMessage] = {}
        self.others: list[str] = []  # documents not ours (yet): another live run drives them
        self.waiting: deque[str] = deque()  # ours, not started yet
        self.active: set[str] = set()  # ours, in progress
        self.size = size

    def run(self, doc_ids: list[str]) -> None:
        self.others = list(dict.fromkeys(doc_ids))
        self.waiting.extend(self._claim())
        ready = self._admit()
        while True:
            while ready:  # a document that stops at once makes room for the next
                for doc_id in ready:
                    self._advance(doc_id)
                ready = self._admit()
            if not self.running and not self.others and not self.waiting:
                return
            ready = self._finished()
            if self.tick:
                self.tick()
            self.waiting.extend(self._claim())
            ready += self._admit()

    def _admit(self) -> list[str]:
        """Start waiting documents while there is room."""
        started = []
        while self.waiting and len(self.active) < self.size:
            doc_id = self.waiting.popleft()
            self.active.add(doc_id)
            started.append(doc_id)
        return started

    def _claim(self) -> list[str]:
        """Take the documents among `others` whose run has ended (or that have none)."""
        taken = []
        for doc_id in list(self.others):
            if self.rt.repo.load(doc_id).state in STOPPED:
                self.others.remove(doc_id)
            elif self.leases.take(doc_id):
                self.others.remove(doc_id)
                taken.append(doc_id)
        return taken

    def _advance(self, doc_id: str) -> None:
        if not self.leases.holds(doc_id):  # lost to another run while we stalled
            self.active.discard(doc_id)
            return
        sent = advance_document(self.rt, doc_id)  # idempotent: only parts not yet sent
        for msg in sent:
            self.running[self.submit(msg)] = msg
        if not sent and all(m.doc_id != doc_id for m in self.running.values()):
            self.active.discard(doc_id)
            self.leases.release(doc_id)  # stopped: an agent or another run may go on with it

    def _finished(self) -> list[str]:
        if not self.running:
            time.sleep(self.poll)  # only others' documents left: follow them
            return []
        # Never an endless wait: a Ctrl-C may land on another thread of this process (the
        # pool's, the lease renewer's), and Python raises it in the main thread only when
        # that next takes the interpreter lock: after a timed wait, not during an endless one.
        timeout = self.poll if self.others else SIGNAL_CHECK
        done, _ = wait(self.running, timeout=timeout, return_when=FIRST_COMPLETED)
        ready = []
        for fut in done:
            msg = self.running.pop(fut)
            try:
                fut.result()  # run_part records document failures itself; this is a real bug
            except WorkerCrashed as exc:  # native crash, out of memory: this document only
                name = self.rt.repo.load(msg.doc_id).source_name
                mark_failed(self.rt.repo, msg.doc_id, exc.code, f"{name}: {exc}", actor="embedded")
            ready.append(msg.doc_id)
        return list(dict.fromkeys(ready))
