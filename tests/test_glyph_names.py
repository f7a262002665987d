"""Fonts whose glyph names spell Unicode names, read by those names: thailatex's Thai fonts
(`/ThaiCharacterKoKai`) came out as Latin-1 ("ÊÔ§·Õ" for "สิ่งที่"), a whole Thai manual
(`glyph_names`)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pymupdf
from pdf_samples import parsed_text, save_with_contents

from quire.workers.parse.glyph_names import character, differences, names_decoder

THAI_CODES = range(0xA1, 0xFC)  # TIS-620's letters, vowels, tone marks and digits


def camel(ch: str) -> str:
    """A glyph name as thailatex's fonts spell it: "ThaiCharacterKoKai"."""
    return "".join(w.capitalize() for w in unicodedata.name(ch).replace("-", "_").split())


def thai_encoding(misspelt: dict[int, str] | None = None) -> str:
    names = {}
    for code in THAI_CODES:
        ch = bytes([code]).decode("cp874", "replace")
        if ch != "\ufffd":
            names[code] = camel(ch)
    names.update(misspelt or {})
    listed = " ".join(f"{code} /{n}" for code, n in names.items())
    return f"<< /Type /Encoding /Differences [ 32 /space {listed} ] >>"


def test_names_spell_characters() -> None:
    assert character("ThaiCharacterKoKai") == "ก"
    assert character("ThaiCharacterSaraILeft") == "ิ"  # a positional form: its character
    assert character("ThaiCharacterMaiEkLowLeft") == "่"
    assert character("ThaiCharacterMaiHan_akatLeft") == "ั"
    assert character("ThaiDigitTwo") == "๒"
    assert character("ThaiCharacterOAng") == "อ"
    # the Adobe Glyph List's names are MuPDF's own; a misspelt one spells nothing
    assert [character(n) for n in ("bullet", "space", "FL0127", "ThaiCharacterPhoPla")] == [
        None
    ] * 4


def test_the_code_page_reads_the_misspelt_names() -> None:
    # Norasi names PO PLA "PhoPla" and PHO PHUNG "PoPhung"; TIS-620 places them at 0xBB, 0xBC
    encoding = thai_encoding({0xBB: "ThaiCharacterPhoPla", 0xBC: "ThaiCharacterPoPhung"})
    assert differences(encoding)[0xBB] == "ThaiCharacterPhoPla"
    table = names_decoder(encoding)
    assert table is not None and table[0xBB] == "ป" and table[0xBC] == "ผ" and table[0xA1] == "ก"
    assert 32 not in table  # /space is MuPDF's to read
    assert names_decoder("<< /Differences [ 161 /ThaiCharacterKoKai /bullet ] >>") is None


def test_a_thai_font_without_a_unicode_map_reads_as_thai(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)
    enc = doc.get_new_xref()
    doc.update_object(enc, thai_encoding())
    thai = doc.get_new_xref()
    doc.update_object(
        thai, f"<< /Type /Font /Subtype /Type1 /BaseFont /Norasi /Encoding {enc} 0 R >>"
    )
    doc.xref_set_key(page.xref, "Resources", f"<< /Font << /T {thai} 0 R >> >>")
    lines = ["ภาษาไทย เป็นภาษาราชการ", "สิ่งที่ควรรู้เบื้องต้น ๑.๒"]
    ops = [
        f"BT /T 12 Tf 40 {250 - 20 * i} Td <{line.encode('cp874').hex()}> Tj ET"
        for i, line in enumerate(lines)
    ]
    pdf = save_with_contents(doc, page, ops, tmp_path / "thai.pdf")
    raw = pymupdf.open(pdf)[0].get_text()
    assert "ÀÒÉÒä·Â" in raw  # what MuPDF makes of it: the codes, as Latin-1
    text = parsed_text(pdf)
    assert all(line in text for line in lines), text
