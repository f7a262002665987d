"""End-to-end behaviour of the pipeline on the embedded default and on real Redis:
idempotent parts, duplicate deliveries, index loss mid-run, failures isolated per document."""

from __future__ import annotations

from pathlib import Path

from pipeline_utils import (
    CORPUS,
    SAMPLE_DOCX,
    SAMPLE_PDF,
    local_runtime,
    run_embedded,
    store_snapshot,
)
from services import RedisServer

from quire.orchestrator.local import run_documents
from quire.shared.config import Environment, RunSettings
from quire.shared.job import JobRepo
from quire.shared.layout import Layout
from quire.shared.revisions.redis import RedisRevisionStore
from quire.shared.store import LocalStore
from quire.workers import steps
from quire.workers.execute import advance_document, run_part, submit
from quire.workers.runtime import Runtime

SETTINGS = RunSettings(output_format="both", range_pages=15, render_batch_pages=30)


def drive_with_duplicates(rt: Runtime, doc_id: str) -> int:
    """Deliver every part three times: once more before its commit (a redelivery while the
    first run was still going) and once more after it (a late duplicate)."""
    duplicates = 0
    while msgs := advance_document(rt, doc_id):
        for msg in msgs:
            steps.run(rt, rt.repo.load(doc_id), msg.part)
            assert run_part(rt, msg, actor="first")
            assert not run_part(rt, msg, actor="duplicate")
            duplicates += 2
    return duplicates


def test_every_part_twice_leaves_the_same_store(tmp_path: Path) -> None:
    once = local_runtime(tmp_path / "once")
    done = run_embedded(once, SAMPLE_PDF, SETTINGS)
    assert done.state == "complete", done.error

    twice = local_runtime(tmp_path / "twice")
    s = submit(twice, SAMPLE_PDF, SETTINGS)
    assert drive_with_duplicates(twice, s.doc_id) > 20
    assert twice.repo.load(s.doc_id).state == "complete"
    assert store_snapshot(twice, s.doc_id) == store_snapshot(once, s.doc_id)
    # the duplicates committed nothing: same number of revisions as the plain run
    assert len(twice.repo.history(s.doc_id)) == len(once.repo.history(s.doc_id))


def test_redis_flushed_mid_run_is_rebuilt_from_the_store(
    tmp_path: Path, private_redis: RedisServer
) -> None:
    store = LocalStore(tmp_path / "store")
    revisions = RedisRevisionStore(private_redis.url)
    rt = Runtime(
        env=Environment(store_url=str(tmp_path / "store"), state_dir=tmp_path),
        store=store,
        revisions=revisions,
        repo=JobRepo(store, revisions),
    )
    s = submit(rt, SAMPLE_DOCX, RunSettings())
    rounds = 0
    while msgs := advance_document(rt, s.doc_id):
        for msg in msgs:
            run_part(rt, msg, actor="test")
        rounds += 1
        if rounds == 3:
            before = rt.repo.load(s.doc_id).revision
            private_redis.flushall()
            assert revisions.current(s.doc_id) == 0
            assert rt.repo.load(s.doc_id).revision == before  # rebuilt from session objects
    final = rt.repo.load(s.doc_id)
    assert final.state == "complete", final.error
    assert [h.revision for h in rt.repo.history(s.doc_id)] == list(range(1, final.revision + 1))


def test_bad_documents_fail_alone_with_their_reason(tmp_path: Path) -> None:
    rt = local_runtime(tmp_path)
    notpdf = tmp_path / "notes.pdf"
    notpdf.write_text("this is plain text, not a PDF")
    inputs = [
        SAMPLE_DOCX,
        CORPUS / "debian-faq-password.pdf",
        CORPUS / "r-data-truncated.pdf",
        CORPUS / "liboctave-excerpt-image-only.pdf",
        notpdf,
    ]
    ids = [submit(rt, p, RunSettings(ocr="off")).doc_id for p in inputs]  # no text: empty
    run_documents(rt, ids, processes=2)
    states = {p.name: rt.repo.load(d) for p, d in zip(inputs, ids, strict=True)}
    assert states["python-hashlib.docx"].state == "complete"
    expected = {
        "debian-faq-password.pdf": "encrypted",
        "r-data-truncated.pdf": "corrupt",
        "liboctave-excerpt-image-only.pdf": "empty",
        "notes.pdf": "corrupt",
    }
    for name, code in expected.items():
        s = states[name]
        assert (s.state, s.error_code) == ("failed", code), (name, s.error_code, s.error)
        assert s.error and name in s.error


def test_resubmitting_the_same_file_creates_no_new_work(tmp_path: Path) -> None:
    rt = local_runtime(tmp_path)
    first = run_embedded(rt, SAMPLE_DOCX, RunSettings())
    again = submit(rt, SAMPLE_DOCX, RunSettings())
    assert again.revision == first.revision and again.state == "complete"
    assert advance_document(rt, first.doc_id) == []


def test_chunks_are_written_and_analysed_in_groups() -> None:
    """Several chunks per writing/analysis part (one per part for LLM analyses): a part
    names its first and last chunk; an analysis group may span chunks already analysed."""
    assert Layout.chunk_parts(list(range(1, 10)), 4) == ["0001-0004", "0005-0008", "0009"]
    assert Layout.chunk_parts([2, 5, 6], 8) == ["0002-0006"]
    assert Layout.chunk_parts([3, 7], 1) == ["0003", "0007"]
    assert Layout.part_chunks("0005-0008") == [5, 6, 7, 8]
    assert Layout.part_chunks("0009") == [9]


def test_a_part_re_dispatched_by_the_reconciler_runs_once(tmp_path: Path) -> None:
    """A part whose state the reconciler re-drove is skipped when its old message arrives
    late; the new dispatch of the same part does the work and the document completes."""
    from quire.shared.engine import reconcile

    rt = local_runtime(tmp_path)
    s = submit(rt, SAMPLE_PDF, RunSettings())
    old = advance_document(rt, s.doc_id)
    far = rt.repo.load(s.doc_id).committed_at + 10_000
    assert reconcile(rt.repo, [s.doc_id], now=far, scale=1) == [s.doc_id]
    new = advance_document(rt, s.doc_id)
    assert [m.part for m in new] == [m.part for m in old]
    assert all(n.revision > o.revision for n, o in zip(new, old, strict=True))
    before = rt.repo.load(s.doc_id).revision
    assert not run_part(rt, old[0], actor="slow worker")
    assert rt.repo.load(s.doc_id).revision == before
    assert not rt.store.list(f"docs/{s.doc_id}/work/parse/")  # the stale part did no work
    for m in new:
        assert run_part(rt, m, actor="worker")
    run_documents(rt, [s.doc_id], processes=1)
    assert rt.repo.load(s.doc_id).state == "complete"
