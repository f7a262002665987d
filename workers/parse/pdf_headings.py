"""Headings: from the PDF outline where there is one, from font statistics where there is not.

The outline (bookmarks) is the authors' own statement of where headings are. Each entry is
matched to a text block on its target page: normalised titles (case, spacing and
punctuation ignored) equal, or the block is the title behind a section number ("1.1.4 The
INDEX file" for "The INDEX file"), or a close fuzzy match; among several matches the one
nearest below the entry's target point wins. When the text layer is garbled (no match at
all), the short bold/large block right below the target point is taken instead. A heading
that shares a block with following body lines is split off. Level = outline level (max 6).
Under a bookmark that runs longer than a study session, titles set between the body and the
bookmarked titles are headings below the outline's deepest level.

Entry lines of contents and index pages (pdf_contents) are never headings, nor is text
inside a figure (pdf_figures) unless the outline names it.

Without an outline, a block is a heading when it is short and set larger than the body size
(the most common size, weighted by characters, over the whole document) or bold on a line
of its own; levels rank the distinct (size, bold) styles, largest first.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field

from quire.shared.ir import TITLE_PAGES_AFTER_ENTRY, OutlineEntry
from quire.shared.text import HANGUL, NUMBER_WORD, is_cjk, signs
from quire.workers.boundaries.matter_titles import title_matters
from quire.workers.parse.pdf_contents import is_entry_block
from quire.workers.parse.pdf_extract import list_marker
from quire.workers.parse.pdf_types import PdfBlock

CAPTION = re.compile(
    r"^(?:figure|fig\.|table|tab\.|listing|plate|chart|exhibit)\s+[A-Z]?\d+(?:[.\-–]\d+)*[a-z]?"
    r"\s*(?:[:.—–-]|$)",
    re.IGNORECASE,
)


@dataclass
class Heading:
    level: int
    origin: str  # "outline", "outline-position", "font" or "number"


@dataclass
class PageBody:
    """The body blocks of one page and the headings found among them (by block index)."""

    page: int
    blocks: list[PdfBlock]
    headings: dict[int, Heading] = field(default_factory=dict)
    # on a contents (or index) page, the highest page number an entry may name; 0 = not one
    contents_max_page: int = 0

    def entry(self, block: PdfBlock) -> bool:
        """An entry block of a contents page (never a heading)."""
        return (
            self.contents_max_page > 0
            and not block.figure
            and is_entry_block(block, self.contents_max_page)
        )


_NON_ALNUM = re.compile(r"[\W_]+")
AT_TARGET = 40.0  # points from an outline entry's target point to its title's top, at most


def norm_title(text: str) -> str:
    """Letters and digits only, case-folded, without accents: how titles and text lines are
    compared. (Bookmarks made without Unicode drop the accents: lshort-vi's outline says
    "Nhung kien thuc co ban" for the chapter "Những kiến thức cơ bản". NFKD parts a letter
    from its accents, which are no letters: the pattern takes them out.)"""
    return _NON_ALNUM.sub("", unicodedata.normalize("NFKD", text).casefold())


def body_size(bodies: list[PageBody]) -> float:
    sizes: dict[float, int] = {}
    for pb in bodies:
        for b in pb.blocks:
            if b.kind == "text" and not b.figure:
                n = sum(len(s) for s in b.lines)
                sizes[b.size] = sizes.get(b.size, 0) + n
    return max(sizes.items(), key=lambda kv: kv[1])[0] if sizes else 10.0


def _score(title_n: str, cand_n: str, one_line: bool = False) -> float:
    if not cand_n:
        return 0.0
    if cand_n == title_n:
        return 1.0
    if cand_n.endswith(title_n) and len(cand_n) - len(title_n) <= 12:
        return 0.95  # section number (or "chapter 3") in front of the title
    if title_n.endswith(cand_n) and len(cand_n) >= 0.6 * len(title_n):
        return 0.9
    if one_line and cand_n.startswith(title_n) and len(cand_n) <= 4 * len(title_n) + 60:
        return 0.85  # a title line that says more, e.g. "agrep  Approximate String Matching"
    if len(title_n) >= 6 and len(cand_n) <= 2 * len(title_n) + 12:
        sm = difflib.SequenceMatcher(None, title_n, cand_n, autojunk=False)
        if sm.quick_ratio() >= 0.85:  # cheap upper bound first
            ratio = sm.ratio()
            if ratio >= 0.85:
                return 0.85 * ratio
    return 0.0


# a section number as `norm_title` leaves it: "13", "411" (4.1.1), "a6" (A.6), "e", "iv"
_SECTION_NUMBER = re.compile(r"[a-z]?\d{0,6}|[ivxlc]{1,6}\d{0,4}")


def _numbered(title_n: str, candidate_n: str) -> bool:
    """Whether a normalised line is the title, alone or under a section number: not a
    running header that ends with it ("重庆大学硕士学位论文 4 结论" for "4 结论"), nor
    a line that ends with a letter group's title ("hbox commands:" for "S")."""
    return candidate_n.endswith(title_n) and bool(
        _SECTION_NUMBER.fullmatch(candidate_n[: len(candidate_n) - len(title_n)])
    )


