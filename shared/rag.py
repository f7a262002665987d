"""Retrieval chunks (`rag-chunks.jsonl`): small, size-capped pieces of verified study sessions.

Each retrieval chunk lies inside one study session (a `ChunkPlan`) and holds a contiguous
stretch of that session's text, where the session text is its elements' canonical texts
joined by a blank line (`"\\n\\n".join(e.text ...)`, the same join as the Markdown writer's
body). The contract that makes the concatenation proof exact:

- `text` is the chunk's text. Its first `header_chars` characters, when non-zero, are a
  repeated table header (the table's header and separator rows plus "\\n") put in front of
  a table continued from the previous chunk; the rest is source text, verbatim.
- `sep_before` is the source text that stands between the previous chunk of the same
  session and this one: "\\n\\n" between elements, the original whitespace between
  sentences, rows, items, lines or words of a split element, "" at a session's start or at
  a character split. It is never part of `text`.
- So, per session: `"".join(c.sep_before + c.text[c.header_chars:])` == the session text.

The hard cap (`max_chars`) applies to `text`, repeated header included: `chars ==
len(text) <= max_chars`, always. The `breadcrumb` (heading path) is metadata, never in
`text` and not counted; a pipeline that embeds breadcrumb + text must budget for it.

`rag-settings.json` beside the JSONL records how the chunks were made (cap, algorithm) and
the JSONL's sha256, so `quire verify` can re-check them.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from quire.shared.layout import Layout
from quire.shared.pages import PageRange

RAG_VERSION = 1
RAG_CHUNKS_FILE = Layout.RAG_CHUNKS
RAG_SETTINGS_FILE = Layout.RAG_SETTINGS
DEFAULT_MAX_CHARS = 2000
MIN_MAX_CHARS = 200  # below this a heading plus a few words of what follows may not fit

Algorithm = Literal["hierarchical", "linear"]
ALGORITHMS: tuple[Algorithm, ...] = ("hierarchical", "linear")

# What kind of boundary a chunk starts or ends at. "session": the session's start or end;
# "section": just before a heading; "element": between two other elements; "sentence",
# "row", "item", "line": between two units of one split element; "word", "char": inside a
# unit that alone was larger than the cap allowed (the only way a sentence, row, item or
# line is ever broken).
Cut = Literal["session", "section", "element", "sentence", "row", "item", "line", "word", "char"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RagEnrichment(_Model):
    """Optional model-written metadata for one retrieval chunk (validated, cached)."""

    context: str  # one sentence situating the chunk in the document
    summary: str
    keywords: list[str]
    questions: list[str]  # questions the chunk answers, each ending in '?'
    backend: str  # "heuristic", "openai", "anthropic", "command"
    input_hash: str  # cache key: sha256 of everything the backend was shown


class RagChunk(PageRange, _Model):
    id: str  # sha256(doc_id, session, element ids, part index, text), 24 hex digits
    doc_id: str
    session: int = Field(ge=1)  # the study session (ChunkPlan.number) it lies in
    part: int = Field(ge=0)  # index of this chunk within its session
    element_ids: list[str]  # every IR element the chunk holds text of, in order
    page_first: int = Field(ge=1)
    page_last: int = Field(ge=1)
    breadcrumb: list[str]  # heading path in force where the chunk starts, e.g. ["# Part II"]
    text: str
    chars: int = Field(ge=0)  # len(text)
    header_chars: int = Field(default=0, ge=0)  # leading characters repeating a table header
    sep_before: str = ""  # source text between the previous chunk of the session and this
    prev_id: str | None = None  # previous chunk in document order (across sessions)
    next_id: str | None = None
    continuation: bool = False  # starts inside an element that began in the previous chunk
    has_more: bool = False  # its last element goes on in the next chunk
    starts_at: Cut
    ends_at: Cut
    enrichment: RagEnrichment | None = None


class RagSettings(_Model):
    """`rag-settings.json`: how `rag-chunks.jsonl` was made, for re-verification."""

    rag_version: int = RAG_VERSION
    doc_id: str
    max_chars: int
    algorithm: Algorithm
    chunk_count: int
    sessions: int
    jsonl_sha256: str
    enrichment_backend: str | None = None


def dump_jsonl(chunks: list[RagChunk]) -> bytes:
    """One JSON object per line, fields in declaration order, UTF-8: stable bytes."""
    return b"".join(
        json.dumps(c.model_dump(mode="json"), ensure_ascii=False).encode("utf-8") + b"\n"
        for c in chunks
    )


def load_jsonl(data: bytes | str) -> list[RagChunk]:
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    return [RagChunk.model_validate_json(line) for line in text.splitlines() if line.strip()]


def dump_settings(settings: RagSettings) -> bytes:
    return (json.dumps(settings.model_dump(mode="json"), indent=1) + "\n").encode("utf-8")


def load_settings(data: bytes | str) -> RagSettings:
    return RagSettings.model_validate_json(data)
