"""`manifest.json`: one entry per written chunk, assembled once all chunks are written."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from quire.shared.ir import Document
from quire.shared.manifest import (
    OUTPUT_FORMATS,
    Manifest,
    ManifestChunk,
    OutputFormat,
    dump_manifest,
    load_manifest,
)
from quire.shared.plan import Plan

__all__ = ["build_manifest", "dump_manifest", "load_manifest"]


def build_manifest(
    doc: Document,
    plan: Plan,
    chunk_entries: Iterable[ManifestChunk],
    *,
    formats: Iterable[OutputFormat] | None = None,
    overlap_pages: int | None = None,
) -> Manifest:
    """The manifest for a document whose chunks were written from `plan`.

    `formats` and `overlap_pages` default to what the entries show: the formats any chunk
    wrote, and the widest one-sided overlap any chunk got (pass them explicitly when every
    chunk could have been clamped, i.e. a document shorter than the overlap)."""
    entries = sorted(chunk_entries, key=lambda c: c.number)
    numbers = [c.number for c in entries]
    if numbers != [c.number for c in plan.chunks]:
        raise ValueError(f"manifest entries {numbers} do not match the plan's chunks")
    for entry, chunk in zip(entries, plan.chunks, strict=True):
        if (entry.first_id, entry.last_id) != (chunk.first_id, chunk.last_id):
            raise ValueError(f"chunk {entry.number}: entry does not match the plan's range")
    if formats is None:
        found = {"markdown" for c in entries if c.markdown_file} | {
            "pdf" for c in entries if c.pdf_file
        }
        fmt = [f for f in OUTPUT_FORMATS if f in found]
    else:
        wanted = set(formats)
        fmt = [f for f in OUTPUT_FORMATS if f in wanted]
    if overlap_pages is None:
        overlap_pages = max((_one_side_overlap(c) for c in entries), default=0)
    return Manifest(
        **doc.model_dump(
            include={"doc_id", "source_name", "source_format", "page_count", "page_basis"}
        ),
        formats=fmt,
        overlap_pages=overlap_pages,
        chunk_count=len(entries),
        element_count=len(doc.elements),
        word_count=sum(e.word_count for e in doc.elements),
        chunks=entries,
    )


def _one_side_overlap(entry: ManifestChunk) -> int:
    if not entry.pdf_pages:
        return 0
    core = [p for p in entry.pdf_pages if p not in set(entry.overlap_pages)]
    if not core:
        return 0
    before = sum(1 for p in entry.overlap_pages if p < core[0])
    return max(before, len(entry.overlap_pages) - before)


def chunk_files_listing(entries: Sequence[ManifestChunk]) -> list[str]:
    """Every file the manifest lists, sorted and without duplicates (shared images)."""
    return sorted({name for c in entries for name in c.files})
