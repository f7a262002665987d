"""Output folders a run owns: cleared of the previous run's files, refused when foreign,
filled from the store, and verified as finally written.

A folder belongs to Quire when it holds a `manifest.json` Quire wrote. Before a new run is
exported into it, the files that manifest listed (chunk files and their images) and the
files every run writes (ir.json, reports, indexes, analyses) are removed — nothing else, so
a person's own notes beside them survive, and a stray chunk-named file is left for the
verifier to report. A non-empty folder without such a manifest is refused unless `force`.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from quire.orchestrator.dispatch import dispatcher_for
from quire.shared import keys
from quire.shared.errors import NotCompleteError, OutputFolderError
from quire.shared.layout import Layout
from quire.shared.manifest import Manifest, VerificationReport, load_manifest
from quire.shared.states import STOPPED
from quire.workers.runtime import Runtime

RUN_FILES = Layout.RUN_FILES
RUN_GLOBS = Layout.RUN_GLOBS


def previous_manifest(out_dir: Path) -> Manifest | None:
    try:
        return load_manifest((out_dir / Layout.MANIFEST).read_bytes())
    except (OSError, ValueError):
        return None


def check_folder(out_dir: Path, *, force: bool = False) -> Manifest | None:
    """Refuse an output folder a run may not own (before any work is done); return the
    manifest of the Quire run that wrote it, if one did."""
    if not out_dir.exists():
        return None
    if not out_dir.is_dir():
        raise OutputFolderError("the output path exists and is not a folder", source=str(out_dir))
    old = previous_manifest(out_dir)
    if old is None and not force and any(out_dir.iterdir()):
        raise OutputFolderError(
            "the output folder is not empty and holds no Quire output; choose an empty "
            "folder or pass --force to write into it anyway",
            source=str(out_dir),
        )
    return old


def claim_folder(out_dir: Path, *, force: bool = False) -> None:
    """Make `out_dir` ready for a run's output (see the module's docstring)."""
    old = check_folder(out_dir, force=force)
    out_dir.mkdir(parents=True, exist_ok=True)
    if old is None:
        return
    root = out_dir.resolve()
    names = [n for c in old.chunks for n in c.files] + list(RUN_FILES)
    paths = [root / n for n in names] + [p for g in RUN_GLOBS for p in root.glob(g)]
    for path in paths:
        target = path.resolve()
        if root in target.parents and target.is_file():
            target.unlink()
    for folder in ("images", "analysis"):  # left empty by the removal: tidy, never forced
        with contextlib.suppress(OSError):
            (root / folder).rmdir()


def export_document(rt: Runtime, doc_id: str, out_dir: Path, *, force: bool = False) -> None:
    """Copy the document's output folder out of the store into `out_dir`, which the run
    then owns. A document that did not complete has no output to export."""
    s = rt.repo.load(doc_id)
    if s.state != "complete":
        why = f" ({s.error_code}: {s.error})" if s.error else ""
        waiting = ""
        if dispatcher_for(rt).abandoned(s):
            waiting = "; its run stopped (`quire run` or `quire batch` on it resumes it)"
        elif s.state not in STOPPED:
            waiting = "; it is still running"
        raise NotCompleteError(f"{s.source_name} is {s.state}{why}{waiting}: nothing to export")
    claim_folder(out_dir, force=force)
    prefix = keys.out(doc_id)
    for key in rt.store.list(prefix):
        target = out_dir / key[len(prefix) :]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(rt.store.get(key))


def verify_exported(out_dir: Path) -> VerificationReport:
    """The content checks on the folder as written (render-compare ran on these very bytes
    in the store, and the manifest check holds every chunk file to its sha256). On findings
    the folder's report is replaced, so `quire verify` and the folder agree."""
    from quire.workers.verify.report import verify_output, write_report

    report = verify_output(out_dir, render=False)
    if not report.passed:
        write_report(out_dir, report)
    return report
