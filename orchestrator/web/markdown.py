"""Session Markdown and study indexes as HTML, rendered on the server by markdown-it-py.

Text comes from the documents people upload, so raw HTML in it is escaped, never passed
through (markdown-it's `html` option off; it also refuses `javascript:` and similar links).
A session file is split at its `<!-- el-NNNNNN -->` anchors (the verifier's own reader) and
each element rendered on its own, so the page can put an element's verification findings
right beside it. Image and link targets, relative to the output folder, are rewritten to
the URLs that serve them; an image from anywhere else is not loaded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from markdown_it import MarkdownIt

from quire.workers.verify.markdown import parse_chunk_markdown

Rewrite = Callable[[str], str | None]  # a target in the output folder -> its URL, or None

_md = MarkdownIt("commonmark", {"html": False}).enable("table")  # what Quire writes


@dataclass(frozen=True)
class ElementHtml:
    element_id: str
    html: str


def to_html(text: str, *, image: Rewrite, link: Rewrite, shift: int = 1) -> str:
    """Markdown to HTML with image sources and link targets rewritten, and headings moved
    `shift` levels down (the page's own title is its one h1)."""
    tokens = _md.parse(text)
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1]) + shift)}"
        for child in token.children or []:
            if child.type == "image":
                child.attrSet("src", image(str(child.attrGet("src") or "")) or "")
                child.attrSet("loading", "lazy")
            elif child.type == "link_open":
                href = str(child.attrGet("href") or "")
                child.attrSet("href", link(href) or href)
    return str(_md.renderer.render(tokens, _md.options, {}))


def session_html(text: str, *, image: Rewrite, link: Rewrite) -> list[ElementHtml]:
    """A session file's elements, each rendered (its front block is left out: the page
    shows the same facts from the plan)."""
    parsed = parse_chunk_markdown(text)
    return [
        ElementHtml(eid, to_html(body, image=image, link=link)) for eid, body in parsed.segments
    ]
