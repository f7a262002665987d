"""Internal links of a PDF: read on each page, resolved to elements in the merge.

On the page: the link annotations that go to a place in this document (GoTo actions and
destinations, named or explicit), each with the text under it and the target page and
height. Reading the annotation dictionaries directly costs a tenth of `page.get_links()`
(which resolves every named destination through the document's name tree; MuPDF's
`resolve_link` does one name in ~40 µs); a page with any annotation this reader does not
follow (explicit or indirect destinations, escaped names) is read with `get_links()`.
The text under a link is taken from the page's words (`text_under`): MuPDF's own
`get_textbox` walks every character of the page in Python, a third of a second a call.

In the merge (`Trail`, `resolve`): every body block is recorded with the element it went
into; a link's source is the element whose block holds the link's centre, its target the
first element at or below the target point (on that page, else the pages after it).
Links to footnotes (the marks, already references) and to the element itself are left out.
"""

from __future__ import annotations

import bisect
import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from quire.shared.ir import Element, ParserNote
from quire.workers.parse.link_apply import Link, LinkStats, apply_links
from quire.workers.parse.pdf_footnotes import Note
from quire.workers.parse.pdf_open import pymupdf_module
from quire.workers.parse.pdf_types import PdfLink, PdfPage

_REF = re.compile(r"(\d+) 0 R")
_RECT = re.compile(r"/Rect\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]")
_ACTION_REF = re.compile(r"/A (\d+) 0 R")
_NAMED = re.compile(r"/D(?:est)?(?:\(([^()\\]*)\)|/([^\s/\[\]()<>{}%#]+))")
_EXTERNAL = ("/URI", "/GoToR", "/Launch", "/Named", "/JavaScript", "/GoToE", "/SubmitForm")


Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in MuPDF's page coordinates


class _Unread(Exception):
    """An annotation the direct reader does not follow: read the page with get_links()."""


def page_links(
    doc: Any, page: Any, textpage: Any, expand: Callable[[str], str] = str
) -> list[PdfLink]:
    """The internal links of `page` (a loaded page of `doc`); `expand` turns their text
    into the page text's form (ligatures and presentation forms as letters)."""
    try:
        raw = _annotation_links(doc, page)
    except _Unread:
        raw = _pymupdf_links(doc, page)
    out: list[PdfLink] = []
    words = by_line(page.get_text("words", textpage=textpage)) if raw else []
    for box, target in raw:
        text = expand(text_under(words, box))
        if text and target[0] >= 0:
            out.append(
                PdfLink(
                    text=text,
                    bbox=(round(box[0], 2), round(box[1], 2), round(box[2], 2), round(box[3], 2)),
                    page=target[0] + 1,
                    y=_finite(target[2]),
                    x=_finite(target[1]),
                )
            )
    return out


def _annotation_links(doc: Any, page: Any) -> list[tuple[Box, tuple[int, float, float]]]:
    """(box, (target page index, x, y)) of each internal link, read from the annotation
    dictionaries; _Unread for any it does not follow."""
    kind, value = doc.xref_get_key(page.xref, "Annots")
    if kind == "null":
        return []
    if kind == "xref":
        value = doc.xref_object(int(value.split()[0]), compressed=True)
    elif kind != "array":
        raise _Unread
    a, b, c, d, e, f = page.transformation_matrix  # PDF space -> MuPDF's, once a page
    resolved: dict[str, Any] = {}
    out = []
    for xref in _REF.findall(value):
        obj = doc.xref_object(int(xref), compressed=True)
        if "/Subtype/Link" not in obj:
            continue
        action = _ACTION_REF.search(obj)
        where = doc.xref_object(int(action.group(1)), compressed=True) if action else obj
        if any(k in where for k in _EXTERNAL):
            continue
        named, rect = _NAMED.search(where), _RECT.search(obj)
        if named is None or rect is None:
            raise _Unread  # explicit or indirect destination, hex or escaped name
        name = named.group(1) if named.group(1) is not None else named.group(2)
        if name not in resolved:
            try:
                resolved[name] = doc.resolve_link("#nameddest=" + name)
            except Exception as exc:  # a name MuPDF cannot look up: let get_links() try
                raise _Unread from exc
        target = resolved[name]
        rx0, ry0, rx1, ry1 = (float(v) for v in rect.groups())
        xs = (a * rx0 + c * ry0 + e, a * rx1 + c * ry1 + e)
        ys = (b * rx0 + d * ry0 + f, b * rx1 + d * ry1 + f)
        box = (min(xs), min(ys), max(xs), max(ys))
        out.append((box, (int(target[0]), float(target[1]), float(target[2]))))
    return out


