"""Choi-style topic-segmentation documents built from real text, and how to score a
segmentation of them.

A Choi-style document (Choi 2000) is a concatenation of segments taken from different
texts, so its true topic switches are known exactly. Here segments are runs of consecutive
*body paragraphs* (no headings, no title-like short lines, no code, lists or tables) of
6-11 pages each (words / 400, as for DOCX), in two variants:

- "documents": every segment from a different document of the corpus;
- "chapters": every segment from a different chapter (level-1 heading) of one book.

`build_choi` is pure (text pools in, a `ChoiDocument` with its true boundaries out);
`corpus_pools` reads the pools from the shared corpus; `write_docx` turns a document into
a DOCX made of plain body paragraphs, as a user would feed Quire. Metrics: recall of the
true switches within a tolerance in words, Pk and WindowDiff (NLTK's implementations, on
one boundary flag per word gap).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from quire.shared.ir import WORDS_PER_PAGE, Document
from quire.shared.text import count_words
from quire.workers.boundaries.candidates import looks_like_title, plain_text

Variant = Literal["documents", "chapters"]
MIN_PARAGRAPH_WORDS = 20  # shorter paragraphs are captions, labels, one-liners
MAX_PARAGRAPH_WORDS = 600  # longer ones are extraction accidents (a whole page as one block)
_NOT_A_CHAPTER = re.compile(r"\b(contents|index)\b", re.IGNORECASE)


class Segment(BaseModel):
    source: str  # the document (and chapter) the paragraphs come from
    first: int  # index of the segment's first paragraph in the Choi document
    paragraphs: int
    words: int

    @property
    def pages(self) -> float:
        return self.words / WORDS_PER_PAGE


class ChoiDocument(BaseModel):
    name: str
    variant: Variant
    seed: int
    paragraphs: list[str]
    segments: list[Segment]

    def boundaries(self) -> list[int]:
        """Paragraph indices after which a new segment begins (the true switches)."""
        return [s.first - 1 for s in self.segments[1:]]

    def word_ends(self) -> list[int]:
        """Cumulative word count after each paragraph."""
        return list(accumulate(count_words(p) for p in self.paragraphs))

    def switch_positions(self) -> list[int]:
        """The true switches as word offsets (words before the switch)."""
        ends = self.word_ends()
        return [ends[b] for b in self.boundaries()]


# ---------------------------------------------------------------------------------------
# Building


def body_paragraphs(doc: Document) -> list[tuple[str, str]]:
    """(chapter, text) of every body paragraph of a parsed document, in reading order; the
    chapter is the text of the last level-1 heading before it ("" before the first)."""
    chapter = ""
    out: list[tuple[str, str]] = []
    for e in doc.elements:
        if e.type == "heading" and e.level == 1:
            chapter = plain_text(e)
        elif e.type == "paragraph" and not looks_like_title(e.text):
            text = plain_text(e)
            if MIN_PARAGRAPH_WORDS <= count_words(text) <= MAX_PARAGRAPH_WORDS:
                out.append((chapter, text))
    return out


def build_choi(
    pools: Mapping[str, Sequence[str]],
    *,
    variant: Variant,
    seed: int,
    segments: int = 10,
    min_pages: float = 6,
    max_pages: float = 11,
    name: str | None = None,
) -> ChoiDocument:
    """`segments` segments (fewer if fewer pools are large enough), each from a different
    pool (pool name -> consecutive body paragraphs), each min_pages..max_pages long, in a
    random order. Deterministic for a given seed."""
    rng = random.Random(seed)
    lo, hi = min_pages * WORDS_PER_PAGE, max_pages * WORDS_PER_PAGE
    sizes = {k: [count_words(p) for p in v] for k, v in pools.items()}
    usable = sorted(k for k, s in sizes.items() if sum(s) >= lo)
    if len(usable) < 2:
        raise ValueError(f"need two pools of at least {lo:.0f} words, have {usable}")
    chosen = rng.sample(usable, min(segments, len(usable)))
    paragraphs: list[str] = []
    out: list[Segment] = []
    for source in chosen:
        counts = sizes[source]
        target = rng.uniform(lo, min(hi - WORDS_PER_PAGE / 2, sum(counts)))
        # a start from which the target can be reached
        tail = list(accumulate(reversed(counts)))[::-1]
        start = rng.choice([i for i, t in enumerate(tail) if t >= target])
        words, end = 0, start
        while end < len(counts) and words < target and words + counts[end] <= hi:
            words += counts[end]
            end += 1
        out.append(
            Segment(source=source, first=len(paragraphs), paragraphs=end - start, words=words)
        )
        paragraphs.extend(pools[source][start:end])
    return ChoiDocument(
        name=name or f"choi-{variant}-{seed}",
        variant=variant,
        seed=seed,
        paragraphs=paragraphs,
        segments=out,
    )


def pools_by_document(docs: Mapping[str, Document]) -> dict[str, list[str]]:
    return {name: [t for _, t in body_paragraphs(doc)] for name, doc in docs.items()}


def pools_by_chapter(doc: Document, name: str) -> dict[str, list[str]]:
    """One pool per chapter; contents and index pages are not chapters."""
    pools: dict[str, list[str]] = {}
    for chapter, text in body_paragraphs(doc):
        if _NOT_A_CHAPTER.search(chapter):
            continue
        pools.setdefault(f"{name} / {chapter or '(front matter)'}", []).append(text)
    return pools


def corpus_pools(corpus: Path, names: Sequence[str]) -> dict[str, Document]:
    """The parsed IR of each named corpus file."""
    from quire.workers.parse import parse_document

    return {name: parse_document(corpus / name).document for name in names}


def write_docx(doc: ChoiDocument, path: Path) -> Path:
    """A DOCX of plain Normal-style paragraphs: no headings, nothing but body text."""
    import docx

    document = docx.Document()
    for text in doc.paragraphs:
        document.add_paragraph(text)
    document.core_properties.title = doc.name
    document.save(str(path))
    return path


# ---------------------------------------------------------------------------------------
# Scoring a segmentation (positions are word offsets of boundaries)


def recall_within(truth: Sequence[int], found: Sequence[int], tolerance: int) -> float:
    """Share of the true boundaries with a found boundary at most `tolerance` words away;
    each found boundary can account for one true boundary only."""
    free = sorted(found)
    hits = 0
    for t in sorted(truth):
        near = [f for f in free if abs(f - t) <= tolerance]
        if near:
            free.remove(min(near, key=lambda f: abs(f - t)))
            hits += 1
    return hits / len(truth) if truth else 1.0


def boundary_string(positions: Sequence[int], total_words: int) -> str:
    """One flag per word: '1' where a boundary follows that word (NLTK's convention)."""
    flags = ["0"] * total_words
    for p in positions:
        if 0 < p < total_words:
            flags[p - 1] = "1"
    return "".join(flags)


def half_mean_segment(truth: Sequence[int], total_words: int) -> int:
    """The usual window for Pk and WindowDiff: half the mean true segment length."""
    return max(2, round(total_words / (len(truth) + 1) / 2))


def pk(truth: Sequence[int], found: Sequence[int], total_words: int) -> float:
    from nltk.metrics.segmentation import pk as nltk_pk

    k = half_mean_segment(truth, total_words)
    return float(
        nltk_pk(boundary_string(truth, total_words), boundary_string(found, total_words), k=k)
    )


def windowdiff(truth: Sequence[int], found: Sequence[int], total_words: int) -> float:
    from nltk.metrics.segmentation import windowdiff as nltk_wd

    k = half_mean_segment(truth, total_words)
    return float(
        nltk_wd(boundary_string(truth, total_words), boundary_string(found, total_words), k)
    )
