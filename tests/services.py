"""Real services for tests: a redis-server process and a moto S3 server process.

Usable as context managers (`with RedisServer() as srv: ...`, `with moto_server() as url:`)
and through the fixtures in conftest.py. A missing binary or module is a hard failure with a
clear message, never a skip. Children get PR_SET_PDEATHSIG on Linux so a killed pytest does
not leave servers behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import redis


class ServiceError(RuntimeError):
    """A test service could not be found or started."""


def free_port() -> int:
    """A loopback TCP port that is free right now (the caller must tolerate a race)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:
    """preexec_fn: ask the kernel to SIGTERM the child when the parent exits."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _stop_process(proc: subprocess.Popen[bytes] | None, timeout: float = 5.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGCONT)  # a paused process cannot handle SIGTERM
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout)


def _wait_until(check: Callable[[], bool], proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Poll `check` until it is true; False if the process died or time ran out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        with contextlib.suppress(Exception):
            if check():
                return True
        time.sleep(0.02)
    return False


def _tail(path: Path, limit: int = 2000) -> str:
    try:
        return path.read_text(errors="replace")[-limit:]
    except OSError:
        return "(no log)"


class RedisServer:
    """A private `redis-server` on a loopback port, no persistence, in its own temp dir.

    `restart()` brings it back on the same port (all data lost, like a crashed cache);
    `pause()`/`resume()` freeze it (SIGSTOP/SIGCONT) for timeout tests.
    """

    def __init__(self, port: int | None = None, *, startup_timeout: float = 10.0) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise ServiceError(
                "redis-server not found on PATH: install it (apt-get install redis-server)"
            )
        self.binary = binary
        self.port = port or 0
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)

    def _ping(self) -> bool:
        with redis.Redis(
            host="127.0.0.1", port=self.port, socket_timeout=0.5, socket_connect_timeout=0.5
        ) as client:
            return bool(client.ping())

    def _launch(self, port: int) -> bool:
        assert self._tmp is not None
        workdir = Path(self._tmp.name)
        log = workdir / "redis.log"
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(
                [
                    self.binary,
                    "--port", str(port),
                    "--bind", "127.0.0.1",
                    "--save", "",
                    "--appendonly", "no",
                    "--dir", str(workdir),
                    "--protected-mode", "no",
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=_die_with_parent,
            )  # fmt: skip
        self.port = port
        return _wait_until(self._ping, self.proc, self.startup_timeout)

    def start(self) -> RedisServer:
        if self.running:
            return self
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="quire-redis-")
        fixed = self.port != 0
        for _ in range(1 if fixed else 5):  # a picked free port can be taken meanwhile
            if self._launch(self.port if fixed else free_port()):
                return self
            _stop_process(self.proc)
        log = _tail(Path(self._tmp.name) / "redis.log")
        raise ServiceError(f"redis-server did not start on port {self.port}:\n{log}")

    def stop(self) -> None:
        _stop_process(self.proc)

    def kill(self) -> None:
        """SIGKILL, like a crash."""
        if self.running:
            assert self.proc is not None
            self.proc.kill()
            self.proc.wait(5)

    def restart(self) -> None:
        """Stop and start again on the same port (the data is gone)."""
        self.stop()
        deadline = time.monotonic() + 5
        while True:  # the port can linger briefly after the old process exits
            try:
                self.start()
                return
            except ServiceError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def pause(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)

    def flushall(self) -> None:
        with self.client() as client:
            client.flushall()

    def close(self) -> None:
        self.stop()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A fresh redis-server for the duration of the block; yields its URL."""
    with RedisServer() as server:
        yield server.url


