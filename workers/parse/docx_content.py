"""Text, images and fonts of one DOCX paragraph or table, read straight from the XML.

python-docx's `paragraph.text` only sees runs that are direct children of the paragraph or
of a hyperlink; runs inside content controls, smart tags, simple fields, tracked insertions
and math are missed. This walker sees them all, skips deleted text and field instructions,
and notes every picture (DrawingML or VML) it passes, in order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from lxml import etree

from quire.workers.parse import omml
from quire.workers.parse.docx_styles import StyleSheet, is_mono_font, w, wval

R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
A_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"
WP_NS = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
V_NS = "urn:schemas-microsoft-com:vml"
O_NS = "urn:schemas-microsoft-com:office:office"
MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"

P, R, T, TBL, TR, TC = (w(t) for t in ("p", "r", "t", "tbl", "tr", "tc"))
SDT, SDT_CONTENT = w("sdt"), w("sdtContent")
HYPERLINK, BOOKMARK = w("hyperlink"), w("bookmarkStart")
TXBX = w("txbxContent")
ALTERNATE = f"{{{MC_NS}}}AlternateContent"
CHOICE = f"{{{MC_NS}}}Choice"
BLIP = f"{{{A_NS}}}blip"
DOC_PR = f"{{{WP_NS}}}docPr"
EXTENT = f"{{{WP_NS}}}extent"
IMAGEDATA = f"{{{V_NS}}}imagedata"
SHAPE = f"{{{V_NS}}}shape"
MATH = frozenset({omml.OMATH, omml.OMATH_PARA})
# Inline wrappers whose children are read as if they were the paragraph's own.
_CONTAINERS = frozenset(
    w(t) for t in ("hyperlink", "ins", "smartTag", "customXml", "fldSimple", "moveTo", "dir", "bdo")
)
_RUN_TEXT = {w("tab"): "\t", w("ptab"): "\t", w("br"): "\n", w("cr"): "\n", w("noBreakHyphen"): "-"}
_PICTURES = frozenset({w("drawing"), w("pict"), w("object")})


@dataclass(frozen=True)
class ImageHit:
    rel_id: str
    alt: str
    height_emu: int | None = None  # the height it is drawn at (DrawingML's wp:extent)


# Placeholders in read text (Unicode non-characters, which no document holds), settled
# by docx_notes: a note reference, and an internal hyperlink around its text.
NOTE_REF_OPEN, NOTE_REF_CLOSE = "\U0002fffe", "\U0002ffff"
LINK_OPEN, LINK_TEXT, LINK_CLOSE = "\U0003fffe", "\U0003ffff", "\U0004fffe"
_NOTE_REFS = {w("footnoteReference"): "f", w("endnoteReference"): "e"}


@dataclass
class Content:
    text: str = ""
    images: list[ImageHit] = field(default_factory=list)
    mono: bool = False  # every run with visible text is set in a monospace font
    bookmarks: list[str] = field(default_factory=list)  # names of bookmarks starting here
    code: list[str] = field(default_factory=list)  # runs of prose in a monospace font


@dataclass
class _State:
    style_id: str | None
    parts: list[str] = field(default_factory=list)
    images: list[ImageHit] = field(default_factory=list)
    mono_runs: int = 0
    other_runs: int = 0
    bookmarks: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)  # consecutive monospace runs joined
    in_code: bool = False


class ContentReader:
    def __init__(self, sheet: StyleSheet) -> None:
        self.sheet = sheet

    def paragraph(self, p: etree._Element, style_id: str | None) -> Content:
        st = _State(style_id)
        self._walk(p, st)
        mono = st.mono_runs > 0 and st.other_runs == 0
        code = [] if mono else [c for c in (c.strip() for c in st.code) if c]
        return Content("".join(st.parts), st.images, mono, st.bookmarks, code)

    def table(self, tbl: etree._Element) -> tuple[list[list[str]], list[ImageHit]]:
        """Rows of cell texts, as laid out: a merged cell's text appears once, in its first
        grid column/row; the columns it spans are empty strings, so no text is duplicated."""
        rows: list[list[str]] = []
        images: list[ImageHit] = []
        for tr in _children(tbl, TR):
            row: list[str] = []
            tr_pr = tr.find(w("trPr"))
            before = _int(wval(tr_pr.find(w("gridBefore")))) if tr_pr is not None else 0
            row += [""] * before
            for tc in _children(tr, TC):
                text, cell_images = self._cell(tc)
                images += cell_images
                tc_pr = tc.find(w("tcPr"))
                span = _int(wval(tc_pr.find(w("gridSpan")))) if tc_pr is not None else 1
                row.append(text)
                row += [""] * (max(span, 1) - 1)
            rows.append(row)
        return rows, images

    def _cell(self, tc: etree._Element) -> tuple[str, list[ImageHit]]:
        texts: list[str] = []
        images: list[ImageHit] = []
        for child in flatten(tc):
            if child.tag == P:
                c = self.paragraph(child, pstyle(child))
                texts.append(c.text)
                images += c.images
            elif child.tag == TBL:
                rows, nested = self.table(child)  # a nested table is flattened into the cell
                texts += [" ".join(cell for cell in r if cell.strip()) for r in rows]
                images += nested
        return " ".join(" ".join(t.split()) for t in texts if t.strip()), images

    def _walk(self, el: etree._Element, st: _State) -> None:
        for child in el:
            tag = child.tag
            if tag == R:
                self._run(child, child, st)
            elif tag == HYPERLINK and child.get(w("anchor")) and not child.get(f"{{{R_NS}}}id"):
                st.parts.append(LINK_OPEN + child.get(w("anchor"), "") + LINK_TEXT)
                self._walk(child, st)  # a link to a bookmark of this document
                st.parts.append(LINK_CLOSE)
            elif tag in _CONTAINERS:
                self._walk(child, st)
            elif tag == BOOKMARK:
                st.bookmarks.append(child.get(w("name"), ""))
            elif tag == SDT:
                content = child.find(SDT_CONTENT)
                if content is not None:
                    self._walk(content, st)
            elif tag == ALTERNATE:
                choice = child.find(CHOICE)  # the Fallback repeats the same content
                if choice is not None:
                    self._walk(choice, st)
            elif tag in MATH:  # an equation, as Markdown math in LaTeX
                st.parts.append(omml.markdown(child))
            # Everything else (pPr, bookmarks, w:del, w:moveFrom, comments) carries no text.

    def _run(self, run: etree._Element, container: etree._Element, st: _State) -> None:
        visible = False
        shown = []
        for child in container:
            tag = child.tag
            if tag == T:
                text = child.text or ""
                st.parts.append(text)
                shown.append(text)
                visible = visible or bool(text.strip())
            elif tag in _RUN_TEXT:
                st.parts.append(_RUN_TEXT[tag])
            elif tag in _PICTURES:
                self._picture(child, st)
            elif tag in _NOTE_REFS:
                st.parts.append(
                    f"{NOTE_REF_OPEN}{_NOTE_REFS[tag]}{child.get(w('id'))}{NOTE_REF_CLOSE}"
                )
            elif tag == ALTERNATE:
                choice = child.find(CHOICE)
                if choice is not None:
                    self._run(run, choice, st)
            # w:instrText (field codes), w:delText, w:fldChar: no text.
        if visible:
            mono = is_mono_font(self._run_font(run, st.style_id))
            if mono:
                st.mono_runs += 1
                if st.in_code:
                    st.code[-1] += "".join(shown)
                else:
                    st.code.append("".join(shown))
            else:
                st.other_runs += 1
            st.in_code = mono

    def _run_font(self, run: etree._Element, style_id: str | None) -> str | None:
        rpr = run.find(w("rPr"))
        if rpr is not None:
            fonts = rpr.find(w("rFonts"))
            if fonts is not None:
                own = fonts.get(w("ascii")) or fonts.get(w("hAnsi"))
                if own:
                    return own
            return self.sheet.run_font(wval(rpr.find(w("rStyle"))), style_id)
        return self.sheet.run_font(None, style_id)

    def _picture(self, pic: etree._Element, st: _State) -> None:
        """Images of a w:drawing / w:pict / w:object, then the text of any text boxes in it."""
        alt = ""
        doc_pr = next(pic.iter(DOC_PR), None)
        if doc_pr is not None:
            alt = doc_pr.get("descr") or doc_pr.get("title") or ""
        extent = next(pic.iter(EXTENT), None)
        cy = extent.get("cy", "") if extent is not None else ""
        height = int(cy) if cy.isdigit() else None
        boxes: list[etree._Element] = []
        for el in _outside_boxes(pic, boxes):
            if el.tag == BLIP:
                rel_id = el.get(f"{{{R_NS}}}embed")
                if rel_id:
                    st.images.append(ImageHit(rel_id, alt, height))
            elif el.tag == IMAGEDATA:
                rel_id = el.get(f"{{{R_NS}}}id")
                if rel_id:
                    shape = el.getparent()
                    vml_alt = shape.get("alt") if shape is not None else None
                    title = vml_alt or el.get(f"{{{O_NS}}}title") or ""
                    drawn = _vml_height(shape.get("style", "")) if shape is not None else None
                    st.images.append(ImageHit(rel_id, title, drawn))
        for box in boxes:
            for p in box.iter(P):
                if p.getparent() is not None and _in_box(p, box):
                    inner = self.paragraph(p, pstyle(p))
                    if inner.text.strip():
                        st.parts.append("\n" + inner.text)
                    st.images += inner.images


_VML_HEIGHT = re.compile(r"(?:^|;)\s*height\s*:\s*(\d+(?:\.\d*)?)\s*(pt|in|cm|mm|px)?", re.I)
_EMU_PER = {"pt": 12700, "in": 914400, "cm": 360000, "mm": 36000, "px": 9525}


def _vml_height(style: str) -> int | None:
    """The height in EMU a VML shape's style draws it at ("width:415pt;height:233.25pt")."""
    m = _VML_HEIGHT.search(style)
    return None if m is None else round(float(m[1]) * _EMU_PER[(m[2] or "px").lower()])


