"""Accents that old TeX fonts draw before their letters are put back on them, in prose,
headings and tables, and in code but for a backquote (the sweep: 85 of 348 manuals)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from pdf_samples import ruled_table

from quire.workers.parse import parse_document
from quire.workers.parse.accents import compose_accents, compose_carets


@pytest.mark.parametrize(
    ("drawn", "read"),
    [
        ("d\u00b4efinitions", "définitions"),  # spacing acute before its letter
        ("fa\u00b8cons", "façons"),  # cedilla
        ("probl`eme, mieux `a du", "problème, mieux à du"),  # a backquote before a vowel
        ("najcz\u02dbe\u00b4sciej", "najczęściej"),  # ogonek, acute
        ("Descripci \u0301on", "Descripción"),  # a space carrying a combining accent
        ("L \u0301\u0131nea", "Línea"),  # on a dotless i, as TeX sets \'\i
        ("Enzyklop\u00a8adie; Introdu\u00b8c\u02dcao", "Enzyklopädie; Introdução"),
        ("\u1fbf\u0391\u03bd\u03bd\u03b1", "Ἀννα"),  # a Greek breathing before its capital
    ],
)
def test_an_accent_drawn_before_its_letter_is_composed(drawn: str, read: str) -> None:
    assert compose_accents(drawn) == read


@pytest.mark.parametrize(
    "text",
    [
        "\u00b40 | \u00b41",  # a font table's accent before digits
        "\u02c6\u03b3",  # no Greek gamma with a circumflex in Unicode
        "``quoted''",  # TeX quotes
        "x\u00af y",  # a macron before a space
    ],
)
def test_no_accented_letter_no_change(text: str) -> None:
    assert compose_accents(text) == text


def test_in_code_a_backquote_stays_and_other_accents_compose() -> None:
    assert compose_accents("[d\u00b4efaut] `echo` `a", code=True) == "[défaut] `echo` `a"


def test_a_pdf_drawn_with_separate_accents_reads_with_accented_letters(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "D\u00b4efinitions", fontsize=16, fontname="hebo")
    body = "Les d\u00b4efinitions sont class\u00b4ees de beaucoup de fa\u00b8cons, `a vous de voir."
    page.insert_text((72, 110), body, fontsize=11, fontname="helv")
    cells = [["Par\u00b4ametro", "S\u00b4imbolo"], ["Masa", "m"], ["Aceleraci\u00b4on", "g"]]
    ruled_table(page, cells, 140.0, 120.0, fontsize=11)
    doc.save(tmp_path / "accents.pdf")
    ir = parse_document(tmp_path / "accents.pdf").document
    assert [e.text for e in ir.elements if e.type != "table"] == [
        "# Définitions",
        "Les définitions sont classées de beaucoup de façons, à vous de voir.",
    ]
    (table,) = [e for e in ir.elements if e.type == "table"]
    assert table.rows == [["Parámetro", "Símbolo"], ["Masa", "m"], ["Aceleración", "g"]]


@pytest.mark.parametrize(
    ("drawn", "read"),
    [
        ("Séquence de contr^ole, m^eme plut^ot", "Séquence de contrôle, même plutôt"),
        ("Ao^ut, s’arr^eterait, Qu^eneau", "Août, s’arrêterait, Quêneau"),
        ("peut ^etre, « ^age »", "peut être, « âge »"),
        ("e^a < e^b, x^i, 2^ab, \\^ab, {^ab}, x_^ab", "e^a < e^b, x^i, 2^ab, \\^ab, {^ab}, x_^ab"),
        ("abcdef^gh", "abcdef^gh"),  # no vowel: no caret of OT1's
    ],
)
def test_a_caret_in_a_word_before_a_vowel_is_ot1s_circumflex(drawn: str, read: str) -> None:
    assert compose_carets(drawn, "ABCDEF+CMR10") == read
    assert compose_carets(drawn, "CMBX12") == read


@pytest.mark.parametrize("font", ["CMTT10", "CMSLTT10", "CMMI10", "drm10", "Helvetica"])
def test_a_caret_in_another_font_is_no_circumflex(font: str) -> None:
    """A typewriter's caret is code's ("{dr^ur}"); drm's own fonts set their "Th" there
    ("^is document", "^e basic")."""
    assert compose_carets("contr^ole, ^is, ^e basic", font) == "contr^ole, ^is, ^e basic"


def test_a_caret_in_computer_modern_is_a_circumflex_and_in_a_typewriter_code(
    tmp_path: Path,
) -> None:
    """latex2e-fr (OT1 fonts) read "Séquence de contr^ole" about 700 times; xypic's
    tutorial sets "\\xy *\\cir<5pt>{dr^ur}" in cmtt, where the caret is the code's."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Le mot de contr^ole peut ^etre court, de m^eme.", fontsize=11)
    page.insert_text((72, 110), "{dr^ur}", fontsize=11, fontname="cour")
    for xref, _ext, _kind, name, *_ in page.get_fonts():
        if name == "Helvetica":  # as TeX names Computer Modern Roman
            doc.xref_set_key(xref, "BaseFont", "/CMR10")
    doc.save(tmp_path / "carets.pdf")
    ir = parse_document(tmp_path / "carets.pdf").document
    assert [e.text for e in ir.elements] == [
        "Le mot de contrôle peut être court, de même.",
        "```\n{dr^ur}\n```",
    ]