# The moto child: moto's WSGI app on werkzeug, port 0 (the OS picks; no race), the chosen
# port printed on stdout. Requests are served one at a time under a lock: moto's conditional
# put checks and writes without a lock, so concurrent If-None-Match puts could both win,
# whereas real S3 makes them atomic. Threads still accept connections concurrently.
_MOTO_CHILD = r"""
import sys, threading
from werkzeug.serving import make_server
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

app = DomainDispatcherApplication(create_backend_app)
lock = threading.Lock()

def serialized(environ, start_response):
    with lock:
        return list(app(environ, start_response))

server = make_server("127.0.0.1", 0, serialized, threaded=True)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


class MotoServer:
    """A moto S3 server in a separate process (real HTTP on loopback)."""

    def __init__(self, *, startup_timeout: float = 30.0) -> None:
        import importlib.util

        for module in ("moto.server", "flask", "werkzeug"):
            if importlib.util.find_spec(module) is None:
                raise ServiceError(
                    f"python module {module!r} missing: pip install 'moto[server]>=5.0'"
                )
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self._log: Path | None = None

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _http_ok(self) -> bool:
        with urllib.request.urlopen(f"{self.endpoint_url}/moto-api/", timeout=1) as resp:
            return bool(resp.status == 200)

    def start(self) -> MotoServer:
        if self.proc is not None and self.proc.poll() is None:
            return self
        fd, log = tempfile.mkstemp(prefix="quire-moto-", suffix=".log")
        os.close(fd)
        self._log = Path(log)
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        with open(self._log, "ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _MOTO_CHILD],
                stdout=subprocess.PIPE,
                stderr=err,
                stdin=subprocess.DEVNULL,
                env=env,
                preexec_fn=_die_with_parent,
            )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()  # blocks until the port is bound or exit
        if not line.isdigit():
            self.stop()
            raise ServiceError(f"moto server did not start:\n{_tail(self._log)}")
        self.port = int(line)
        if not _wait_until(self._http_ok, self.proc, self.startup_timeout):
            self.stop()
            raise ServiceError(f"moto server not answering on {self.port}:\n{_tail(self._log)}")
        return self

    def reset(self) -> None:
        """Forget every bucket and object."""
        req = urllib.request.Request(f"{self.endpoint_url}/moto-api/reset", method="POST")
        with urllib.request.urlopen(req, timeout=10):
            pass

    def stop(self) -> None:
        _stop_process(self.proc)
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()
        if self._log is not None:
            self._log.unlink(missing_ok=True)
            self._log = None

    def __enter__(self) -> MotoServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def moto_server() -> Iterator[str]:
    """A fresh moto S3 server for the duration of the block; yields its endpoint URL."""
    with MotoServer() as server:
        yield server.endpoint_url


# Dummy credentials for moto; set per test with monkeypatch.setenv (see conftest.s3_env).
S3_TEST_ENV = {
    "AWS_ACCESS_KEY_ID": "test",
    "AWS_SECRET_ACCESS_KEY": "test",
    "AWS_DEFAULT_REGION": "us-east-1",
}
# Variables that could point boto3 at real accounts or other config; removed per test.
S3_SCRUB_ENV = ("AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION")


class CeleryWorker:
    """A real `celery worker` process (prefork) on the given queues, with its own env."""

    def __init__(
        self,
        name: str,
        queues: str,
        env: dict[str, str],
        *,
        concurrency: int = 1,
        cwd: Path | None = None,
    ) -> None:
        self.name, self.queues, self.env = name, queues, env
        self.concurrency = concurrency
        self.cwd = cwd or Path(__file__).resolve().parents[1]
        self.proc: subprocess.Popen[bytes] | None = None
        fd, log = tempfile.mkstemp(prefix=f"quire-celery-{name}-", suffix=".log")
        os.close(fd)
        self.log = Path(log)

    def start(self, timeout: float = 60.0) -> CeleryWorker:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "quire.workers.tasks",
                    "worker",
                    "-Q",
                    self.queues,
                    "-c",
                    str(self.concurrency),
                    "-n",
                    f"{self.name}@%h",
                    "--without-mingle",
                    "--without-gossip",
                    "--loglevel",
                    "INFO",
                ],
                stdout=out,
                stderr=out,
                stdin=subprocess.DEVNULL,
                cwd=self.cwd,
                env={**os.environ, **self.env},
                preexec_fn=_die_with_parent,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServiceError(f"celery worker {self.name} exited:\n{_tail(self.log)}")
            if b" ready." in self.log.read_bytes():
                return self
            time.sleep(0.2)
        self.stop()
        raise ServiceError(f"celery worker {self.name} not ready:\n{_tail(self.log)}")

    def kill(self) -> None:
        """SIGKILL the whole worker (parent and pool children)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        _stop_process(self.proc, timeout=20)

    def __enter__(self) -> CeleryWorker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.log.unlink(missing_ok=True)
