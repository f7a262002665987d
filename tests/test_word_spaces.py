"""Word spaces from character boxes: letter-spaced capitals (classicthesis, ArsClassica)
read as words, not single letters, while real single-letter words and font specimens keep
their spaces; a word space MuPDF leaves out after a Vietnamese letter comes back."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from quire.workers.parse import parse_document
from quire.workers.parse.word_spaces import (
    TOKEN,
    Char,
    closed_up,
    rtl_spaces,
    spaced_out,
    with_spaces,
)


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


def test_a_word_space_gap_without_a_space_becomes_one() -> None:
    # amsldoc-vi: "số" then a 3.64 pt gap (a word space at 10.9 pt) then "thuật", no space
    chars: list[Char] = [("s", 175.6, 179.9), ("ố", 179.9, 184.2), ("t", 187.8, 192.0)]
    chars += [("h", 192.0, 198.1), ("u", 198.1, 204.2), ("ậ", 204.2, 209.6), ("t", 209.6, 213.8)]
    assert spaced_out(chars, 10.9) == [("sốthuật", "số thuật")]
    kerned = [("A", 0.0, 7.0), ("V", 6.0, 13.0), ("o", 13.5, 18.0)]  # tight or slightly apart
    assert spaced_out(kerned, 10.0) == []


def test_vietnamese_lines_get_their_lost_word_spaces_back(tmp_path: Path) -> None:
    """Each syllable set on its own with a word space between, as a PDF that draws no space
    character has it; on a page with Vietnamese letters the spaces come from the gaps."""
    font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"  # Debian fonts-dejavu-core
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="dv", fontfile=font)
    page.insert_text((72, 90), "Thuật ngữ", fontsize=18, fontname="dv")
    x = 72.0
    for word in [
        "Dưới",
        "đây",
        "là",
        "một",
        "số",
        "thuật",
        "ngữ",
        "dùng",
        "trong",
        "tài",
        "liệu",
        "này.",
    ]:
        page.insert_text((x, 130), word, fontsize=11, fontname="dv")
        x += pymupdf.Font(fontfile=font).text_length(word, fontsize=11) + 0.33 * 11
    doc.save(tmp_path / "vi.pdf")
    ir = parse_document(tmp_path / "vi.pdf").document
    assert [e.text for e in ir.elements] == [
        "# Thuật ngữ",
        "Dưới đây là một số thuật ngữ dùng trong tài liệu này.",
    ]


def test_a_word_ending_in_a_ligature_keeps_the_space_after_it(tmp_path: Path) -> None:
    """Each word set on its own with a word space between, as TeX and Ghostscript set
    them: MuPDF loses the space after a word that ends in a ligature glyph ("turn oﬀthe
    light", LilyPond's "staﬀtemplates"), and keeps a ligature inside a word whole."""
    font = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"  # Debian fonts-dejavu-core
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="dv", fontfile=font)
    x = 72.0
    for word in ["Turn", "oﬀ", "the", "diﬀerent", "staﬀ", "lines", "and", "stuﬀ."]:
        page.insert_text((x, 130), word, fontsize=11, fontname="dv")
        x += pymupdf.Font(fontfile=font).text_length(word, fontsize=11) + 0.33 * 11
    doc.save(tmp_path / "ff.pdf")
    ir = parse_document(tmp_path / "ff.pdf").document
    assert [e.text for e in ir.elements] == ["Turn off the different staff lines and stuff."]


def test_korean_words_keep_their_spaces(tmp_path: Path) -> None:
    """MuPDF sets Korean like Chinese, without the word spaces (lshort-ko and four more
    Korean manuals of the sweep read "작성자가만들려고하는문서의" throughout)."""
    doc = pymupdf.open()
    page = doc.new_page()
    font, x = pymupdf.Font("korea"), 72.0
    line = "작성자가 만들려고 하는 문서의 유형에 대한 것이다."
    for word in line.split(" "):
        page.insert_text((x, 100), word, fontsize=11, fontname="korea")
        x += font.text_length(word, fontsize=11) + 0.33 * 11
    doc.save(tmp_path / "ko.pdf")
    ir = parse_document(tmp_path / "ko.pdf").document
    assert [e.text for e in ir.elements] == [line]


