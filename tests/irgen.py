"""Synthetic IR documents for tests: small builders and hypothesis strategies.

Builders make hand-written IRs short to write::

    doc = build_doc([heading("1 Intro", 1), para(words(200), page=1), table(page=2)])

Strategies generate whole documents (random element types, monotone page spans, sizes from
empty to huge single elements, one-page documents, PDF or DOCX page basis) and review
outcomes for their candidates.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from collections.abc import Mapping, Sequence
from typing import Literal

from hypothesis import strategies as st

from quire.shared import markdown
from quire.shared.ir import (
    Document,
    Element,
    ElementType,
    ImageRef,
    assign_ids,
    layout_words,
    make_element,
)
from quire.shared.plan import (
    REVIEW_ROLES,
    Candidate,
    Plan,
    ReviewFailure,
    ReviewOutcome,
    ReviewRole,
    ReviewVote,
)
from quire.workers.boundaries.candidates import is_safe_gap

# Three disjoint vocabularies, so generated text can change topic measurably.
_LETTERS = "bcdfghjklmnprstvz"
_VOWELS = "aeiou"
TOPICS: list[list[str]] = []
_all = ["".join(p) for p in itertools.product(_LETTERS, _VOWELS, _LETTERS, _VOWELS)]
for _t in range(3):
    TOPICS.append(_all[_t * 400 : (_t + 1) * 400])


# Words per generated element: 9,000 words run past any page cap on the "words" basis.
_SIZES = (0, 3, 20, 60, 150, 400, 900, 3000, 9000)


@functools.lru_cache(maxsize=8192)  # deterministic; property tests draw the same texts often
def words(n: int, topic: int = 0, seed: int = 0) -> str:
    """n deterministic pseudo-words drawn from topic `topic`'s vocabulary."""
    vocab = TOPICS[topic % len(TOPICS)]
    # A simple LCG: varied but reproducible, and cheap for 100k-element documents.
    x = seed * 7919 + topic * 104729 + n
    out = []
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(vocab[(x >> 8) % len(vocab)])
    return " ".join(out)


def _image_ref(key: str) -> ImageRef:
    digest = hashlib.sha256(key.encode()).hexdigest()
    return ImageRef(sha256=digest, file=f"images/{digest}.png", width=10, height=10)


def heading(title: str, level: int = 1, page: int = 1, page_last: int | None = None) -> Element:
    return make_element("heading", markdown.heading(title, level), page, page_last, level=level)


def para(text: str, page: int = 1, page_last: int | None = None) -> Element:
    return make_element("paragraph", text, page, page_last)


def bullets(
    items: Sequence[str], page: int = 1, page_last: int | None = None, ordered: bool = False
) -> Element:
    return make_element(
        "list",
        markdown.bullet_list(items, ordered),
        page,
        page_last,
        items=list(items),
        ordered=ordered,
    )


def table(
    rows: Sequence[Sequence[str]] | None = None, page: int = 1, page_last: int | None = None
) -> Element:
    rows = [list(r) for r in (rows or [["name", "value"], ["alpha", "1"]])]
    return make_element("table", markdown.table(rows), page, page_last, rows=rows)


def image(alt: str = "diagram", page: int = 1, page_last: int | None = None) -> Element:
    ref = _image_ref(f"{alt}-{page}")
    return make_element("image", markdown.image(ref.file, alt), page, page_last, image=ref)


def caption(text: str = "Figure 1: a diagram", page: int = 1) -> Element:
    return make_element("caption", text, page)


def code(body: str = "x <- c(1, 2, 3)", page: int = 1, page_last: int | None = None) -> Element:
    return make_element("code", markdown.code(body, "r"), page, page_last, language="r")


def formula(text: str = "x = a + b", page: int = 1) -> Element:
    return make_element("formula", text, page)


def element(
    type: ElementType, text: str, page: int, page_last: int | None = None, level: int = 2
) -> Element:
    """Any element type with valid required fields; `text` becomes its content."""
    if type == "heading":
        return heading(text or "Untitled", level, page, page_last)
    if type == "list":
        return bullets([text or "item"], page, page_last)
    if type == "table":
        return table([["term", "meaning"], [text or "x", "y"]], page, page_last)
    if type == "image":
        return image(text, page, page_last)
    if type == "code":
        return code(text or "pass", page, page_last)
    return make_element(type, text, page, page_last)


def build_doc(
    elements: Sequence[Element],
    basis: Literal["pdf", "words"] = "pdf",
    doc_id: str = "doc-test",
    name: str = "test.pdf",
) -> Document:
    """A Document with ids assigned in order and a page count that covers every element."""
    els = assign_ids(list(elements))
    pages = max((e.page_last for e in els), default=0)
    return Document(
        doc_id=doc_id,
        source_name=name,
        source_format="pdf" if basis == "pdf" else "docx",
        page_count=pages,
        page_basis=basis,
        elements=els,
    )


