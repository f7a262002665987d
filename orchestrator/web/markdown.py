"""Session Markdown and study indexes as HTML, rendered on the server by markdown-it-py.

Text comes from the documents people upload, so raw HTML in it is escaped, never passed
through (markdown-it's `html` option off; it also refuses `javascript:` and similar links).
A session file is split at its `<!-- el-NNNNNN -->` anchors (the verifier's own reader) and
each element rendered on its own, so the page can put an element's verification findings
right beside it. Image and link targets, relative to the output folder, are rewritten to
the URLs that serve them; an image from anywhere else is not loaded.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

from quire.shared.links import FOOTNOTE_DEF, FOOTNOTE_REF, NOTE_INDENT, Slugger, label_mark
from quire.workers.verify.markdown import parse_chunk_markdown

Rewrite = Callable[[str], str | None]  # a target in the output folder -> its URL, or None


def _footnote_ref(state: StateInline, silent: bool) -> bool:
    """`[^label]`: a footnote reference, shown as its raised mark linking to the note."""
    if not state.src.startswith("[^", state.pos):
        return False
    m = FOOTNOTE_REF.match(state.src, state.pos)
    if m is None:
        return False
    if not silent:
        state.push("footnote_ref", "", 0).meta = {"label": m.group(1)}
    state.pos = m.end()
    return True


def _render_footnote_ref(self: Any, tokens: Sequence[Any], idx: int, *_: Any) -> str:
    label = html.escape(tokens[idx].meta["label"], quote=True)
    mark = html.escape(label_mark(tokens[idx].meta["label"]))
    return f'<sup class="fnref"><a href="#fn-{label}">{mark}</a></sup>'


_md = MarkdownIt("commonmark", {"html": False}).enable("table")  # what Quire writes
_md.inline.ruler.before("link", "footnote_ref", _footnote_ref)
_md.add_render_rule("footnote_ref", _render_footnote_ref)


@dataclass(frozen=True)
class ElementHtml:
    element_id: str
    html: str


def to_html(
    text: str, *, image: Rewrite, link: Rewrite, shift: int = 1, slugs: Slugger | None = None
) -> str:
    """Markdown to HTML with image sources and link targets rewritten, and headings moved
    `shift` levels down (the page's own title is its one h1); with `slugs`, headings get
    the anchors cross-references lead to (shared.links.heading_slug)."""
    tokens = _md.parse(text)
    for i, token in enumerate(tokens):
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1]) + shift)}"
            if slugs is not None and token.type == "heading_open":
                token.attrSet("id", slugs.slug(tokens[i + 1].content))
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
    shows the same facts from the plan). A footnote is shown with its mark, as the place
    its references lead to."""
    slugs = Slugger()
    out = []
    for eid, body in parse_chunk_markdown(text).segments:
        note = FOOTNOTE_DEF.match(body)
        if note is None:
            out.append(ElementHtml(eid, to_html(body, image=image, link=link, slugs=slugs)))
            continue
        inner = body[note.end() :].replace("\n\n" + NOTE_INDENT, "\n\n")
        label = note.group(1)
        rendered = to_html(inner, image=image, link=link, slugs=slugs)
        out.append(
            ElementHtml(
                eid,
                f'<div class="footnote" id="fn-{html.escape(label, quote=True)}">'
                f'<span class="fnmark">{html.escape(label_mark(label))}</span>{rendered}</div>',
            )
        )
    return out
