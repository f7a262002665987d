"""Word's equations (Office Math Markup Language, ECMA-376 Part 1 §22.1) as LaTeX.

A DOCX equation is a tree: fractions, scripts, radicals, n-ary operators, delimiters,
matrices, accents. Its runs' text alone reads "x+an=k=0nnkxkan-k" for the binomial theorem,
so the structure is written as LaTeX, as Markdown's math dialect ($…$, $$…$$, which GitHub,
Obsidian, pandoc, MathJax and KaTeX read) expects; symbols stay the Unicode characters Word
stored (α, ≤, ∞: KaTeX and MathJax read them), except where LaTeX needs a command (n-ary
operators, accents, braces). An element this module does not know keeps its children's
LaTeX, so no text is ever lost. (The one library for this, dwml 0.3, fails on five of the
eleven equations of TeX Gyre's Word test document.)
"""

from __future__ import annotations

from lxml import etree

from quire.workers.parse.latex_math import (
    ACCENTS,
    ARROWS,
    FUNCTIONS,
    NARY,
    delimiter,
    escape,
    group,
    operator,
)

M_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
OMATH, OMATH_PARA = f"{{{M_NS}}}oMath", f"{{{M_NS}}}oMathPara"


def _tag(name: str) -> str:
    return f"{{{M_NS}}}{name}"


def _val(el: etree._Element | None, prop: str) -> str | None:
    """The m:val of property `prop` of `el`'s property element (m:fPr, m:naryPr…), None
    when it is absent (the property's default applies)."""
    if el is None:
        return None
    found = el.find(_tag(prop))
    return None if found is None else found.get(_tag("val"), "")


def _on(props: etree._Element | None, name: str) -> bool:
    """An on/off property (m:degHide, m:subHide): on when present, unless "0" or "off"."""
    return _val(props, name) not in (None, "0", "off", "false")


def _props(el: etree._Element) -> etree._Element | None:
    return next((c for c in el if isinstance(c.tag, str) and c.tag.endswith("Pr")), None)


