"""One PDF page -> `PdfPage`: text lines grouped into blocks, tables, images.

Native PyMuPDF only (get_text("dict"), get_cdrawings, get_image_info): ~hundreds of pages
per second before our own Python work. Nothing here looks at other pages, so a page's
result is the same whichever range task extracts it.

Grouping rules (line -> block), applied in content-stream order:
- lines on the same baseline that MuPDF split (big gaps) are joined into one row;
- a new block starts at a change between monospace and proportional rows, a font-size or
  boldness change, a jump back up the page (new column), a vertical gap clearly larger than
  the line pitch, a list marker, after a short line in justified text (a paragraph's last
  line), or at a change of indentation (first-line indent of the next paragraph, outdent
  after a hanging list item);
- monospace runs become "code" blocks, indentation rebuilt from x positions;
- ruled tables come from `pdf_tables.find_tables` (only on pages whose rulings form a
  grid); the rows inside a found table leave the text flow and the table takes the place
  of its first row; images from `pdf_images.page_images`.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from quire.shared.ir import TextlessKind
from quire.shared.text import HAN, KANA
from quire.workers.parse.accents import compose_accents, compose_carets_in
from quire.workers.parse.glyphs import COMPAT, PRESENTATION, expand_glyphs
from quire.workers.parse.pdf_figures import (
    FIGURE_CAPTION,
    Box,
    figure_regions,
    figure_rows,
    split_drawings,
)
from quire.workers.parse.pdf_footnotes import (
    NoteRows,
    joins_mark,
    note_area,
    note_marks,
    short_rules,
    wrap_mark,
)
from quire.workers.parse.pdf_images import page_images
from quire.workers.parse.pdf_line_numbers import margin_line_numbers
from quire.workers.parse.pdf_links import page_links
from quire.workers.parse.pdf_open import text_flags
from quire.workers.parse.pdf_tables import find_tables
from quire.workers.parse.pdf_tex_fonts import (
    FontCache,
    decode_text,
    page_decoders,
    words_decoder,
)
from quire.workers.parse.pdf_types import PdfBlock, PdfPage, Row, round_box
from quire.workers.parse.url_breaks import ends_in_scheme
from quire.workers.parse.word_spaces import LIGATURE_IN_WORD, LineKey, fix_word_spaces, line_key

# (not Latin Modern's proportional typewriter faces, "LMMonoPropLt10", "LMTypewriterVarWd10",
# a book's body font in Hans Hagen's ConTeXt manuals, nor Monotype's "MonotypeCorsiva")
_MONO_FONT = re.compile(
    r"mono(?!prop|type)|courier|cmtt|cmsltt|cmitt|typewriter(?!varwd)|consol|menlo|inconsolata"
    r"|lmtt|sfmono|sftt"
    r"|txtt|t1xtt|pcrr|nimbusmon|cousine|firacode|sourcecode|dejavusansm|liberationmono"
    r"|lucidaconsole|lucidasanstypewriter|beramono|iosevka"
    r"|\btt\d(?![0-9a-f]*t\d\d\b)",  # not Windows' PostScript driver's "TT476t00"
    re.IGNORECASE,
)
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|cmbx|cmb\d|bx\d+$|-bd|\bbd\b", re.I)

# A list marker at the start of a line: strong bullets may touch the text, weak ones
# (dashes, asterisks) and enumerators need a space after them.
_STRONG_BULLETS = "•◦▪▫‣⁃∙●○■□►▸➢✓✔·"
_MARKER = re.compile(
    rf"^(?:(?P<strong>[{_STRONG_BULLETS}])\s*"
    r"|(?P<weak>[-–—*∗])\s+"
    r"|(?P<num>\d{1,3})[.)]\s+|\((?P<pnum>\d{1,3})\)\s+"
    r"|(?P<alpha>[a-z])[.)]\s+|\((?P<palpha>[a-z])\)\s+"
    r"|\((?P<roman>[ivx]{1,5})\)\s+)"
)

# A listing's line number, with the docstrip guards a .dtx prints after it ("549",
# "1158 ⟨platexrelease | trace⟩"): MuPDF often gives it as a line of its own, in a small
# roman font. With a guard it is a line of the listing even alone ("10 ⟨∗plcore⟩").
# (ASCII digits: a Persian index's "\textbf ،۱۰۴" comes number first, and is no listing)
_NUMBERING = re.compile(r"\s*[0-9]{1,5}(?:\s*⟨[^⟩]*⟩)*\s*")
_GUARDED = re.compile(r"[0-9]{1,5}(?:\s*⟨[^⟩]*⟩)+")
_CJK = re.compile(f"[{HAN}{KANA}]")
_RTL = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")
_LETTER = re.compile(r"[^\W\d_]")
RAGGED_STRETCH = 2.0  # ems a ragged line may end short of its edge (see `_ragged_on`)
_BROKEN_WORD = re.compile(r"[^\W\d_]-$")  # "envi-" / "ronment": the sentence goes on
_GOES_ON = re.compile(r"[^\W\d_],?$")  # a line ending in a word or a comma
_LATIN1_SUPP = re.compile(r"[\u00c0-\u00ff]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_SPACE = re.compile(r"\s")
# a word as text has it: three letters or more, capitals only first ("ÀÁÂÓ³Æ" is none)
_WORD3 = re.compile(r"(?<![^\W\d_])[^\W\d_][^\W\d_A-ZÀ-Þ]{2,}(?![^\W\d_])")
# a text layer of glyph codes: this many control characters, this share of the text, and
# what is not a code is not words either, at most this share in words (a score or a glyph
# table keeps its sentences around the symbols' codes: LilyPond's web manual, 46-77 %)
CODES_MIN, CODES_SHARE, CODES_WORDS = 40, 0.2, 0.25


def list_marker(text: str) -> re.Match[str] | None:
    """The list marker at the start of `text`, if any."""
    return _MARKER.match(text)


@dataclass
class _Object:
    """A table or image placed in the text flow."""

    block: PdfBlock

    @property
    def y0(self) -> float:
        return self.block.bbox[1]


@lru_cache(maxsize=4096)
def font_style(font: str) -> tuple[bool, bool]:
    name = font.split("+", 1)[-1]  # drop subset prefix "ABCDEF+"
    return bool(_MONO_FONT.search(name)), bool(_BOLD_FONT.search(name))


def _numbering(spans: list[dict[str, Any]]) -> int:
    """How many leading spans only number their line ("15" before "\\else", "8 ⟨plcore⟩"
    before "\\ExplSyntaxOn" in a listing, set small in a roman font) when code follows.
    They do not vote on the line's style: a short numbered line of code read as prose."""
    first = spans[0]["text"].lstrip() if spans else ""
    if first and not first[0].isdigit():
        return 0  # most lines: no join of their spans
    text = "".join(s["text"] for s in spans)
    m = _NUMBERING.match(text)
    if m is None or m.end() >= len(text.rstrip()):
        return 0
    at = n = 0
    for span in spans:
        at += len(span["text"])
        if at > m.end():
            break
        n += 1
    return n


