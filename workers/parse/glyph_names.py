"""Fonts whose glyph names spell Unicode character names, read by those names.

A font without a ToUnicode map is read by the glyph names of its /Differences, and MuPDF
knows the Adobe Glyph List's names only: for any other name it gives the code itself. The
Thai fonts of thailatex (Norasi, Garuda...) name their glyphs `/ThaiCharacterKoKai`, so
Thai LaTeX books (lshort-thai: 56 of 74 pages) came out as Latin-1 ("ÊÔ§·Õ¤ÇÃÃÙé" for
"สิ่งที่ควรรู้"). Such a name, split at its capitals, is the character's Unicode name ("THAI
CHARACTER KO KAI"); a positional form ("SaraILeft", "MaiEkLowLeft") is its character. Where
the names found sit where a code page has the same characters (TIS-620 for these fonts),
the page also reads the codes whose names are misspelt (`/PhoPla` for PO PLA).

Pure: the /Encoding object's text in, a `str.translate` table out.
"""

from __future__ import annotations

import re
import unicodedata

_ENTRY = re.compile(r"(\d+)|/([^\s/\[\]()<>{}%]+)")
# a Unicode name in CamelCase: two capitalised words at least ("ThaiCharacterKoKai"); the
# Adobe Glyph List's names ("bullet", "quoteleft", "FL0127") are MuPDF's to read
_CAMEL = re.compile(r"^[A-Z][a-z]+(?:[A-Z][A-Za-z0-9_]*)+$")
_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_POSITIONAL = re.compile(r"(?:Low)?Left$|Low$|Descless$")  # Thai marks moved for stacking
_MIN_NAMED = 10  # characters a font's names must spell before they are trusted
_AGREE = 0.9  # of those from 160 at a code page's codes, for the page to read the rest
_CODE_PAGES = ("cp874", "cp1251", "cp1253", "cp1255", "cp1256")


def differences(encoding: str) -> dict[int, str]:
    """Code -> glyph name of an /Encoding object's /Differences array."""
    start = encoding.find("/Differences")
    end = encoding.find("]", start)
    if start < 0 or end < 0:
        return {}
    codes: dict[int, str] = {}
    code = 0
    for number, name in _ENTRY.findall(encoding[start + len("/Differences") : end]):
        if number:
            code = int(number)
        else:
            codes[code] = name
            code += 1
    return codes


def character(glyph: str) -> str | None:
    """The character a CamelCase glyph name spells, or None."""
    if not _CAMEL.match(glyph):
        return None
    for name in dict.fromkeys([glyph, _POSITIONAL.sub("", glyph)]):
        words = _WORD_START.sub(" ", name).replace("_", "-").upper()
        try:
            return unicodedata.lookup(words)
        except KeyError:
            continue
    return None


def names_decoder(encoding: str) -> dict[int, str] | None:
    """A translate table for a font whose /Differences spell Unicode names (None if not)."""
    codes = differences(encoding)
    found = {code: ch for code, name in codes.items() if (ch := character(name))}
    if len(found) < _MIN_NAMED:
        return None
    page = _code_page(found)
    for c, name in codes.items() if page else ():
        if c not in found and _CAMEL.match(name) and (read := _read(c, page)):
            found[c] = read
    return found


def _read(code: int, page: str | None) -> str | None:
    """The letter code page `page` has at `code` (from 160), if any."""
    ch = bytes([code]).decode(page, "replace") if page and 160 <= code < 256 else ""
    return ch if ch.isprintable() and ch not in ("", "\ufffd") else None


def _code_page(found: dict[int, str]) -> str | None:
    """The code page whose letters sit where the names put theirs (from 160), if any."""
    high = {c: ch for c, ch in found.items() if 160 <= c < 256}
    for page in _CODE_PAGES:
        if high and sum(_read(c, page) == ch for c, ch in high.items()) >= _AGREE * len(high):
            return page
    return None