def _lines(b: PdfBlock, part: slice) -> dict[str, list[str] | list[float]]:
    """Some of a block's lines, with their edges and middles."""
    return {"lines": b.lines[part], "line_x0": b.line_x0[part], "line_mid": b.line_mid[part]}


def _split(pb: PageBody, index: int, k: int) -> None:
    """Split block `index` after its first k lines (heading | rest)."""
    b = pb.blocks[index]
    if k >= len(b.lines):
        return
    head = b.model_copy(update=_lines(b, slice(k)))
    rest = b.model_copy(update=_lines(b, slice(k, None)))
    pb.blocks[index : index + 1] = [head, rest]
    pb.headings = {(i + 1 if i > index else i): h for i, h in pb.headings.items()}


def _join_next(pb: PageBody, index: int, k: int) -> None:
    """Move the first k - len(lines) lines of the next block into block `index`."""
    b, nxt = pb.blocks[index], pb.blocks[index + 1]
    take = k - len(b.lines)
    box = (min(b.bbox[0], nxt.bbox[0]), b.bbox[1], max(b.bbox[2], nxt.bbox[2]), nxt.bbox[3])
    pb.blocks[index] = b.model_copy(
        update={
            "lines": b.lines + nxt.lines[:take],
            "line_x0": b.line_x0 + nxt.line_x0[:take],
            "line_mid": b.line_mid + nxt.line_mid[:take],
            "bbox": box,
        }
    )
    if take >= len(nxt.lines):
        del pb.blocks[index + 1]
        pb.headings = {(i - 1 if i > index else i): h for i, h in pb.headings.items()}
    else:
        pb.blocks[index + 1] = nxt.model_copy(update=_lines(nxt, slice(take, None)))


def _run_in(pb: PageBody, index: int, cut: int) -> None:
    """Split a run-in heading ("Png  If gnuplot was ...") off the block's first line."""
    b = pb.blocks[index]
    first = b.lines[0]
    head = b.model_copy(
        update={"lines": [first[:cut].strip()], "line_x0": b.line_x0[:1], "line_mid": []}
    )
    rest = b.model_copy(update={"lines": [first[cut:].strip(), *b.lines[1:]], "line_mid": []})
    pb.blocks[index : index + 1] = [head, rest]
    pb.headings = {(i + 1 if i > index else i): h for i, h in pb.headings.items()}


# A section number a run-in title may stand behind, the title then closed by a period:
# woven WEB and CWEB programs open each starred section with "44. Doing it. TEX checks ...",
# the bookmark saying "Doing it" (and not "44. <Compute the base addresses 24> =", where a
# named module's bookmark points); a change file's changed section is starred ("256*. The
# hash table."), its bookmark numbered by its part ("[18] The hash table")
_RUN_IN_NUMBER = re.compile(r"§?\d{1,4}\*?\.\s+")
_PART_NUMBER = re.compile(r"^\[\d{1,3}\]\s*")


def _prefix_end(line: str, title_n: str) -> int | None:
    """Index just after the part of `line` whose normalised text is `title_n` (and any
    punctuation glued to it), alone or behind a section number, when that part ends at a
    word boundary; else None."""
    number = _RUN_IN_NUMBER.match(line)
    start = number.end() if number is not None and not title_n[:1].isdigit() else 0
    got = 0
    for idx, ch in enumerate(line[start:], start):
        nc = norm_title(ch)
        if not nc:
            continue
        if title_n[got : got + len(nc)] != nc:
            return None
        got += len(nc)
        if got == len(title_n):
            end = idx + 1
            while end < len(line) and not line[end].isspace() and not line[end].isalnum():
                end += 1
            if end >= len(line) or not line[end].isspace():
                return None
            return end if not start or "." in line[idx + 1 : end] else None
    return None


def _similar(b: PdfBlock, nxt: PdfBlock) -> bool:
    return (
        nxt.kind == "text"
        and abs(nxt.size - b.size) < 0.6
        and nxt.bold == b.bold
        and nxt.bbox[1] - b.bbox[3] < 1.5 * max(b.size, 1.0)
    )


def outline_names_chapters(outline: list[OutlineEntry]) -> bool:
    """Does the outline's top level name anything but front and back matter? pldoc's
    bookmarks are "Contents", "Change History" and "Index" only: its 31 sections were
    read as text under them, and its sessions titled by their first sentences."""
    entries = [o for o in outline if o.page]
    top = min((o.level for o in entries), default=0)
    return any(not title_matters(o.title) for o in entries if o.level == top)


