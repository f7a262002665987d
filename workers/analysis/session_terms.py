"""Each session's key terms: the author's indexed terms it covers, else its key phrases.

An index locator names a printed page; `PageLabels` turns it into physical pages, and on
each page the term lands on the element whose text holds it (folded: case, accents and
punctuation ignored), else on the page's longest element. So a page shared by two
sessions gives the term to the one that says it. A session's key terms are the entries
landing inside its element range, ordered by how much of the term the session holds
(defining occurrences first). A glossary's terms (it has no page numbers) land on every
element that says them. A session no entry lands in, or a book with neither, gets key
phrases instead (`key_phrases`). Everything here is pure and plan-independent:
a session's terms follow from its element range alone.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from quire.shared.ir import Document, Element
from quire.shared.plan import KeyTerm, KeyTermSource, Plan
from quire.workers.analysis.book_index import IndexEntry
from quire.workers.analysis.key_phrases import PhraseIndex
from quire.workers.analysis.page_labels import PageLabels
from quire.workers.boundaries.candidates import plain_text
from quire.workers.boundaries.matter_titles import cyrillic_from_latin1

_NOT_WORD = re.compile(r"[\W_]+")


def fold(text: str) -> str:
    """Text for "does it say this term": NFKC, case-folded, letters and digits only."""
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text).casefold())


def shown(term: str) -> str:
    """A term as a person reads it (Cyrillic that its PDF's fonts gave as Latin-1,
    "ïàêåò", is shown as "пакет")."""
    return cyrillic_from_latin1(term) or term


def shown_entry(entry: IndexEntry) -> str:
    """An entry as shown: "пакет (amsmath)" from "ïàêåò" and "amsmath"."""
    return f"{shown(entry.parent)} ({shown(entry.term)})" if entry.parent else shown(entry.term)


@dataclass
class IndexPlacement:
    """Where the index's entries land among the document's elements."""

    terms: list[str]  # entry number -> its term as shown
    totals: list[int]  # entry number -> pages it lands on in the whole document
    source: KeyTermSource = "index"
    positions: array[int] = field(default_factory=lambda: array("i"))  # ascending
    entry: array[int] = field(default_factory=lambda: array("i"))  # same order
    defining: array[int] = field(default_factory=lambda: array("b"))
    unplaced: int = 0  # locator pages with no element to land on

    @classmethod
    def of(
        cls,
        doc: Document,
        entries: Sequence[IndexEntry],
        labels: PageLabels,
        skip: Sequence[tuple[int, int]] = (),
    ) -> IndexPlacement:
        """`skip`: element position ranges (inclusive) no term may land in (the index)."""
        on_page = _elements_by_page(doc.elements, skip)
        folded: dict[int, str] = {}
        hits: list[tuple[int, int, bool]] = []
        out = cls(terms=[], totals=[])
        for e in entries:
            if not e.locators:
                continue
            number = len(out.terms)
            keys = [k for k in (fold(e.term), fold(e.parent or "")) if k]
            landed = 0
            for loc in e.locators:
                for page in labels.span(loc.first, loc.last):
                    pos = _landing(doc.elements, on_page.get(page, []), keys, folded)
                    if pos is None:
                        out.unplaced += 1
                        continue
                    hits.append((pos, number, loc.defining))
                    landed += 1
            out.terms.append(shown_entry(e))
            out.totals.append(landed)
        out._set(hits)
        return out

    @classmethod
    def of_glossary(
        cls, doc: Document, terms: Sequence[str], skip: Sequence[tuple[int, int]] = ()
    ) -> IndexPlacement:
        """A glossary's terms land on every element that says them (a glossary has no
        page numbers); `skip`: the glossary itself and the index."""
        keys = [fold(t) for t in terms]
        out = cls(terms=[shown(t) for t in terms], totals=[0] * len(terms), source="glossary")
        hits: list[tuple[int, int, bool]] = []
        for pos, e in enumerate(doc.elements):
            if e.type == "image" or any(a <= pos <= b for a, b in skip):
                continue
            text = fold(plain_text(e))
            for number, key in enumerate(keys):
                if key and key in text:
                    hits.append((pos, number, False))
                    out.totals[number] += 1
        out._set(hits)
        return out

    def _set(self, hits: list[tuple[int, int, bool]]) -> None:
        hits.sort()
        self.positions = array("i", (h[0] for h in hits))
        self.entry = array("i", (h[1] for h in hits))
        self.defining = array("b", (h[2] for h in hits))

    def terms_in(self, lo: int, hi: int) -> list[KeyTerm]:
        """The entries landing in elements lo..hi (positions, inclusive), best first."""
        a = bisect.bisect_left(self.positions, lo)
        b = bisect.bisect_right(self.positions, hi)
        count: Counter[int] = Counter(self.entry[a:b])
        defining = {self.entry[i] for i in range(a, b) if self.defining[i]}
        terms = [
            KeyTerm(
                term=self.terms[n],
                count=k,
                weight=round(k / max(self.totals[n], 1), 4),
                defining=n in defining,
                source=self.source,
            )
            for n, k in count.items()
        ]
        # defining first, then words before bare symbols ("!=", "%o%"), then the terms
        # this session holds most of
        terms.sort(
            key=lambda t: (
                not t.defining,
                not any(c.isalpha() for c in t.term),
                -t.weight,
                -t.count,
                t.term.casefold(),
            )
        )
        # the same words under two entries ("arrows", "arrows (extensible)") show once
        seen: set[str] = set()
        unique = []
        for t in terms:
            if t.term not in seen:
                seen.add(t.term)
                unique.append(t)
        return unique


def _elements_by_page(
    elements: Sequence[Element], skip: Sequence[tuple[int, int]]
) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for pos, e in enumerate(elements):
        if any(a <= pos <= b for a, b in skip) or e.type == "image":
            continue
        for page in e.page_numbers:
            out.setdefault(page, []).append(pos)
    return out


def _landing(
    elements: Sequence[Element], here: Sequence[int], keys: Sequence[str], folded: dict[int, str]
) -> int | None:
    """The element on a page that says the term, else the page's longest one."""
    if not here:
        return None
    for key in keys:
        for pos in here:
            text = folded.get(pos)
            if text is None:
                text = folded[pos] = fold(plain_text(elements[pos]))
            if key in text:
                return pos
    return max(here, key=lambda pos: (elements[pos].word_count, -pos))


