"""The README's Python block works from any entry point: a script without a main guard, code on
standard input, `python -c`, a thread of another program and a daemonic child process (as in
a Celery prefork worker). Each run finishes verified, and the caller's `__main__` runs once:
the worker processes never import it. As written, the small book runs in the caller's
process; asked for two worker processes, it runs in them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from embedded_runs import ENV, readme_python, small_book

# every way in first notes that the caller's code ran; a worker that re-ran it would add a line
MARK = 'open("main-runs.log", "a").write("ran\\n")\n'
HOSTS = {
    # a thread inside another program
    "thread": """
import threading
failed = []
def work():
    try:
        exec(compile(BLOCK, "readme", "exec"), {"__name__": "readme"})
    except BaseException as exc:
        failed.append(exc)
        raise
worker = threading.Thread(target=work)
worker.start()
worker.join()
assert not failed, failed
""",
    # a daemonic child, as a Celery prefork worker or a web server's worker runs tasks
    "daemon": """
import multiprocessing
def work():
    exec(compile(BLOCK, "readme", "exec"), {"__name__": "readme"})
child = multiprocessing.get_context("fork").Process(target=work, daemon=True)
child.start()
child.join()
assert child.exitcode == 0, child.exitcode
""",
}


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_book(tmp_path_factory.mktemp("book") / "fhs-3.0.pdf", pages=12)


@pytest.mark.parametrize("processes", [None, 2])
@pytest.mark.parametrize("way", ["script", "stdin", "-c", "thread", "daemon"])
def test_the_readme_block_runs_from_any_entry_point(
    way: str, processes: int | None, book: Path, tmp_path: Path
) -> None:
    (tmp_path / "samples").mkdir()
    (tmp_path / "samples" / "fhs-3.0.pdf").write_bytes(book.read_bytes())
    block = readme_python(processes=processes)
    code = MARK + block
    stdin = None
    if way == "script":
        (tmp_path / "example.py").write_text(code)
        argv = ["example.py"]
    elif way == "stdin":
        argv, stdin = ["-"], code
    elif way == "-c":
        argv = ["-c", code]
    else:
        (tmp_path / "host.py").write_text(MARK + f"BLOCK = {block!r}\n" + HOSTS[way])
        argv = ["host.py"]
    run = subprocess.run(
        [sys.executable, *argv],
        input=stdin,
        cwd=tmp_path,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert "verification passed" in run.stdout and "BrokenProcessPool" not in run.stderr
    assert (tmp_path / "out" / "fhs" / "manifest.json").is_file()
    assert (tmp_path / "main-runs.log").read_text() == "ran\n"  # the caller's code ran once
