"""What an analyser sees of one chunk: its whole content, its headings, its neighbours' titles.

`build_context` is pure: IR + plan (+ the scored safe candidates) in, a JSON-serialisable
`AnalysisContext` out. The same object feeds the LLM prompt, the heuristic analyser and the
agent CLI (`analysis-context --chunk-id N`). Key terms are the author's indexed terms the
chunk covers, else its key phrases (`session_terms`); `DocumentStats` holds the
document-wide part, to build it once for many chunks.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict

from quire.shared.ir import WORDS_PER_PAGE, Document, layout_words
from quire.shared.pages import PageRange
from quire.shared.plan import Candidate, ChunkKind, ChunkPlan, KeyTerm, Plan
from quire.workers.analysis.book_terms import BookIndexData, session_terms
from quire.workers.analysis.session_terms import SessionTerms
from quire.workers.boundaries.candidates import plain_text, snippet


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ContextHeading(_Model):
    id: str
    level: int
    text: str


class NeighbourTitle(_Model):
    chunk: int
    title: str


class InternalCut(_Model):
    """A safe candidate strictly inside the chunk, with the sizes a split there would give."""

    after_id: str
    before_id: str
    score: float
    heading_level: int | None = None
    numbering: str | None = None
    pages_before: float
    pages_after: float
    right_snippet: str


# what an internal cut shows of its candidate as it is
_CUT_FIELDS = {"after_id", "before_id", "score", "heading_level", "numbering"}


class AnalysisContext(PageRange, _Model):
    doc_id: str
    source_name: str
    page_basis: Literal["pdf", "words", "print"]
    chunk: int
    chunk_count: int
    kind: ChunkKind = "study"  # reference sessions (front/back matter) get no analysis
    title: str  # the chunk's current title (plan)
    first_id: str
    last_id: str
    page_first: int
    page_last: int
    pages: float
    words: int
    min_pages: float  # the plan's minimum chunk size (a split must not go far below it)
    element_types: dict[str, int]  # element type -> count
    enclosing: list[ContextHeading]  # headings in effect where the chunk starts, outermost first
    starts_with_heading: bool
    headings: list[ContextHeading]  # headings inside the chunk, in order
    key_terms: list[KeyTerm]
    previous: NeighbourTitle | None = None
    next: NeighbourTitle | None = None
    internal_cuts: list[InternalCut] = []
    content: str  # the chunk's full Markdown (element texts in order)

    def chunk_ids(self) -> dict[str, int | str]:
        """The chunk's number and element range: what ties an analysis, or its failure,
        to this chunk's content."""
        return {"chunk": self.chunk, "first_id": self.first_id, "last_id": self.last_id}


@dataclass
class DocumentStats:
    """Document-wide lookups, built once for every chunk of a document: element positions,
    document frequencies, the heading trail, the candidates in document order."""

    positions: dict[str, int]
    elements: int
    doc: Document
    book: BookIndexData | None  # the book's own index, if it has one
    headings: list[ContextHeading] = field(default_factory=list)
    heading_pos: list[int] = field(default_factory=list)
    cut_pos: list[int] = field(default_factory=list)  # candidate positions, ascending
    cuts: list[Candidate] = field(default_factory=list)  # the candidates, same order

    @classmethod
    def of(
        cls,
        doc: Document,
        candidates: Sequence[Candidate] = (),
        book: BookIndexData | None = None,
    ) -> DocumentStats:
        """`book`: the document's parsed index (`book_terms.read_book_index`); without
        it, sessions get key phrases."""
        headings, heading_pos = [], []
        for i, e in enumerate(doc.elements):
            if e.type == "heading":
                headings.append(ContextHeading(id=e.id, level=e.level or 1, text=plain_text(e)))
                heading_pos.append(i)
        positions = {e.id: i for i, e in enumerate(doc.elements)}
        return cls(
            positions,
            len(doc.elements),
            doc,
            book,
            headings,
            heading_pos,
            *_placed(positions, candidates),
        )

    @cached_property
    def terms(self) -> SessionTerms:
        """The book's index terms, else key phrases: built on first use, as a saved plan
        carries each session's own (a whole-book pass that is best not repeated)."""
        return session_terms(self.doc, self.book)

    def enclosing(self, start: int) -> list[ContextHeading]:
        """The heading trail in effect just before element `start` (outermost first)."""
        trail: dict[int, ContextHeading] = {}
        for pos, h in zip(self.heading_pos, self.headings, strict=True):
            if pos >= start:
                break
            trail = {lv: t for lv, t in trail.items() if lv < h.level}
            trail[h.level] = h
        return [trail[lv] for lv in sorted(trail)]


