"""Letter-spaced text read as words: "I N H A LT S A N G A B E" -> "INHALTSANGABE".

Designs that track their letters (classicthesis and ArsClassica's chapter titles, elsarticle's
"A B S T R A C T", title pages, texapi's section titles, manuals that space out keywords)
set a fixed space after every letter, and MuPDF, seeing a gap, puts a space between the
letters: text, headings and so session titles read as single letters.

Only a run of five or more one- or two-letter tokens, most of them single letters, is
looked at, and only where the gaps between its tokens (MuPDF's boxes are advance widths,
so a gap is the tracking itself) are at most `TRACKING_MAX` of the type size: less than
any word space a text font sets, even shrunk (Latin Modern's is 0.33 em, shrinking to
0.22). Within such a run, a gap wider than the run's usual gap by `WORD_GAP` is a word
space (tracking plus a space), the rest close up, and the words made must read as words
(capitals, small letters, or a capital and small letters; not a table of letters "Á á Ä
ä"). Wider tracking (soul's 0.25 em) cannot be told from real single-letter words on
geometry alone and is left as it is; a grid of capitals set tight (a puzzle) is closed up.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from quire.workers.parse.pdf_types import Row

# five or more tokens of one or two letters (kerned pairs such as "LT" come out joined)
SPACED = re.compile(r"(?<!\S)(?:[^\W\d_]{1,2} ){4,}[^\W\d_]{1,2}(?!\S)")
TRACKING_MAX = 0.22  # em: a usual gap above this may be a real space
WORD_GAP = 0.25  # em beyond the usual gap: a word space inside the run
SINGLE_SHARE = 0.8  # of the run's tokens single letters (a kerned pair is one token)

# one character of a MuPDF "rawdict" line: the character and its box's left and right edge
Char = tuple[str, float, float]


def closed_up(chars: Sequence[Char], size: float) -> list[tuple[str, str]]:
    """(run as extracted, run read as words) for each letter-spaced run of one line."""
    text = "".join(c for c, _, _ in chars)
    if size <= 0 or len(text) != len(chars):
        return []
    found = []
    for m in SPACED.finditer(text):
        tokens = m.group().split(" ")
        if sum(len(t) == 1 for t in tokens) < SINGLE_SHARE * len(tokens):
            continue  # "if it is to be", "dr ds dt": short words, not spaced letters
        spaces = [i for i in range(m.start(), m.end()) if text[i] == " "]
        gaps = [(chars[i + 1][1] - chars[i - 1][2]) / size for i in spaces]
        usual = statistics.median(gaps)
        if usual > TRACKING_MAX:
            continue
        kept = {i for i, gap in zip(spaces, gaps, strict=True) if gap > usual + WORD_GAP}
        joined = "".join(text[i] for i in range(m.start(), m.end()) if text[i] != " " or i in kept)
        if all(w.isupper() or w.islower() or w.istitle() for w in joined.split(" ")):
            found.append((m.group(), joined))  # not a table of letters: "Á á Ä ä Č č"
    return found


def close_up_rows(rows: list[Row], rawdict: dict[str, Any]) -> list[Row]:
    """`rows` (a page's lines, from its "dict" text) with their letter-spaced runs read as
    words, from the same text page's "rawdict", which has each character's box."""
    fixes: dict[str, str] = {}
    for block in rawdict["blocks"]:
        for line in block.get("lines", ()) if block["type"] == 0 else ():
            dx, dy = line["dir"]
            if abs(dy) > 1e-3 or dx <= 0 or not line["spans"]:
                continue  # vertical or right-to-left: no tracked capitals there
            chars = [
                (c["c"], c["bbox"][0], c["bbox"][2]) for s in line["spans"] for c in s["chars"]
            ]
            fixes.update(closed_up(chars, line["spans"][0]["size"]))
    if not fixes:
        return rows
    out = []
    for row in rows:
        text = row.text
        for run, joined in fixes.items():
            text = text.replace(run, joined)
        out.append(row if text == row.text else replace(row, text=text))
    return out
