"""The embedded run's threads when a Ctrl-C lands while one starts (a notebook's ■ button
sends SIGINT while the run submits a part or takes a document): closing the pool or the
leases must not hide the KeyboardInterrupt behind "cannot join thread before it is
started", which a notebook then showed as the cell's error (`test_notebook`, once in CI)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from quire.orchestrator.leases import Leases
from quire.orchestrator.pool import PartPool
from quire.shared.engine import TaskMessage
from quire.shared.settings import load_settings
from quire.workers.runtime import Runtime


def test_a_slot_whose_start_was_interrupted_does_not_break_closing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    pool = PartPool(Runtime.from_env(load_settings()), 2)

    def interrupted(self: threading.Thread) -> None:
        raise KeyboardInterrupt  # as SIGINT would, inside Thread.start

    with monkeypatch.context() as m:
        m.setattr(threading.Thread, "start", interrupted)
        with pytest.raises(KeyboardInterrupt):
            pool.submit(TaskMessage(doc_id="d", state="parsing", part="0", revision=1))
    pool.close(kill=True)  # raised RuntimeError before
    with pytest.raises(RuntimeError, match="closed"):
        pool.submit(TaskMessage(doc_id="d", state="parsing", part="0", revision=1))


def test_a_lease_renewer_whose_start_was_interrupted_does_not_break_closing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    leases = Leases(Runtime.from_env(load_settings()))

    def interrupted(self: threading.Thread) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(threading.Thread, "start", interrupted)
        with pytest.raises(KeyboardInterrupt):
            leases.take("d" * 64)
    leases.close()  # raised RuntimeError before