_BIG_NUMBER = 2.0  # a title's number set this many times the size of its words, at least
_BIG_NUMBER_PT = 20.0  # ... and this size
_WORDS = re.compile(r"[^\W\d_]{2,}")


def _number_last(spans: list[dict[str, Any]]) -> str | None:
    """The number of a title set large after it (ConTeXt's manuals: "Children of TEX" and a
    60-point "1"), to go before it where a reader says it: "1 Children of TEX" (kept
    after it, every session of the chapter was "Children of TEX 1 (continued)")."""
    shown = [x for x in spans if x["text"].strip()]
    if len(shown) < 2 or spans[-1] is not shown[-1]:
        return None
    number, words = shown[-1]["text"].strip(), shown[:-1]
    if not number.isdigit() or len(number) > 3:
        return None
    if len(_WORDS.findall("".join(x["text"] for x in words))) < 2:
        return None  # a formula's glyphs drawn large ("H__ ∫ 𝑓2 2"), no title
    size = max(x["size"] for x in words)
    return number if shown[-1]["size"] >= max(size * _BIG_NUMBER, _BIG_NUMBER_PT) else None


def _raw_lines(textpage: dict[str, Any]) -> tuple[list[Row], int, set[LineKey]]:
    """The page's text lines, how many Arabic presentation-form glyphs they had, and the
    lines where a ligature glyph that may end a word has a letter after it ("oﬀthe":
    `word_spaces.after_ligatures` looks for the space MuPDF lost there)."""
    rows: list[Row] = []
    presentation = 0
    ligatures: set[LineKey] = set()
    for block in textpage["blocks"]:
        if block["type"] != 0:
            continue
        for line in block["lines"]:
            parts: list[str] = []
            n = mono_n = bold_n = 0
            code: list[str] = []  # monospace runs
            in_code = False
            sizes: dict[float, int] = {}
            cjk_sizes: dict[float, int] = {}
            every_size: set[float] = set()  # a leading line number's too (a note's mark)
            lead = _numbering(line["spans"])
            for j, span in enumerate(line["spans"]):
                t = span["text"]
                if not t:
                    continue
                parts.append(t)
                k = len(t) - t.count(" ")
                if k <= 0:
                    if in_code:  # a space between two monospace spans
                        code[-1] += t
                    continue
                sz = round(span["size"] * 2) / 2
                every_size.add(sz)
                if j < lead:
                    continue
                mono, bold = font_style(span["font"])
                flags = span["flags"]
                if mono or flags & 8:
                    mono_n += k
                    if in_code:
                        code[-1] += t
                    else:
                        code.append(t)
                in_code = bool(mono or flags & 8)
                if bold or flags & 16:
                    bold_n += k
                sizes[sz] = sizes.get(sz, 0) + k
                if max(t) >= "\u3005" and (c := len(_CJK.findall(t))):
                    cjk_sizes[sz] = cjk_sizes.get(sz, 0) + c
                n += k
            marks = note_marks(line["spans"], len(every_size) > 1, rows[-1] if rows else None)
            if marks:  # raised footnote marks, wrapped for the merge to find them again
                spans = line["spans"]
                parts = [
                    wrap_mark(x["text"]) if j in marks else x["text"]
                    for j, x in enumerate(spans)
                    if x["text"]
                ]
            if len(every_size) > 1 and (first := _number_last(line["spans"])):
                parts = [first, " ", *parts[:-1]]
            raw = "".join(parts)
            text = raw.strip()
            if n == 0 or not text:
                continue
            if COMPAT.search(text):
                presentation += len(PRESENTATION.findall(text))
                if LIGATURE_IN_WORD.search(text):
                    ligatures.add(line_key(block["bbox"], line["bbox"]))
                text = expand_glyphs(text)
            mono = mono_n * 10 >= n * 8 or _GUARDED.fullmatch(text) is not None
            text = compose_accents(text, code=mono)
            size = max(sizes.items(), key=lambda kv: kv[1])[0]
            base = max(s["origin"][1] for s in line["spans"])
            x0, y0, x1, y1 = _line_box(line, size, base)
            dx, dy = line["dir"]
            rtl_n = len(_RTL.findall(text))
            rows.append(
                Row(
                    text=text,
                    x0=x0,
                    y0=y0,
                    x1=x1,
                    y1=y1,
                    size=size,
                    bold=bold_n * 2 > n,
                    mono=mono,
                    rtl=rtl_n > 0 and rtl_n * 2 > len(_LETTER.findall(text)) > 0,
                    horizontal=abs(dy) < 1e-3 and dx > 0,
                    space_around=(raw[:1].isspace(), raw[-1:].isspace()),
                    cjk_size=max(cjk_sizes.items(), key=lambda kv: kv[1])[0] if cjk_sizes else 0,
                    base=base,
                    code=() if mono else tuple(c for c in map(str.strip, code) if c),
                )
            )
    return rows, presentation, ligatures


