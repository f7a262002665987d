"""The README's Python block in a real Jupyter kernel (ipykernel, driven by jupyter_client as a
notebook front end drives it): it runs to a verified folder, and after "Interrupt the kernel"
in the middle of a part the same cell run again in the same kernel resumes the document.

A kernel is an entry point of its own: `__main__` is the kernel's, standard output is a
ZeroMQ stream without a file descriptor, an event loop is running, and an interrupt is a
SIGINT to the kernel's process group while a part runs, in the kernel or in worker
processes."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from embedded_runs import (
    ENV,
    part_running,
    readme_python,
    small_book,
    store_of,
    wait_for,
    workers_of,
)
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

KERNEL = "quire-test"


class Kernel:
    """One kernel started in `cwd`, with this interpreter (not whatever `python` is on PATH)."""

    def __init__(self, cwd: Path, specs: Path) -> None:
        spec = specs / KERNEL
        spec.mkdir(parents=True)
        argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        kernel = {"argv": argv, "display_name": "Quire test", "language": "python"}
        (spec / "kernel.json").write_text(json.dumps(kernel))
        self.manager = KernelManager(
            kernel_name=KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(specs)])
        )
        self.manager.start_kernel(cwd=str(cwd), env=ENV)
        self.client: BlockingKernelClient = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=120)

    @property
    def pid(self) -> int:
        return int(self.manager.provisioner.pid)  # type: ignore[union-attr]

    def run(self, code: str) -> tuple[str, str]:
        """Run one cell: its reply's status ("ok" or "error") and everything it printed."""
        printed: list[str] = []

        def output(msg: dict[str, Any]) -> None:
            content = msg["content"]
            if msg["msg_type"] == "stream":
                printed.append(content["text"])
            elif msg["msg_type"] == "error":
                printed.append(f"{content['ename']}: {content['evalue']}\n")

        reply = self.client.execute_interactive(code, output_hook=output, timeout=600)
        return reply["content"]["status"], "".join(printed)

    def wait_idle(self, request: str) -> None:
        """Until the kernel says it is idle after `request`, as a front end waits."""
        while True:
            msg = self.client.get_iopub_msg(timeout=120)
            if (
                msg["parent_header"].get("msg_id") == request
                and msg["msg_type"] == "status"
                and msg["content"]["execution_state"] == "idle"
            ):
                return

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[Kernel]:
    (tmp_path / "samples").mkdir()
    small_book(tmp_path / "samples" / "fhs-3.0.pdf", pages=12)
    k = Kernel(tmp_path, tmp_path / "kernels")
    yield k
    k.close()


def test_the_readme_block_runs_in_a_notebook_kernel(kernel: Kernel, tmp_path: Path) -> None:
    status, printed = kernel.run(readme_python())
    assert status == "ok", printed
    assert "verification passed" in printed and " pp. 1-" in printed
    assert (tmp_path / "out" / "fhs" / "manifest.json").is_file()
    assert workers_of(kernel.pid) == []  # the run's worker processes ended with it


@pytest.mark.parametrize("processes", [None, 2])
def test_an_interrupted_cell_run_again_resumes_its_document(
    kernel: Kernel, tmp_path: Path, processes: int | None
) -> None:
    # as written, the small book's parts run in the kernel itself; asked for two worker
    # processes, in them
    if processes is None:
        # in the kernel, 12 pages' remaining parts could end before the interrupt landed (the
        # cell then replied "ok"); the whole 50-page sample is still one part, and longer
        small_book(tmp_path / "samples" / "fhs-3.0.pdf", pages=50)
    block = readme_python(processes=processes)
    cell = kernel.client.execute(block)  # the cell starts; interrupt it while a part runs
    # while it parses: the stages after give the interrupt time to land on a loaded machine
    # (caught at the last stage's part, the run had ended first once in CI)
    wait_for(store_of(tmp_path), lambda s: s.state == "parsing" and part_running(s))
    kernel.manager.interrupt_kernel()  # the notebook's ■ button
    reply = kernel.client.get_shell_msg(timeout=120)
    while reply["parent_header"]["msg_id"] != cell:  # the start-up's kernel_info reply
        reply = kernel.client.get_shell_msg(timeout=120)
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "KeyboardInterrupt", reply["content"]
    kernel.wait_idle(cell)  # before that, the kernel aborts what it receives (stop on error)
    assert not (tmp_path / "out" / "fhs" / "manifest.json").exists()

    status, printed = kernel.run(block)  # the same cell again, in the same kernel
    assert status == "ok", printed
    assert "verification passed" in printed and " pp. 1-" in printed
    state = store_of(tmp_path)
    (doc_id,) = state.revisions.list_docs()
    assert state.repo.load(doc_id).state == "complete"
    assert workers_of(kernel.pid) == []
