"""Output folders on the server's machine: which folder a document exports to (remembered in
the local state dir), new isolated run folders, and exporting without leaving stale chunks."""

from __future__ import annotations

import os
import re
import time
import uuid
from pathlib import Path

from quire.orchestrator.mcp.schemas import ChunkFile
from quire.shared.manifest import load_manifest
from quire.workers.runtime import Runtime


def _record_path(rt: Runtime, doc_id: str) -> Path:
    return rt.env.state_dir / "mcp" / "outputs" / doc_id


def record_output(rt: Runtime, doc_id: str, folder: Path) -> None:
    """Remember the document's output folder on this machine (the state dir is local)."""
    path = _record_path(rt, doc_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{doc_id}.{uuid.uuid4().hex}")
    tmp.write_text(str(folder), encoding="utf-8")
    tmp.replace(path)


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
    root = Path(os.environ.get("QUIRE_MCP_RUNS_DIR") or rt.env.state_dir / "runs")
    slug = re.sub(r"[^a-z0-9]+", "-", Path(source_name).stem.lower()).strip("-")[:40]
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    folder = root / f"{stamp}-{slug or 'document'}-{uuid.uuid4().hex[:8]}"
    folder.mkdir(parents=True, exist_ok=False)
    return folder.resolve()


def export(rt: Runtime, doc_id: str, folder: Path) -> None:
    """Copy the document's output into `folder`, removing chunk files of an earlier export
    of the same document that the new output no longer has (renamed or split chunks)."""
    from quire.orchestrator.service import export_document

    old: set[str] = set()
    manifest_path = folder / "manifest.json"
    if manifest_path.exists():
        try:
            manifest = load_manifest(manifest_path.read_bytes())
        except ValueError:
            manifest = None
        if manifest is not None and manifest.doc_id == doc_id:
            old = {name for c in manifest.chunks for name in c.files}
    export_document(rt, doc_id, folder)
    prefix = f"docs/{doc_id}/out/"
    current = {k[len(prefix) :] for k in rt.store.list(prefix)}
    for name in old - current:
        if not Path(name).is_absolute() and ".." not in Path(name).parts:
            (folder / name).unlink(missing_ok=True)


def chunk_files(rt: Runtime, doc_id: str) -> list[ChunkFile]:
    """The written chunks' files, from the document's manifest (none before writing)."""
    key = f"docs/{doc_id}/out/manifest.json"
    if not rt.store.exists(key):
        return []
    return [
        ChunkFile(
            number=c.number,
            title=c.title,
            markdown_file=c.markdown_file,
            pdf_file=c.pdf_file,
            page_first=c.page_first,
            page_last=c.page_last,
            words=c.word_count,
        )
        for c in load_manifest(rt.store.get(key)).chunks
    ]
