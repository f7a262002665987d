"""Footnotes, endnotes and internal hyperlinks of a DOCX, settled once the body is read.

The content reader leaves placeholders where a run holds a `w:footnoteReference` or
`w:endnoteReference`, and around the text of a `w:hyperlink` whose `w:anchor` names a
bookmark of the document; the builder records where every bookmark starts (the first
block read after it). Here:
- a note reference becomes `[^label]` and the note (read from `word/footnotes.xml` or
  `word/endnotes.xml`, its paragraphs in order) a footnote element right after the block
  that holds the reference. Word numbers footnotes 1, 2, 3 ... and endnotes i, ii, iii ...
  in the order of their references; so do we. A reference to a note the part lacks is
  dropped;
- an internal hyperlink becomes a link to the element its bookmark starts, when its text
  sits in prose or a table (see link_apply.LINKABLE); otherwise it stays plain text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from docx.document import Document as DocxDocument
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from lxml import etree

from quire.shared import markdown
from quire.shared.ir import ParserNote, element_id
from quire.shared.links import footnote_def, footnote_ref, ir_link, note_label
from quire.workers.parse.docx_content import (
    LINK_CLOSE,
    LINK_OPEN,
    LINK_TEXT,
    NOTE_REF_CLOSE,
    NOTE_REF_OPEN,
    ContentReader,
    P,
    flatten,
    pstyle,
)
from quire.workers.parse.docx_styles import w
from quire.workers.parse.link_apply import LINKABLE, LinkStats

_NOTE_REF = re.compile(f"{NOTE_REF_OPEN}([fe])(-?\\d+){NOTE_REF_CLOSE}")
_LINK = re.compile(
    f"{LINK_OPEN}([^{LINK_TEXT}]*){LINK_TEXT}([^{LINK_OPEN}{LINK_CLOSE}]*){LINK_CLOSE}"
)
_LEFT = re.compile(f"[{LINK_OPEN}{LINK_TEXT}{LINK_CLOSE}]")
_SKIPPED_NOTES = {"separator", "continuationSeparator", "continuationNotice"}


def read_notes(
    document: DocxDocument, reader: ContentReader
) -> tuple[dict[str, list[str]], list[ParserNote]]:
    """ "f<id>" / "e<id>" -> the paragraphs of each footnote and endnote, and a warning for
    each notes part that is not XML (damaged packages: the body is still read, and the
    references to those notes are dropped, as for any note the part lacks)."""
    out: dict[str, list[str]] = {}
    warnings: list[ParserNote] = []
    for kind, rel, tag in (("f", RT.FOOTNOTES, "footnote"), ("e", RT.ENDNOTES, "endnote")):
        try:
            part = document.part.part_related_by(rel)
        except (KeyError, AttributeError):
            continue
        try:
            root = etree.fromstring(part.blob)
        except etree.XMLSyntaxError as exc:
            warnings.append(
                ParserNote(
                    kind="warning",
                    message=f"{tag}s part {part.partname} unreadable "
                    f"({exc}): its {tag}s are left out",
                )
            )
            continue
        for note in root.iter(w(tag)):
            if note.get(w("type")) in _SKIPPED_NOTES:
                continue
            paras = [reader.paragraph(p, pstyle(p)).text for p in flatten(note) if p.tag == P]
            paras = [" ".join(t.split()) for t in paras if t.strip()]
            if paras:
                out[f"{kind}{note.get(w('id'))}"] = paras
    return out, warnings


def _roman(n: int) -> str:
    out = ""
    for value, letters in (
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ):
        while n >= value:
            out, n = out + letters, n - value
    return out


class _Labels:
    """Footnote labels in the order of the references: 1, 2 ... and i, ii ... for
    endnotes; `new` collects the notes first referenced in the block being read."""

    def __init__(self, notes: dict[str, list[str]], marks: dict[str, str] | None = None) -> None:
        self.notes = notes
        self.marks = marks or {}  # the mark the book prints, where it has one
        self.used: set[str] = set()
        self.counters = {"f": 0, "e": 0}
        self.labels: dict[str, str] = {}
        self.shown: dict[str, str] = {}
        self.new: list[str] = []

    def ref(self, m: re.Match[str]) -> str:
        key = m.group(1) + m.group(2)
        if key not in self.notes:
            # a reference to a note the part does not have, or an empty one: the mark the
            # book prints stays as text (Word's numbered references print none)
            return self.marks.get(key, "")
        if key not in self.labels:
            self.counters[m.group(1)] += 1
            n = self.counters[m.group(1)]
            mark = self.marks.get(key) or (str(n) if m.group(1) == "f" else _roman(n))
            self.labels[key] = note_label(mark, self.used)
            self.shown[key] = mark if key in self.marks else self.labels[key].split("-")[0]
            self.new.append(key)
        return footnote_ref(self.labels[key])


@dataclass
class Settled:
    blocks: list[Any]
    notes: list[ParserNote] = field(default_factory=list)


Make = Callable[[str, str, dict[str, Any]], Any]  # (type, text, fields) -> a block


def settle(
    blocks: list[Any],
    notes: dict[str, list[str]],
    bookmarks: dict[str, Any],
    make: Make,
    marks: dict[str, str] | None = None,
) -> Settled:
    """Blocks with note references and internal links settled (see the module doc);
    `bookmarks` maps a bookmark's name to the block it starts; `marks`: the marks the
    book prints for its notes (HTML), instead of Word's numbering."""
    out: list[Any] = []
    labels = _Labels(notes, marks)
    for block in blocks:
        out.append(block)
        labels.new.clear()
        _rewrite(block, lambda t: _NOTE_REF.sub(labels.ref, t))
        for key in labels.new:
            label = labels.labels[key]
            text = footnote_def(label, notes[key])
            out.append(make("footnote", text, {"mark": labels.shown[key], "ref_block": block}))
    position = {id(b): k for k, b in enumerate(out)}
    stats = LinkStats()
    for k, block in enumerate(out):
        for why, n in _counted(block, bookmarks, position, k).items():
            if why:
                stats.miss(why, n)
            else:
                stats.hit(n)
        _rewrite(block, partial(_links, block=block, k=k, bookmarks=bookmarks, position=position))
    footnotes = sum(1 for b in out if b.type == "footnote")
    messages = [f"{footnotes} footnotes tied to their references"] if footnotes else []
    if stats.found:
        messages.append(stats.describe("internal links"))
    return Settled(out, [ParserNote(kind="info", message=m) for m in messages])


