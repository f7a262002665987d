"""Word's Symbol and Wingdings fonts read as their characters, not as private-use codes.

A PDF that Microsoft Word made embeds SymbolMT or Wingdings as a symbolic TrueType font,
whose characters MuPDF gives as U+F020-U+F0FF (the font's code plus U+F000): Word's list
bullet • came out as U+F0B7, so a bulleted list was paragraphs opening with an invisible
character; an equation's α as U+F061 and its tall brackets as U+F0E6… (Simbody's manuals,
Maxima's papers: 1,762 such characters in 3 of 419 sweep documents). Symbol's table is
Adobe's Symbol encoding as MuPDF reads the base font (its private-use pieces given their
Unicode characters); Wingdings' has the bullets and marks lists use.
"""

from __future__ import annotations

import re

_PUA = 0xF000
# Adobe's Symbol encoding from code 32 to 126 and from 160 to 254 (code 240 is empty)
_SYMBOL_LOW = (
    " !∀#∃%&∋()∗+,−./0123456789:;<=>?≅"
    + "ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ"
    + "[∴]⊥_‾"
    + "αβχδεφγηιϕκλμνοπθρστυϖωξψζ"
    + "{|}∼"
)
_SYMBOL_HIGH = (
    "€ϒ′≤⁄∞ƒ♣♦♥♠↔←↑→↓°±″≥×∝∂•÷≠≡≈…⏐⎯↵ℵℑℜ℘⊗⊕∅∩∪⊃⊇⊄⊂⊆∈∉∠∇®©™∏√⋅¬∧∨⇔⇐⇑⇒⇓◊〈®©™∑⎛⎜⎝⎡⎢⎣⎧⎨⎩⎪"
    " 〉∫⌠⎮⌡⎞⎟⎠⎤⎥⎦⎫⎬⎭"
)
SYMBOL: dict[int, str] = {
    **{_PUA + 32 + i: c for i, c in enumerate(_SYMBOL_LOW)},
    **{_PUA + 160 + i: c for i, c in enumerate(_SYMBOL_HIGH) if i != 80},
}
# Wingdings' list bullets and marks
_WINGDINGS = {
    0x6C: "●",
    0x6E: "■",
    0x71: "❑",
    0x76: "❖",
    0xA7: "▪",
    0xD8: "➢",
    0xFB: "✗",
    0xFC: "✓",
}
WINGDINGS: dict[int, str] = {_PUA + code: c for code, c in _WINGDINGS.items()}

_SYMBOL_FONT = re.compile(r"^(?:[A-Z]{6}\+)?Symbol(?:MT)?(?:[,-].*)?$", re.IGNORECASE)
_WINGDINGS_FONT = re.compile(r"^(?:[A-Z]{6}\+)?Wingdings\b", re.IGNORECASE)


def pua_decoder(font_name: str) -> dict[int, str] | None:
    """The `str.translate` table of a Symbol or Wingdings font, else None."""
    if _SYMBOL_FONT.match(font_name):
        return SYMBOL
    if _WINGDINGS_FONT.match(font_name):
        return WINGDINGS
    return None
