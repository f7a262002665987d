"""Retrieval chunks from the verified IR and plan: `rag_chunks(doc, plan)`.

Each study session is chunked on its own, so a retrieval chunk never crosses a session
boundary. A session is a sequence of atoms (units of `split.element_units`, see there) with
a boundary between every two of them. Each boundary has a strength:

    before a heading of level L: 10 - L   ("section")
    between two other elements:  2        ("element")
    between units of an element: 1        ("sentence", "row", "item", "line")
    inside a too-long unit:      0 at a line break, -1 at other whitespace ("word"),
                                 -2 ("char")

and some boundaries are closed (glue): after a heading, after the last sentence of a
paragraph ending in ':' that introduces a list, table or code block, after a table's header
rows, after an opening code fence, before a closing code fence, around empty elements.

A chunk starts where the previous one ended and reaches as far as the cap allows; it ends
at an open boundary within that reach:
- linear: the latest one among the strongest of {element or section, unit, word, char} -
  i.e. greedy over whole elements, splitting an element only when it does not fit alone;
- hierarchical (default): the strongest one, the latest among equals - so a section that
  fits (with its following siblings, as long as they fit too) is one chunk, and a section
  that does not is split at its highest sub-section boundary first.
When glue closes every boundary within reach (e.g. a heading followed by an element that
does not fit beside it), the first atom past the reach is cut at a word (else a character)
so that the heading still travels with the start of what it heads. Only for a run of
headings longer than the cap, or when not one more character fits, is the strongest glued
boundary opened, the latest that leaves no heading at the chunk's end where one does (so
only then may a chunk end with a heading). The cap is never exceeded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

from quire.shared.errors import InputError
from quire.shared.ir import Document, Element
from quire.shared.plan import ChunkPlan, Plan
from quire.shared.rag import ALGORITHMS, DEFAULT_MAX_CHARS, MIN_MAX_CHARS, Algorithm, Cut, RagChunk
from quire.workers.rag.split import Unit, element_units, fit_head

ELEMENT_JOIN = "\n\n"  # between two elements in a session's text (as in the Markdown body)
ID_HEX = 24
CRUMB_CHARS = 200  # a breadcrumb entry is cut to this many characters
_UNIT_STRENGTH: dict[Cut, int] = {
    "sentence": 1,
    "row": 1,
    "item": 1,
    "line": 1,
    "element": 2,
    "word": -1,  # 0 when the whitespace holds a line break (see _strength)
    "char": -2,
}


@dataclass(frozen=True)
class Atom:
    text: str
    sep: str  # session text between the previous atom and this one
    el: int  # index of its element in doc.elements
    first: bool  # first atom of its element
    last: bool  # last atom of its element
    cut: Cut  # kind of the boundary before it
    strength: int  # strength of the boundary before it
    glue_next: bool
    glue_prev: bool
    header: str | None


@dataclass(frozen=True)
class Session:
    number: int
    first: int  # element indexes, inclusive
    last: int
    title: str


def sessions_of(doc: Document, plan: Plan) -> list[Session]:
    """The plan's sessions as element index ranges; InputError if they do not tile the IR."""
    if plan.doc_id != doc.doc_id:
        raise InputError("the plan is for another document")
    index = {e.id: i for i, e in enumerate(doc.elements)}
    out: list[Session] = []
    expected = 0
    for c in plan.chunks:
        if c.first_id not in index or c.last_id not in index:
            raise InputError(f"session {c.number} names elements the IR does not have")
        first, last = index[c.first_id], index[c.last_id]
        if first != expected or last < first:
            raise InputError(f"session {c.number} does not continue where the previous ended")
        out.append(Session(c.number, first, last, c.title))
        expected = last + 1
    if expected != len(doc.elements):
        raise InputError("the plan's sessions do not cover the whole document")
    return out


def _intro(el: Element, nxt: Element | None) -> bool:
    """A paragraph ending in ':' directly before the list, table or code it introduces."""
    return (
        el.type == "paragraph"
        and el.text.rstrip().endswith(":")
        and nxt is not None
        and nxt.type in ("list", "table", "code")
    )


def _cut_at(atoms: list[Atom], i: int) -> Cut:
    """What kind of cut position `i` is: that of the first atom there with text (an empty
    element is invisible, so a cut before it is a cut before what follows it)."""
    while i < len(atoms) - 1 and not atoms[i].text and atoms[i].first and atoms[i].last:
        i += 1
    return atoms[i].cut


