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

The embedded pool's part workers come from the warm process too (`part_worker`): a worker
started as a process of its own paid the same imports, about 1 s, twice per run on two
cores.

Standard library only: this module is what every command pays for before its work starts.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import stat
import struct
import sys
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

from quire.shared.environment import quire_variables

# long-lived commands stay in the process a user or a supervisor started and signals
SERVICES = frozenset({"flower", "mcp", "orchestrator", "serve", "trigger", "worker"})
OFF = frozenset({"0", "false", "f", "no", "n", "off"})  # as pydantic reads a bool
HEADER = struct.Struct("!I")  # the request's length; it travels with the standard streams
SOCKET_PATH_MAX = 100  # a Unix socket's path is at most 107 bytes on Linux
READ_AT_IMPORT = ("PYTHON", "LANG", "LC_", "PYMUPDF", "OPENBLAS", "OMP_")
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
PACKAGE = Path(__file__).parents[1]  # the `quire` package's folder (its floors are linked in)
SERVED: list[Path] = []  # in the warm process and its children: the socket it serves
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
    if not (hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")):
        return False
    if quire_variables().get("warm", "").strip().lower() in OFF:
        return False
    command = next((a for a in args if not a.startswith("-")), None)
    return command not in SERVICES


def hand_over(args: list[str]) -> int | None:
    """The command's exit status from a warm process, or None when none took it (then a
    warm process is started for the next command, and the caller runs this one itself)."""
    path = socket_path()
    if path is None:
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        start_warm_process(path)
        return None
    with sock:
        return converse(sock, args)


def converse(sock: socket.socket, args: list[str]) -> int | None:
    streams = [stream_setup(s) for s in (sys.stdin, sys.stdout, sys.stderr)]
    if None in streams:
        return None  # a standard stream this process has not got: run the command here
    request = {
        "argv": args,
        "prog": prog_name(),
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "umask": umask(),
        "streams": streams,
    }
    body = json.dumps(request).encode()
    replies = sock.makefile("rb")
    try:
        socket.send_fds(sock, [HEADER.pack(len(body))], [0, 1, 2])
        sock.sendall(body)
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


def stream_setup(stream: Any) -> list[Any] | None:
    """How Python set up a standard stream here, for the child to set its own up alike."""
    if not hasattr(stream, "line_buffering"):
        return None
    with suppress(OSError, ValueError):
        os.fstat(stream.fileno())
        return [stream.encoding, stream.errors, stream.line_buffering, stream.write_through]
    return None


def prog_name() -> str:
    """The name click would give the command in its messages (`quire`, `python -m quire`)."""
    package = getattr(sys.modules["__main__"], "__package__", None)
    return f"python -m {package}" if package else os.path.basename(sys.argv[0])


def umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def socket_path() -> Path | None:
    """The warm process's socket for this installation, in a folder only this user may
    enter (None when there is none to be had: then every command runs in its own process)."""
    bases = (os.environ.get("XDG_RUNTIME_DIR"), os.environ.get("TMPDIR"), "/tmp")
    name = f"{fingerprint()}.sock"
    for base in filter(None, bases):
        folder = Path(base) / f"quire-warm-{os.getuid()}"
        if len(os.fsencode(folder / name)) > SOCKET_PATH_MAX:
            continue  # a deep folder: the next one may be short enough
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            info = os.lstat(folder)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077:
            return folder / name
        return None  # another user's, or open to others: its socket is not to be trusted
    return None


def import_paths() -> list[str]:
    """`sys.path` as the warm process needs it: the script's folder or working folder
    first on the path only when Quire itself was found there."""
    first, *rest = sys.path
    found = os.path.realpath(PACKAGE).startswith(os.path.join(os.path.realpath(first or "."), ""))
    return sys.path[:] if found else rest


def fingerprint() -> str:
    """A hash of what the warm process's imports depend on (the module's docstring)."""
    digest = hashlib.sha256()
    paths = import_paths()
    setup = (sys.executable, sys.version, tuple(sys.flags), sys.warnoptions, paths)
    # variables read while the interpreter starts or a library imports: locale, PyMuPDF's
    read = sorted((k, v) for k, v in os.environ.items() if k.startswith(READ_AT_IMPORT))
    digest.update(repr((*setup, sys.pycache_prefix, read)).encode())
    for entry in paths:
        with suppress(OSError):
            digest.update(f"{entry}\0{os.stat(entry).st_mtime_ns}\0".encode())
    for folder, dirs, files in os.walk(PACKAGE, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            with suppress(OSError):
                info = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return digest.hexdigest()[:16]


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


# --- part workers for the embedded pool ------------------------------------------------------


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
            line = self._pending.partition(b"\n")[0]
            # no report: the warm process's waiter went too, and the status with it
            self.returncode = int(json.loads(line)["exit"]) if line else 1
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
    path = (SERVED[0] if SERVED else socket_path()) if warmable([]) else None
    if path is None:
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        return None
    pipe = ["utf-8", "strict", False, False]
    request = {
        "argv": ["part-worker"],
        "part_worker": True,
        "prog": "quire",
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "umask": umask(),
        "streams": [pipe, pipe, stream_setup(sys.stderr) or pipe],
    }
    body = json.dumps(request).encode()
    theirs_in, ours_in = os.pipe()
    ours_out, theirs_out = os.pipe()
    started = None
    try:
        socket.send_fds(sock, [HEADER.pack(len(body))], [theirs_in, theirs_out, 2])
        sock.sendall(body)
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