def match_outline(
    bodies: dict[int, PageBody],
    outline: list[OutlineEntry],
    outline_y: list[float | None],
    body: float,
) -> list[int]:
    """Mark outline headings in `bodies`; returns the indexes of unmatched entries."""
    unmatched: list[int] = []
    entry_titles = [norm_title(o.title) for o in outline]
    titles = {t for t in entry_titles if t}
    ys = [outline_y[n] if n < len(outline_y) else None for n in range(len(outline))]
    # the targets of the entries of each title on each page: a chapter "Analysis of
    # Variance" over its section "5.2 Analysis of Variance" (HSAUR's chapters); a block at
    # another's target and away from an entry's own is that other's title, however well it
    # matches this one (biblatex's "\volcite" and "\Volcite", a line apart, are each at
    # their own)
    targets: dict[tuple[int, str], list[tuple[int, float]]] = {}
    for n, (o, t, r) in enumerate(zip(outline, entry_titles, ys, strict=True)):
        if t and r is not None:
            targets.setdefault((o.page, t), []).append((n, r))
    for n, entry in enumerate(outline):
        pb = bodies.get(entry.page)
        title_n = entry_titles[n]
        if pb is None or not title_n:
            unmatched.append(n)
            continue
        y = ys[n]
        rivals = [r for m, r in targets.get((entry.page, title_n), []) if m != n]
        level = max(1, min(entry.level, 6))
        run_in_n = norm_title(_PART_NUMBER.sub("", entry.title))
        # rank: (match class, -distance to the target point): exact > strong > fuzzy > run-in
        best: tuple[int, float, int, str, int] | None = None
        for i, b in enumerate(pb.blocks):
            # (figure text too: a title set in a drawn banner is still the outline's title;
            # and monospace, in a book set in typewriter type: by its first line or two,
            # right at the entry's target point)
            if b.kind not in ("text", "code") or i in pb.headings or pb.entry(b):
                continue
            dist, above = 0.0, False
            if y is not None:  # headings sit just below their target point
                above = b.bbox[1] < y - 30
                dist = abs(b.bbox[1] - y) + (200.0 if above else 0.0)
            at_target = y is not None and dist <= AT_TARGET
            code = b.kind == "code"
            if code and not at_target:  # a code line naming the entry is no title
                continue
            if (
                y is not None
                and abs(b.bbox[1] - y) > AT_TARGET
                and any(abs(b.bbox[1] - r) <= AT_TARGET for r in rivals)
            ):
                continue
            lines, action = list(b.lines[: 2 if code else 3]), "split"
            nxt = pb.blocks[i + 1] if i + 1 < len(pb.blocks) else None
            if (
                not code
                and len(b.lines) <= 2
                and nxt is not None
                and i + 1 not in pb.headings
                and _similar(b, nxt)
            ):
                lines += nxt.lines[:2]  # a title wrapped onto a line the grouping split off
            normed = [norm_title(ln) for ln in lines]  # norm(a + " " + b) == norm(a) + norm(b)
            for k in range(1, len(lines) + 1):
                if k > 1 and _names_another(normed[k - 2], title_n, titles):
                    break  # a line above the title is no label of it when it is another's
                joined = k > len(b.lines)
                candidate = "".join(normed[:k])
                s = _score(title_n, candidate, len(b.lines) == 1)
                if s < (0.9 if code else 0.8):
                    continue
                # a match well above the target point ranks below any at or under it: the
                # list line "cover" at the page's top is not the section "1.1 cover" that
                # the bookmark points at (Erlang's FOP manuals); and the title, alone or
                # under its section number, at the target point ranks above the rest, the
                # nearest first: "13 Compteurs" there beats the line "compteurs" ending
                # section 13.1's wrapped title further down (latex2e-fr), "3.3 Maketitle"
                # the command "\maketitle" set under it (apa6)
                cls = (2 if s >= 1.0 else 1 if s >= 0.9 else 0) - (3 if above else 0)
                if at_target and _numbered(title_n, candidate):
                    cls = 3
                cand = (cls, -dist, i, "join" if joined else action, k)
                if best is None or cand[:2] > best[:2]:
                    best = cand
            if at_target and best is None and not code:
                cut = _prefix_end(b.lines[0], run_in_n)
                if cut is not None:
                    best = (-1, -dist, i, "run-in", cut)
            if at_target and best is None and b.lines and signs(entry.title, b.lines[0]):
                best = (-2, -dist, i, "split", 1)  # a function's signature (`signs`)
        if best is not None:
            _, _, i, action, k = best
            if action == "join":
                _join_next(pb, i, k)
            elif action == "run-in":
                _run_in(pb, i, k)
            else:
                _split(pb, i, k)
            pb.headings[i] = Heading(level, "outline")
            continue
        pos = _below_target(pb, y, body) if y is not None else None
        named = _names_same_matter(pb, entry.title, y, body)
        if named is not None and (pos is None or not title_matters(pb.blocks[pos].lines[0])):
            _split(pb, named, 1)
            pb.headings[named] = Heading(level, "outline")
            continue
        if pos is not None and _said_elsewhere(pb, entry.title, title_n, pos):
            pos = None
        if pos is not None:  # garbled or missing text: the styled block right under the target
            pb.headings[pos] = Heading(level, "outline-position")
        elif not _opens_next_page(bodies, entry.page, title_n, level):
            unmatched.append(n)
    return unmatched


_MATTER_NAME_WORDS = 3  # words in a bookmark that is a name of front or back matter


