"""The proof that retrieval chunks lose nothing: `verify_rag(doc, plan, chunks, max_chars)`.

Per session, with the session text defined as its elements' texts joined by "\\n\\n":

    "".join(c.sep_before + c.text[c.header_chars:] for c in the session's chunks)
        == session text                                   (exact string equality)

and `sep_before` is whitespace only ("" for the session's first chunk), `text[:header_chars]`
is the header of the table the chunk continues (its first two lines plus "\\n"). Besides the
proof, every claim a chunk makes is recomputed from the IR: cap, ids, links, element ids,
pages, continuation / has_more, where it starts and ends (a cut inside an element lies at a
unit boundary of `split.element_units` unless it is declared "word" or "char"), and that
no chunk ends with a whole heading except at its session's end, in a run of headings longer
than the cap (the chunk holds nothing but headings), or when the heading leaves no room for
a single character beside it.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict

from quire.shared.errors import InputError
from quire.shared.ir import Document, Element
from quire.shared.plan import Plan
from quire.shared.rag import RagChunk
from quire.workers.rag.chunker import ELEMENT_JOIN, Session, chunk_id, sessions_of
from quire.workers.rag.split import element_units


class RagProblem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str  # "cap", "concatenation", "order", "id", "link", "elements", "pages", "flags",
    # "header", "cut", "heading_end", "enrichment", "plan"
    message: str
    session: int | None = None
    chunk_id: str | None = None
    element_id: str | None = None


def _snippet(text: str, at: int) -> str:
    return repr(text[max(0, at - 20) : at + 20])


def _unit_starts(doc: Document, el_index: int, max_chars: int) -> set[int]:
    """Offsets inside the element at which a unit of `element_units` begins."""
    starts, pos = set(), 0
    for k, u in enumerate(element_units(doc.elements[el_index], max_chars)):
        pos += len(u.sep)
        if k and u.cut not in ("word", "char"):
            starts.add(pos)
        pos += len(u.text)
    return starts


_Report = Callable[[str, str], None]  # (kind, message) of one problem


def _enrichment_claims(c: RagChunk, bad: _Report) -> None:
    if c.enrichment is not None:
        e = c.enrichment
        if not (e.context.strip() and e.summary.strip() and e.keywords and e.questions):
            bad("enrichment", "an enrichment field is empty")
        if any(not q.rstrip().endswith(("?", "؟")) for q in e.questions):
            bad("enrichment", "a question does not end with '?'")


class _SessionCheck:
    def __init__(self, doc: Document, s: Session, max_chars: int) -> None:
        self.doc, self.s, self.max_chars = doc, s, max_chars
        self.indexes = list(range(s.first, s.last + 1))
        self.offsets: list[int] = []
        pos = 0
        for i in self.indexes:
            self.offsets.append(pos)
            pos += len(doc.elements[i].text) + len(ELEMENT_JOIN)
        self.text = ELEMENT_JOIN.join(doc.elements[i].text for i in self.indexes)
        self.position = {doc.elements[i].id: k for k, i in enumerate(self.indexes)}
        self.unit_starts: dict[int, set[int]] = {}

    def element_at(self, pos: int) -> int:
        """Position in `indexes` of the element whose text (or following join) holds pos."""
        return max(0, bisect.bisect_right(self.offsets, pos) - 1)

    def inside(self, pos: int) -> tuple[int, int] | None:
        """(element position, offset in it) when pos lies strictly inside an element's text."""
        k = self.element_at(pos)
        off = pos - self.offsets[k]
        if 0 < off < len(self.doc.elements[self.indexes[k]].text):
            return k, off
        return None

    def check(self, chunks: Sequence[RagChunk]) -> list[RagProblem]:
        s = self.s
        problems: list[RagProblem] = []

        def bad(kind: str, msg: str, c: RagChunk | None = None, el: str | None = None) -> None:
            problems.append(
                RagProblem(
                    kind=kind,
                    message=msg,
                    session=s.number,
                    chunk_id=c.id if c else None,
                    element_id=el,
                )
            )

        if not chunks:
            bad("concatenation", f"session {s.number} has no retrieval chunks")
            return problems
        rebuilt: list[str] = []
        pos = 0
        claimed: set[str] = set()
        for n, c in enumerate(chunks):
            body = c.text[c.header_chars :]
            if c.part != n:
                bad("order", f"part {c.part} is chunk {n} of session {s.number}", c)
            if n == 0 and c.sep_before != "":
                bad("concatenation", "the session's first chunk has a separator before it", c)
            if c.sep_before.strip():
                bad("concatenation", f"sep_before {c.sep_before!r} is not whitespace", c)
            rebuilt.append(c.sep_before + body)
            start = pos + len(c.sep_before)
            end = start + len(body)
            pos = end
            if self.text[start:end] != body:
                continue  # reported once, by the concatenation check below
            problems += self._claims(c, start, end, n == len(chunks) - 1, claimed)
            if n and chunks[n - 1].ends_at != c.starts_at:
                bad(
                    "cut",
                    f"ends_at {chunks[n - 1].ends_at!r} but the next chunk starts at "
                    f"{c.starts_at!r}",
                    chunks[n - 1],
                )
        joined = "".join(rebuilt)
        if joined != self.text:
            at = next(
                (i for i, (a, b) in enumerate(zip(joined, self.text, strict=False)) if a != b),
                min(len(joined), len(self.text)),
            )
            bad(
                "concatenation",
                f"chunks of session {s.number} rebuild {len(joined)} characters, the session "
                f"has {len(self.text)}; first difference at {at}: {_snippet(joined, at)} vs "
                f"{_snippet(self.text, at)}",
            )
        for i in self.indexes:
            el = self.doc.elements[i]
            if el.id not in claimed:
                bad("elements", f"{el.id} is in no retrieval chunk of its session", el=el.id)
        return problems

    def _claims(
        self, c: RagChunk, start: int, end: int, last: bool, claimed: set[str]
    ) -> list[RagProblem]:
        """Everything the chunk says about itself, recomputed from its place in the text."""
        doc, s = self.doc, self.s
        out: list[RagProblem] = []

        def bad(kind: str, msg: str) -> None:
            out.append(RagProblem(kind=kind, message=msg, session=s.number, chunk_id=c.id))

        first_k = self.element_at(start)
        last_k = self.element_at(max(start, end - 1))
        spanned = [
            doc.elements[self.indexes[k]]
            for k in range(first_k, last_k + 1)
            if doc.elements[self.indexes[k]].text
        ]
        self._element_claims(c, start, end, spanned, claimed, bad)
        cont = self.inside(start) is not None
        more = self.inside(end) is not None
        if (c.continuation, c.has_more) != (cont, more):
            bad(
                "flags",
                f"continuation={c.continuation} has_more={c.has_more}, the text says "
                f"{cont} / {more}",
            )
        if c.header_chars:
            table = doc.elements[self.indexes[first_k]]
            lines = table.text.split("\n")
            header = "\n".join(lines[:2]) + "\n"
            if table.type != "table" or not cont or c.text[: c.header_chars] != header:
                bad("header", "the repeated header is not the header of the table it continues")
        self._label_claims(c, bad)
        problem = self._cut_problem(start, c.starts_at, at_edge=c.part == 0)
        if problem:
            bad("cut", f"starts_at: {problem}")
        if last and c.ends_at != "session":
            bad("cut", f"ends_at {c.ends_at!r} at the session's end")
        last_el = doc.elements[self.indexes[last_k]]
        only_headings = all(e.type == "heading" or not e.text for e in spanned)
        if (
            not last
            and not more
            and last_el.type == "heading"
            and not only_headings
            and len(last_el.text) + len(ELEMENT_JOIN) < self.max_chars
        ):
            bad("heading_end", f"the chunk ends with heading {last_el.id}")
        _enrichment_claims(c, bad)
        return out

    def _element_claims(
        self,
        c: RagChunk,
        start: int,
        end: int,
        spanned: list[Element],
        claimed: set[str],
        bad: _Report,
    ) -> None:
        """The chunk's element ids and pages against the elements its text spans."""
        doc, position = self.doc, self.position

        def text_of(el_id: str) -> str:
            return doc.elements[self.indexes[position[el_id]]].text

        listed_nonempty = [i for i in c.element_ids if i in position and text_of(i)]
        empty_ok = all(
            i in position and (text_of(i) != "" or start <= self.offsets[position[i]] <= end)
            for i in c.element_ids
        )
        ordered = [position.get(i, -1) for i in c.element_ids]
        if (
            listed_nonempty != [e.id for e in spanned]
            or not empty_ok
            or ordered != sorted(set(ordered))
        ):
            bad(
                "elements",
                f"element_ids {c.element_ids} but the text spans {[e.id for e in spanned]}",
            )
        claimed.update(i for i in c.element_ids if i in position)
        els = [doc.elements[self.indexes[position[i]]] for i in c.element_ids if i in position]
        if els and (c.page_first, c.page_last) != (
            min(e.page_first for e in els),
            max(e.page_last for e in els),
        ):
            bad("pages", f"pages {c.pages_label} disagree with its elements")

    def _label_claims(self, c: RagChunk, bad: _Report) -> None:
        """The chunk's size, document, session and id against its text and place."""
        if c.chars != len(c.text):
            bad("cap", f"chars says {c.chars}, the text has {len(c.text)}")
        if len(c.text) > self.max_chars:
            bad("cap", f"{len(c.text)} characters, over the cap of {self.max_chars}")
        if c.doc_id != self.doc.doc_id or c.session != self.s.number:
            bad("order", f"chunk is labelled doc {c.doc_id[:12]} session {c.session}")
        if c.id != chunk_id(c.doc_id, c.session, c.element_ids, c.part, c.text):
            bad("id", "the id is not the hash of the chunk's content and position")

    def _cut_problem(self, pos: int, label: str, *, at_edge: bool) -> str | None:
        if at_edge:
            return None if label == "session" else f"{label!r} at the session's edge"
        where = self.inside(pos)
        if where is None:
            k = self.element_at(pos)
            # pos is at the start of element k, or at the end of element k (before the join)
            el_k = self.doc.elements[self.indexes[k]]
            # at the end of element k (or of empty elements after it): the next one with text
            while pos == self.offsets[k] + len(el_k.text) and k + 1 < len(self.indexes):
                k += 1
                el_k = self.doc.elements[self.indexes[k]]
                if el_k.text:
                    break
            want = "section" if el_k.type == "heading" else "element"
            return None if label == want else f"{label!r} between elements (expected {want!r})"
        k, off = where
        if label in ("word", "char"):
            return None  # declared: a unit too long for the cap was broken
        el_index = self.indexes[k]
        if el_index not in self.unit_starts:  # split each element once, however many cuts
            self.unit_starts[el_index] = _unit_starts(self.doc, el_index, self.max_chars)
        if off in self.unit_starts[el_index]:
            return None
        el = self.doc.elements[self.indexes[k]]
        return f"cuts {el.id} ({el.type}) inside a unit at {off} without saying so"


