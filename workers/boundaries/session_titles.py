"""A study session's title is made of the author's headings, in the book's own words.

    "Introduction; The Filesystem; The Root Filesystem"
    "The Root Filesystem (continued): /home : User home directories; /lib : Essential …"

- the session's top-level headings (the highest level inside it), numbering left out
  ("3.8.", "Chapter 2", "Capítulo 2", "第二章", "제1 장", a Persian "۱ . ۲" at the end), in order;
- when the session starts inside a chapter that began in an earlier session, that
  chapter first, marked "(continued)" in the book's language ("（续）", "(продолжение)",
  "(ادامه)", "(Fortsetzung)"): the outermost section open at the session's start that
  spans at most CONTINUED_MAX_PAGES pages (a longer one is a part of the book, not a
  chapter) and is no heading of the title page (unnumbered, on the first page, holding
  all that follows it: "The feyn font (continued): Examples; Installation" was every
  session of a short manual), nor one of the front or back matter (a title heading the
  contents follow: "The compsci LaTeX package (continued); Discussion" opened that
  manual's study text);
- at most TITLE_CHARS characters, cut between headings, never inside one ("; …" says
  more follow); a first heading longer than that alone is cut at a word;
- a heading that only numbers its chapter ("Kapitel 3", "Chapitre4") is titled by the
  line after it, a heading or a short line of text ("Anwendung", "Une boucle « for »");
- Cyrillic that the PDF's fonts extracted as Latin-1 is shown as Cyrillic.

A heading whose title three or more headings of one section share is a label, not a
place: a long table's column heads set as a heading on every page ("Emoji Fullname
Aliases Description Codepoints Version"), an author's name over each of her exercises
("Y.Derrazi"). It names no session and continues none; the section around it does.

A session without a heading of its own is "X (continued)" after the innermost section it
lies in, however long, else after the document's title heading, followed by the bookmarks
that point into its pages and name no heading (the next session's first heading may be on
its last page): Erlang's reference manuals bookmark every function ("abs/1") over a
signature set as text, and 17 sessions in a row were "erlang (continued)" where they are
now "erlang (continued): byte_size/1; cancel_timer/1; …". A session with no heading
inside or around it is titled by the bookmarks that point into its pages (the highest
level among them), when the outline names what the text does not set as titles
(pdf-trans's example: one bookmark per macro over a page of drawn boxes); else it keeps
the planner's title (its first prose words). A title depends on the session's own element
range only, so splitting one session never renames another. Key terms are never part of
a title.

A function's signature set as a heading ("abs(Float) -> float()", `signs`) is titled by
the bookmark that names it ("abs/1").
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from quire.shared.ir import Document, Element
from quire.shared.plan import ChunkPlan
from quire.shared.text import NUMBER_WORD, signs
from quire.workers.boundaries.candidates import plain_text
from quire.workers.boundaries.matter_titles import (
    book_language,
    cyrillic_from_latin1,
    title_matter,
)

TITLE_CHARS = 100
CONTINUED_MAX_PAGES = 60
LABEL_REPEATS = 3  # headings of one section sharing a title: labels (see the docstring)
LABEL_TITLE_WORDS = 12  # a chapter's title after a bare "Kapitel 3" heading, at most
MORE = "…"


@dataclass(frozen=True)
class _Marks:
    continued: str  # after the continued chapter's title
    colon: str  # between it and the session's own headings
    semicolon: str  # between headings


_MARKS = {
    "en": _Marks(" (continued)", ": ", "; "),
    "zh": _Marks("（续）", "：", "；"),
    "ja": _Marks("（続き）", "：", "；"),
    "ru": _Marks(" (продолжение)", ": ", "; "),
    "fa": _Marks(" (ادامه)", ": ", "؛ "),
    "ko": _Marks(" (계속)", ": ", "; "),
    "el": _Marks(" (συνέχεια)", ": ", "; "),
    "th": _Marks(" (ต่อ)", ": ", "; "),
    "de": _Marks(" (Fortsetzung)", ": ", "; "),
    "fr": _Marks(" (suite)", " : ", " ; "),
    "es": _Marks(" (continuación)", ": ", "; "),
    "it": _Marks(" (continua)", ": ", "; "),
    "pt": _Marks(" (continuação)", ": ", "; "),
    "nl": _Marks(" (vervolg)", ": ", "; "),
    "pl": _Marks(" (ciąg dalszy)", ": ", "; "),
    "cs": _Marks(" (pokračování)", ": ", "; "),
    "sv": _Marks(" (forts.)", ": ", "; "),
    "da": _Marks(" (fortsat)", ": ", "; "),
    "ro": _Marks(" (continuare)", ": ", "; "),
    "hu": _Marks(" (folytatás)", ": ", "; "),
    "vi": _Marks(" (tiếp theo)", ": ", "; "),
}

# a title's numbering ("3.8.", "Chapter 2", "Part II", "Kapitel 3", "第二章", "제1 장"); Roman
# numerals in capitals only ("Part Civil Law" is a title)
LEADING_NUMBER = re.compile(
    r"^(?:(?:chapter|part|appendix|annex|section|lesson|unit|глава|часть|приложение|раздел"
    r"|capítulo|capitolo|chapitre|kapitel|kapitola|hoofdstuk|rozdział|teil|partie|parte"
    r"|anhang|annexe|apéndice|apêndice|appendice|chương|phần"
    r"|příloha|bijlage|bilaga|bilag|dodatek|apèndix|anexa|anexo|függelék|liite|lampiran"
    r"|phụ lục|παράρτημα|κεφάλαιο|luku|bölüm|capitolul|bab"
    r"|فصل|بخش|پیوست)(?:\s*\d{1,3}|\s+(?:[A-ZΑ-Ω]\b|(?-i:[IVXLC]{1,6})\b|" + NUMBER_WORD + r"\b))"
    r"(?:\.\d+)*[.:]?\s*"
    r"|第\s*[\dIVX一二三四五六七八九十百]+\s*[章节部篇]\s*|(?:附录|付録|부록)\s*[A-Z\d]{1,3}\s*"
    r"|제\s*\d+\s*[장부편]\s*"
    r"|(?:\d{1,3}|[A-Z](?=\.\d))(?:\s?\.\s?\d{1,3})*\.?\s+)",
    re.IGNORECASE,
)
_TRAILING_NUMBER = re.compile(r"\s*\d{1,3}(?:\s?\.\s?\d{1,3})*\s*$")  # "عنوان ۱ . ۲"
_RTL = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")


def heading_title(text: str) -> str:
    """A heading as title text: one line, no Markdown, no section numbering."""
    text = unicodedata.normalize("NFKC", text).replace("*", "").replace("`", "")
    text = " ".join(text.lstrip().lstrip("#").split())
    text = cyrillic_from_latin1(text) or text
    stripped = LEADING_NUMBER.sub("", text)
    if _RTL.search(stripped):
        stripped = _TRAILING_NUMBER.sub("", stripped)
    stripped = stripped.strip(" .:-–—")
    return stripped or text.strip()


def _bare_label(text: str) -> bool:
    """A heading that only numbers its chapter: "Kapitel 3", "Chapitre4", "Part II"."""
    text = " ".join(text.split())
    return bool(LEADING_NUMBER.match(text)) and not LEADING_NUMBER.sub("", text).strip(" .:-–—")


def _label_title(el: Element) -> str:
    """The title a bare label's next element gives its chapter ("" when it gives none): an
    unnumbered heading ("Kapitel 3" / "Anwendung"), or a short line of text set apart
    ("Chapitre4" / "Une boucle « for »"; a title set in a monospace font is one line of
    code), not a sentence."""
    text = plain_text(el)
    if el.type == "code":
        lines = el.text.strip().splitlines()
        text = lines[1].strip() if len(lines) == 3 else ""  # ```, the line, ```
    elif el.type not in ("heading", "paragraph"):
        return ""
    if not text or LEADING_NUMBER.match(text) or len(text.split()) > LABEL_TITLE_WORDS:
        return ""
    if el.type != "heading" and text.endswith("."):
        return ""
    return heading_title(text)


@dataclass(frozen=True)
class _Section:
    pos: int  # the heading's element position
    end: int  # the section's last element position
    level: int
    title: str
    pages: int  # pages the section spans
    whole: bool = False  # a heading of the title page holding all that follows it
    label: bool = False  # its title repeats in its section (see the module docstring)
    own: str = ""  # the heading's own words (a bookmark may title it: `_signed`)


@dataclass
class Outline:
    """The document's headings as sections, in order."""

    sections: list[_Section]
    starts: list[int]  # their positions, ascending
    language: str  # the book's, for the continuation mark

    @classmethod
    def of(cls, doc: Document) -> Outline:
        els = doc.elements
        heads = [(i, e.level or 1) for i, e in enumerate(els) if e.type == "heading"]
        bookmarks: dict[int, list[str]] = {}  # each page's, for headings they name by `signs`
        for o in doc.outline:
            bookmarks.setdefault(o.page, []).append(o.title)
        sections = []
        for k, (i, level) in enumerate(heads):
            end = next((j - 1 for j, lv in heads[k + 1 :] if lv <= level), len(els) - 1)
            own = heading_title(plain_text(els[i]))
            title = _signed(bookmarks.get(els[i].page_first, []), plain_text(els[i])) or own
            if i + 1 < len(els) and _bare_label(plain_text(els[i])):
                title = _label_title(els[i + 1]) or title
            span = max(e.page_last for e in els[i : end + 1]) - els[i].page_first + 1
            # the title page's headings (title, author) above all the rest: no chapter
            # ("Chapter 1" alone in an excerpt is one)
            text = " ".join(plain_text(els[i]).lstrip("#").split())
            whole = els[i].page_first == els[0].page_first and end == len(els) - 1
            whole = whole and not LEADING_NUMBER.match(text)
            sections.append(_Section(i, end, level, title, span, whole, own=own))
        return cls(_labelled(sections), [s.pos for s in sections], book_language(els))

    @cached_property
    def titles(self) -> frozenset[str]:
        """The sections' titles, casefolded."""
        return frozenset(s.title.casefold() for s in self.sections)

    def open_at(self, pos: int) -> list[_Section]:
        """Sections open just before element `pos`, outermost first."""
        before = self.sections[: bisect.bisect_left(self.starts, pos)]
        return sorted((s for s in before if s.end >= pos), key=lambda s: s.level)

    def inside(self, lo: int, hi: int) -> list[_Section]:
        a, b = bisect.bisect_left(self.starts, lo), bisect.bisect_right(self.starts, hi)
        return [s for s in self.sections[a:b] if s.title and not s.label]