def _names_same_matter(pb: PageBody, title: str, y: float | None, body: float) -> int | None:
    """The styled block of the page (bold, or larger than the body) whose first line names
    the same front or back matter as the entry `title`, in another language: hyperref's
    bookmarks keep babel's English names where the page is localised (lshort-cs's "Index"
    entry over its "Rejstřík", whose first letter group "Symboly" was taken for the title,
    and the index was read as a chapter). The nearest to the target point. Only for an
    entry that is such a name (three words at most): "Annex C (informative) Creating an index"
    reads as an index by its last words, but its title line is no other name of it.
    (Where the block under the target names matter itself, it stays the title: termcal-de's
    "Indices" points at its "Change History" above its "Index".)"""
    labels = {label for _, label in title_matters(title)}
    if not labels or len(title.split()) > _MATTER_NAME_WORDS:
        return None
    found = [
        i
        for i, b in enumerate(pb.blocks)
        if _styled(pb, i, body) and labels & {label for _, label in title_matters(b.lines[0])}
    ]
    return min(found, key=lambda i: abs(pb.blocks[i].bbox[1] - (y or 0.0)), default=None)


def _styled(pb: PageBody, i: int, body: float) -> bool:
    """Whether block `i` could be a title set apart by its style: text outside figures and
    contents entries, not yet a heading, bold or larger than the body."""
    b = pb.blocks[i]
    return (
        b.kind == "text"
        and not b.figure
        and i not in pb.headings
        and not pb.entry(b)
        and (b.bold or b.size > body * 1.05)
    )


def _opens_next_page(bodies: dict[int, PageBody], page: int, title_n: str, level: int) -> bool:
    """Mark the block that opens one of the pages after `page` (TITLE_PAGES_AFTER_ENTRY) and
    is the title, alone or under its number; False when there is none. A bookmark added
    before the page break that starts its chapter points at the end of the page before
    (hyperref's `\\addcontentsline` before `\\bibliography`): maximabook's "Index" and
    "Bibliography" both point at p. 131, but open pp. 132 and 133, and were left as
    paragraphs, their 24 pages read as study text."""
    for pb in (bodies.get(page + k) for k in range(1, TITLE_PAGES_AFTER_ENTRY + 1)):
        if pb is None:
            continue
        first = next((i for i, b in enumerate(pb.blocks) if not b.figure), None)
        if first is None or first in pb.headings:
            continue  # an empty page, or one a heading already opens
        b = pb.blocks[first]
        if b.kind != "text" or pb.entry(b):
            continue
        for k in (1, 2):  # its first line or two (the rest is the chapter's text)
            if k <= len(b.lines) and _numbered(title_n, "".join(map(norm_title, b.lines[:k]))):
                _split(pb, first, k)
                pb.headings[first] = Heading(level, "outline")
                return True
    return False


_SAID_MIN = 12  # letters and digits in a title that its page's text may be said to hold


def _said_elsewhere(pb: PageBody, title: str, title_n: str, pos: int) -> bool:
    """Whether block `pos`, the styled one under a bookmark's target, is no garbled form of
    its title: it shares no word with it, is no chapter label ("제1 장" over the title), and
    the title stands in the page's other text. Woven WEB and CWEB programs bookmark each
    named module ("Add up the char_widths in this string") where the name stands inside
    the code, and the bold line under the target is code ("end;", "else {"). A short title
    ("Index") may be any word of the page: not taken as said. Nor is a title standing as a
    line of its own: an entry of a list, or of a beamer sidebar's navigation ("Example
    Frames" beside the frame titled "Frame with a subtitle" it points at)."""
    block = " ".join(pb.blocks[pos].lines)
    if len(title_n) < _SAID_MIN or _words(block) & _words(title) or _LABEL.match(block.strip()):
        return False
    lines = [
        norm_title(line)
        for i, b in enumerate(pb.blocks)
        if i != pos and b.kind in ("text", "code")
        for line in b.lines
    ]
    return title_n not in lines and title_n in "".join(lines)


def _words(text: str) -> set[str]:
    return {w.casefold() for w in re.findall(r"[^\W\d_]{3,}", text)}


def _names_another(line_n: str, title_n: str, titles: set[str]) -> bool:
    """Whether a normalised line is another outline entry's title under its number: a
    slide deck's section outline lists every section above and below the one it opens
    ("1 Introduction" / "2 Building packages"), and "1 Introduction" is no label of the
    second as "Chapter 2" would be."""
    title = line_n.lstrip("0123456789")
    return title != line_n and title != title_n and title in titles


