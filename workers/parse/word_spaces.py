"""Word spaces from each character's box, where MuPDF's own spacing misreads a line.

Two ways, each looked at only on the pages that show it (a page's "rawdict", which has the
boxes, costs about as much again as its text):

- Letter-spaced text reads as words: "I N H A LT S A N G A B E" -> "INHALTSANGABE".
- A word space MuPDF left out comes back: "sốthuật" -> "số thuật".

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

MuPDF loses word spaces in two scripts, whatever the font: after a word ending in a letter
with two marks (ố, ữ, ợ: Unicode's Latin Extended Additional, in Vietnamese nearly every
line: "sốthuật", "ngữdùng", "Sựhỗtrợđối"), and between Korean words, which it sets like
Chinese ("LATEX이요구하는첫번째정보는", 5 Korean manuals of the sweep whole). The gap is there,
a word space wide (0.29-0.4 em), but no space character. On pages with such letters, a
gap of `MISSING_SPACE` or more between two characters of a line becomes a space.

And it loses them after a ligature glyph that ends a word, in fonts that keep the glyph
as "ﬀ" (TeX's Type 1 fonts, Ghostscript's): "oﬀthe", "stuﬀfrom", LilyPond's
"staﬀtemplates" on nearly every page. Of the ligatures only ﬀ, ﬅ and ﬆ end words ("ﬁ",
"ﬂ", "ﬃ" and "ﬄ" begin or stand inside them), so only lines with one of those three and a
letter after it, in the page's "dict" text, are read character by character from MuPDF's
own text page, and a gap of `MISSING_SPACE` or more right after the ligature becomes a
space; a ligature inside a word ("diﬀerent") has none.

It loses them in Arabic-script text set right to left too, where the words of a justified
line are set a narrow space apart (XeTeX's lshort-persian: 0.11-0.3 em, nearly every line:
"ساختهشده", "یکبرنامۀکامپیوتری"; arabi's user guide). The letters of a word touch or overlap,
stretched only with tatweels (a kashida package's specimens: up to 0.12 em, beside word
spaces twice that), so a gap of `RTL_SPACE` or more between two letters, and at least
`RTL_SHARE` of the line's usual such gap, becomes a space; so does one as wide between a
run of the script and a Latin word, a number or a stop beside it.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

from quire.workers.parse.glyphs import expand_glyphs
from quire.workers.parse.pdf_tex_fonts import Decoder, decode_text
from quire.workers.parse.pdf_types import Row, round_box

# five or more tokens of one or two letters (kerned pairs such as "LT" come out joined)
SPACED = re.compile(r"(?<!\S)(?:[^\W\d_]{1,2} ){4,}[^\W\d_]{1,2}(?!\S)")
TRACKING_MAX = 0.22  # em: a usual gap above this may be a real space
WORD_GAP = 0.25  # em beyond the usual gap: a word space inside the run
SINGLE_SHARE = 0.8  # of the run's tokens single letters (a kerned pair is one token)
# letters of the lines MuPDF loses word spaces in: Vietnamese (ố ữ ợ ...), Korean syllables
LOST_SPACES = re.compile(r"[\u1ea0-\u1ef9\uac00-\ud7a3]")
MISSING_SPACE = 0.2  # em: a gap this wide inside a word is a word space (kerning is less)
LIGATURE = re.compile(r"[\ufb00\ufb05\ufb06]")  # ﬀ ﬅ ﬆ: ligatures that end words
LIGATURE_IN_WORD = re.compile(LIGATURE.pattern + r"(?=[^\W\d_])")  # a letter after it
# letters of the Arabic script, presentation forms too (not the tatweel, which stretches a
# word: a gap beside it is inside the word)
_LETTERS = r"\u0620-\u063f\u0641-\u064a\u066e-\u06d3\u06fa-\u06ff\ufb50-\ufdff\ufe70-\ufefc"
ARABIC_LETTER = re.compile(f"[{_LETTERS}]")
ARABIC_RUN = re.compile(f"[{_LETTERS}]{{2,}}")
# a run of the script (letters, tatweels, vowel marks) or of anything else but spaces
_SCRIPT = _LETTERS + r"\u0640\u064b-\u065f\u0670\u06d6-\u06ed"
SCRIPT_RUN = re.compile(f"[{_SCRIPT}]+|[^\\s{_SCRIPT}]+")
TOKEN = re.compile(r"\S+")
RTL_SPACE = 0.1  # em between two letters, the left one read after the right one
RTL_SHARE = 0.6  # of the line's median such gap: a stretched word among wider spaces

Box = tuple[float, float, float, float]
LineKey = tuple[Box, Box]  # (block's box, line's box), rounded

# one character of a MuPDF "rawdict" line: the character and its box's left and right edge
Char = tuple[str, float, float]


def closed_up(chars: Sequence[Char], size: float) -> list[tuple[str, str]]:
    """(run as extracted, run read as words) for each letter-spaced run of one line."""
    text = "".join(c for c, _, _ in chars)  # one character each: indexes are shared
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


def spaced_out(chars: Sequence[Char], size: float) -> list[tuple[str, str]]:
    """(word as extracted, the same with its missing spaces) for each word of one line
    that has a word space wide gap between two of its characters."""
    text = "".join(c for c, _, _ in chars)  # one character each: indexes are shared
    at = [
        i for i in range(1, len(chars)) if (chars[i][1] - chars[i - 1][2]) / size >= MISSING_SPACE
    ]
    return with_spaces(text, TOKEN, at)


def rtl_spaces(chars: Sequence[Char], size: float) -> list[int]:
    """Indexes of the characters of one line of Arabic-script text, read right to left,
    that a word space wide gap sets apart from the one before: between two letters, or
    between a run of the script and a run of other characters (a Latin word, a number, a
    full stop), measured between the two runs as wholes: a Latin word reads left to right
    inside the line, so its last letter is not the one beside the next Arabic word, and
    MuPDF reads some pieces of a line out of order (XeTeX's lshort-persian)."""
    text = "".join(c for c, _, _ in chars)  # one character each: indexes are shared
    gaps = {
        i: (chars[i - 1][1] - chars[i][2]) / size
        for i in range(1, len(chars))
        if ARABIC_LETTER.match(text[i - 1]) and ARABIC_LETTER.match(text[i])
    }
    wide = [g for g in gaps.values() if g >= RTL_SPACE]
    least = max(RTL_SPACE, RTL_SHARE * statistics.median(wide)) if wide else RTL_SPACE
    at = [i for i, g in gaps.items() if g >= least]
    for word in TOKEN.finditer(text):
        runs = [m.span() for m in SCRIPT_RUN.finditer(text, word.start(), word.end())]
        for (a0, a1), (b0, b1) in itertools.pairwise(runs):
            a = min(chars[k][1] for k in range(a0, a1)), max(chars[k][2] for k in range(a0, a1))
            b = min(chars[k][1] for k in range(b0, b1)), max(chars[k][2] for k in range(b0, b1))
            if max(a[0] - b[1], b[0] - a[1]) / size >= least:  # apart, on either side
                at.append(b0)
    return sorted(at)


def line_key(block: Sequence[float], line: Sequence[float]) -> LineKey:
    """A line of MuPDF's text page by its block's box and its own, as "dict" gives them."""
    return round_box(block), round_box(line)


def after_ligatures(textpage: Any, lines: Collection[LineKey]) -> dict[str, str]:
    """(word, the same with its missing spaces; ligatures expanded in both) for each word
    of the given lines of a text page that has a word space wide gap right after a
    ligature glyph. The characters are read from MuPDF's C structures, and only for those
    lines: a page's "rawdict" costs more than its text, and Python objects for every
    character of a page as much again."""
    words: dict[str, str] = {}
    blocks = {b for b, _ in lines}
    for block in textpage.this:
        r = block.m_internal.bbox
        box = round_box((r.x0, r.y0, r.x1, r.y1))
        if block.m_internal.type != 0 or box not in blocks:  # FZ_STEXT_BLOCK_TEXT: 0
            continue
        for line in block:
            raw = line.m_internal
            q = raw.bbox
            if (box, round_box((q.x0, q.y0, q.x1, q.y1))) not in lines:
                continue
            nodes = []
            ch = raw.first_char
            while ch:
                nodes.append(ch)
                ch = ch.next
            text = "".join(chr(n.c) for n in nodes)
            at = []
            for m in LIGATURE.finditer(text, 0, len(text) - 1):
                lig, nxt = nodes[m.start()], nodes[m.end()]
                right = max(lig.quad.ur.x, lig.quad.lr.x)
                left = min(nxt.quad.ul.x, nxt.quad.ll.x)
                if lig.size > 0 and (left - right) / lig.size >= MISSING_SPACE:
                    at.append(m.end())
            words.update(
                (expand_glyphs(w), expand_glyphs(spaced))
                for w, spaced in with_spaces(text, TOKEN, at)
            )
    return words


def with_spaces(text: str, pattern: re.Pattern[str], at: list[int]) -> list[tuple[str, str]]:
    """(match as extracted, the same with a space before each index of `at` inside it) for
    each match of `pattern` in `text` that has one."""
    found = []
    for m in pattern.finditer(text):
        inside = [i for i in at if m.start() < i < m.end()]
        if inside:
            ends = zip([m.start(), *inside], [*inside, m.end()], strict=True)
            found.append((m.group(), " ".join(text[a:b] for a, b in ends)))
    return found


def fix_word_spaces(
    rows: list[Row],
    page: Any,
    textpage: Any,
    decoders: dict[str, Decoder] | None = None,
    ligatures: Collection[LineKey] = (),
) -> list[Row]:
    """`rows` (a page's lines, from its "dict" text) with letter-spaced runs read as words
    and missing word spaces put back, from the same text page's "rawdict" (read through
    the page's TeX font `decoders`, as the rows were) or, after ligatures, its characters;
    the rows as they are (and no "rawdict" read) on a page that shows none of these."""
    spaced = any(SPACED.search(r.text) for r in rows)
    lost = any(LOST_SPACES.search(r.text) for r in rows)
    rtl = any(ARABIC_LETTER.search(r.text) for r in rows)
    # word -> the same with its spaces; `ligatures`: the lines with a ligature in a word
    words: dict[str, str] = after_ligatures(textpage, ligatures) if ligatures else {}
    if not (spaced or lost or rtl):
        return _respaced(rows, {}, words, {})
    runs: dict[str, str] = {}  # letter-spaced run -> its words
    letters: dict[str, str] = {}  # run of Arabic-script letters -> the same with its spaces
    raw = page.get_text("rawdict", textpage=textpage)
    decode_text(raw, decoders or {})
    for block in raw["blocks"]:
        for line in block.get("lines", ()) if block["type"] == 0 else ():
            dx, dy = line["dir"]
            if abs(dy) > 1e-3 or dx <= 0 or not line["spans"]:
                continue  # vertical or turned: (right-to-left lines run along (1, 0) too)
            size = line["spans"][0]["size"]
            if size <= 0:
                continue  # gaps are measured in ems
            chars = [
                (c["c"], c["bbox"][0], c["bbox"][2]) for s in line["spans"] for c in s["chars"]
            ]
            if spaced:
                runs.update(closed_up(chars, size))
            if lost:
                words.update(spaced_out(chars, size))
            if rtl and (at := rtl_spaces(chars, size)):
                # (the rows have presentation forms as letters; a word with a raised note
                # mark is written otherwise there, its runs of letters are not)
                text = "".join(c for c, _, _ in chars)
                for found, pattern in [(words, TOKEN), (letters, ARABIC_RUN)]:
                    found.update(
                        (expand_glyphs(r), expand_glyphs(s))
                        for r, s in with_spaces(text, pattern, at)
                    )
    return _respaced(rows, runs, words, letters)


def _respaced(
    rows: list[Row], runs: dict[str, str], words: dict[str, str], letters: dict[str, str]
) -> list[Row]:
    """`rows` with each letter-spaced run, word and run of Arabic-script letters found
    replaced by the same with its spaces."""
    if not (runs or words or letters):
        return rows
    out = []
    for row in rows:
        text = row.text
        for run, joined in runs.items():
            text = text.replace(run, joined)
        if words:
            text = TOKEN.sub(lambda m: words.get(m.group(), m.group()), text)
        if letters:
            text = ARABIC_RUN.sub(lambda m: letters.get(m.group(), m.group()), text)
        out.append(row if text == row.text else replace(row, text=text))
    return out