def session_atoms(doc: Document, s: Session, max_chars: int) -> list[Atom]:
    atoms: list[Atom] = []
    for i in range(s.first, s.last + 1):
        el = doc.elements[i]
        nxt = doc.elements[i + 1] if i < s.last else None
        units: list[Unit] = element_units(el, max_chars)
        if el.text == "":  # an empty element never stands at a chunk's edge on its own
            units = [replace(units[0], glue_next=True, glue_prev=True)]
        if _intro(el, nxt):
            units[-1] = replace(units[-1], glue_next=True)
        for k, u in enumerate(units):
            if k == 0:
                cut: Cut = "section" if el.type == "heading" else "element"
                strength = 10 - (el.level or 1) if el.type == "heading" else 2
                sep = "" if i == s.first else ELEMENT_JOIN
            else:
                cut, strength, sep = u.cut, _strength(u.cut, u.sep), u.sep
            atoms.append(
                Atom(
                    text=u.text,
                    sep=sep,
                    el=i,
                    first=k == 0,
                    last=k == len(units) - 1,
                    cut=cut,
                    strength=strength,
                    glue_next=u.glue_next,
                    glue_prev=u.glue_prev,
                    header=u.header if k > 0 else None,
                )
            )
    return atoms


def _strength(cut: Cut, sep: str) -> int:
    if cut == "word" and "\n" in sep:
        return 0  # inside a too-long unit, a line break is the best place to cut
    return _UNIT_STRENGTH[cut]


def _open(atoms: Sequence[Atom], k: int) -> bool:
    """May a chunk end before atom k?"""
    return k >= len(atoms) or not (atoms[k - 1].glue_next or atoms[k].glue_prev)


def _split_atom(atom: Atom, room: int) -> tuple[Atom, Atom] | None:
    unit = Unit(atom.text, atom.sep, atom.cut, atom.glue_next, atom.glue_prev, atom.header)
    cut = fit_head(unit, room)
    if cut is None:
        return None
    head, rest = cut
    return (
        replace(atom, text=head.text, last=False, glue_next=False),
        replace(
            atom,
            text=rest.text,
            sep=rest.sep,
            first=False,
            cut=rest.cut,
            strength=_strength(rest.cut, rest.sep),
            glue_prev=False,
            header=None,
        ),
    )


def pack(atoms: list[Atom], max_chars: int, algorithm: Algorithm) -> list[tuple[int, int]]:
    """Chunk [start, end) atom ranges. May split an atom in `atoms` (in place) to honour glue."""
    out: list[tuple[int, int]] = []
    s = 0
    while s < len(atoms):
        length = len(atoms[s].header or "") + len(atoms[s].text)
        if length > max_chars:  # split.element_units guarantees this cannot happen
            raise AssertionError(f"atom of {length} characters over the cap {max_chars}")
        e = s + 1
        while e < len(atoms) and length + len(atoms[e].sep) + len(atoms[e].text) <= max_chars:
            length += len(atoms[e].sep) + len(atoms[e].text)
            e += 1
        if e == len(atoms):
            out.append((s, e))
            break
        open_cuts = [k for k in range(s + 1, e + 1) if _open(atoms, k)]
        if open_cuts:
            if algorithm == "linear":
                best = max(min(atoms[k].strength, 2) for k in open_cuts)
                end = max(k for k in open_cuts if min(atoms[k].strength, 2) == best)
            else:
                best = max(atoms[k].strength for k in open_cuts)
                end = max(k for k in open_cuts if atoms[k].strength == best)
        else:
            heading_run = atoms[e].first and atoms[e].cut == "section"
            split = None
            if not heading_run:
                split = _split_atom(atoms[e], max_chars - length - len(atoms[e].sep))
            if split is not None:
                atoms[e : e + 1] = split
                end = e + 1
            else:
                # A run of headings longer than the cap, or no room for one more character:
                # open the strongest glued boundary within reach, the latest that leaves no
                # heading at the chunk's end if one does (the heading goes with the run).
                best = max(atoms[k].strength for k in range(s + 1, e + 1))
                ties = [k for k in range(s + 1, e + 1) if atoms[k].strength == best]
                end = max([k for k in ties if not _ends_with_heading(atoms, k)] or ties)
        out.append((s, end))
        s = end
    return out


def _heading(atom: Atom) -> bool:
    """Is the atom a whole heading?"""
    return atom.first and atom.last and atom.cut == "section"


