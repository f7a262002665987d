"""Letter-spaced capitals (classicthesis, ArsClassica) read as words, not single letters;
real single-letter words and font specimens keep their spaces."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from quire.workers.parse import parse_document
from quire.workers.parse.letterspacing import Char, closed_up


def _chars(tokens: list[str], gaps: list[float], size: float = 10.0) -> list[Char]:
    """Characters 6 pt wide; between token k and k+1 a space `gaps[k]` em wide."""
    out: list[Char] = []
    x = 72.0
    for k, token in enumerate(tokens):
        for ch in token:
            out.append((ch, x, x + 6))
            x += 6
        if k < len(gaps):
            out.append((" ", x, x + gaps[k] * size))
            x += gaps[k] * size
    return out


def test_tracked_capitals_close_up_and_word_spaces_stay() -> None:
    # ArsClassica: 0.16 em after each letter, "LT" kerned into one token, a word space wider
    tokens = ["D", "E", "R", "Q", "U", "E", "L", "LT", "E", "X", "T"]
    gaps = [0.16, 0.16, 0.55, 0.16, 0.16, 0.16, 0.16, 0.10, 0.16, 0.16]
    assert closed_up(_chars(tokens, gaps), 10.0) == [("D E R Q U E L LT E X T", "DER QUELLTEXT")]


def test_real_spaces_between_single_letters_stay() -> None:
    # a font specimen's alphabet, single-letter words in prose: gaps of a real word space
    assert closed_up(_chars(list("defgh"), [0.67, 0.71, 0.67, 0.77]), 10.0) == []
    assert closed_up(_chars(list("xyzwv"), [0.3, 0.3, 0.3, 0.3]), 10.0) == []
    assert closed_up(_chars(["a", "b", "c"], [0.1, 0.1]), 10.0) == []  # too short a run
    # tightly set short words and a table of letters (the sweep: GregorioRef, cstexman)
    assert closed_up(_chars(["if", "it", "is", "to", "be"], [0.1] * 4), 10.0) == []
    assert closed_up(_chars(list("ÁáÄäČčĎď"), [0.1] * 7), 10.0) == []


def test_a_pdf_with_tracked_chapter_titles_reads_them_as_words(tmp_path: Path) -> None:
    doc = pymupdf.open()
    for title, body in [("GRUNDLAGEN", "Erste Seite."), ("DER QUELLTEXT", "Zweite Seite.")]:
        page = doc.new_page()
        x = 72.0
        for word in title.split():
            for ch in word:  # each letter set on its own, 0.16 em of tracking after it
                page.insert_text((x, 90), ch, fontsize=18, fontname="hebo")
                x += pymupdf.get_text_length(ch, fontname="hebo", fontsize=18) + 0.16 * 18
            x += 0.4 * 18
        page.insert_text((72, 130), body, fontsize=11, fontname="helv")
    doc.save(tmp_path / "tracked.pdf")
    ir = parse_document(tmp_path / "tracked.pdf").document
    headings = [e.text for e in ir.elements if e.type == "heading"]
    assert headings == ["# GRUNDLAGEN", "# DER QUELLTEXT"]