def _line_box(line: dict[str, Any], size: float, base: float) -> tuple[float, float, float, float]:
    """The line's box, its height taken from the spans whose own box is plausible for
    their size: a font's metrics can make a span's box far too tall (Computer Modern's
    symbol font, CMSY, boxes its ⟨ ⟩ 20 pt high in 11.5-pt text) or too thin (oscola's
    Libertine declares an ascent of 454 and a descent of -2: 5 pt for 11-pt text), and
    every rule that compares gaps with line heights or baselines with the line pitch cut
    the paragraph there. A line of thin spans only gets the box of a `size` font on its
    baseline `base`; a line of tall ones only (a script whose fonts are all tall) keeps its
    box."""
    x0, y0, x1, y1 = line["bbox"]
    if line["dir"][1] != 0:
        return x0, y0, x1, y1
    spans = [s for s in line["spans"] if s["text"].strip()]
    fits = [s for s in spans if 0.6 * s["size"] <= s["bbox"][3] - s["bbox"][1] <= 1.6 * s["size"]]
    if fits and len(fits) < len(spans):
        return x0, min(s["bbox"][1] for s in fits), x1, max(s["bbox"][3] for s in fits)
    if not fits and y1 - y0 < 0.6 * size:
        return x0, min(y0, base - 0.8 * size), x1, max(y1, base + 0.2 * size)
    return x0, y0, x1, y1


def _same_row(prev: Row, ln: Row) -> bool:
    """Is `ln` the next piece of the row `prev` reads along: to its right, or, in
    right-to-left text, just to its left (a Latin run inside a Persian line, "Chapter 2.
    Presentation مقدمة", comes as a separate MuPDF line placed left of or before it)?"""
    if not (prev.horizontal and ln.horizontal):
        return False
    # a listing's line number, set small, has its bottom above the code line's descenders
    h = max(ln.h, prev.h) if _NUMBERING.fullmatch(prev.text) else min(ln.h, prev.h)
    if abs(ln.y1 - prev.y1) > 0.3 * h:
        return False
    return ln.x0 >= prev.x1 - 1 or _leftward(prev, ln)


def _leftward(prev: Row, ln: Row) -> bool:
    """`ln` continues right-to-left text to the left of `prev`, within a word space or so
    (a wider gap is another column)."""
    return (prev.rtl or ln.rtl) and -1 <= prev.x0 - ln.x1 <= max(prev.size, ln.size)