def _pymupdf_links(doc: Any, page: Any) -> list[tuple[Box, tuple[int, float, float]]]:
    p = pymupdf_module()
    out = []
    for link in page.get_links():
        box = tuple(link["from"])
        if link["kind"] == p.LINK_GOTO:
            to = link["to"]
            out.append((box, (int(link["page"]), float(to.x), float(to.y))))
        elif link["kind"] == p.LINK_NAMED and link.get("nameddest"):
            target = doc.resolve_link("#nameddest=" + str(link["nameddest"]))
            out.append((box, (int(target[0]), float(target[1]), float(target[2]))))
    return out


def text_under(words: list[Any], rect: Box) -> str:
    """The text under a link's box: of each word whose middle line is inside the box, the
    characters whose middle is (placed across the word by their width class: links often
    cover part of a word, "3.1" of "3.1)"). A box reaches into the lines above and below;
    middles do not. `words` are sorted by their middle line (see `by_line`)."""
    x0, y0, x1, y1 = rect
    parts: list[str] = []
    lo, hi = bisect.bisect_left(words, y0, key=_middle), bisect.bisect_right(words, y1, key=_middle)
    for w in sorted(words[lo:hi], key=lambda w: (w[5], w[6], w[7])):  # MuPDF's reading order
        if w[2] <= x0 or w[0] >= x1:
            continue
        text = w[4]
        units = [_UNITS.get(unicodedata.east_asian_width(c), 1) for c in text]
        unit = (w[2] - w[0]) / max(1, sum(units))
        kept, left = "", w[0]
        for c, u in zip(text, units, strict=True):
            if x0 <= left + u * unit / 2 <= x1:
                kept += c
            left += u * unit
        if kept:
            parts.append(kept)
    return " ".join(parts)


# a character's width in half-ems: Chinese and Japanese (and full-width forms) are set a
# whole em wide, about twice a Latin letter or digit; "参考文献[1, 2]" places "1" by it
_UNITS = {"W": 2, "F": 2}


def by_line(words: list[Any]) -> list[Any]:
    """MuPDF's words sorted by their middle line, as `text_under` looks them up."""
    return sorted(words, key=_middle)


def _middle(w: Any) -> float:
    return float((w[1] + w[3]) / 2)


def _finite(v: float) -> float:
    """A target coordinate, 0 (the page's top or left) when the destination leaves it
    open: "/XYZ null null null" comes back as NaN, which JSON cannot carry."""
    return round(v, 2) if math.isfinite(v) else 0.0


def _area(b: tuple[float, float, float, float]) -> float:
    return (b[2] - b[0]) * (b[3] - b[1])


# --- the merge --------------------------------------------------------------------------------


@dataclass
class _Spot:
    bbox: tuple[float, float, float, float]
    item: Any  # the pending element the block went into


