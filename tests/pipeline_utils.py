"""Helpers for end-to-end tests: build runtimes on explicit settings, snapshot outputs."""

from __future__ import annotations

from pathlib import Path

from corpus import CORPUS  # noqa: F401  (re-exported for the tests)

from quire.shared.config import Environment, RunSettings
from quire.shared.job import Job
from quire.workers.execute import submit
from quire.workers.runtime import Runtime

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_PDF = ROOT / "samples" / "fhs-3.0.pdf"
SAMPLE_DOCX = ROOT / "tests" / "data" / "python-hashlib.docx"  # a copy of the corpus file


def local_runtime(tmp: Path) -> Runtime:
    return Runtime.from_env(Environment(store_url=str(tmp / "store"), state_dir=tmp / "state"))


def run_embedded(rt: Runtime, path: Path, settings: RunSettings) -> Job:
    from quire.orchestrator.local import run_documents

    s = submit(rt, path, settings)
    run_documents(rt, [s.doc_id], processes=1)
    return rt.repo.load(s.doc_id)


def outputs(rt: Runtime, doc_id: str) -> dict[str, bytes]:
    """The document's output folder as {relative path: bytes}."""
    prefix = f"docs/{doc_id}/out/"
    return {k[len(prefix) :]: rt.store.get(k) for k in rt.store.list(prefix)}


def store_snapshot(rt: Runtime, doc_id: str) -> dict[str, bytes]:
    """Every object of the document except its job revisions (the audit trail)."""
    prefix = f"docs/{doc_id}/"
    return {
        k[len(prefix) :]: rt.store.get(k)
        for k in rt.store.list(prefix)
        if not k.startswith(prefix + "session/")
    }
