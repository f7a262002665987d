"""Running headers and footers of an HTML book: a block repeated word for word in most of
its chapter files (Sphinx's "© Copyright … Created using Sphinx" under every page, a
publisher's line atop every EPUB chapter). Like a PDF's running footer it is page
furniture, not the book's text: the reader leaves it out and records it as removed."""

from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from quire.workers.parse.html_content import collapse
from quire.workers.parse.html_refs import local

# blocks that can hold a running header or footer (not headings, lists, tables or notes)
_HOLDERS = frozenset({"div", "p", "footer", "header", "address", "section"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
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
    edges: list[dict[str, str]] = []  # per chapter: edge text -> "header" | "footer"
    seen: dict[str, set[int]] = {}
    for k, (_, root) in enumerate(chapters):
        texts = list(dict.fromkeys(text for _, text in _blocks(root)))
        mine = {text: "header" for text in texts[:EDGE]}
        mine |= {text: "footer" for text in texts[-EDGE:]}
        for text in mine:
            seen.setdefault(text, set()).add(k)
        edges.append(mine)
    enough = max(MIN_CHAPTERS, len(chapters) / 2)
    running = {text for text, where in seen.items() if len(where) >= enough}
    out: dict[etree._Element, str] = {}
    for mine, (_, root) in zip(edges, chapters, strict=True):
        for el, text in _blocks(root):
            if text in running and text in mine and not any(a in out for a in el.iterancestors()):
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
        isinstance(c.tag, str) and local(c.tag) in _HEADINGS for c in parent
    )