@dataclass
class SessionTerms:
    """A document's key-term source: where its index's and glossary's terms land, and its
    key phrases (built on first use: a book with an index rarely needs them)."""

    elements: Sequence[Element]
    placements: list[IndexPlacement] = field(default_factory=list)  # index, then glossary
    _phrases: PhraseIndex | None = None
    # A session's terms are asked for again (its analysis context, then its plan entry).
    _known: dict[tuple[int, int], list[KeyTerm]] = field(default_factory=dict)

    def phrases(self) -> PhraseIndex:
        if self._phrases is None:
            self._phrases = PhraseIndex.of(self.elements)
        return self._phrases

    def terms(self, lo: int, hi: int) -> list[KeyTerm]:
        """Key terms of the elements lo..hi (positions, inclusive): the index's, then the
        glossary's it does not repeat, else key phrases."""
        known = self._known.get((lo, hi))
        if known is None:
            found: list[KeyTerm] = []
            for placement in self.placements:
                seen = {t.term.casefold() for t in found}
                found += [t for t in placement.terms_in(lo, hi) if t.term.casefold() not in seen]
            known = self._known[lo, hi] = found or self.phrases().top(lo, hi)
        return list(known)


def with_key_terms(plan: Plan, terms: SessionTerms, positions: dict[str, int]) -> Plan:
    """`plan` with every study session's key terms (reference sessions get none)."""
    chunks = [
        c.model_copy(
            update={
                "key_terms": terms.terms(positions[c.first_id], positions[c.last_id])
                if c.kind == "study"
                else []
            }
        )
        for c in plan.chunks
    ]
    return plan.model_copy(update={"chunks": chunks})
