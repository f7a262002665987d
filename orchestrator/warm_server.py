"""The warm process behind the `quire` command (warm.py explains why): it imports what
commands use once, then forks a child for each command that connects to its socket.

The child adopts the caller's standard streams, working folder, environment and umask,
runs the click command group as `quire` would, and sends back its exit status. The warm
process itself never runs a command, reads no settings and starts no thread of its own
(numpy's idle OpenBLAS pool sets itself up again across a fork), so every child begins as
a fresh `quire` process would after its imports: no settings, stores, consoles or caches
carried from one command to the next. One process per socket (a lock beside it); it ends
after its idle time once no child is left.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import gc
import importlib
import io
import json
import os
import select
import signal
import socket
import sys
import time
import traceback
from pathlib import Path
from typing import Any, NoReturn

from quire.orchestrator import part_worker
from quire.orchestrator.warm_socket import HEADER, SERVED

DEFAULT_IDLE = 600.0
POLL = 1.0  # seconds between looks at finished children and the idle time
# What `quire run`, `quire batch` and the agent commands import (the modules below pull in
# the rest); optional extras that are not installed are left out. Not the command line
# itself (quire.orchestrator.cli, ~20 ms): its consoles read the terminal and the
# environment when they are made, so each child makes them for its caller.
PRELOAD = (
    "click",
    "quire.orchestrator.service",
    "quire.orchestrator.operations",
    "quire.orchestrator.agent",
    "quire.orchestrator.batch_run",
    "quire.orchestrator.one_document",
    "quire.orchestrator.local",
    "quire.orchestrator.pool",
    "quire.orchestrator.passwords",
    "quire.orchestrator.outputs",
    "quire.orchestrator.progress",
    "quire.shared.logs",
    "quire.workers.execute",
    "quire.workers.steps",
    "quire.workers.parse",
    "quire.workers.parse.pdf",
    "quire.workers.parse.docx",
    "quire.workers.boundaries.planner",
    "quire.workers.review.run",
    "quire.workers.write",
    "quire.workers.verify",
    "quire.workers.analysis.run",
    "quire.workers.analysis.settle",
    "quire.workers.analysis.index",
    "quire.workers.boundaries.llm_decider",
    "quire.workers.rag.cli_support",
    "stopwordsiso",  # imported on first use by key phrases
    "email.parser",  # importlib.metadata reads Quire's version with it
)


def main(path: str, idle: str = "") -> None:
    """Serve `path` until idle (`idle` seconds, QUIRE_WARM_IDLE as the caller read it)."""
    sock_path = Path(path)
    SERVED.append(sock_path)
    lock = sock_path.with_suffix(".lock").open("w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return  # another warm process for this socket is starting or serving
    with contextlib.suppress(OSError):
        os.ftruncate(2, 0)  # the log (opened for appending by whoever started us) begins anew
    preload()
    gc.freeze()  # the children's collections leave the shared pages alone
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with contextlib.suppress(FileNotFoundError):
        sock_path.unlink()  # a warm process that was killed left it
    server.bind(path)
    server.listen(64)
    server.settimeout(POLL)
    try:
        serve(server, idle_seconds(idle), lock)
    finally:
        sock_path.unlink(missing_ok=True)
        server.close()


def idle_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        return DEFAULT_IDLE  # unset, or not a number (the command's settings check says so)
    return value if value > 0 else DEFAULT_IDLE


def preload() -> None:
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    from quire.workers.parse.pdf_open import pymupdf_module

    pymupdf_module()


def serve(server: socket.socket, idle: float, lock: Any) -> None:
    children: set[int] = set()
    last = time.monotonic()
    while children or time.monotonic() - last < idle:
        for pid in list(children):
            try:
                done = os.waitpid(pid, os.WNOHANG)[0] != 0
            except ChildProcessError:
                done = True  # reaped already: no child left to wait for
            if done:
                children.discard(pid)
        try:
            conn, _ = server.accept()
        except TimeoutError:
            continue
        last = time.monotonic()
        pid = os.fork()
        if pid == 0:
            server.close()
            lock.close()
            run_child(conn)
        conn.close()
        children.add(pid)


def run_child(conn: socket.socket) -> NoReturn:
    """Take one command from `conn`, run it as this process, report its exit status."""
    code = 1
    try:
        conn.settimeout(None)
        request, fds = receive(conn)
        command = next((a for a in request["argv"] if not a.startswith("-")), "")
        print(
            f"{time.strftime('%Y-%m-%d %H:%M:%S')} child {os.getpid()}: {command}",
            file=sys.stderr,
            flush=True,
        )
        for target, fd in enumerate(fds):  # the caller's streams; the log is left behind
            os.dup2(fd, target)
            os.close(fd)
        if request.get("part_worker"):
            code = run_part_worker(conn, request)
        else:
            conn.sendall(json.dumps({"pid": os.getpid()}).encode() + b"\n")
            code = run_command(request)
        conn.sendall(json.dumps({"exit": code}).encode() + b"\n")
    except BaseException:  # nothing may escape into the warm process's loop
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finally:
        os._exit(code & 0xFF)


def receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """The request, and the caller's standard streams, which came with its header."""
    header, fds, _flags, _addr = socket.recv_fds(conn, HEADER.size, 3)
    while len(header) < HEADER.size:
        header += conn.recv(HEADER.size - len(header))
    (size,) = HEADER.unpack(header)
    body = b""
    while len(body) < size:
        piece = conn.recv(size - len(body))
        if not piece:
            raise ConnectionError("the caller went away")
        body += piece
    request: dict[str, Any] = json.loads(body)
    if len(fds) != 3:
        raise ConnectionError("the caller's standard streams did not arrive")
    return request, fds


