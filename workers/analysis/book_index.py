"""The author's back-of-book index, read from its printed lines. Pure: lines in, entries out.

An index page is read as a typesetter lays it out, in any script of the corpus:

- **columns**: lines whose horizontal extents overlap form a column; columns are read left
  to right, or right to left in a right-to-left index (Persian), each top to bottom;
- **levels**: a line set about one em or more in from its column's edge (the left edge, or
  the right edge in a right-to-left index) is a sub-entry of the entry above; a line set
  three ems or more in, a line of page numbers only, or a line after one that ends in a
  comma continues the line above (a wrapped term or locator list);
- **locators**: the page numbers after the term ("align environment, 4, 6, 26–28"), after
  dot leaders ("anova . . . 58, 60"), or before it where the PDF gives a right-to-left line
  in visual order ("۳۹ ،۳۷ ،سبک متنی"): Arabic, Persian and other digits, lower-case roman
  numerals, prefixed labels ("T-3"), ranges ("26–28") and "ff";
- **cross-references**: "see" and "see also" (and "см.", "см. также", "见", "参见", "另见",
  "نگاه کنید به") name other entries instead of pages;
- **defining occurrences**: a locator set in a style the index otherwise rarely uses for
  locators (bold, or italic where most are upright) marks where the term is defined;
- left out: the index's own title, letter-group headings ("A", "Symbols", "符号"),
  running headers and footers (the parser's removed lines, page numbers), and other
  matter: a line titled so ("Change History", "Bibliography", a closing "Table des
  matières"), set larger than the index's lines, leaves out what follows up to the next
  title or page titled as an index (a LaTeX package's change history, "v1.0 General:
  Initial release . . . 1", read like an index of its own).

`parse_index(pages)` gives the entries in index order; a sub-entry keeps its parent's term.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from quire.workers.boundaries.matter import title_matter, title_matters

SUB_INDENT_EMS = 0.75  # a line this far in (in font sizes) is a sub-entry ...
WRAP_INDENT_EMS = 3.0  # ... and this far in, the continuation of the line above
WIDE_SHARE = 0.6  # of the text width: a line wider than this spans the columns
MIN_COLUMN_LINES = 5  # a column of an index page has at least this many lines
MIN_COLUMN_SHARE = 0.2  # of the text width: a column this wide at least (three fit)
LARGE_TYPE = 1.15  # of the median size: a title or heading set larger than the entries
MARGIN_SHARE = 0.1  # of the page height: top and bottom bands where page numbers stand
TITLE_SIZE = 1.15  # a title is set at least this much larger than the index's lines

_NUM = r"\d{1,5}"
_ROMAN = r"[ivxlcdm]{1,7}"
_PREFIXED = r"[A-Z]{1,2}[-.]\d{1,4}"
_ONE = rf"(?:{_PREFIXED}|{_NUM}|{_ROMAN})"
_DASH = r"(?:–|—|−|-{1,2}|\x15)"  # \x15: an en dash from fonts without a Unicode map
_LOCATOR = re.compile(
    rf"(?P<first>{_ONE})(?:\s*{_DASH}\s*(?P<last>{_ONE}))?(?P<ff>\s*ff?\.?)?", re.UNICODE
)
_SEPARATORS = re.compile(r"[,，、،;；]")
# dot leaders before the locators; two dots will do there ("(option) . .22")
_RANGE = rf"{_ONE}(?:\s*{_DASH}\s*{_ONE})?"
_LIST_END = rf"(?={_RANGE}(?:\s*[,،]\s*{_RANGE})*\s*$)"  # the rest: locators only
_LEADERS = re.compile(rf"(?:(?:\s*[.·…]){{2,}}|\s+\.)\s*{_LIST_END}")  # or " . 156"
# (not after a dash: a range wrapped at the line's end, "73–" above "76, 79–85")
_SPACED = re.compile(rf"(?<=[^\s,،;–—−\-\x15])\s+{_LIST_END}")
# a TeX control word holds no digits: "\@biblabel 725" is a term and its locator
_CONTROL_WORD_SPACED = re.compile(rf"(\\[A-Za-z@]+)(?:\s*\.\s*|\s+){_LIST_END}")
# a control word broken across lines: TeX hyphenates a long one in an index column
# ("\\bibglsnewdualentryabbreviationsec-" above "ondary"); a name holds no hyphen
_BROKEN_CONTROL_WORD = re.compile(r"\\[A-Za-z@_:]+-$")
_LEADER_RUN = re.compile(r"(?:\s*[.·…]){2,}")  # leaders before locators not read as such
_SPACES = re.compile(r"\s+")
_NON_LETTERS = re.compile(r"[\W\d_]+")
_NUMBER_TOKEN = re.compile(rf"{_PREFIXED}|\d+|\b{_ROMAN}\b")
# "see also" before "see": the longer marker wins. CJK markers need a separator before
# them ("常见问题" holds 见 but is no cross-reference).
_SEE = re.compile(
    r"(?:^|(?<=[\s,.;:(]))(?P<also>see\s+also|also\s+see|см\.\s*также|نیز\s+نگاه\s+کنید\s+به)\s+"
    r"|(?:^|(?<=[\s,.;:(]))(?P<see>see|cf\.|см\.|نگاه\s+کنید\s+به)\s+"
    r"|(?:^|(?<=[,，;；(（]))\s*(?P<zh_also>参见|另见|参看)\s*"
    r"|(?:^|(?<=[,，;；(（]))\s*(?P<zh_see>见)\s*",
    re.IGNORECASE,
)
_NUMBERED_GROUP = re.compile(r"^(?:\d{1,2}|[A-Za-z]|[IVX]{1,4})[.)]\s+\w")  # "1) Commandes"
_GROUP_WORDS = frozenset(
    [
        "symbols",
        "numerics",
        "numbers",
        "digits",
        "符号",
        "数字",
        "символы",
        "цифры",
        "نمادها",
        "اعداد",
    ]
)
_PAGE_NUMBER_LINE = re.compile(r"^[\s|·•–—-]*(?:\d{1,5}|[ivxlcdm]{1,8})[\s|·•–—-]*$", re.IGNORECASE)
_RTL_LETTER = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")
_ARABIC_DIGIT = re.compile(r"[\u0660-\u0669\u06f0-\u06f9]")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- what the index parser reads ---------------------------------------------------------
# Plain dataclasses, not models: they never leave the process, and an index page has a
# thousand styled runs (pydantic's construction cost more than reading the page).


@dataclass(frozen=True, slots=True)
class IndexSpan:
    """A run of one style within a printed line."""

    text: str
    bold: bool = False
    italic: bool = False


@dataclass(frozen=True, slots=True)
class IndexLine:
    """One printed line of an index page: where it is and its styled runs."""

    x0: float
    x1: float
    y0: float
    y1: float
    size: float
    spans: list[IndexSpan]

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.spans)


@dataclass(frozen=True, slots=True)
class IndexPage:
    page: int  # physical, 1-based
    width: float
    height: float
    lines: list[IndexLine]  # in reading order: by baseline, left to right along one


# --- what it gives ------------------------------------------------------------------------


class Locator(_Model):
    """Where an entry points: a printed page label, or a range of them."""

    first: str  # as printed, digits folded to ASCII: "12", "xiv", "T-3"
    last: str | None = None  # the end of a range ("12–15")
    defining: bool = False  # set in the index's defining style (bold or italic)


class IndexEntry(_Model):
    term: str  # the entry's own words (a sub-entry's without its parent)
    parent: str | None = None  # the entry a sub-entry sits under
    locators: list[Locator] = []
    see: list[str] = []
    see_also: list[str] = []

    @property
    def display(self) -> str:
        """How the term is shown: a sub-entry with its parent, "arrows (extensible)"."""
        return f"{self.parent} ({self.term})" if self.parent else self.term


# --- parsing ------------------------------------------------------------------------------


def ascii_digits(text: str) -> str:
    """Digits of any script as ASCII ("۱۲" -> "12")."""
    if text.isascii():
        return text
    return "".join(str(unicodedata.digit(c)) if c.isdigit() else c for c in text)


def _fold(text: str) -> str:
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip()


@dataclass
class _Row:
    """A printed line, reduced to what the entry builder needs."""

    text: str
    indent: float  # from the column's edge, in font sizes
    bold: set[str] = field(default_factory=set)  # number tokens set in bold
    italic: set[str] = field(default_factory=set)


@dataclass
class _Styles:
    """How the index sets its locators: which style, if any, marks defining ones."""

    plain: int = 0
    bold: int = 0
    italic: int = 0

    def defining(self) -> tuple[bool, bool]:
        """(bold marks defining, italic marks defining): a style used for a minority."""
        total = self.plain + self.bold + self.italic
        return (0 < self.bold * 2 < total, 0 < self.italic * 2 < total)


def _letters(text: str) -> str:
    """A title's letters alone (numbering, spaces and leaders dropped), as matched."""
    return _NON_LETTERS.sub("", text)