def _below_target(pb: PageBody, y: float, body: float) -> int | None:
    """The first short, bold or larger-than-body block starting just below `y`; a larger
    one right after it wins (a "Chapter 1" line above the chapter title). A bold line of
    body size under other text in its column is none: a change file of a WEB program
    bookmarks each part at the top of a page its title is not on, and the bold line
    further down is a Pascal keyword ("end;")."""
    found = [
        i
        for i, b in enumerate(pb.blocks)
        if _styled(pb, i, body)
        and y - 5 <= b.bbox[1] <= y + 160
        and len(b.lines) <= 2
        and _short_title(" ".join(b.lines))
    ]
    if not found:
        return None
    first = found[0]
    head = pb.blocks[first]
    if head.size <= body * 1.05 and any(
        b.kind in ("text", "code")
        and not b.figure
        and y - 5 <= b.bbox[1] < head.bbox[1]
        and b.bbox[0] < head.bbox[2]
        and head.bbox[0] < b.bbox[2]
        for b in pb.blocks
    ):
        return None  # bold at body size, below text in its column: no title
    for j in found[1:]:
        b = pb.blocks[j]
        if b.bbox[1] - head.bbox[3] <= 60 and b.size > head.size:
            return j
        break
    return first


def _short_title(text: str) -> bool:
    """Could a bookmark's line be a title: twenty words at most, not a label of what
    follows ("Warning:" over a note), and a letter or digit in it (not a lone "˜", as
    live-manual's blank pages hold)."""
    return (
        len(text.split()) <= 20 and not _LABEL_WORD.match(text) and any(ch.isalnum() for ch in text)
    )


def _font_candidate(b: PdfBlock, body: float) -> bool:
    if b.kind == "code":
        return _typewriter_title(b, body)
    if b.kind != "text" or b.figure or len(b.lines) > 3:
        return False
    text = " ".join(b.lines)
    if len(text) > 120 or CAPTION.match(text) or _SPECIMEN.search(text):
        return False
    if (m := list_marker(text)) and not _numbered_title(b, body, m):
        return False
    if text.rstrip()[-1:] in ",;" or not any(ch.isalpha() for ch in text):
        return False
    if _LABEL_WORD.match(text):
        return False
    if b.ocr and (len(text.split()) > _OCR_TITLE_WORDS or text[0].islower()):
        return False  # a scan's line heights are guesses: a paragraph's first line is no title
    if b.size >= body * 1.15:
        return True
    return (
        b.bold
        and len(b.lines) == 1
        and b.size >= body * 0.95
        and len(text.split()) <= 10
        and not text[0].islower()
        and text[-1] not in ".)"
        and not _symbols(text)
    )


def _typewriter_title(b: PdfBlock, body: float) -> bool:
    """A line of typewriter type set large and bold on its own: a title naming a command
    ("9 \\tokspre", ConTeXt's primitives manual: each primitive's section), not a listing,
    which is set at the body's size or smaller."""
    lines = [ln for ln in b.lines if ln.strip()]
    return (
        len(lines) == 1
        and b.bold
        and b.size >= body * TYPEWRITER_TITLE
        and len(lines[0].split()) <= _TYPEWRITER_TITLE_WORDS
        and any(ch.isalpha() for ch in lines[0])
    )


def _numbered_title(b: PdfBlock, body: float, marker: re.Match[str]) -> bool:
    """A line that starts like a numbered list item ("1. Greetings!") but is set large and
    bold on its own: a numbered title (plain TeX manuals without an outline, such as PARI's
    tutorial, number their sections so, and every section read as text)."""
    return (
        marker.group("num") is not None
        and marker.group(0).rstrip().endswith(".")
        and b.bold
        and len(b.lines) == 1
        and b.size >= body * 1.15
    )


# one word and a colon over what follows ("Note:", "Example:", "注意："): a label, no title
_LABEL_WORD = re.compile(r"^\w[\w'’-]*\s*[:：]$")
# a font's specimen: "ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz" set in the font
_SPECIMEN = re.compile(r"abcdefg|0123456789", re.IGNORECASE)
_OCR_TITLE_WORDS = 10  # a title read by OCR has at most this many words
TYPEWRITER_TITLE = 1.25  # a title in typewriter type: this much over the body size ...
_TYPEWRITER_TITLE_WORDS = 6  # ... and at most this many words
_HANGUL = re.compile(f"[{HANGUL}]")


def _symbols(text: str) -> bool:
    """Letters one to three at a time, no word: a piece of an equation set in bold ("W GM
    G T DμS", Word's equations in Simbody's theory manual), not a title."""
    longest = 1 if text[:1].isdigit() else 3  # a numbered title may be short: "3.1 FAQ"
    words = [w for w in re.split(r"[\W\d_]+", text) if w]
    return bool(words) and all(len(w) <= longest and not _word(w) for w in words)


def _word(w: str) -> bool:
    """Chinese, Japanese or Korean (a Hangul word has two or three syllables: "글꼴의
    이름"), or an acronym of three capitals ("FAQ", "API")."""
    return (
        is_cjk(w[0])
        or _HANGUL.match(w) is not None
        or (len(w) == 3 and w.isascii() and w.isupper())
    )


