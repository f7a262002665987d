"""Front and back matter: the parts of a book that are for looking things up, not for study.

Title pages, contents and lists of figures or tables (front matter), indexes, bibliographies,
glossaries, change histories and reprinted licences (back matter) become reference sessions
of their own: the planner cuts at their edges, the manifest marks them `front_matter` /
`back_matter`, and they are left out of study time and never given a study focus.

Recognised from the IR alone, in any script:

- **titles** of headings and outline entries ("Table of Contents", "Concept index",
  "Bibliografía", "فهرست مطالب", "Предметный указатель", "参考文献", …: the one table of
  `matter_titles`), compared after folding case, accents, spaces, zero-width joiners and
  section numbering — also in Cyrillic that the PDF's fonts extracted as Latin-1
  (lshort-russian); a title with two readings ("Índice") counts where it can: as contents
  in the front, as an index at the back; a deeper heading or entry than the top level
  (the highest two headings share) counts only where it is mostly listing lines;
- **listings**: elements dense in page references — dot leaders, "Title 135", "term, 12,
  45" — whose pages form the opening contents run (before the first numbered chapter, "1
  Description" when a "2" follows) or the closing index run;
- **page labels**: roman page numbers in the running headers and footers the parser
  removed, cited as evidence for front matter.

Everything before the end of the contents is front matter (title, copyright and
dedication pages, a foreword placed before the contents), and so are the pages before the
outline's first chapter (a title page with an abstract and a short contents), but no chapter
the outline places after the contents: front matter ends before the first of them, and back
matter never holds one either. A region of under half a page that is not a listing is too
small for a session of its own and stays with its neighbours (but for those pages before the
first chapter). A part titled like a bibliography that is prose under subsections of its
own and lists no references is a chapter about bibliographies: study text.
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
import weakref
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from quire.shared.ir import (
    TITLE_PAGES_AFTER_ENTRY,
    WORDS_PER_PAGE,
    Document,
    Element,
    OutlineEntry,
    layout_words,
)
from quire.shared.links import plain
from quire.shared.plan import ChunkKind
from quire.workers.boundaries.candidates import is_safe_gap, plain_text
from quire.workers.boundaries.matter_titles import (
    MatterKind,
    fold_title,
    title_matter,
    title_matters,
)

__all__ = ["MatterKind", "MatterRegion", "fold_title", "title_matter", "title_matters"]

# A listing line: dot leaders, "Title 135" / "Title xii", or "term, 12, 45" references.
_LEADER = re.compile(r"(?:\.\s?){4,}|(?:…\s?){2,}|(?:·\s?){4,}")
_TRAILING_NUMBER = re.compile(r"\S\s+(?:\d{1,4}|[ivxlcdm]{1,7})$", re.IGNORECASE)
# "term, 12, 45–47"; Persian extraction puts the number first: "۴۵ ،term"
_COMMA_REF = re.compile(r"[,،]\s*\d{1,4}(?:\s*[–\-]\s*\d{1,4})?\b|\b\d{1,4}\s*[,،]")
_DOTS = re.compile(r"\.\s?\.|…|·")
_DIGIT = re.compile(r"\d")
_CHAPTER_NUMBER = re.compile(
    r"^(?:chapter|chapitre|kapitel|capítulo|capitolo|глава)?\s*(\d{1,3})\.?\s+\S", re.IGNORECASE
)
# a list item or paragraph of links to elements of the book and nothing else: an HTML or
# EPUB contents list, whose entries carry links where a printed one carries page numbers,
# and a slide deck's contents, a section's title under its number and its subsections'
# titles on one line ("1 [Introduction]", "[A bit of history] [What is METAPOST?] ...")
_LINK = r"\[(?:\\.|[^\]\\])*\]\(#el-\d{6,}\)"
_LINK_ITEM = re.compile(rf"^(?:\d+(?:\.\d+)*\.?\s+)?{_LINK}(?:\s+{_LINK})*:?$")
_LINK_TARGET = re.compile(r"\]\(#(el-\d{6,})\)")
# a caption's label before its number: "Table 1.4.", "Abbildung 2", "表1.15", "图 3"
_CAPTION_LABEL = re.compile(r"^[^\W\d_]{1,10}\s?(?=\d)")
_NUMBER_DOT = re.compile(r"^(\d+(?:\.\d+)*)\.(?=\s|$)")
_LETTER_GROUP = re.compile(r"^(?:\w|\W)(?:\s+\w)?$", re.UNICODE)  # "A", "B C", "%"
_ROMAN = re.compile(r"^(?:[ivxlcdm]{1,7})$", re.IGNORECASE)
# what marks a bibliography entry: a label "[4]" / "[Knu84]", a year, a web address
_REFERENCE_ENTRY = re.compile(r"^\s*\[[^\]]{1,12}\]|\b(?:1[5-9]|20)\d\d\b|https?://|www\.")

LISTING_LINE_CHARS = 100  # a listing line is short: a title or term and its pages
LISTING_SHARE = 0.5  # of a page's text, for the page to count as a listing page
MIN_LISTINGS = 2  # listing elements a listing page needs
FRONT_SEARCH_SHARE = 0.2  # the contents must start within the first fifth of the document
MAX_PROSE_BEFORE_CONTENTS = 12  # body pages before a contents (a foreword, a preface)
FRONT_MAX_SHARE = 0.3  # and front matter may not be more than this share of it
LABEL_WORDS = 12  # above a chapter's heading on its page, more words than a label's are text
BACK_SEARCH_SHARE = 0.5  # an index title counts in the second half (of the pages) only
REFERENCE_SHARE = 0.1  # of a bibliography's paragraphs at least must look like entries
TINY_WORDS = WORDS_PER_PAGE // 2  # a region this small joins its neighbours
EDGE_STEPS = 4  # how far a region edge may move to reach a safe cut
MIN_INDEX_LETTERS = 8  # an index's lines begin with this many letters at least
SORTED_SHARE = 0.9  # of its consecutive lines, in alphabetical order


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MatterRegion(_Model):
    """A run of elements that is front or back matter (element ids inclusive)."""

    kind: MatterKind
    label: str  # "contents", "index", "bibliography and index", ...
    first_id: str
    last_id: str
    page_first: int
    page_last: int
    evidence: list[str]  # why: titles, listing lines, page labels


# ---------------------------------------------------------------------------------------
# Listings


def listing_line(el: Element) -> bool | None:
    """True for a contents or index line, False for body text, None when it says nothing
    either way (code, images, formulas, and index letter groups such as "B C"). A list
    (the parser sets a contents or index page as one) votes by its items."""
    if el.type in ("code", "image", "formula"):
        return None
    if el.type == "list" and el.items:
        votes = [
            True
            if _LINK_ITEM.match(item.split("\n", 1)[0].strip())
            else _listing_text(" ".join(plain(item).split()), heading=False)
            for item in el.items
        ]
        yes, no = votes.count(True), votes.count(False)
        return None if yes == no == 0 else yes >= no
    if el.type == "paragraph" and _LINK_ITEM.match(el.text.strip()):
        return True  # a contents entry set as a paragraph (or a heading) of its own
    return _listing_text(plain_text(el), heading=el.type == "heading")


def _title_key(text: str) -> str:
    """A title as a contents line and its heading or caption both give it: "1.4. Title"
    and "1.4 Title" alike."""
    return _NUMBER_DOT.sub(r"\1", " ".join(text.lstrip("#").split()).casefold(), count=1)


def _titles_ahead(flags: Sequence[bool | None], els: Sequence[Element]) -> list[bool | None]:
    """`flags`, with the lines that repeat a title further on marked as listing lines: a
    contents without page numbers (an HTML page's, made a DOCX: "1.1. 控制台基础" and 300
    more lines before the chapters) was 13 pages of study text. A title is a heading's, or
    a numbered caption's without its label (the list of tables' "1.4. “ls -l”输出的…" is
    "表 1.4. “ls -l”输出的…" under its table). The contents ends at the first heading
    after its first line: a chapter's own list of its sections (DocBook's) is none."""
    ahead: dict[str, list[int]] = {}  # title -> the positions it stands at, ascending
    for i, e in enumerate(els):
        if e.type == "heading":
            ahead.setdefault(_title_key(plain_text(e)), []).append(i)
        elif e.type == "paragraph" and len(e.text) <= LISTING_LINE_CHARS:
            text = plain_text(e)
            label = _CAPTION_LABEL.match(text)
            if label:
                ahead.setdefault(_title_key(text[label.end() :]), []).append(i)

    def repeats(text: str, i: int) -> bool:
        at = ahead.get(_title_key(text), []) if len(text) <= LISTING_LINE_CHARS else []
        return bisect.bisect_right(at, i) < len(at)

    out = list(flags)
    started = False
    for i, e in enumerate(els):
        if e.type == "heading" and started:
            break
        if flags[i] is True or e.type not in ("paragraph", "list"):
            continue
        if e.type == "list" and e.items:
            votes = [repeats(plain(item), i) for item in e.items]
            if votes.count(True) > len(votes) // 2:
                out[i] = started = True
        elif repeats(plain_text(e), i):
            out[i] = started = True
    return out


def listing_lines(el: Element) -> int:
    """How many listing lines an element holds (a list's items each count)."""
    return len(el.items) if el.type == "list" and el.items else 1


def _listing_text(text: str, *, heading: bool) -> bool | None:
    if not text:
        return None
    if _LETTER_GROUP.match(text):
        return None
    # cheap tests first: most elements are prose without leaders or page references
    if _DOTS.search(text):
        leaders = len(_LEADER.findall(text))
        if leaders and len(text) <= LISTING_LINE_CHARS * leaders * 1.5:
            return True
    if len(text) <= LISTING_LINE_CHARS and not heading and (_TRAILING_NUMBER.search(text)):
        return True  # "Title 135", "Preface iii"
    if not _DIGIT.search(text):
        return False
    refs = len(_COMMA_REF.findall(text))
    return bool(refs) and len(text) <= LISTING_LINE_CHARS * refs / 1.5


@dataclass
class _Page:
    """One page (PDF) or estimated page (words basis) of elements: [first, last]."""

    number: int
    first: int
    last: int
    listing_chars: int = 0
    body_chars: int = 0
    listings: int = 0

    @property
    def listing(self) -> bool:
        total = self.listing_chars + self.body_chars
        return (
            self.listings >= MIN_LISTINGS
            and total > 0
            and self.listing_chars / total >= LISTING_SHARE
        )


def _pages(doc: Document, flags: Sequence[bool | None]) -> list[_Page]:
    pages: list[_Page] = []
    words = 0
    for i, e in enumerate(doc.elements):
        number = e.page_first if doc.page_basis != "words" else 1 + words // WORDS_PER_PAGE
        words += layout_words(e)
        if not pages or pages[-1].number != number:
            pages.append(_Page(number, i, i))
        page = pages[-1]
        page.last = i
        size = len(plain(e.text))  # link markup is not text
        if flags[i] is True:
            page.listing_chars += size
            page.listings += listing_lines(e)
        elif flags[i] is False:
            page.body_chars += size
    return pages


def _run(pages: Sequence[_Page], start: int, step: int) -> int | None:
    """The index of the last page of the listing run that begins at pages[start] and goes
    in direction `step`, allowing one non-listing page inside (a blank verso, a title page
    of a list of figures); None when pages[start] is no listing page."""
    if not 0 <= start < len(pages) or not pages[start].listing:
        return None
    end = start
    k = start + step
    while 0 <= k < len(pages):
        if pages[k].listing:
            end = k
        elif not (0 <= k + step < len(pages) and pages[k + step].listing):
            break
        k += step
    return end


# ---------------------------------------------------------------------------------------
# Regions


@dataclass
class _Span:
    kind: MatterKind
    label: str
    first: int
    last: int
    evidence: list[str]
    top: bool = True  # starts at a top-level heading or outline entry


def _top_level(els: Sequence[Element]) -> int:
    """The headings' top level: the highest that two share, and not a title block (a lone
    title above it is none; nor are the titles a Texinfo HTML page opens with, "Bash
    Reference Manual" twice and the top node's "Bash Features", when every heading of
    their level comes before the first of a deeper one: its chapters are the level below)."""
    heads = [e.level or 1 for e in els if e.type == "heading"]
    levels = Counter(heads)
    shared = sorted(lv for lv, k in levels.items() if k >= 2)
    for lv in shared[:-1]:
        first_deeper = next(i for i, h in enumerate(heads) if h > lv)
        if lv in heads[first_deeper:]:
            return lv
    return shared[-1] if shared else min(levels, default=1)


def _body_start(els: Sequence[Element]) -> int | None:
    """The first numbered chapter ("1 Description", "Chapter 1") whose next number is a
    chapter too (element index): the body has begun there, and no contents comes after it
    (a font's glyph table, a texinfo manual's list of annexes with their pages, a citation
    style's examples with their page references). Chapters are the highest heading level
    holding such a pair (a title set as two headings above them is none); a title that
    opens with a number ("100 Exercises") has no next, and a contents line set as a
    heading ("1 Introduction 2") is no chapter."""
    numbered: dict[int, dict[int, int]] = {}  # level -> chapter number -> element index
    for i, e in enumerate(els):
        if e.type != "heading":
            continue
        text = plain_text(e)
        m = _CHAPTER_NUMBER.match(text)
        if m and not _TRAILING_NUMBER.search(text):
            numbered.setdefault(e.level or 1, {}).setdefault(int(m.group(1)), i)
    for _, chapters in sorted(numbered.items()):
        pairs = [i for n, i in chapters.items() if n + 1 in chapters]
        if pairs:
            return min(pairs)
    return None


def _search_pages(pages: Sequence[_Page]) -> int:
    """How many first pages the contents may start in."""
    return min(max(6, int(len(pages) * FRONT_SEARCH_SHARE)), len(pages))


def _contents_starts(
    els: Sequence[Element], pages: Sequence[_Page], flags: Sequence[bool | None]
) -> list[int]:
    """The listing pages (indexes into `pages`) a contents run may start on: in the first
    pages, and not after the page that a contents set as links before it already leads to
    (tikz-among-us' on its title page leads to page 3; the numbered code lines of its
    examples from page 5 on are the body's, not a contents), nor after more body pages than
    a foreword takes (fontforge's site opens with 27 pages of introduction; its Tutorial's
    own list of sections, on p. 28, made them all front matter)."""
    limit = _search_pages(pages)
    last_page = pages[limit - 1].number if limit else 0
    page_of = {e.id: e.page_first for e in els}
    linked: list[tuple[int, int]] = []  # (page, target page) of the links in listings
    for e, flag in zip(els, flags, strict=True):
        if e.page_first > last_page:
            break
        if flag and "](#el-" in e.text:
            targets = [page_of[t] for t in _LINK_TARGET.findall(e.text) if t in page_of]
            linked += [(e.page_first, target) for target in targets]
    out = []
    prose = 0  # pages of body text before page k
    for k in range(limit):
        if (
            pages[k].listing
            and prose <= MAX_PROSE_BEFORE_CONTENTS
            and not any(src < pages[k].number and dst < pages[k].number for src, dst in linked)
        ):
            out.append(k)
        prose += not pages[k].listing and pages[k].body_chars > 0
    return out


def _titled(doc: Document, flags: Sequence[bool | None]) -> list[_Span]:
    """Regions that start at a heading (or an outline entry's page) named like matter and
    run to the next heading of the same or a higher level."""
    els = doc.elements
    n = len(els)
    spans: list[_Span] = []
    headings = [i for i, e in enumerate(els) if e.type == "heading"]
    top = _top_level(els)
    for h_pos, i in enumerate(headings):
        e = els[i]
        level = e.level or 1
        end = next((j - 1 for j in headings[h_pos + 1 :] if (els[j].level or 1) <= level), n - 1)
        for found in title_matters(plain_text(e)):
            spans.append(
                _Span(*found, i, end, [f"heading '{plain_text(e)[:60]}'"], top=level <= top)
            )
    # Outline entries name matter the parser did not make a heading of (a contents page).
    if doc.page_basis != "words":
        page_of = [e.page_first for e in els]  # in reading order, so ascending
        entries = sorted((o for o in doc.outline if o.page >= 1), key=lambda o: (o.page, o.level))
        outline_top = min((o.level for o in entries), default=1)
        for k, o in enumerate(entries):
            readings = title_matters(o.title)
            start = bisect.bisect_left(page_of, o.page)
            if not readings or start >= n or page_of[start] != o.page:
                continue
            if any(s.first <= start <= s.last for s in spans):
                continue
            labels = {label for _, label in readings}
            # a heading named so on its page, or opening one just after it, has its span
            # already, from the heading on (from the page's top, ctex-faq's "References"
            # took questions 88 and 89; asymptote-zh's "索引" the end of section 5.15 on the
            # page its bookmark points at): the entry only says how high it stands
            named = [s for s in spans if page_of[s.first] == o.page and s.label in labels]
            named = (
                named
                or [
                    s
                    for s in spans
                    if o.page < page_of[s.first] <= o.page + TITLE_PAGES_AFTER_ENTRY
                    and page_of[s.first - 1] < page_of[s.first]  # it opens its page
                    and s.label in labels
                ][:1]
            )
            for s in named:
                s.top = s.top or o.level <= outline_top
            if named:
                continue
            nxt = next(
                (x.page for x in entries[k + 1 :] if x.level <= o.level and x.page > o.page),
                None,
            )
            end = bisect.bisect_left(page_of, nxt) - 1 if nxt else n - 1
            where = [f"outline entry '{o.title[:60]}'"]
            spans += [_Span(*r, start, end, where, top=o.level <= outline_top) for r in readings]
    return spans


def _listing_share(els: Sequence[Element], flags: Sequence[bool | None], a: int, b: int) -> float:
    listing = sum(len(plain(els[i].text)) for i in range(a, b + 1) if flags[i] is True)
    body = sum(len(plain(els[i].text)) for i in range(a, b + 1) if flags[i] is False)
    return listing / (listing + body) if listing + body else 0.0


def _roman_pages(doc: Document) -> set[int]:
    """Pages whose removed page number or running header is a roman numeral."""
    out = set()
    for r in doc.removed:
        tokens = r.text.split()
        if tokens and (_ROMAN.match(tokens[0]) or _ROMAN.match(tokens[-1])):
            out.add(r.page)
    return out


def _front(
    doc: Document,
    pages: Sequence[_Page],
    titled: Sequence[_Span],
    flags: Sequence[bool | None],
    starts: Sequence[int],
) -> _Span | None:
    """From the first page to the end of the contents (and the lists after it); `starts`:
    the pages a contents run may start on (`_contents_starts`)."""
    els = doc.elements
    end: int | None = None  # element index
    evidence: list[str] = []
    labels: list[str] = []
    body = _body_start(doc.elements)
    body_page = None if body is None else els[body].page_first
    start_page = next(
        (k for k in starts if body_page is None or pages[k].number <= body_page), None
    )
    if start_page is not None:
        last_page = _run(pages, start_page, +1)
        assert last_page is not None
        end = pages[last_page].last
        lines = sum(p.listings for p in pages[start_page : last_page + 1])
        evidence.append(
            f"{lines} contents lines on pages {pages[start_page].number}-{pages[last_page].number}"
        )
        labels.append("contents")
        # The body may begin on the contents' last page: then stop at its last listing line.
        page = pages[last_page]
        listed = [i for i in range(page.first, page.last + 1) if flags[i] is True]
        if any(doc.elements[i].type == "heading" for i in range(listed[-1] + 1, page.last + 1)):
            end = listed[-1]
        # A contents list may run on to the page where the body begins (an HTML book's, whose
        # pages are word counts): the lists of contents lines that follow are the contents',
        # and so is a caption above one (Sphinx's "API", "Reference" over its contents parts);
        # where pages are word counts, so are contents lines set as paragraphs of their own.
        runs_on = ("list", "paragraph") if doc.page_basis == "words" else ("list",)
        while True:
            nxt = end + 1
            if nxt < len(els) and els[nxt].type == "caption":
                nxt += 1
            if nxt >= len(els) or flags[nxt] is not True or els[nxt].type not in runs_on:
                break
            end = nxt
        if body is not None and end >= body:  # the run went on over the body's pages (a
            end = body - 1  # citation style's examples, with their page references)
            if end < 0:  # it is the body's own: no contents
                end, evidence, labels = None, [], []
    last_front_page = pages[_search_pages(pages) - 1].number
    for s in titled:
        if s.kind != "front_matter" or els[s.first].page_first > last_front_page:
            continue
        if body is not None and s.first > body:
            continue  # a chapter "7 Figures" after "1 …" and "2 …" is about figures
        # a deeper heading is front matter only as a listing: a class's member "contents"
        # in a reference manual (siscone's "4.5.3.1 contents") is study text
        if not s.top and _listing_share(els, flags, s.first, s.last) < LISTING_SHARE:
            continue
        if end is None or s.last > end:
            end = s.last
        evidence += s.evidence
        labels.append(s.label)
    if end is None:
        return None
    total_words = sum(e.word_count for e in els) or 1
    if sum(e.word_count for e in els[: end + 1]) > FRONT_MAX_SHARE * total_words:
        return None
    roman = sorted(p for p in _roman_pages(doc) if p <= els[end].page_last)
    if roman:
        evidence.append(f"roman page numbers on pages {roman[0]}-{roman[-1]}")
    return _Span("front_matter", join_labels("title pages", *labels), 0, end, evidence)


def matter_entries(entries: Sequence[OutlineEntry]) -> list[bool]:
    """For each of a run of outline entries (of one level): whether it names front or back
    matter ("Contents", "Index") or goes on with the one before that does ("Index bis",
    "Index with tag a1" after "Index")."""
    out: list[bool] = []
    key = ""  # the folded title of the last entry naming matter
    for o in entries:
        folded = fold_title(o.title)
        if title_matters(o.title):
            key = folded
        elif not (key and folded.startswith(key)):
            key = ""
        out.append(bool(key))
    return out


def _chapters_after_contents(
    doc: Document,
    pages: Sequence[_Page],
    titled: Sequence[_Span],
    flags: Sequence[bool | None],
    starts: Sequence[int],
) -> list[tuple[int, str, int]]:
    """(page, title, element index) of the chapters the outline places after the contents:
    its top-level entries listed after the contents entry (when the outline has none, those
    that begin after the contents' first page, or on it with their heading under its last
    listing line; when there is no contents, all of them) that do not name front or back
    matter themselves nor go on with the matter entry before them ("Index bis" after
    "Index")."""
    entries = [o for o in doc.outline if o.page >= 1]
    if doc.page_basis == "words" or not entries:
        return []
    top = min(o.level for o in entries)
    # (a top-level entry: a member "contents" deep in a reference manual is no contents)
    named = [
        o.level == top and ("front_matter", "contents") in title_matters(o.title) for o in entries
    ]
    contents: _Page | None = None  # the contents' first page, when only its lines show it
    if any(named):
        after = entries[named.index(True) + 1 :]
    else:
        listed = [pages[k].number for k in starts]
        listed += [
            doc.elements[t.first].page_first
            for t in titled
            if t.kind == "front_matter" and t.label == "contents"
        ]
        if listed:
            contents = next(p for p in pages if p.number == min(listed))
        after = [o for o in entries if contents is None or o.page >= contents.number]
    after = [o for o in after if o.level == top]
    page_of = [e.page_first for e in doc.elements]  # in reading order, so ascending
    out = []
    for o, matter in zip(after, matter_entries(after), strict=True):
        if matter:
            continue
        key = fold_title(o.title)
        a, b = bisect.bisect_left(page_of, o.page), bisect.bisect_right(page_of, o.page)
        here = [i for i in range(a, b) if doc.elements[i].type == "heading"]
        match = [i for i in here if fold_title(plain_text(doc.elements[i])) == key]
        found = match or here or list(range(a, b))  # the heading, else the page's start
        if contents is not None and o.page == contents.number:
            # a chapter opening on the contents' page, under its lines (tikz-cd, svg); its
            # own heading may stand over lines that only look listed (cms-notes-intro's
            # examples, each a link to its bibliography entry), so it need only follow
            # the contents' first line, with text under it (not the contents' own title)
            lines = [i for i in range(contents.first, contents.last + 1) if flags[i]]
            first_line, last_line = (lines[0], lines[-1]) if lines else (contents.last,) * 2
            opens = [i for i in match if i > first_line and i + 1 < len(flags) and not flags[i + 1]]
            found = opens or [i for i in match or here if i > last_line]
        if found:
            out.append((o.page, o.title, _with_label(doc.elements, page_of, flags, found[0])))
    return out


def _with_label(
    els: Sequence[Element], page_of: Sequence[int], flags: Sequence[bool | None], at: int
) -> int:
    """Where the chapter whose heading is element `at` begins: at the top of its page when
    what stands above the heading there is a label, not text nor a heading nor the end of
    a contents ("१ प्रस्तावना" over marathi's first heading, which the front matter kept)."""
    first = bisect.bisect_left(page_of, page_of[at])
    above = range(first, at)
    if (
        any(els[i].type == "heading" or flags[i] for i in above)
        or sum(els[i].word_count for i in above) > LABEL_WORDS
    ):
        return at
    return first


def chapters_after_contents(doc: Document) -> list[tuple[int, str]]:
    """(page, title) of the chapters the outline places after the contents, which front
    and back matter never hold (found with the matter, and kept with it)."""
    return list(_found(doc)[1])


def _before_first_chapter(doc: Document, chapters: Sequence[tuple[int, str, int]]) -> _Span | None:
    """What precedes the first chapter the outline gives, when that chapter begins on a
    later page than the document: the title page, an abstract, a contents the listing
    test missed (it shares its page with the title). The book's body begins where its
    outline does; kept even when small, as the pages before its page are no study text."""
    if not chapters:
        return None
    page, title, at = min(chapters, key=lambda c: c[2])
    els = doc.elements
    # up to the chapter's page: what stands above its heading there ("Chapter 1") is its,
    # unless it is text, the end of a part before it (biber's change log ran on to the
    # Introduction's page: its last paragraphs were the first study session's)
    first = bisect.bisect_left([e.page_first for e in els], els[at].page_first)
    if first == 0:
        return None
    if sum(e.word_count for e in els[first:at]) > LABEL_WORDS:
        first = at
    total = sum(e.word_count for e in els) or 1
    if sum(e.word_count for e in els[:first]) > FRONT_MAX_SHARE * total:
        return None
    evidence = [f"the outline's first chapter, '{title[:60]}', begins on page {page}"]
    return _Span("front_matter", "title pages", 0, first - 1, evidence)


def _spare_chapters(
    spans: Sequence[_Span], chapters: Collection[int], titled: Sequence[_Span] = ()
) -> list[_Span]:
    """The spans, each ending before the first chapter (element index) that begins inside
    it: front matter ends no later than the first chapter after the contents, and a run of
    listing lines at the back (a change log's dates and versions) does not swallow one.
    Back matter titled by a heading after the last such chapter (`titled`: "Change
    History", then "Index") keeps its own span from that heading."""
    out = []
    for s in spans:
        inside = [c for c in chapters if s.first <= c <= s.last]
        if not inside:
            out.append(s)
            continue
        if min(inside) > s.first:  # else the span starts with a chapter
            out.append(_Span(s.kind, s.label, s.first, min(inside) - 1, s.evidence))
        later = [
            t.first
            for t in titled
            if s.kind == t.kind == "back_matter" and max(inside) < t.first <= s.last
        ]
        if later:
            out.append(_Span(s.kind, s.label, min(later), s.last, s.evidence))
    return out


def _about_references(els: Sequence[Element], s: _Span) -> bool:
    """A part titled "Bibliography" that is prose under subsections of its own and lists
    (almost) no references: a chapter *about* bibliographies ("8 Bibliographie; 8.1 avec
    BibTeX; 8.2 avec Biblatex", a FAQ's "I 参考文献" with its questions), which is study
    text. A bibliography lists entries: a label "[4]", a year or an address on most."""
    if s.label != "bibliography":
        return False
    part = els[s.first : s.last + 1]
    if sum(1 for e in part if e.type == "heading") < 2:  # its title and a subsection
        return False
    return _entry_share(part) < REFERENCE_SHARE


def _lists_references(els: Sequence[Element], s: _Span) -> bool:
    """A bibliography most of whose paragraphs are entries."""
    return s.label == "bibliography" and _entry_share(els[s.first : s.last + 1]) >= 0.5


def running_words(part: Sequence[Element]) -> int:
    """The words of a part's running text: no headings, contents or index lines, nor
    reference entries (a part title's references and index are no text of its own)."""
    return sum(
        e.word_count
        for e in part
        if e.type != "heading"
        and listing_line(e) is not True
        and not (e.type != "code" and _REFERENCE_ENTRY.search(plain_text(e)))
    )


def _entry_share(part: Sequence[Element]) -> float:
    """The share of a part's text elements that look like reference entries."""
    text = [plain_text(e) for e in part if e.type not in ("heading", "image", "code")]
    return sum(1 for t in text if _REFERENCE_ENTRY.search(t)) / max(len(text), 1)


def _in_second_half(els: Sequence[Element], i: int) -> bool:
    """Whether element `i` stands in the second half of the document's pages. (Not of its
    elements: an index is many small elements and a listing few large ones, so achemso's
    index on page 58 of 68 began 29 % of the way through its elements.)"""
    first, last = els[0].page_first, els[-1].page_last
    return els[i].page_first - first >= BACK_SEARCH_SHARE * (last - first + 1)


def _back(doc: Document, titled: Sequence[_Span], flags: Sequence[bool | None]) -> list[_Span]:
    """Titled back matter in the second half: top-level parts, or deeper ones that are
    mostly listing lines, or that close the document listing references (maximabook's
    "Bibliography" under its last part; a section *about* bibliographies, a chapter's own
    references followed by more chapters, or a help page named "Rdindex", is study text)."""
    els = doc.elements
    spans = []
    for s in titled:
        if s.kind != "back_matter" or not _in_second_half(els, s.first):
            continue
        listing = _listing_share(els, flags, s.first, s.last) >= LISTING_SHARE
        closing = (  # under its heading (an outline entry's span is a guess from its page)
            s.last == len(els) - 1
            and s.evidence[0].startswith("heading")
            and _lists_references(els, s)
        )
        if listing or closing or (s.top and not _about_references(els, s)):
            spans.append(s)
    return spans


def _closing_run(
    doc: Document, pages: Sequence[_Page], titled: Sequence[_Span], flags: Sequence[bool | None]
) -> _Span | None:
    """The closing listing run: an index, whatever its title."""
    els = doc.elements
    first_page = _run(pages, len(pages) - 1, -1)
    if first_page is None:
        return None
    start = pages[first_page].first
    # the index's title usually sits at the top of its first page
    while (
        start > 0
        and els[start - 1].type == "heading"
        and start - 1 >= pages[max(first_page - 1, 0)].first
    ):
        start -= 1
    # but when its first page opens with the last chapter's text, the back matter
    # begins at its title there (ctex-faq's "References" under questions 88 and 89)
    titles = [
        t.first
        for t in titled
        if t.kind == "back_matter" and start <= t.first <= pages[first_page].last
    ]
    if titles and any(flags[i] is False for i in range(start, min(titles))):
        start = min(titles)
    lines = sum(p.listings for p in pages[first_page:])
    where = f"pages {pages[first_page].number}-{pages[-1].number}"
    return _Span(
        "back_matter",
        "index",
        start,
        len(els) - 1,
        [f"{lines} index lines with page numbers on {where}"],
    )


def _an_index(els: Sequence[Element], flags: Sequence[bool | None], first: int, last: int) -> bool:
    """Whether elements first..last are an index: mostly listing lines, and those run in
    alphabetical order of their first letters through much of the alphabet (a change
    log's "v0.4, 2004, 12" and a contents' titles do not)."""
    if _listing_share(els, flags, first, last) < LISTING_SHARE:
        return False
    initials = []
    for i in range(first, last + 1):
        e = els[i]
        if e.type == "heading" or flags[i] is not True:
            continue
        for line in e.items if e.type == "list" and e.items else [e.text]:
            letter = next((c for c in plain(line).casefold() if c.isalpha()), "")
            base = unicodedata.normalize("NFKD", letter)[:1]
            if "a" <= base <= "z":
                initials.append(base)
    pairs = list(itertools.pairwise(initials))
    ordered = sum(a <= b for a, b in pairs)
    return len(set(initials)) >= MIN_INDEX_LETTERS and ordered >= SORTED_SHARE * len(pairs)


def join_labels(*labels: str) -> str:
    """Region labels joined, each part once ("title pages" and "title pages and contents"
    make "title pages and contents", not "title pages and title pages and contents")."""
    return " and ".join(dict.fromkeys(p for label in labels for p in label.split(" and ")))


def _merge(spans: Sequence[_Span]) -> list[_Span]:
    """Overlapping or adjacent spans of the same kind become one."""
    out: list[_Span] = []
    for s in sorted(spans, key=lambda s: (s.first, -s.last)):
        if out and out[-1].kind == s.kind and s.first <= out[-1].last + 1:
            last = out[-1]
            last.last = max(last.last, s.last)
            last.label = join_labels(last.label, s.label)
            last.evidence += [x for x in s.evidence if x not in last.evidence]
        elif out and s.first <= out[-1].last:
            s = _Span(s.kind, s.label, out[-1].last + 1, s.last, s.evidence)
            if s.first <= s.last:
                out.append(s)
        else:
            out.append(_Span(s.kind, s.label, s.first, s.last, list(s.evidence)))
    return out


def _snap(doc: Document, s: _Span) -> _Span | None:
    """Move the edges to safe cuts (a heading stays with what follows it); None when
    there is none nearby."""
    els = doc.elements
    first, last = s.first, s.last
    steps = 0
    while first > 0 and not is_safe_gap(els[first - 1], els[first]):
        first -= 1
        steps += 1
        if steps > EDGE_STEPS:
            return None
    ahead = last
    while ahead < len(els) - 1 and not is_safe_gap(els[ahead], els[ahead + 1]):
        ahead += 1
        if ahead - last > EDGE_STEPS:
            return None
    # the end gives way back rather than take in a heading after it (the contents' last
    # line set as a heading, "4 Thanks 37", would take "1 Introduction" and its text)
    if any(e.type == "heading" for e in els[last + 1 : ahead + 1]):
        back = last
        while back > first and not is_safe_gap(els[back - 1], els[back]):
            back -= 1
        if back > first and last - back < EDGE_STEPS:
            ahead = back - 1
    return _Span(s.kind, s.label, first, ahead, s.evidence)


def _tiny(doc: Document, s: _Span, flags: Sequence[bool | None]) -> bool:
    els = doc.elements[s.first : s.last + 1]
    words = sum(e.word_count for e in els)
    # listing lines, not elements: a contents may be one list of many entries
    marks = flags[s.first : s.last + 1]
    listings = sum(listing_lines(e) for e, f in zip(els, marks, strict=True) if f)
    return words < TINY_WORDS and listings < 2 * MIN_LISTINGS


# find_matter's answers for the documents this process holds: planning, the book index
# and the key terms ask it of the same IR several times, and it takes up to a second a
# book. By object; an answer stands while the document holds the same element list.
_Found = tuple[list[MatterRegion], list[tuple[int, str]]]  # regions, chapters after contents
_FOUND: dict[int, tuple[weakref.ref[Document], int, int, _Found]] = {}


def find_matter(doc: Document) -> list[MatterRegion]:
    """The document's front and back matter regions, in reading order."""
    return [r.model_copy() for r in _found(doc)[0]]


def _found(doc: Document) -> _Found:
    key = id(doc)
    hit = _FOUND.get(key)
    if hit is None or hit[0]() is not doc or hit[1:3] != (id(doc.elements), len(doc.elements)):
        found = _find_matter(doc)
        if hit is None:
            weakref.finalize(doc, _FOUND.pop, key, None)
        hit = _FOUND[key] = (weakref.ref(doc), id(doc.elements), len(doc.elements), found)
    return hit[3]


def _find_matter(doc: Document) -> _Found:
    els = doc.elements
    if not els:
        return [], []
    flags = _titles_ahead([listing_line(e) for e in els], els)
    pages = _pages(doc, flags)
    titled = _titled(doc, flags)
    starts = _contents_starts(els, pages, flags)
    spans: list[_Span] = []
    front = _front(doc, pages, titled, flags, starts)
    if front is not None:
        spans.append(front)
    spans += _back(doc, titled, flags)
    found = _chapters_after_contents(doc, pages, titled, flags, starts)
    run = _closing_run(doc, pages, titled, flags)
    if run is not None:
        spans.append(run)
        # an outline entry opening in it whose part is an index is the index under a title
        # the table does not know (LilyPond's Dutch "LilyPond register"), no chapter to spare
        # (the contributors and change list after ctex-faq's index are)
        ends = [*(at for _, _, at in found), len(els)][1:]  # where each one's part ends
        found = [
            c
            for c, end in zip(found, ends, strict=True)
            if not (run.first <= c[2] <= run.last and _an_index(els, flags, c[2], end - 1))
        ]
    chapters = [at for _, _, at in found]
    before = _before_first_chapter(doc, found)
    if before is not None:
        spans.append(before)
    regions = []
    heads = [t for t in titled if t.evidence[0].startswith("heading")]
    for s in _spare_chapters(_merge(spans), chapters, heads):
        if (
            front is not None
            and s.kind == "front_matter"
            and s is not front
            and (s.first > front.last + 1)
        ):
            continue  # a "Contents" later in the book is a section about contents
        snapped = _snap(doc, s)
        given = before is not None and s.first == 0 and s.last == before.last
        if (
            snapped is None
            or (_tiny(doc, snapped, flags) and not given)
            or snapped.last - snapped.first + 1 == len(els)
        ):
            continue
        part = els[snapped.first : snapped.last + 1]
        regions.append(
            MatterRegion(
                kind=snapped.kind,
                label=snapped.label,
                first_id=part[0].id,
                last_id=part[-1].id,
                page_first=min(e.page_first for e in part),
                page_last=max(e.page_last for e in part),
                evidence=snapped.evidence,
            )
        )
    return regions, [(page, title) for page, title, _ in found]


def element_kinds(doc: Document, regions: Sequence[MatterRegion]) -> list[ChunkKind]:
    """The kind of every element: "study" unless a region holds it."""
    pos = {e.id: i for i, e in enumerate(doc.elements)}
    kinds: list[ChunkKind] = ["study"] * len(doc.elements)
    for r in regions:
        for i in range(pos[r.first_id], pos[r.last_id] + 1):
            kinds[i] = r.kind
    return kinds
