"""Textual cross-references ("see Table 2.1") become links to what they name."""

from __future__ import annotations

from quire.shared.ir import Element
from quire.workers.parse.xrefs import link_references


def _el(n: int, type_: str, text: str, **kw: object) -> Element:
    return Element(id=f"el-{n:06d}", type=type_, text=text, page_first=1, page_last=1, **kw)


def test_an_appendix_number_is_linked_whole() -> None:
    """mugsthesis: "Table A.1 shows" was written "[Table A](…).1 shows", the caption itself
    "[Table A](…).1: Test table", because the number stopped at its letter."""
    elements = [
        _el(1, "heading", "# A Appendix", level=1),
        _el(2, "paragraph", "Table A.1 shows an example; Figure A.1 another, as in Section A."),
        _el(3, "caption", "Table A.1: Test table."),
        _el(4, "caption", "Figure A.1: Test figure."),
    ]
    out, _ = link_references(elements, None)
    assert out[1].text == (
        "[Table A.1](#el-000003) shows an example; [Figure A.1](#el-000004) another, "
        "as in [Section A](#el-000001)."
    )
    assert [e.text for e in out[2:]] == ["Table A.1: Test table.", "Figure A.1: Test figure."]
