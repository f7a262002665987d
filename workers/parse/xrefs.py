"""Textual cross-references ("see Section 3.2", "Figure 4.3", "page 45") in documents that
carry no link annotations, resolved to the element they name.

Forms, in the corpus's languages (numbers in ASCII, Persian or Arabic-Indic digits, with
"." or "٫" between parts):
- sections: Section, Sect., §, Chapter, Chap., Appendix, Part; раздел, глава, приложение
  (any ending); 第 3 章, 第 3.2 节, 第三章; فصل, بخش  -> the heading numbered so;
- figures and tables: Figure, Fig., Table, Tab.; рисунок, рис., таблица, табл.; 图, 表;
  شکل, جدول  -> the caption (or paragraph) that starts with that name and number;
- pages: page, p., pp., стр., с., страница; 第 45 页; صفحه  -> the first element of the
  page whose printed label (or, without labels, number) it is (PDF only).
A reference is written as a link when its target exists and is not the element itself;
the others are counted, with why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from quire.shared.ir import Element, ParserNote
from quire.shared.links import heading_title
from quire.workers.parse.link_apply import LINKABLE, Link, LinkStats, apply_links

_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩٫", "01234567890123456789.")
# 1.2, an appendix's A.1 (before "A" alone, or "Table A.1" links as "[Table A](…).1"), IV, A
_NUMBER = r"([0-9۰-۹٠-٩]+(?:[.٫][0-9۰-۹٠-٩]+)*|[A-Z](?:\.[0-9]+)+|[IVXLC]{1,6}\b|[A-Z]\b)"
_HAN_NUMBER = "〇零一二三四五六七八九十百"
_SECTION_WORDS = (
    r"(?i:section|sect\.|chapter|chap\.|appendix|part)|§"
    r"|(?i:раздел|глав|приложени)[а-яё]*"
    r"|فصل|بخش"
)
_FIGURE_WORDS = r"(?i:figure|fig\.)|(?i:рисун[а-яё]*|рис\.)|图|شکل|شكل"
_TABLE_WORDS = r"(?i:table|tab\.)|(?i:таблиц[а-яё]*|табл\.)|表|جدول"
_PAGE_WORDS = r"(?i:pages?|pp?\.)|(?i:страниц[а-яё]*|стр\.|с\.)|صفحه"
_SPACE = r"[ \u00a0\u202f]*"
_REFERENCE = re.compile(
    rf"(?P<sec>(?<!\w)(?:{_SECTION_WORDS}){_SPACE}{_NUMBER})"
    rf"|(?P<zh>第{_SPACE}([0-9]+(?:\.[0-9]+)*|[{_HAN_NUMBER}]+){_SPACE}[章节])"
    rf"|(?P<fig>(?<!\w)(?:{_FIGURE_WORDS}){_SPACE}{_NUMBER})"
    rf"|(?P<tab>(?<!\w)(?:{_TABLE_WORDS}){_SPACE}{_NUMBER})"
    rf"|(?P<page>(?<!\w)(?:{_PAGE_WORDS}){_SPACE}([0-9۰-۹٠-٩]+)\b|第{_SPACE}([0-9]+){_SPACE}页)"
)
_HEADING_NUMBER = re.compile(
    rf"^(?:(?:{_SECTION_WORDS}){_SPACE})?{_NUMBER}[.:]?(?:\s|$)"
    rf"|^第{_SPACE}([0-9]+(?:\.[0-9]+)*|[{_HAN_NUMBER}]+){_SPACE}[章节部篇]"
)
_CAPTION = re.compile(
    rf"^(?:(?P<fig>{_FIGURE_WORDS})|(?P<tab>{_TABLE_WORDS})){_SPACE}{_NUMBER}(?P<end>[.:])?"
)
_CAPTION_WORDS = 30  # a paragraph naming a figure at its start is its caption if this short


def _key(number: str) -> str:
    """A number as references and headings are compared: ASCII digits, no final dot."""
    number = number.translate(_DIGITS).rstrip(".")
    if number and all(c in _HAN_NUMBER for c in number):
        return str(_han_value(number))
    return number


def _han_value(text: str) -> int:
    """一 .. 九十九 as a number (第三章, 第十二章)."""
    digits = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0}
    if "十" not in text:
        return int("".join(str(digits.get(c, 0)) for c in text) or 0)
    tens, _, ones = text.partition("十")
    return digits.get(tens, 1) * 10 + (digits.get(ones, 0) if ones else 0)


@dataclass
class Targets:
    sections: dict[str, str]  # number -> heading id
    captions: dict[tuple[str, str], str]  # ("fig" | "tab", number) -> element id
    pages: dict[str, str]  # printed page label (or number) -> first element id on it


def targets(elements: list[Element], labels: dict[int, str] | None) -> Targets:
    """What the document's references can lead to. `labels`: physical page -> printed
    label (PDF); None for a document without pages (DOCX)."""
    sections: dict[str, str] = {}
    captions: dict[tuple[str, str], str] = {}
    pages: dict[str, str] = {}
    for e in elements:
        if e.type == "heading":
            m = _HEADING_NUMBER.match(heading_title(e.text))
            if m:
                sections.setdefault(_key(m.group(1) or m.group(2)), e.id)
        elif e.type == "caption" or (e.type == "paragraph" and e.word_count <= _CAPTION_WORDS):
            m = _CAPTION.match(e.text)
            if m and (e.type == "caption" or m.group("end")):
                key = ("fig" if m.group("fig") else "tab", _key(m.group(3)))
                if e.type == "caption" or key not in captions:
                    captions[key] = e.id
        if labels is not None and e.type != "footnote":
            label = labels.get(e.page_first) or str(e.page_first)
            pages.setdefault(_key(label.lower()), e.id)
    return Targets(sections, captions, pages)


def _target(m: re.Match[str], found: Targets) -> str | None:
    if m.group("sec"):
        return found.sections.get(_key(m.group(2)))
    if m.group("zh"):
        return found.sections.get(_key(m.group(4)))
    if m.group("fig"):
        return found.captions.get(("fig", _key(m.group(6))))
    if m.group("tab"):
        return found.captions.get(("tab", _key(m.group(8))))
    return found.pages.get(_key(m.group(10) or m.group(11) or ""))


def link_references(
    elements: list[Element], labels: dict[int, str] | None
) -> tuple[list[Element], list[ParserNote]]:
    """`elements` with their textual cross-references written as links, and a note on
    how many were found and written."""
    found = targets(elements, labels)
    stats = LinkStats()
    links: list[Link] = []
    for k, e in enumerate(elements):
        if e.type not in LINKABLE:
            continue
        for m in _REFERENCE.finditer(e.text):
            target = _target(m, found)
            if target == e.id:
                continue  # a caption or title naming itself: no reference
            if target is None:
                stats.miss("target not found")
            else:
                links.append(Link(k, m.group(0), target, (m.start(),)))
    if not stats.found and not links:
        return elements, []
    out = apply_links(elements, links, stats)
    return out, [ParserNote(kind="info", message=stats.describe("textual cross-references"))]


def link_unlinked(elements: list[Element], notes: list[ParserNote]) -> list[Element]:
    """A DOCX's or HTML book's elements with their textual cross-references ("see Section
    3.2") written as links, unless its own internal links were (`notes` say so, from
    `settle`); the note on what was found joins `notes`."""
    if any("internal links" in n.message for n in notes):
        return elements
    elements, xref_notes = link_references(elements, None)
    notes += xref_notes
    return elements
