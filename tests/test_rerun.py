"""A finished document runs again when asked to (`quire run`, `quire.split`) only when that
can change its outputs: other settings, a failure, or another Quire version."""

from __future__ import annotations

from pathlib import Path

from pipeline_utils import SAMPLE_DOCX, local_runtime, run_embedded

from quire.shared.config import RunSettings
from quire.shared.job import Job
from quire.shared.version import package_version
from quire.workers.execute import submit


def test_a_finished_document_runs_again_after_an_upgrade(tmp_path: Path) -> None:
    # after `pip install -U quire`, `quire run` on an unchanged file gave the old version's
    # folder back at once: the upgrade's better parse and plan never reached it
    rt = local_runtime(tmp_path)
    done = run_embedded(rt, SAMPLE_DOCX, RunSettings())
    assert done.state == "complete" and done.made_by == package_version()
    same = submit(rt, SAMPLE_DOCX, RunSettings(), rerun=True)
    assert same.revision == done.revision  # the same version: nothing would change

    def made_earlier(job: Job) -> bool:
        job.made_by = "0.0.1"
        return True

    rt.repo.update(done.doc_id, made_earlier, actor="test", why="as an older Quire left it")
    kept = submit(rt, SAMPLE_DOCX, RunSettings())  # a batch's submission reruns nothing
    assert kept.state == "complete" and kept.made_by == "0.0.1"
    again = submit(rt, SAMPLE_DOCX, RunSettings(), rerun=True)
    assert again.state == "queued" and again.made_by == package_version()
    assert again.why == f"re-run by Quire {package_version()} (made by 0.0.1)"
    assert not rt.store.list(f"docs/{done.doc_id}/out/")  # the old outputs are gone
