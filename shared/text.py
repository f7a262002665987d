"""Canonical text helpers shared by parsers, writers and the verifier.

Every hash and word count in Quire goes through these functions, so the parser and the
verifier can never disagree about what "the same text" means.

Word counts are English-word equivalents, because sessions are sized and timed from them
(pages = words / 400 for DOCX, study time = words / 80 per minute). Scripts written with
spaces between words count one word per run of letters and digits (a zero-width non-joiner
inside a Persian word does not split it). Chinese and Japanese have no spaces: their
characters count at a stated rate instead (see HAN_CHARS_PER_WORD, KANA_CHARS_PER_WORD).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

from quire.shared.links import drop_internal_destinations

# Han ideographs (with 々〆〇 and the compatibility and supplementary planes) and kana.
HAN = "\u3005-\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
HIRAGANA = "\u3040-\u309f"
KANA = f"{HIRAGANA}\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
# Hangul syllables, jamo and compatibility jamo (Korean sets spaces between its words)
HANGUL = "\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f"
# CJK punctuation and full-width forms: no space is set around them either.
CJK_PUNCT = "\u3000-\u3004\u3008-\u303f\uff00-\uff65\ufe30-\ufe4f"
# A chapter number in English words, as Sphinx's PDFs set it under "CHAPTER" ("THREE",
# "TWENTY-TWO"): a regular expression to put inside others, any case
NUMBER_WORD = (
    r"(?i:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ]?(?:one|two|three|"
    r"four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
)
# Chinese: 1.5 characters carry about one English word. Measured on the corpus, the densest
# pages of lshort-zh-cn hold 700-870 Han characters (+ 50-80 Latin words), those of the
# English R and LaTeX manuals 530-680 words: 1.3-1.6 characters per word of page space;
# translation work quotes 1.5-1.8 characters per English word of content. So a DOCX page
# is 600 characters and study reading is 80 x 1.5 = 120 characters per minute.
HAN_CHARS_PER_WORD = 1.5
# Japanese spends more characters on the same content (kana are syllables): 2-2.5
# characters per English word; with about a third kanji, kana at 2.5 per word give that.
KANA_CHARS_PER_WORD = 2.5


def _mark_ranges() -> str:
    """A character class body of the combining marks (Mn, Mc, Me) of the alphabets below
    U+2000 and the combining blocks. Python's `\\w` holds no marks, so a Malayalam,
    Hindi, Thai or vowelled Arabic word would fall apart at its vowel signs and viramas
    ("ഉപകരണം" into "ഉപകരണ" and nothing)."""
    spans = [(0x0300, 0x1FFF), (0x20D0, 0x20FF), (0xA670, 0xABFF), (0xFE00, 0xFE2F)]
    found = [
        c for lo, hi in spans for c in range(lo, hi + 1) if unicodedata.category(chr(c))[0] == "M"
    ]
    runs: list[list[int]] = []
    for c in found:
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in runs)


# Combining marks, to join `\w` in word patterns: rf"(?:\w|[{MARKS}])+"
MARKS = _mark_ranges()

_HAN = re.compile(f"[{HAN}]")
_KANA = re.compile(f"[{KANA}]")
_CJK_LETTER = re.compile(f"[{HAN}{KANA}]")
_CJK_ANY = re.compile(f"[{HAN}{KANA}{CJK_PUNCT}]")
_WORD = re.compile(rf"(?:[^\W{HAN}{KANA}]|[{MARKS}])+")
_JOINERS = str.maketrans("", "", "\u200c\u200d")  # ZWNJ / ZWJ sit inside words


_SURROGATE = re.compile("[\ud800-\udfff]")


def normalize(text: str) -> str:
    """NFC, no trailing spaces on lines, no surrounding blank lines. Refuses lone
    surrogates (ValueError): no UTF-8 file can hold them, so no output could."""
    if _SURROGATE.search(text):
        raise ValueError("text holds a lone surrogate code point, which UTF-8 cannot encode")
    text = unicodedata.normalize("NFC", text)
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n")).strip("\n")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_hash(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def is_cjk(ch: str) -> bool:
    """A Han or kana character, or CJK punctuation: text set without spaces."""
    return bool(_CJK_ANY.match(ch))


def cjk_units(text: str) -> float:
    """The English-word equivalent of the Chinese and Japanese characters in `text`."""
    if not _CJK_LETTER.search(text):
        return 0.0
    han = len(_HAN.findall(text))
    return han / HAN_CHARS_PER_WORD + len(_KANA.findall(text)) / KANA_CHARS_PER_WORD


@lru_cache(maxsize=1 << 14)  # verification counts every element's text again, twice
def count_words(text: str) -> int:
    """English-word equivalents: word runs, plus CJK characters at their rates (at least
    one when there are any). An internal link's destination is not content: "[3.2](#el-1)"
    counts as "3.2" (see shared.links)."""
    text = drop_internal_destinations(text)
    words = len(_WORD.findall(text.translate(_JOINERS)))
    cjk = cjk_units(text)
    return words + max(1, round(cjk)) if cjk else words


_ARITY = re.compile(r"(?:[\w.]+:)?([^\W\d][\w.]*)/\d{1,2}")  # "abs/1", "lists:map/2"
_CALL = re.compile(r"([^\W\d]\w*)\(\)")  # "driver_cancel_timer()"


def signs(bookmark: str, line: str) -> bool:
    """Is `line` the signature a function's bookmark points at: Erlang's reference manuals
    bookmark each function as "name/arity" ("abs/1", "cancel_timer/1") over its
    signature set as text ("abs(Float) -> float()", "erlang:cancel_timer(TimerRef) ->
    Result"), and each C function as "name()" over its declaration ("void
    *enif_alloc(size_t size)"). The signature is the function's heading (else sessions
    began in the middle of a description) and the bookmark titles it."""
    bookmark = bookmark.strip()
    if named := _ARITY.fullmatch(bookmark):
        head, tail = r"(?:[\w.]+:)?", r"\s*\("  # a module's name
    elif named := _CALL.fullmatch(bookmark):
        # a return type ("int ", "void *", "const char *"); the whole declaration
        head, tail = r"(?:[\w:<>]+[\s*&]+){0,3}\**", r"\s*\([^()]*\)\s*;?\s*$"
    else:
        return False
    return re.match(rf"{head}{re.escape(named[1])}{tail}", line.strip()) is not None
