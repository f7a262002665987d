"""What was written (`manifest.json`) and what the verifier found (`verification-report.json`).

The manifest describes the output folder's structure: which files each chunk has, which
elements and source pages it holds. The verifier reads it to know *where* to look, but checks
*content* against the IR (`ir.json`) and the written files, never against manifest claims.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from quire.shared.backend_usage import BackendFallback
from quire.shared.ir import SkippedPage
from quire.shared.pages import PageRange
from quire.shared.plan import ChunkKind, KeyTerm

# 2: book text that a Markdown viewer would read as markup is written escaped
# (workers.write.escapes); a folder of version 1 is checked as it was written
MANIFEST_VERSION = 2

OutputFormat = Literal["markdown", "pdf"]
OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("markdown", "pdf")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ManifestChunk(PageRange, _Model):
    number: int = Field(ge=1)
    title: str
    stem: str  # file name without extension, e.g. "03-vectors-and-assignment"
    markdown_file: str | None = None
    pdf_file: str | None = None
    files: dict[str, str]  # every file this chunk wrote (chunk files and images) -> sha256
    element_ids: list[str]
    first_id: str
    last_id: str
    page_first: int  # first source page of the chunk's elements
    page_last: int  # last source page of the chunk's elements
    # PDF only: the source pages the chunk PDF holds, in order (core range plus overlap)
    pdf_pages: list[int] | None = None
    overlap_pages: list[int] = []  # pages in the chunk PDF only as overlap (context)
    word_count: int
    end_reason: str  # why the chunk ends where it does: its cut's evidence
    end_decider: str
    continues: bool = False
    # study session, or reference session (front or back matter: no study time or focus)
    kind: ChunkKind = "study"
    end_alternative: str | None = None  # the best other place for its end, and why not there
    key_terms: list[KeyTerm] = []  # what the session teaches (the author's index terms)


class Manifest(_Model):
    manifest_version: int = MANIFEST_VERSION
    doc_id: str
    source_name: str
    source_format: Literal["pdf", "docx", "epub", "html"]
    page_count: int
    page_basis: Literal["pdf", "words", "print"]
    formats: list[OutputFormat]
    overlap_pages: int  # the setting: neighbouring pages added on each side of a PDF chunk
    chunk_count: int
    element_count: int
    word_count: int
    chunks: list[ManifestChunk]
    # items the run's LLM backend could not answer validly, answered by the heuristic
    backend_fallbacks: list[BackendFallback] = []


def dump_manifest(manifest: Manifest) -> bytes:
    """Stable bytes: fields in declaration order, `files` maps sorted, UTF-8, one newline."""
    data = manifest.model_dump(mode="json")
    for chunk in data["chunks"]:
        chunk["files"] = dict(sorted(chunk["files"].items()))
    return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def load_manifest(data: bytes | str) -> Manifest:
    return Manifest.model_validate_json(data)


FindingKind = Literal[
    "missing",  # an IR element appears in no chunk
    "duplicated",  # an IR element appears more than once
    "unknown",  # a chunk holds an element id the IR does not have
    "reordered",  # elements out of IR order
    "altered",  # an element's text differs from the IR
    "word_drift",  # a chunk's word count differs from the IR's beyond the tolerance
    "table_rows",  # a table row of the IR is not in the chunk
    "image_hash",  # an image link is broken or its file's bytes differ from the IR
    "broken_link",  # a cross-reference leads to a file or anchor the output does not have
    "footnote_misplaced",  # a footnote is not in its reference's chunk, or sits in the text
    "page_missing",  # a non-skipped source page is in no chunk PDF's core range
    "page_mismatch",  # a chunk PDF's pages (count, ranges) disagree with the manifest / IR
    "render_mismatch",  # an output page does not render like its source page
    "plan_gap",  # elements between two consecutive chunks belong to neither
    "plan_overlap",  # consecutive chunks share elements
    "topic_crossed",  # a confirmed topic change falls inside a chunk
    "manifest_mismatch",  # the manifest disagrees with the files (hashes, listed files, ids)
    "rag_chunks",  # rag-chunks.jsonl does not rebuild the sessions or breaks a chunk rule
]


class Finding(_Model):
    kind: FindingKind
    message: str  # what is wrong, for a person to act on
    chunk: int | None = None
    element_id: str | None = None
    page: int | None = None  # source page number (1-based)
    out_page: int | None = None  # page number inside the chunk PDF (1-based)
    file: str | None = None


class VerificationReport(_Model):
    doc_id: str
    passed: bool
    checked: dict[str, int]  # what was checked, e.g. {"elements": 812, "rendered_pages": 130}
    settings: dict[str, float | int | str] = {}
    findings: list[Finding] = []
    # pages that are in no output because they have no text (from the IR), with the reason
    pages_without_text: list[SkippedPage] = []


def dump_report(report: VerificationReport) -> bytes:
    data = report.model_dump(mode="json", exclude_none=True)
    return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def load_report(data: bytes | str) -> VerificationReport:
    return VerificationReport.model_validate_json(data)