def _signed(bookmarks: list[str], text: str) -> str:
    """The title of the first of a page's `bookmarks` that names the function whose
    signature `text` is ("abs/1" for "abs(Float) -> float()", `signs`), taken off the
    list (the next "atom_to_binary" heading on the page is "atom_to_binary/2"); else ""."""
    for n, bookmark in enumerate(bookmarks):
        if signs(bookmark, text.strip("#` ")):
            return heading_title(bookmarks.pop(n))
    return ""


def _labelled(sections: list[_Section]) -> list[_Section]:
    """`sections` with those whose title LABEL_REPEATS or more sections of one parent
    share marked as labels, by the headings' own words: the clauses of one function
    ("statistics(Item :: active_tasks) -> …", "statistics(Item :: context_switches) ->
    …") share their bookmark's title "statistics/1" and are no labels."""
    parents: list[int] = []  # each section's parent (the innermost section around it)
    stack: list[_Section] = []
    for s in sections:
        while stack and (stack[-1].level >= s.level or stack[-1].end < s.pos):
            stack.pop()
        parents.append(stack[-1].pos if stack else -1)
        stack.append(s)
    keys = [(parent, s.own.casefold()) for parent, s in zip(parents, sections, strict=True)]
    shared = Counter(keys)
    return [
        replace(s, label=True) if shared[key] >= LABEL_REPEATS else s
        for s, key in zip(sections, keys, strict=True)
    ]


