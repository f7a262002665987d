"""Safe cut candidates: the places between two elements where a chunk may end.

A cut never falls inside an element. On top of that some gaps are unsafe because the two
sides belong together:

- right after a heading (a heading stays with what it introduces);
- between an image or table and its caption (caption just before or just after it);
- between an introductory paragraph ending in ':' and the list/table/code/formula it
  introduces;
- before a footnote (it travels with the element holding its reference, which it follows
  in the IR even when it is printed on the next page).

Everything else is a candidate; the change-point scores decide which ones are good.

A title-like paragraph that starts with a bare number counts as numbered only if the number
is at most two past the highest top-level number seen before it: short footnotes and
numbered list lines ("66 This defaults to ...") look like titles too, but they run far
ahead of the chapters.
"""

from __future__ import annotations

import re
from functools import lru_cache

from quire.shared.ir import WORDS_PER_PAGE, Document, Element, layout_words
from quire.shared.links import plain
from quire.shared.plan import Candidate
from quire.shared.text import HAN, HANGUL, KANA

SNIPPET_CHARS = 120

_CAPTIONED = frozenset({"image", "table"})
_INTRODUCED = frozenset({"list", "table", "code", "formula"})

# "Chapter 3", "Part II", "Appendix B", "Section 4.2", "Lesson 7" ...
_NAMED_NUMBER = re.compile(
    r"^(chapter|part|appendix|section|lesson|unit|book|lecture|module)\s+"
    r"([0-9]{1,3}(?:\.[0-9]{1,3})*|[IVXLC]{1,6}|[A-Z])\b[.:]?",
    re.IGNORECASE,
)
# "第三章 文档元素", "第2节", "附录A": Chinese chapters, parts, sections and appendices
_CJK_NUMBER = re.compile(r"^(第[0-9一二三四五六七八九十百零〇]{1,5}[章部篇卷节]|附录[A-Z])")
# "2.4 Title", "3. Title", "A.1 Title", "12 Title" (not "2023 was ...": at most 3 digits)
_DOTTED_NUMBER = re.compile(r"^((?:[0-9]{1,3}|[A-Z])(?:\.[0-9]{1,3})*)\.?\s+(?=\S)")
_TITLE_END = re.compile(r"[.:;,!?]$")
_LETTER = re.compile(r"[^\W\d_]")
# what a paragraph's title starts with after its number: a word of two letters, or a Han,
# kana or Hangul character ("2 |x1y2 −x2y1|" and "1 −r" are a formula's lines, "33 \box0"
# and "12 a) \ifinside" numbered lines of code)
_TITLE_WORD = re.compile(rf"[^\W\d_]{{2,}}|[{HAN}{KANA}{HANGUL}]")
_WS = re.compile(r"\s+")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")


def safe_candidates(doc: Document, scores: dict[str, float] | None = None) -> list[Candidate]:
    """Every safe cut point of `doc`, in reading order (`scores` keyed by after_id)."""
    els = doc.elements
    if len(els) < 2:
        return []
    words_basis = doc.page_basis == "words"
    first_page = els[0].page_first
    out: list[Candidate] = []
    cum_words = 0
    laid_out = 0  # words and the space pictures take (`layout_words`)
    last_page = first_page  # a footnote may be printed before the text it follows ends
    highest = 0  # the highest top-level number seen so far
    for i in range(len(els) - 1):
        left, right = els[i], els[i + 1]
        cum_words += left.word_count
        laid_out += layout_words(left)
        last_page = max(last_page, left.page_last)
        if not is_safe_gap(left, right):
            continue
        cum_pages = laid_out / WORDS_PER_PAGE if words_basis else float(last_page - first_page + 1)
        numbering = parse_numbering(right)
        if numbering and numbering.isdigit():
            number = int(numbering)
            if right.type == "heading" or number <= highest + 2:
                highest = max(highest, number)
            else:  # "66 This defaults to ...": a footnote or list line, not chapter 66
                numbering = None
        out.append(
            Candidate(
                after_id=left.id,
                before_id=right.id,
                ends_type=left.type,
                begins_type=right.type,
                left_snippet=snippet(left, tail=True),
                right_snippet=snippet(right),
                cum_pages=cum_pages,
                cum_words=cum_words,
                heading_level=right.level if right.type == "heading" else None,
                numbering=numbering,
                score=(scores or {}).get(left.id, 0.0),
            )
        )
    return out