class _Writer:
    def __call__(self, el: etree._Element) -> str:
        tag = etree.QName(el).localname if isinstance(el.tag, str) else ""
        method = getattr(self, f"_{tag}", None)
        if el.tag.startswith(f"{{{M_NS}}}") and method is not None:
            return str(method(el))
        if el.tag == f"{{{W_NS}}}r":  # ordinary text inside an equation
            text = "".join(t.text or "" for t in el.iter(f"{{{W_NS}}}t"))
            return rf"\text{{{escape(text)}}}" if text.strip() else text
        return self.children(el)

    def children(self, el: etree._Element | None) -> str:
        if el is None:
            return ""
        return "".join(self(c) for c in el if isinstance(c.tag, str) and not c.tag.endswith("Pr"))

    def arg(self, el: etree._Element, tag: str) -> str:
        return self.children(el.find(_tag(tag))).strip()

    # -- runs ------------------------------------------------------------------------------

    def _r(self, el: etree._Element) -> str:
        text = "".join(t.text or "" for t in el.iter(_tag("t")))
        props = el.find(_tag("rPr"))
        if props is not None and props.find(_tag("nor")) is not None and text.strip():
            return rf"\text{{{escape(text)}}}"  # "normal text" inside an equation
        return escape(text)

    # -- structures ------------------------------------------------------------------------

    def _f(self, el: etree._Element) -> str:
        num, den = self.arg(el, "num"), self.arg(el, "den")
        kind = _val(_props(el), "type")
        if kind == "noBar":
            return rf"\genfrac{{}}{{}}{{0pt}}{{}}{{{num}}}{{{den}}}"
        if kind in ("lin", "skw"):
            return f"{group(num)}/{group(den)}"
        return rf"\frac{{{num}}}{{{den}}}"

    def _sSup(self, el: etree._Element) -> str:
        return f"{group(self.arg(el, 'e'))}^{{{self.arg(el, 'sup')}}}"

    def _sSub(self, el: etree._Element) -> str:
        return f"{group(self.arg(el, 'e'))}_{{{self.arg(el, 'sub')}}}"

    def _sSubSup(self, el: etree._Element) -> str:
        base, sub, sup = self.arg(el, "e"), self.arg(el, "sub"), self.arg(el, "sup")
        return f"{group(base)}_{{{sub}}}^{{{sup}}}"

    def _sPre(self, el: etree._Element) -> str:
        sub, sup, base = self.arg(el, "sub"), self.arg(el, "sup"), self.arg(el, "e")
        return f"{{}}_{{{sub}}}^{{{sup}}}{group(base)}"

    def _rad(self, el: etree._Element) -> str:
        degree, body = self.arg(el, "deg"), self.arg(el, "e")
        if degree and not _on(_props(el), "degHide"):
            return rf"\sqrt[{degree}]{{{body}}}"
        return rf"\sqrt{{{body}}}"

    def _nary(self, el: etree._Element) -> str:
        props = _props(el)
        ch = _val(props, "chr")
        out = NARY.get(ch or "∫", ch or "∫")
        sub, sup = self.arg(el, "sub"), self.arg(el, "sup")
        if sub and not _on(props, "subHide"):
            out += f"_{{{sub}}}"
        if sup and not _on(props, "supHide"):
            out += f"^{{{sup}}}"
        return f"{out} {self.arg(el, 'e')}".rstrip()

    def _d(self, el: etree._Element) -> str:
        props = _props(el)
        begin, end, sep = (_val(props, p) for p in ("begChr", "endChr", "sepChr"))
        parts = [self.children(e).strip() for e in el.findall(_tag("e"))]
        middle = f" {delimiter('|' if sep is None else sep)} ".join(parts)
        left = delimiter("(" if begin is None else begin)
        right = delimiter(")" if end is None else end)
        return rf"\left{left}{middle}\right{right}"

    def _func(self, el: etree._Element) -> str:
        return f"{operator(self.arg(el, 'fName'))} {self.arg(el, 'e')}"

    def _limLow(self, el: etree._Element) -> str:
        base, limit = self.arg(el, "e"), self.arg(el, "lim")
        if base in FUNCTIONS:  # lim, max, sup… take their limits below
            return rf"\{base}_{{{limit}}}"
        return rf"\underset{{{limit}}}{{{base}}}"

    def _limUpp(self, el: etree._Element) -> str:
        return rf"\overset{{{self.arg(el, 'lim')}}}{{{self.arg(el, 'e')}}}"

    def _acc(self, el: etree._Element) -> str:
        ch = _val(_props(el), "chr")
        body = self.arg(el, "e")
        command = ACCENTS.get("\u0302" if ch is None else ch)
        if command is None:
            return rf"\overset{{{escape(ch or '')}}}{{{body}}}"
        return f"{command}{{{body}}}"

    def _bar(self, el: etree._Element) -> str:
        top = _val(_props(el), "pos") == "top"
        return rf"\{'overline' if top else 'underline'}{{{self.arg(el, 'e')}}}"

    def _groupChr(self, el: etree._Element) -> str:
        props = _props(el)
        ch = _val(props, "chr") or "\u23df"
        top = _val(props, "pos") == "top"
        body = self.arg(el, "e")
        if ch == "\u23df":
            return rf"\underbrace{{{body}}}"
        if ch == "\u23de":
            return rf"\overbrace{{{body}}}"
        if ch in ARROWS:
            return rf"\{'over' if top else 'under'}{ARROWS[ch]}{{{body}}}"
        return rf"\{'overset' if top else 'underset'}{{{escape(ch)}}}{{{body}}}"

    def _borderBox(self, el: etree._Element) -> str:
        return rf"\boxed{{{self.arg(el, 'e')}}}"

    def _m(self, el: etree._Element) -> str:
        rows = [
            " & ".join(self.children(e).strip() for e in mr.findall(_tag("e")))
            for mr in el.findall(_tag("mr"))
        ]
        return r"\begin{matrix}" + r" \\ ".join(rows) + r"\end{matrix}"

    def _eqArr(self, el: etree._Element) -> str:
        rows = [self.children(e).strip() for e in el.findall(_tag("e"))]
        return r"\begin{gathered}" + r" \\ ".join(rows) + r"\end{gathered}"


_WRITE = _Writer()


def latex(math: etree._Element) -> str:
    """The LaTeX of one equation (m:oMath), or of an equation paragraph's equations
    (m:oMathPara), one line each."""
    if math.tag == OMATH_PARA:
        return r" \\ ".join(latex(m) for m in math.iter(OMATH))
    return " ".join(_WRITE.children(math).split())


def markdown(math: etree._Element) -> str:
    """An equation as Markdown math: `$…$` in a line of text, `$$…$$` for an equation
    paragraph (Word's display equations); "" for one without content."""
    body = latex(math)
    if not body:
        return ""
    return f"$${body}$$" if math.tag == OMATH_PARA else f"${body}$"