def _index_title(text: str, margin: bool = False) -> bool:
    """ "Index", "Concept index", "索引", a running head "۱۲۱ نمایه" (in the `margin`): the
    index's title. An entry "index, 12" is no title: a title has no page numbers."""
    letters = _letters(text)
    found = title_matter(letters) if letters else None
    if found is None or found[1] not in ("index", "glossary"):
        return False
    return margin or not split_entry(text)[1]


def _title_line(text: str, size: float, body: float) -> bool:
    """A line set larger than the index's lines (`body`), without page numbers: a title.
    An entry "bibliography" over sub-entries has no page numbers either, but the index's
    own size."""
    return size >= TITLE_SIZE * body and not split_entry(text)[1]


def _ends_index(text: str, size: float, body: float) -> bool:
    """A title of other front or back matter than an index or glossary ("Change History",
    "Bibliography", a French book's closing "Table des matières")."""
    if not _title_line(text, size, body):
        return False
    found = title_matters(_letters(text))
    return bool(found) and all(label not in ("index", "glossary") for _, label in found)


def _kept_lines(page: IndexPage, skip: Collection[str]) -> list[IndexLine]:
    """The page's entry lines: without its title and what stands above it, the running
    text the parser removed (`skip`) and page numbers in the top or bottom margin."""
    band = MARGIN_SHARE * page.height
    lines = [(ln, _fold(ln.text), ln.y1 < band or ln.y0 > page.height - band) for ln in page.lines]
    titles = [ln.y0 for ln, text, margin in lines if _index_title(text, margin)]
    top = max(titles, default=float("-inf"))
    return [
        ln
        for ln, text, margin in lines
        if ln.y0 > top
        and text
        and not _removed(text, margin, skip)
        and not _index_title(text, margin)
        and not (margin and _PAGE_NUMBER_LINE.match(text))
    ]