def _outside_boxes(el: etree._Element, boxes: list[etree._Element]) -> Iterator[etree._Element]:
    """Descendants of `el` not inside a text box; the text boxes found are collected."""
    for child in el:
        if not isinstance(child.tag, str):
            continue
        if child.tag == TXBX:
            boxes.append(child)
            continue
        yield child
        yield from _outside_boxes(child, boxes)


def _in_box(p: etree._Element, box: etree._Element) -> bool:
    """True when `p` belongs to `box` itself, not to a text box nested inside it."""
    parent = p.getparent()
    while parent is not None and parent is not box:
        if parent.tag == TXBX:
            return False
        parent = parent.getparent()
    return parent is box


def _children(el: etree._Element, tag: str) -> list[etree._Element]:
    return [c for c in flatten(el) if c.tag == tag]


def flatten(el: etree._Element) -> list[etree._Element]:
    """Children, looking through content controls and custom XML wrappers."""
    out: list[etree._Element] = []
    for child in el:
        if child.tag == SDT:
            content = child.find(SDT_CONTENT)
            if content is not None:
                out += flatten(content)
        elif child.tag == w("customXml"):
            out += flatten(child)
        elif isinstance(child.tag, str):
            out.append(child)
    return out


def pstyle(p: etree._Element) -> str | None:
    ppr = p.find(w("pPr"))
    return wval(ppr.find(w("pStyle"))) if ppr is not None else None


def _int(val: str | None) -> int:
    try:
        return int(val) if val is not None else 0
    except ValueError:
        return 0