def _ends_with_heading(atoms: Sequence[Atom], k: int) -> bool:
    """Would a chunk ending before atom k end with a whole heading? Empty elements after
    it do not count: they are invisible ("# Untitled", an empty paragraph, then a cut)."""
    j = k - 1
    while j > 0 and not atoms[j].text:
        j -= 1
    return _heading(atoms[j])


def _crumb(el: Element) -> str:
    text = " ".join(el.text.split())
    return text if len(text) <= CRUMB_CHARS else text[: CRUMB_CHARS - 1] + "…"


def _heading_stacks(doc: Document) -> list[tuple[tuple[int, str], ...]]:
    """The heading path in force before each element: ((level, text), ...)."""
    stacks = []
    stack: list[tuple[int, str]] = []
    for el in doc.elements:
        stacks.append(tuple(stack))
        if el.type == "heading":
            level = el.level or 1
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, _crumb(el)))
    return stacks


def chunk_id(doc_id: str, session: int, element_ids: Sequence[str], part: int, text: str) -> str:
    key = "\x1f".join([doc_id, str(session), ",".join(element_ids), str(part), text])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:ID_HEX]


def _breadcrumb(
    doc: Document,
    stacks: list[tuple[tuple[int, str], ...]],
    atoms: Sequence[Atom],
    start: int,
    end: int,
) -> list[str]:
    """The path where the chunk starts; headings it opens with (whole) are included."""
    first = atoms[start]
    stack = list(stacks[first.el])
    if first.first:
        k = start
        while k < end and atoms[k].first and doc.elements[atoms[k].el].type == "heading":
            el_index = atoms[k].el
            while k < end and atoms[k].el == el_index:
                k += 1
            if not atoms[k - 1].last:
                break
            el = doc.elements[el_index]
            level = el.level or 1
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, _crumb(el)))
    return [text for _, text in stack]


def _session_chunks(
    doc: Document,
    s: Session,
    stacks: list[tuple[tuple[int, str], ...]],
    max_chars: int,
    algorithm: Algorithm,
) -> list[RagChunk]:
    atoms = session_atoms(doc, s, max_chars)
    ranges = pack(atoms, max_chars, algorithm)
    chunks = []
    for part, (start, end) in enumerate(ranges):
        head = atoms[start].header or ""
        text = head + atoms[start].text + "".join(a.sep + a.text for a in atoms[start + 1 : end])
        indexes = sorted({a.el for a in atoms[start:end]})
        els = [doc.elements[i] for i in indexes]
        ids = [e.id for e in els]
        chunks.append(
            RagChunk(
                id=chunk_id(doc.doc_id, s.number, ids, part, text),
                doc_id=doc.doc_id,
                session=s.number,
                part=part,
                element_ids=ids,
                page_first=min(e.page_first for e in els),
                page_last=max(e.page_last for e in els),
                breadcrumb=_breadcrumb(doc, stacks, atoms, start, end),
                text=text,
                chars=len(text),
                header_chars=len(head),
                sep_before=atoms[start].sep if start else "",
                continuation=not atoms[start].first,
                has_more=not atoms[end - 1].last,
                starts_at="session" if start == 0 else _cut_at(atoms, start),
                ends_at="session" if end == len(atoms) else _cut_at(atoms, end),
            )
        )
    return chunks


def rag_chunks(
    doc: Document,
    plan: Plan,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    algorithm: Algorithm = "hierarchical",
) -> list[RagChunk]:
    """Retrieval chunks of every session, in document order; pure and deterministic."""
    if max_chars < MIN_MAX_CHARS:
        raise InputError(f"max_chars must be at least {MIN_MAX_CHARS}, got {max_chars}")
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; expected one of {ALGORITHMS}")
    stacks = _heading_stacks(doc)
    chunks: list[RagChunk] = []
    for s in sessions_of(doc, plan):
        chunks += _session_chunks(doc, s, stacks, max_chars, algorithm)
    return link(chunks)


def link(chunks: list[RagChunk]) -> list[RagChunk]:
    """Fill prev_id / next_id in document order."""
    out = []
    for i, c in enumerate(chunks):
        out.append(
            c.model_copy(
                update={
                    "prev_id": chunks[i - 1].id if i else None,
                    "next_id": chunks[i + 1].id if i + 1 < len(chunks) else None,
                }
            )
        )
    return out


def session_text(doc: Document, chunk: ChunkPlan) -> str:
    """A session's text: its elements' texts joined by a blank line."""
    index = {e.id: i for i, e in enumerate(doc.elements)}
    part = doc.elements[index[chunk.first_id] : index[chunk.last_id] + 1]
    return ELEMENT_JOIN.join(e.text for e in part)