def _removed(text: str, margin: bool, skip: Collection[str]) -> bool:
    """Is the line running text the parser removed? In the margin, a piece of it will do:
    the parser reads a header's row whole ("GAP - Reference Manual 1429"), this reader
    its pieces set apart, and the title piece, kept, bridged the index's two columns."""
    return text in skip or (margin and any(f" {text} " in f" {r} " for r in skip))


def _group_heading(text: str) -> bool:
    """ "A", "B", "%", "Symbols", "符号": a letter-group heading, not an entry."""
    bare = text.strip()
    if not (len(bare) <= 2 or bare.casefold() in _GROUP_WORDS):
        return False
    _, locators, see, also = split_entry(bare)
    return not (locators or see or also)


def _cluster(lines: Sequence[IndexLine], slack: float = 0.0) -> list[list[IndexLine]]:
    """Lines grouped by horizontal extents overlapping by more than `slack`, left to
    right."""
    columns: list[tuple[float, list[IndexLine]]] = []
    for ln in sorted(lines, key=lambda ln: ln.x0):
        if columns and ln.x0 <= columns[-1][0] - 1 - slack:
            right, members = columns[-1]
            columns[-1] = (max(right, ln.x1), [*members, ln])
        else:
            columns.append((ln.x1, [ln]))
    return [members for _, members in columns]


