"""One worker process of the embedded pool: `python -m quire.orchestrator.part_worker PID`.

A fresh interpreter that imports Quire and nothing of the caller's: whatever started the run
(a script without a main guard, code on standard input, a notebook, a thread in someone else's
program, a daemonic Celery child), its `__main__` is never imported here. `orchestrator.pool`
starts it and speaks JSON lines with it: one `Setup` line, then one TaskMessage per line,
each answered by one `Answer` line.

The answers go out on the stdout the process was started with, taken over at start; fd 1 then
points at stderr, so whatever a library prints cannot garble the conversation. Ctrl-C reaches
a terminal's whole process group: the parent decides what stops, so SIGINT is ignored here.
When the parent (PID) dies, even by SIGKILL and even before this process got going, it exits
within a second, mid-part or not.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import Any

from pydantic import BaseModel


class Setup(BaseModel):
    # the parent's settings (`shared.settings.revealed`: secrets included, e.g. the PDF
    # password), so the worker runs with exactly the settings of the run that started it
    settings: dict[str, Any]
    log_level: int


class Answer(BaseModel):
    ok: bool
    transient: bool = False  # the part hit a fault of the environment (retried by Celery)
    error: str | None = None  # what escaped `run_part` (it records document failures itself)


def _exit_with_parent(parent: int, interval: float = 0.5) -> None:
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)  # orphaned: the run that sent the part is gone; its successor redoes it

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    answers = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    _exit_with_parent(int(sys.argv[1]))
    from quire.shared.engine import TaskMessage
    from quire.shared.errors import TransientError
    from quire.shared.logs import configure_logging
    from quire.shared.settings import Settings
    from quire.workers.execute import run_part
    from quire.workers.runtime import Runtime

    def failure(exc: Exception) -> Answer:
        transient = isinstance(exc, TransientError)
        return Answer(ok=False, transient=transient, error=f"{type(exc).__name__}: {exc}")

    setup = Setup.model_validate_json(sys.stdin.buffer.readline())
    settings = Settings.model_validate(setup.settings)  # every field given: no env read
    configure_logging(setup.log_level, settings.log_format)
    try:
        rt: Runtime | None = Runtime.from_env(settings)
        unusable = None
    except Exception as exc:  # e.g. the revision store unreachable: every part says why
        rt, unusable = None, failure(exc)
    for line in sys.stdin.buffer:
        msg = TaskMessage.model_validate_json(line)
        answer = unusable or Answer(ok=True)
        if rt is not None:
            try:
                run_part(rt, msg, actor="embedded")
            except Exception as exc:
                answer = failure(exc)
        answers.write(answer.model_dump_json().encode() + b"\n")


if __name__ == "__main__":
    main()
