"""Word equations (OMML) as LaTeX in Markdown math: each structure, escaping, and a DOCX
whose equations reach the IR as `$…$` and `$$…$$` (not their runs' text run together)."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest
from lxml import etree

from quire.workers.parse.docx import parse_docx
from quire.workers.parse.omml import latex, markdown

M_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _math(body: str, para: bool = False) -> etree._Element:
    ns = f'xmlns:m="{M_NS}" xmlns:w="{W_NS}"'
    if para:
        return etree.fromstring(f"<m:oMathPara {ns}><m:oMath>{body}</m:oMath></m:oMathPara>")
    return etree.fromstring(f"<m:oMath {ns}>{body}</m:oMath>")


def r(text: str) -> str:
    return f"<m:r><m:t>{text}</m:t></m:r>"


def arg(tag: str, *parts: str) -> str:
    return f"<m:{tag}>{''.join(parts)}</m:{tag}>"


def pr(tag: str, **vals: str) -> str:
    return f"<m:{tag}>" + "".join(f'<m:{k} m:val="{v}"/>' for k, v in vals.items()) + f"</m:{tag}>"


CASES = [
    # the binomial theorem, as Word stores it
    (
        arg("sSup", arg("e", arg("d", arg("e", r("x+a")))), arg("sup", r("n")))
        + r("=")
        + arg(
            "nary",
            pr("naryPr", chr="∑"),
            arg("sub", r("k=0")),
            arg("sup", r("n")),
            arg(
                "e",
                arg(
                    "d",
                    arg(
                        "e",
                        arg("f", pr("fPr", type="noBar"), arg("num", r("n")), arg("den", r("k"))),
                    ),
                ),
            ),
        ),
        r"{\left(x+a\right)}^{n}=\sum_{k=0}^{n} \left(\genfrac{}{}{0pt}{}{n}{k}\right)",
    ),
    (arg("f", arg("num", r("a")), arg("den", r("b+c"))), r"\frac{a}{b+c}"),
    (arg("f", pr("fPr", type="lin"), arg("num", r("a")), arg("den", r("b+c"))), "a/{b+c}"),
    (arg("sSub", arg("e", r("x")), arg("sub", r("i"))), "x_{i}"),
    (arg("sSubSup", arg("e", r("x")), arg("sub", r("i")), arg("sup", r("2"))), "x_{i}^{2}"),
    (arg("sPre", arg("sub", r("1")), arg("sup", r("4")), arg("e", r("He"))), "{}_{1}^{4}{He}"),
    (arg("rad", arg("deg", r("3")), arg("e", r("x"))), r"\sqrt[3]{x}"),
    (arg("rad", pr("radPr", degHide="1"), arg("deg"), arg("e", r("2"))), r"\sqrt{2}"),
    # an integral is the default n-ary operator; hidden limits are left out
    (
        arg("nary", pr("naryPr", supHide="1"), arg("sub", r("S")), arg("sup"), arg("e", r("f"))),
        r"\int_{S} f",
    ),
    (
        arg(
            "d", pr("dPr", begChr="⟨", endChr="〉", sepChr="|"), arg("e", r("a")), arg("e", r("b"))
        ),
        r"\left\langle a | b\right\rangle",
    ),
    (arg("d", pr("dPr", begChr="{", endChr=""), arg("e", r("x"))), r"\left\{x\right."),
    (arg("func", arg("fName", r("sin")), arg("e", r("x"))), r"\sin x"),
    (arg("func", arg("fName", r("Res")), arg("e", r("f"))), r"\operatorname{Res} f"),
    (
        arg(
            "func",
            arg("fName", arg("limLow", arg("e", r("lim")), arg("lim", r("n→∞")))),
            arg("e", r("a")),
        ),
        r"\lim_{n→∞} a",
    ),
    (arg("acc", arg("e", r("x"))), r"\hat{x}"),
    (arg("acc", pr("accPr", chr="\u20d7"), arg("e", r("v"))), r"\vec{v}"),
    (arg("bar", pr("barPr", pos="top"), arg("e", r("z"))), r"\overline{z}"),
    (arg("groupChr", arg("e", r("a+b"))), r"\underbrace{a+b}"),
    (
        arg(
            "m",
            arg("mr", arg("e", r("1")), arg("e", r("0"))),
            arg("mr", arg("e", r("0")), arg("e", r("1"))),
        ),
        r"\begin{matrix}1 & 0 \\ 0 & 1\end{matrix}",
    ),
    (
        arg("eqArr", arg("e", r("x=1")), arg("e", r("y=2"))),
        r"\begin{gathered}x=1 \\ y=2\end{gathered}",
    ),
    (arg("borderBox", arg("e", r("E"))), r"\boxed{E}"),
    # LaTeX's own characters are escaped; Word's "normal text" is \text
    (r("{50%} #1_a"), r"\{50\%\} \#1\_a"),
    ("<m:r><m:rPr><m:nor/></m:rPr><m:t>if x</m:t></m:r>", r"\text{if x}"),
    # an element this converter does not know keeps its text
    (arg("phantSomething", r("q")), "q"),
]


@pytest.mark.parametrize(("body", "expected"), CASES)
def test_equation_structures_as_latex(body: str, expected: str) -> None:
    assert latex(_math(body)) == expected


def test_inline_and_display_equations() -> None:
    assert markdown(_math(r("x=1"))) == "$x=1$"
    assert markdown(_math(r("x=1"), para=True)) == "$$x=1$$"
    assert markdown(_math("")) == ""


def test_docx_equations_reach_the_ir_as_markdown_math(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_heading("Circles", level=1)
    inline = d.add_paragraph("The area of a circle is ")
    inline._p.append(_math(arg("sSup", arg("e", r("πr")), arg("sup", r("2")))))
    inline.add_run(", its radius squared times π.")
    display = d.add_paragraph()
    display._p.append(_math(arg("f", arg("num", r("a")), arg("den", r("b"))), para=True))
    path = tmp_path / "math.docx"
    d.save(str(path))
    texts = [e.text for e in parse_docx(path).document.elements]
    assert texts == [
        "# Circles",
        "The area of a circle is ${πr}^{2}$, its radius squared times π.",
        r"$$\frac{a}{b}$$",
    ]