def _extent(column: Sequence[IndexLine]) -> float:
    return max(ln.x1 for ln in column) - min(ln.x0 for ln in column)


def _columns(lines: Sequence[IndexLine], rtl: bool) -> list[list[IndexLine]]:
    """The page's columns in reading order, each top to bottom. A line wider than
    WIDE_SHARE of the text that joins columns into one is a note across them ("Italic
    numbers denote..."), no entry: it is left out; an entry that runs an em or less into
    the next column's edge (a narrow gutter, an overfull line) joins none."""
    if not lines:
        return []
    columns = _cluster(lines)
    if len(columns) == 1:
        width = _extent(lines)
        em = statistics.median(ln.size for ln in lines)
        narrow = [ln for ln in lines if ln.x1 - ln.x0 <= WIDE_SHARE * width]
        # a title set large may bridge the gutter (a Finnish index's "Asiahakemistot" above
        # two narrow columns): the rest set the columns apart, and it joins the one it
        # starts in
        large = [ln for ln in narrow if ln.size > LARGE_TYPE * em]
        rest = [ln for ln in narrow if ln.size <= LARGE_TYPE * em]
        split = _cluster(rest)
        if len(split) == 1:  # columns that touch: set apart by a slack of an em
            split = [c for c in _cluster(rest, em) if _extent(c) >= MIN_COLUMN_SHARE * width]
            split = split if len(split) > 1 and sum(map(len, split)) == len(rest) else []
        if len(split) > 1 and all(len(c) >= MIN_COLUMN_LINES for c in split):
            edges = [min(x.x0 for x in c) for c in split]
            for ln in large:
                split[max((i for i, x in enumerate(edges) if x <= ln.x0 + 1), default=0)].append(ln)
            columns = split
    place = {id(ln): i for i, ln in enumerate(lines)}  # the reader's order (by baseline)
    ordered = [sorted(c, key=lambda ln: place[id(ln)]) for c in columns]
    return ordered[::-1] if rtl else ordered


def _is_rtl(pages: Sequence[IndexPage]) -> bool:
    """A right-to-left index: most lines hold Arabic-script letters or digits."""
    lines = [ln.text for p in pages for ln in p.lines]
    rtl = sum(1 for t in lines if _RTL_LETTER.search(t) or _ARABIC_DIGIT.search(t))
    return rtl * 2 > len(lines) > 0


def _rows(pages: Sequence[IndexPage], skip: Mapping[int, Collection[str]]) -> Iterable[_Row]:
    """The index's lines in reading order, each with its indent from its column's edge."""
    rtl = _is_rtl(pages)
    # pages before the one with the index's title are other back matter (a bibliography)
    titled = [i for i, p in enumerate(pages) if any(_index_title(_fold(ln.text)) for ln in p.lines)]
    body = statistics.median([ln.size for p in pages for ln in p.lines] or [0.0])
    start = titled[0] if titled else 0
    ended = False  # by a title of other matter, until the next title or index page
    edges: dict[tuple[int, int, int], float] = {}  # (side, column, columns) -> edge
    for i, page in enumerate(pages[start:], start):
        dropped = {_fold(t) for t in skip.get(page.page, ())}
        ended = ended and i not in titled
        columns = _columns(_kept_lines(page, dropped), rtl)
        for k, column in enumerate(columns):
            edge = _edge(column, rtl, edges, (page.page % 2, k, len(columns)))
            for ln in column:
                text = _fold(ln.text)
                if _ends_index(text, ln.size, body):
                    ended = True
                elif ended and _title_line(text, ln.size, body):
                    ended = False  # the next title: an index whose title reads otherwise
                    continue
                if ended or _group_heading(text):
                    continue
                indent = (edge - ln.x1) if rtl else (ln.x0 - edge)
                row = _Row(text, indent / max(ln.size, 1.0))
                for span in ln.spans:
                    tokens = {ascii_digits(t) for t in _NUMBER_TOKEN.findall(span.text)}
                    if span.bold:
                        row.bold |= tokens
                    if span.italic:
                        row.italic |= tokens
                yield row


