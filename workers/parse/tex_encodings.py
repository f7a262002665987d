"""TeX's font encodings, for fonts that name no glyphs: pdfTeX's bitmap (PK) Type 3 fonts.

A PDF that TeX made with bitmap fonts (MiKTeX without the Type 1 versions of the EC
fonts; old pdfTeX) names every glyph `/a27`, `/a28`...: nothing says which character a
code draws, and MuPDF gives the code itself. Printable codes mostly read right (TeX's text
encodings keep ASCII's letters), but TeX's ligatures, quotes and dashes sit below 32 and
come out as control characters: "de\\x1cnition" for "definition", "\\x10text\\x11" for
"“text”", and in T1 (Cork) the accented letters from 128 are not Latin-1's. The sweep met
them in 5 of 348 manuals: 400 broken words in one French manual alone.

Which encoding a font has is read from its glyph widths (pure; the font's widths come from
`pdf_tex_fonts`): a ligature is about as wide as its letters, so "fi" at code 28 as wide as
"f" plus "i" is T1's and at code 12 OT1's; a Greek letter of the math fonts at the same
codes is not. Only codes whose meaning is sure are mapped: T1's whole table but for its
printable ASCII, OT1's codes below 32 (its typewriter fonts differ above them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

Encoding = Literal["T1", "OT1"]

_LIGATURES = ["ff", "fi", "fl", "ffi", "ffl"]
# T1: 0-12 spacing accents (`accents` composes them with the letter after), 13-20 quotes
# and guillemets, 21-22 dashes, 23 the compound-word mark (zero width: dropped), 24 a
# perthousand zero, 25-26 dotless i and j, 27-31 ligatures; 127 the hyphen TeX breaks
# words with; 128-191 Central European letters; four codes above 191 that are not Latin-1's.
_T1_LOW = [*"`´ˆ˜¨˝˚ˇ˘¯˙¸˛‚‹›“”„«»–—", "", "0", "ı", "ȷ", *_LIGATURES]
_T1_HIGH = "ĂĄĆČĎĚĘĞĹĽŁŃŇŊŐŔŘŚŠŞŤŢŰŮŸŹŽŻĲİđ§ăąćčďěęğĺľłńňŋőŕřśšşťţűůÿźžżĳ¡¿£"
T1: dict[int, str] = {
    **dict(enumerate(_T1_LOW)),
    127: "-",
    **{128 + i: c for i, c in enumerate(_T1_HIGH)},
    215: "Œ",
    223: "SS",
    247: "œ",
    255: "ß",
}
# OT1: 0-10 Greek capitals, 11-15 ligatures, 16-31 dotless letters, accents and letters.
OT1: dict[int, str] = dict(enumerate([*"ΓΔΘΛΞΠΣΥΦΨΩ", *_LIGATURES, *"ıȷ`´ˇ˘¯˚¸ßæœøÆŒØ"]))
_TABLES: dict[Encoding, dict[int, str]] = {"T1": T1, "OT1": OT1}
_FIRST_LIGATURE: dict[Encoding, int] = {"T1": 27, "OT1": 11}
_NEAR = (0.85, 1.02)  # a ligature's width over its letters' (kerned a little closer)
_MANY_HIGH = 20  # a font drawing more codes above 191 than this is no Latin T1 (T2A...)


def font_encoding(widths: Mapping[int, float]) -> Encoding | None:
    """The TeX encoding of a font that names no glyphs, from its widths by code (codes it
    does not draw absent or 0): T1 or OT1 when its ligature codes are as wide as their
    letters (more of them than not), T1 when it draws none but T1's quotes (`_t1_quotes`),
    else None (a math or symbol font: left as it is)."""
    votes: dict[Encoding, int] = {}
    for enc, first in _FIRST_LIGATURE.items():
        votes[enc] = 0
        for code, letters in enumerate(_LIGATURES, start=first):
            width = widths.get(code, 0)
            parts = [widths.get(ord(c), 0) for c in letters]
            if width > 0 and min(parts) > 0:
                votes[enc] += 1 if _NEAR[0] <= width / sum(parts) <= _NEAR[1] else -1
    found = [enc for enc, v in votes.items() if v > 0]
    if not any(votes.values()) and _t1_quotes(widths):
        return "T1"
    return found[0] if len(found) == 1 else None


def _t1_quotes(widths: Mapping[int, float]) -> bool:
    """T1's quotes and en dash (16, 17, 21), two or more drawn, all of one width as TeX's
    fonts make them (OT1's dotless letters and breve there, or a math font's Greek, are
    not): a font with quotes and no ligature is T1's too."""
    drawn = [w for c in (16, 17, 21) if (w := widths.get(c, 0)) > 0]
    return len(drawn) >= 2 and max(drawn) <= min(drawn) * 1.01


def decoder(encoding: Encoding, widths: Mapping[int, float]) -> dict[int, str]:
    """A `str.translate` table reading MuPDF's codes of a font in `encoding` as text (T1's
    letters above 127 only for a font that draws few codes above 191, as Latin text does:
    a Cyrillic T2A font shares T1's low codes, not its high ones)."""
    table = _TABLES[encoding]
    if encoding == "T1" and sum(1 for c, w in widths.items() if c > 191 and w > 0) > _MANY_HIGH:
        return {k: v for k, v in table.items() if k < 128}
    return table


def low_codes(table: Mapping[int, str | None]) -> dict[int, str | None]:
    """The part of a decoder below 32: control characters only, so safe to apply to text
    whose font is unknown (a page's words, for table cells and link texts)."""
    return {k: v for k, v in table.items() if k < 32}
