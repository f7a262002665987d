"""A page's TeX bitmap fonts read as text (`tex_encodings` says why and how), its
ZapfDingbats as symbols (`dingbats`), TeX's math extension fonts as their big operators
and delimiters (`math_extension`), LaTeX's picture-mode fonts as nothing
(`picture_fonts`), AMS blackboard bold and latexsym as their symbols (`tex_symbols`),
Word's Symbol and Wingdings fonts as their characters (`symbol_pua`), and fonts whose
glyph names spell Unicode names by those names (`glyph_names`: thailatex's Thai fonts).

Only pages whose text holds a code such a font would give (a control character, or a
Latin-1 letter T1 reads otherwise) look at their fonts; a reader's decision for a font is
cached by the reader and the font's xref for the whole range.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from quire.workers.parse.dingbats import dingbats_decoder, is_dingbats
from quire.workers.parse.glyph_names import names_decoder
from quire.workers.parse.math_extension import decoder as math_extension_decoder
from quire.workers.parse.math_extension import is_math_extension
from quire.workers.parse.picture_fonts import DECODER as PICTURE
from quire.workers.parse.picture_fonts import is_picture_font
from quire.workers.parse.symbol_pua import pua_decoder
from quire.workers.parse.tex_encodings import decoder, font_encoding, low_codes
from quire.workers.parse.tex_symbols import symbol_font_decoder

# A `str.translate` table for a font's text (None: the character is dropped).
Decoder = Mapping[int, str | None]
# (reader, font xref) -> the font's decoder (None: leave it); a font may be asked by two
# readers (a Type 1 math extension font by the math and the glyph-name readers)
FontCache = dict[tuple[str, int], Decoder | None]

_SUSPECT = re.compile(r"[\x00-\x1f\x7f-\xbf\xd7\xdf\xf7\xff\uf020-\uf0ff]")
_LATIN1_HIGH = re.compile(r"[\x80-\xff]")
_UNNAMED = re.compile(r"/(?!a\d+\b|\.notdef\b|Type\b|Encoding\b|Differences\b)\w")
_NUMBER = re.compile(r"-?\d+(?:\.\d*)?|-?\.\d+")


def page_decoders(
    doc: Any, page: Any, text: dict[str, Any], cache: FontCache
) -> dict[str, Decoder]:
    """Decoders by font name for the TeX bitmap fonts of `page` whose encoding is known,
    its ZapfDingbats and its Word Symbol and Wingdings fonts, when its `text` ("dict" or
    "rawdict") holds a code they would misread or a span in ZapfDingbats; and for the
    math extension, picture-mode and symbol fonts its spans are set in."""
    spans = _spans(text)
    fonts = {s["font"] for s in spans}
    out: dict[str, Decoder] = {f: d for f in fonts if (d := _fixed_decoder(f)) is not None}
    # (a math extension font's every code is a symbol, "X" for a sum as much as "\x00")
    math = [f for f in fonts if is_math_extension(f)]
    dingbats_spans = any(is_dingbats(f) for f in fonts)  # per font
    # (one search over the page's text: the pattern matches single characters)
    suspect = dingbats_spans or bool(_SUSPECT.search("".join(map(_span_text, spans))))
    if not math and not suspect:
        return out
    page_fonts = page.get_fonts()
    out.update(_math_extension_decoders(doc, page_fonts, math, cache))
    if not suspect:
        return out
    coded = {s["font"] for s in spans if _LATIN1_HIGH.search(_span_text(s))}
    for xref, _ext, kind, name, *_ in page_fonts:
        plain = name.split("+")[-1]  # as a span names it: without the subset prefix
        dingbats = kind == "Type1" and is_dingbats(name)
        symbols = pua_decoder(name)  # Word's Symbol and Wingdings
        if symbols is not None:
            out[plain] = symbols
        # glyphs named in Unicode's words: MuPDF gave the code of a name it does not know
        if xref > 0 and kind in ("TrueType", "Type1") and plain in coded:
            key = ("named", xref)
            if key not in cache:
                cache[key] = _named_decoder(doc, xref)
            if (table := cache[key]) is not None:
                out.setdefault(plain, table)  # (after a math or symbol font's own)
        if xref <= 0 or not (kind == "Type3" or dingbats):
            continue
        key = ("tex", xref)
        if key not in cache:
            cache[key] = _dingbats_decoder(doc, xref) if dingbats else _font_decoder(doc, xref)
        table = cache[key]
        if table is not None:
            out[plain if dingbats else name] = table
    return out


def _math_extension_decoders(
    doc: Any, page_fonts: list[Any], names: list[str], cache: FontCache
) -> dict[str, Decoder]:
    """Decoders of the page's math extension fonts (`page_fonts`: its `get_fonts()`) by
    the names its spans give them (a font's name, or its start: MuPDF shortens long ones);
    where one name stands for several fonts, the decoder that changes least."""
    out: dict[str, Decoder] = {}
    for xref, _ext, _kind, font, *_ in page_fonts:
        plain = font.split("+")[-1]
        for name in names:
            if xref <= 0 or not plain.startswith(name):
                continue
            key = ("math", xref)
            if key not in cache:
                kind, value = doc.xref_get_key(xref, "ToUnicode")
                cmap = doc.xref_stream(int(value.split()[0])) if kind == "xref" else None
                cache[key] = math_extension_decoder(cmap)
            table = cache[key] or {}
            if name not in out or len(table) < len(out[name]):
                out[name] = table
    return out


def decode_text(text: dict[str, Any], decoders: dict[str, Decoder]) -> None:
    """Rewrite in place the spans of `text` ("dict": their text; "rawdict": their
    characters) set in a font of `decoders`."""
    if not decoders:  # nearly every page: no TeX bitmap font to read
        return
    for span in _spans(text):
        table = decoders.get(span["font"])
        if table is None:
            continue
        if "chars" in span:
            for ch in span["chars"]:
                ch["c"] = ch["c"].translate(table)
            # a glyph read as nothing (a picture font's stroke) is no character of the line
            span["chars"] = [ch for ch in span["chars"] if ch["c"]]
        else:
            span["text"] = span["text"].translate(table)


def words_decoder(decoders: dict[str, Decoder]) -> Callable[[str], str]:
    """For text read without its fonts (a page's words: table cells, link texts): the
    control characters the page's TeX fonts agree on, or no change when they differ."""
    tables = {
        tuple(sorted(low_codes(t).items()))
        for name, t in decoders.items()
        # symbols: no letter of a word is set in them
        if not (is_dingbats(name) or is_math_extension(name) or _fixed_decoder(name))
    }
    if len(tables) != 1:
        return str
    low = dict(tables.pop())
    return lambda s: s.translate(low)


def _fixed_decoder(font: str) -> Decoder | None:
    """The decoder of a font whose every code is known from its name alone."""
    return PICTURE if is_picture_font(font) else symbol_font_decoder(font)


def _spans(text: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        s for b in text["blocks"] if b["type"] == 0 for line in b["lines"] for s in line["spans"]
    ]


def _span_text(span: dict[str, Any]) -> str:
    if "chars" in span:
        return "".join(c["c"] for c in span["chars"])
    return str(span["text"])


def _font_decoder(doc: Any, xref: int) -> dict[int, str] | None:
    """The decoder of the Type 3 font `xref` if it is a TeX bitmap font (its glyphs named
    `/aNN` only) of a known encoding."""
    encoding = _encoding(doc, xref)
    if "Differences" not in encoding or _UNNAMED.search(encoding):
        return None
    widths = _widths(doc, xref)
    found = font_encoding(widths)
    return decoder(found, widths) if found else None


def _encoding(doc: Any, xref: int) -> str:
    """The /Encoding of font `xref`, as its text (followed when it is an object of its own)."""
    kind, encoding = doc.xref_get_key(xref, "Encoding")
    if kind == "xref":
        encoding = doc.xref_object(int(encoding.split()[0]), compressed=True)
    return str(encoding)


def _named_decoder(doc: Any, xref: int) -> dict[int, str] | None:
    """The decoder of a font without a ToUnicode map whose /Differences spell Unicode
    names (`glyph_names`)."""
    if doc.xref_get_key(xref, "ToUnicode")[0] != "null":
        return None
    encoding = _encoding(doc, xref)
    return names_decoder(encoding) if "Differences" in encoding else None


def _dingbats_decoder(doc: Any, xref: int) -> dict[int, str] | None:
    """The decoder of the ZapfDingbats font `xref` unless a ToUnicode map reads it."""
    if doc.xref_get_key(xref, "ToUnicode")[0] != "null":
        return None
    return dingbats_decoder({c for c, w in _widths(doc, xref).items() if w > 0})


def _widths(doc: Any, xref: int) -> dict[int, float]:
    kind, first = doc.xref_get_key(xref, "FirstChar")
    wkind, widths = doc.xref_get_key(xref, "Widths")
    if wkind == "xref":
        widths = doc.xref_object(int(widths.split()[0]), compressed=True)
    if kind != "int" or wkind not in ("array", "xref"):
        return {}
    return {int(first) + i: float(w) for i, w in enumerate(_NUMBER.findall(widths))}