def _edge(
    column: Sequence[IndexLine],
    rtl: bool,
    edges: dict[tuple[int, int, int], float],
    key: tuple[int, int, int],
) -> float:
    """A column's edge: where its lines begin (end, right to left), unless all of them
    are set in by a sub-entry's indent from where the entries of the same column began on
    the index's last page of that side: a column of sub-entries alone (ctex-faq's "\\ref",
    "\\section" under "Commands", on a page of their own, read as entries, the first the
    parent of the others). `edges` remembers each side's entry edges (a letter group or a
    numbered group set out, VisualPSTricks's "2) Paramètres", is no entry's edge)."""
    own = max(ln.x1 for ln in column) if rtl else min(ln.x0 for ln in column)
    last = edges.get(key)
    em = statistics.median(ln.size for ln in column)
    inset = (last - own if rtl else own - last) if last is not None else 0.0
    if last is not None and SUB_INDENT_EMS * em <= inset < WRAP_INDENT_EMS * em:
        return last
    entries = [
        ln
        for ln in column
        if not (_group_heading(t := _fold(ln.text)) or _NUMBERED_GROUP.match(t.strip()))
    ]
    if entries:
        edges[key] = max(ln.x1 for ln in entries) if rtl else min(ln.x0 for ln in entries)
    return own


def _styles(pages: Sequence[IndexPage]) -> _Styles:
    styles = _Styles()
    for page in pages:
        for ln in page.lines:
            for span in ln.spans:
                n = len(_NUMBER_TOKEN.findall(span.text))
                if span.bold:
                    styles.bold += n
                elif span.italic:
                    styles.italic += n
                else:
                    styles.plain += n
    return styles


def _locator_segment(segment: str) -> re.Match[str] | None:
    m = _LOCATOR.fullmatch(segment.strip())
    return m if m and segment.strip() else None


_Split = tuple[str, list[tuple[str, str | None]], list[str], list[str]]


def split_entry(text: str, spaced: bool = False) -> _Split:
    """One logical index line -> (term, [(first, last)], see, see_also).

    Locators are taken from the end of the line, or from its start when the line is a
    right-to-left one in visual order ("۴۵ ،term"); `spaced`: the index sets a space, not
    a comma, between the term and its first locator ("format 7, 8")."""
    # (a line that goes on below ends in a comma: the leaders come before its locators too)
    text = _LEADERS.sub(", ", _fold(text).rstrip(" ,，、،;；")).rstrip(" ,，、،;；")
    see: list[str] = []
    also: list[str] = []
    m = _SEE.search(text)
    if m:
        targets = [t.strip(" .,;()（）") for t in re.split(r"[;；]", text[m.end() :])]
        (also if m.group("also") or m.group("zh_also") else see).extend(t for t in targets if t)
        text = text[: m.start()].rstrip(" ,;，；、،")
    if spaced:
        text = _SPACED.sub(", ", text, count=1)
    text = _CONTROL_WORD_SPACED.sub(r"\1, ", text, count=1)
    cuts = [m.start() for m in _SEPARATORS.finditer(text)]
    bounds = [-1, *cuts, len(text)]  # segment k is text[bounds[k] + 1 : bounds[k + 1]]
    lo, hi = 0, len(bounds) - 1  # the segments left for the term
    locators: list[tuple[str, str | None]] = []
    while hi - lo > 1 and (loc := _locator_segment(text[bounds[hi - 1] + 1 : bounds[hi]])):
        locators.insert(0, (loc.group("first"), loc.group("last")))
        hi -= 1
    if not locators:
        while hi - lo > 1 and (loc := _locator_segment(text[bounds[lo] + 1 : bounds[lo + 1]])):
            locators.append((loc.group("first"), loc.group("last")))
            lo += 1
    term = text[bounds[lo] + 1 : bounds[hi]].strip()
    if len(term) > 2 and not locators:
        term = term.rstrip(",،;").strip()
    leader = _LEADER_RUN.search(term)
    if leader and leader.start() > 0:  # "§3", "Table 1.2" after them: no term's words
        term = term[: leader.start()]
    folded = [(ascii_digits(a), ascii_digits(b) if b else None) for a, b in locators]
    return _SPACES.sub(" ", term), folded, see, also