def _join(prev: Row, ln: Row) -> Row:
    """Join two MuPDF lines on the same row (MuPDF splits lines at wide gaps and at changes
    of direction); the text keeps reading order, so a leftward piece follows."""
    leftward = _leftward(prev, ln) and ln.x0 < prev.x1 - 1
    gap = prev.x0 - ln.x1 if leftward else ln.x0 - prev.x1
    if prev.mono and ln.mono:
        cw = (prev.x1 - prev.x0) / max(1, len(prev.text))
        sep = " " * max(1, round(gap / cw)) if cw > 0 else " "
    else:
        spaced = prev.space_around[1] or ln.space_around[0]
        sep = " " if spaced or gap >= 0.1 * prev.size else ""
    longer = prev if len(prev.text) >= len(ln.text) else ln
    weight = len(prev.text) + len(ln.text)
    bold = (prev.bold * len(prev.text) + ln.bold * len(ln.text)) * 2 > weight
    mono = prev.mono and ln.mono
    if _NUMBERING.fullmatch(prev.text) and not _NUMBERING.fullmatch(ln.text):
        # a line number takes the style of the line it numbers: voting, it made every
        # numbered line of a listing a paragraph of its own
        longer, bold, mono = ln, ln.bold, ln.mono
    return Row(
        text=prev.text + sep + ln.text,
        x0=min(prev.x0, ln.x0),
        y0=min(prev.y0, ln.y0),
        x1=max(prev.x1, ln.x1),
        y1=max(prev.y1, ln.y1),
        size=longer.size,
        bold=bold,
        mono=mono,
        rtl=leftward or longer.rtl,
        horizontal=True,
        space_around=(prev.space_around[0], ln.space_around[1]),
        cjk_size=longer.cjk_size or prev.cjk_size or ln.cjk_size,
        gap=max(prev.gap, ln.gap, gap),
        base=max(prev.base, ln.base),
        code=() if mono else prev.code + ln.code,
    )


def _inside(row: Row, bbox: tuple[float, float, float, float]) -> bool:
    cx, cy = (row.x0 + row.x1) / 2, (row.y0 + row.y1) / 2
    return bbox[0] - 1 <= cx <= bbox[2] + 1 and bbox[1] - 1 <= cy <= bbox[3] + 1


@dataclass
class _Layout:
    """Page-level facts the line grouping compares rows against."""

    body: float = 0.0  # most common font size
    pitch: float = 0.0  # usual baseline-to-baseline distance of body lines (0: unknown)
    ends: tuple[float, ...] = ()  # where justified lines end (x1; x0 for RTL lines)
    start: float = 0.0  # where most left-to-right prose lines start (0: unknown)

    def full(self, row: Row) -> bool:
        """Does the row reach its column's edge (so the paragraph may go on)? Its column's
        edge is the first edge at or past its end; a row past every edge is no short line
        (Chinese is not set flush: its lines end past the edge a table's rows make)."""
        if row.rtl:
            edges = [e for e in self.ends if e <= row.x0 + 2.5]
            return not edges or row.x0 - max(edges) <= 2.5
        room = self.room(row)
        return room is None or room <= 2.5

    def room(self, row: Row) -> float | None:
        """How far a left-to-right row ends short of its column's edge (None: past every
        edge, or no edge known)."""
        edges = [e for e in self.ends if e >= row.x1 - 2.5]
        return min(edges) - row.x1 if edges else None


