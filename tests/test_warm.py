"""The warm process behind the `quire` command: the first command starts it, later ones run
in its forked children with the caller's arguments, folder, environment and streams, and
write what a command in a process of its own writes. Real processes throughout; the suite
runs with QUIRE_WARM=0 (conftest.py), so each test here turns it on with a socket folder of
its own."""

from __future__ import annotations

import os
import pty
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pipeline_utils import SAMPLE_PDF

from quire.orchestrator import warm, warm_socket, warm_workers


@pytest.fixture
def warm_env() -> Iterator[dict[str, str]]:
    """The environment of a user whose commands may go warm (a socket folder of the test's
    own, short enough for a socket's path; the warm process ends 20 s after its last
    command, or when the test ends)."""
    runtime = Path(tempfile.mkdtemp(prefix="qw-"))
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "QUIRE_WARM": "1"}
    env["QUIRE_WARM_IDLE"] = "20"
    env.pop("QUIRE_STATE_DIR", None)
    yield env
    for lock in runtime.glob("quire-warm-*/*.lock"):
        for pid in holders(lock):
            os.kill(pid, signal.SIGKILL)
    shutil.rmtree(runtime)


def holders(lock: Path) -> list[int]:
    """Processes holding `lock` open: the warm process for its socket."""
    found = []
    for fd in Path("/proc").glob("[0-9]*/fd/*"):
        try:
            if os.readlink(fd) == str(lock):
                found.append(int(fd.parts[2]))
        except OSError:
            continue
    return sorted(set(found))


def quire(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quire", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def socket_folder(env: dict[str, str]) -> Path:
    return Path(env["XDG_RUNTIME_DIR"]) / f"quire-warm-{os.getuid()}"


def wait_warm(env: dict[str, str]) -> Path:
    """The warm process's socket, once it listens (its log says what it served)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        sockets = list(socket_folder(env).glob("*.sock"))
        if sockets:
            return sockets[0]
        time.sleep(0.1)
    raise AssertionError(f"no warm process: {list(socket_folder(env).glob('*'))}")


def served(sock: Path) -> list[str]:
    """The commands the warm process has handed to children, from its log."""
    return [line.split(": ", 1)[1] for line in sock.with_suffix(".log").read_text().splitlines()]


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_warm_command_writes_what_a_command_of_its_own_writes(
    tmp_path: Path, warm_env: dict[str, str]
) -> None:
    first = quire(tmp_path, warm_env, "run", "--input", str(SAMPLE_PDF), "--out", "cold")
    assert first.returncode == 0, first.stderr
    sock = wait_warm(warm_env)
    assert served(sock) == []  # the first command ran in its own process
    # another folder, another state folder, a relative --out: all the caller's
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**warm_env, "QUIRE_STATE_DIR": str(tmp_path / "other-state")}
    second = quire(elsewhere, env, "run", "--input", str(SAMPLE_PDF), "--out", "warm")
    assert second.returncode == 0, second.stderr
    assert served(sock) == ["run"]
    assert (tmp_path / "other-state").is_dir()  # the caller's QUIRE_STATE_DIR
    assert (elsewhere / ".quire" / "store").is_dir()  # the default store, in the caller's folder
    assert files(elsewhere / "warm") == files(tmp_path / "cold")
    assert second.stdout == first.stdout
    # the cold state folder holds the first document; the second went to its own
    status = quire(tmp_path, warm_env, "status", "--json")
    assert status.returncode == 0 and '"fhs-3.0.pdf"' in status.stdout
    assert served(sock) == ["run", "status"]


def test_exit_status_and_messages_are_the_callers(tmp_path: Path, warm_env: dict[str, str]) -> None:
    quire(tmp_path, warm_env, "--version")
    sock = wait_warm(warm_env)
    cold_env = {**warm_env, "QUIRE_WARM": "0"}
    cases = [
        ("run", "--input", str(tmp_path / "missing.pdf")),  # bad input: exit 2, one line
        ("run", "--bogus"),  # a usage error names the command as `python -m quire run`
        ("status", "no-such-document"),
        ("--version",),
    ]
    for args in cases:
        warm_run = quire(tmp_path, warm_env, *args)
        cold_run = quire(tmp_path, cold_env, *args)
        assert (warm_run.returncode, warm_run.stdout, warm_run.stderr) == (
            cold_run.returncode,
            cold_run.stdout,
            cold_run.stderr,
        ), args
    assert len(served(sock)) == len(cases)
    assert quire(tmp_path, warm_env, "run", "--bogus").stderr.startswith(
        "Usage: python -m quire run"
    )


def on_a_terminal(cwd: Path, env: dict[str, str], *args: str) -> tuple[int, bytes]:
    """Exit status and what a command wrote to a terminal (stdout and stderr both)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "quire", *args], cwd=cwd, env=env, stdout=slave, stderr=slave
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the terminal's last writer has gone
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=60), b"".join(chunks)


def test_a_terminal_stays_a_terminal(tmp_path: Path, warm_env: dict[str, str]) -> None:
    quire(tmp_path, warm_env, "--version")
    sock = wait_warm(warm_env)
    env = {**warm_env, "TERM": "xterm-256color", "COLUMNS": "100"}
    (tmp_path / "bad.pdf").write_bytes(b"not a PDF")
    args = ("run", "--input", str(tmp_path / "bad.pdf"), "--out", "out")
    code, shown = on_a_terminal(tmp_path, env, *args)
    assert served(sock) == ["run"]
    cold_code, cold_shown = on_a_terminal(tmp_path, {**env, "QUIRE_WARM": "0"}, *args)
    # a live progress bar in colour (its frames depend on timing), then the failure in red
    assert code == cold_code == 1 and b"\x1b[38;5;" in shown and b"\x1b[38;5;" in cold_shown
    last = shown.split(b"\x1b[2K")[-1]
    assert last == cold_shown.split(b"\x1b[2K")[-1]
    assert last.startswith(b"\x1b[31mquire: failed (corrupt):\x1b[0m bad.pdf: not a PDF file")


