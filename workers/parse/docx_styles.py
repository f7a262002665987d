"""Style and numbering lookups for the DOCX parser, resolved once per style id and cached.

python-docx's `paragraph.style` walks the styles part on every call, which is slow on long
documents, and returns None for LibreOffice paragraphs whose "Normal" is not marked default.
These tables read styles.xml and numbering.xml once and answer by style id instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from lxml import etree

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def w(tag: str) -> str:
    return f"{{{W_NS}}}{tag}"


def wval(el: etree._Element | None, attr: str = "val") -> str | None:
    return None if el is None else el.get(w(attr))


def on_off(el: etree._Element | None) -> bool | None:
    """A WordprocessingML on/off property: absent -> None, no val or "1"/"true"/"on" -> True."""
    if el is None:
        return None
    val = el.get(w("val"))
    return val is None or val.lower() not in ("0", "false", "off")


_HEADING_NAME = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
CODE_STYLE_NAMES = frozenset(
    {
        "source code",
        "preformatted text",
        "html preformatted",
        "plain text",
        "macro text",
        "code",
        "code block",
    }
)
CAPTION_STYLE_NAMES = frozenset({"caption", "image caption", "table caption"})
_MONO_FONT = re.compile(
    r"mono(?!\s?type)|courier|consolas|menlo|monaco|lucida console|lucida sans typewriter"
    r"|typewriter|source code|fira code|inconsolata|cousine|andale|fixedsys|cascadia|\bhack\b",
    re.IGNORECASE,
)


def is_mono_font(name: str | None) -> bool:
    return bool(name) and bool(_MONO_FONT.search(name or ""))


def _fonts(rpr: etree._Element | None) -> str | None:
    """The Latin font a run property block names, if it names one."""
    if rpr is None:
        return None
    rf = rpr.find(w("rFonts"))
    if rf is None:
        return None
    return (
        rf.get(w("ascii"))
        or rf.get(w("hAnsi"))
        or ("theme" if rf.get(w("asciiTheme")) or rf.get(w("hAnsiTheme")) else None)
    )


@dataclass
class _Style:
    style_id: str
    name: str  # lower-case
    type: str
    based_on: str | None
    outline_lvl: int | None
    num_id: str | None
    ilvl: int | None
    bidi: bool | None
    font: str | None
    page_break: bool | None  # w:pageBreakBefore


@dataclass(frozen=True)
class ParaStyle:
    """What the parser needs to know about a paragraph style, inheritance resolved."""

    name: str  # the style's own name, lower-case ("" when unknown)
    heading_level: int | None  # from the name (Heading N / Title) or the outline level chain
    heading_origin: str | None  # "style" (by name) or "outline" (w:outlineLvl)
    code: bool
    caption: bool
    bidi: bool
    num_id: str | None
    ilvl: int | None
    font: str | None
    page_break_before: bool = False


@dataclass
class StyleSheet:
    styles: dict[str, _Style] = field(default_factory=dict)
    default_para: str | None = None
    default_char: str | None = None
    default_font: str | None = None
    default_bidi: bool = False
    _para_cache: dict[str | None, ParaStyle] = field(default_factory=dict)
    _font_cache: dict[tuple[str | None, str | None], str | None] = field(default_factory=dict)

    @classmethod
    def from_element(cls, root: etree._Element | None) -> StyleSheet:
        sheet = cls()
        if root is None:
            return sheet
        defaults = root.find(w("docDefaults"))
        if defaults is not None:
            sheet.default_font = _fonts(defaults.find(f"{w('rPrDefault')}/{w('rPr')}"))
            ppr = defaults.find(f"{w('pPrDefault')}/{w('pPr')}")
            sheet.default_bidi = bool(ppr is not None and on_off(ppr.find(w("bidi"))))
        for el in root.findall(w("style")):
            sid = el.get(w("styleId"))
            if not sid:
                continue
            ppr = el.find(w("pPr"))
            num_pr = ppr.find(w("numPr")) if ppr is not None else None
            lvl = wval(ppr.find(w("outlineLvl"))) if ppr is not None else None
            ilvl = wval(num_pr.find(w("ilvl"))) if num_pr is not None else None
            style = _Style(
                style_id=sid,
                name=(wval(el.find(w("name"))) or "").strip().lower(),
                type=el.get(w("type")) or "paragraph",
                based_on=wval(el.find(w("basedOn"))),
                outline_lvl=_int(lvl),
                num_id=wval(num_pr.find(w("numId"))) if num_pr is not None else None,
                ilvl=_int(ilvl),
                bidi=on_off(ppr.find(w("bidi"))) if ppr is not None else None,
                font=_fonts(el.find(w("rPr"))),
                page_break=on_off(ppr.find(w("pageBreakBefore"))) if ppr is not None else None,
            )
            sheet.styles[sid] = style
            if el.get(w("default")) in ("1", "true", "on"):
                if style.type == "paragraph":
                    sheet.default_para = sid
                elif style.type == "character":
                    sheet.default_char = sid
        if sheet.default_para is None and "Normal" in sheet.styles:
            # LibreOffice does not mark "Normal" as the default; Word treats it as such.
            sheet.default_para = "Normal"
        return sheet

    def _chain(self, style_id: str | None) -> list[_Style]:
        chain: list[_Style] = []
        seen: set[str] = set()
        while style_id and style_id in self.styles and style_id not in seen:
            seen.add(style_id)
            style = self.styles[style_id]
            chain.append(style)
            style_id = style.based_on
        return chain

    def para(self, style_id: str | None) -> ParaStyle:
        """The resolved paragraph style (None or an unknown id -> the default style)."""
        cached = self._para_cache.get(style_id)
        if cached is not None:
            return cached
        sid = style_id if style_id in self.styles else self.default_para
        chain = self._chain(sid)
        own = chain[0] if chain else None
        level: int | None = None
        origin: str | None = "style"
        if own is not None:
            m = _HEADING_NAME.match(own.name) or _HEADING_NAME.match(own.style_id)
            if m:
                level = min(int(m.group(1)), 6)
            elif own.name == "title" or own.style_id == "Title":
                level = 1
        if level is None:
            lvl = next((s.outline_lvl for s in chain if s.outline_lvl is not None), None)
            if lvl is not None and 0 <= lvl <= 8:
                level, origin = min(lvl + 1, 6), "outline"
        num_style = next((s for s in chain if s.num_id is not None), None)
        bidi = next((s.bidi for s in chain if s.bidi is not None), self.default_bidi)
        resolved = ParaStyle(
            name=own.name if own else "",
            heading_level=level,
            heading_origin=origin if level is not None else None,
            code=any(s.name in CODE_STYLE_NAMES for s in chain),
            caption=any(s.name in CAPTION_STYLE_NAMES for s in chain),
            bidi=bidi,
            num_id=num_style.num_id if num_style else None,
            ilvl=num_style.ilvl if num_style else None,
            font=next((s.font for s in chain if s.font), self.default_font),
            page_break_before=next(
                (s.page_break for s in chain if s.page_break is not None), False
            ),
        )
        self._para_cache[style_id] = resolved
        return resolved

    def run_font(self, char_style: str | None, para_style: str | None) -> str | None:
        """The font a run gets from its character style, else its paragraph style."""
        key = (char_style, para_style)
        if key not in self._font_cache:
            font = next((s.font for s in self._chain(char_style) if s.font), None)
            self._font_cache[key] = font or self.para(para_style).font
        return self._font_cache[key]


def _int(val: str | None) -> int | None:
    try:
        return int(val) if val is not None else None
    except ValueError:
        return None


@dataclass(frozen=True)
class ListLevel:
    ordered: bool
    start: int
    marker: bool  # False for "none" formats and blank bullets (used for indented blocks)


@dataclass
class Numbering:
    """numbering.xml: numId -> abstractNum, per-level format and start."""

    levels: dict[str, dict[int, ListLevel]] = field(default_factory=dict)

    @classmethod
    def from_element(cls, root: etree._Element | None, sheet: StyleSheet) -> Numbering:
        numbering = cls()
        if root is None:
            return numbering
        abstract: dict[str, etree._Element] = {
            a.get(w("abstractNumId")) or "": a for a in root.findall(w("abstractNum"))
        }
        nums: dict[str, etree._Element] = {
            n.get(w("numId")) or "": n for n in root.findall(w("num"))
        }

        @cache
        def abstract_levels(abs_id: str, depth: int = 0) -> dict[int, ListLevel]:
            el = abstract.get(abs_id)
            if el is None:
                return {}
            link = wval(el.find(w("numStyleLink")))
            if link and depth < 3:
                # The list definition lives in a numbering style: follow it to its numId.
                num_id = sheet.para(link).num_id if link in sheet.styles else None
                target = nums.get(num_id or "")
                if target is not None:
                    return abstract_levels(wval(target.find(w("abstractNumId"))) or "", depth + 1)
            return {_int(lvl.get(w("ilvl"))) or 0: _level(lvl) for lvl in el.findall(w("lvl"))}

        for num_id, num in nums.items():
            levels = dict(abstract_levels(wval(num.find(w("abstractNumId"))) or ""))
            for override in num.findall(w("lvlOverride")):
                ilvl = _int(override.get(w("ilvl"))) or 0
                lvl = override.find(w("lvl"))
                if lvl is not None:
                    levels[ilvl] = _level(lvl)
                start = _int(wval(override.find(w("startOverride"))))
                if start is not None:
                    base = levels.get(ilvl, ListLevel(ordered=True, start=1, marker=True))
                    levels[ilvl] = ListLevel(base.ordered, start, base.marker)
            numbering.levels[num_id] = levels
        return numbering

    def level(self, num_id: str, ilvl: int) -> ListLevel | None:
        levels = self.levels.get(num_id)
        if levels is None:
            return None
        if ilvl in levels:
            return levels[ilvl]
        # A level the definition does not describe: borrow the nearest one above it.
        lower = [i for i in levels if i < ilvl]
        return levels[max(lower)] if lower else ListLevel(ordered=False, start=1, marker=True)


def _level(lvl: etree._Element) -> ListLevel:
    fmt = wval(lvl.find(w("numFmt"))) or "decimal"
    text = wval(lvl.find(w("lvlText")))
    start = _int(wval(lvl.find(w("start"))))
    if fmt == "none":
        return ListLevel(ordered=False, start=start or 1, marker=False)
    if fmt == "bullet":
        return ListLevel(ordered=False, start=start or 1, marker=bool(text and text.strip()))
    return ListLevel(ordered=True, start=start if start is not None else 1, marker=True)
