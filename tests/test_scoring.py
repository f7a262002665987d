"""Change-point scores: the sliding-window cohesion, structural signals, review tasks, and
topic changes found in a real manual whose headings were turned into plain paragraphs."""

from __future__ import annotations

import math
import time
from collections import Counter
from pathlib import Path

import pytest
from corpus import CORPUS
from hypothesis import given, settings
from irgen import build_doc, documents, heading, pages_of_paragraphs, para, words

from quire.shared.ir import Document, Element, assign_ids, make_element
from quire.shared.plan import Candidate
from quire.workers.boundaries.candidates import plain_text, safe_candidates
from quire.workers.boundaries.scoring import (
    MIN_REVIEW_SCORE,
    STOP_WORDS,
    _Vocabulary,
    cohesion_curve,
    review_tasks,
    score_candidates,
    select_for_review,
    stem,
    structural_score,
)
from quire.workers.parse import parse_document


def scored(doc: Document) -> list[Candidate]:
    return score_candidates(doc, safe_candidates(doc))


def test_stem_and_stop_words() -> None:
    assert stem("vectors") == stem("vector")
    assert stem("functions") == stem("function") == "function"
    assert stem("ing") == "ing"  # never stripped to (almost) nothing
    assert stem("class") == "class"
    assert stem("fitted") == "fitt"
    assert {"the", "and", "which"} <= STOP_WORDS