def verify_rag(
    doc: Document, plan: Plan, chunks: Sequence[RagChunk], max_chars: int
) -> list[RagProblem]:
    """Every problem with `chunks` as the retrieval chunks of `doc` cut by `plan` (empty
    list: they pass). Chunks must be in document order, as `rag_chunks` returns them."""
    try:
        sessions = sessions_of(doc, plan)
    except InputError as exc:
        return [RagProblem(kind="plan", message=str(exc))]
    problems: list[RagProblem] = []
    by_session: dict[int, list[RagChunk]] = {}
    order: list[int] = []
    for c in chunks:
        if not order or order[-1] != c.session:
            order.append(c.session)
        by_session.setdefault(c.session, []).append(c)
    numbers = [s.number for s in sessions]
    if order != [n for n in numbers if n in by_session] or len(order) != len(set(order)):
        problems.append(RagProblem(kind="order", message="chunks are not in session order"))
    unknown = set(by_session) - set(numbers)
    if unknown:
        problems.append(
            RagProblem(kind="order", message=f"chunks name unknown sessions {sorted(unknown)}")
        )
    ids = [c.id for c in chunks]
    if len(set(ids)) != len(ids):
        problems.append(RagProblem(kind="id", message="two retrieval chunks share an id"))
    for i, c in enumerate(chunks):
        prev = chunks[i - 1].id if i else None
        nxt = chunks[i + 1].id if i + 1 < len(chunks) else None
        if (c.prev_id, c.next_id) != (prev, nxt):
            problems.append(
                RagProblem(
                    kind="link",
                    message="prev_id / next_id do not link the chunks in document order",
                    session=c.session,
                    chunk_id=c.id,
                )
            )
    for s in sessions:
        problems += _SessionCheck(doc, s, max_chars).check(by_session.get(s.number, []))
    return problems