def internal_cuts(
    doc: Document,
    chunk: ChunkPlan,
    candidates: Sequence[Candidate],
    stats: DocumentStats | None = None,
) -> list[InternalCut]:
    """Safe candidates strictly inside `chunk` (never at its last element), in order, with
    the sizes of the two pieces a split there would leave (sized like the planner's chunks:
    PDF pages touched, or words / 400). `stats` built with the same candidates saves
    sorting them again for every chunk."""
    if stats is not None and (stats.cuts or not candidates):
        positions, cut_pos, cuts = stats.positions, stats.cut_pos, stats.cuts
    else:  # positions only: no need for the term statistics
        positions = stats.positions if stats else {e.id: i for i, e in enumerate(doc.elements)}
        cut_pos, cuts = _placed(positions, candidates)
    lo, hi = positions[chunk.first_id], positions[chunk.last_id]
    els = doc.elements
    first = bisect.bisect_left(cut_pos, lo)
    last = bisect.bisect_left(cut_pos, hi)  # a cut at the chunk's end is not inside
    if first >= last:
        return []
    words = doc.page_basis == "words"
    # page span (or words) of every prefix lo..i and suffix i..hi of the chunk
    n = hi - lo + 1
    pre_lo, pre_hi, suf_lo, suf_hi = [0] * n, [0] * n, [0] * n, [0] * n
    cum = [0] * (n + 1)
    for j in range(n):
        e = els[lo + j]
        pre_lo[j] = min(pre_lo[j - 1], e.page_first) if j else e.page_first
        pre_hi[j] = max(pre_hi[j - 1], e.page_last) if j else e.page_last
        cum[j + 1] = cum[j] + layout_words(e)
    for j in range(n - 1, -1, -1):
        e = els[lo + j]
        suf_lo[j] = min(suf_lo[j + 1], e.page_first) if j < n - 1 else e.page_first
        suf_hi[j] = max(suf_hi[j + 1], e.page_last) if j < n - 1 else e.page_last
    out = []
    for at, c in zip(cut_pos[first:last], cuts[first:last], strict=True):
        j = at - lo
        if words:
            before = round(cum[j + 1] / WORDS_PER_PAGE, 3)
            after = round((cum[n] - cum[j + 1]) / WORDS_PER_PAGE, 3)
        else:
            before = float(pre_hi[j] - pre_lo[j] + 1)
            after = float(suf_hi[j + 1] - suf_lo[j + 1] + 1)
        out.append(
            InternalCut(
                **c.model_dump(include=_CUT_FIELDS),
                pages_before=before,
                pages_after=after,
                right_snippet=snippet(els[at + 1]),
            )
        )
    return out


def _placed(
    positions: dict[str, int], candidates: Sequence[Candidate]
) -> tuple[list[int], list[Candidate]]:
    placed = sorted(
        ((positions[c.after_id], c) for c in candidates if c.after_id in positions),
        key=lambda pc: pc[0],
    )
    return [p for p, _ in placed], [c for _, c in placed]


def build_context(
    doc: Document,
    plan: Plan,
    number: int,
    *,
    candidates: Sequence[Candidate] = (),
    stats: DocumentStats | None = None,
) -> AnalysisContext:
    """The analysis context of chunk `number` of `plan` (see the module docstring)."""
    if plan.doc_id != doc.doc_id:
        raise ValueError("plan and IR belong to different documents")
    chunks = {c.number: c for c in plan.chunks}
    if number not in chunks:
        raise ValueError(f"plan has no chunk {number}")
    stats = stats or DocumentStats.of(doc, candidates)
    chunk = chunks[number]
    lo, hi = stats.positions[chunk.first_id], stats.positions[chunk.last_id]
    elements = doc.elements[lo : hi + 1]
    types = Counter(e.type for e in elements)
    prev, nxt = chunks.get(number - 1), chunks.get(number + 1)
    return AnalysisContext(
        doc_id=doc.doc_id,
        source_name=doc.source_name,
        page_basis=doc.page_basis,
        chunk=number,
        chunk_count=len(plan.chunks),
        **chunk.model_dump(
            include={"kind", "title", "first_id", "last_id", "page_first", "page_last", "pages"}
        ),
        words=sum(e.word_count for e in elements),
        min_pages=plan.settings.min_pages,
        element_types=dict(sorted(types.items())),
        enclosing=stats.enclosing(lo),
        starts_with_heading=elements[0].type == "heading",
        headings=[
            ContextHeading(id=e.id, level=e.level or 1, text=plain_text(e))
            for e in elements
            if e.type == "heading"
        ],
        key_terms=chunk.key_terms or stats.terms.terms(lo, hi),
        previous=NeighbourTitle(chunk=prev.number, title=prev.title) if prev else None,
        next=NeighbourTitle(chunk=nxt.number, title=nxt.title) if nxt else None,
        internal_cuts=internal_cuts(doc, chunk, candidates, stats),
        content="\n\n".join(e.text for e in elements),
    )


def build_contexts(
    doc: Document, plan: Plan, candidates: Sequence[Candidate] = ()
) -> list[AnalysisContext]:
    """Every chunk's context, sharing one `DocumentStats` (local mode, tests)."""
    stats = DocumentStats.of(doc, candidates)
    return [
        build_context(doc, plan, c.number, candidates=candidates, stats=stats) for c in plan.chunks
    ]
