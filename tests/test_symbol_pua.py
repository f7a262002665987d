"""Word's Symbol and Wingdings fonts read as their characters: MuPDF gives a symbolic
TrueType font's characters as U+F020-U+F0FF (`symbol_pua`). Word's bulleted list was
paragraphs opening with U+F0B7 (Simbody's Simmath guide)."""

from __future__ import annotations

from typing import Any

from quire.workers.parse.pdf_tex_fonts import decode_text, page_decoders
from quire.workers.parse.symbol_pua import SYMBOL, WINGDINGS, pua_decoder


class _Page:
    """What `page_decoders` asks of a PyMuPDF page: its fonts, as `Page.get_fonts` lists
    them (xref, extension, type, name, resource name, encoding)."""

    def __init__(self, fonts: list[tuple[int, str, str, str, str, str]]) -> None:
        self.fonts = fonts

    def get_fonts(self) -> list[tuple[int, str, str, str, str, str]]:
        return self.fonts


def _text(spans: list[tuple[str, str]]) -> dict[str, Any]:
    lines = [{"spans": [{"font": f, "text": t}]} for f, t in spans]
    return {"blocks": [{"type": 0, "lines": lines}]}


def test_words_bullets_greek_and_brackets_read_as_characters() -> None:
    page = _Page(
        [
            (7, "ttf", "TrueType", "ABCDEF+SymbolMT", "F1", ""),
            (8, "ttf", "TrueType", "GHIJKL+Wingdings-Regular", "F2", ""),
            (9, "ttf", "TrueType", "MNOPQR+TimesNewRomanPSMT", "F3", ""),
        ]
    )
    text = _text(
        [
            ("SymbolMT", "\uf0b7"),
            ("TimesNewRomanPSMT", " the characteristic time scale "),
            ("SymbolMT", "\uf074 \uf03d \uf061\uf0b4\uf062 \uf0e6\uf0e8"),
            ("Wingdings-Regular", "\uf0a7\uf0d8\uf0fc\uf0e0"),
            ("TimesNewRomanPSMT", "\uf0b7 kept: not a symbol font"),
        ]
    )
    decoders = page_decoders(None, page, text, {})
    assert set(decoders) == {"SymbolMT", "Wingdings-Regular"}
    decode_text(text, decoders)
    got = [s["text"] for line in text["blocks"][0]["lines"] for s in line["spans"]]
    assert got[0] == "•" and got[2] == "τ = α×β ⎛⎝"
    assert got[3] == "▪➢✓\uf0e0"  # a Wingdings arrow not in the table stays as it was
    assert got[4] == "\uf0b7 kept: not a symbol font"


def test_the_tables_and_font_names() -> None:
    assert len(SYMBOL) == 189 and len(set(SYMBOL.values())) == 186  # ®©™ serif and sans
    assert all(0xF020 <= k <= 0xF0FE for k in SYMBOL)
    assert not any(0xE000 <= ord(c) <= 0xF8FF for c in SYMBOL.values())  # none left private
    assert WINGDINGS[0xF0FC] == "✓"
    for name in ("SymbolMT", "ABCDEF+SymbolMT", "Symbol", "Symbol,Bold", "Wingdings-Regular"):
        assert pua_decoder(name) is not None
    for name in ("SymbolPS", "TimesNewRomanPSMT", "ZapfDingbats"):
        assert pua_decoder(name) is None