def _unfinished(text: str) -> bool:
    return text.rstrip().endswith((",", "،", "–", "-", "—", ";"))


def _logical_lines(rows: Iterable[_Row]) -> list[tuple[int, _Row]]:
    """(level, row) with wrapped lines joined to the line they continue."""
    out: list[tuple[int, _Row]] = []
    for row in rows:
        if out:
            level, prev = out[-1]
            locator_only = not split_entry("x, " + row.text)[0].strip(" x")
            # a line after one that ends in a comma goes on with it when set further in (a
            # sub-entry under a sub-entry that ends so is an entry of its own: "\\dum" under
            # lshort's "\\documentclass, 7, 9, 10, 14,")
            further = row.indent > prev.indent + SUB_INDENT_EMS / 2
            wraps = row.indent >= WRAP_INDENT_EMS or (_unfinished(prev.text) and further)
            if row.indent >= SUB_INDENT_EMS and (wraps or locator_only):
                head = prev.text.rstrip()
                broken = _BROKEN_CONTROL_WORD.search(head) and row.text[:1].isalpha()
                joined = _Row(
                    head[:-1] + row.text if broken else f"{prev.text} {row.text}",
                    prev.indent, prev.bold | row.bold, prev.italic | row.italic,
                )  # fmt: skip
                out[-1] = (level, joined)
                continue
        out.append((1 if row.indent >= SUB_INDENT_EMS else 0, row))
    return out


def _spaced(plain: Sequence[_Split], spaced: Sequence[_Split], texts: Sequence[str]) -> bool:
    """Does the index set a space between a term and its first locator ("préprocesseur
    10", "format 7, 8")? So it does when most lines with locators show one more that way
    (a term ending in a number, "Windows 10, 45", is the exception, not the rule); the
    lines as read each way. A line whose locators follow a control word or dot leaders
    reads the same either way and tells nothing (a TeX book's index, most of it control
    words, had outvoted its spaced "préprocesseur 10": 130 key terms so)."""
    gained = found = 0
    for a, b, text in zip(plain, spaced, texts, strict=True):
        folded = _fold(text)
        if _CONTROL_WORD_SPACED.search(folded) or _LEADERS.search(folded):
            continue
        more = len(b[1]) > len(a[1])
        found += bool(a[1]) or more
        gained += more
    return gained * 2 > found


def parse_index(
    pages: Sequence[IndexPage], skip: Mapping[int, Collection[str]] | None = None
) -> list[IndexEntry]:
    """The entries of an index printed on `pages` (in order); `skip`: page -> lines to
    leave out (running headers and footers the parser removed)."""
    bold_marks, italic_marks = _styles(pages).defining()
    entries: list[IndexEntry] = []
    parent: str | None = None
    lines = _logical_lines(_rows(pages, skip or {}))
    plain = [split_entry(row.text) for _, row in lines]
    spaced = [split_entry(row.text, spaced=True) for _, row in lines]
    read = spaced if _spaced(plain, spaced, [row.text for _, row in lines]) else plain
    for (level, row), (term, locators, see, also) in zip(lines, read, strict=True):
        if not term:
            continue
        if level == 0 and not (locators or see or also) and _NUMBERED_GROUP.match(term):
            parent = None  # "1) Commandes": a numbered group of the index, whose entries
            continue  # are terms of their own ("\\Cnode", not "1) Commandes (\\Cnode)")
        marked = (row.bold if bold_marks else set()) | (row.italic if italic_marks else set())
        entry = IndexEntry(
            term=term,
            parent=parent if level else None,
            locators=[Locator(first=a, last=b, defining=a in marked) for a, b in locators],
            see=see,
            see_also=also,
        )
        if level == 0:
            parent = term
        entries.append(entry)
    return entries
