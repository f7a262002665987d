"""Where documents run: in this process (embedded) or on the Celery workers (distributed).

Chosen once from the environment by `dispatcher_for` and used by every way in — `run`,
`batch`, the upload triggers and the MCP server — so none of them decides it again.
"""

from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from collections.abc import Callable

from quire.shared.states import STOPPED
from quire.workers.runtime import Runtime

Tick = Callable[[], object]  # called as documents progress; its result is ignored


class Dispatcher(ABC):
    """Moves documents through the pipeline until each has stopped (STOPPED)."""

    in_process: bool  # True: documents move only while `drive` runs in this process

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    def pending(self, doc_ids: list[str]) -> list[str]:
        return [d for d in dict.fromkeys(doc_ids) if self.rt.repo.load(d).state not in STOPPED]

    @abstractmethod
    def start(self, doc_ids: list[str]) -> None:
        """Hand documents over without waiting (distributed); embedded: nothing to do,
        they move when driven."""

    @abstractmethod
    def drive(
        self, doc_ids: list[str], *, tick: Tick | None = None, timeout: float | None = None
    ) -> None:
        """Return when every document has stopped; call `tick` as they progress. Raises
        TimeoutError after `timeout` seconds (distributed only: embedded runs to the end)."""


class EmbeddedDispatcher(Dispatcher):
    in_process = True

    def __init__(self, rt: Runtime, processes: int | None = None) -> None:
        super().__init__(rt)
        self.processes = processes or os.cpu_count() or 1

    def start(self, doc_ids: list[str]) -> None:
        return None

    def drive(
        self, doc_ids: list[str], *, tick: Tick | None = None, timeout: float | None = None
    ) -> None:
        from quire.orchestrator.local import run_documents

        pending = self.pending(doc_ids)
        if pending:
            run_documents(self.rt, pending, processes=self.processes, tick=tick)


class CeleryDispatcher(Dispatcher):
    in_process = False

    def __init__(self, rt: Runtime, broker_url: str, poll: float = 0.5) -> None:
        super().__init__(rt)
        from quire.workers.app import use_broker

        use_broker(broker_url)  # the CLI's environment may have been set after import
        self.poll = poll

    def start(self, doc_ids: list[str]) -> None:
        from quire.workers.tasks import poke

        for doc_id in dict.fromkeys(doc_ids):
            poke(doc_id)

    def drive(
        self, doc_ids: list[str], *, tick: Tick | None = None, timeout: float | None = None
    ) -> None:
        self.start(self.pending(doc_ids))
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.pending(doc_ids):
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"documents not finished after {timeout}s")
            if tick:
                tick()
            time.sleep(self.poll)


def dispatcher_for(rt: Runtime, *, processes: int | None = None, poll: float = 0.5) -> Dispatcher:
    """Celery when a broker is configured (state polled every `poll` seconds while
    driving), else this process with `processes` worker processes (default: CPUs)."""
    if rt.env.broker_url:
        return CeleryDispatcher(rt, rt.env.broker_url, poll)
    return EmbeddedDispatcher(rt, processes)