def test_ctrl_c_reaches_the_command(tmp_path: Path, warm_env: dict[str, str]) -> None:
    quire(tmp_path, warm_env, "--version")
    sock = wait_warm(warm_env)
    proc = subprocess.Popen(
        [sys.executable, "-m", "quire", "run", "--input", str(SAMPLE_PDF), "--out", "out"],
        cwd=tmp_path,
        env=warm_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not served(sock) and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(sock.with_suffix(".log").read_text().split("child ")[1].split(":")[0])
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "Aborted!" in err  # as click ends a command on Ctrl-C
    deadline = time.monotonic() + 10  # the warm process reaps its children every second
    while Path(f"/proc/{child}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not Path(f"/proc/{child}").exists()


def test_a_killed_warm_process_is_replaced_and_an_idle_one_ends(
    tmp_path: Path, warm_env: dict[str, str]
) -> None:
    quire(tmp_path, warm_env, "--version")
    sock = wait_warm(warm_env)
    [pid] = holders(sock.with_suffix(".lock"))
    os.kill(pid, signal.SIGKILL)  # its socket file stays behind
    time.sleep(0.2)
    assert sock.exists()
    env = {**warm_env, "QUIRE_WARM_IDLE": "1"}
    again = quire(tmp_path, env, "--version")  # runs here, starts a new warm process
    assert again.returncode == 0 and again.stdout.startswith("quire, version")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and holders(sock.with_suffix(".lock")) in ([], [pid]):
        time.sleep(0.1)
    [replacement] = holders(sock.with_suffix(".lock"))
    assert replacement != pid
    while time.monotonic() < deadline and holders(sock.with_suffix(".lock")):
        time.sleep(0.2)  # idle for a second: it ends and takes its socket with it
    assert holders(sock.with_suffix(".lock")) == [] and not sock.exists()


def test_the_embedded_pools_workers_come_from_the_warm_process(
    tmp_path: Path, warm_env: dict[str, str]
) -> None:
    quire(tmp_path, warm_env, "--version")  # runs here, starts the warm process
    sock = wait_warm(warm_env)
    args = ("run", "--input", str(SAMPLE_PDF), "--processes", "2", "--out")
    for name in ("cold", "warm"):
        (tmp_path / name).mkdir()
    cold = quire(tmp_path / "cold", {**warm_env, "QUIRE_WARM": "0"}, *args, "out")
    warm_run = quire(tmp_path / "warm", warm_env, *args, "out")
    assert cold.returncode == 0 and warm_run.returncode == 0, warm_run.stderr
    # its parts ran in workers the warm process forked (one or two, as parts waited)
    commands = served(sock)
    assert commands[0] == "run" and set(commands[1:]) == {"part-worker"}, commands
    assert files(tmp_path / "warm" / "out") == files(tmp_path / "cold" / "out")


def test_a_warm_part_worker_reports_its_death_and_dies_with_its_pool(
    warm_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    quire(Path.cwd(), warm_env, "--version")
    sock = wait_warm(warm_env)
    for name in ("QUIRE_WARM", "XDG_RUNTIME_DIR"):
        monkeypatch.setenv(name, warm_env[name])
    monkeypatch.setattr(warm_workers, "SERVED", [sock])  # as in a command the warm process forked
    # killed mid-part: its pool reads the end of its answers and how it ended, as Popen's
    worker = warm_workers.part_worker()
    assert worker is not None and worker.stdout is not None
    assert Path(f"/proc/{worker.pid}").exists()
    worker.kill()
    assert worker.stdout.read() == b""
    assert worker.wait(timeout=30) == -signal.SIGKILL
    # the pool's process gone (its end of the conversation closed): the worker goes too
    orphan = warm_workers.part_worker()
    assert orphan is not None
    orphan._sock.close()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and Path(f"/proc/{orphan.pid}").exists():
        time.sleep(0.1)
    assert not Path(f"/proc/{orphan.pid}").exists()


def test_services_and_quire_warm_0_run_in_their_own_process(
    tmp_path: Path, warm_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_WARM", "1")
    assert not warm.warmable(["serve", "--port", "0"]) and not warm.warmable(["-v", "worker"])
    assert warm.warmable(["-v", "run", "--input", "x.pdf"])
    off = quire(tmp_path, {**warm_env, "QUIRE_WARM": "off"}, "--version")
    assert off.returncode == 0
    time.sleep(1)
    assert not socket_folder(warm_env).exists()


def test_the_socket_is_named_by_what_the_imports_depend_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "quire"
    (package / "shared").mkdir(parents=True)
    module = package / "shared" / "ir.py"
    module.write_text("A = 1\n")
    monkeypatch.setattr(warm_socket, "PACKAGE", package)
    before = warm_socket.fingerprint()
    assert warm_socket.fingerprint() == before
    module.write_text("A = 22\n")  # an edit
    assert warm_socket.fingerprint() != before
    edited = warm_socket.fingerprint()
    monkeypatch.setattr(sys, "path", [*sys.path, str(tmp_path)])  # another path
    assert warm_socket.fingerprint() != edited
    # a folder open to other users is never used for the socket
    runtime = Path(tempfile.mkdtemp(prefix="qw-"))  # short enough for a socket's path
    try:
        (runtime / f"quire-warm-{os.getuid()}").mkdir(mode=0o777)
        os.chmod(runtime / f"quire-warm-{os.getuid()}", 0o777)
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
        assert warm_socket.socket_path() is None
    finally:
        shutil.rmtree(runtime)