def pages_of_paragraphs(
    n_pages: int,
    per_page: int = 2,
    words_each: int = 150,
    topic_every: int | None = None,
    first_page: int = 1,
) -> list[Element]:
    """Plain paragraphs filling `n_pages` pages; the topic changes every `topic_every` pages."""
    out = []
    for p in range(n_pages):
        topic = p // topic_every if topic_every else 0
        for k in range(per_page):
            out.append(para(words(words_each, topic, seed=p * per_page + k), page=first_page + p))
    return out


# ---------------------------------------------------------------------------------------
# Hypothesis strategies

_OTHER_TYPES: list[ElementType] = ["list", "table", "image", "caption", "code", "formula"]
_HEADINGS: list[ElementType] = ["heading"] * 3
_PARAGRAPHS: list[ElementType] = ["paragraph"] * 6
_BASES: list[Literal["pdf", "words"]] = ["pdf", "words"]
_TYPE_WEIGHTS: list[ElementType] = _PARAGRAPHS + _HEADINGS + _OTHER_TYPES


@st.composite
def documents(
    draw: st.DrawFn,
    max_elements: int = 60,
    basis: Literal["pdf", "words"] | None = None,
    max_words: int = 9000,
) -> Document:
    """A random valid document: random element types (headings with random levels, runs
    of headings, captions next to images, ':'-paragraphs before lists), monotone page spans
    with occasional huge elements, sometimes everything on one page. `max_words` caps an
    element's words for tests to whom every size past their own limit behaves alike."""
    page_basis = basis if basis is not None else draw(st.sampled_from(_BASES))
    n = draw(st.integers(min_value=0, max_value=max_elements))
    one_page = draw(st.booleans()) if n else False
    page = 1
    els: list[Element] = []
    topic = 0
    for i in range(n):
        kind = draw(st.sampled_from(_TYPE_WEIGHTS))
        if draw(st.integers(0, 9)) == 0:
            topic += 1
        size = draw(st.sampled_from([n for n in _SIZES if n <= max_words]))
        if one_page:
            step, span = 0, 0
        else:
            step = draw(st.sampled_from([0, 0, 0, 1, 1, 2, 3]))
            span = draw(st.sampled_from([0, 0, 0, 0, 1, 2, 8, 15, 25]))
        page += step if i else 0
        text = words(size, topic, seed=i)
        if kind == "paragraph" and draw(st.integers(0, 5)) == 0:
            text = (text + " as follows:").strip()
        level = draw(st.integers(1, 4))
        els.append(element(kind, text, page, page + span, level=level))
        page += span
    return build_doc(els, basis=page_basis)


def _vote(after_id: str, role: ReviewRole, new_topic: bool, left: str, right: str) -> ReviewVote:
    return ReviewVote(
        after_id=after_id,
        role=role,
        verdict="new_topic" if new_topic else "same_topic",
        confidence=0.8,
        evidence_left=[left],
        evidence_right=[right],
        reason=f"{role} reviewer compared {left} with {right}",
        backend="test",
    )


Decision = Literal["confirmed_change", "continuity", "uncertain", "failed"]
_DECISIONS: list[Decision] = ["confirmed_change", "continuity", "continuity", "uncertain", "failed"]


def outcome(
    c: Candidate,
    decision: Decision,
    roles: Sequence[ReviewRole] = REVIEW_ROLES,
) -> ReviewOutcome:
    """A review outcome on candidate `c` whose votes agree with `decision`."""
    a, b = c.after_id, c.before_id
    if decision == "failed":
        return ReviewOutcome(
            after_id=a,
            decision="failed",
            failures=[
                ReviewFailure(after_id=a, role=r, backend="test", error="timeout") for r in roles
            ],
        )
    if decision == "uncertain":
        votes = [_vote(a, r, k % 2 == 0, a, b) for k, r in enumerate(roles)]
    else:
        votes = [_vote(a, r, decision == "confirmed_change", a, b) for r in roles]
    return ReviewOutcome(after_id=a, votes=votes, decision=decision)


@st.composite
def outcomes_for(draw: st.DrawFn, candidates: Sequence[Candidate]) -> dict[str, ReviewOutcome]:
    """Review outcomes for a random subset of `candidates` (all four decisions; continuity
    outcomes sometimes from a single role, which is not enough to extend a chunk)."""
    out: dict[str, ReviewOutcome] = {}
    for c in candidates:
        if draw(st.integers(0, 3)) != 0:
            continue
        decision: Decision = draw(st.sampled_from(_DECISIONS))
        roles: Sequence[ReviewRole] = REVIEW_ROLES
        if decision == "continuity" and draw(st.booleans()):
            roles = [draw(st.sampled_from(REVIEW_ROLES))]
        out[c.after_id] = outcome(c, decision, roles)
    return out


