"""Glyphs that extract as something other than the letters they show, read as those
letters: Latin ligatures ("ﬁ"), Arabic presentation forms (NFKC gives their letters) and
Adobe's private-use old-style figures ("zerooldstyle" U+F730 .. "nineoldstyle" U+F739 in
the Adobe Glyph List, which NFKC keeps: the sweep met 12,753 in 18 manuals, numprint's
numbers, bgteubner-cm's headings), and the soft hyphen U+00AD: in a PDF it is a glyph drawn
on the page, a hyphen the reader sees (OpenOffice's export maps its hyphen so: Faust's
slides said "real\u00adtime", which a browser shows as "realtime" and a search for
"real-time" misses); at a line end it is then a break like any other. A spacing tilde
U+02DC against a slash is the tilde of a path or URL ("˜/.bashrc", "cs.wisc.edu/˜ghost"):
groff's and TeX's fonts name that glyph "tilde", the accent, and a reader who copies the
path needs "~". U+FFFF (or U+FFFE) is what MuPDF gives for a glyph whose font maps it to
no character ("1 \uffffm" for toptesi's "1 µm"): it reads as U+FFFD, the character a
reader sees as missing, which the parse already counts as unmapped, where U+FFFF shows as
nothing. (The noncharacters of the other planes are the parser's own marks: a footnote's
mark, `pdf_footnotes.NOTE_OPEN`, is wrapped in them before its line comes here.)

Text rows, table cells and link texts all go through `expand_glyphs`, so a word reads the
same wherever the page sets it ("eﬀect" in a table cell is "effect", as in the text).
"""

from __future__ import annotations

import re
import unicodedata

PRESENTATION = re.compile(r"[\ufb50-\ufdff\ufe70-\ufeff]")
_PATH_TILDE = r"(?<=/)\u02dc|\u02dc(?=/)"
_NONCHARACTERS = "\ufffe\uffff"
COMPAT = re.compile(
    r"[\u00ad\ufb00-\ufb06\ufb50-\ufdff\ufe70-\ufefe\uf730-\uf739]+|"
    + _PATH_TILDE
    + f"|[{_NONCHARACTERS}]+"
)
_OLDSTYLE = str.maketrans({0xAD: "-"} | {0xF730 + i: str(i) for i in range(10)})


def expand_glyphs(text: str) -> str:
    """Latin ligatures (ﬁ) and Arabic presentation forms -> their letters (NFKC), old-style
    figures -> digits, soft hyphens -> hyphens, a path's spacing tilde -> "~", a
    noncharacter -> U+FFFD."""
    return COMPAT.sub(_expanded, text)


def _expanded(m: re.Match[str]) -> str:
    if m.group() == "\u02dc":
        return "~"
    if m.group()[0] in _NONCHARACTERS:
        return "\ufffd" * len(m.group())
    return unicodedata.normalize("NFKC", m.group()).translate(_OLDSTYLE)
