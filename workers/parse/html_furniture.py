"""Running headers and footers of an HTML book: a block repeated word for word in most of
its chapter files (Sphinx's "© Copyright … Created using Sphinx" under every page, a
publisher's line atop every EPUB chapter, a banner link "Download the ebook" and the
site's logos atop every page of the Debian Handbook). Like a PDF's running footer it is
page furniture, not the book's text: the reader leaves it out and records it as removed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from lxml import etree

from quire.workers.parse.html_content import (
    HEADINGS,
    collapse,
    image_sources,
    is_chrome,
    links_in,
    links_text,
    text_except,
)
from quire.workers.parse.html_refs import local

# blocks that can hold a running header or footer (not lists, tables or notes; a heading
# only as a site's banner, `_banner`)
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
        texts = list(dict.fromkeys(text for _, text, _ in found))
        mine = {text: "header" for text in texts[:EDGE]} | {
            text: "footer" for text in texts[-EDGE:]
        }
        # where the chapter has a heading, a block above it is a header, one below a footer
        mine |= {
            t: "footer" if below else "header"
            for _, t, below in found
            if t in mine and below is not None
        }
        edges.append(mine)
    seen = Counter(text for mine in edges for text in mine)  # chapters with it at an edge
    enough = max(MIN_CHAPTERS, len(chapters) / 2)
    out: dict[etree._Element, str] = {}
    for mine, found in zip(edges, blocks, strict=True):
        for el, text, _ in found:
            if (
                text in mine
                and seen[text] >= enough
                and not any(a in out for a in el.iterancestors())  # the outermost only
            ):
                out[el] = mine[text]
    return out


def _blocks(root: etree._Element) -> list[tuple[etree._Element, str, bool | None]]:
    """The blocks that could be a running header or footer, in order, with their text and
    whether they stand below the chapter's first heading (None: it has none): outside the
    chapter's flow of headings (a block beside a heading is the chapter's text, however
    often it repeats; Sphinx's footer stands beside the content's wrapper)."""
    # (navigation is dropped on its own: its "Next" is no edge of the chapter)
    chrome = {el for el in root.iter() if isinstance(el.tag, str) and is_chrome(el)}
    elements = [
        el
        for el in root.iter()
        if isinstance(el.tag, str)
        and el not in chrome
        and not any(a in chrome for a in el.iterancestors())
    ]
    first = next((i for i, el in enumerate(elements) if local(el.tag) in HEADINGS), None)
    out = []
    for i, el in enumerate(elements):
        holder = local(el.tag) in _HOLDERS or _banner(el)
        if holder and not _in_flow(el) and (key := _key(el)) is not None:
            out.append((el, key, None if first is None else i > first))
    return out


def _banner(el: etree._Element) -> bool:
    """A heading that is all one link: a site's name atop every page (exim's specification:
    `<h1><a href="http://www.exim.org">Exim Internet Mailer</a></h1>`, which titled all
    its sessions). A chapter's own title can be a link too (to its page), but no repeat."""
    if local(el.tag) not in HEADINGS:
        return False
    links = links_in(el)
    text = collapse("".join(el.itertext()))
    return len(links) == 1 and bool(text) and collapse(links_text(links)) == text


def _key(el: etree._Element) -> str | None:
    """What a block repeats as: its text (a short one only when all of it is a link's: a
    label "Note" is text, a banner "Download the ebook" is not), or for a block without
    text the images it shows (a logo); None for a block that is neither."""
    # (without its navigation: a Sphinx footer's "Previous" and "Next" buttons, which the
    # first and the last chapter lack)
    text = collapse(text_except(el, is_chrome))
    if MIN_CHARS <= len(text) <= MAX_CHARS:
        return text
    if 0 < len(text) < MIN_CHARS:
        return text if collapse(links_text(links_in(el))) == text else None
    images = image_sources(el)
    return " ".join(f"<img {src}>" for src in images) if images and not text else None


def _in_flow(el: etree._Element) -> bool:
    parent = el.getparent()
    return parent is not None and any(
        c is not el and isinstance(c.tag, str) and local(c.tag) in HEADINGS for c in parent
    )
