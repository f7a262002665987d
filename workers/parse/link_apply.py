"""Write resolved cross-references into element text: `[text](#el-000123)`.

Parsers find links (a PDF's link annotations, a DOCX's internal hyperlinks, "Section 3.2"
in the text) as (source element, the text the link covers, target element). This module
finds that text in the element, in reading order and ignoring whitespace (the text under a
PDF link comes line by line; the paragraph's is joined), and wraps it. Only prose carries
links: paragraphs, captions, list items, table cells and footnotes; headings stay plain
(titles are made of them), code, formulas and images are left as they are. A link whose text
is not found, or that would cut into another link or a footnote reference, is left out
and counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from quire.shared import markdown
from quire.shared.ir import Element
from quire.shared.links import ir_link
from quire.shared.text import count_words, normalize, text_hash
from quire.workers.parse.pdf_hyphens import JOIN
from quire.workers.parse.tex_symbols import AS_READ

LINKABLE = frozenset({"paragraph", "caption", "list", "footnote", "table"})
_PROTECTED = re.compile(r"\[\^[^\]\s]+\](?::)?|\[[^\]]*\]\(#el-\d+\)")


@dataclass(frozen=True)
class Link:
    source: int  # index of the element holding the link
    text: str  # the text it covers (whitespace may differ from the element's)
    target: str  # element id
    order: tuple[float, ...] = ()  # reading order within the source (page, y, x ...)


@dataclass
class LinkStats:
    """What became of the links a parser found."""

    found: int = 0
    written: int = 0
    reasons: dict[str, int] = field(default_factory=dict)  # why the others were not

    def miss(self, why: str, n: int = 1) -> None:
        self.found += n
        self.reasons[why] = self.reasons.get(why, 0) + n

    def hit(self, n: int = 1) -> None:
        self.found += n
        self.written += n

    def describe(self, what: str) -> str:
        why = "; ".join(f"{n} {r}" for r, n in sorted(self.reasons.items(), key=lambda x: -x[1]))
        rest = f" ({why})" if why else ""
        return f"{what}: {self.written} of {self.found} written as links to their targets{rest}"


def apply_links(elements: list[Element], links: Iterable[Link], stats: LinkStats) -> list[Element]:
    """`elements` with `links` wrapped into their text; `stats` counts what happened."""
    by_source: dict[int, list[Link]] = {}
    for link in links:
        by_source.setdefault(link.source, []).append(link)
    out = list(elements)
    for k, group in by_source.items():
        el = elements[k]
        group.sort(key=lambda lk: lk.order)
        if el.type not in LINKABLE:
            stats.miss(f"in a {el.type}", len(group))
            continue
        if el.type == "list" and el.items is not None:
            items = _link_items(el.items, group, stats)
            text = markdown.bullet_list(items, bool(el.ordered), el.start or 1)
            out[k] = _with_text(el, text, items=items)
        elif el.type == "table" and el.rows:
            cells = iter(_link_items([c for row in el.rows for c in row], group, stats))
            rows = [[next(cells) for _ in row] for row in el.rows]
            out[k] = _with_text(el, markdown.table(rows), rows=rows)
        else:
            out[k] = _with_text(el, _link_text(el.text, group, stats, dedupe=False))
    return out


def _with_text(el: Element, text: str, **update: object) -> Element:
    text = normalize(text)
    if text == el.text:
        return el
    return el.model_copy(
        update={"text": text, "word_count": count_words(text), "content_hash": text_hash(text)}
        | update
    )


def _link_items(items: list[str], group: list[Link], stats: LinkStats) -> list[str]:
    """Links in list items, searched item by item from where the last one was found; one
    link per target and item (a contents entry links its title, not its page number too)."""
    out = list(items)
    compact = [_compact(t) for t in items]
    folded = [t.translate(AS_READ) for t in compact]  # see `_link_text`
    pending: list[list[Link]] = [[] for _ in items]
    at = 0

    def room(j: int, needle: str, texts: list[str]) -> bool:  # an occurrence not yet taken
        return texts[j].count(needle) > sum(_compact(lk.text) == needle for lk in pending[j])

    for link in group:
        needle = _compact(link.text)
        order = [*range(at, len(items)), *range(at)]
        hit = next((j for j in order if room(j, needle, compact)), None)
        if hit is None:
            hit = next((j for j in order if room(j, needle.translate(AS_READ), folded)), None)
        if hit is None or not needle:
            stats.miss("text not found")
            continue
        pending[hit].append(link)
        at = hit
    for j, links in enumerate(pending):
        if links:
            out[j] = _link_text(items[j], links, stats, dedupe=True)
    return out


def _free(
    text: str,
    compact: str,
    keep: list[int],
    needle: str,
    cursor: int,
    taken: list[tuple[int, int, str]],
) -> tuple[int, int, int] | str:
    """(compact position, start, end) of the first occurrence of `needle` from `cursor`
    (else from the start) that overlaps nothing taken, preferring one that cuts into no
    word or number (a back-reference "2" after "2001." belongs to the second "2"); else
    "" when there is none, or the target of the link the first occurrence lies in ("-" for
    a footnote mark)."""
    clash = ""
    inside: tuple[int, int, int] | None = None
    for start in (cursor, 0):
        pos = compact.find(needle, start) if needle else -1
        while pos >= 0:
            a, b = keep[pos], keep[pos + len(needle) - 1] + 1
            hit = next((t for x, y, t in taken if a < y and x < b), None)
            if hit is None:
                if not _cuts_word(text, a, b):
                    return pos, a, b
                inside = inside or (pos, a, b)
            else:
                clash = clash or hit or "-"
            pos = compact.find(needle, pos + 1)
    return inside or clash


def _cuts_word(text: str, a: int, b: int) -> bool:
    """Whether text[a:b] begins or ends inside a word or number."""
    return (a > 0 and text[a - 1].isalnum() and text[a].isalnum()) or (
        b < len(text) and text[b].isalnum() and text[b - 1].isalnum()
    )


def _compact(text: str) -> str:
    """`text` without whitespace, a hyphen taken out of a broken word (a JOIN mark until
    the element is settled) read as the hyphen a link's text still has."""
    return "".join(text.split()).replace(JOIN, "-")


