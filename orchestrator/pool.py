"""The embedded runner's worker processes: `python -m quire.orchestrator.part_worker`, each fed
one part at a time as a JSON line.

Why not `multiprocessing`: its `spawn` children re-import the caller's `__main__` (found
through `__main__.__spec__` or `__file__`), so a script without a main guard runs again in
every child and the pool breaks, code on standard input cannot be re-imported at all, and a
daemonic process (a Celery prefork child) may not have children. A worker started as a
module of ours imports nothing of the caller's, whatever the entry point.

Where the `quire` command's warm process is running (orchestrator/warm_workers.py), it forks the
workers instead, with their imports done: the same worker, the same conversation.

A worker that dies in the middle of a part (killed, out of memory, a crash in native code)
is replaced and the part sent again; when a part has ended its worker `CRASH_ATTEMPTS` times,
its future fails with `WorkerCrashed` so the runner can fail that document alone.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import site
import subprocess
import sys
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import IO, Protocol

from quire.orchestrator import warm_workers
from quire.orchestrator.part_worker import Answer, Setup
from quire.shared.engine import TaskMessage
from quire.shared.errors import QuireError, TransientError
from quire.shared.settings import revealed
from quire.workers.runtime import Runtime

log = logging.getLogger("quire.pool")
CRASH_ATTEMPTS = 3
_Job = tuple[TaskMessage, "Future[None]"]


class Worker(Protocol):
    """What the pool uses of a worker process: a `subprocess.Popen` or a
    `warm_workers.WarmPartWorker`."""

    stdin: IO[bytes] | None
    stdout: IO[bytes] | None

    def wait(self, timeout: float | None = None) -> int: ...
    def kill(self) -> None: ...


class WorkerCrashed(QuireError):
    """A part ended its worker process every time it was tried."""

    code = "worker_crashed"


class _Died(Exception):
    def __init__(self, returncode: int | None) -> None:
        self.returncode = returncode


def _package_root() -> str | None:
    """The folder `quire` is imported from, so a worker finds the very same package even when
    the caller put it on `sys.path` by hand; None when it is a site-packages folder, which a
    fresh interpreter searches anyway (ahead of the standard library it could shadow it)."""
    # this file is <root>/quire/orchestrator/pool.py (quire/orchestrator is a link in a checkout)
    root = Path(__file__).parents[2].resolve()
    sites = [*site.getsitepackages(), site.getusersitepackages()]
    return None if any(root == Path(s).resolve() for s in sites) else str(root)


def _describe(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


class PartPool:
    """Up to `processes` workers, started when parts are waiting and none is idle."""

    def __init__(self, rt: Runtime, processes: int) -> None:
        env = rt.env.model_copy(
            update={
                # absolute: the caller may change its working folder while parts run
                "store_url": str(rt.local_root) if rt.local_root else rt.env.store_url,
                "state_dir": rt.env.state_dir.resolve(),
            }
        )
        self._setup = Setup(
            settings=revealed(env), log_level=logging.getLogger().level
        ).model_dump_json()
        self._size = processes
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._lock = threading.Lock()
        self._slots: list[threading.Thread] = []
        self._idle = 0
        self._procs: set[Worker] = set()
        self._closed = False

    def submit(self, msg: TaskMessage) -> Future[None]:
        fut: Future[None] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the pool is closed")
            self._jobs.put((msg, fut))
            # `_idle`: slots waiting for a part, less the parts waiting for a slot
            if self._idle <= 0 and len(self._slots) < self._size:
                slot = threading.Thread(target=self._serve, name="quire-pool", daemon=True)
                self._slots.append(slot)
                slot.start()
            else:
                self._idle -= 1
        return fut

    def close(self, *, kill: bool = False) -> None:
        """Stop every worker: at once (`kill`: the run is being abandoned), else after
        their current parts."""
        with self._lock:
            self._closed = True
            procs = list(self._procs)
        for _ in self._slots:
            self._jobs.put(None)
        if kill:
            for proc in procs:
                proc.kill()
        for slot in self._slots:
            # a slot whose start a Ctrl-C cut short never ran: joining it would raise
            # RuntimeError in place of the KeyboardInterrupt the caller should see
            with contextlib.suppress(RuntimeError):
                slot.join(timeout=30)

    def _start(self) -> Worker:
        proc: Worker | None = warm_workers.part_worker()
        if proc is None:
            python_path = os.pathsep.join(
                p for p in (_package_root(), os.environ.get("PYTHONPATH", "")) if p
            )
            proc = subprocess.Popen(  # -P: the caller's working folder is not on its path
                [sys.executable, "-P", "-m", "quire.orchestrator.part_worker", str(os.getpid())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env={**os.environ, "PYTHONPATH": python_path},
            )
        with self._lock:
            self._procs.add(proc)
            if self._closed:  # `close(kill=True)` may have missed it
                proc.kill()
        assert proc.stdin is not None
        try:
            proc.stdin.write(self._setup.encode() + b"\n")
            proc.stdin.flush()
        except BrokenPipeError:
            pass  # it died at once: the first part finds out
        return proc

    def _ask(self, proc: Worker, msg: TaskMessage) -> Answer:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(msg.model_dump_json().encode() + b"\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        except (BrokenPipeError, ValueError):  # ValueError: closed by `close(kill=True)`
            line = b""
        if not line:
            raise _Died(proc.wait())
        return Answer.model_validate_json(line)

    def _serve(self) -> None:
        """One slot: a worker process (replaced when it dies) and the parts it runs."""
        proc: Worker | None = None
        try:
            while (job := self._jobs.get()) is not None:
                msg, fut = job
                if fut.set_running_or_notify_cancel():
                    try:
                        proc = self._run(proc, msg, fut)
                    except Exception as exc:  # a bug here must not leave the part waiting
                        if not fut.done():
                            fut.set_exception(exc)
                        if proc is not None:
                            proc.kill()
                            self._stop(proc)
                        proc = None
                with self._lock:
                    self._idle += 1
        finally:
            if proc is not None:
                self._stop(proc)

    def _run(self, proc: Worker | None, msg: TaskMessage, fut: Future[None]) -> Worker | None:
        for attempt in range(1, CRASH_ATTEMPTS + 1):
            if self._closed:
                fut.set_exception(RuntimeError("the pool was closed"))
                return proc
            proc = proc or self._start()
            try:
                answer = self._ask(proc, msg)
            except _Died as died:
                self._forget(proc)
                proc = None
                how = _describe(died.returncode)
                if self._closed:
                    fut.set_exception(RuntimeError("the pool was closed"))
                    return None
                if attempt == CRASH_ATTEMPTS:
                    fut.set_exception(
                        WorkerCrashed(
                            f"{msg.state}:{msg.part} ended its worker process "
                            f"{attempt} time(s), the last {how}"
                        )
                    )
                    return None
                log.warning("worker %s during %s:%s; sending it again", how, msg.state, msg.part)
                continue
            if answer.ok:
                fut.set_result(None)
            elif answer.transient:
                fut.set_exception(TransientError(answer.error or "transient fault"))
            else:
                fut.set_exception(RuntimeError(answer.error))
            return proc
        return proc

    def _forget(self, proc: Worker) -> None:
        with self._lock:
            self._procs.discard(proc)

    def _stop(self, proc: Worker) -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.close()  # the worker ends after its current part
            proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        self._forget(proc)