def _fit(prefix: str, sep: str, items: Sequence[str], marks: _Marks) -> str:
    """`prefix`, `sep` and as many whole items as fit TITLE_CHARS (MORE for the rest)."""
    title = prefix
    for item in items:
        joined = f"{title}{sep if title else ''}{item}"
        if len(joined) > TITLE_CHARS:
            if not title:  # one heading longer than a title: cut at a word
                cut = item[:TITLE_CHARS].rsplit(" ", 1)[0].rstrip(" ,;:-")
                return cut + MORE
            return f"{title}{marks.semicolon}{MORE}"
        title, sep = joined, marks.semicolon
    return title


def _enclosing(open_: Sequence[_Section], reference: Collection[int]) -> _Section | None:
    """For a session without a heading of its own: the innermost section it lies in, of
    any length, else the document's title heading (a part of 200 pages, "Dimensions et
    boites (continued)", says more than the session's first words: "68 }", a code fence);
    never a title of front or back matter that holds no session ("Contents (continued)")."""
    named = [
        s
        for s in open_
        if s.title and not s.label and s.pos not in reference and not title_matter(s.title)
    ]
    return next((s for s in reversed(named) if not s.whole), named[0] if named else None)


def session_title(
    outline: Outline, doc: Document, lo: int, hi: int, reference: Collection[int] = ()
) -> str:
    """The title of the session holding elements lo..hi ("" when no heading names it;
    `reference`: the positions of the elements front or back matter sessions hold)."""
    first = doc.elements[lo]
    starts_at = (first.level or 1) if first.type == "heading" else None
    here = outline.inside(lo, hi)
    top = min((s.level for s in here), default=None)
    items: list[str] = []
    for s in here:
        if s.level == top and not any(s.title.casefold() == t.casefold() for t in items):
            items.append(s.title)
    marks = _MARKS.get(outline.language, _MARKS["en"])
    open_ = [s for s in outline.open_at(lo) if starts_at is None or s.level < starts_at]
    chapter = next(
        (
            s
            for s in open_
            if s.title
            and s.pages <= CONTINUED_MAX_PAGES
            and not (s.whole or s.label)
            and s.pos not in reference
        ),
        None,
    )
    if chapter is None and not items:
        chapter = _enclosing(open_, reference)
    if chapter is None:
        return _fit("", "", items or _bookmarks(doc, lo, hi), marks)
    if not items:  # what it holds, when bookmarks name what the text sets as no heading
        items = [t for t in _bookmarks(doc, lo, hi) if t.casefold() not in outline.titles]
        top = chapter.level + 1
    sep = marks.colon if top is not None and top > chapter.level else marks.semicolon
    return _fit(f"{chapter.title}{marks.continued}", sep, items, marks)