def _link_text(text: str, group: list[Link], stats: LinkStats, *, dedupe: bool) -> str:
    """`text` with each link's text wrapped, found in order (whitespace ignored); an
    occurrence already inside a link or a footnote mark is passed over."""
    keep = [i for i, c in enumerate(text) if not c.isspace()]
    compact = "".join(text[i] for i in keep).replace(JOIN, "-")  # as `_compact` reads it
    folded = compact.translate(AS_READ)  # one character for one: `keep` still holds
    taken: list[tuple[int, int, str]] = [
        (m.start(), m.end(), "") for m in _PROTECTED.finditer(text)
    ]
    spans: list[tuple[int, int, str]] = []
    cursor = 0
    for link in group:
        needle = _compact(link.text)
        if dedupe and any(t == link.target for _, _, t in spans):
            stats.hit()  # the entry already leads there
            continue
        found = _free(text, compact, keep, needle, cursor, taken)
        if found == "" and folded != compact:
            # the link's text is the page's words, which read TeX's symbol fonts' ℝ as "R"
            found = _free(text, folded, keep, needle.translate(AS_READ), cursor, taken)
        if isinstance(found, str):
            if found == link.target:
                stats.hit()  # a second box over text that already leads there
            else:
                stats.miss("text not found" if not found else "overlaps another link")
            continue
        pos, a, b = found
        a, b = _balanced(text, a, b)
        taken.append((a, b, link.target))
        spans.append((a, b, link.target))
        cursor = pos + len(needle)
        stats.hit()
    for a, b, target in sorted(_joined(text, spans), reverse=True):
        text = text[:a] + ir_link(text[a:b], target) + text[b:]
    return text


_OPENERS, _CLOSERS = "([", ")]"


def _balanced(text: str, a: int, b: int) -> tuple[int, int]:
    """text[a:b] without a bracket at either end that it does not close or open: a box over
    the "3" of "(see Table 3)." takes the ")" too when the words' characters are placed by
    width class (`pdf_links.text_under`), and the link read "(see Table [3)](…)." (473
    links in the TL and tenth samples)."""
    for opener, closer in zip(_OPENERS, _CLOSERS, strict=True):
        while (
            b - a > 1
            and text[b - 1] == closer
            and text.count(opener, a, b) < text.count(closer, a, b)
        ):
            b -= 1
        while (
            b - a > 1 and text[a] == opener and text.count(opener, a, b) > text.count(closer, a, b)
        ):
            a += 1
    while b - a > 1 and text[b - 1].isspace():
        b -= 1
    while b - a > 1 and text[a].isspace():
        a += 1
    return a, b


def _joined(text: str, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Spans with neighbours that lead to the same target and have only whitespace (or a
    broken word's JOIN) between them made one: a link over two lines is two boxes in a PDF,
    and one link to a reader (markup inside "orienta-tion" would split the word)."""
    out: list[tuple[int, int, str]] = []
    for a, b, target in sorted(spans):
        if out and out[-1][2] == target and not text[out[-1][1] : a].replace(JOIN, "").strip():
            out[-1] = (out[-1][0], b, target)
        else:
            out.append((a, b, target))
    return out
