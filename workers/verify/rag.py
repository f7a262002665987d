"""`quire verify` on retrieval chunks: runs only when `rag-chunks.jsonl` is in the folder.

Re-checks the JSONL against `rag-settings.json` (document, chunk count, sha256) and runs the
concatenation proof and claim checks of `workers.rag.verify_rag` with the recorded cap.
Every problem becomes a `rag_chunks` finding (chunk = the study session number).
"""

from __future__ import annotations

from pathlib import Path

from quire.shared.ir import Document
from quire.shared.manifest import Finding, Manifest
from quire.shared.plan import Plan
from quire.shared.rag import RAG_CHUNKS_FILE, RAG_SETTINGS_FILE, load_jsonl, load_settings
from quire.shared.text import sha256_bytes


def check_rag(
    out_dir: Path, doc: Document, manifest: Manifest, plan: Plan | None
) -> tuple[list[Finding], dict[str, int]]:
    """(findings, checked counts); nothing at all when the folder has no retrieval chunks."""
    path = out_dir / RAG_CHUNKS_FILE
    if not path.exists():
        return [], {}
    from quire.workers.rag.cli_support import plan_from_manifest
    from quire.workers.rag.verify import verify_rag

    def finding(
        message: str,
        file: str = RAG_CHUNKS_FILE,
        chunk: int | None = None,
        element_id: str | None = None,
    ) -> Finding:
        return Finding(
            kind="rag_chunks", message=message, file=file, chunk=chunk, element_id=element_id
        )

    data = path.read_bytes()
    try:
        settings = load_settings((out_dir / RAG_SETTINGS_FILE).read_bytes())
    except (OSError, ValueError) as exc:
        return [
            finding(
                f"{RAG_SETTINGS_FILE} is missing or unreadable, so the cap cannot be "
                f"checked; rerun `quire rag` ({exc.__class__.__name__})",
                RAG_SETTINGS_FILE,
            )
        ], {}
    findings: list[Finding] = []
    if settings.doc_id != doc.doc_id:
        findings.append(finding("the retrieval chunks are for another document"))
    if settings.jsonl_sha256 != sha256_bytes(data):
        findings.append(
            finding(f"bytes differ from the sha256 in {RAG_SETTINGS_FILE} (changed after writing)")
        )
    try:
        chunks = load_jsonl(data)
    except ValueError as exc:
        return [*findings, finding(f"not valid retrieval chunks: {str(exc)[:300]}")], {}
    if settings.chunk_count != len(chunks):
        findings.append(
            finding(
                f"{RAG_SETTINGS_FILE} says {settings.chunk_count} chunks, the "
                f"file has {len(chunks)}"
            )
        )
    sessions = plan if plan is not None else plan_from_manifest(manifest)
    for p in verify_rag(doc, sessions, chunks, settings.max_chars):
        where = f"{p.chunk_id}: " if p.chunk_id else ""
        findings.append(
            finding(f"{p.kind}: {where}{p.message}", chunk=p.session, element_id=p.element_id)
        )
    return findings, {"rag_chunks": len(chunks)}
