"""Chinese, Japanese and right-to-left books on generated pages: line joining, word counts
and page estimates, running headers, bilingual headings, contents entries, key terms,
heuristic topics and titles."""

from __future__ import annotations

import itertools
from pathlib import Path

import docx
import pymupdf
import pytest
from script_samples import (
    BILINGUAL,
    FA_SECTIONS,
    ZH_PARAGRAPH,
    ZH_SECTIONS,
    build_chinese,
    build_japanese,
    build_persian,
)

from quire.shared.ir import WORDS_PER_PAGE, Document
from quire.shared.plan import PlanSettings
from quire.shared.text import HAN_CHARS_PER_WORD, count_words, is_cjk
from quire.workers.analysis.context import AnalysisContext, build_contexts
from quire.workers.analysis.heuristic import heuristic_analysis, latin_chunk
from quire.workers.analysis.key_phrases import candidates
from quire.workers.analysis.terms import words
from quire.workers.boundaries.candidates import parse_numbering, plain_text, safe_candidates
from quire.workers.boundaries.planner import plan_from_boundaries
from quire.workers.boundaries.tokens import Vocabulary
from quire.workers.parse import parse_document
from quire.workers.parse.docx import parse_docx
from tests.analysisfix import sample_doc


def row_pairs(path: Path) -> list[tuple[str, str]]:
    """(line, next line) of PyMuPDF's line text where the next line is the next row below
    and the break falls between two CJK characters."""
    pairs = []
    with pymupdf.open(path) as pdf:
        for page in pdf:
            lines = [
                (ln["bbox"], "".join(s["text"] for s in ln["spans"]).strip())
                for b in page.get_text("dict")["blocks"]
                for ln in b.get("lines", [])
            ]
            for (ba, a), (bb, b) in itertools.pairwise(lines):
                height = ba[3] - ba[1]
                step = (bb[1] + bb[3] - ba[1] - ba[3]) / 2  # centre to centre
                cjk_break = a and b and is_cjk(a[-1]) and b[0].isalpha() and is_cjk(b[0])
                if cjk_break and 0.5 * height < step < 2 * height:
                    pairs.append((a, b))
    return pairs


def assert_no_space_in_sentences(path: Path, body: str, min_pairs: int, share: float = 0.9) -> None:
    """No break between CJK characters became a space; most joined directly (the rest
    end one element and start the next: a heading and its paragraph, two paragraphs)."""
    pairs = row_pairs(path)
    assert len(pairs) >= min_pairs
    spaced = [(a, b) for a, b in pairs if f"{a[-4:]} {b[:4]}" in body]
    joined = [(a, b) for a, b in pairs if a[-4:] + b[:4] in body]
    assert spaced == []
    assert len(joined) >= share * len(pairs)


def test_chinese_lines_join_without_a_space(tmp_path: Path) -> None:
    path = build_chinese(tmp_path / "zh.pdf")
    doc = parse_document(path).document
    body = "\n".join(e.text for e in doc.elements)
    assert_no_space_in_sentences(path, body, min_pairs=20)
    assert "提取文本的时候也不应该在这些位置插入空格" in body


def test_japanese_lines_join_without_a_space(tmp_path: Path) -> None:
    path = build_japanese(tmp_path / "ja.pdf")
    body = "\n".join(e.text for e in parse_document(path).document.elements)
    assert_no_space_in_sentences(path, body, min_pairs=4)
    assert "無駄に書き換えない" in body


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("The quick brown fox", 4),
        ("排版系统", 3),  # 4 Han characters / 1.5
        ("使用 LaTeX 排版", 4),  # 4 Han / 1.5 = 2.7 -> 3, plus one Latin word
        ("アプティチュード", 3),  # 8 katakana / 2.5
        ("字", 1),  # any CJK text counts at least one
        ("نصب‌شده است", 2),  # a ZWNJ does not split a Persian word
        ("，。", 0),  # punctuation alone is no word
        # vowel signs and viramas are inside words (Python's \\w holds no combining marks)
        ("ഉപകരണം സോഫ്റ്റ്‌വെയർ ഇൻസ്റ്റാലേഷൻ", 3),  # Malayalam, a ZWNJ inside a word
        ("हिन्दी भाषा में", 3),  # Hindi
        ("মাতৃভাষা বাংলা", 2),  # Bengali
        ("مُحَمَّدٌ رَسُولُ", 2),  # vowelled Arabic
    ],
)
def test_word_counts_count_cjk_characters_at_their_rate(text: str, words: int) -> None:
    assert count_words(text) == words


def test_chinese_paragraph_counts_characters_not_runs(tmp_path: Path) -> None:
    doc = parse_document(build_chinese(tmp_path / "zh.pdf")).document
    han = sum(1 for c in ZH_PARAGRAPH if "\u4e00" <= c <= "\u9fff")
    body = [e for e in doc.elements if e.type == "paragraph" and e.page_first == 2]
    assert abs(sum(e.word_count for e in body) - han / HAN_CHARS_PER_WORD) <= 3