def _rtl_chars(words: list[str], gaps: list[float], size: float = 10.0) -> list[Char]:
    """Letters 5 pt wide set leftward from x = 500, as a right-to-left line reads them (a
    Latin word among them reads left to right); between word k and k+1 no space character,
    only a gap `gaps[k]` em wide."""
    out: list[Char] = []
    x = 500.0
    for k, word in enumerate(words):
        ltr = word.isascii()
        x -= 5 * len(word) if ltr else 0
        for j, ch in enumerate(word):
            out.append((ch, x + 5 * j, x + 5 * j + 5) if ltr else (ch, x - 5, x))
            x -= 0 if ltr else 5
        if k < len(gaps):
            x -= gaps[k] * size
    return out


def _spaced(chars: list[Char], size: float = 10.0) -> list[tuple[str, str]]:
    text = "".join(c for c, _, _ in chars)
    return with_spaces(text, TOKEN, rtl_spaces(chars, size))


def test_a_right_to_left_line_gets_its_lost_word_spaces_back() -> None:
    # lshort-persian: a justified line's words 0.11 em apart, no space character between
    assert _spaced(_rtl_chars(["ساخته", "شده"], [0.11])) == [("ساختهشده", "ساخته شده")]
    # letters that touch or overlap (a final yeh under the next letter) are one word
    assert _spaced(_rtl_chars(["کتاب", "ها"], [0.0])) == []
    assert _spaced(_rtl_chars(["چیز", "ی"], [-0.1])) == []
    # a kashida package's stretched specimen: 0.12 em inside a word, words 0.25 em apart
    chars = _rtl_chars(["راه", "ی", "تلاش", "چاپ"], [0.12, 0.25, 0.25])
    assert _spaced(chars) == [("راهیتلاشچاپ", "راهی تلاش چاپ")]
    # a gap beside a tatweel stretches the word
    assert _spaced(_rtl_chars(["بـ", "ـه"], [0.3])) == []
    # a Latin word reads left to right: the gap is between the runs, not their letters
    chars = _rtl_chars(["فرمان", "article", "از"], [0.25, 0.25])
    assert _spaced(chars) == [("فرمانarticleاز", "فرمان article از")]
    assert _spaced(_rtl_chars(["فرمان", "article"], [0.0])) == []
    # a full stop set against its word, the next sentence a word space further left
    assert _spaced(_rtl_chars(["است", ".", "کنوث"], [0.0, 0.2])) == [("است.کنوث", "است. کنوث")]
    # a left-to-right line is not read right to left
    assert rtl_spaces(_chars(["ab", "cd"], []), 10.0) == []


def test_persian_lines_get_their_lost_word_spaces_back(tmp_path: Path) -> None:
    """Presentation forms set right to left in one text object, words 0.12 em apart with
    no space between (as XeTeX set lshort-persian): MuPDF reads the line as one word."""
    font = pymupdf.Font(fontfile="/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    doc = pymupdf.open()
    page = doc.new_page()
    writer = pymupdf.TextWriter(page.rect)
    x = 500.0
    for word in ["ﺑﺮای", "اﻧﺘﺸﺎر", "ﭼﯿﺰی", "ﻧﻮﯾﺴﻨﺪﮔﺎن"]:
        for ch in word:
            x -= font.text_length(ch, fontsize=11)
            writer.append((x, 130), ch, font=font, fontsize=11)
        x -= 0.12 * 11
    writer.write_text(page)
    doc.save(tmp_path / "fa.pdf")
    assert pymupdf.open(tmp_path / "fa.pdf")[0].get_text().strip() == "ﺑﺮایاﻧﺘﺸﺎرﭼﯿﺰیﻧﻮﯾﺴﻨﺪﮔﺎن"
    ir = parse_document(tmp_path / "fa.pdf").document
    assert [e.text for e in ir.elements] == ["برای انتشار چیزی نویسندگان"]
