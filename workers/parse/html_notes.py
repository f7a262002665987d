"""Footnotes and endnotes of an HTML book, found before its chapters are read.

A note is the block a reference link leads to, when either side says so:
- EPUB 3 semantics: the link is `epub:type="noteref"` (or `role="doc-noteref"`, or of
  class footnote-ref/noteref), or the target is `epub:type="footnote|endnote|rearnote|
  note"` (`role="doc-footnote|doc-endnote"`), as pandoc, Sigil and most EPUB 3 tools
  write them;
- the back-link pattern of converters without semantics (LibreOffice, Word HTML,
  DocBook, Calibre): the target, after the reference in reading order, holds a link back
  to the reference (to the link's own id or name, or to its enclosing sup/span).
The target is the note itself when it is a block (aside, li, p, div...), else the block
holding it (`<p><a id="ftn1" href="#ftnref1">[1]</a> text</p>`). A block that holds a
heading or its own reference is no note. A note nobody refers to stays in the text where it
stands, so nothing is lost. The reference's text ("1", "[1]", "*") is the note's mark.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from lxml import etree

from quire.workers.parse.docx_content import NOTE_REF_CLOSE, NOTE_REF_OPEN
from quire.workers.parse.html_refs import EPUB_NS, local, resolve

_NOTE_TYPES = frozenset({"footnote", "endnote", "rearnote", "note", "doc-footnote", "doc-endnote"})
_REF_CLASSES = frozenset({"footnote-ref", "noteref", "footnote-reference", "footnoteref"})
_INLINE = frozenset(
    {"a", "span", "sup", "sub", "em", "strong", "b", "i", "small", "code", "cite", "u", "abbr"}
)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
MAX_NOTE_CHARS = 20_000  # an unmarked "note" longer than this is a section, not a note
_MARK_JUNK = re.compile(r"^[\[(\s]+|[\])\s.:]+$")


@dataclass
class NoteMap:
    notes: dict[etree._Element, str] = field(default_factory=dict)  # note -> "f<n>"
    refs: dict[etree._Element, str] = field(default_factory=dict)  # reference link -> key
    backlinks: set[etree._Element] = field(default_factory=set)  # links back, dropped
    marks: dict[str, str] = field(default_factory=dict)  # key -> mark at its reference
    elements: dict[str, etree._Element] = field(default_factory=dict)  # key -> note


def note_ref(key: str) -> str:
    """The placeholder docx_notes.settle turns into `[^label]`."""
    return f"{NOTE_REF_OPEN}{key}{NOTE_REF_CLOSE}"


def _types(el: etree._Element) -> set[str]:
    raw = el.get(f"{{{EPUB_NS}}}type") or el.get("epub:type") or ""
    return set(raw.split()) | set((el.get("role") or "").split())


def _is_ref(a: etree._Element) -> bool:
    return bool(
        {"noteref", "doc-noteref"} & _types(a) or _REF_CLASSES & set((a.get("class") or "").split())
    )


def _note_block(target: etree._Element) -> etree._Element | None:
    node: etree._Element | None = target
    while node is not None and local(node.tag) in _INLINE:
        node = node.getparent()
    if node is None or local(node.tag) in ("body", "html", "section", "article", "main"):
        return None if node is None or not (_types(node) & _NOTE_TYPES) else node
    return node


def find_notes(chapters: Sequence[tuple[str, etree._Element]]) -> NoteMap:
    ids: dict[str, etree._Element] = {}
    links: list[tuple[str, etree._Element, str]] = []  # (chapter, a, key it leads to)
    order: dict[etree._Element, int] = {}  # reading order
    for name, root in chapters:
        for el in root.iter():
            if not isinstance(el.tag, str):
                continue
            order[el] = len(order)
            if el.get("id"):
                ids.setdefault(f"{name}#{el.get('id')}", el)
            if local(el.tag) == "a" and el.get("name"):  # HTML 4 anchors (LibreOffice, Word)
                ids.setdefault(f"{name}#{el.get('name')}", el)
            if local(el.tag) == "a" and el.get("href"):
                key = resolve(name, el.get("href") or "")
                if key is not None and "#" in key:
                    links.append((name, el, key))
    names = {root: name for name, root in chapters}
    out = NoteMap()
    back: dict[etree._Element, set[str]] = {}  # note -> keys its links lead to
    for name, a, key in links:
        target = ids.get(key)
        if target is None:
            continue
        note = _note_block(target)
        if note is None or _inside(a, note):
            continue
        parts = [note, *_definitions(note)]
        if any(local(x.tag) in _HEADINGS for part in parts for x in part.iter()):
            continue
        explicit = _is_ref(a) or bool((_types(target) | _types(note)) & _NOTE_TYPES)
        if note not in back:
            back[note] = {
                k
                for x in note.iter()
                if local(x.tag) == "a"
                and (k := resolve(names[note.getroottree().getroot()], x.get("href") or ""))
                is not None
            }
        ref_keys = {f"{name}#{i}" for i in _own_ids(a)}
        backlinked = bool(back[note] & ref_keys)
        if not (explicit or backlinked):
            continue
        if not explicit and order[note] < order[a]:  # the back-link itself, read backwards
            continue
        if not explicit and sum(len("".join(x.itertext())) for x in parts) > MAX_NOTE_CHARS:
            continue
        if note not in out.notes:
            for dd in parts[1:]:  # the note's text joins its label, and leaves the list
                note.append(dd)
            n = len(out.notes) + 1
            out.notes[note] = f"f{n}"
            out.elements[f"f{n}"] = note
        ref = out.notes[note]
        out.refs[a] = ref
        mark = _MARK_JUNK.sub("", " ".join("".join(a.itertext()).split()))
        if mark and len(mark) <= 8:
            out.marks.setdefault(ref, mark)
        for x in note.iter():
            if local(x.tag) == "a" and (
                resolve(names[note.getroottree().getroot()], x.get("href") or "") in ref_keys
            ):
                out.backlinks.add(x)
    for a in list(out.refs):  # a reference inside a note is plain text there
        if any(x in out.notes for x in a.iterancestors()):
            del out.refs[a]
    return out


def _definitions(note: etree._Element) -> list[etree._Element]:
    """The `dd` elements after a `dt` note, up to the next term: docutils (Sphinx) writes a
    footnote as a term holding its label and back-link and a definition holding its text,
    `<dl class="footnote"><dt id="id3">…</dt><dd><p>text</p></dd>`."""
    if local(note.tag) != "dt":
        return []
    out = []
    for sibling in note.itersiblings():
        if not isinstance(sibling.tag, str):
            continue
        if local(sibling.tag) != "dd":
            break
        out.append(sibling)
    return out


def _own_ids(a: etree._Element) -> list[str]:
    """The ids a back-link may name: the link's own, and those of the inline elements
    around it (`<sup id="fnref1"><a href="#fn1">1</a></sup>`)."""
    out = [a.get("id") or "", a.get("name") or ""]
    node = a.getparent()
    while node is not None and local(node.tag) in _INLINE:
        out.append(node.get("id") or "")
        node = node.getparent()
    return [i for i in out if i]


def _inside(el: etree._Element, ancestor: etree._Element) -> bool:
    node: etree._Element | None = el
    while node is not None:
        if node is ancestor:
            return True
        node = node.getparent()
    return False