def test_chinese_docx_pages_are_estimated_from_characters(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_heading("第一章 基本概念", level=1)
    for _ in range(20):
        d.add_paragraph(ZH_PARAGRAPH)  # 20 x 459 characters
    d.save(tmp_path / "zh.docx")
    doc = parse_docx(tmp_path / "zh.docx").document
    han = sum(1 for e in doc.elements for c in e.text if "\u4e00" <= c <= "\u9fff")
    expected = han / HAN_CHARS_PER_WORD / WORDS_PER_PAGE  # 600 characters a page
    assert abs(doc.page_count - expected) <= 1 and doc.page_count >= 14


def test_rtl_running_headers_with_changing_numbers_are_removed(tmp_path: Path) -> None:
    doc = parse_document(build_persian(tmp_path / "fa.pdf")).document
    removed = {r.page: r.text for r in doc.removed}
    assert sorted(removed) == list(range(1, 9))
    assert all(r.kind == "header" for r in doc.removed)
    assert removed[1] == "۱۱ بخش مقدمه" and removed[2] == "کتاب آزمایشی ۱۲"
    body = "\n".join(e.text for e in doc.elements)
    assert "بخش" not in body and "کتاب آزمایشی" not in body
    assert not any(name in e.text for e in doc.elements for name in FA_SECTIONS[1:])


@pytest.mark.parametrize("outline", [False, True], ids=["font", "outline"])
def test_bilingual_heading_stays_whole(tmp_path: Path, outline: bool) -> None:
    doc = parse_document(build_persian(tmp_path / "fa.pdf", outline=outline)).document
    headings = [e for e in doc.elements if e.type == "heading"]
    assert [plain_text(h) for h in headings] == [BILINGUAL]
    assert headings[0].rtl and headings[0].page_first == 3


def test_chinese_running_headers_and_contents_entries_are_no_headings(tmp_path: Path) -> None:
    path = build_chinese(tmp_path / "zh.pdf")
    for outline in (True, False):
        if not outline:
            with pymupdf.open(path) as pdf:
                pdf.set_toc([])
                pdf.save(tmp_path / "plain.pdf")
        doc = parse_document(path if outline else tmp_path / "plain.pdf").document
        assert [r.page for r in doc.removed] == [2, 3, 4, 5, 6]
        headings = [plain_text(e) for e in doc.elements if e.type == "heading"]
        assert headings == ["目录", *(f"1.{i} {n}" for i, n in enumerate(ZH_SECTIONS, 1))]
        contents = [e for e in doc.elements if e.page_first == 1 and e.type != "heading"]
        assert [e.type for e in contents] == ["list"]
        assert contents[0].items is not None and len(contents[0].items) == 10
        # no contents line is a cut reason: none starts a candidate with a section number
        numbered = [c for c in safe_candidates(doc) if c.numbering]
        assert all(doc.by_id()[c.before_id].type == "heading" for c in numbered)
        assert all(parse_numbering(e) is None for e in contents)


def test_key_terms_of_chinese_are_words_not_sentences() -> None:
    got = words("宏包为文档类增加功能，使用之前要在导言区声明。LaTeX 宏包")
    assert "宏包" in got and "文档" in got and "latex" in got
    assert all(len(w) <= 4 for w in got if is_cjk(w[0]))
    assert "使用" not in got  # a function word
    assert words("設定ファイルを無駄に書き換えない") == ["設定", "ファイル", "無駄"]


def test_indic_words_stay_whole_in_terms_and_topic_tokens() -> None:
    """A Malayalam lab manual's key terms were fragments ("കൾ എഴ") cut at vowel signs."""
    text = "ഓസിലോസ്കോപ്പ് ഉപയോഗിച്ച് വോൾട്ടേജ് അളക്കുക. ഓസിലോസ്കോപ്പ് സ്ക്രീനിൽ തരംഗം കാണാം."
    words_of_text = set(text.replace(".", "").split())
    found = list(candidates(text))
    assert "ഓസിലോസ്കോപ്പ് ഉപയോഗിച്ച്" in found and "സ്ക്രീനിൽ തരംഗം" in found
    assert all(set(term.split()) <= words_of_text for term in found)  # whole words only
    tokens = Vocabulary().token_ids("हिन्दी भाषा में पाठ")  # 4 words, none cut apart
    assert len(tokens) == 4


def first_context(doc: Document) -> AnalysisContext:
    """The analysis context of the whole document as one chunk."""
    plan = plan_from_boundaries(doc, PlanSettings(), [])
    return build_contexts(doc, plan, safe_candidates(doc))[0]


def test_chinese_chunk_gets_no_english_topic_from_latin_fragments(tmp_path: Path) -> None:
    context = first_context(parse_document(build_chinese(tmp_path / "zh.pdf")).document)
    assert context.key_terms and all(is_cjk(t.term[0]) for t in context.key_terms[:5])
    assert not latin_chunk(context)
    analysis = heuristic_analysis(context)
    assert analysis.topic_en == "" and analysis.study_focus_en == ""
    assert analysis.en_missing_reason and "script other than Latin" in analysis.en_missing_reason
    assert latin_chunk(first_context(sample_doc()))
