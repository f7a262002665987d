"""Faults on the real distributed stack: workers SIGKILLed in the middle of a part, Redis
restarted or flushed mid-batch, the orchestrator (reconciler and the `orchestrate` worker)
killed and restarted. Every document must finish exactly once: outputs byte-identical to an
undisturbed embedded run, revisions without gaps or extras, no part recorded twice.

Parts are caught in flight with the S3 fault proxy: a `hold()` rule stops the part's own
output write, so the test knows the part has done its work but not stored or recorded it,
and kills the worker right there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fault_stack import QUEUES_A, QUEUES_B, Stack, assert_exactly_once, assert_same_outputs
from gen_docs import textbook_docx, textbook_pdf
from pipeline_utils import CORPUS, local_runtime, outputs, run_embedded
from s3_fault_proxy import hold
from services import MotoServer

from quire.shared.config import RunSettings
from quire.shared.revisions.listing import DocQuery

pytestmark = pytest.mark.services

PDF_BOTH = RunSettings(output_format="both", render_batch_pages=1)
DOCX = RunSettings()

Baseline = Callable[[Path, RunSettings], dict[str, bytes]]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One stack for the module: short visibility timeout (6 s) so a task whose worker died
    is redelivered quickly, and the reconciler every 0.5 s with deadlines scaled to 1%
    (6-9 s), so a document whose messages were lost is re-driven quickly."""
    tmp = tmp_path_factory.mktemp("faults")
    with MotoServer() as moto:
        stack = Stack(
            tmp, moto, visibility_timeout=6.0, deadline_scale=0.01, reconciler_interval=0.5
        ).start()
        try:
            yield stack
        finally:
            stack.stop()


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Baseline:
    """Outputs of an undisturbed embedded run of the same bytes with the same settings."""
    rt = local_runtime(tmp_path_factory.mktemp("baseline"))
    cache: dict[tuple[bytes, str], dict[str, bytes]] = {}

    def get(path: Path, settings: RunSettings) -> dict[str, bytes]:
        key = (path.read_bytes(), settings.model_dump_json())
        if key not in cache:
            s = run_embedded(rt, path, settings)
            assert s.state == "complete", s.error
            cache[key] = outputs(rt, s.doc_id)
        return cache[key]

    return get


@pytest.fixture(autouse=True)
def healthy(stack: Stack) -> Iterator[None]:
    """Each test starts with both workers and the reconciler alive and no fault rules."""
    for name, queues in (("a", QUEUES_A), ("b", QUEUES_B)):
        worker = stack.workers.get(name)
        if worker is None or worker.proc is None or worker.proc.poll() is not None:
            stack.start_worker(name, queues)
    if stack.reconciler is None or stack.reconciler.poll() is not None:
        stack.start_reconciler()
    yield
    stack.proxy.clear()


def received(stack: Stack, name: str, task: str) -> int:
    return stack.workers[name].log_text().count(f"Task {task}[")


def check(stack: Stack, doc_id: str, expected: dict[str, bytes]) -> None:
    s = stack.load(doc_id)
    assert s.state == "complete", (s.state, s.error, stack.logs()[-6000:])
    assert_same_outputs(stack.runtime, doc_id, expected)
    assert_exactly_once(stack.observer, doc_id)


def test_pool_child_killed_mid_parse_is_redelivered(stack: Stack, baseline: Baseline) -> None:
    """SIGKILL of the pool process running a parse: the parent sees the worker lost,
    rejects the message (reject_on_worker_lost) and the part runs again at once."""
    path = CORPUS / "latex-news-22.pdf"
    expected = baseline(path, PDF_BOTH)
    stack.proxy.add(hold(), ops={"PUT"}, key=r"/work/parse/", limit=1)
    doc_id = stack.submit(path, PDF_BOTH)
    stack.poke([doc_id])
    held = stack.proxy.wait_held(60)
    s = stack.load(doc_id)
    assert s.state == "parsing" and not s.done, "the part must be in flight, not recorded"
    assert stack.workers["a"].kill_children(), "no pool process to kill"
    stack.proxy.release()
    stack.wait_terminal([doc_id], 90)
    check(stack, doc_id, expected)
    assert held.key.endswith("/work/parse/00001-00002.json")
    log = stack.workers["a"].log_text()
    assert "WorkerLostError" in log or "exited with 'signal 9" in log, log[-3000:]
    assert received(stack, "a", "quire.part.parse") >= 2  # delivered again


def test_pool_child_killed_between_commit_and_advance(
    stack: Stack, baseline: Baseline, tmp_path: Path
) -> None:
    """The part has stored its output and recorded itself done, and dies before advancing
    the document: the redelivered message is a duplicate, and it must still advance the
    document (without waiting for the reconciler's deadline)."""
    path = textbook_pdf(tmp_path / "advance.pdf", seed=77)
    expected = baseline(path, PDF_BOTH)
    # the parse worker's connection: output PUT, its done-commit PUT, then the advance's
    # commit (the next PUT of a session revision: the revision it read is the one it just
    # wrote, which its repo knows without a GET) is held, and dropped when released
    stack.proxy.add(
        hold(),
        ops={"PUT"},
        key=r"/session/rev-",
        limit=1,
        after=[("PUT", r"/work/parse/"), ("PUT", r"/session/rev-")],
    )
    doc_id = stack.submit(path, PDF_BOTH)
    stack.poke([doc_id])
    stack.proxy.wait_held(60)
    s = stack.load(doc_id)
    assert s.state == "parsing" and s.done and set(s.done) == set(s.parts or [])
    assert stack.workers["a"].kill_children()
    stack.proxy.release()
    stack.wait_terminal([doc_id], 90)
    check(stack, doc_id, expected)
    history = stack.observer.history(doc_id)
    assert not [h.revision for h in history if h.actor == "reconciler"], (
        "the redelivery should have advanced the document, not the reconciler"
    )


