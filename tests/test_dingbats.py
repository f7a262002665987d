"""ZapfDingbats read as its symbols: MuPDF gives the number in a glyph's name (`/a12` comes
out as a form feed) or, for `/a1`…`/a9`, the code (`dingbats`)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
from pdf_samples import parsed_text, save_with_contents

from quire.workers.parse.dingbats import ENCODING, dingbats_decoder, is_dingbats
from quire.workers.parse.pdf_tex_fonts import words_decoder
from quire.workers.parse.tex_encodings import T1


def dingbats_pdf(path: Path, lines: list[tuple[str, bytes]], widths: bool = False) -> Path:
    """One page: each line is Helvetica text followed by ZapfDingbats codes, the font not
    embedded (as `\\usepackage{pifont}` with the base fonts leaves it) and with no ToUnicode;
    `widths`: the font dict lists widths for the codes drawn (as an embedded subset's does)."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)

    def new(obj: str) -> int:
        xref = doc.get_new_xref()
        doc.update_object(xref, obj)
        return xref

    drawn = sorted({c for _, codes in lines for c in codes})
    table = ""
    if widths:
        spread = " ".join("700" if c in drawn else "0" for c in range(drawn[0], drawn[-1] + 1))
        table = f" /FirstChar {drawn[0]} /LastChar {drawn[-1]} /Widths [ {spread} ]"
    zapf = new(f"<< /Type /Font /Subtype /Type1 /BaseFont /ZapfDingbats{table} >>")
    helv = new("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    doc.xref_set_key(page.xref, "Resources", f"<< /Font << /F1 {helv} 0 R /Z {zapf} 0 R >> >>")
    ops = []
    for i, (text, codes) in enumerate(lines):
        symbols = "".join(f"\\{c:03o}" for c in codes)
        ops.append(f"BT /F1 11 Tf 40 {250 - 16 * i} Td ({text} ) Tj /Z 11 Tf ({symbols}) Tj ET")
    return save_with_contents(doc, page, ops, path)


def test_check_marks_pointing_hands_and_arrows_read_as_symbols(tmp_path: Path) -> None:
    pdf = dingbats_pdf(
        tmp_path / "ding.pdf",
        [("Done", b"\x34"), ("Failed", b"\x37"), ("Tip", b"\x2b"), ("Next", b"\xe5\xd5")],
    )
    raw = pymupdf.open(pdf)[0].get_text()
    assert "\x14" in raw and "\x0c" in raw  # what MuPDF makes of /a20 and /a12
    text = parsed_text(pdf)
    assert "Done ✔" in text and "Failed ✗" in text and "Tip ☞" in text and "Next ➥→" in text
    assert not any(ord(c) < 32 for c in text)


def test_a_single_digit_glyph_is_told_from_its_namesake_by_the_widths(tmp_path: Path) -> None:
    # code 33 draws /a1 (scissors ✁), and MuPDF gives "!" for it as it does for /a33 (✦)
    with_widths = dingbats_pdf(tmp_path / "w.pdf", [("Cut here", b"\x21")], widths=True)
    assert "Cut here ✁" in parsed_text(with_widths)
    star = dingbats_pdf(tmp_path / "s.pdf", [("Star", b"\x46")], widths=True)
    assert "Star ✦" in parsed_text(star)
    assert dingbats_decoder()[33] == "✦"  # no widths: the two-digit glyph
    # a space and ✥ (/a32, code 69) both come out as " ": a space unless the widths say ✥
    assert 32 not in dingbats_decoder() and 32 not in dingbats_decoder({192, 193})
    assert dingbats_decoder({69})[32] == "✥"


def test_the_encoding_places_every_glyph_once() -> None:
    assert len(ENCODING) == 201
    assert len({name for _, name, _ in ENCODING}) == 201
    assert len({symbol for _, _, symbol in ENCODING}) == 201
    assert {name for _, name, _ in ENCODING} == set(range(1, 207)) - {80, 113, 114, 115, 116}
    code = {name: code for code, name, _ in ENCODING}
    assert code[1] == 0x21 and code[71] == 0x6C and code[120] == 0xAC and code[191] == 0xFE


def test_font_names_and_words_without_fonts() -> None:
    for name in ("ZapfDingbats", "GPUVAA+Dingbats", "ITCZapfDingbats", "ABCDEF+D050000L"):
        assert is_dingbats(name)
    assert not any(is_dingbats(n) for n in ("Wingdings", "DingbatsPlus", "Helvetica"))
    # a page's words (table cells, link texts) keep TeX's ligatures read with a dingbats font
    decoded = words_decoder({"F1": T1, "Dingbats": dingbats_decoder()})("de\x1cnition")
    assert decoded == "definition"
