"""Checks on retrieval chunks written independently of `workers.rag.verify` (the tests
must not prove the chunker right with the chunker's own verifier alone)."""

from __future__ import annotations

import itertools
import re

from quire.shared.ir import Document
from quire.shared.plan import Plan
from quire.shared.rag import RagChunk

_SENTENCE_END = re.compile(r"[.!?…؟][\"'”’»)\]]*$")
# The boundary kinds allowed inside an element of each type (besides "word"/"char").
INSIDE = {
    "paragraph": "sentence",
    "caption": "sentence",
    "table": "row",
    "list": "item",
    "code": "line",
    "formula": "line",
}


def rebuild(chunks: list[RagChunk], session: int) -> str:
    """The concatenation rule: separators and bodies (repeated headers removed), in order."""
    return "".join(c.sep_before + c.text[c.header_chars :] for c in chunks if c.session == session)


def session_texts(doc: Document, plan: Plan) -> dict[int, str]:
    index = {e.id: i for i, e in enumerate(doc.elements)}
    return {
        c.number: "\n\n".join(
            e.text for e in doc.elements[index[c.first_id] : index[c.last_id] + 1]
        )
        for c in plan.chunks
    }


def holders(chunks: list[RagChunk]) -> dict[str, list[RagChunk]]:
    by_el: dict[str, list[RagChunk]] = {}
    for c in chunks:
        for i in c.element_ids:
            by_el.setdefault(i, []).append(c)
    return by_el


def whole_units_kept(doc: Document, chunks: list[RagChunk]) -> list[str]:
    """Rows and items of every split table / list are whole in one chunk, unless a chunk
    holding that element declares a word or character split."""
    problems = []
    by_el = holders(chunks)
    for el in doc.elements:
        held = by_el.get(el.id, [])
        if el.type not in ("table", "list") or len(held) < 2:
            continue
        if any(c.ends_at in ("word", "char") for c in held):
            continue
        lines = el.text.split("\n")
        units = lines[2:] if el.type == "table" else [ln for ln in lines if not ln.startswith(" ")]
        for u in units:
            if not any(u in c.text.split("\n") for c in held):
                problems.append(f"{el.id}: {u[:40]!r} is broken")
    return problems


def cut_problems(doc: Document, chunks: list[RagChunk], max_chars: int) -> list[str]:
    """Every cut inside an element is of the element's own kind (sentence, row, item, line)
    or a declared word/character split; a sentence cut follows sentence-ending punctuation;
    no chunk over the cap; no chunk ends with a whole heading before its session's end."""
    by_id = doc.by_id()
    problems = [
        f"{c.id}: {c.chars} characters"
        for c in chunks
        if c.chars != len(c.text) or c.chars > max_chars
    ]
    for prev, c in itertools.pairwise(chunks):
        if prev.ends_at != c.starts_at:
            problems.append(f"{prev.id}: ends_at {prev.ends_at}, next starts_at {c.starts_at}")
        if not c.continuation:
            last = by_id[prev.element_ids[-1]]
            # (an empty element is invisible: a chunk of headings may hold one)
            only_headings = all(
                by_id[i].type == "heading" or not by_id[i].text for i in prev.element_ids
            )
            if prev.session == c.session and last.type == "heading" and not only_headings:
                problems.append(f"{prev.id} ends with a heading")
            continue
        el = by_id[c.element_ids[0]]
        if c.starts_at in ("word", "char"):
            continue
        if c.starts_at != INSIDE.get(el.type):
            problems.append(f"{c.id}: a {el.type} cut at a {c.starts_at} boundary")
        if c.starts_at == "sentence" and not _SENTENCE_END.search(prev.text):
            problems.append(f"{prev.id}: sentence cut after {prev.text[-30:]!r}")
    return problems
