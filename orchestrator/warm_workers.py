"""The embedded pool's part workers, forked by the `quire` command's warm process (warm.py):
a worker started as a process of its own (`python -m quire.orchestrator.part_worker`) paid
the imports again, about 1 s, once per core and run. The warm process's child that forks
the worker waits for it and tells the pool how it ended; standard library only.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from contextlib import suppress
from typing import IO, Any

from quire.orchestrator.warm_socket import (
    SERVED,
    connect,
    enabled,
    send_request,
    socket_path,
    stream_setup,
)


class WarmPartWorker:
    """A part worker the warm process forked (`orchestrator/part_worker.py`, speaking over
    `stdin` and `stdout` as one started on its own does), with what the embedded pool uses
    of `subprocess.Popen`. The warm process's child that forked it waits for it and reports
    how it ended on `sock`, and kills it if this process goes away (the socket closes)."""

    def __init__(self, sock: socket.socket, pid: int, stdin: IO[bytes], stdout: IO[bytes]):
        self.args = "quire part worker (warm)"
        self.pid = pid
        self.stdin: IO[bytes] | None = stdin
        self.stdout: IO[bytes] | None = stdout
        self.returncode: int | None = None
        self._sock = sock
        self._pending = b""

    def wait(self, timeout: float | None = None) -> int:
        """Its exit status, negative for the signal that ended it (as Popen's)."""
        if self.returncode is None:
            self._sock.settimeout(timeout)
            try:
                while b"\n" not in self._pending:
                    piece = self._sock.recv(4096)
                    if not piece:
                        break
                    self._pending += piece
            except TimeoutError:
                import subprocess

                raise subprocess.TimeoutExpired(self.args, timeout or 0.0) from None
            except OSError:
                pass
            line, ended, _ = self._pending.partition(b"\n")
            # no report: the warm process's waiter went too, and the status with it
            self.returncode = int(json.loads(line)["exit"]) if ended else 1
            self._sock.close()
        return self.returncode

    def kill(self) -> None:
        with suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)


def part_worker() -> WarmPartWorker | None:
    """A part worker forked by this installation's warm process, or None when there is none
    (QUIRE_WARM off, none running, or it could not take the request): then the pool starts
    one of its own. It never starts a warm process: that is the `quire` command's part."""
    # (in a command the warm process forked, its own socket: the name this process would
    # work out differs, as the warm process's `sys.path` is the caller's without its first)
    path = (SERVED[0] if SERVED else socket_path()) if enabled() else None
    if path is None:
        return None
    sock = connect(path)
    if sock is None:
        return None
    pipe = ["utf-8", "strict", False, False]
    streams = [pipe, pipe, stream_setup(sys.stderr) or pipe]
    theirs_in, ours_in = os.pipe()
    ours_out, theirs_out = os.pipe()
    started = None
    try:
        fds = [theirs_in, theirs_out, 2]
        send_request(sock, fds, streams, argv=["part-worker"], part_worker=True, prog="quire")
        started = read_line(sock)
    except OSError:
        pass
    finally:
        os.close(theirs_in)  # the worker's ends: its death must close the pipes
        os.close(theirs_out)
    if started is None:
        sock.close()
        os.close(ours_in)
        os.close(ours_out)
        return None
    stdin, stdout = os.fdopen(ours_in, "wb"), os.fdopen(ours_out, "rb")
    return WarmPartWorker(sock, int(started["pid"]), stdin, stdout)


def read_line(sock: socket.socket) -> dict[str, Any] | None:
    """One reply, read a byte at a time so that nothing after it is taken from the socket."""
    line = b""
    while not line.endswith(b"\n"):
        byte = sock.recv(1)
        if not byte:
            return None
        line += byte
    return json.loads(line)
