"""Chinese and right-to-left books of the corpus: text, running headers, contents entries,
page estimates, reading time and file names."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import corpus
import pytest
from corpus import CORPUS
from pipeline_utils import local_runtime, outputs, run_embedded
from test_scripts import assert_no_space_in_sentences

from quire.shared.analysis import WORDS_PER_MINUTE
from quire.shared.config import RunSettings
from quire.shared.ir import Document, load_ir
from quire.shared.links import plain
from quire.shared.manifest import load_manifest
from quire.shared.text import HAN_CHARS_PER_WORD
from quire.workers.boundaries.candidates import plain_text, safe_candidates
from quire.workers.parse.pdf_contents import entry_number

pytestmark = pytest.mark.corpus

CHINESE = ["lshort-zh-cn.pdf", "latex-notes-zh-cn.pdf"]
HAN = re.compile(r"[\u4e00-\u9fff]")
CJK_STUDY_RATE = WORDS_PER_MINUTE * HAN_CHARS_PER_WORD  # 120 characters a minute


@cache
def parsed(name: str) -> Document:
    return corpus.parsed(name).document


@pytest.mark.parametrize("name", CHINESE)
def test_no_space_inside_chinese_sentences(name: str) -> None:
    body = "\n".join(plain(e.text) for e in parsed(name).elements)  # as a reader reads it
    assert_no_space_in_sentences(CORPUS / name, body, min_pairs=500, share=0.6)


def test_chinese_links_notes_and_paragraphs_keep_their_characters() -> None:
    """Regressions from the footnote and link work: a link's text placed by even widths
    landed one character off in Chinese ("参考文献[1[, 2](…)]"); a note's lines, set with
    wide spacing, became a paragraph each; a table's rows made a "justified edge" that
    Chinese lines run past, so every line of a paragraph became a paragraph."""
    texts = [e.text for e in parsed("lshort-zh-cn.pdf").elements]
    assert any("参考文献[[1](#el-" in t and "), [2](#el-" in t for t in texts)
    note = next(t for t in texts if t.startswith("[^") and "则应该像正" in t)
    assert "则应该像正常的行内公式那样用" in note
    assert any("用户也可对某个" in plain(t) and "但通常是必填的" in plain(t) for t in texts)


@pytest.mark.parametrize(
    ("name", "page", "header"),
    [
        ("latex-notes-zh-cn.pdf", 12, "2 第一章简介"),  # below the 13 % band
        ("latex-notes-zh-cn.pdf", 13, "1.2 优点和缺点 3"),
        ("lshort-persian.pdf", 21, "۷ ساختار فایل های ورودی ۴ . ۱"),  # its spaces back
        ("lshort-russian.pdf", 21, "1.3 Èñõîäíûå ôàéëû LATEX 5"),  # no page labels
    ],
)
def test_running_headers_in_any_script_are_removed(name: str, page: int, header: str) -> None:
    doc = parsed(name)
    assert header in {r.text for r in doc.removed if r.page == page}
    assert not any(header in e.text for e in doc.elements)


@pytest.mark.parametrize(
    ("name", "pages", "removed"),
    [
        ("latex-notes-zh-cn.pdf", range(11, 97), 80),
        ("lshort-persian.pdf", range(16, 130), 110),
        ("lshort-russian.pdf", range(19, 140), 110),
    ],
)
def test_every_body_page_loses_its_header(name: str, pages: range, removed: int) -> None:
    """...but chapter openers (a level-1 heading) and pages left blank on purpose."""
    doc = parsed(name)
    assert len(doc.removed) >= removed
    headed = {r.page for r in doc.removed if r.kind in ("header", "page_number")}
    per_page: dict[int, int] = {}
    for e in doc.elements:
        per_page[e.page_first] = per_page.get(e.page_first, 0) + 1
    openers = {e.page_first for e in doc.elements if e.type == "heading" and e.level == 1}
    missing = [p for p in pages if p not in headed | openers and per_page.get(p, 0) > 1]
    assert len(missing) <= 0.03 * len(pages), missing


@pytest.mark.parametrize(
    ("name", "contents"),
    [
        ("lshort-zh-cn.pdf", (9, 11)),
        ("latex-notes-zh-cn.pdf", (5, 8)),
        ("lshort-persian.pdf", (7, 10)),
        ("lshort-russian.pdf", (9, 13)),
        ("r-intro.pdf", (3, 6)),
    ],
)
def test_contents_entries_are_one_list_and_no_cut_reason(
    name: str, contents: tuple[int, int]
) -> None:
    doc = parsed(name)
    first, last = contents
    on_pages = [e for e in doc.elements if first <= e.page_first <= last]
    lists = [e for e in on_pages if e.type == "list" and e.items and len(e.items) >= 20]
    assert lists and lists[0].page_first == first
    # no entry (a line naming a page) is a heading or starts a numbered candidate
    heads = [plain_text(e) for e in on_pages if e.type == "heading"]
    assert all(entry_number(h, False, 2 * doc.page_count) is None for h in heads), heads
    ids = {e.id for e in on_pages}
    numbered = [c for c in safe_candidates(doc) if c.before_id in ids and c.numbering]
    assert numbered == []


def test_persian_docx_words_and_pages() -> None:
    doc = parsed("debian-handbook-fa-ch03-04.docx")
    words = sum(e.word_count for e in doc.elements)
    # whitespace-separated words, as MANIFEST.md counts them (~24 pages at 400 a page)
    spaced = sum(len(e.text.split()) for e in doc.elements if e.type != "image")
    assert abs(words - spaced) <= 0.1 * spaced
    assert 22 <= words / 400 <= 27
    # with its 23 installer screenshots, as many pages as LibreOffice renders (40)
    assert 36 <= doc.page_count <= 44


def test_chinese_book_end_to_end(tmp_path: Path) -> None:
    """latex-notes-zh-cn: verified, slugs in Chinese, reading time from characters."""
    rt = local_runtime(tmp_path)
    done = run_embedded(rt, CORPUS / "latex-notes-zh-cn.pdf", RunSettings())
    assert done.state == "complete", done.error
    out = outputs(rt, done.doc_id)
    manifest = load_manifest(out["manifest.json"])
    stems = [c.stem for c in manifest.chunks]
    chinese = [s for s in stems if HAN.search(s)]
    assert len(chinese) >= 0.8 * len(stems), stems
    assert all(re.fullmatch(r"\d{2}-[^\W_]+(?:-[^\W_]+)*", s) for s in stems), stems
    # reading time: Chinese characters at 120 a minute, other words at 80, counted here
    # from the written Markdown, within 30 % of the index's total
    ir = load_ir(out["ir.json"])
    text = "\n".join(e.text for e in ir.elements)
    han = len(HAN.findall(text))
    other = len(re.findall(r"[^\W\u4e00-\u9fff]+", text))
    expected = han / CJK_STUDY_RATE + other / WORDS_PER_MINUTE
    index = out["study-index-en.md"].decode()
    total = int(re.search(r"Total study time: (\d+) min", index).group(1))  # type: ignore[union-attr]
    assert abs(total - expected) <= 0.3 * expected, (total, expected)
    # and far from a run of characters counted as one word
    assert total > 2 * len(re.findall(r"[^\W_]+", text)) / WORDS_PER_MINUTE
