"""The warm process's socket (warm.py explains the warm process): whether it may be used here,
where it is for this installation, and how a request travels over it. Shared by the `quire`
command's front door, the warm process and the embedded pool's part workers; standard
library only, as the front door is.

A request is a 4-byte length sent with the caller's three standard streams (file
descriptors, `socket.send_fds`), then that many bytes of JSON; replies are JSON lines: the
pid of the process that runs it, then its exit status.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import struct
import sys
from contextlib import suppress
from pathlib import Path
from typing import Any

from quire.shared.environment import quire_variables

OFF = frozenset({"0", "false", "f", "no", "n", "off"})  # as pydantic reads a bool
HEADER = struct.Struct("!I")  # the request's length; it travels with the standard streams
SOCKET_PATH_MAX = 100  # a Unix socket's path is at most 107 bytes on Linux
READ_AT_IMPORT = ("PYTHON", "LANG", "LC_", "PYMUPDF", "OPENBLAS", "OMP_")
PACKAGE = Path(__file__).parents[1]  # the `quire` package's folder (its floors are linked in)
SERVED: list[Path] = []  # in the warm process and its children: the socket it serves


def connect(path: Path) -> socket.socket | None:
    """A connection to the warm process listening at `path`, or None when none does."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        return None
    return sock


def send_request(sock: socket.socket, fds: list[int], streams: list[Any], **request: Any) -> None:
    """Send a request: `fds` become the child's standard streams (set up as `streams`
    says), and it takes this process's folder, environment and umask (raises OSError)."""
    body = json.dumps(
        {
            **request,
            "cwd": os.getcwd(),
            "env": dict(os.environ),
            "umask": umask(),
            "streams": streams,
        }
    ).encode()
    socket.send_fds(sock, [HEADER.pack(len(body))], fds)
    sock.sendall(body)


def enabled() -> bool:
    """Whether a warm process may be used on this platform and setting (QUIRE_WARM)."""
    if not (hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")):
        return False
    return quire_variables().get("warm", "").strip().lower() not in OFF


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


def stream_setup(stream: Any) -> list[Any] | None:
    """How Python set up a standard stream here, for the child to set its own up alike."""
    if not hasattr(stream, "line_buffering"):
        return None
    with suppress(OSError, ValueError):
        os.fstat(stream.fileno())
        return [stream.encoding, stream.errors, stream.line_buffering, stream.write_through]
    return None


def umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
