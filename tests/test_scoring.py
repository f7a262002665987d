"""Change-point scores: the sliding-window cohesion, structural signals, review tasks, and
topic changes found in a real manual whose headings were turned into plain paragraphs."""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from pathlib import Path

import pytest
from corpus import CORPUS
from gen_docs import COMMON, SUBJECTS
from hypothesis import given, settings
from irgen import build_doc, documents, heading, pages_of_paragraphs, para, words

from quire.shared.ir import Document, Element, assign_ids, make_element
from quire.shared.plan import Candidate
from quire.workers.boundaries.candidates import plain_text, safe_candidates
from quire.workers.boundaries.scoring import (
    MIN_REVIEW_SCORE,
    STOP_WORDS,
    cohesion_curve,
    idf_weights,
    review_tasks,
    score_candidates,
    select_for_review,
    stem,
    structural_score,
    term_stream,
)
from quire.workers.boundaries.tokens import Vocabulary, _cjk_terms, stop_words
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
    got, positions = cohesion_curve(doc, window=w)
    stream, ends, size = term_stream(doc)
    idf = idf_weights(stream, size)
    assert positions == ends[:-1]

    def vector(tokens: list[int]) -> dict[int, float]:  # sqrt(count x idf) per term
        return {t: math.sqrt(n * idf[t]) for t, n in Counter(tokens).items()}

    for g, p in enumerate(ends[:-1]):
        left, right = vector(stream[max(0, p - w) : p]), vector(stream[p : p + w])
        dot = sum(v * right.get(t, 0.0) for t, v in left.items())
        norm = math.sqrt(sum(v * v for v in left.values()) * sum(v * v for v in right.values()))
        assert got[g] == pytest.approx(dot / norm if norm else 0.0, abs=1e-9)


def test_cohesion_of_an_element_repeating_one_word_more_often_than_two_windows_hold() -> None:
    """gammu's general index is one table naming one word 1,521 times: its tokens enter the
    right window together, and their count outgrew the table of square roots (an IndexError
    failed the document at scoring)."""
    els = [para(words(80, topic=0, seed=1)), para("modem " * 400), para(words(80, topic=1))]
    doc = build_doc(els)
    got, positions = cohesion_curve(doc, window=50)
    assert len(got) == len(positions) == 2
    assert all(0.0 <= c <= 1.0 + 1e-9 for c in got)


def test_idf_weighs_down_terms_found_all_through_the_document() -> None:
    stream = [0, 1, 0, 2] * 300  # term 0 in every block, 1 and 2 in every block too
    stream += [3] * 10  # term 3 in one block only
    idf = idf_weights(stream, 4, block=100)
    assert idf[3] > idf[0] > 0
    assert idf[0] == pytest.approx(idf[1])


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
    assert all(c.lexical is not None and c.structural is not None for c in out)
    evidence = {"score": 0.0, "lexical": None, "structural": None}
    assert [c.model_copy(update=evidence) for c in out] == cands


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


# ---------------------------------------------------------------------------------------
# Generated prose: a clean switch, uniform text, Chinese


def prose(subject: int, paragraphs: int, seed: int, words_each: int = 120) -> list[Element]:
    """Paragraphs of sentences on one of gen_docs' subjects, with common words mixed in."""
    rng = random.Random(seed)
    vocab = SUBJECTS[subject][1]
    out = []
    for _ in range(paragraphs):
        text = " ".join(
            rng.choice(vocab) if rng.random() < 0.5 else rng.choice(COMMON)
            for _ in range(words_each)
        )
        out.append(para(text.capitalize() + "."))
    return out


def scores_by_index(doc: Document) -> dict[int, float]:
    index = {e.id: i for i, e in enumerate(doc.elements)}
    return {index[c.after_id]: c.score for c in scored(doc)}


@pytest.mark.parametrize("seed", range(4))
def test_a_clean_switch_scores_clearly_above_everything_around_it(seed: int) -> None:
    # 8 pages on one subject, then 8 on another (400 words a page, DOCX-like): within any
    # 5-12 page window around the switch nothing comes near it
    doc = build_doc(prose(seed, 27, seed) + prose(seed + 4, 27, seed + 100))
    by_index = scores_by_index(doc)
    switch = 26  # the cut after the 27th paragraph
    assert max(by_index, key=lambda i: by_index[i]) == switch
    others = [s for i, s in by_index.items() if i != switch]
    assert by_index[switch] >= 0.5
    assert by_index[switch] >= 2 * max(others)
    best = next(c for c in scored(doc) if c.after_id == doc.elements[switch].id)
    assert best.lexical is not None and best.lexical >= 0.7 and best.structural == 0.0


