"""TeX symbol fonts whose symbols MuPDF reads as letters and digits: AMS blackboard bold
(msbm) and LaTeX's latexsym (lasy).

Their glyph names are either plain letters (msbm draws ℝ as glyph "R") or no standard
names at all, and TeX writes no Unicode map for them (pdfTeX's glyphtounicode, when
loaded, maps the letter names to the letters), so MuPDF gives "x ∈ R" for x ∈ ℝ, "2" and
"3" for latexsym's □ and ◇, control characters for its triangles. Neither font draws a
letter or digit of text, so a character read in one of them is its symbol whatever gave
it, the font's codes or its map. Only codes whose symbol is sure are read (msbm's
capitals and a few more, all of lasy's that latexsym names); the rest stay as MuPDF gives
them. 39 of the 368 TL and corpus PDFs read differently, by 831 characters one for one:
ℂ, ℝ, ℤ, ℕ ... (ctex-faq's ℂTEX logo 108 times, a cohomology table's ℤ/3 77 times), ulem's
wavy underline as ∼ rather than ":", and lshort's symbol tables in every language.
"""

from __future__ import annotations

import re

# msbm: A-Z are the double-struck capitals (Unicode keeps seven of them in Letterlike
# Symbols), "k" is \Bbbk; codes 0x70 and 0x71 (read as "p", "q") \shortmid, \shortparallel.
_DOUBLE_STRUCK = {c: chr(0x1D538 + i) for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")} | {
    "C": "ℂ",
    "H": "ℍ",
    "N": "ℕ",
    "P": "ℙ",
    "Q": "ℚ",
    "R": "ℝ",
    "Z": "ℤ",
}
MSBM: dict[int, str] = {ord(c): s for c, s in _DOUBLE_STRUCK.items()} | {
    ord("k"): "𝕜",
    ord("p"): "∣",
    ord("q"): "∥",
}
# lasy (latexsym): \lhd \unlhd \rhd \unrhd at 1-4; \mho \Join \Box \Diamond at "30-"33;
# \leadsto's wave piece and arrow, \sqsubset, \sqsupset at "3A-"3D.
LASY: dict[int, str] = {1: "◁", 2: "⊴", 3: "▷", 4: "⊵"} | {
    ord(c): s for c, s in zip("0123:;<=", "℧⋈□◇∼↝⊏⊐", strict=True)
}

# Each symbol back as MuPDF reads it: the text under a PDF link comes from the page's
# words, which know no fonts ("CTEX" for the ℂTEX a paragraph reads), and links are found
# by their text. One character for one, so positions in a text stay where they were.
AS_READ: dict[int, str] = {ord(s): chr(code) for table in (MSBM, LASY) for code, s in table.items()}

_FAMILIES = ((re.compile(r"msbm\d+", re.I), MSBM), (re.compile(r"lasyb?\d+", re.I), LASY))


def symbol_font_decoder(font: str) -> dict[int, str] | None:
    """The decoder of `font` (a span's font name) if it is one of these symbol fonts."""
    plain = font.split("+")[-1]
    return next((table for family, table in _FAMILIES if family.fullmatch(plain)), None)