# A chapter's label on its own line above the title: "Chapter 1", "Capítulo 3", "Part II",
# "Appendix A", "Chapitre1", "Chương 2", "第1章", "第I 部", "제1 장", a bare number set
# large ("2", "—1—"), or Sphinx's "CHAPTER" over "THREE" (two lines, the number in words).
# Left a paragraph of its own, it ended the session before.
_LABEL = re.compile(
    r"^(?:[^\W\d_]{2,}\.?(?:\s*\d{1,3}|\s+(?:[IVXLC]{1,6}|[A-Z]|" + NUMBER_WORD + r"))"
    r"|(?P<bare>\d{1,3}|[IVXLC]{1,6}))\.?$"
    r"|^第\s*[\dIVX一二三四五六七八九十百]+\s*[章部篇节]$|^제\s*(?:\d+|[IVX]+)\s*[장부편]$"
)
_LABEL_GAP = 3.0  # the label's bottom at most this many of its sizes above the title


def _one_line(pb: PageBody, j: int, level: int) -> str | None:
    """Block `j`'s text where it could be (part of) a label above a heading of `level`:
    one line of text, no figure, no contents entry, and no heading but one found by its
    font at `level` or below (without an outline, haskell98-report's "Chapter 2", set
    smaller than "Lexical Structure", was a heading of its own, and the session it opened
    was titled as the chapter before's continuation)."""
    b = pb.blocks[j]
    if b.kind != "text" or b.figure or len(b.lines) > 1 or pb.entry(b):
        return None
    h = pb.headings.get(j)
    if h is not None and (h.origin != "font" or h.level < level):
        return None
    return b.lines[0].strip().strip("—–-").strip()


def _label_above(pb: PageBody, i: int, body: float) -> int | None:
    """The first block of the chapter label standing right above heading block `i`: the
    block before it, or the two before it read as one line ("CHAPTER" over "THREE")."""
    head = pb.blocks[i]
    if head.kind != "text" or _LABEL.match(head.lines[0].strip()) is not None:
        return None
    below = head
    text = ""
    level = pb.headings[i].level
    for j in (i - 1, i - 2):
        line = _one_line(pb, j, level) if j >= 0 else None
        if line is None:
            return None
        b = pb.blocks[j]
        if not 0 <= below.bbox[1] - b.bbox[3] <= _LABEL_GAP * b.size:
            return None
        text = f"{line} {text}".strip()
        m = _LABEL.match(text)
        if m is not None and b.size >= body * (1.2 if m.group("bare") else 1.0):
            return j
        below = b
    return None


def attach_labels(bodies: dict[int, PageBody], body: float) -> None:
    """Put each chapter label standing right above a heading into the heading's block
    ("Chapter 1" + "Introduction" -> "Chapter 1 Introduction"): the heading then opens
    its session with its label, instead of the label closing the session before. A bare
    number counts only when set well above the body size (not a page or line number)."""
    for pb in bodies.values():
        for i in sorted(pb.headings, reverse=True):  # later blocks first: indexes hold
            j = _label_above(pb, i, body)
            if j is not None:
                _merge(pb, j, i, pb.headings[i])


def _merge(pb: PageBody, j: int, i: int, heading: Heading) -> None:
    """Blocks j..i become one block, heading `heading`, the blocks after them renumbered
    (a block among them read as a heading of its own is part of this one now)."""
    part = pb.blocks[j : i + 1]
    pb.blocks[j : i + 1] = [
        part[-1].model_copy(
            update={
                "lines": [line for b in part for line in b.lines],
                "line_x0": [x for b in part for x in b.line_x0],
                "line_mid": [x for b in part for x in b.line_mid],
                "bbox": (
                    min(b.bbox[0] for b in part),
                    part[0].bbox[1],
                    max(b.bbox[2] for b in part),
                    part[-1].bbox[3],
                ),
            }
        )
    ]
    gone = i - j
    heads: dict[int, Heading] = {}
    for k, h in pb.headings.items():  # in their order (the outline's, for its headings)
        if k == i:
            heads[j] = heading
        elif not j <= k < i:
            heads[k - gone if k > i else k] = h
    pb.headings = heads


def font_headings(bodies: list[PageBody], body: float) -> None:
    """Mark headings by font size/boldness (documents without a usable outline)."""
    styles: set[tuple[float, bool]] = set()
    for pb in bodies:
        for b in pb.blocks:
            if _font_candidate(b, body) and not pb.entry(b):
                styles.add((b.size, b.bold))
    ranked = sorted(styles, key=lambda s: (-s[0], not s[1]))
    levels = {s: min(i + 1, 6) for i, s in enumerate(ranked)}
    for pb in bodies:
        for i, b in enumerate(pb.blocks):
            if i not in pb.headings and _font_candidate(b, body) and not pb.entry(b):
                pb.headings[i] = Heading(levels[(b.size, b.bold)], "font")
        _join_wrapped(pb, body)


LONG_SPAN = 13  # pages an outline entry may run before the sessions in it go untitled
_SUB_LETTERS = 3  # letters in a heading found under the outline (an index's "A" has one)


