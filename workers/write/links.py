"""Cross-references and footnotes as a session file writes them.

The IR links to elements (`[Section 3.2](#el-000123)`); a session file links to the
session file holding the target, at the target's anchor: a heading's GitHub-style slug
(unique within its file), any other element's id (the web workspace gives every element
that id; elsewhere the link opens the file). A link to an element of the same session
keeps just the anchor. Footnotes (elements of type "footnote") are written after the
session's other elements, in their order, so none sits inside the text.

`Places` knows where every element is written; the writer builds it from the plan, the
verifier from the manifest, and both rewrite a text with `write_links`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from quire.shared.ir import Document, Element
from quire.shared.links import IR_DEST, Slugger, heading_title
from quire.shared.plan import Plan
from quire.workers.write.names import chunk_stem


@dataclass(frozen=True)
class Place:
    file: str  # the session's Markdown file, relative to the output folder
    anchor: str  # heading slug or element id
    chunk: int


@dataclass
class Places:
    """Where each element of `doc` is written: chunks given by (number, file, first
    element index, last element index), in reading order."""

    doc: Document
    chunks: list[tuple[int, str, int, int]]
    _starts: list[int] = field(default_factory=list)
    _slugs: dict[int, dict[str, str]] = field(default_factory=dict)
    _index: dict[str, int] | None = None

    def __post_init__(self) -> None:
        self.chunks.sort(key=lambda c: c[2])
        self._starts = [c[2] for c in self.chunks]

    def index(self, element_id: str) -> int | None:
        """The element's position in the IR (ids are normally "el-" + position)."""
        els = self.doc.elements
        try:
            i = int(element_id[3:]) - 1
        except ValueError:
            i = -1
        if 0 <= i < len(els) and els[i].id == element_id:
            return i
        if self._index is None:
            self._index = {e.id: k for k, e in enumerate(els)}
        return self._index.get(element_id)

    def place(self, element_id: str) -> Place | None:
        """Where `element_id` is written, or None when no chunk holds it."""
        i = self.index(element_id)
        if i is None:
            return None
        k = bisect.bisect_right(self._starts, i) - 1
        if k < 0 or i > self.chunks[k][3]:
            return None
        number, file, first, last = self.chunks[k]
        element = self.doc.elements[i]
        if element.type != "heading":
            return Place(file, element_id, number)
        if number not in self._slugs:
            self._slugs[number] = heading_slugs(self.doc.elements[first : last + 1])
        return Place(file, self._slugs[number][element_id], number)


def heading_slugs(elements: Sequence[Element]) -> dict[str, str]:
    """Element id -> anchor of every heading among `elements` (one session, in order)."""
    slugger = Slugger()
    return {e.id: slugger.slug(heading_title(e.text)) for e in elements if e.type == "heading"}


def write_links(text: str, chunk: int, places: Places) -> str:
    """`text` with its element links pointing at the files that hold their targets (a
    link whose target no chunk holds is left as it is)."""
    if "](#el-" not in text:
        return text

    def dest(m: re.Match[str]) -> str:
        place = places.place(m.group(1))
        if place is None:
            return m.group(0)
        where = "" if place.chunk == chunk else place.file
        return f"]({where}#{place.anchor})"

    return IR_DEST.sub(dest, text)


def written_order(elements: Sequence[Element]) -> list[Element]:
    """A session's elements as its file holds them: the footnotes last."""
    return [e for e in elements if e.type != "footnote"] + [
        e for e in elements if e.type == "footnote"
    ]


def places_for(doc: Document, chunks: Iterable[tuple[int, str, str, str]]) -> Places:
    """Where each element is written, given the chunks as (number, Markdown file, first
    element id, last element id); chunks without a file or out of the IR are left out."""
    base = Places(doc, [])
    rows = []
    for number, file, first_id, last_id in chunks:
        first, last = base.index(first_id), base.index(last_id)
        if file and first is not None and last is not None:
            rows.append((number, file, first, last))
    return Places(doc, rows)


def plan_places(doc: Document, plan: Plan) -> Places:
    """Where the plan's chunks are written (their file names come from their titles)."""
    total = len(plan.chunks)
    return places_for(
        doc,
        (
            (c.number, f"{chunk_stem(c.number, total, c.title)}.md", c.first_id, c.last_id)
            for c in plan.chunks
        ),
    )
