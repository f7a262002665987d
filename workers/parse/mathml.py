r"""MathML equations of an EPUB or HTML book as LaTeX, the Markdown math dialect Quire
writes (`$…$`, `$$…$$` for display="block"), like Word's equations (omml); and the TeX
that MathJax and KaTeX pages (Sphinx's `math` spans and divs) hold between `\(…\)` or
`\[…\]`, in the same dialect.

The book's own TeX wins when it has one (an `annotation` of encoding application/x-tex, as
pandoc and LaTeXML write, or the `alttext` attribute); else the presentation markup is
written as LaTeX: its tokens (mi, mn, mo, mtext) read alone run "x2+y2" together. An
element this module does not know keeps its children's LaTeX, so no text is lost.
"""

from __future__ import annotations

import re

from lxml import etree

from quire.workers.parse.latex_math import (
    ACCENTS,
    ARROWS,
    FUNCTIONS,
    NARY,
    delimiter,
    escape,
    group,
)

_TEX = ("application/x-tex", "tex", "latex", "application/x-latex")
# Characters MathML writes above or below a base, as LaTeX's accent commands (the
# combining forms are in ACCENTS).
_OVER = {"^": r"\hat", "ˆ": r"\hat", "~": r"\tilde", "˜": r"\tilde", "¯": r"\overline"}
_OVER |= {"‾": r"\overline", "˙": r"\dot", "¨": r"\ddot", "ˇ": r"\check"}
_OVER |= {"⏞": r"\overbrace", "⌢": r"\overparen"}
_UNDER = {"_": r"\underline", "¯": r"\underline", "‾": r"\underline", "⏟": r"\underbrace"}


def _local(el: etree._Element) -> str:
    return etree.QName(el).localname if isinstance(el.tag, str) else ""


def _kids(el: etree._Element) -> list[etree._Element]:
    return [c for c in el if isinstance(c.tag, str)]


def _text(el: etree._Element) -> str:
    return " ".join("".join(el.itertext()).split())


def _mark(el: etree._Element) -> str:
    """The operator set above or below the base (munder, mover): "^", "¯", "→"; "" for
    anything else (a limit, an expression)."""
    kids = _kids(el)
    return _text(kids[1]) if len(kids) > 1 and _local(kids[1]) == "mo" else ""