def _why_not(
    m: re.Match[str], block: Any, k: int, bookmarks: dict[str, Any], position: dict[int, int]
) -> str:
    """Why a link cannot be written ("" when it can)."""
    target = bookmarks.get(m.group(1))
    if target is None or id(target) not in position:
        return "bookmark not found"
    if position[id(target)] == k or not m.group(2).strip():
        return "leads to its own element"
    if block.type not in LINKABLE:
        return f"in a {block.type}"
    return ""


def _links(
    text: str, block: Any, k: int, bookmarks: dict[str, Any], position: dict[int, int]
) -> str:
    if LINK_OPEN not in text:
        return text

    def one(m: re.Match[str]) -> str:
        if _why_not(m, block, k, bookmarks, position):
            return m.group(2)
        target = bookmarks[m.group(1)]
        return ir_link(m.group(2), element_id(position[id(target)] + 1))

    return _LEFT.sub("", _LINK.sub(one, text))


def _counted(
    block: Any, bookmarks: dict[str, Any], position: dict[int, int], k: int
) -> dict[str, int]:
    """The block's links by why they cannot be written ("": written), each counted once
    (a list's or table's text repeats its items or cells)."""
    fields = block.fields
    texts = fields.get("items") or [c for row in fields.get("rows") or [] for c in row]
    out: dict[str, int] = {}
    for t in texts or [block.text]:
        for m in _LINK.finditer(t):
            why = _why_not(m, block, k, bookmarks, position)
            out[why] = out.get(why, 0) + 1
    return out


def _rewrite(block: Any, change: Callable[[str], str]) -> None:
    """Apply `change` to every text a block keeps: its text, list items, table cells."""
    block.text = change(block.text)
    fields = block.fields
    if fields.get("items"):
        fields["items"] = [change(t) for t in fields["items"]]
    if fields.get("rows"):
        fields["rows"] = [[change(c) for c in row] for row in fields["rows"]]
        # the table drawn again from its cells: a reference that leaves no text left two
        # spaces in the Markdown row, which then differed from the row the cells make
        block.text = markdown.table(fields["rows"])
