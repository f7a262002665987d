"""HTML and XHTML -> blocks: the element mapping EPUB and HTML input share.

Rules (what each HTML construct becomes):
- h1-h6 -> heading (its level); empty headings are dropped.
- p, and the text that sits directly in a div, section, blockquote, li-less container ->
  paragraph; figcaption, caption and a p whose class names a caption -> caption.
- ul/ol -> one list (ol's `start`); a nested list is a Markdown sub-list inside its parent
  item, so `items` holds the top-level items only (as for DOCX). dl -> an unordered list
  of "term: definition" items.
- table -> rows of cell text (a colspan's extra columns are "", no text twice); nested
  tables are flattened into their cell; its caption is a caption element before it.
- pre -> code (whitespace kept; `language-x` or pandoc's `sourceCode x` class names its
  language). Inline code, emphasis and spans are plain text; the names set as inline
  code (code, kbd, samp, tt, var) are kept beside it (`Element.code`, as the PDF parser's
  monospace runs).
- img, and an SVG's image -> an image element right after the block that holds it (bytes
  and sha256 through `ImageLoader`, as for DOCX).
- Footnotes and endnotes (found by html_notes) are left out where they stand and come
  back as footnote elements after the block holding their reference; an internal link
  is a placeholder settled by docx_notes.settle into a link to the element it leads to.
- Running headers and footers (a block repeated word for word in most chapter files:
  html_furniture) are left out and recorded as removed, as a PDF's are.
- Scripts and navigation chrome (nav, role="navigation", DocBook's navheader/navfooter,
  breadcrumbs, the "¶" permalinks Sphinx and MkDocs put in headings) are dropped and
  recorded as removed; a page break marker (epub:type="pagebreak", role="doc-pagebreak")
  is recorded as a removed page number and as a page mark. style, head and comments carry no text.
- Whitespace is collapsed as a browser does; a line break between two CJK characters is
  no space. RTL: dir="rtl" on the element or an ancestor, or a first strong letter that
  is right-to-left.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from quire.shared import markdown as md
from quire.shared.ir import ElementType
from quire.workers.parse import mathml
from quire.workers.parse.docx_content import LINK_CLOSE, LINK_OPEN, LINK_TEXT
from quire.workers.parse.html_images import ImageLoader
from quire.workers.parse.html_notes import NoteMap, note_ref
from quire.workers.parse.html_refs import EPUB_NS, XLINK_NS, local, member, resolve
from quire.workers.parse.inline_code import PROSE, kept_code
from quire.workers.parse.list_runs import code_runs, list_runs, row_runs

HEADINGS = {f"h{n}": n for n in range(1, 7)}
_CONTAINERS = frozenset(
    {
        "body",
        "div",
        "section",
        "article",
        "main",
        "blockquote",
        "aside",
        "header",
        "footer",
        "figure",
        "details",
        "fieldset",
        "form",
        "hgroup",
        "li",
        "center",
        "address",
        "dd",
        "dt",
        "summary",
        "html",
        "noscript",
    }
)
_PARAGRAPHS = frozenset({"p"})
_CAPTIONS = frozenset({"figcaption", "caption"})
_LISTS = frozenset({"ul", "ol", "dl", "menu"})
_INLINE_CODE = frozenset({"code", "kbd", "samp", "tt", "var"})
_LINK_TARGET = re.compile(f"{LINK_OPEN}[^{LINK_TEXT}]*{LINK_TEXT}|{LINK_CLOSE}")
_SILENT = frozenset({"style", "head", "link", "meta", "title", "template", "base"})
_SCRIPTS = frozenset({"script"})
BLOCKS = (
    _CONTAINERS
    | _PARAGRAPHS
    | _CAPTIONS
    | _LISTS
    | _SILENT
    | _SCRIPTS
    | frozenset(HEADINGS)
    | {"pre", "table", "hr", "nav", "svg", "math"}
)
_CHROME_CLASSES = frozenset(
    {"navheader", "navfooter", "navigation", "breadcrumb", "breadcrumbs", "skip-link", "navbar"}
    | {"docnav"}  # Publican's Prev / Up / Home / Next (Red Hat's and Debian's handbooks)
    | {"headerlink"}  # Sphinx's and MkDocs' "¶" permalink inside every heading
    # Sphinx's sidebar, also in themes that give it no navigation role (borgbackup's
    # guzzle: its global contents led the chapter order, every nested page after them)
    | {"sphinxsidebar"}
    | {"menu-bar"}  # mdBook's: the book's title, search, theme and print buttons
)
_CHROME_TYPES = frozenset({"toc", "landmarks", "page-list"})
_CAPTION_CLASS = re.compile(r"\bcaption\b", re.I)
_CODE_CLASS = re.compile(r"(?:\blanguage-|\bsourceCode\s+|\blang-)([A-Za-z0-9_+-]+)")
_CJK = "\u2e80-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef"
_CJK_BREAK = re.compile(f"(?<=[{_CJK}])[ \t\r\f]*\n\\s*(?=[{_CJK}])")
REMOVED_CAP = 300  # characters of a removed script or navigation block kept in the record


@dataclass
class Block:
    """An element before pagination (the shape docx_notes.settle rewrites)."""

    type: ElementType
    text: str
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass
class Removed:
    position: int  # blocks read before it
    kind: str  # "navigation" | "script" | "page_number"
    text: str


def classes(el: etree._Element) -> set[str]:
    """The element's class names, lower-cased: pages in quirks mode, as old generators
    write them, match classes regardless of case (DocBook DSSSL's CLASS="NAVHEADER": the
    Advanced Bash-Scripting Guide's bar of Prev / Next links was a table atop every page)."""
    return set((el.get("class") or "").lower().split())


def rels(el: etree._Element) -> set[str]:
    """A link's relations (`rel="next"`, `rel="contents"`), lower-cased."""
    return set((el.get("rel") or "").lower().split())


def epub_types(el: etree._Element) -> set[str]:
    raw = el.get(f"{{{EPUB_NS}}}type") or el.get("epub:type") or ""
    role = el.get("role") or ""
    return set(raw.split()) | {r.removeprefix("doc-") for r in role.split()}


def is_pagebreak(el: etree._Element) -> bool:
    return "pagebreak" in epub_types(el)


def is_chrome(el: etree._Element) -> bool:
    tag = local(el.tag)
    if tag == "nav" or "navigation" in (el.get("role") or "").split():
        return True
    found = classes(el)
    links = links_in(el) if found & _BAR_CLASSES else []
    if links and (_link_bar(el, links) or _neighbour_links(links)):
        return True
    return bool(found & _CHROME_CLASSES or epub_types(el) & _CHROME_TYPES)


# texi2html's and texi2any's button bar atop and under every page, `<table class="header">`
# of "<<", "<", "Up", ">", ">>", "Top", "Contents", "Index", "?" (zsh's manual): its Index
# button led the chapter order into the indexes, and the bar made four outline entries
_BAR_CLASSES = frozenset({"header", "footer", "nav-panel"})
MIN_BAR_LINKS = 3
_WORD_CHARS = re.compile(r"[^\W_]")


def links_in(el: etree._Element) -> list[etree._Element]:
    """The `<a>` elements inside an element (itself included), in order."""
    return [a for a in el.iter() if isinstance(a.tag, str) and local(a.tag) == "a"]


def links_text(links: list[etree._Element]) -> str:
    return "".join(t for a in links for t in a.itertext())


def _link_bar(el: etree._Element, links: list[etree._Element]) -> bool:
    """Whether an element holds links, three or more, and no word outside them but a label
    for each at most (brackets and bars aside): a bar of buttons, or texi2any's line under
    a node, "Next: …, Previous: …, Up: … [Contents]", whose links carry no `rel`."""
    if len(links) < MIN_BAR_LINKS:
        return False
    text, inside = "".join(el.itertext()), links_text(links)
    if len(_LABEL.findall(text)) - len(_LABEL.findall(inside)) > len(links):
        return False
    words = _WORD_CHARS.findall
    return len(words(_LABEL.sub("", text))) == len(words(_LABEL.sub("", inside)))


_LABEL = re.compile(r"[^\W\d_]+:")  # "Next:", "Suivant:": a word that labels a link


# texi2any's header line atop each node, "Next: <a rel=next>…</a>, Previous: <a rel=prev>…
# </a>, Up: <a rel=up>…</a> [Contents][Index]", stood in the text of every page (maxima's
# HTML manual 550 times, autoconf's 229): its links all name the page's neighbours, two of
# them on the first and last nodes ("Next: … [Contents]")
_NEIGHBOUR_RELS = frozenset({"next", "prev", "previous", "up", "contents", "index", "top"})


def _neighbour_links(links: list[etree._Element]) -> bool:
    """Whether there are two links or more, each to a neighbour page (`rel`)."""
    return len(links) >= 2 and all(rels(a) & _NEIGHBOUR_RELS for a in links)


def body_of(root: etree._Element) -> etree._Element:
    return next((el for el in root.iter() if local(el.tag) == "body"), root)


def outside_main(body: etree._Element) -> set[etree._Element]:
    """The elements around a page's one main content (`<main>`, or `role="main"`), which
    are its site's chrome: Furo's sidebar (the whole navigation tree, with "Hide navigation
    sidebar" labels for screen readers), search forms, theme buttons. None when the page
    marks no main, or more than one."""
    mains = body.xpath(
        './/*[local-name()="main" or contains(concat(" ", normalize-space(@role), " "), " main ")]'
    )
    outer = [m for m in mains if not any(a in mains for a in m.iterancestors())]
    if len(outer) != 1:
        return set()
    out: set[etree._Element] = set()
    node = outer[0]
    while node is not body and node.getparent() is not None:
        out |= {x for x in node.itersiblings(preceding=True) if isinstance(x.tag, str)}
        out |= {x for x in node.itersiblings() if isinstance(x.tag, str)}
        node = node.getparent()
    return out


def text_except(el: etree._Element, skip: Callable[[etree._Element], bool]) -> str:
    """The text of `el` but for the elements inside it that `skip` leaves out (their tails,
    which stand after them, stay)."""

    def walk(node: etree._Element) -> Iterator[str]:
        yield node.text or ""
        for child in node:
            if isinstance(child.tag, str) and not skip(child):
                yield from walk(child)
            yield child.tail or ""

    return "".join(walk(el))


def image_sources(el: etree._Element) -> list[str]:
    """The `src` of every image inside `el`, in order."""
    return [
        img.get("src") or ""
        for img in el.iter()
        if isinstance(img.tag, str) and local(img.tag) == "img"
    ]


CONTENTS_ENTRIES = 5  # headings that link to other chapters before a page is contents
CONTENTS_TARGETS = 3  # ... to this many chapters at least


def contents_page(name: str, body: etree._Element) -> bool:
    """Whether chapter `name` is a table of contents set as headings (SiSU's EPUBs: every
    entry an <h1>-<h6> linking to its chapter): most of its headings are a link to another
    chapter, and they lead to several. A chapter whose headings all link back to the
    contents (texi2html) leads to one."""
    headings = [el for el in body.iter() if isinstance(el.tag, str) and local(el.tag) in HEADINGS]
    targets: list[str] = []
    for heading in headings:
        links = links_in(heading)
        target = member(name, links[0].get("href") or "") if len(links) == 1 else None
        if target is not None and target != name:
            targets.append(target)
    return (
        len(targets) >= CONTENTS_ENTRIES
        and 2 * len(targets) >= len(headings)
        and len(set(targets)) >= CONTENTS_TARGETS
    )


def collapse(text: str) -> str:
    """Whitespace as a browser shows it: runs are one space; none across a line break
    between CJK characters."""
    return " ".join(_CJK_BREAK.sub("", text).split())


def is_rtl(text: str, bidi: bool) -> bool:
    for ch in text:
        direction = unicodedata.bidirectional(ch)
        if direction in ("R", "AL"):
            return True
        if direction == "L" and not bidi:
            return False
    return False


class ChapterReader:
    """Reads chapters into one list of blocks, recording where each id stands."""

    def __init__(
        self,
        notes: NoteMap,
        images: ImageLoader,
        running: Mapping[etree._Element, str] | None = None,
    ) -> None:
        self.notes = notes
        self.images = images
        self.running = running or {}  # running header/footer blocks -> "header" | "footer"
        self.blocks: list[Block] = []
        self.anchors: list[tuple[int, str]] = []  # (blocks read before it, "name#id")
        self.removed: list[Removed] = []
        # (position, label, "name#id", inside the block at position rather than before it)
        self.page_marks: list[tuple[int, str, str, bool]] = []
        self.name = ""
        self._hits: list[tuple[str, str]] = []  # (src, alt) of images not yet emitted
        self._inline_code: list[str] = []  # inline code read since the last block was added
        self._contents_page = False
        self._outside: set[etree._Element] = set()  # the chapter's blocks around its main

    # -- chapters and blocks -------------------------------------------------------------

    def chapter(self, name: str, root: etree._Element) -> None:
        self.name = name
        self.anchors.append((len(self.blocks), name))
        body = body_of(root)
        self._contents_page = contents_page(name, body)
        self._outside = outside_main(body)
        self._block(body)
        self._emit_images()

    def _block(self, el: etree._Element) -> None:
        tag = local(el.tag)
        if el in self.notes.notes or tag in _SILENT:
            return
        if tag in _SCRIPTS:
            self._remove(el, "script")
            return
        if is_chrome(el) or el in self._outside:
            self._remove(el, "navigation")
            return
        if el in self.running:
            self._remove(el, self.running[el])
            return
        if is_pagebreak(el):
            self._page_mark(el, inside=False)
            return
        self._anchor(el)
        if tag in HEADINGS and self._contents_page:  # its entries are no headings here
            self._container(el, "paragraph")
        elif tag in HEADINGS:
            text = collapse(self._inline_children(el))
            if text:
                self._add(
                    "heading",
                    md.heading(text, HEADINGS[tag]),
                    level=HEADINGS[tag],
                    rtl=self._rtl(el, text),
                )
            self._emit_images()
        elif tag == "pre":
            self._code(el)
        elif tag in _LISTS:
            self._list(el)
        elif tag == "table":
            self._table(el)
        elif tag in _CAPTIONS or (tag == "p" and _CAPTION_CLASS.search(el.get("class") or "")):
            self._container(el, "caption")
        elif tag == "img" or tag == "svg":
            self._inline(el, keep=False)
            self._emit_images()
        elif tag == "hr":
            return
        elif (tex := _page_tex(el)) is not None:  # a display equation of Sphinx's
            self._add("paragraph", tex)
        else:  # p, div, section ... and any unknown element used as a block
            self._container(el, "paragraph")

    def _container(self, el: etree._Element, kind: ElementType) -> None:
        """Inline runs between block children become paragraphs (or captions)."""
        buf: list[str] = [el.text or ""]

        def flush() -> None:
            text = collapse("".join(buf))
            buf.clear()
            if text:
                self._add(
                    kind,
                    text,
                    rtl=self._rtl(el, text),
                    origin="html" if kind == "caption" else None,
                )
            self._emit_images()

        for child in el:
            tag = local(child.tag)
            if tag and (tag in BLOCKS or tag in HEADINGS) and tag not in ("svg", "math"):
                flush()
                self._block(child)
            elif tag and is_pagebreak(child) and not collapse("".join(buf)):
                self._page_mark(child, inside=False)  # between paragraphs
            elif tag:
                buf.append(self._inline(child, keep=False))
            buf.append(child.tail or "")
        flush()

    def _code(self, el: etree._Element) -> None:
        text = self._inline(el, keep=True, own_tail=False)
        lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if lines:
            found = _CODE_CLASS.search(
                " ".join((x.get("class") or "") for x in (el, *el.iter("{*}code", "code")))
            )
            language = found.group(1).lower() if found else None
            for run in code_runs(lines):  # a long listing: a few pages each
                body = "\n".join(run).strip("\n")
                self._add("code", md.code(body), language=language, origin="html")
        self._emit_images()

    def _list(self, el: etree._Element) -> None:
        tag = local(el.tag)
        ordered = tag == "ol"
        start = _int(el.get("start"), 1) if ordered else None
        for first, items in list_runs(self._items(el)):  # a long list: a few pages each
            number = None if start is None else start + first
            text = md.bullet_list(items, ordered, number or 1)
            self._add(
                "list",
                text,
                items=items,
                ordered=ordered,
                start=number,
                rtl=self._rtl(el, text),
                origin="html",
            )
        self._emit_images()

    def _items(self, el: etree._Element) -> list[str]:
        if local(el.tag) == "dl":
            return self._definitions(el)
        items: list[str] = []
        for li in el:
            if local(li.tag) != "li":
                if local(li.tag) in _LISTS:  # a list nested without its li
                    self._anchor(li)
                    sub = self._items(li)
                    if sub and items:
                        items[-1] += "\n" + md.bullet_list(sub, local(li.tag) == "ol")
                    else:
                        items += sub
                continue
            if li in self.notes.notes:
                continue
            text = self._item_text(li)
            if text.strip():
                items.append(text.strip())
        return items

    def _item_text(self, el: etree._Element) -> str:
        """A list item's or definition's text, the lists nested in it as Markdown below."""
        self._anchor(el)
        subs: list[tuple[bool, list[str]]] = []
        text = collapse(self._flat(el, subs))
        for ordered, sub in subs:
            text += "\n" + md.bullet_list(sub, ordered)
        return text

    def _definitions(self, dl: etree._Element) -> list[str]:
        items: list[str] = []
        for child in dl:
            tag = local(child.tag)
            if tag not in ("dt", "dd", "div") or child in self.notes.notes:
                continue
            if tag == "div":  # <div><dt/><dd/></div> groups
                items += self._definitions(child)
                continue
            text = self._item_text(child)
            if not text:
                continue
            if tag == "dd" and items:
                items[-1] += (": " if items[-1] and not items[-1].endswith(":") else " ") + text
            else:
                items.append(text)
        return items

    def _table(self, el: etree._Element) -> None:
        caption = next((c for c in el if local(c.tag) == "caption"), None)
        if caption is not None:
            self._container(caption, "caption")
        rows: list[list[str]] = []
        for tr in _rows(el):
            self._anchor(tr)
            row: list[str] = []
            for cell in tr:
                if local(cell.tag) not in ("td", "th"):
                    continue
                self._anchor(cell)
                subs: list[tuple[bool, list[str]]] = []
                text = collapse(self._flat(cell, subs))
                for _, sub in subs:
                    text = " ".join([text, *sub]).strip()
                row.append(text)
                row += [""] * (max(1, min(_int(cell.get("colspan"), 1), 100)) - 1)
            if any(c.strip() for c in row):
                rows.append(row)
        if rows:
            width = max(len(r) for r in rows)
            rows = [r + [""] * (width - len(r)) for r in rows]
            rtl = self._rtl(el, " ".join(c for r in rows for c in r))
            for run in row_runs(rows):  # a long table: a few pages each
                self._add("table", md.table(run), rows=run, rtl=rtl)
        self._emit_images()

    # -- inline content ------------------------------------------------------------------

    def _flat(self, el: etree._Element, subs: list[tuple[bool, list[str]]]) -> str:
        """All the text under `el` on one line (blocks separated by spaces); nested lists
        are collected into `subs` instead."""
        parts = [el.text or ""]
        for child in el:
            tag = local(child.tag)
            if tag in _LISTS and tag != "menu":
                self._anchor(child)
                sub = self._items(child)
                if sub:
                    subs.append((tag == "ol", sub))
            elif tag in BLOCKS and tag not in ("svg", "math", "pre"):
                if self._skipped(child):
                    pass
                elif tag == "table":
                    for tr in _rows(child):
                        parts.append(
                            " "
                            + " ".join(
                                self._flat(c, subs) for c in tr if local(c.tag) in ("td", "th")
                            )
                        )
                else:
                    self._anchor(child)
                    parts.append(" " + self._flat(child, subs) + " ")
            elif tag:
                parts.append(self._inline(child, keep=False))
            parts.append(child.tail or "")
        return "".join(parts)

    def _skipped(self, el: etree._Element) -> bool:
        """Notes, scripts, chrome and page breaks met inside other content (recorded)."""
        tag = local(el.tag)
        if el in self.notes.notes or tag in _SILENT:
            return True
        if tag in _SCRIPTS:
            self._remove(el, "script")
            return True
        if is_chrome(el) or el in self._outside:
            self._remove(el, "navigation")
            return True
        if el in self.running:
            self._remove(el, self.running[el])
            return True
        if is_pagebreak(el):
            self._page_mark(el, inside=True)
            return True
        return False

    def _inline_children(self, el: etree._Element) -> str:
        parts = [el.text or ""]
        for child in el:
            if local(child.tag):
                parts.append(self._inline(child, keep=False))
            parts.append(child.tail or "")
        return "".join(parts)

    def _inline(self, el: etree._Element, keep: bool, own_tail: bool = False) -> str:
        """The text of `el` (not its tail) with placeholders for note references and
        internal links; `keep`: line breaks kept (preformatted text)."""
        tag = local(el.tag)
        if not tag or self._skipped(el):
            return ""
        self._anchor(el)
        if tag == "br":
            return "\n"
        if tag == "img":
            src = el.get("src") or el.get("data-src") or ""
            if src:
                self._hits.append((src, el.get("alt") or el.get("title") or ""))
            return ""
        if tag == "svg":
            for img in el.iter("{*}image", "image"):
                src = img.get(f"{{{XLINK_NS}}}href") or img.get("href") or ""
                if src:
                    self._hits.append((src, ""))
            return ""
        if tag == "math":  # an equation, as Markdown math in LaTeX
            return mathml.markdown(el)
        if (tex := _page_tex(el)) is not None:  # MathJax's TeX (Sphinx): the same dialect
            return tex
        if tag == "a":
            ref = self.notes.refs.get(el)
            if ref is not None:
                return note_ref(ref)
            if el in self.notes.backlinks:
                return ""
        inner = [el.text or ""]
        for child in el:
            inner.append(self._inline(child, keep))
            inner.append(child.tail or "")
        text = "".join(inner)
        if not keep and tag in BLOCKS:
            text = f" {text} "
        if not keep and tag in _INLINE_CODE:  # its words, without a link's target
            self._inline_code.append(collapse(_LINK_TARGET.sub("", text)))
        if tag == "a" and el.get("href"):
            target = resolve(self.name, el.get("href") or "")
            if target is not None and text.strip():
                return f"{LINK_OPEN}{target}{LINK_TEXT}{text}{LINK_CLOSE}"
        return text

    # -- records -------------------------------------------------------------------------

    def _anchor(self, el: etree._Element) -> None:
        for attr in ("id", "name") if local(el.tag) == "a" else ("id",):
            value = el.get(attr)
            if value:
                self.anchors.append((len(self.blocks), f"{self.name}#{value}"))

    def _remove(self, el: etree._Element, kind: str) -> None:
        text = collapse("".join(el.itertext()))
        if kind == "script":
            text = text or f"<script src={el.get('src') or ''}>"
        if len(text) > REMOVED_CAP:
            text = text[:REMOVED_CAP] + "…"
        shown = text or " ".join(f"<img {src}>" for src in image_sources(el))
        self.removed.append(Removed(len(self.blocks), kind, shown or f"<{local(el.tag)}>"))

    def _page_mark(self, el: etree._Element, inside: bool) -> None:
        shown = el.get("title") or el.get("aria-label") or "".join(el.itertext())
        label = collapse(shown) or (el.get("id") or "")
        self.removed.append(Removed(len(self.blocks), "page_number", label or "page"))
        key = f"{self.name}#{el.get('id') or ''}"
        self.page_marks.append((len(self.blocks), label, key, inside))
        self._anchor(el)

    def _emit_images(self) -> None:
        hits, self._hits = self._hits, []
        for src, alt in hits:
            ref = self.images.ref(self.name, src)
            if ref is not None:
                self._add("image", md.image(ref.file, alt), image=ref)

    def _add(self, type: ElementType, text: str, **fields: Any) -> None:
        kept = {k: v for k, v in fields.items() if v is not None and v is not False}
        code = kept_code(self._inline_code)
        self._inline_code.clear()
        if code and type in PROSE:
            kept["code"] = code
        self.blocks.append(Block(type, text, kept))

    def _rtl(self, el: etree._Element, text: str) -> bool:
        bidi = False
        node: etree._Element | None = el
        while node is not None:
            d = (node.get("dir") or "").lower()
            if d in ("rtl", "ltr"):
                bidi = d == "rtl"
                break
            node = node.getparent()
        return is_rtl(text, bidi)

    def note_paragraphs(self, note: etree._Element) -> list[str]:
        """The paragraphs of a note, as footnote_def takes them (images left out)."""
        saved_hits, saved, anchors = self._hits, len(self.blocks), len(self.anchors)
        blocks = [c for c in note if local(c.tag) in BLOCKS and local(c.tag) not in ("svg",)]
        subs: list[tuple[bool, list[str]]] = []
        if blocks and not collapse(note.text or ""):
            paras = [collapse(self._flat(c, subs)) for c in blocks]
        else:
            paras = [collapse(self._flat(note, subs))]
        paras += [" ".join(sub) for _, sub in subs]
        self._hits = saved_hits
        del self.anchors[anchors:]  # an id inside a note leads to no block of the body
        assert len(self.blocks) == saved
        return [p for p in paras if p]


def _rows(table: etree._Element) -> list[etree._Element]:
    out: list[etree._Element] = []
    for child in table:
        tag = local(child.tag)
        if tag == "tr":
            out.append(child)
        elif tag in ("thead", "tbody", "tfoot"):
            out += [tr for tr in child if local(tr.tag) == "tr"]
    return out


def _int(value: str | None, default: int) -> int:
    try:
        return int((value or "").strip())
    except ValueError:
        return default


def _page_tex(el: etree._Element) -> str | None:
    """The Markdown math of an element of class `math` holding TeX for MathJax or KaTeX
    (Sphinx writes `\\(…\\)` in a span, `\\[…\\]` in a div); None for any other."""
    if "math" not in (el.get("class") or "").split() or len(el):
        return None
    return mathml.delimited_tex(el.text or "")
