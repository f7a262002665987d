"""The book's own index, found, read and parsed once per document, and made key terms.

    index_pages(doc) -> read_book_index(doc, pdf) -> BookIndexData (stored as JSON)
      -> session_terms(doc, data) -> SessionTerms.terms(lo, hi) per session

A glossary (a "term: definition" list under a title like "Glossary", "术语表", "واژه‌نامه")
is read from the IR, so a DOCX's counts too; its terms land wherever the book says them.
The index is found in the IR: a heading named like an index ("Index", "Concept index",
"索引", "Предметный указатель", "نمایه") inside the back matter (or a top-level one in the
last 40 % of the book), to the next heading of its level; or, without such a heading, a
back-matter region the matter finder labelled an index. Its lines are read again from the
PDF (the IR keeps no per-locator styles), with the PDF's page labels. A DOCX has no printed
pages, so it gets key phrases.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from quire.shared.ir import Document
from quire.workers.analysis.book_index import IndexEntry, parse_index
from quire.workers.analysis.page_labels import page_labels
from quire.workers.analysis.session_terms import IndexPlacement, SessionTerms
from quire.workers.boundaries.candidates import plain_text
from quire.workers.boundaries.matter import find_matter, title_matter

log = logging.getLogger(__name__)
MAX_GLOSSARY_TERMS = 500
# "term: definition", "term — definition": a glossary line names its term first
_DEFINED = re.compile(r"^\W*(?P<term>[^:—–\n]{2,60}?)\s*(?::|—|–|\s-\s)\s+\S")
CLOSING_SHARE = 0.6  # a top-level heading this far into the book may title its index


class BookIndexData(BaseModel):
    """What the planning step stores of a book's index (`work/.../book-index.json`)."""

    model_config = ConfigDict(extra="forbid")

    pages: list[int] = []  # physical pages the index is printed on
    labels: list[str] = []  # every page's PDF page label ("" where none)
    entries: list[IndexEntry] = []
    glossary: list[str] = []  # the terms a glossary defines (it has no page numbers)


def index_spans(doc: Document, label: str = "index") -> list[tuple[int, int]]:
    """Element position ranges (inclusive) of the document's indexes (or glossaries)."""
    els = doc.elements
    pos = {e.id: i for i, e in enumerate(els)}
    back = [
        (pos[r.first_id], pos[r.last_id], r.label)
        for r in find_matter(doc)
        if r.kind == "back_matter"
    ]
    top = min((e.level or 1 for e in els if e.type == "heading"), default=1)
    last_page = max((e.page_last for e in els), default=1)
    spans: list[tuple[int, int]] = []
    for i, e in enumerate(els):
        if e.type != "heading":
            continue
        closing = (e.level or 1) == top and e.page_first >= CLOSING_SHARE * last_page
        if not (closing or any(a <= i <= b for a, b, _ in back)):
            continue  # "Index" as a section of the body (gnuplot's plot option) is none
        found = title_matter(plain_text(e))
        if found and found[1] == label:
            level = e.level or 1
            end = next(
                (j - 1 for j in range(i + 1, len(els)) if els[j].type == "heading"
                 and (els[j].level or 1) <= level),
                len(els) - 1,
            )  # fmt: skip
            spans.append((i, end))
    if not spans:
        spans = [(a, b) for a, b, labels in back if label in labels.split(" and ")]
    return spans


def index_pages(doc: Document) -> list[int]:
    """The physical pages the document's index is printed on (none for a DOCX)."""
    if doc.page_basis != "pdf":
        return []
    els = doc.elements
    return sorted(
        {p for a, b in index_spans(doc) for e in els[a : b + 1]
         for p in e.page_numbers}
    )  # fmt: skip


def glossary_terms(doc: Document) -> list[str]:
    """The terms the document's glossaries define: a line or list item "term: definition"
    (or "term — definition"), or a heading over its definition."""
    els = doc.elements
    terms: dict[str, None] = {}
    for a, b in index_spans(doc, "glossary"):
        for e in els[a + 1 : b + 1]:
            lines = e.items if e.type == "list" and e.items else [plain_text(e)]
            for line in lines:
                m = _DEFINED.match(line.lstrip("-*• "))
                term = plain_text(e) if e.type == "heading" else (m.group("term") if m else "")
                if term.strip() and len(terms) < MAX_GLOSSARY_TERMS:
                    terms[term.strip()] = None
    return list(terms)


def read_book_index(doc: Document, pdf: Path | None) -> BookIndexData:
    """The book's index, read from its PDF (`pdf` None or a DOCX: no index), and the
    terms of its glossary (from the IR)."""
    glossary = glossary_terms(doc)
    pages = index_pages(doc) if pdf is not None else []
    if not pages or pdf is None:
        return BookIndexData(glossary=glossary)
    from quire.workers.parse.pdf_index_lines import read_index_pages, read_page_labels

    skip: dict[int, list[str]] = {}
    for r in doc.removed:
        skip.setdefault(r.page, []).append(r.text)
    try:
        entries = parse_index(read_index_pages(pdf, pages), skip)
        labels = read_page_labels(pdf)
    except Exception as exc:  # a broken index page or label tree: key phrases will do
        log.warning("%s: index pages %s unreadable (%s); key phrases instead", doc.source_name,
                    f"{pages[0]}-{pages[-1]}", exc)  # fmt: skip
        return BookIndexData(glossary=glossary)
    return BookIndexData(pages=pages, labels=labels, entries=entries, glossary=glossary)


def session_terms(doc: Document, data: BookIndexData | None = None) -> SessionTerms:
    """The key-term source of `doc`: its index and glossary when it has them, else key
    phrases."""
    out = SessionTerms(doc.elements)
    if data is None:
        return out
    skip = index_spans(doc)
    if data.entries:
        labels = page_labels(doc.page_count, data.labels, doc.removed)
        out.placements.append(IndexPlacement.of(doc, data.entries, labels, skip=skip))
    if data.glossary:
        skip += index_spans(doc, "glossary")
        out.placements.append(IndexPlacement.of_glossary(doc, data.glossary, skip=skip))
    out.placements = [p for p in out.placements if p.terms]
    return out
