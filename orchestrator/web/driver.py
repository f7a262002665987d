"""Keeps the documents the server admitted moving.

Distributed, the workers do the work: a submission only pokes them (`Dispatcher.submit`).
Embedded, documents move only while `Dispatcher.drive` runs in this process, so a few
background threads drive them, one document each, with their parts in worker processes —
never in the server process itself: its threads serve requests, and the pipeline's parts
(PyMuPDF, per-process caches) are written for one part at a time per process. Work a
server stopped in the middle of is picked up again when the next one starts (every part is
idempotent).
"""

from __future__ import annotations

import logging
import queue
import threading

from quire.orchestrator.dispatch import Dispatcher
from quire.orchestrator.web import lists

log = logging.getLogger("quire.web.driver")


class Driver:
    def __init__(self, dispatcher: Dispatcher, *, threads: int = 2) -> None:
        self.dispatcher = dispatcher
        self.threads = threads
        self._queue: queue.Queue[str] = queue.Queue()
        self._active: set[str] = set()  # queued or being driven
        self._lock = threading.Lock()
        self._started = False
        self._driving = False  # the driving threads run (from the first document to drive)

    def start(self) -> None:
        """Bring the documents listing up to date and resume unfinished documents (found in
        the listing: no session is read)."""
        if self._started:
            return
        self._started = True
        rt = self.dispatcher.rt
        documents, batches = lists.sync(rt)
        if documents or batches:
            log.info("listed %d documents and %d batches recorded before", documents, batches)
        self.submit(lists.unfinished(rt))

    def submit(self, doc_ids: list[str]) -> None:
        for doc_id in self.dispatcher.submit(doc_ids):  # those that move only when driven here
            with self._lock:
                if doc_id in self._active:
                    continue
                self._active.add(doc_id)
                if not self._driving:  # the first one: start the threads that drive them
                    self._driving = True
                    for n in range(self.threads):
                        threading.Thread(
                            target=self._work, name=f"quire-driver-{n}", daemon=True
                        ).start()
            self._queue.put(doc_id)

    def _work(self) -> None:
        while True:
            doc_id = self._queue.get()
            while True:
                failed = False
                try:
                    self.dispatcher.drive([doc_id])
                except Exception:  # a bug in one document must not stop the others
                    log.exception("driving %s failed", doc_id[:12])
                    failed = True
                with self._lock:  # a re-run submitted while we drove is not lost
                    if failed or not self.dispatcher.pending([doc_id]):
                        self._active.discard(doc_id)
                        break