def headings_below_outline(
    bodies: dict[int, PageBody], outline: list[OutlineEntry], page_count: int, body: float
) -> None:
    """Where a bookmark runs longer than a study session, the titles set in it larger than
    the body but smaller than every matched outline title are headings below the outline's
    deepest level, ranked by style. apprendre-a-programmer-en-tex bookmarks chapters only
    ("Dimensions et boites", pp. 247-308): its sections "8.2. Les dimensions étirables" were
    text, and four sessions in a row were titled "Dimensions et boites (suite)"."""
    starts = sorted({o.page for o in outline if o.page})
    ends = [*starts[1:], page_count + 1]
    long_pages = [
        p for a, b in zip(starts, ends, strict=True) if b - a > LONG_SPAN for p in range(a, b)
    ]
    titles = [
        pb.blocks[i].size
        for pb in bodies.values()
        for i, h in pb.headings.items()
        if h.origin == "outline"  # matched by text: a position may hit a label
    ]
    if not long_pages or not titles:
        return
    ceiling = min(titles) - 0.5
    pages = [bodies[p] for p in long_pages if p in bodies]
    found: list[tuple[PageBody, int]] = []
    pages_of: dict[tuple[float, bool], set[int]] = {}
    for pb in pages:
        for i, b in enumerate(pb.blocks):
            if (
                i not in pb.headings
                and body * 1.15 <= b.size < ceiling
                and _font_candidate(b, body)
                and not pb.entry(b)
                and sum(ch.isalpha() for ch in " ".join(b.lines)) >= _SUB_LETTERS
            ):
                found.append((pb, i))
                pages_of.setdefault((b.size, b.bold), set()).add(pb.page)
    # a style seen on one page only is a one-off (a drawn glyph, a title page), no level
    ranked = sorted(
        (s for s, pages in pages_of.items() if len(pages) > 1), key=lambda s: (-s[0], not s[1])
    )
    deepest = max(o.level for o in outline if o.page)
    levels = {s: min(deepest + 1 + k, 6) for k, s in enumerate(ranked)}
    for pb, i in found:
        if (level := levels.get((pb.blocks[i].size, pb.blocks[i].bold))) is not None:
            pb.headings[i] = Heading(level, "font")
    for pb in pages:
        _join_wrapped(pb, body)


# a bookmark's section number ("3.8 Arithmetic functions.", "3.8. Arithmetic functions")
_ENTRY_NUMBER = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?\s")
RUN_IN_TITLE = 100  # characters of a run-in title, at most
MIN_NUMBERED = 3  # sections under one bookmark, at least


def numbered_below_outline(bodies: dict[int, PageBody], outline: list[OutlineEntry]) -> None:
    """Under a numbered bookmark longer than a study session, the blocks that open with its
    number one level down, in increasing order ("3.8.30 factor(x, {D}). Factor x over
    ...", "3.8.31 factorback(f, {e}). Gives back ..."), are its sections, one level below
    it: a title alone on its line is a heading, and a run-in title closed by a period is
    split off its paragraph. PARI's reference manual bookmarks two levels and sets each
    function so, bold at the body's size; its 65 pages of "Arithmetic functions" held no
    heading, and five sessions in a row were titled "Arithmetic functions (continued)"."""
    entries = sorted((o for o in outline if o.page), key=lambda o: o.page)
    for k, entry in enumerate(entries):
        end = entries[k + 1].page if k + 1 < len(entries) else max(bodies, default=0)
        number = _ENTRY_NUMBER.match(entry.title.strip())
        if number is None or end - entry.page <= LONG_SPAN:
            continue
        sub = re.compile(re.escape(number.group(1)) + r"\.(\d{1,3})\.?\s+(?=\S)")
        found: list[tuple[PageBody, int, int]] = []  # (page, block, where its title starts)
        last = 0
        for pb in (bodies[p] for p in range(entry.page, end + 1) if p in bodies):
            for i, b in enumerate(pb.blocks):
                m = sub.match(b.lines[0]) if b.kind == "text" and b.lines else None
                if m and int(m.group(1)) > last and not (b.figure or pb.entry(b)):
                    if i not in pb.headings:
                        found.append((pb, i, m.end()))
                    last = int(m.group(1))
        if len(found) < MIN_NUMBERED:
            continue
        heading = Heading(min(entry.level + 1, 6), "number")
        for pb, i, title in reversed(found):  # a split shifts the blocks after it
            first = pb.blocks[i].lines[0]
            close = first.find(". ", title)  # the period that closes a run-in title
            if 0 < close < RUN_IN_TITLE:
                _run_in(pb, i, close + 1)
                pb.headings[i] = heading
            elif len(pb.blocks[i].lines) == 1 and len(first) <= RUN_IN_TITLE:
                pb.headings[i] = heading


