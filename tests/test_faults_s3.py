"""S3 faults between the workers and the object store, injected by a loopback proxy in
front of moto: transient errors (500, 503, dropped connections, lost replies, slow
responses) are retried and the batch completes exactly as an undisturbed run would;
persistent errors fail the document with a clear reason, and only that document.

No reconciler runs here and the visibility timeout is the default: a document that needed
either to finish (a lost dispatch, an unacknowledged message) would show up as stuck.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fault_stack import Stack, assert_exactly_once, assert_same_outputs
from gen_docs import textbook_docx, textbook_pdf
from pipeline_utils import CORPUS, local_runtime, outputs, run_embedded
from s3_fault_proxy import delay, drop, lose_reply, status
from services import MotoServer

from quire.shared.config import RunSettings

pytestmark = pytest.mark.services

PDF_BOTH = RunSettings(output_format="both", render_batch_pages=1)
DOCX = RunSettings()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("s3faults")
    with MotoServer() as moto:
        stack = Stack(
            tmp,
            moto,
            visibility_timeout=None,
            # bounded and quick Celery retries, so persistent faults give up within seconds
            extra_env={"QUIRE_TASK_MAX_RETRIES": "1", "QUIRE_TASK_RETRY_BACKOFF": "1"},
        ).start()
        try:
            yield stack
        finally:
            stack.stop()


@pytest.fixture(autouse=True)
def no_rules(stack: Stack) -> Iterator[None]:
    stack.proxy.clear()
    yield
    stack.proxy.clear()


def embedded_outputs(tmp: Path, path: Path, settings: RunSettings) -> dict[str, bytes]:
    rt = local_runtime(tmp)
    s = run_embedded(rt, path, settings)
    assert s.state == "complete", s.error
    return outputs(rt, s.doc_id)


def test_transient_faults_are_retried_and_the_batch_completes(stack: Stack, tmp_path: Path) -> None:
    docs = [
        (CORPUS / "latex-news-22.pdf", PDF_BOTH),
        (textbook_docx(tmp_path / "t2.docx", seed=12), DOCX),
    ]
    expected = {p: embedded_outputs(tmp_path / f"rt-{p.name}", p, st) for p, st in docs}
    proxy = stack.proxy
    proxy.add(status(500), share=0.02)
    proxy.add(status(503), share=0.02)
    proxy.add(drop(), share=0.02)
    proxy.add(lose_reply(), ops={"PUT", "DELETE"}, share=0.05)
    proxy.add(delay(0.2), share=0.03)
    ids = {p: stack.submit(p, st) for p, st in docs}
    stack.poke(list(ids.values()))
    sessions = stack.wait_terminal(list(ids.values()), 150)
    for p, doc_id in ids.items():
        s = sessions[doc_id]
        assert s.state == "complete", (p.name, s.error, stack.logs()[-4000:])
        assert_same_outputs(stack.runtime, doc_id, expected[p])
        assert_exactly_once(stack.observer, doc_id)
    kinds = {kind for _, kind in proxy.log}
    assert kinds == {"status", "drop", "lose_reply", "delay"}, proxy.injected
    assert sum(proxy.injected.values()) >= 10, proxy.injected
    # some faults outlasted botocore's own retries and were retried by Celery, or not;
    # either way nothing failed and nothing was recorded twice


def test_access_denied_fails_only_that_document_with_the_reason(
    stack: Stack, tmp_path: Path
) -> None:
    """A persistent, non-transient error (403 on the document's output folder): no retry,
    the document fails at once naming the S3 error; the other document completes."""
    denied = textbook_docx(tmp_path / "denied.docx", seed=21)
    fine = textbook_docx(tmp_path / "fine.docx", seed=22)
    denied_id = stack.submit(denied, DOCX)
    stack.proxy.add(status(403), ops={"PUT"}, key=rf"docs/{denied_id}/out/")
    fine_id = stack.submit(fine, DOCX)
    stack.poke([denied_id, fine_id])
    sessions = stack.wait_terminal([denied_id, fine_id], 90)
    s = sessions[denied_id]
    assert (s.state, s.error_code) == ("failed", "store"), (s.state, s.error)
    assert s.error and "denied.docx" in s.error and "AccessDenied (HTTP 403)" in s.error
    assert sessions[fine_id].state == "complete", sessions[fine_id].error
    assert stack.proxy.injected["status"] == 1  # refused once: not retried


def test_persistent_server_errors_give_up_after_bounded_retries(
    stack: Stack, tmp_path: Path
) -> None:
    """503 on every write of one part's output: botocore retries each call, Celery retries
    the part (QUIRE_TASK_MAX_RETRIES=1), then the document fails with the fault."""
    path = textbook_pdf(tmp_path / "unlucky.pdf", seed=31)
    doc_id = stack.submit(path, PDF_BOTH)
    stack.proxy.add(status(503), ops={"PUT"}, key=rf"docs/{doc_id}/work/parse/")
    stack.poke([doc_id])
    s = stack.wait_terminal([doc_id], 120)[doc_id]
    assert (s.state, s.error_code) == ("failed", "transient"), (s.state, s.error)
    assert s.error is not None
    assert "unlucky.pdf" in s.error and "parsing:" in s.error
    assert "gave up after 2 attempts" in s.error and "SlowDown (HTTP 503)" in s.error
    puts = stack.proxy.injected["status"]
    assert 2 <= puts <= 2 * 5, puts  # 2 task attempts x at most 5 botocore attempts
