"""What `quire rag --out DIR` does: read the folder's IR and plan, cut, prove, enrich, write.

The folder is a Quire output folder: `ir.json` and `plan.json` (or, from older exports,
only `manifest.json`, whose chunk list gives the same sessions). The chunks are proven
against the IR before anything is written; `rag-chunks.jsonl` and `rag-settings.json` are
written atomically (temporary file + rename), the JSONL first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from quire.shared.errors import InputError, VerificationError
from quire.shared.files import write_atomic
from quire.shared.ir import Document, load_ir
from quire.shared.layout import Layout
from quire.shared.manifest import Manifest, load_manifest
from quire.shared.plan import ChunkPlan, Plan, PlanSettings
from quire.shared.rag import (
    DEFAULT_MAX_CHARS,
    RAG_CHUNKS_FILE,
    RAG_SETTINGS_FILE,
    Algorithm,
    RagChunk,
    RagSettings,
    dump_jsonl,
    dump_settings,
)
from quire.shared.settings import Settings
from quire.shared.text import sha256_bytes
from quire.workers.rag.chunker import rag_chunks
from quire.workers.rag.enrich import EnrichFailure, FolderCache, enrich_all
from quire.workers.rag.verify import verify_rag

CACHE_DIR = "rag-cache"


# what a manifest entry tells of its chunk's plan entry as it is (chunking reads no key terms)
_AS_PLANNED = {
    "number",
    "first_id",
    "last_id",
    "page_first",
    "page_last",
    "title",
    "end_reason",
    "end_decider",
    "continues",
    "kind",
    "end_alternative",
}


def plan_from_manifest(manifest: Manifest) -> Plan:
    """The sessions a manifest lists, as a Plan (boundaries are not needed to chunk)."""
    return Plan(
        doc_id=manifest.doc_id,
        settings=PlanSettings(),
        boundaries=[],
        chunks=[
            ChunkPlan(**c.model_dump(include=_AS_PLANNED), pages=c.page_span, words=c.word_count)
            for c in manifest.chunks
        ],
    )


def load_sessions(out_dir: Path) -> tuple[Document, Plan]:
    """The IR and the sessions of an output folder (plan.json, else manifest.json)."""
    try:
        doc = load_ir((out_dir / Layout.IR).read_bytes())
        plan_path = out_dir / Layout.PLAN
        if plan_path.exists():
            plan = Plan.model_validate_json(plan_path.read_bytes())
        else:
            plan = plan_from_manifest(load_manifest((out_dir / Layout.MANIFEST).read_bytes()))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the output folder: {exc}", source=str(out_dir)) from exc
    return doc, plan


@dataclass
class RagBuild:
    chunks: list[RagChunk]
    path: Path
    sessions: int
    failures: list[EnrichFailure] = field(default_factory=list)
    calls: int = 0
    cache_hits: int = 0


def build_rag(
    out_dir: Path,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    algorithm: Algorithm = "hierarchical",
    enrich_backend: str | None = None,
    cache_dir: Path | None = None,
    env: Settings | None = None,
) -> RagBuild:
    """Write `rag-chunks.jsonl` (+ `rag-settings.json`) into `out_dir`. The concatenation
    proof must pass first (VerificationError otherwise). Enrichment failures leave those
    chunks unenriched and are returned, not raised."""
    out_dir = Path(out_dir)
    doc, plan = load_sessions(out_dir)
    chunks = rag_chunks(doc, plan, max_chars=max_chars, algorithm=algorithm)
    problems = verify_rag(doc, plan, chunks, max_chars)
    if problems:
        shown = "; ".join(f"{p.kind}: {p.message}" for p in problems[:5])
        raise VerificationError(f"retrieval chunks failed their proof: {shown}")
    build = RagBuild(chunks=chunks, path=out_dir / RAG_CHUNKS_FILE, sessions=len(plan.chunks))
    if enrich_backend:
        cache = FolderCache(cache_dir or out_dir / CACHE_DIR)
        result = enrich_all(chunks, doc, plan, enrich_backend, cache, env=env)
        build.chunks, build.failures = result.chunks, result.failures
        build.calls, build.cache_hits = result.calls, result.cache_hits
    data = dump_jsonl(build.chunks)
    write_atomic(build.path, data)
    settings = RagSettings(
        doc_id=doc.doc_id,
        max_chars=max_chars,
        algorithm=algorithm,
        chunk_count=len(build.chunks),
        sessions=build.sessions,
        jsonl_sha256=sha256_bytes(data),
        enrichment_backend=enrich_backend,
    )
    write_atomic(out_dir / RAG_SETTINGS_FILE, dump_settings(settings))
    return build
