"""Output folders on the server's machine: which folder a document exports to (remembered in
the local state dir), new isolated run folders, and exporting without leaving stale chunks."""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path

from quire.orchestrator.mcp.schemas import ChunkFile
from quire.orchestrator.outputs import export_document
from quire.shared import keys
from quire.shared.files import write_atomic
from quire.shared.layout import Layout
from quire.shared.manifest import load_manifest
from quire.workers.runtime import Runtime


def _record_path(rt: Runtime, doc_id: str) -> Path:
    return rt.env.state_dir / "mcp" / "outputs" / doc_id


def record_output(rt: Runtime, doc_id: str, folder: Path) -> None:
    """Remember the document's output folder on this machine (the state dir is local)."""
    path = _record_path(rt, doc_id)
    write_atomic(path, str(folder))


def recorded_output(rt: Runtime, doc_id: str) -> Path | None:
    path = _record_path(rt, doc_id)
    return Path(path.read_text(encoding="utf-8")) if path.exists() else None


def output_folder(rt: Runtime, doc_id: str, given: str | None) -> Path | None:
    """The folder named now (and remembered from now on), else the remembered one."""
    if given:
        folder = Path(given).expanduser().resolve()
        record_output(rt, doc_id, folder)
        return folder
    return recorded_output(rt, doc_id)


def run_folder(rt: Runtime, source_name: str) -> Path:
    """A new folder of its own for this call, so concurrent jobs never share one."""
    root = rt.env.mcp_runs_dir or rt.env.state_dir / "runs"
    slug = re.sub(r"[^a-z0-9]+", "-", Path(source_name).stem.lower()).strip("-")[:40]
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    folder = root / f"{stamp}-{slug or 'document'}-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True, exist_ok=False)
    return folder.resolve()


def export(rt: Runtime, doc_id: str, folder: Path) -> None:
    """Copy the document's output into `folder` (a host names its folders explicitly, so it
    may hold other files); files of an earlier export there are replaced."""
    export_document(rt, doc_id, folder, force=True)


def chunk_files(rt: Runtime, doc_id: str) -> list[ChunkFile]:
    """The written chunks' files, from the document's manifest (none before writing)."""
    key = keys.out(doc_id, Layout.MANIFEST)
    if not rt.store.exists(key):
        return []
    return [
        ChunkFile(
            **c.model_dump(
                include={"number", "title", "markdown_file", "pdf_file", "page_first", "page_last"}
            ),
            words=c.word_count,
        )
        for c in load_manifest(rt.store.get(key)).chunks
    ]