def run_command(request: dict[str, Any]) -> int:
    adopt(request)
    from quire.orchestrator.cli import main as command_group

    sys.argv = [request["prog"], *request["argv"]]
    try:
        command_group.main(args=request["argv"], prog_name=request["prog"])
        code = 0
    except SystemExit as exc:
        code = exit_status(exc.code)
    except BaseException:
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()  # what the interpreter would run at the end of the command
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    return code


def run_part_worker(conn: socket.socket, request: dict[str, Any]) -> int:
    """Fork a part worker for the caller's embedded pool (its pipes are this process's
    stdin and stdout now), tell the caller its pid, and wait: its exit status (negative: the
    signal that ended it) is what the caller's pool reports when it dies mid-part. It is
    killed when the caller goes away (`conn` closes), and exits by itself when this process
    does (`part_worker` watches its parent)."""
    adopt(request)
    worker = os.fork()
    if worker == 0:
        conn.close()
        sys.argv = ["quire-part-worker", str(os.getppid())]
        code = 1
        try:
            part_worker.main()
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            with contextlib.suppress(Exception):
                sys.stderr.flush()
            os._exit(code)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):  # the pipes are the worker's alone: its death must close them
        os.dup2(null, fd)
    conn.sendall(json.dumps({"pid": worker}).encode() + b"\n")
    while True:
        done, status = os.waitpid(worker, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        readable, _, _ = select.select([conn], [], [], POLL / 4)
        if readable and not conn.recv(1):  # the pool's process is gone: no one to report to
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker, signal.SIGKILL)
            os.waitpid(worker, 0)
            os._exit(1)


def adopt(request: dict[str, Any]) -> None:
    """Become the caller: its folder, environment, umask, streams and default signals."""
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()
    os.umask(request["umask"])
    stdin, stdout, stderr = request["streams"]
    sys.stdin = text_stream(0, False, *stdin)
    sys.stdout = text_stream(1, True, *stdout)
    sys.stderr = text_stream(2, True, *stderr)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGCHLD):
        signal.signal(signum, signal.SIG_DFL)


def text_stream(
    fd: int, writing: bool, encoding: str, errors: str, line_buffering: bool, write_through: bool
) -> io.TextIOWrapper:
    """A standard stream over `fd` set up as the caller's was (`python -u` writes through)."""
    raw = io.FileIO(fd, "w" if writing else "r", closefd=False)
    buffered: Any = (
        raw if write_through else (io.BufferedWriter if writing else io.BufferedReader)(raw)
    )
    return io.TextIOWrapper(
        buffered,
        encoding=encoding,
        errors=errors,
        line_buffering=line_buffering,
        write_through=write_through,
    )


def exit_status(code: object) -> int:
    """What the interpreter makes of `sys.exit(code)`."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1
