"""Helpers for tests that run Quire embedded in real processes: the README's Python block,
`quire` commands in a folder of their own (its `.quire` store), a small book, and an output
folder as hashes to compare runs by."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pipeline_utils import ROOT, SAMPLE_PDF

from quire.shared.config import Environment
from quire.shared.job import Job
from quire.workers.parse.pdf_open import pymupdf_module
from quire.workers.runtime import Runtime

# PYTHONFAULTHANDLER: a command a test gives up on is sent SIGABRT and prints every thread's
# stack, so a hang is reported with where it hung (`stopped_within`)
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONFAULTHANDLER": "1"}


def readme_python(*, processes: int | None = None) -> str:
    """The Python block of the README's "Python API" section, as written, or with its split
    asking for `processes` worker processes (a small book otherwise runs in the caller's
    process: its worker processes are what the entry points must not disturb)."""
    text = (ROOT / "README.md").read_text()
    match = re.search(r"## Python API\n.*?```python\n(.*?)```", text, re.S)
    assert match, "README has a '## Python API' section with a python example"
    block = match.group(1)
    if processes is not None:
        call = 'output_format="both")'
        assert block.count(call) == 1, "the README's split call changed: update this test"
        block = block.replace(call, f'output_format="both", processes={processes})')
    return block


def small_book(path: Path, pages: int) -> Path:
    """The first `pages` pages of the sample book (its outline kept as far as it goes)."""
    p = pymupdf_module()
    with p.open(SAMPLE_PDF) as doc:
        doc.select(list(range(pages)))
        doc.save(path, garbage=3, deflate=True)
    return path


def quire_cmd(cwd: Path, *args: str, **popen: Any) -> subprocess.Popen[bytes]:
    """`quire ARGS` started in `cwd` (its store: `cwd/.quire`), Ctrl-C heard as in a
    terminal's foreground even when the tests run as a background job (`pytest &` in a
    script: a shell has its background jobs ignore SIGINT, and Python keeps an ignored
    SIGINT ignored, so the Ctrl-C tests waited forever)."""
    return subprocess.Popen(
        [sys.executable, "-m", "quire.orchestrator.cli", *args],
        cwd=cwd,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_hear_ctrl_c,
        **popen,
    )


def _hear_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # (in the child, before it runs Python)


def stopped_within(proc: subprocess.Popen[bytes], seconds: float) -> tuple[bytes, bytes]:
    """The output of `proc` once it ends (read as it comes: a full pipe would stall it), or
    a failure with the stack of each of its threads if it is still going after `seconds`."""
    try:
        return proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # gone, but a (frozen) worker holds its pipes
            with contextlib.suppress(ProcessLookupError):  # no session of its own
                os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate()
        pytest.fail(f"still running after {seconds} s; its threads:\n{err.decode()[-6000:]}")


def quire(cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quire.orchestrator.cli", *args],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def store_of(cwd: Path) -> Runtime:
    """The runtime of the commands run in `cwd`."""
    return Runtime.from_env(
        Environment(store_url=str(cwd / ".quire" / "store"), state_dir=cwd / ".quire")
    )


def wait_for(
    rt: Runtime, what: Callable[[Job], bool], *, proc: subprocess.Popen[bytes] | None = None
) -> Job:
    """Poll the only document of `rt` until `what` holds (while `proc` runs)."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        docs = rt.revisions.list_docs()
        if docs:
            s = rt.repo.load(docs[0])
            if what(s):
                return s
        if proc is not None and proc.poll() is not None:
            said = proc.stderr.read().decode() if proc.stderr else ""
            raise AssertionError(f"the run ended first: {said}")
        time.sleep(0.05)
    raise TimeoutError("the document never got there")


def part_running(s: Job) -> bool:
    """A part has been sent and has not finished."""
    return any(p not in s.done for p in s.dispatched)


def folder_hashes(folder: Path) -> dict[str, str]:
    """Every file of an output folder, by its path inside, as sha256."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def workers_of(pid: int) -> list[int]:
    """The live worker processes (`part_worker`) whose parent is `pid`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and b"part_worker" in cmdline and fields[0] not in "ZX":
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")
