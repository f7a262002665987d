"""What a study index is written from: the verified metadata of every session (its pages,
words, study time, analysis, where it ends and why), refused while an analysis is missing,
stale or awaiting repair."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from itertools import groupby
from typing import Literal

from pydantic import BaseModel, ConfigDict

from quire.shared.analysis import (
    INDEX_FILES,
    WORDS_PER_MINUTE,
    ChunkAnalysis,
)
from quire.shared.errors import ValidationFailedError
from quire.shared.ir import Document, describe_textless
from quire.shared.manifest import Manifest, ManifestChunk
from quire.shared.pages import PageRange
from quire.shared.plan import ChunkKind
from quire.workers.analysis.heuristic import clean_heading
from quire.workers.boundaries.candidates import plain_text

INDEX_KEY_TERMS = 6  # key terms a study index row names
# The study map groups sessions by the sections they start in, at the top heading level
# whose largest group holds at most this share of them (with this many sessions or more);
# a level below the top must also leave groups of more than one session on average, and
# few sessions before its first heading (in no section)
MAP_SHARE = 2 / 3
MAP_GROUPS_SHARE = 3 / 4
MAP_OPENING_SHARE = 1 / 4
MAP_MIN_SESSIONS = 4


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class IndexChunk(PageRange, _Model):
    chunk: int
    file: str  # the link target for this chunk (its Markdown file, else its PDF)
    files: list[str]  # every chunk file (md and/or pdf); a link to any of them counts
    title: str
    topic_en: str
    topic_fa: str
    study_focus_en: str
    study_focus_fa: str
    page_first: int
    page_last: int
    words: int
    minutes: int
    coherence: str
    heuristic: bool
    continues: bool  # ends at a forced cut: the next chunk continues its concept
    section: str | None = None  # the section grouping the chunk in the study map
    ends: str = ""  # why the chunk ends where it does (and the alternative it beat)
    key_terms: list[str] = []  # the session's first key terms (the author's index terms)


class ReferenceChunk(PageRange, _Model):
    """A reference session (front or back matter): linked, never studied."""

    chunk: int
    kind: ChunkKind
    file: str
    files: list[str]
    title: str
    page_first: int
    page_last: int
    ends: str = ""


class IndexContext(PageRange, _Model):
    doc_id: str
    source_name: str
    page_count: int
    page_basis: Literal["pdf", "words", "print"]
    words_per_minute: int
    chunk_count: int
    total_words: int
    total_minutes: int
    page_first: int
    page_last: int
    persian_available: bool  # every chunk has Persian topic and focus
    # pages that ended without text, one line ("3 pages without text: 5, 6, 18 — scanned,
    # OCR off"); "" when every page has text
    pages_without_text: str = ""
    unread: list[int] = []  # chunks the agent has not read (commit-index refuses them)
    files: dict[str, str] = dict(INDEX_FILES)
    chunks: list[IndexChunk]  # the study sessions
    reference: list[ReferenceChunk] = []  # front and back matter: no study time or focus
    rules: list[str] = [
        "link every chunk file (study and reference sessions) from each of the three files; "
        "link nothing else except the three index files and #anchors",
        "in both study indexes, the line linking a chunk states its minutes as 'N min' (or "
        "'N دقیقه'), and the file states the total study time the same way",
        "study-index-fa.md is written in Persian",
        "when pages_without_text is not empty, study-index-en.md states it word for word",
    ]


def reading_minutes(words: int, words_per_minute: int = WORDS_PER_MINUTE) -> int:
    return max(1, math.ceil(words / words_per_minute))


def _sections(doc: Document, starts: Sequence[str]) -> dict[str, str]:
    """first_id -> the section grouping the session starting there in the study map: the
    heading in effect there of the top level, or of the first level below it that groups
    the sessions (see `MAP_SHARE`): a book whose one top-level heading is its title is
    grouped by its chapters."""
    levels = sorted({e.level or 1 for e in doc.elements if e.type == "heading"})
    if not levels:
        return {}
    top = _in_effect(doc, starts, levels[0])
    n = len(starts)
    if n < MAP_MIN_SESSIONS:
        return top
    for level in levels:
        sections = top if level == levels[0] else _in_effect(doc, starts, level)
        runs = [len(list(g)) for _, g in groupby(sections.get(s) for s in starts)]
        divides = max(runs) <= MAP_SHARE * n
        if level == levels[0] and divides:
            return sections
        opening = sum(s not in sections for s in starts)
        if divides and len(runs) <= MAP_GROUPS_SHARE * n and opening <= MAP_OPENING_SHARE * n:
            return sections
    return top


def _in_effect(doc: Document, starts: Sequence[str], level: int) -> dict[str, str]:
    """first_id -> the last heading of `level` or above where the session's text begins
    (after the headings it opens with: "Title", "1 Chapter" starts chapter 1)."""
    out: dict[str, str] = {}
    current: str | None = None
    wanted = set(starts)
    pending: str | None = None  # a session whose text has not begun yet
    for e in doc.elements:
        if e.id in wanted:
            if pending and current:  # a session of headings only
                out[pending] = current
            pending = e.id
        if e.type == "heading":
            if (e.level or 1) <= level:
                current = clean_heading(plain_text(e))
            continue
        if pending and current:
            out[pending] = current
        pending = None
    if pending and current:
        out[pending] = current
    return out


def _ends(c: ManifestChunk) -> str:
    """Why the chunk ends where it does, with the alternative it beat (the global plan's
    reasons already name it; a decider's reason may not)."""
    if c.end_reason == "end of document":
        return "the document ends"
    if c.end_alternative and "rather than" not in c.end_reason:
        return f"{c.end_reason}; rather than {c.end_alternative}"
    return c.end_reason


def _chunk_files(c: ManifestChunk) -> list[str]:
    files = [f for f in (c.markdown_file, c.pdf_file) if f]
    if not files:
        raise ValidationFailedError(f"chunk {c.number} has no chunk file to link")
    return files


def index_context(
    manifest: Manifest,
    analyses: Mapping[int, ChunkAnalysis],
    *,
    words_per_minute: int = WORDS_PER_MINUTE,
    doc: Document | None = None,
    pending_repair: Collection[int] = (),
    read: Collection[int] | None = None,
) -> IndexContext:
    """The verified metadata an index is written from.

    Refused (ValidationFailedError) while a chunk has no committed analysis, an analysis
    belongs to another element range, or a chunk awaits repair (`pending_repair`). `read`:
    the chunks an agent has read (`get-chunk` / `analysis-context`); None = not tracked.
    `doc` (optional) lets the heuristic map group chunks by their top-level section."""
    if words_per_minute < 1:
        raise ValueError("words_per_minute must be at least 1")
    study = [c for c in manifest.chunks if c.kind == "study"]
    problems = _refusals(manifest, study, analyses, pending_repair)
    if problems:
        raise ValidationFailedError("indexes refused: " + "; ".join(problems))
    sections = _sections(doc, [c.first_id for c in study]) if doc else {}
    chunks = [
        _index_chunk(c, analyses[c.number], words_per_minute, sections.get(c.first_id))
        for c in study
    ]
    reference = [_reference_chunk(c) for c in manifest.chunks if c.kind != "study"]
    numbers = [c.chunk for c in chunks]
    return IndexContext(
        doc_id=manifest.doc_id,
        source_name=manifest.source_name,
        page_count=manifest.page_count,
        page_basis=manifest.page_basis,
        words_per_minute=words_per_minute,
        chunk_count=len(chunks),
        total_words=sum(c.words for c in chunks),
        total_minutes=sum(c.minutes for c in chunks),
        page_first=min((c.page_first for c in manifest.chunks), default=0),
        page_last=max((c.page_last for c in manifest.chunks), default=0),
        persian_available=all(analyses[c.chunk].has_persian for c in chunks),
        pages_without_text=describe_textless(doc.skipped_pages) if doc else "",
        unread=[] if read is None else sorted(set(numbers) - set(read)),
        chunks=chunks,
        reference=reference,
    )


def _refusals(
    manifest: Manifest,
    study: list[ManifestChunk],
    analyses: Mapping[int, ChunkAnalysis],
    pending_repair: Collection[int],
) -> list[str]:
    """Why no index can be written yet: analyses missing or stale, repairs pending."""
    problems = []
    missing = [c.number for c in study if c.number not in analyses]
    if missing:
        problems.append(f"chunks without a committed analysis: {missing}")
    for c in study:
        a = analyses.get(c.number)
        if a is not None and (a.first_id, a.last_id) != (c.first_id, c.last_id):
            problems.append(
                f"the analysis of chunk {c.number} is for {a.first_id}.."
                f"{a.last_id}, not {c.first_id}..{c.last_id}"
            )
    pending = sorted(set(pending_repair) & {c.number for c in manifest.chunks})
    if pending:
        problems.append(f"chunks awaiting repair: {pending}")
    return problems


def _index_chunk(
    c: ManifestChunk, a: ChunkAnalysis, words_per_minute: int, section: str | None
) -> IndexChunk:
    files = _chunk_files(c)
    return IndexChunk(
        chunk=c.number,
        file=files[0],
        files=files,
        **c.model_dump(include={"title", "page_first", "page_last", "continues"}),
        **a.model_dump(
            include={
                "topic_en",
                "topic_fa",
                "study_focus_en",
                "study_focus_fa",
                "coherence",
                "heuristic",
            }
        ),
        words=c.word_count,
        minutes=reading_minutes(c.word_count, words_per_minute),
        section=section,
        ends=_ends(c),
        key_terms=[t.term for t in c.key_terms[:INDEX_KEY_TERMS]],
    )


def _reference_chunk(c: ManifestChunk) -> ReferenceChunk:
    return ReferenceChunk(
        chunk=c.number,
        kind=c.kind,
        file=_chunk_files(c)[0],
        files=_chunk_files(c),
        title=c.title,
        page_first=c.page_first,
        page_last=c.page_last,
        ends=_ends(c),
    )