def is_safe_gap(left: Element, right: Element) -> bool:
    """May a chunk end after `left` when `right` follows it?"""
    if left.type == "heading":
        return _empty_section(left, right)
    if right.type == "footnote":
        return False  # a footnote follows the element holding its reference
    if left.type == "caption" and right.type in _CAPTIONED:
        return False
    if right.type == "caption" and left.type in _CAPTIONED:
        return False
    return not (left.type == "paragraph" and right.type in _INTRODUCED and introduces(left))


def _empty_section(head: Element, right: Element) -> bool:
    """A heading is no chunk's last element, unless its section is empty and done: the next
    heading, as high or higher, opens a later page (liboctave's stub chapters, "13 Error
    Handling" to "15 Bugs", a page each before the index: the back matter could only begin
    above them). A title set in two lines, or a chapter's label above its title, shares its
    page."""
    return (
        right.type == "heading"
        and (right.level or 1) <= (head.level or 1)
        and right.page_first > head.page_last
    )


def introduces(el: Element) -> bool:
    """A paragraph ending in ':' (ignoring closing emphasis) announces what follows."""
    return el.text.rstrip().rstrip("*_`)] ").endswith(":")


def plain_text(el: Element) -> str:
    """The element's text on one line, without the Markdown heading marks (links as their
    text, footnote references left out: see shared.links.plain)."""
    return _plain_text(el.type, el.text)


@lru_cache(maxsize=1 << 14)  # scoring, planning and key phrases ask for the same elements
def _plain_text(kind: str, text: str) -> str:
    text = plain(text)
    if kind == "heading":
        text = text.lstrip("#").strip()
    elif kind == "image":  # just the alt text, not the Markdown or the file name
        text = _IMAGE.sub(lambda m: m.group(1), text)
    return _WS.sub(" ", text).strip()


def snippet(el: Element, tail: bool = False, limit: int = SNIPPET_CHARS) -> str:
    text = plain_text(el) or f"[{el.type}]"  # an image: "cut before '[image]'", not "''"
    if len(text) <= limit:
        return text
    return "…" + text[-(limit - 1) :].lstrip() if tail else text[: limit - 1].rstrip() + "…"


def parse_numbering(el: Element) -> str | None:
    """The section number a heading (or a title-like paragraph) starts with, if any."""
    if el.type not in ("heading", "paragraph") or el.origin == "figure":
        return None  # (the labels of a drawing: "0 1 2 3" is no part 0)
    text = plain_text(el)
    if el.type == "paragraph" and not looks_like_title(el.text):
        return None
    m = _NAMED_NUMBER.match(text)
    if m:
        return f"{m.group(1).capitalize()} {m.group(2)}"
    m = _CJK_NUMBER.match(text)
    if m:
        return m.group(1)
    m = _DOTTED_NUMBER.match(text)
    if m:
        number = m.group(1)
        # A lone capital letter ("A Quick Tour") is a word, not an appendix number; a
        # number followed by no word ("0 0 1", a matrix row) titles nothing.
        rest = text[m.end() :]
        if el.type == "heading":  # any letter: "5.3 R" (a language) is a section
            titled = _LETTER.search(rest) is not None
        else:
            titled = _TITLE_WORD.match(rest) is not None
        if re.fullmatch(r"[A-Z]", number) or not titled:
            return None
        return number
    return None


def looks_like_title(text: str) -> bool:
    """Short, one line, not ending like a sentence: a heading that lost its style."""
    text = text.strip()
    if not text or "\n" in text or _TITLE_END.search(text):
        return False
    return len(text.split()) <= 14


def numbering_depth(numbering: str | None) -> int | None:
    """1 for "Chapter 3", "Part II", "3", "第三章"; 2 for "2.4", "A.1", "第2节"; 3 for
    "1.2.3" ..."""
    if not numbering:
        return None
    if numbering.startswith(("第", "附录")):
        return 2 if numbering.endswith("节") else 1
    word, _, number = numbering.partition(" ")
    if number:  # "Chapter 3" is top level whatever follows; "Section 4.2" is not
        return number.count(".") + 1 if word.lower() == "section" else 1
    return numbering.count(".") + 1
