"""No stuck documents: an embedded run that dies in any way — kill -9, Ctrl-C, an exception in
the calling code, a worker process killed under it — leaves its document to the next
command (`run`, `batch`, `serve`), which completes it with exactly the output of an
undisturbed run. Meanwhile `quire status` shows the document as abandoned, not running."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from embedded_runs import (
    ENV,
    alive,
    folder_hashes,
    part_running,
    quire,
    quire_cmd,
    small_book,
    stopped_within,
    store_of,
    wait_for,
    workers_of,
)
from pipeline_utils import local_runtime
from web_server import WebServer, wait_stopped

from quire.orchestrator.local import run_documents
from quire.shared import keys
from quire.shared.config import RunSettings
from quire.shared.job import Job
from quire.shared.revisions.sqlite import SqliteRevisionStore
from quire.workers.execute import submit
from quire.workers.runtime import Runtime

pytestmark = pytest.mark.xdist_group("resume")  # one undisturbed run for them all


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_book(tmp_path_factory.mktemp("book") / "book.pdf", pages=12)


@pytest.fixture(scope="module")
def undisturbed(book: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The output folder of a run nobody disturbed."""
    cwd = tmp_path_factory.mktemp("undisturbed")
    run = quire(cwd, *run_args(book, "out"))
    assert run.returncode == 0, run.stderr
    return folder_hashes(cwd / "out")


def run_args(book: Path, out: str) -> list[str]:
    # worker processes: a document this small would run in the command's own process
    run = ["run", "--input", str(book), "--out", out, "--output-format", "both"]
    return [*run, "--processes", "2"]


def working(pid: int) -> Callable[[Job], bool]:
    """A part is out and a worker process of `pid` is there to run it."""
    return lambda s: part_running(s) and bool(workers_of(pid))


def frozen_mid_part(cwd: Path, proc: subprocess.Popen[bytes]) -> tuple[Job, list[int]]:
    """Stop (SIGSTOP) the workers of `proc` while a part is out and unfinished, so that
    what the test does next interrupts the run mid-part: a part that ended between the
    poll and the signal would leave nothing to resume (as on a slow CI machine)."""
    rt = store_of(cwd)
    while True:
        wait_for(rt, working(proc.pid), proc=proc)
        workers = workers_of(proc.pid)
        for worker in workers:
            os.kill(worker, signal.SIGSTOP)
        s = rt.repo.load(rt.revisions.list_docs()[0])
        if part_running(s) and _write_lock_free(rt) and not _commit_half_made(rt, s):
            return s, workers
        for worker in workers:
            os.kill(worker, signal.SIGCONT)
        time.sleep(0.05)  # let them get on before the next look


def _write_lock_free(rt: Runtime) -> bool:
    """Does no stopped worker hold the revision database's write lock? The run's own next
    commit would wait for it through SQLite's busy timeout, deaf to the Ctrl-C the test
    sends, and past the test's wait for the run to stop (a real Ctrl-C stops no worker)."""
    assert isinstance(rt.revisions, SqliteRevisionStore)
    conn = sqlite3.connect(rt.revisions.path, timeout=0.1, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()


def _commit_half_made(rt: Runtime, s: Job) -> bool:
    """Has a stopped worker written its next revision (say, its part done) but not yet
    moved the index to it? Then the part has in fact finished: the next run rolls the index
    forward and finds nothing to resume."""
    return rt.store.exists(keys.revision(s.doc_id, s.revision + 1))


def status(cwd: Path) -> dict[str, object]:
    shown = quire(cwd, "status", "--json")
    assert shown.returncode == 0, shown.stderr
    (doc,) = json.loads(shown.stdout)
    assert isinstance(doc, dict)
    return doc


def whys(cwd: Path) -> list[str]:
    rt = store_of(cwd)
    return [s.why for s in rt.repo.history(rt.revisions.list_docs()[0])]


def test_after_kill_9_the_next_run_resumes_the_document(
    book: Path, undisturbed: dict[str, str], tmp_path: Path
) -> None:
    proc = quire_cmd(tmp_path, *run_args(book, "out"))
    s, workers = frozen_mid_part(tmp_path, proc)
    proc.kill()
    proc.wait()
    for worker in workers:  # on their own now: they must notice
        os.kill(worker, signal.SIGCONT)
    deadline = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(w) for w in workers)  # its workers do not outlive it
    doc = status(tmp_path)
    assert doc["abandoned"] is True and doc["state"] == s.state
    again = quire(tmp_path, *run_args(book, "out2"))
    assert again.returncode == 0, again.stderr
    assert folder_hashes(tmp_path / "out2") == undisturbed
    said = whys(tmp_path)
    assert "resumed: the run driving it died" in said, said


