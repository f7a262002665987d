"""TeX's math extension fonts read as their symbols: cmex10 and the fonts set out like it
(TeX's OMX encoding: Latin Modern's, txfonts', pxfonts', Euler's, Charter's).

They draw the big operators and delimiters of displayed formulas: sums, integrals, roots,
and parentheses, brackets and braces in four sizes or built from pieces. Their glyph
names ("summationdisplay", "parenleftbigg") are no standard ones and TeX writes no
Unicode map for them, so MuPDF gives the codes: "Z b a f(x) dx" for an integral, "X" and
"P" for sums, "p" for a root, control characters for parentheses (120 of the 522 PDFs
of the TL and ninth sweep samples and the corpus, lshort in every language among them).
A few piece names MuPDF knows from Adobe's Symbol font and gives as private-use
characters. The encoding is fixed, so a code is read as its symbol: every size as the one
character, the pieces of a built-up delimiter as Unicode's bracket pieces.
"""

from __future__ import annotations

import re

_FAMILY = re.compile(r"cmexb?\d+|euex\d+|lmex\d+|lmmathextension.*|[pt]xexs?|chmathex", re.I)

# OMX codes 0-127 in order ("(" for parenleftbig, "∑" for summationtext ...).
_SIZES = "()[]⌊⌋⌈⌉{}⟨⟩|‖/\\" + "()()[]⌊⌋⌈⌉{}⟨⟩/\\" + "()[]⌊⌋⌈⌉{}⟨⟩/\\/\\"
_PIECES = "⎛⎞⎡⎤⎣⎦⎢⎥⎧⎫⎩⎭⎨⎬⎪⏐" + "⎝⎠⎜⎟⟨⟩"
_OPERATORS = "⨆⨆∮∮⨀⨀⨁⨁⨂⨂" + "∑∏∫⋃⋂⨄⋀⋁" * 2 + "∐∐" + "^^^~~~"
_MORE = "[]⌊⌋⌈⌉{}" + "√√√√⎷⏐⏐‖↑↓⏞⏞⏟⏟⇑⇓"
OMX = _SIZES + _PIECES + _OPERATORS + _MORE
assert len(OMX) == 128

# Symbol-font piece names MuPDF knows, as it gives them (U+F8E5 radicalex ... U+F8FE)
_SYMBOL_PIECES = {
    0xF8E5: "⏐",
    0xF8E6: "⏐",
    0xF8E7: "⎯",
    **{0xF8EB + i: c for i, c in enumerate("⎛⎜⎝⎡⎢⎣⎧⎨⎩⎪⎮⎞⎟⎠⎤⎥⎦⎫⎬⎭")},
}

# (Code 32, parenleftBigg, is left alone: MuPDF puts a space where glyphs stand apart.)
DECODER: dict[int, str] = {**dict(enumerate(OMX)), **_SYMBOL_PIECES}
del DECODER[32]

_BFCHAR = re.compile(rb"beginbfchar(.*?)endbfchar", re.DOTALL)
_BFRANGE = re.compile(rb"beginbfrange(.*?)endbfrange", re.DOTALL)
_RANGE = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(\[[^\]]*\]|<[0-9A-Fa-f]*>)")
_HEX = re.compile(rb"<([0-9A-Fa-f]*)>")


def is_math_extension(font: str) -> bool:
    """Is `font` (a span's font name, as MuPDF may shorten it) a math extension font?"""
    return _FAMILY.fullmatch(font.split("+")[-1]) is not None


def decoder(to_unicode: bytes | None) -> dict[int, str]:
    """The decoder of a math extension font with the ToUnicode map `to_unicode` (None:
    it has none). A map often names only some glyphs (pdfTeX's glyphtounicode: "(" for
    parenleftbig, nothing for summationdisplay): MuPDF reads those as the map says and the
    rest as codes, so a character the map can give ("(", "{") is left as it is, and only
    the others are read as codes."""
    if to_unicode is None:
        return DECODER
    given = cmap_characters(to_unicode)
    # (a private-use piece is one whichever way it came)
    return {c: v for c, v in DECODER.items() if c in _SYMBOL_PIECES or chr(c) not in given}


def cmap_characters(cmap: bytes) -> set[str]:
    """Every character a ToUnicode CMap can give (its bfchar and bfrange targets)."""
    targets: list[str] = []
    for body in _BFCHAR.findall(cmap):
        targets += [_utf16(h) for h in _HEX.findall(body)[1::2]]
    for body in _BFRANGE.findall(cmap):
        for lo, hi, dst in _RANGE.findall(body):
            if dst.startswith(b"["):
                targets += [_utf16(h) for h in _HEX.findall(dst)]
                continue
            first = _utf16(dst[1:-1])
            if not first:
                continue
            span = min(int(hi, 16) - int(lo, 16), 0xFFFF)
            last = ord(first[-1])
            targets += [first[:-1] + chr(last + i) for i in range(span + 1) if last + i < 0x110000]
    return {c for t in targets for c in t}


def _utf16(hex_digits: bytes) -> str:
    raw = bytes.fromhex(hex_digits.decode().ljust(len(hex_digits) + len(hex_digits) % 2, "0"))
    return raw.decode("utf-16-be", errors="replace")