@pytest.mark.parametrize("seed", range(4))
def test_uniform_text_has_no_strong_change(seed: int) -> None:
    doc = build_doc(prose(seed, 60, seed))  # ~18 pages on one subject
    cands = scored(doc)
    assert max(c.score for c in cands) < 0.15
    assert review_tasks(doc, cands) == []


# Two Chinese topics (vocabulary of LaTeX tables vs of mathematical formulas) with shared
# function characters; no spaces, as in the corpus's lshort-zh-cn.
_ZH_TABLES = [
    "表格",
    "单元格",
    "列宽",
    "行高",
    "边框",
    "对齐",
    "合并",
    "跨列",
    "表头",
    "线条",
    "浮动体",
    "标题",
]
_ZH_MATH = [
    "公式",
    "积分",
    "矩阵",
    "分式",
    "上标",
    "下标",
    "根号",
    "求和",
    "定理",
    "证明",
    "方程",
    "极限",
]
_ZH_GLUE = ["的", "了", "是", "在", "和", "可以", "我们", "使用", "这个", "一个", "通常", "需要"]


def chinese(vocab: list[str], paragraphs: int, seed: int) -> list[Element]:
    rng = random.Random(seed)
    return [
        para(
            "".join(
                rng.choice(vocab) if rng.random() < 0.5 else rng.choice(_ZH_GLUE)
                for _ in range(200)
            )
            + "。"
        )
        for _ in range(paragraphs)
    ]


def test_a_switch_in_chinese_text_scores_highest() -> None:
    doc = build_doc(chinese(_ZH_TABLES, 20, 1) + chinese(_ZH_MATH, 20, 2))
    by_index = scores_by_index(doc)
    assert max(by_index, key=lambda i: by_index[i]) == 19
    assert by_index[19] >= 2 * max(s for i, s in by_index.items() if i != 19)


def test_tokens_in_every_script() -> None:
    vocab = Vocabulary()
    ids = vocab.token_ids("The vectors of LaTeX的基本概念 x_1 2.4")
    terms = {v: k for k, v in vocab.terms.items()}
    assert [terms[i] for i in ids] == ["vector", "latex", "基本", "本概", "概念"]
    # a function character splits a run; a lone character gives no bigram
    assert _cjk_terms("表格的线条") == ["表格", "线条"]
    assert _cjk_terms("在") == []
    # Persian drawn as presentation forms is the same word as the letters
    a, b = Vocabulary(), Vocabulary()
    assert a.token_ids("\ufee3\ufeae\ufea3\ufee0\ufeea") == b.token_ids("مرحله")
    # stop words per language, all applied
    assert {"the", "which"} <= stop_words("en")
    assert "که" in stop_words("fa") and "что" in stop_words("ru")
    assert Vocabulary().token_ids("the и که") == []


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["lshort-zh-cn.pdf", "latex-notes-zh-cn.pdf"])
def test_numbered_chinese_chapters_found_after_headings_are_stripped(name: str) -> None:
    # "第三章 文档元素", "附录A 安装TEX": the chapter marker survives as a title-like line
    doc, starts = stripped_ir(CORPUS / name)
    numbered = [i for i in starts if doc.elements[i].text.startswith(("第", "附录"))]
    assert len(numbered) >= 8
    cands = scored(doc)
    assert {c.numbering for c in cands if c.before_id == doc.elements[numbered[2]].id} == {
        doc.elements[numbered[2]].text.split()[0]
    }
    index = {e.id: i for i, e in enumerate(doc.elements)}
    top = [index[c.before_id] for c in sorted(cands, key=lambda c: -c.score)[: 2 * len(starts)]]
    found = [i for i in numbered if any(abs(i - j) <= 2 for j in top)]
    assert len(found) == len(numbered)


def test_memoised_text_follows_the_element() -> None:
    """plain_text and count_words are memoised on their strings: an element whose text
    or type changed gets the answer for what it is now, never the one cached before."""
    from quire.shared.text import count_words

    el = make_element("heading", "## Root   filesystem", 1, level=2)
    assert plain_text(el) == "Root filesystem"
    assert plain_text(el.model_copy(update={"text": "## Home"})) == "Home"
    assert plain_text(el.model_copy(update={"type": "paragraph"})) == "## Root filesystem"
    assert count_words("two words") == 2
    assert count_words("now three words") == 3
    assert count_words("two words") == 2
