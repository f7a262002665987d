"""Running headers and footers of an HTML book: a block repeated word for word in most of
its chapter files (Sphinx's "© Copyright … Created using Sphinx" under every page, a
publisher's line atop every EPUB chapter). Like a PDF's running footer it is page
furniture, not the book's text: the reader leaves it out and records it as removed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from lxml import etree

from quire.workers.parse.html_content import HEADINGS, collapse
from quire.workers.parse.html_refs import local

# blocks that can hold a running header or footer (not headings, lists, tables or notes)
_HOLDERS = frozenset({"div", "p", "footer", "header", "address", "section"})
MIN_CHARS = 40  # shorter repeats are labels ("Note", "Example"), not furniture
MAX_CHARS = 2000
MIN_CHAPTERS = 3
EDGE = 2  # texts at each end of a chapter where running headers and footers stand


def running_blocks(
    chapters: Sequence[tuple[str, etree._Element]],
) -> dict[etree._Element, str]:
    """The outermost blocks at the top or the bottom of their chapter (among its first or
    last `EDGE` texts) whose text stands there in at least half of the chapters, and at
    least three, each with its kind: "header" at the top, "footer" at the bottom."""
    if len(chapters) < MIN_CHAPTERS:
        return {}
    blocks = [_blocks(root) for _, root in chapters]
    edges: list[dict[str, str]] = []  # per chapter: edge text -> "header" | "footer"
    for found in blocks:
        texts = list(dict.fromkeys(text for _, text in found))
        mine = {text: "header" for text in texts[:EDGE]}
        edges.append(mine | {text: "footer" for text in texts[-EDGE:]})
    seen = Counter(text for mine in edges for text in mine)  # chapters with it at an edge
    enough = max(MIN_CHAPTERS, len(chapters) / 2)
    out: dict[etree._Element, str] = {}
    for mine, found in zip(edges, blocks, strict=True):
        for el, text in found:
            if (
                text in mine
                and seen[text] >= enough
                and not any(a in out for a in el.iterancestors())  # the outermost only
            ):
                out[el] = mine[text]
    return out


def _blocks(root: etree._Element) -> list[tuple[etree._Element, str]]:
    """The blocks that could be a running header or footer, with their text, in order:
    outside the chapter's flow of headings (a block beside a heading is the chapter's text,
    however often it repeats; Sphinx's footer stands beside the content's wrapper)."""
    out = []
    for el in root.iter():
        if isinstance(el.tag, str) and local(el.tag) in _HOLDERS and not _in_flow(el):
            text = collapse("".join(el.itertext()))
            if MIN_CHARS <= len(text) <= MAX_CHARS:
                out.append((el, text))
    return out


def _in_flow(el: etree._Element) -> bool:
    parent = el.getparent()
    return parent is not None and any(
        isinstance(c.tag, str) and local(c.tag) in HEADINGS for c in parent
    )
