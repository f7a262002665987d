"""MathML equations of EPUB and HTML books as LaTeX in Markdown math: each structure, the
book's own TeX when it has one, and an EPUB whose equations reach the IR as `$…$` and
`$$…$$` (its tokens alone read "x2+y2=r2")."""

from __future__ import annotations

from pathlib import Path

import pytest
from epub_samples import chapter, epub_bytes
from lxml import etree

from quire.workers.parse import parse_document
from quire.workers.parse.epub import parse_epub_bytes
from quire.workers.parse.mathml import delimited_tex, latex, markdown

MML = "http://www.w3.org/1998/Math/MathML"


def _math(body: str, **attrs: str) -> etree._Element:
    more = "".join(f' {k}="{v}"' for k, v in attrs.items())
    return etree.fromstring(f'<math xmlns="{MML}"{more}>{body}</math>')


CASES = [
    ("<msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><msup><mi>y</mi><mn>2</mn></msup>", "x^{2}+y^{2}"),
    ("<mfrac><mi>a</mi><mrow><mi>b</mi><mo>+</mo><mi>c</mi></mrow></mfrac>", r"\frac{a}{b+c}"),
    ('<mfrac linethickness="0"><mi>n</mi><mi>k</mi></mfrac>', r"\genfrac{}{}{0pt}{}{n}{k}"),
    ("<msub><mi>x</mi><mi>i</mi></msub>", "x_{i}"),
    ("<msubsup><mi>x</mi><mi>i</mi><mn>2</mn></msubsup>", "x_{i}^{2}"),
    ("<msqrt><mn>2</mn></msqrt>", r"\sqrt{2}"),
    ("<mroot><mi>x</mi><mn>3</mn></mroot>", r"\sqrt[3]{x}"),
    (
        "<munderover><mo>∑</mo><mrow><mi>k</mi><mo>=</mo><mn>0</mn></mrow><mi>n</mi></munderover>"
        "<msub><mi>a</mi><mi>k</mi></msub>",
        r"\sum_{k=0}^{n}a_{k}",
    ),
    ("<munder><mi>lim</mi><mrow><mi>n</mi><mo>→</mo><mi>∞</mi></mrow></munder>", r"\lim_{n→∞}"),
    ("<mi>sin</mi><mi>x</mi>", r"\sin x"),
    ('<mover accent="true"><mi>x</mi><mo>^</mo></mover>', r"\hat{x}"),
    ("<mover><mi>AB</mi><mo>→</mo></mover>", r"\overrightarrow{AB}"),
    ("<munder><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow><mo>⏟</mo></munder>", r"\underbrace{a+b}"),
    ('<mfenced open="[" close="]"><mi>a</mi><mi>b</mi></mfenced>', r"\left[a,b\right]"),
    ('<mfenced open="{" close=""><mi>x</mi></mfenced>', r"\left\{x\right."),
    (
        "<mtable><mtr><mtd><mn>1</mn></mtd><mtd><mn>0</mn></mtd></mtr>"
        "<mtr><mtd><mn>0</mn></mtd><mtd><mn>1</mn></mtd></mtr></mtable>",
        r"\begin{matrix}1 & 0 \\ 0 & 1\end{matrix}",
    ),
    ("<mtext>if </mtext><mi>x</mi><mo>&gt;</mo><mn>0</mn>", r"\text{if }x>0"),
    ("<mo>{</mo><mn>50</mn><mo>%</mo><mo>}</mo>", r"\{50\%\}"),
    ("<mstyle><mi>q</mi></mstyle>", "q"),  # unknown to the writer: its children's LaTeX
]


@pytest.mark.parametrize(("body", "expected"), CASES)
def test_presentation_mathml_as_latex(body: str, expected: str) -> None:
    assert latex(_math(body)) == expected


def test_the_books_own_tex_wins() -> None:
    body = (
        "<semantics><mrow><msup><mi>e</mi><mi>x</mi></msup></mrow>"
        '<annotation encoding="application/x-tex">e^{x}</annotation></semantics>'
    )
    assert latex(_math(body)) == "e^{x}"
    assert latex(_math("<mi>y</mi>", alttext="y = mx + b")) == "y = mx + b"
    assert markdown(_math("<mi>y</mi>", display="block")) == "$$y$$"
    assert markdown(_math("<mi>y</mi>")) == "$y$"
    assert markdown(_math("")) == ""


def test_epub_equations_reach_the_ir_as_markdown_math() -> None:
    body = (
        "<h1>Circles</h1>"
        f'<p>A circle is <math xmlns="{MML}"><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo>'
        "<msup><mi>y</mi><mn>2</mn></msup><mo>=</mo><msup><mi>r</mi><mn>2</mn></msup></math>"
        ", centred at the origin.</p>"
        f'<math xmlns="{MML}" display="block"><mfrac><mi>a</mi><mi>b</mi></mfrac></math>'
        "<p>The end of the chapter.</p>"
    )
    data = epub_bytes([("ch1.xhtml", chapter("Circles", body))], nav=[(1, "Circles", "ch1.xhtml")])
    texts = [e.text for e in parse_epub_bytes(data, "math.epub").document.elements]
    assert "A circle is $x^{2}+y^{2}=r^{2}$, centred at the origin." in texts
    assert r"$$\frac{a}{b}$$" in texts, texts


def test_mathjax_tex_of_a_sphinx_page_is_markdown_math(tmp_path: Path) -> None:
    """Sphinx writes TeX for MathJax: `\\(…\\)` in a span, `\\[…\\]` in a div; read as
    text, Markdown shows "(E=mc^2)" (its backslashes escape the parentheses)."""
    page = tmp_path / "energy.html"
    page.write_text(
        "<html><body><h1>Energy</h1>"
        '<p>Mass is energy: <span class="math notranslate nohighlight">\\(E=mc^2\\)</span>, '
        "as Einstein wrote in his paper of that year.</p>"
        '<div class="math notranslate nohighlight">\\[\\int_0^1 x\\,dx = \\frac{1}{2}\\]</div>'
        '<p>A <span class="math">plain</span> span of class math is text.</p>'
        "</body></html>",
        encoding="utf-8",
    )
    texts = [e.text for e in parse_document(page).document.elements]
    assert texts == [
        "# Energy",
        "Mass is energy: $E=mc^2$, as Einstein wrote in his paper of that year.",
        r"$$\int_0^1 x\,dx = \frac{1}{2}$$",
        "A plain span of class math is text.",
    ]
    assert delimited_tex(r"\(a\) or \(b\)") is None  # two equations are no one
