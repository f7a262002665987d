"""Accents drawn apart from their letters, put back on them: "d´efinitions" -> "définitions".

TeX's old (OT1) fonts have no accented letters: `\\'e` draws an acute accent glyph, then the
letter under it, and a PDF made that way extracts as the spacing accent followed by the
letter ("d´efinitions", "fa¸cons", "probl`eme", "najcz˛e´sciej"), or as a space carrying a
combining accent ("Descripci ́on", "Zako ́nczenie"); polytonic Greek sets breathings before a
capital ("᾿Α"). The sweep met 24,594 in 85 of 348 unseen manuals (French, Spanish, Polish,
Portuguese, German, Greek...), in their text, tables, headings and so in session titles,
search and key terms.

An accent is put on the letter after it only where Unicode has that accented letter as one
character (NFC composes it): "´e" -> "é", "¸c" -> "ç", "´ı" -> "í" (TeX accents a dotless i),
while "´0" in a font table or "ˆ" before a Greek letter that has no such character stay as
they are. A plain backquote is a grave accent only before a vowel ("`a" -> "à") and never
in code, where it is the shell's or Markdown's own; other accents are composed in code too
(a typewriter "[d´efaut]" is the manual's "[défaut]").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

# spacing accent -> its combining mark
_SPACING = {
    "\u00b4": "\u0301",  # ´ acute
    "`": "\u0300",  # grave (only before a vowel, below)
    "\u00a8": "\u0308",  # ¨ diaeresis
    "\u02c6": "\u0302",  # ˆ circumflex
    "\u02dc": "\u0303",  # ˜ tilde
    "\u00b8": "\u0327",  # ¸ cedilla
    "\u02c7": "\u030c",  # ˇ caron
    "\u02d8": "\u0306",  # ˘ breve
    "\u02d9": "\u0307",  # ˙ dot above
    "\u02dd": "\u030b",  # ˝ double acute
    "\u02db": "\u0328",  # ˛ ogonek
    "\u00af": "\u0304",  # ¯ macron
    "\u02da": "\u030a",  # ˚ ring above
    "\u0384": "\u0301",  # ΄ Greek tonos
    "\u1ffd": "\u0301",  # ´ Greek oxia
    "\u1fbf": "\u0313",  # ᾿ Greek psili (set before a capital: "᾿Α" is "Ἀ")
    "\u1ffe": "\u0314",  # ῾ Greek dasia
    "\u1fc0": "\u0342",  # ῀ Greek perispomeni
}
_COMBINING = "".join(_SPACING.values())
_DOTLESS = {"ı": "i", "ȷ": "j"}
_MARKS = rf"[{re.escape(''.join(k for k in _SPACING if k != '`'))}]| ?[{_COMBINING}]"
_ACCENT = re.compile(rf"(?:{_MARKS}|`(?=[aeiouAEIOU]))([^\W\d_])")
_ACCENT_IN_CODE = re.compile(rf"(?:{_MARKS})([^\W\d_])")  # a backquote is code's own
_ANY = re.compile(rf"[{re.escape(''.join(_SPACING))}{_COMBINING}]")
_TRAILING = re.compile(rf"(?:{_MARKS})$")  # an accent ending a run, its letter in the next
# Computer Modern's OT1 text fonts set the circumflex at the ASCII caret's code:
# "contr^ole", "^etre" (about 700 times in latex2e-fr); other fonts put other glyphs there
# (drm's own fonts its "Th": "^is", "^e"), and a typewriter's caret is code's ("{dr^ur}")
_OT1_TEXT_FONT = re.compile(r"CM(?!TT|SLTT|ITT|MI|SY|EX|BSY)[A-Z]{0,5}\d+", re.IGNORECASE)
# a caret before a vowel and a letter, after a letter, a space or an opening mark (not
# "\\^ab", "{^ab}", "2^ab")
_CARET = re.compile(r"(?<![^\w\s(«“‘'’\-]|\d|_)\^([aeiouAEIOU])(?=[^\W\d_])")


def _compose(m: re.Match[str]) -> str:
    accent, letter = m.group()[:-1].strip(" "), m.group(1)
    mark = _SPACING.get(accent, accent)
    composed = unicodedata.normalize("NFC", _DOTLESS.get(letter, letter) + mark)
    return composed if len(composed) == 1 else m.group()


def compose_accents(text: str, *, code: bool = False) -> str:
    """`text` with each accent drawn before its letter composed into the accented letter
    (see the module docstring); unchanged when it holds none. In `code` a backquote stays."""
    if not _ANY.search(text):
        return text
    return (_ACCENT_IN_CODE if code else _ACCENT).sub(_compose, text)


def compose_carets(text: str, font: str) -> str:
    """`text`, set in `font`, with each OT1 circumflex, a caret in a word before its vowel
    ("m^eme", "^etre"), put on its vowel ("même", "être"), when `font` is one of Computer
    Modern's text fonts (see `_OT1_TEXT_FONT`)."""
    if "^" not in text or not _OT1_TEXT_FONT.fullmatch(font.split("+", 1)[-1]):
        return text
    return _CARET.sub(lambda m: unicodedata.normalize("NFC", m.group(1) + "\u0302"), text)


def compose_carets_in(text: dict[str, Any]) -> None:
    """`compose_carets` on every span of a page's `text` ("dict"), in place (as the TeX
    fonts' decoders rewrite it: the caret is how MuPDF reads OT1's circumflex code)."""
    for block in text["blocks"]:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                if "^" in span["text"]:
                    span["text"] = compose_carets(span["text"], span["font"])


def compose_runs(runs: Sequence[tuple[str, bool]]) -> list[str]:
    """`compose_accents` over the runs of one line, (text, is code) each, where a font
    change may part an accent from its letter: an accent ending a run goes onto the letter
    starting the next."""
    texts = [text for text, _ in runs]
    for i in range(len(texts) - 1):
        m = _TRAILING.search(texts[i])
        if m and texts[i + 1][:1].isalpha():
            texts[i], texts[i + 1] = texts[i][: m.start()], m.group() + texts[i + 1]
    return [compose_accents(t, code=code) for t, (_, code) in zip(texts, runs, strict=True)]