def test_worker_killed_mid_render_batch_is_redelivered(
    stack: Stack, baseline: Baseline, tmp_path: Path
) -> None:
    """The whole worker (parent and pool) SIGKILLed during a render-compare batch: its
    message stays unacknowledged in Redis and is redelivered after the visibility
    timeout to the replacement worker."""
    path = textbook_pdf(tmp_path / "render.pdf", seed=101)
    expected = baseline(path, PDF_BOTH)
    stack.proxy.add(hold(), ops={"PUT"}, key=r"/work/verify/render-0001", limit=1)
    doc_id = stack.submit(path, PDF_BOTH)
    stack.poke([doc_id])
    held = stack.proxy.wait_held(60)
    s = stack.load(doc_id)
    assert s.state == "verifying" and "render-0001" not in s.done
    stack.workers["b"].kill_all()
    stack.proxy.release()
    killed_at = time.monotonic()
    stack.start_worker("b", QUEUES_B)
    stack.wait_terminal([doc_id], 90)
    check(stack, doc_id, expected)
    assert "render-0001" in held.key
    assert time.monotonic() - killed_at < 60


def test_worker_killed_mid_analysis_message_lost_reconciler_redrives(
    stack: Stack, baseline: Baseline, tmp_path: Path
) -> None:
    """The worker dies during the analysing state and its message is lost with it (removed
    from Redis, as after a failover without replication): only the reconciler can notice,
    and it re-drives the state once its deadline has passed. (Offline analyses are made in
    the planning step; the analysing state checks them and publishes them to
    out/analysis/, where the worker is held.)"""
    path = textbook_docx(tmp_path / "analysis.docx", seed=202)
    expected = baseline(path, DOCX)
    stack.proxy.add(hold(), ops={"PUT"}, key=r"/out/analysis/", limit=1)
    doc_id = stack.submit(path, DOCX)
    stack.poke([doc_id])
    stack.proxy.wait_held(60)
    s = stack.load(doc_id)
    assert s.state == "analysing" and not s.done
    stack.workers["b"].kill_all()
    with stack.redis.client() as r:  # db 0: the broker
        assert r.hlen("unacked") >= 1
        r.delete("unacked", "unacked_index")
    stack.proxy.release()
    stack.start_worker("b", QUEUES_B)
    stack.wait_terminal([doc_id], 90)
    check(stack, doc_id, expected)
    history = stack.observer.history(doc_id)
    assert any(h.actor == "reconciler" and h.state == "analysing" for h in history)


def _batch(tmp_path: Path, seed: int) -> list[tuple[Path, RunSettings]]:
    return [
        (textbook_pdf(tmp_path / f"b{seed}-1.pdf", seed=seed), PDF_BOTH),
        (textbook_docx(tmp_path / f"b{seed}-2.docx", seed=seed + 1), DOCX),
    ]


def _run_disturbed_batch(
    stack: Stack,
    baseline: Baseline,
    docs: list[tuple[Path, RunSettings]],
    disturb: Callable[[], None],
) -> None:
    expected = {p: baseline(p, st) for p, st in docs}
    ids = {p: stack.submit(p, st) for p, st in docs}
    stack.poke(list(ids.values()))
    # mid-batch: the first document has made progress, not all are finished
    stack.wait_until(ids[docs[0][0]], lambda s: s.state not in ("queued", "parsing"), 60)
    assert not all(stack.load(d).terminal for d in ids.values())
    disturb()
    stack.wait_terminal(list(ids.values()), 120)
    for p, doc_id in ids.items():
        check(stack, doc_id, expected[p])
    # the documents listing came back with the index: each at its last revision
    listed = {e.doc_id: e for e in stack.runtime.revisions.entries(DocQuery(limit=50)).entries}
    for doc_id in ids.values():
        assert listed[doc_id].revision == stack.runtime.repo.current_revision(doc_id)
        assert listed[doc_id].state == "complete" and listed[doc_id].verification == "passed"


def test_redis_restarted_mid_batch(stack: Stack, baseline: Baseline, tmp_path: Path) -> None:
    """Redis dies and comes back empty (no persistence): queued messages and the revision
    index are gone. Revisions are rebuilt from the session objects in the store and the
    reconciler re-drives what was lost."""
    _run_disturbed_batch(stack, baseline, _batch(tmp_path, 300), stack.redis.restart)


def test_redis_flushed_mid_batch(stack: Stack, baseline: Baseline, tmp_path: Path) -> None:
    _run_disturbed_batch(stack, baseline, _batch(tmp_path, 400), stack.redis.flushall)


def test_orchestrator_restarted_mid_batch(stack: Stack, baseline: Baseline, tmp_path: Path) -> None:
    """The reconciler process and the worker serving `orchestrate` are SIGKILLed while an
    advance is in flight (its commit held), then started again: the batch completes."""
    docs = _batch(tmp_path, 500)
    expected = {p: baseline(p, st) for p, st in docs}
    stack.proxy.add(hold(), ops={"PUT"}, key=r"/session/rev-00000002\.json", limit=1)
    ids = {p: stack.submit(p, st) for p, st in docs}
    stack.poke(list(ids.values()))
    stack.proxy.wait_held(60)
    stack.kill_reconciler()
    stack.workers["a"].kill_all()
    stack.proxy.release()
    time.sleep(1.0)  # the batch sits without an orchestrator for a moment
    stack.start_worker("a", QUEUES_A)
    stack.start_reconciler()
    stack.wait_terminal(list(ids.values()), 120)
    for p, doc_id in ids.items():
        check(stack, doc_id, expected[p])