def test_after_ctrl_c_the_next_batch_resumes_the_document(
    book: Path, undisturbed: dict[str, str], tmp_path: Path
) -> None:
    proc = quire_cmd(tmp_path, *run_args(book, "out"), start_new_session=True)
    frozen_mid_part(tmp_path, proc)  # the run kills them as it stops
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal sends its foreground group
    _, err = stopped_within(proc, 60)
    assert proc.returncode != 0, err.decode()
    assert status(tmp_path)["abandoned"] is True
    batch = quire(tmp_path, "batch", str(book), "--out", "batch", "--output-format", "both")
    assert batch.returncode == 0, batch.stderr
    assert folder_hashes(tmp_path / "batch" / "book") == undisturbed
    said = whys(tmp_path)
    assert "resumed: the run driving it stopped" in said, said


def test_a_ctrl_c_that_lands_on_another_thread_stops_the_run_too(
    book: Path, tmp_path: Path
) -> None:
    """The kernel hands a signal sent to a process to any of its threads. Landing on the
    worker pool's or the lease renewer's, it once left the main thread asleep on a lock
    for good: the run went on after Ctrl-C."""
    proc = quire_cmd(tmp_path, *run_args(book, "out"), start_new_session=True)
    frozen_mid_part(tmp_path, proc)  # the run kills them as it stops
    threads = [int(t) for t in os.listdir(f"/proc/{proc.pid}/task") if int(t) != proc.pid]
    assert threads, "the run has a pool and a lease renewer"
    _tgkill(proc.pid, threads[0], signal.SIGINT)
    _, err = stopped_within(proc, 60)
    assert proc.returncode != 0, err.decode()
    assert status(tmp_path)["abandoned"] is True


def _tgkill(pid: int, tid: int, sig: int) -> None:
    """Send `sig` to thread `tid` of process `pid` only (Python's os.kill reaches the
    whole process; its pthread_kill, its own threads)."""
    import ctypes
    import platform

    number = {"x86_64": 234, "aarch64": 131}[platform.machine()]  # SYS_tgkill
    if ctypes.CDLL(None, use_errno=True).syscall(number, pid, tid, sig) != 0:
        raise OSError(ctypes.get_errno(), "tgkill")


def test_after_an_exception_in_the_caller_serve_resumes_the_document(
    book: Path, undisturbed: dict[str, str], tmp_path: Path
) -> None:
    script = f"""
import quire
def stop(s):
    if s.state == "writing":
        raise RuntimeError("the caller failed")
quire.split({str(book)!r}, out="out", output_format="both", on_progress=stop)
"""
    (tmp_path / "caller.py").write_text(script)
    failed = subprocess.run(
        [sys.executable, "caller.py"], cwd=tmp_path, env=ENV, capture_output=True, text=True
    )
    assert failed.returncode != 0 and "the caller failed" in failed.stderr
    doc = status(tmp_path)
    assert doc["abandoned"] is True and doc["state"] == "writing"
    env = {
        "QUIRE_STORE_URL": str(tmp_path / ".quire" / "store"),
        "QUIRE_STATE_DIR": str(tmp_path / ".quire"),
    }
    with WebServer(env) as srv, srv.client(token=None) as api:
        assert wait_stopped(api, str(doc["doc_id"]))["state"] == "complete"
    export = quire(tmp_path, "export", str(doc["doc_id"]), "--out", "out2")
    assert export.returncode == 0, export.stderr
    assert folder_hashes(tmp_path / "out2") == undisturbed


def test_a_worker_killed_under_a_run_is_replaced_and_its_part_sent_again(
    book: Path, undisturbed: dict[str, str], tmp_path: Path
) -> None:
    proc = quire_cmd(tmp_path, *run_args(book, "out"))
    for worker in frozen_mid_part(tmp_path, proc)[1]:
        os.kill(worker, signal.SIGKILL)
    _, err = stopped_within(proc, 600)
    assert proc.returncode == 0, err.decode()
    assert "killed by signal 9" in err.decode() and "sending it again" in err.decode()
    assert folder_hashes(tmp_path / "out") == undisturbed
    again = quire(tmp_path, *run_args(book, "out2"))  # and the next command agrees
    assert again.returncode == 0 and folder_hashes(tmp_path / "out2") == undisturbed


def test_a_part_that_ends_its_worker_every_time_fails_its_document_alone(
    book: Path, tmp_path: Path
) -> None:
    """Three workers in a row die under the same part (here: killed as they start): the
    document fails with `worker_crashed`, and the run ends instead of trying forever."""
    rt = local_runtime(tmp_path)
    doc_id = submit(rt, book, RunSettings()).doc_id
    runner = threading.Thread(target=run_documents, args=(rt, [doc_id]), kwargs={"processes": 2})
    runner.start()
    killed: set[int] = set()
    while runner.is_alive():
        for worker in set(workers_of(os.getpid())) - killed:
            os.kill(worker, signal.SIGKILL)
            killed.add(worker)
        time.sleep(0.02)
    s = rt.repo.load(doc_id)
    assert s.state == "failed" and s.error_code == "worker_crashed", s.error
    assert "parsing:" in str(s.error) and "3 time(s), the last killed by signal 9" in str(s.error)
    assert len(killed) == 3
