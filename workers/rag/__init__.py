"""Retrieval (RAG) chunks: small, size-capped, structure-aware pieces of verified sessions.

Pure logic apart from the optional enrichment backend call: `rag_chunks` cuts the sessions
(`chunker`, using `split` for the units an element may be cut into), `verify_rag` proves
that they rebuild every session's text exactly (`verify`), `enrich` adds validated,
cached metadata (`enrich`). `cli_support.build_rag` is what `quire rag` runs.
"""

from __future__ import annotations

from quire.shared.rag import RagChunk, dump_jsonl, load_jsonl
from quire.workers.rag.chunker import chunk_id, rag_chunks, session_text
from quire.workers.rag.verify import RagProblem, verify_rag

__all__ = [
    "RagChunk",
    "RagProblem",
    "chunk_id",
    "dump_jsonl",
    "load_jsonl",
    "rag_chunks",
    "session_text",
    "verify_rag",
]