class _Writer:
    def __call__(self, el: etree._Element) -> str:
        method = getattr(self, f"_{_local(el)}", None)
        return str(method(el)) if method is not None else self.row(el)

    def row(self, el: etree._Element) -> str:
        return "".join(self(c) for c in _kids(el))

    def args(self, el: etree._Element) -> list[str]:
        return [self(c).strip() for c in _kids(el)] + ["", "", ""]  # missing ones empty

    # -- tokens ----------------------------------------------------------------------------

    def _mi(self, el: etree._Element) -> str:
        text = _text(el)
        if text in FUNCTIONS:
            return f"\\{text} "
        return escape(text)

    def _mn(self, el: etree._Element) -> str:
        return escape(_text(el))

    def _mo(self, el: etree._Element) -> str:
        text = _text(el)
        return NARY.get(text, escape(text))

    def _mtext(self, el: etree._Element) -> str:
        text = re.sub(r"\s+", " ", "".join(el.itertext()))  # its spaces are its own
        return rf"\text{{{escape(text)}}}" if text.strip() else " "

    def _ms(self, el: etree._Element) -> str:
        return rf"\text{{“{escape(_text(el))}”}}"

    def _mspace(self, el: etree._Element) -> str:
        return " "

    # -- layout ----------------------------------------------------------------------------

    def _mfrac(self, el: etree._Element) -> str:
        num, den = self.args(el)[:2]
        if el.get("linethickness", "").strip() in ("0", "0pt", "0px", "0em"):
            return rf"\genfrac{{}}{{}}{{0pt}}{{}}{{{num}}}{{{den}}}"
        if el.get("bevelled") == "true":
            return f"{group(num)}/{group(den)}"
        return rf"\frac{{{num}}}{{{den}}}"

    def _msqrt(self, el: etree._Element) -> str:
        return rf"\sqrt{{{self.row(el).strip()}}}"

    def _mroot(self, el: etree._Element) -> str:
        body, degree = self.args(el)[:2]
        return rf"\sqrt[{degree}]{{{body}}}"

    def _msup(self, el: etree._Element) -> str:
        base, sup = self.args(el)[:2]
        return f"{group(base)}^{{{sup}}}"

    def _msub(self, el: etree._Element) -> str:
        base, sub = self.args(el)[:2]
        return f"{group(base)}_{{{sub}}}"

    def _msubsup(self, el: etree._Element) -> str:
        base, sub, sup = self.args(el)[:3]
        return f"{group(base)}_{{{sub}}}^{{{sup}}}"

    def _munder(self, el: etree._Element) -> str:
        base, under = self.args(el)[:2]
        mark = _mark(el)
        if mark in _UNDER:
            return f"{_UNDER[mark]}{{{base}}}"
        if _is_operator(base):
            return f"{base}_{{{under}}}"
        return rf"\underset{{{under}}}{{{base}}}"

    def _mover(self, el: etree._Element) -> str:
        base, over = self.args(el)[:2]
        mark = _mark(el)
        command = _OVER.get(mark) or ACCENTS.get(mark)
        if command is not None:
            return f"{command}{{{base}}}"
        if mark in ARROWS:
            return rf"\over{ARROWS[mark]}{{{base}}}"
        if _is_operator(base):
            return f"{base}^{{{over}}}"
        return rf"\overset{{{over}}}{{{base}}}"

    def _munderover(self, el: etree._Element) -> str:
        base, under, over = self.args(el)[:3]
        if _is_operator(base):
            return f"{base}_{{{under}}}^{{{over}}}"
        return rf"\underset{{{under}}}{{\overset{{{over}}}{{{base}}}}}"

    def _mfenced(self, el: etree._Element) -> str:
        parts = [self(c).strip() for c in _kids(el)]
        seps = (el.get("separators") or ",").replace(" ", "") or ""
        middle = ""
        for i, part in enumerate(parts):
            if i:
                middle += seps[min(i - 1, len(seps) - 1)] if seps else ""
            middle += part
        left, right = el.get("open", "("), el.get("close", ")")
        return rf"\left{delimiter(left)}{middle}\right{delimiter(right)}"

    def _menclose(self, el: etree._Element) -> str:
        return rf"\boxed{{{self.row(el).strip()}}}"

    def _mphantom(self, el: etree._Element) -> str:
        return ""

    def _mtable(self, el: etree._Element) -> str:
        rows = [
            " & ".join(self.row(td).strip() for td in _kids(tr) if _local(td) == "mtd")
            for tr in _kids(el)
            if _local(tr) in ("mtr", "mlabeledtr")
        ]
        return r"\begin{matrix}" + r" \\ ".join(rows) + r"\end{matrix}"

    def _semantics(self, el: etree._Element) -> str:
        kids = [c for c in _kids(el) if _local(c) not in ("annotation", "annotation-xml")]
        return self(kids[0]) if kids else ""

    def _annotation(self, el: etree._Element) -> str:
        return ""

    def _none(self, el: etree._Element) -> str:  # an empty place in mmultiscripts
        return ""


def _is_operator(base: str) -> bool:
    """An n-ary operator or a function taking limits below and above (\\sum, \\lim)."""
    name = base.strip()
    return name in NARY.values() or (name.lstrip("\\") in FUNCTIONS and name.startswith("\\"))


_WRITE = _Writer()


def own_tex(math: etree._Element) -> str | None:
    """The TeX the book stored with the equation, if any."""
    for el in math.iter("{*}annotation", "annotation"):
        if (el.get("encoding") or "").strip().lower() in _TEX and (el.text or "").strip():
            return " ".join((el.text or "").split())
    alt = (math.get("alttext") or "").strip()
    return " ".join(alt.split()) or None


def latex(math: etree._Element) -> str:
    """The equation's LaTeX: the book's own TeX, else its presentation markup written."""
    tex = own_tex(math)
    if tex is not None:
        return tex.strip("$").strip()
    return " ".join(_WRITE.row(math).split())


def markdown(math: etree._Element) -> str:
    """`$…$`, or `$$…$$` for a display equation; "" for one without content."""
    body = latex(math)
    if not body:
        return ""
    block = math.get("display") == "block" or math.get("mode") == "display"
    return f"$${body}$$" if block else f"${body}$"


_DELIMITED = re.compile(r"\\\((.+)\\\)|\\\[(.+)\\\]|\$\$(.+)\$\$", re.DOTALL)


def delimited_tex(text: str) -> str | None:
    """The Markdown math of TeX a page writes for MathJax or KaTeX: `\\(…\\)` as `$…$`,
    `\\[…\\]` and `$$…$$` as `$$…$$`; None for any other text."""
    found = _DELIMITED.fullmatch(text.strip())
    if found is None:
        return None
    inline, display, dollars = found.groups()
    body = " ".join((inline or display or dollars).split())
    if not body or "\\(" in body or "\\)" in body:  # "\\(a\\) or \\(b\\)": two equations
        return None
    return f"${body}$" if inline is not None else f"$${body}$$"
