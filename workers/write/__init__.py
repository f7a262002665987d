"""Chunk writers: one independent, pure task per chunk, returning file bytes.

`write_chunk` returns `{relative path -> bytes}` (chunk `.md`, its images under `images/`,
chunk `.pdf`) plus the chunk's manifest entry. It reads nothing but its arguments (and the
source PDF), so chunks can be written in parallel and any one rewritten alone with the same
bytes. Storing the files (object store or folder) is the caller's business; `save_files` is
the folder case.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from quire.shared.errors import InputError
from quire.shared.files import write_atomic
from quire.shared.ir import Document, Element
from quire.shared.layout import Layout
from quire.shared.manifest import OUTPUT_FORMATS, ManifestChunk, OutputFormat
from quire.shared.plan import Plan
from quire.shared.text import sha256_bytes
from quire.workers.write.links import plan_places
from quire.workers.write.manifest import build_manifest, dump_manifest
from quire.workers.write.markdown import image_links, render_chunk_markdown
from quire.workers.write.names import chunk_stem, safe_image_path
from quire.workers.write.pdf import chunk_pdf_pages, element_span, open_source_pdf, render_chunk_pdf

__all__ = [
    "ChunkFiles",
    "build_manifest",
    "chunk_elements",
    "dump_manifest",
    "save_files",
    "write_all",
    "write_chunk",
]


@dataclass
class ChunkFiles:
    files: dict[str, bytes]  # relative path -> bytes
    entry: ManifestChunk


def chunk_elements(doc: Document, first_id: str, last_id: str) -> list[Element]:
    """The IR elements first_id..last_id, in order."""
    index = {e.id: i for i, e in enumerate(doc.elements)}
    if first_id not in index or last_id not in index:
        raise ValueError(f"chunk range {first_id}..{last_id} is not in the IR")
    i, j = index[first_id], index[last_id]
    if j < i:
        raise ValueError(f"chunk range {first_id}..{last_id} is reversed")
    return doc.elements[i : j + 1]


def _chunk_images(elements: list[Element], images: Mapping[str, bytes]) -> dict[str, bytes]:
    """Image files the chunk's Markdown links to, checked against the IR's hashes."""
    out: dict[str, bytes] = {}
    for e in elements:
        refs = {e.image.file: e.image.sha256} if e.image else {}
        for link in image_links(e.text):
            if link.startswith(Layout.IMAGES):  # other links are not files we own
                refs.setdefault(link, "")
        for path, sha in refs.items():
            try:
                safe_image_path(path)
            except ValueError as exc:
                raise InputError(f"{e.id}: {exc}") from exc
            if path not in images:
                raise InputError(f"{e.id}: image {path} is missing from the parsed images")
            data = images[path]
            if sha and sha256_bytes(data) != sha:
                raise InputError(f"{e.id}: image {path} bytes do not match the IR's sha256")
            out[path] = data
    return out


def write_chunk(
    doc: Document,
    plan: Plan,
    number: int,
    *,
    formats: Collection[OutputFormat],
    source_pdf: Path | None,
    images: Mapping[str, bytes],
    overlap_pages: int = 1,
    title: str | None = None,
) -> ChunkFiles:
    """Write chunk `number` of `plan` in the given formats; see the module docstring."""
    wanted = set(formats)
    if not wanted or not wanted <= set(OUTPUT_FORMATS):
        raise ValueError(f"formats must be a non-empty subset of {OUTPUT_FORMATS}: {formats}")
    chunks = {c.number: c for c in plan.chunks}
    if number not in chunks:
        raise ValueError(f"plan has no chunk {number}")
    if plan.doc_id != doc.doc_id:
        raise ValueError("plan and IR belong to different documents")
    chunk = chunks[number]
    title = title if title is not None else chunk.title
    stem = chunk_stem(number, len(plan.chunks), title)
    elements = chunk_elements(doc, chunk.first_id, chunk.last_id)
    page_first, page_last, _ = element_span(doc, chunk.first_id, chunk.last_id)

    files: dict[str, bytes] = {}
    md_name = pdf_name = None
    pdf_pages: list[int] | None = None
    overlap: list[int] = []
    if "pdf" in wanted:
        if doc.source_format != "pdf":
            raise InputError(
                f"PDF output needs a PDF source; this document is {doc.source_format.upper()}",
                source=doc.source_name,
            )
        if source_pdf is None:
            raise ValueError("PDF output needs source_pdf")
        pages = chunk_pdf_pages(doc, chunk.first_id, chunk.last_id, overlap_pages)
        src = open_source_pdf(doc, source_pdf)
        pdf_name = Layout.session_pdf(stem)
        files[pdf_name] = render_chunk_pdf(src, pages, title)
        pdf_pages, overlap = pages.pages, pages.overlap
    if "markdown" in wanted:
        md_name = Layout.session_markdown(stem)
        linked = any("](#el-" in e.text for e in elements)
        places = plan_places(doc, plan) if linked else None
        files[md_name] = render_chunk_markdown(number, title, elements, places).encode("utf-8")
        files.update(_chunk_images(elements, images))

    entry = ManifestChunk(
        number=number,
        title=title,
        stem=stem,
        markdown_file=md_name,
        pdf_file=pdf_name,
        files={name: sha256_bytes(data) for name, data in sorted(files.items())},
        element_ids=[e.id for e in elements],
        first_id=chunk.first_id,
        last_id=chunk.last_id,
        page_first=page_first,
        page_last=page_last,
        pdf_pages=pdf_pages,
        overlap_pages=overlap,
        word_count=sum(e.word_count for e in elements),
        **chunk.model_dump(
            include={
                "end_reason",
                "end_decider",
                "continues",
                "kind",
                "end_alternative",
                "key_terms",
            }
        ),
    )
    return ChunkFiles(files=dict(sorted(files.items())), entry=entry)


def save_files(out_dir: Path, files: Mapping[str, bytes]) -> None:
    """Write `files` under `out_dir`, refusing paths that would leave it."""
    root = out_dir.resolve()
    for name, data in files.items():
        target = (root / name).resolve()
        if root not in target.parents:
            raise ValueError(f"refusing to write outside {out_dir}: {name!r}")
        write_atomic(target, data)


def write_all(
    doc: Document,
    plan: Plan,
    *,
    formats: Collection[OutputFormat],
    source_pdf: Path | None,
    images: Mapping[str, bytes],
    overlap_pages: int = 1,
) -> dict[str, bytes]:
    """Every chunk plus `manifest.json`, in one process (local mode, tests, benchmarks).

    The distributed path runs `write_chunk` per chunk and `build_manifest` at fan-in."""
    files: dict[str, bytes] = {}
    entries = []
    for chunk in plan.chunks:
        written = write_chunk(
            doc,
            plan,
            chunk.number,
            formats=formats,
            source_pdf=source_pdf,
            images=images,
            overlap_pages=overlap_pages,
        )
        files.update(written.files)
        entries.append(written.entry)
    manifest = build_manifest(doc, plan, entries, formats=formats, overlap_pages=overlap_pages)
    files[Layout.MANIFEST] = dump_manifest(manifest)
    return files
