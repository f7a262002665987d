"""The `quire` command's front door: a command is handed to a warm Quire process when one is
running for this installation; otherwise it runs here, and a warm process is started in the
background for the next command.

Why: a one-page `quire run` spent about 1 s of its 1.4 s importing the pipeline (PyMuPDF,
numpy, ~100 pydantic models, ~800 regular expressions) and 0.3 s working, and an agent that
calls `quire get-chunk` or `quire commit-boundary` a hundred times paid the imports a hundred
times. The warm process (warm_server.py) imports them once and forks a child per command.
The child takes this process's arguments, working folder, environment, umask and standard
streams (the file descriptors themselves, so a terminal stays a terminal and a pipe a pipe),
runs the same click command group, and sends its exit status back. A signal this process
gets (Ctrl-C) is passed on to the child.

A warm process serves one installation as this process sees it: its socket is named by a
hash of the interpreter, its flags, `sys.path`, every path entry's time, every file of
Quire's package and the variables read at start-up (locale, `PYTHON*`), so an edit, a
`pip install` or another virtual environment gets a warm process of its own. It ends after
QUIRE_WARM_IDLE seconds without a command. Services (`serve`, `worker`, ...) always run in
this process; QUIRE_WARM=0 turns it all off.

The embedded pool's part workers come from the warm process too (warm_workers.py). The
socket, its name and the request's framing are warm_socket.py's.

Standard library only: this module is what every command pays for before its work starts.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

from quire.orchestrator.warm_socket import (
    connect,
    enabled,
    import_paths,
    send_request,
    socket_path,
    stream_setup,
)
from quire.shared.environment import quire_variables

# long-lived commands stay in the process a user or a supervisor started and signals
SERVICES = frozenset({"flower", "mcp", "orchestrator", "serve", "trigger", "worker"})
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
BOOT = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[2]); "
    "from quire.orchestrator.warm_server import main; main(sys.argv[1], sys.argv[3])"
)


def main() -> None:
    """The `quire` command."""
    args = sys.argv[1:]
    if warmable(args):
        code = hand_over(args)
        if code is not None:
            sys.exit(code)
    from quire.orchestrator.cli import main as command_group

    command_group()


def warmable(args: list[str]) -> bool:
    """Whether this command may run in a warm process on this platform and setting."""
    if not enabled():
        return False
    command = next((a for a in args if not a.startswith("-")), None)
    return command not in SERVICES


def hand_over(args: list[str]) -> int | None:
    """The command's exit status from a warm process, or None when none took it (then a
    warm process is started for the next command, and the caller runs this one itself)."""
    path = socket_path()
    if path is None:
        return None
    sock = connect(path)
    if sock is None:
        start_warm_process(path)
        return None
    with sock:
        return converse(sock, args)


def converse(sock: socket.socket, args: list[str]) -> int | None:
    streams = [stream_setup(s) for s in (sys.stdin, sys.stdout, sys.stderr)]
    if None in streams:
        return None  # a standard stream this process has not got: run the command here
    replies = sock.makefile("rb")
    try:
        send_request(sock, [0, 1, 2], streams, argv=args, prog=prog_name())
        started = read_reply(replies)
    except OSError:
        return None  # the warm process went away before it began: nothing has run
    if started is None:
        return None
    return wait_for(int(started["pid"]), replies)


def wait_for(pid: int, replies: IO[bytes]) -> int:
    """The child's exit status; signals meanwhile are passed on to it."""
    forwarded: list[int] = []

    def forward(signum: int, _frame: Any) -> None:
        forwarded.append(signum)
        with suppress(ProcessLookupError):
            os.kill(pid, signum)

    for signum in FORWARDED:
        signal.signal(signum, forward)
    try:
        ended = read_reply(replies)
    except OSError:
        ended = None
    if ended is not None:
        return int(ended["exit"])
    if forwarded:
        return 128 + forwarded[-1]  # as a shell reports a command a signal ended
    print(
        "quire: the command ended in the warm process without an exit status "
        "(QUIRE_WARM=0 runs it in this process)",
        file=sys.stderr,
    )
    return 1


def read_reply(replies: IO[bytes]) -> dict[str, Any] | None:
    line = replies.readline()
    return json.loads(line) if line.endswith(b"\n") else None


def prog_name() -> str:
    """The name click would give the command in its messages (`quire`, `python -m quire`)."""
    package = getattr(sys.modules["__main__"], "__package__", None)
    return f"python -m {package}" if package else os.path.basename(sys.argv[0])


def start_warm_process(path: Path) -> None:
    """A warm process for `path`, in its own session, in the background (it gives way at
    once if another is starting for the same socket)."""
    import subprocess  # (not at the top: every command would import it)

    idle = quire_variables().get("warm_idle", "")
    flags: list[str] = getattr(subprocess, "_args_from_interpreter_flags", list)()  # -X dev, -O ...
    with suppress(OSError), open(path.with_suffix(".log"), "ab") as log:
        subprocess.Popen(
            [sys.executable, *flags, "-c", BOOT, str(path), json.dumps(import_paths()), idle],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            cwd="/",
            start_new_session=True,
        )