def _page_layout(rows: list[Row]) -> _Layout:
    if len(rows) < 3:
        return _Layout()
    sizes: dict[float, int] = {}
    # the prose's size: a .dtx page of 8-pt code beside 10-pt text had body 8, and its
    # 10-pt paragraphs no line pitch or short last lines
    for r in [r for r in rows if not r.mono] or rows:
        sizes[r.size] = sizes.get(r.size, 0) + len(r.text)
    body = max(sizes.items(), key=lambda kv: kv[1])[0]
    # baseline steps of prose: rows closer than 0.8 of their size are two parts of one
    # line (a formula's, a symbol table's stacked glyphs: mathtest's pitch came out 3.6 pt
    # at 12 pt, and every line of its prose broke from the next)
    steps = [
        b.baseline - a.baseline
        for a, b in itertools.pairwise(rows)
        if a.size == body == b.size
        and not a.mono
        and 0.8 * body <= b.baseline - a.baseline < 2.5 * body
    ]
    # Justified text: many long lines end at the same x (one edge per column). Ragged
    # text has no such edge, and then line length says nothing.
    prose = [r for r in rows if not r.mono and len(r.text) >= 20]
    counts: dict[int, int] = {}
    for r in prose:
        e = round(r.x0 if r.rtl else r.x1)
        counts[e] = counts.get(e, 0) + 1
    need = max(3, len(prose) // 5)
    ends = tuple(
        float(e)
        for e, n in counts.items()
        if n + counts.get(e - 1, 0) + counts.get(e + 1, 0) >= need
    )
    starts = Counter(round(r.x0) for r in prose if not r.rtl)
    start = float(starts.most_common(1)[0][0]) if starts else 0.0
    return _Layout(body, statistics.median(steps) if len(steps) >= 2 else 0.0, ends, start)


def _breaks(cur: list[Row], b: Row, lay: _Layout) -> bool:
    """Does row `b` start a new block after the rows in `cur`?"""
    a = cur[-1]
    h = min(a.h, b.h)
    if a.mono != b.mono or a.rtl != b.rtl:
        return True
    if not (a.horizontal and b.horizontal):
        return True
    if b.y0 < a.y0 - 0.5 * h:  # back up the page: next column or out-of-flow text
        return True
    if b.x0 >= a.x1 + h and b.y0 < a.y1:  # side by side
        return True
    gap = b.y0 - a.y1
    if (
        _goes_on(a, b, lay)
        and gap <= 0.7 * h
        and abs(a.size - b.size) <= 0.25 * max(a.size, b.size)
    ):
        return list_marker(b.text) is not None  # it goes on, unless an item opens there
    if a.cjk_size and b.cjk_size:  # Japanese or Chinese: their own size decides
        if abs(a.cjk_size - b.cjk_size) > max(0.6, 0.08 * a.cjk_size):
            return True
    elif abs(a.size - b.size) > max(0.6, 0.08 * a.size):
        return True
    if a.mono:
        return gap > 2.2 * h
    if a.bold != b.bold:
        return True
    if gap > 0.7 * h and not _spaced_on(a, b, lay):
        return True
    if lay.pitch and b.baseline - a.baseline > 1.3 * lay.pitch * max(1.0, a.size / lay.body):
        return True
    if list_marker(b.text):
        return True
    if _broken_word(a, b) or (b.text[:1].islower() and _same_end(a, b)):
        return False  # a word broken at the line's end, or a narrower passage's next line
    if (
        lay.ends
        and a.size == lay.body
        and not lay.full(a)
        and not _own_edge(cur)
        and not _ragged_on(a, b, lay)
    ):
        return True  # a justified paragraph's short last line
    if len(cur) >= 2:
        left = cur[1].left
        return abs(b.left - left) > 3
    if list_marker(a.text):  # a hanging item continues to the right of its marker
        return b.left < a.left - 3 and not _goes_on(a, b, lay)
    if lay.ends and (lay.full(a) or _ragged_on(a, b, lay)):
        # a full first line goes on (indented first line, or hanging indent), as does one
        # the next word did not fit (a command summary's "*\\baselineskip ressort pour la
        # distance verticale normale entre une" / "ligne de base et la suivante")
        return False
    return b.left > a.left + 3  # a label line followed by indented text


def _goes_on(a: Row, b: Row, lay: _Layout) -> bool:
    """Does row `b` go on with the sentence of row `a`, whatever their fonts and indents: a
    word broken at `a`'s end (`_broken_word`), or a full line that ends in a word or comma
    before a lower-case one? A line's size is its majority's: lilyglyphs' line of 8.5-pt
    glyph names in 11-pt text was cut from the next ("This is actually simpler" /
    "because we don't …"); frenchb's items run on under their dash ("— Biblatex …
    sont" / "transcrits …")."""
    if _broken_word(a, b):
        return True
    return (
        bool(lay.ends)
        and lay.full(a)
        and b.text[:1].islower()
        and _GOES_ON.search(a.text) is not None
        and not (_cells(a) or _cells(b))
    )


def _broken_word(a: Row, b: Row) -> bool:
    """Does row `a` end in a word that row `b` goes on with ("envi-" / "ronment")? Close
    below it, `b` is then the same paragraph whatever its fonts: a paragraph opening
    with a bold run-in title is bold on its first line ("Multivariate polynomials and
    rational functions. PARI ... poly-"), and a manual page's next line is smaller where
    it names a signal ("upon re-" / "ceipt of a SIGWINCH.", mostly 9 pt beside 10)."""
    return b.text[:1].islower() and _BROKEN_WORD.search(a.text) is not None


def _spaced_on(a: Row, b: Row, lay: _Layout) -> bool:
    """Does a full line, or a ragged one that ends within RAGGED_STRETCH ems of the edge,
    go on at the page's own wide line pitch? A thesis set double-spaced (ndsu's class) has
    a gap between every two lines wider than a line, and was cut into a paragraph per
    line; a paragraph break there adds space to the pitch. (mugsthesis's "… We can" /
    "then check the pagination" ended 1.4 em short. A page of spaced description items
    has their spacing for its pitch: an item 3 em short, "… leheküljed jne) värv", is no
    line of the next, "citecolor (=green) …".)"""
    if not (lay.ends and lay.pitch and b.baseline - a.baseline <= 1.1 * lay.pitch):
        return False
    if lay.full(a):
        return True
    room = lay.room(a)
    return room is not None and room < RAGGED_STRETCH * a.size and _ragged_on(a, b, lay)


def _ragged_on(a: Row, b: Row, lay: _Layout) -> bool:
    """Did the next line's first word not fit in the room left at the end of this one, and
    does the sentence go on? Then the line ended because the word did not fit, not
    because its paragraph did. A paragraph set ragged right (tikz-network's, a ragged
    thesis's) ends its lines up to a few ems short of the edge, and each was taken for a
    paragraph's short last line ("… Therefore, the same" / "rules and naming …"). TeX sets
    a ragged paragraph as a whole, not line by line: its lines may end up to
    RAGGED_STRETCH ems short even where the next word would fit (\\raggedright stretches
    the right margin by 2 em; oscola's "… more or less" / "the whole of the standard")."""
    room = lay.room(a)
    word = b.text.split(maxsplit=1)[0] if b.text.strip() else ""
    if a.rtl or room is None or not word[:1].islower() or not _GOES_ON.search(a.text):
        return False
    if _cells(a) or _cells(b):
        return False  # a description list's key, set apart from its text, opens an item
    per_char = (b.x1 - b.x0) / max(len(b.text), 1)
    return room < max((len(word) + 1) * per_char, RAGGED_STRETCH * a.size)


def _same_end(a: Row, b: Row) -> bool:
    """Do two rows of text end at the same x, the first a long one? Lines of a narrower
    justified passage (a framed or indented one) end together short of the page's edges;
    a table's rows end together too, but have wide gaps between their cells."""
    return len(a.text) >= 30 and abs(a.x1 - b.x1) <= 0.5 and not (_cells(a) or _cells(b))


def _own_edge(cur: list[Row]) -> bool:
    """Does the block's last row end where the row before it does (an edge of its own)?"""
    return len(cur) >= 2 and _same_end(cur[-1], cur[-2])


def _code_lines(rows: list[Row]) -> list[str]:
    """Monospace rows -> code lines with indentation and blank lines rebuilt."""
    widths = [(r.x1 - r.x0) / len(r.text) for r in rows if len(r.text) >= 4]
    cw = statistics.median(widths) if widths else rows[0].size * 0.52
    base = min(r.x0 for r in rows)
    steps = [b.y0 - a.y0 for a, b in itertools.pairwise(rows) if b.y0 > a.y0]
    pitch = min(steps) if steps else rows[0].h
    out: list[str] = []
    for i, r in enumerate(rows):
        if i and pitch > 0:
            blank = round((r.y0 - rows[i - 1].y0) / pitch) - 1
            out.extend([""] * max(0, min(blank, 2)))
        indent = max(0, round((r.x0 - base) / cw)) if cw > 0 else 0
        out.append(" " * indent + r.text)
    return out


def _make_block(rows: list[Row]) -> PdfBlock:
    bbox = round_box(
        (
            min(r.x0 for r in rows),
            min(r.y0 for r in rows),
            max(r.x1 for r in rows),
            max(r.y1 for r in rows),
        )
    )
    weight = sum(len(r.text) for r in rows)
    sizes: dict[float, int] = {}
    for r in rows:
        sizes[r.size] = sizes.get(r.size, 0) + len(r.text)
    size = max(sizes.items(), key=lambda kv: kv[1])[0]
    bold = sum(len(r.text) for r in rows if r.bold) * 2 > weight
    if rows[0].mono:
        return PdfBlock(
            kind="code",
            bbox=bbox,
            lines=_code_lines(rows),
            line_x0=[round(r.x0, 2) for r in rows],
            line_mid=[round((r.x0 + r.x1) / 2, 2) for r in rows],
            size=size,
            bold=bold,  # a large bold line of it may be a title (`pdf_headings`)
        )
    return PdfBlock(
        kind="text",
        bbox=bbox,
        lines=[r.text for r in rows],
        line_x0=[round(r.left, 2) for r in rows],
        line_mid=[round((r.x0 + r.x1) / 2, 2) for r in rows],
        size=size,
        bold=bold,
        rtl=rows[0].rtl,
    )


def _inline_code(items: list[Row | _Object], lay: _Layout) -> list[Row | _Object]:
    """`items` with a monospace row that is a wrapped line of the justified paragraph
    around it read as prose: after a full prose line (the paragraph goes on), at its left
    edge and line pitch, and not the first of more monospace rows. The R manuals' "…
    prepared by R" / "CMD build." and "use file" / "inst/COPYRIGHTS." were code blocks
    that cut their sentences in two; a display is indented, set apart, or introduced by
    a short line."""
    if not (lay.ends and lay.pitch):
        return items
    out = list(items)
    for i in range(1, len(out)):
        p, r = out[i - 1], out[i]
        if not (isinstance(p, Row) and isinstance(r, Row) and r.mono and not p.mono):
            continue
        n = out[i + 1] if i + 1 < len(out) else None
        if (
            p.size == lay.body
            and p.horizontal
            and r.horizontal
            and not (p.rtl or r.rtl)
            and lay.full(p)
            and not (p.text.rstrip().endswith(":") and not ends_in_scheme(p.text))
            and -2 * lay.body <= r.left - p.left <= 3
            and 0 < r.y1 - p.y1 <= 1.3 * lay.pitch
            and abs(r.size - p.size) <= max(0.6, 0.08 * p.size)
            and not (isinstance(n, Row) and n.mono and 0 < n.y1 - r.y1 <= 1.5 * lay.pitch)
        ):
            out[i] = replace(r, mono=False)
    return out


def _blank_listing_lines(items: list[Row | _Object]) -> list[Row | _Object]:
    """`items` with a bare line number between numbered lines of code ("6525" between
    "6524 …" and "6526 …": a blank line of the listing) read as a line of the listing."""
    out = list(items)
    for i, r in enumerate(out):
        if not (isinstance(r, Row) and not r.mono and r.text.isascii() and r.text.isdigit()):
            continue
        n = int(r.text)
        for j, step in ((i - 1, -1), (i + 1, 1)):
            near = out[j] if 0 <= j < len(out) else None
            if isinstance(near, Row) and near.mono and near.text.startswith(f"{n + step} "):
                # the line's size and height, not its small number's
                out[i] = replace(r, mono=True, size=near.size, y0=r.y1 - near.h)
                break
    return out


def _segment(items: list[Row | _Object]) -> list[PdfBlock]:
    rows = [it for it in items if isinstance(it, Row)]
    lay = _page_layout(rows)
    items = _inline_code(_blank_listing_lines(items), lay)
    blocks: list[PdfBlock] = []
    cur: list[Row] = []
    held: list[Row] = []  # margin notes beside `cur`, to follow it

    def close() -> None:
        nonlocal cur, held
        if cur:
            blocks.append(_make_block(cur))
        if held:
            blocks.extend(_segment(list(held)))
        cur, held = [], []

    for i, it in enumerate(items):
        if isinstance(it, _Object):
            close()
            blocks.append(it.block)
            continue
        if cur and _margin_note(cur, it, items[i + 1 :], lay):
            held.append(it)
            continue
        if cur and _breaks(cur, it, lay):
            close()
        cur.append(it)
    close()
    return blocks


def _margin_note(cur: list[Row], r: Row, after: list[Row | _Object], lay: _Layout) -> bool:
    """Is `r` a note in the margin beside the paragraph in `cur`, which goes on after it?
    ltxdoc's \\DescribeMacro sets the macro's name in the left margin beside the line that
    introduces it, and the paragraph was cut there in two (numprint, makebst, marginfix).
    The note follows the paragraph, as a block of its own."""
    a = cur[-1]
    if not (lay.ends and lay.full(a) and len(a.text) >= 20) or a.mono or _cells(a):
        return False  # a paragraph goes on after a full line of prose (not a table's row)
    # the page's margins: left of where its prose starts, right of where it ends (a
    # table's first column stands beside its other cells, but inside the text block)
    left = min(lay.start, *(c.x0 for c in cur))
    right = max(*lay.ends, *(c.x1 for c in cur))
    gap = 0.5 * r.size

    def outside(row: Row) -> bool:
        return row.x1 <= left - gap or row.x0 >= right + gap

    if not (outside(r) and r.horizontal and r.x1 - r.x0 <= 0.35 * (right - left)):
        return False
    # the flow's next row: past the note's own further lines, in the paragraph's column
    n = next((it for it in after if not (isinstance(it, Row) and outside(it))), None)
    return (
        isinstance(n, Row)
        and not _cells(n)
        and a.y0 - a.h <= r.y0 <= n.y0 + n.h
        and not _breaks(cur, n, lay)
    )


def _cells(r: Row) -> bool:
    """Does the row bridge a gap wider than a word space: a table's cells, or a key and
    its default set flush right (pgfkeys' manuals)?"""
    return r.gap >= 1.5 * r.size


def _skip_reason(page: Any, images: list[PdfBlock]) -> tuple[TextlessKind, str]:
    area = page.rect.width * page.rect.height or 1.0
    covered = sum((b.bbox[2] - b.bbox[0]) * (b.bbox[3] - b.bbox[1]) for b in images)
    if images and covered >= 0.5 * area:
        return "scanned", "image-only page (no text layer, e.g. a scan)"
    if images or page.get_cdrawings():
        return "figure", "no extractable text (graphics only)"
    return "blank", "blank page (no text)"


def extract_page(
    doc: Any,
    pno: int,
    images_out: dict[str, bytes],
    image_cache: dict[int, Any],
    font_cache: FontCache | None = None,
) -> PdfPage:
    """Extract page `pno` (1-based) of an open document; image bytes go to `images_out`;
    the caches (images, TeX fonts' encodings) by xref may be shared by a range's pages."""
    page = doc[pno - 1]
    rect = page.rect
    result = PdfPage(
        page=pno,
        width=round(rect.width, 2),
        height=round(rect.height, 2),
        label=page.get_label() or "",
    )
    textpage = page.get_textpage(flags=text_flags())  # kept for the links' text
    text = page.get_text("dict", textpage=textpage)
    decoders = page_decoders(doc, page, text, {} if font_cache is None else font_cache)
    decode_text(text, decoders)
    compose_carets_in(text)
    lines, presentation, ligatures = _raw_lines(text)
    lines = fix_word_spaces(lines, page, textpage, decoders, ligatures)
    lines, result.line_numbers = margin_line_numbers(lines)
    decode_words = words_decoder(decoders)
    counts = {"decorative": 0, "inline": 0, "oversized": 0}
    if not lines:
        # A page without text is skipped whole (its images too): there is nothing to cut
        # or verify in it without OCR. The reason says whether it looks scanned.
        found = page_images(doc, page, {}, image_cache, counts)
        result.skipped_kind, result.skipped = _skip_reason(page, found)
        return result
    images = page_images(doc, page, images_out, image_cache, counts)
    result.decorative_images = counts["decorative"]
    result.inline_images = counts["inline"]
    result.oversized_images = counts["oversized"]

    paths, visible = split_drawings(page.get_cdrawings(extended=True))
    tables = find_tables(page, paths, decode_words)
    items: list[Row | _Object] = []
    placed: set[int] = set()
    for ln in lines:
        owner = next((i for i, t in enumerate(tables) if _inside(ln, t.bbox)), None)
        if owner is not None:
            if owner not in placed:
                placed.add(owner)
                items.append(_Object(tables[owner]))
            continue
        prev = items[-1] if items else None
        if isinstance(prev, Row) and (_same_row(prev, ln) or joins_mark(prev, ln)):
            items[-1] = _join(prev, ln)
        else:
            items.append(ln)
    notes = note_area(
        [it for it in items if isinstance(it, Row)],
        lambda: short_rules(paths, rect.width, rect.height),  # read above, unchanged
        rect.height,
    )
    if notes:
        taken = {id(r) for n in notes for r in n.source}
        items = [it for it in items if id(it) not in taken]
    for i, t in enumerate(tables):
        if i not in placed:
            _insert_by_y(items, _Object(t))
    for img in images:
        _insert_by_y(items, _Object(img))
    captions = [  # (only a page with drawings can have a figure to caption)
        (it.x0, it.y0, it.x1, it.y1)
        for it in (items if visible else ())
        if isinstance(it, Row) and FIGURE_CAPTION.match(it.text)
    ]
    regions = figure_regions(visible, (rect.x0, rect.y0, rect.x1, rect.y1), captions)
    body = _figure_text(items, regions) if regions else items
    result.blocks = _segment(body) + [_note_block(n) for n in notes]
    result.code = [c for ln in lines if not ln.mono for c in ln.code]
    result.links = page_links(doc, page, textpage, lambda t: expand_glyphs(decode_words(t)))

    text = "\n".join(ln.text for ln in lines)
    # (garbled needs over 10 Latin-1 letters: most pages' letters are never counted)
    latin1 = len(_LATIN1_SUPP.findall(text))
    letters = len(_LETTER.findall(text)) if latin1 > 10 else 0
    result.garbled = letters >= 40 and latin1 > 0.25 * letters
    result.presentation_forms = presentation >= 20
    # Type 3 fonts with neither glyph names nor a Unicode map number their glyphs in the
    # order used: elhyphen's compound.pdf is "\x00\x02\x01\x04\x03…", 31 % control codes
    controls = len(_CONTROL.findall(text))
    if controls >= CODES_MIN:
        chars = len(_SPACE.sub("", text))
        rest = chars - controls
        words = sum(map(len, _WORD3.findall(text)))
        result.codes = controls >= CODES_SHARE * chars and words <= CODES_WORDS * rest
    fffd = text.count("\ufffd")
    result.unmapped = fffd >= 10 and fffd > 0.1 * len(text)
    return result


def _figure_text(items: list[Row | _Object], regions: list[Box]) -> list[Row | _Object]:
    """Rows that are text of a vector figure leave the flow: each figure's rows become one
    block flagged `figure`, where its first row was (code rows stay code)."""
    rows = [it for it in items if isinstance(it, Row) and not it.mono]
    owner = dict(
        zip(
            (id(r) for r in rows),
            figure_rows([((r.x0, r.y0, r.x1, r.y1), r.text) for r in rows], regions),
            strict=True,
        )
    )
    groups: dict[int, list[Row]] = {}
    blocks: dict[int, PdfBlock] = {}
    out: list[Row | _Object] = []
    for it in items:
        fig = owner.get(id(it))
        if fig is None or not isinstance(it, Row):
            out.append(it)
            continue
        if fig not in blocks:
            blocks[fig] = PdfBlock(kind="text", bbox=round_box(regions[fig]), figure=True)
            out.append(_Object(blocks[fig]))
        groups.setdefault(fig, []).append(it)
    for fig, block in blocks.items():
        mine = sorted(groups[fig], key=lambda r: (round(r.y0), r.x0))
        block.lines = [r.text for r in mine]
        block.line_x0 = [round(r.x0, 2) for r in mine]
        block.line_y = [(round(r.y0, 2), round(r.y1, 2)) for r in mine]
        block.size = statistics.median(r.size for r in mine)
    return out


def _note_block(note: NoteRows) -> PdfBlock:
    block = _make_block(note.rows)
    lines = [r.text for r in note.rows]  # as text, even when set in a monospace font
    return block.model_copy(update={"kind": "footnote", "mark": note.mark, "lines": lines})


def _insert_by_y(items: list[Row | _Object], obj: _Object) -> None:
    """Place a table/image right after the nearest item above it (preferring items in the
    same column, i.e. overlapping it horizontally); first when nothing is above it."""
    b = obj.block.bbox

    def overlaps(it: Row | _Object) -> bool:
        x0, x1 = (it.x0, it.x1) if isinstance(it, Row) else (it.block.bbox[0], it.block.bbox[2])
        return x0 < b[2] and x1 > b[0]

    above = [i for i, it in enumerate(items) if it.y0 <= b[1]]
    same_column = [i for i in above if overlaps(items[i])]
    pool = same_column or above
    if not pool:
        items.insert(0, obj)
        return
    best = max(pool, key=lambda i: (items[i].y0, i))
    items.insert(best + 1, obj)