@dataclass
class Trail:
    """Where every body block went: page -> spots in reading order."""

    pages: dict[int, list[_Spot]] = field(default_factory=dict)

    def add(self, page: int, bbox: tuple[float, float, float, float], item: Any) -> None:
        if item is not None:
            self.pages.setdefault(page, []).append(_Spot(bbox, item))

    def source(self, link: PdfLink, page: int) -> tuple[Any, int] | None:
        """The element whose block holds the link's centre (the smallest such block), and
        the block's place in the page's reading order."""
        cx, cy = (link.bbox[0] + link.bbox[2]) / 2, (link.bbox[1] + link.bbox[3]) / 2
        hits = [
            (k, s)
            for k, s in enumerate(self.pages.get(page, []))
            if s.bbox[0] - 2 <= cx <= s.bbox[2] + 2 and s.bbox[1] - 2 <= cy <= s.bbox[3] + 2
        ]
        if not hits:
            return None
        # the smallest block; of a heading split off a block and the rest (both keep the
        # block's box), the rest
        k, spot = min(
            hits, key=lambda h: (_area(h[1].bbox), getattr(h[1].item, "type", "") == "heading")
        )
        return spot.item, k

    def target(self, page: int, y: float, last_page: int, x: float = 0.0) -> Any | None:
        """The first element at or below the point (x, y) of `page` (in its column when one
        holds x), else the first of the next page with any (at most three pages on)."""
        spots = [s for s in self.pages.get(page, []) if s.bbox[3] > y + 1]
        column = [s for s in spots if s.bbox[0] - 2 <= x <= s.bbox[2] + 2]
        if spots:
            return min(column or spots, key=lambda s: (s.bbox[1], s.bbox[0])).item
        for nxt in range(page + 1, min(page + 3, last_page) + 1):
            if self.pages.get(nxt):
                return min(self.pages[nxt], key=lambda s: (s.bbox[1], s.bbox[0])).item
        return None


def tie_notes(pages: list[PdfPage], trail: Trail) -> None:
    """Tell each note which elements link to it (see pdf_footnotes.Note.linked): only
    links on its own page or the page before, where its reference mark can be. (An index
    locator linking to a numbered code line read as a note is no reference to it.)"""
    last = max((p.page for p in pages), default=0)
    for page in pages:
        for link in page.links:
            dst = trail.target(link.page, link.y, last, link.x)
            if isinstance(dst, Note) and dst.page - 1 <= page.page <= dst.page:
                # the note with the link's mark, when the point falls between two notes
                same = [
                    s.item
                    for s in trail.pages.get(link.page, [])
                    if isinstance(s.item, Note) and s.item.mark == link.text.strip()
                ]
                dst = same[0] if same else dst
                src = trail.source(link, page.page)
                if src is not None and not isinstance(src[0], Note):
                    dst.linked.append((src[0], link.text))


def resolve(
    elements: list[Element], items: list[Any], trail: Trail, pages: list[PdfPage]
) -> tuple[list[Element], LinkStats]:
    """`elements` (built from `items`, one to one) with the pages' links written in."""
    index = {id(item): k for k, item in enumerate(items)}

    def element(spot_item: Any) -> int | None:
        # a footnote's blocks were recorded with the note, which became an element later
        return index.get(id(getattr(spot_item, "pending", None) or spot_item))

    stats = LinkStats()
    links: list[Link] = []
    last = max((p.page for p in pages), default=0)
    for page in pages:
        for link in page.links:
            src = trail.source(link, page.page)
            dst = trail.target(link.page, link.y, last, link.x)
            if src is None or dst is None:
                stats.miss("outside the body text" if src is None else "target not in the text")
                continue
            s, d = element(src[0]), element(dst)
            if s is None or d is None:
                stats.miss("outside the body text")
                continue
            if elements[d].type == "footnote":
                continue  # a note's mark: already a footnote reference
            if s == d:
                stats.miss("leads to its own element")
                continue
            order = (page.page, src[1], link.bbox[1], link.bbox[0])  # block, then line
            links.append(Link(s, link.text, elements[d].id, order))
    return apply_links(elements, links, stats), stats


def link_notes(stats: LinkStats, elements: list[Element]) -> list[ParserNote]:
    """What became of the document's links and footnotes, for the IR's notes."""
    notes = (
        [ParserNote(kind="info", message=stats.describe("internal links"))] if stats.found else []
    )
    footnotes = sum(1 for e in elements if e.type == "footnote")
    if footnotes:
        notes.append(
            ParserNote(kind="info", message=f"{footnotes} footnotes tied to their references")
        )
    return notes