def test_incremental_cohesion_equals_direct_computation() -> None:
    els = [
        para(words(n, topic=(i // 4) % 3, seed=i))
        for i, n in enumerate([5, 40, 0, 120, 7, 60, 300, 2, 90, 33, 150, 11, 80, 45])
    ]
    doc = build_doc(els)
    w = 50
    got, positions = cohesion_curve(doc, window_words=w)
    vocab = _Vocabulary()
    stream: list[int] = []
    ends = []
    for e in doc.elements:
        stream += vocab.token_ids(plain_text(e))
        ends.append(len(stream))
    assert positions == ends[:-1]
    for g, p in enumerate(ends[:-1]):
        left, right = Counter(stream[max(0, p - w) : p]), Counter(stream[p : p + w])
        dot = sum(left[t] * right[t] for t in left)
        norm = math.sqrt(sum(v * v for v in left.values()) * sum(v * v for v in right.values()))
        assert got[g] == pytest.approx(dot / norm if norm else 0.0, abs=1e-9)


def test_topic_changes_without_headings_score_highest() -> None:
    # 12 pages, topic changes at pages 5 and 9; no headings, no numbering: lexical only
    els = pages_of_paragraphs(12, per_page=3, words_each=120, topic_every=4)
    doc = build_doc(els)
    cands = scored(doc)
    top = sorted(cands, key=lambda c: -c.score)[:2]
    index = {e.id: i for i, e in enumerate(doc.elements)}
    assert sorted(index[c.before_id] for c in top) == [12, 24]  # first paragraph of p.5, p.9
    assert all(c.score > 1.5 * max(x.score for x in cands if x not in top) for c in top)


def test_one_change_scores_once_not_for_every_neighbouring_gap() -> None:
    els = [para(words(30, topic=0, seed=i)) for i in range(20)]
    els += [para(words(30, topic=1, seed=i)) for i in range(20)]
    cands = scored(build_doc(els))
    best = max(cands, key=lambda c: c.score)
    assert best.after_id == "el-000020"
    neighbours = [c for c in cands if abs(int(c.after_id[3:]) - 20) in (1, 2)]
    assert all(c.score <= best.score * 0.6 for c in neighbours)


def test_structure_ranks_headings_and_numbering() -> None:
    def cand(
        level: int | None = None, numbering: str | None = None, begins: str = "paragraph"
    ) -> Candidate:
        return Candidate(
            after_id="a",
            before_id="b",
            ends_type="paragraph",
            begins_type="heading" if level else begins,
            left_snippet="",
            right_snippet="",
            cum_pages=1,
            cum_words=1,
            heading_level=level,
            numbering=numbering,
        )

    s = structural_score
    assert s(cand(1)) > s(cand(2)) > s(cand(3)) > s(cand(4)) > s(cand(5)) > s(cand())
    assert s(cand(1, "Chapter 4")) > s(cand(1)) > s(cand(2, "4.2"))
    assert s(cand(numbering="Chapter 4")) > s(cand(numbering="4")) > s(cand(numbering="4.2"))
    assert s(cand(numbering="4.2")) > s(cand(numbering="4.2.1")) > s(cand())
    assert s(cand(begins="code")) > s(cand())  # a change of element type counts a little
    assert all(0 <= s(c) <= 1 for c in [cand(1, "Chapter 1", "code")])


def test_same_text_scores_higher_with_a_stronger_heading() -> None:
    def doc_with(level: int) -> Document:
        els = [para(words(100, 0, i)) for i in range(6)]
        els += [heading("Lists and data frames", level)]
        els += [para(words(100, 1, i)) for i in range(6)]
        return build_doc(els)

    def score_before_heading(doc: Document) -> float:
        return next(c.score for c in scored(doc) if c.begins_type == "heading")

    assert score_before_heading(doc_with(1)) > score_before_heading(doc_with(3))


@settings(max_examples=80, deadline=None)
@given(documents(max_elements=40))
def test_scores_are_in_unit_interval_and_keep_candidates(doc: Document) -> None:
    cands = safe_candidates(doc)
    out = score_candidates(doc, cands)
    assert [c.after_id for c in out] == [c.after_id for c in cands]
    assert all(0.0 <= c.score <= 1.0 for c in out)
    assert [c.model_copy(update={"score": 0.0}) for c in out] == cands


def test_scoring_a_reference_sized_document() -> None:
    # speed is measured in bench/, not asserted here; this checks the answer at scale
    # r-fullrefman scale: ~100k elements, ~700k words
    n = 100_000
    els = [
        Element.model_construct(
            id="",
            type="paragraph",
            text=words(7, topic=(i // 400) % 3, seed=i),
            page_first=1 + i // 40,
            page_last=1 + i // 40,
            word_count=7,
            level=None,
            items=None,
            ordered=None,
            start=None,
            rows=None,
            image=None,
            language=None,
            rtl=False,
            origin=None,
            content_hash="",
        )
        for i in range(n)
    ]
    doc = Document.model_construct(
        ir_version=1,
        doc_id="big",
        source_name="big.pdf",
        source_format="pdf",
        page_count=n // 40,
        page_basis="pdf",
        parsers=[],
        skipped_pages=[],
        removed=[],
        notes=[],
        outline=[],
        elements=assign_ids(els),
    )
    cands = safe_candidates(doc)
    started = time.perf_counter()
    out = score_candidates(doc, cands)
    elapsed = time.perf_counter() - started
    print(f"scored {len(out)} candidates of a {n}-element document in {elapsed:.2f}s")
    top = sorted(out, key=lambda c: -c.score)[: n // 400 - 1]
    changes = sum(1 for c in top if int(c.after_id[3:]) % 400 in (399, 0, 1))
    assert changes >= 0.9 * len(top)


def test_review_tasks_carry_context_within_the_word_budget() -> None:
    els = [para(words(100, 0, i)) for i in range(8)] + [heading("Second topic", 1)]
    els += [para(words(100, 1, i)) for i in range(8)]
    doc = build_doc(els)
    cands = scored(doc)
    tasks = review_tasks(doc, cands, threshold=0.5, context_words=250)
    assert tasks and all(t.score >= 0.5 for t in tasks)
    task = next(t for t in tasks if t.after_id == "el-000008")
    assert task.left_ids == ["el-000006", "el-000007", "el-000008"]  # 3 x 100 >= 250
    # the heading has 2 words: 2 + 100 + 100 < 250, so a third paragraph is needed
    assert task.right_ids == ["el-000009", "el-000010", "el-000011", "el-000012"]
    assert task.doc_id == doc.doc_id
    # a huge element alone fills the budget, and every side has at least one element
    doc2 = build_doc([para(words(5000)), para(words(3)), para(words(5000, 1))])
    for t in review_tasks(doc2, scored(doc2), threshold=0.0):
        assert t.left_ids and t.right_ids
        assert t.left_ids[-1] == t.after_id


def test_default_review_selection_is_bounded_by_pages() -> None:
    els = pages_of_paragraphs(30, per_page=3, words_each=120, topic_every=2)
    doc = build_doc(els)
    cands = scored(doc)
    chosen = select_for_review(cands, 30)
    assert len(chosen) <= 10  # one per 3 pages
    assert all(c.score >= MIN_REVIEW_SCORE for c in chosen)
    assert [c.after_id for c in chosen] == sorted(c.after_id for c in chosen)
    tasks = review_tasks(doc, cands)
    assert [t.after_id for t in tasks] == [c.after_id for c in chosen]
    # the strongest are chosen: the topic changes (every 2 pages) are among them
    assert sum(1 for c in chosen if int(c.before_id[3:]) % 6 == 1) >= 8


def test_flat_text_gets_no_review_tasks() -> None:
    doc = build_doc(pages_of_paragraphs(9, per_page=2, words_each=150))
    assert review_tasks(doc, scored(doc)) == []


# ---------------------------------------------------------------------------------------
# A real manual with its headings stripped


def stripped_ir(path: Path) -> tuple[Document, list[int]]:
    """The parsed IR of `path` with every heading turned into a plain paragraph (its text
    kept, its '#' marks and level gone), and the indices where level-1 headings were."""
    doc = parse_document(path).document
    starts = [i for i, e in enumerate(doc.elements) if e.type == "heading" and e.level == 1]
    els = [
        make_element("paragraph", plain_text(e), e.page_first, e.page_last)
        if e.type == "heading"
        else e
        for e in doc.elements
    ]
    return doc.model_copy(update={"elements": assign_ids(els)}), starts


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["r-intro.pdf", "r-exts.pdf"])
def test_chapter_starts_found_after_headings_are_stripped(name: str) -> None:
    doc, starts = stripped_ir(CORPUS / name)
    assert len(starts) >= 10  # chapters, appendices and indexes of the outline
    assert not any(e.type == "heading" for e in doc.elements)
    cands = scored(doc)
    index = {e.id: i for i, e in enumerate(doc.elements)}
    k = 2 * len(starts)
    top = [index[c.before_id] for c in sorted(cands, key=lambda c: -c.score)[:k]]
    found = [i for i in starts if any(abs(i - j) <= 2 for j in top)]
    recall = len(found) / len(starts)
    missed = [doc.elements[i].text[:40] for i in starts if i not in found]
    print(
        f"{name}: {len(found)}/{len(starts)} chapter starts in the top {k} "
        f"(recall {recall:.2f}); missed {missed}"
    )
    assert recall >= 0.7
