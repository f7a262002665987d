"""The topic benchmark's parts: the Choi-style document builder (segment sizes, recorded
true boundaries, the DOCX a user would feed Quire), the metrics against their definitions,
and the TextTiling baseline against NLTK's own block comparison."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from choi import (
    ChoiDocument,
    body_paragraphs,
    boundary_string,
    build_choi,
    half_mean_segment,
    pk,
    pools_by_chapter,
    recall_within,
    windowdiff,
    write_docx,
)
from corpus import CORPUS
from gen_docs import COMMON, SUBJECTS
from nltk.tokenize.texttiling import TextTilingTokenizer
from texttiling import TextTiling, top_k_boundaries

from quire.shared.ir import WORDS_PER_PAGE
from quire.shared.text import count_words
from quire.workers.boundaries.tokens import stop_words
from quire.workers.parse import parse_document


def subject_pools(paragraphs: int = 60, words_each: int = 90) -> dict[str, list[str]]:
    """One pool of generated paragraphs per gen_docs subject (~5,400 words each)."""
    pools = {}
    for n, (title, vocab) in enumerate(SUBJECTS):
        rng = random.Random(n)
        pools[title] = [
            " ".join(
                rng.choice(vocab) if rng.random() < 0.5 else rng.choice(COMMON)
                for _ in range(rng.randint(words_each // 2, words_each * 3 // 2))
            )
            for _ in range(paragraphs)
        ]
    return pools


@pytest.mark.parametrize("seed", range(5))
def test_segments_are_6_to_11_pages_from_different_pools_with_recorded_boundaries(
    seed: int,
) -> None:
    pools = subject_pools()
    doc = build_choi(pools, variant="documents", seed=seed, segments=6)
    assert len(doc.segments) == 6
    assert len({s.source for s in doc.segments}) == 6
    for s in doc.segments:
        assert 6 <= s.pages <= 11
        # the segment is a run of consecutive paragraphs of its pool, recorded exactly
        text = doc.paragraphs[s.first : s.first + s.paragraphs]
        pool = pools[s.source]
        start = pool.index(text[0])
        assert pool[start : start + len(text)] == text
        assert s.words == sum(count_words(p) for p in text)
    firsts = [s.first for s in doc.segments]
    assert firsts[0] == 0 and firsts == sorted(firsts)
    assert sum(s.paragraphs for s in doc.segments) == len(doc.paragraphs)
    assert doc.boundaries() == [f - 1 for f in firsts[1:]]
    ends = doc.word_ends()
    assert doc.switch_positions() == [ends[f - 1] for f in firsts[1:]]
    assert build_choi(pools, variant="documents", seed=seed, segments=6) == doc  # reproducible


def test_pools_too_small_for_a_segment_are_not_used() -> None:
    pools = subject_pools()
    pools["tiny"] = ["a short pool of one paragraph only"]
    doc = build_choi(pools, variant="documents", seed=3, segments=len(pools))
    assert "tiny" not in {s.source for s in doc.segments}
    with pytest.raises(ValueError, match="two pools"):
        build_choi({"tiny": pools["tiny"]}, variant="documents", seed=0)


def test_the_docx_parses_to_exactly_the_paragraphs(tmp_path: Path) -> None:
    doc = build_choi(subject_pools(), variant="documents", seed=1, segments=3)
    ir = parse_document(write_docx(doc, tmp_path / "choi.docx")).document
    assert [e.type for e in ir.elements] == ["paragraph"] * len(doc.paragraphs)
    assert [e.text for e in ir.elements] == doc.paragraphs
    assert ir.page_basis == "words"
    pages = sum(e.word_count for e in ir.elements) / WORDS_PER_PAGE
    assert pages == pytest.approx(sum(s.pages for s in doc.segments))


def test_body_paragraphs_and_chapters_of_a_real_manual() -> None:
    ir = parse_document(CORPUS / "python-logging-howto-cookbook.docx").document
    body = body_paragraphs(ir)
    texts = {t for _, t in body}
    headings = {e.text.lstrip("#").strip() for e in ir.elements if e.type == "heading"}
    assert body and not texts & headings
    assert all(20 <= count_words(t) <= 600 for t in texts)
    pools = pools_by_chapter(ir, "logging")
    assert sorted(pools) == ["logging / Logging Cookbook", "logging / Logging HOWTO"]
    doc = build_choi(pools, variant="chapters", seed=0)
    assert len(doc.segments) == 2 and doc.segments[0].source != doc.segments[1].source


# ---------------------------------------------------------------------------------------
# Metrics


def test_recall_within_a_tolerance_pairs_each_found_boundary_once() -> None:
    assert recall_within([1000, 2000], [1100, 2000], 150) == 1.0
    assert recall_within([1000, 2000], [1200, 2000], 150) == 0.5
    assert recall_within([1000, 1100], [1050], 150) == 0.5  # one found, one true
    assert recall_within([], [5], 150) == 1.0


def _segment_ids(positions: list[int], total: int) -> list[int]:
    """The segment number of every word (a boundary at p: word p starts a new segment)."""
    ids, seg = [], 0
    cuts = set(positions)
    for i in range(total):
        if i in cuts:
            seg += 1
        ids.append(seg)
    return ids


def _pk_by_definition(truth: list[int], found: list[int], total: int) -> float:
    """Beeferman et al.: P(two words k apart are judged in the same segment differently)."""
    k = half_mean_segment(truth, total)
    r, h = _segment_ids(truth, total), _segment_ids(found, total)
    probes = range(total - k)
    wrong = sum((r[i] == r[i + k]) != (h[i] == h[i + k]) for i in probes)
    return wrong / len(probes)


def _windowdiff_by_definition(truth: list[int], found: list[int], total: int) -> float:
    """Pevzner & Hearst: share of windows of k words whose boundary counts differ."""
    k = half_mean_segment(truth, total)
    r, h = _segment_ids(truth, total), _segment_ids(found, total)
    probes = range(total - k)
    wrong = sum((r[i + k] - r[i]) != (h[i + k] - h[i]) for i in probes)
    return wrong / len(probes)


@pytest.mark.parametrize("seed", range(20))
def test_pk_and_windowdiff_match_their_definitions(seed: int) -> None:
    rng = random.Random(seed)
    total = rng.randint(200, 2000)
    truth = sorted(rng.sample(range(1, total), rng.randint(1, 8)))
    found = sorted(rng.sample(range(1, total), rng.randint(0, 10)))
    # NLTK counts windows of k flags over n - k + 1 positions, the definition n - k probe
    # pairs: the same errors, one more position in the denominator
    n_pos = total - half_mean_segment(truth, total)
    errors = round(pk(truth, found, total) * (n_pos + 1))
    assert abs(errors - round(_pk_by_definition(truth, found, total) * n_pos)) <= 1
    errors = round(windowdiff(truth, found, total) * (n_pos + 1))
    assert abs(errors - round(_windowdiff_by_definition(truth, found, total) * n_pos)) <= 1
    assert pk(truth, truth, total) == 0.0 == windowdiff(truth, truth, total)


def test_boundary_string_flags_the_word_before_each_boundary() -> None:
    assert boundary_string([2, 5], 7) == "0100100"
    assert boundary_string([0, 7], 7) == "0000000"  # the document's own ends are no boundary


# ---------------------------------------------------------------------------------------
# TextTiling


def _choi_text(seed: int) -> ChoiDocument:
    return build_choi(subject_pools(), variant="documents", seed=seed, segments=4)


def test_fast_block_comparison_equals_nltks() -> None:
    text = "\n\n".join(_choi_text(0).paragraphs[:80])
    stop = sorted(stop_words("en"))
    ours = TextTiling(stopwords=stop, demo_mode=True).tokenize(text)
    nltk = TextTilingTokenizer(stopwords=stop, demo_mode=True).tokenize(text)
    assert ours[0] == pytest.approx(nltk[0], abs=1e-12)  # gap scores
    assert ours[2] == pytest.approx(nltk[2], abs=1e-12)  # depth scores


def test_texttiling_top_k_finds_switches_between_unrelated_vocabularies() -> None:
    doc = _choi_text(2)
    found = top_k_boundaries(doc.paragraphs, 3, sorted(stop_words("en")))
    assert len(found) == 3 and all(0 <= j < len(doc.paragraphs) - 1 for j in found)
    ends = doc.word_ends()
    assert recall_within(doc.switch_positions(), [ends[j] for j in found], 150) >= 2 / 3