# ---------------------------------------------------------------------------------------
# Plan invariants (shared by the planner's property and corpus tests)


def chunk_span_pages(doc: Document, first: int, last: int) -> float:
    """Pages of elements first..last: PDF page span, or words / 400 for DOCX (pictures
    as the words that would fill them)."""
    part = doc.elements[first : last + 1]
    if doc.page_basis == "words":
        return sum(layout_words(e) for e in part) / 400
    return float(max(e.page_last for e in part) - min(e.page_first for e in part) + 1)


def plan_violations(
    doc: Document,
    candidates: Sequence[Candidate],
    outcomes: Mapping[str, ReviewOutcome],
    plan: Plan,
) -> list[str]:
    """Every broken planning rule, as readable strings (empty when the plan is sound).

    - the chunks cover the document: every element in exactly one chunk, in order;
    - every cut is a safe candidate (so no chunk ends with a heading, except a final chunk
      when the document itself ends with one, or an empty section done on its page);
    - a chunk over the hard cap is one indivisible run: no safe candidate inside it;
    - a chunk over the soft maximum with a candidate inside it has a continuity review
      (same_topic from two different roles) on a candidate inside it past the preferred
      maximum;
    - a confirmed topic change is always a cut;
    - forced cuts and `continues` agree; sizes and word counts are right.
    """
    s = plan.settings
    els = doc.elements
    index = {e.id: i for i, e in enumerate(els)}
    cand_ids = {c.after_id for c in candidates}
    problems: list[str] = []
    if not els:
        return [] if not plan.chunks and not plan.boundaries else ["chunks for an empty doc"]
    if not plan.chunks:
        return ["no chunks"]
    expected_first = 0
    for n, ch in enumerate(plan.chunks, 1):
        first, last = index[ch.first_id], index[ch.last_id]
        if ch.number != n:
            problems.append(f"chunk {ch.number} numbered out of order")
        if first != expected_first:
            problems.append(f"chunk {n} starts at {first}, expected {expected_first}")
        if last < first:
            problems.append(f"chunk {n} ends before it starts")
        expected_first = last + 1
        pages = chunk_span_pages(doc, first, last)
        if abs(pages - ch.pages) > 0.01:
            problems.append(f"chunk {n}: pages {ch.pages} != {pages}")
        if ch.words != sum(e.word_count for e in els[first : last + 1]):
            problems.append(f"chunk {n}: wrong word count")
        inner = [i for i in range(first, last) if els[i].id in cand_ids]
        if pages > s.hard_max_pages and inner:
            problems.append(f"chunk {n}: {pages:g} pages over the cap with safe cuts inside")
        if pages > s.soft_max_pages and inner:
            supported = [
                i
                for i in range(first, last + 1)
                if els[i].id in cand_ids
                and (o := outcomes.get(els[i].id)) is not None
                and len({v.role for v in o.votes if v.verdict == "same_topic"}) >= 2
                and chunk_span_pages(doc, first, i) > s.max_pages
            ]
            if not supported:
                problems.append(f"chunk {n}: {pages:g} pages without continuity reviews")
        is_last = n == len(plan.chunks)
        ends_doc = is_last and last == len(els) - 1
        if (
            els[last].type == "heading"
            and not ends_doc
            and not is_safe_gap(els[last], els[last + 1])
        ):
            problems.append(f"chunk {n} ends with a heading")  # (an empty section may)
        if not is_last:
            b = plan.boundaries[n - 1]
            if b.after_id != ch.last_id:
                problems.append(f"boundary {n - 1} is not the end of chunk {n}")
            if b.after_id not in cand_ids:
                problems.append(f"chunk {n} ends at {b.after_id}, not a safe candidate")
            if b.forced != ch.continues or (b.forced and b.decider != "forced"):
                problems.append(f"chunk {n}: forced/continues disagree")
            if not b.reason.strip() or not b.decider:
                problems.append(f"boundary {n - 1} has no reason or decider")
    if expected_first != len(els):
        problems.append(f"the chunks end at {expected_first}, not at {len(els)}")
    if len(plan.boundaries) != len(plan.chunks) - 1:
        problems.append("boundaries and chunks disagree")
    ends = {ch.last_id for ch in plan.chunks}
    for after_id, o in outcomes.items():
        if o.decision == "confirmed_change" and after_id in cand_ids and after_id not in ends:
            problems.append(f"confirmed change after {after_id} crossed")
    return problems
