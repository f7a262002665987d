"""Where documents run: in this process (embedded) or on the Celery workers (distributed).

The one place that tells the two apart. `dispatcher_for` picks the implementation from the
runtime's `Deployment` (broker and stores, checked together: `quire.shared.config`), and
every way in — `run`, `batch`, the upload triggers, the web server, the MCP server,
`status`, `metrics` — asks its dispatcher to do what differs between the modes instead of
asking which mode it is in (tests/test_one_dispatcher.py fails on such a question asked
anywhere else).
"""

from __future__ import annotations

import os
import subprocess
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from quire.shared.errors import SettingsError
from quire.shared.job import Job
from quire.shared.settings import Mode, Settings
from quire.shared.states import QUEUES, STOPPED
from quire.workers.runtime import Runtime

Tick = Callable[[], object]  # called as documents progress; its result is ignored

# kombu's Redis transport keeps priority levels in sibling lists: "{queue}\x06\x16{n}"
_PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")


class Dispatcher(ABC):
    """Moves documents through the pipeline until each has stopped (STOPPED)."""

    mode: ClassVar[Mode]  # for people and reports (`BatchReport.mode`, the web's health)

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    def pending(self, doc_ids: list[str]) -> list[str]:
        return [d for d in dict.fromkeys(doc_ids) if self.rt.repo.load(d).state not in STOPPED]

    @abstractmethod
    def submit(self, doc_ids: list[str]) -> list[str]:
        """Hand documents over without waiting. Returns the ones that move only while this
        process `drive`s them (embedded: all; distributed: none, the workers have them)."""

    @abstractmethod
    def drive(
        self, doc_ids: list[str], *, tick: Tick | None = None, timeout: float | None = None
    ) -> None:
        """Return when every document has stopped; call `tick` as they progress. Raises
        TimeoutError after `timeout` seconds (distributed only: embedded runs to the end)."""

    @abstractmethod
    def run_in_background(self, doc_ids: list[str], command: list[str], log: Path) -> str:
        """Let the documents finish without this process and say where they run.
        Distributed: the workers. Embedded: `command` (one that drives them) started in a
        session of its own, its output appended to `log`."""

    @abstractmethod
    def abandoned(self, s: Job) -> bool:
        """Whether `s` waits in a working state with no run driving it: its run stopped, and
        the next `run`, `batch`, `split` or `serve` on it resumes it. Distributed documents
        are never abandoned (the workers and the reconciler drive them)."""

    @abstractmethod
    def queue_depths(self) -> tuple[dict[str, int], int] | None:
        """Messages waiting per queue, and messages delivered but not yet acknowledged;
        None where there are no queues to read (embedded, or a broker other than Redis).
        Raises what the broker's client raises when it cannot be reached."""

    @abstractmethod
    def single_process_if(self, small: Callable[[], bool]) -> Dispatcher:
        """This dispatcher, or one running the parts in this very process when `small()`
        says the work is too little to start worker processes for (embedded only: the
        workers are running anyway, so `small` is not called)."""


class EmbeddedDispatcher(Dispatcher):
    mode = "embedded"

    def __init__(self, rt: Runtime, processes: int | None = None) -> None:
        super().__init__(rt)
        self.processes = processes or os.cpu_count() or 1

    def submit(self, doc_ids: list[str]) -> list[str]:
        return list(doc_ids)  # they move when driven

    def drive(
        self, doc_ids: list[str], *, tick: Tick | None = None, timeout: float | None = None
    ) -> None:
        from quire.orchestrator.local import run_documents

        pending = self.pending(doc_ids)
        if pending:
            run_documents(self.rt, pending, processes=self.processes, tick=tick)

    def run_in_background(self, doc_ids: list[str], command: list[str], log: Path) -> str:
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            subprocess.Popen(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        return f"a background process (log: {log})"

    def abandoned(self, s: Job) -> bool:
        from quire.orchestrator.leases import running

        return s.state not in STOPPED and running(self.rt, s) is None

    def queue_depths(self) -> tuple[dict[str, int], int] | None:
        return None

    def single_process_if(self, small: Callable[[], bool]) -> Dispatcher:
        return EmbeddedDispatcher(self.rt, 1) if small() else self


class CeleryDispatcher(Dispatcher):
    mode = "distributed"

    def __init__(self, rt: Runtime, broker_url: str, poll: float = 0.5) -> None:
        super().__init__(rt)
        self.broker_url = broker_url
        self.poll = poll

    def submit(self, doc_ids: list[str]) -> list[str]:
        from quire.workers.app import use_broker
        from quire.workers.tasks import poke

        use_broker(self.broker_url)  # the CLI's environment may have been set after import
        for doc_id in dict.fromkeys(doc_ids):
            poke(doc_id)
        return []

    def drive(
        self, doc_ids: list[str], *, tick: Tick | None = None, timeout: float | None = None
    ) -> None:
        self.submit(self.pending(doc_ids))
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.pending(doc_ids):
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"documents not finished after {timeout}s")
            if tick:
                tick()
            time.sleep(self.poll)

    def run_in_background(self, doc_ids: list[str], command: list[str], log: Path) -> str:
        self.submit(doc_ids)
        return "the workers"

    def abandoned(self, s: Job) -> bool:
        return False

    def queue_depths(self) -> tuple[dict[str, int], int] | None:
        if not self.broker_url.startswith("redis"):
            return None
        import redis

        client = redis.Redis.from_url(self.broker_url, socket_timeout=5)
        try:
            depths = {q: sum(int(client.llen(q + s)) for s in _PRIORITY_SUFFIXES) for q in QUEUES}
            unacked = int(client.hlen("unacked"))
        finally:
            client.close()
        return depths, unacked

    def single_process_if(self, small: Callable[[], bool]) -> Dispatcher:
        return self


def dispatcher_for(rt: Runtime, *, processes: int | None = None, poll: float = 0.5) -> Dispatcher:
    """Celery when a broker is configured (state polled every `poll` seconds while
    driving), else this process with `processes` worker processes (default: CPUs)."""
    deployment = rt.env.deployment
    if deployment.broker:
        return CeleryDispatcher(rt, deployment.broker, poll)
    return EmbeddedDispatcher(rt, processes)


def check_here(env: Settings, check: Callable[[], None]) -> None:
    """Run `check` of what running the parts needs (an OCR engine, say) when they run in
    this process; distributed, each worker checks its own when it runs them."""
    if not env.deployment.broker:
        check()


def check_worker(env: Settings) -> None:
    """`quire worker` starts only with a broker, and with stores every worker can see
    (building the `Deployment` refuses those only this host sees)."""
    if not env.deployment.broker:
        raise SettingsError(
            "QUIRE_BROKER_URL is not set: a worker needs a broker, e.g. "
            "redis://localhost:6379/0 (without one, `quire run` and `quire batch` "
            "process documents in this process)"
        )
