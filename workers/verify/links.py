"""Checks of cross-references and footnotes in the written Markdown.

A link's destination is rendering: the verifier writes each element's IR links the way
the manifest says the sessions were written (`write.markdown.written_text`) and compares
the file with that, so a changed word in a link's text is a change of content, and a link pointing
elsewhere is one too. Then every link of the IR must lead somewhere: its target's file
exists in the output and holds the anchor (`check_links`). A footnote must be in the chunk
of the element holding its reference, after every other element of its file
(`check_footnotes`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from quire.shared.ir import Document, Element
from quire.shared.links import Slugger, heading_title, link_targets
from quire.shared.manifest import Manifest
from quire.workers.verify.findings import Findings
from quire.workers.write.links import Place, Places, places_for

# a parsed chunk file: (element id, text) segments in file order
Segments = list[tuple[str, str]]


def manifest_places(doc: Document, manifest: Manifest) -> Places | None:
    """Where the manifest says each element was written; None when no element links."""
    if not any("](#el-" in e.text for e in doc.elements):
        return None
    chunks = ((c.number, c.markdown_file or "", c.first_id, c.last_id) for c in manifest.chunks)
    return places_for(doc, chunks)


def file_anchors(segments: Segments, by_id: Mapping[str, Element]) -> set[str]:
    """Anchors a chunk file offers: its headings' slugs and its elements' ids."""
    slugger = Slugger()
    anchors = {eid for eid, _ in segments}
    for eid, text in segments:
        e = by_id.get(eid)
        if e is not None and e.type == "heading":
            anchors.add(slugger.slug(heading_title(text)))
    return anchors


def check_links(
    doc: Document,
    places: Places | None,
    written: Mapping[str, Segments],
    out_dir: Path,
    findings: Findings,
) -> int:
    """Every IR link leads to an existing file of the output and an anchor in it; returns
    how many links were checked. `written`: the chunk files read, by file name."""
    if places is None:
        return 0
    by_id = doc.by_id()
    anchors: dict[str, set[str]] = {}
    checked = 0
    for e in doc.elements:
        for target in link_targets(e.text):
            checked += 1
            problem, place = _link_problem(target, places, written, out_dir, anchors, by_id)
            if problem:
                src = places.place(e.id)
                findings.add(
                    "broken_link",
                    f"{e.id} links to {target}, {problem}",
                    chunk=src.chunk if src else None,
                    element_id=e.id,
                    file=place.file if place else None,
                )
    return checked


def _link_problem(
    target: str,
    places: Places,
    written: Mapping[str, Segments],
    out_dir: Path,
    anchors: dict[str, set[str]],
    by_id: Mapping[str, Element],
) -> tuple[str | None, Place | None]:
    place = places.place(target)
    if place is None:
        return "which no chunk holds", None
    if place.file not in written and not (out_dir / place.file).is_file():
        return f"written to {place.file}, which does not exist", place
    if place.file not in anchors:
        anchors[place.file] = file_anchors(written.get(place.file, []), by_id)
    if place.anchor not in anchors[place.file]:
        return f"but {place.file} has no anchor #{place.anchor}", place
    return None, place


def check_footnotes(
    doc: Document, chunk_of: Mapping[str, int], written: Mapping[str, Segments], findings: Findings
) -> int:
    """Each footnote sits in its reference's chunk, after the file's other elements;
    returns how many footnotes were checked."""
    by_id = doc.by_id()
    notes = [e for e in doc.elements if e.type == "footnote"]
    for note in notes:
        here, ref = chunk_of.get(note.id), chunk_of.get(note.ref_id or "")
        if here is not None and ref is not None and here != ref:
            findings.add(
                "footnote_misplaced",
                f"footnote {note.id} is in chunk {here}, its reference ({note.ref_id}) in "
                f"chunk {ref}",
                chunk=here,
                element_id=note.id,
                page=note.page_first,
            )
    for name, segments in written.items():
        seen_note = None
        for eid, _ in segments:
            e = by_id.get(eid)
            if e is None:
                continue
            if e.type == "footnote":
                seen_note = seen_note or eid
            elif seen_note is not None:
                findings.add(
                    "footnote_misplaced",
                    f"{eid} follows footnote {seen_note}: footnotes belong after the text",
                    chunk=chunk_of.get(eid),
                    element_id=seen_note,
                    file=name,
                )
                break
    return len(notes)