def _bookmarks(doc: Document, lo: int, hi: int) -> list[str]:
    """The titles of the highest bookmarks that point into the pages of elements lo..hi
    (the first page only when the session starts it)."""
    els = doc.elements
    first = els[lo].page_first
    if lo > 0 and els[lo - 1].page_last == first:  # the page began in the session before
        first += 1
    inside = [o for o in doc.outline if first <= o.page <= els[hi].page_last]
    top = min((o.level for o in inside), default=0)
    titles = [heading_title(o.title) for o in inside if o.level == top]
    return list(dict.fromkeys(t for t in titles if t))


def study_titles(doc: Document, chunks: Sequence[ChunkPlan]) -> list[ChunkPlan]:
    """`chunks` with each study session titled by its headings (see the module
    docstring); reference sessions and sessions without headings keep their title."""
    outline = Outline.of(doc)
    pos = {e.id: i for i, e in enumerate(doc.elements)}
    reference = {
        i for c in chunks if c.kind != "study" for i in range(pos[c.first_id], pos[c.last_id] + 1)
    }
    out = []
    for c in chunks:
        title = session_title(outline, doc, pos[c.first_id], pos[c.last_id], reference)
        out.append(c.model_copy(update={"title": title}) if title and c.kind == "study" else c)
    return out