def join_wrapped_titles(bodies: dict[int, PageBody], body: float) -> None:
    """A bookmarked title set large whose last lines the page's grouping split off takes
    them back: left below the heading, they opened the chapter's text as paragraphs.
    HSAUR's chapter titles run up to five lines, the last ones centred ("Analysis of
    Variance: Weight Gain, Foster / Feeding in Rats, Water Hardness, and Male" over
    "Egyptian Skulls"; "Conditional Inference: Guessing Lengths," over "Suicides, …").
    Lines in the title's own style right under it join while the title is not closed
    by a period and they are centred under it ("Principal Component Analysis: The" over
    "Olympic Heptathlon"; the grouping may have put two of them in one block), or go on
    in lower case ("anpassen von classicthesis" / "mit dem arsclassica-paket"), or the
    title's line is unfinished (a comma, a colon, a dash). A line under a finished
    title, not centred under it, is something else in its style: a section's title
    ("12.1 In the text"), a margin reference ("NHR §18.8.5†"), a CJK manual's first
    line of text."""
    for pb in bodies.values():
        for i in sorted(pb.headings, reverse=True):
            h = pb.headings[i]
            if h.origin not in ("outline", "outline-position"):
                continue
            while i + 1 < len(pb.blocks) and i + 1 not in pb.headings:
                if not _wraps_onto(pb.blocks[i], pb.blocks[i + 1], body) or pb.entry(
                    pb.blocks[i + 1]
                ):
                    break
                # `_merge` keeps the heading of its last block: move it there, in its place
                pb.headings = {(i + 1 if k == i else k): v for k, v in pb.headings.items()}
                _merge(pb, i, i + 1, h)


def _wraps_onto(a: PdfBlock, b: PdfBlock, body: float) -> bool:
    """Is `b` the next line of the title `a` (see `join_wrapped_titles`)?"""
    last = a.lines[-1].rstrip() if a.lines else ""
    return (
        a.kind == b.kind == "text"
        and a.size >= body * 1.15
        and 0 < len(b.lines) <= WRAPPED_TITLE_LINES - len(a.lines)
        and not last.endswith(".")
        and (
            _centred_under(a, b)
            or (len(b.lines) == 1 and (b.lines[0][:1].islower() or last[-1:] in ",:;–—-"))
        )
        and _similar(a, b)
    )


WRAPPED_TITLE_LINES = 5  # lines of a title, at most (HSAUR has one of five)
CENTRED = 6.0  # points between the middles of a title and a line centred under it, at most


def _middle(b: PdfBlock) -> float:
    return (b.bbox[0] + b.bbox[2]) / 2


def _centred_under(a: PdfBlock, b: PdfBlock) -> bool:
    """Is `b` centred under `a`: the middle of its first line under that of `a`'s last and,
    under a one-line title, another left edge (a line of a shared column has its middle
    only when it is as wide). Without the lines' middles, blocks split from one share its
    box, which says nothing of them (oxyear's "9.5 Database" and its margin reference
    "NHR §18.8.5†")."""
    if _middles(a) and _middles(b):
        centred = abs(a.line_mid[-1] - b.line_mid[0]) <= CENTRED
    else:
        centred = a.bbox != b.bbox and abs(_middle(a) - _middle(b)) <= CENTRED
    return centred and (len(a.lines) >= 2 or abs(_left(a, -1) - _left(b, 0)) > CENTRED)


def _middles(b: PdfBlock) -> bool:
    """Are the middles of `b`'s lines known?"""
    return bool(b.lines) and len(b.line_mid) == len(b.lines)


def _left(b: PdfBlock, line: int) -> float:
    """The left edge of a block's line (of the block when its lines' are not known)."""
    return b.line_x0[line] if b.line_x0 else b.bbox[0]


def _join_wrapped(pb: PageBody, body: float) -> None:
    """A large title that the page's grouping split after a line ("Commands" over "for
    composing paragraphs", TeX for the Impatient's chapters) is one heading: as two, the
    session was titled "Commands; for composing paragraphs" and the next one "for
    composing paragraphs (continued)"."""
    for i in sorted(pb.headings, reverse=True):
        h, before = pb.headings[i], pb.headings.get(i - 1)
        if before is None:
            continue
        a, b = pb.blocks[i - 1], pb.blocks[i]
        if (
            before.origin == h.origin == "font"
            and before.level == h.level
            and b.size >= body * 1.15
            and len(a.lines) + len(b.lines) <= 3
            and _similar(a, b)
        ):
            _merge(pb, i - 1, i, h)


_ENTRY = re.compile(r"^(.*\S)\s+\d{1,4}$")
_MIN_TITLE = 3  # letters and digits in an entry's title ("G 44" in a chord chart is none)


def drop_contents_headings(bodies: dict[int, PageBody]) -> None:
    """Headings that are contents lines, back to text: a title and a page number ("4
    Thanks 37") where a later heading has that title. A contents page is found as one
    (`pdf_contents`), but its lines on a page of their own (the last entry at the top of
    the next page) or under a title page read as headings, and the front matter ended
    inside them."""
    order = [(pno, i) for pno in sorted(bodies) for i in sorted(bodies[pno].headings)]
    titles: dict[str, int] = {}  # title -> its last heading's position in `order`
    for k, (pno, i) in enumerate(order):
        titles[norm_title(" ".join(bodies[pno].blocks[i].lines))] = k
    for k, (pno, i) in enumerate(order):
        m = _ENTRY.match(" ".join(bodies[pno].blocks[i].lines))
        title = norm_title(m.group(1)) if m else ""
        if len(title) >= _MIN_TITLE and titles.get(title, -1) > k:
            del bodies[pno].headings[i]
