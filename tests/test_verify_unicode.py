"""Verification compares like with like: element texts from the whole of Unicode go through
write -> verify for every element type without a finding on untampered output.

Compatibility characters (OHM SIGN, ligatures, fullwidth forms), private use, combining
marks, bidi controls, CJK, emoji and every kind of whitespace are drawn; lone surrogates
cannot be written as UTF-8, so the IR refuses them when an element is made.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from irgen import build_doc
from writefix import plan_for

from quire.shared import markdown
from quire.shared.ir import Element, ImageRef, dump_ir, make_element
from quire.shared.text import sha256_bytes
from quire.workers.verify.report import verify_output
from quire.workers.write import save_files, write_all

# Characters that parsers meet and normalisation treats specially, mixed into the draw.
SPECIAL = (
    "\u2126\u212b\u00c5\ufb01\uff21\u2460\u00bd\u2002\u00a0\u3000"  # compatibility forms
    "\ue000\uf8eb\U000f0000"  # private use
    "\u0301\u0308\u0327e\u0301A\u030a"  # combining marks, decomposed letters
    "\u200e\u200f\u202a\u202b\u202c\u202e\u2066\u2069\u061c"  # bidi controls
    "\u4e2d\u6587\u65e5\u672c\u8a9e\u3001\u3002\uac00\u0627\u0644\u0639"  # CJK, Hangul, Arabic
    "\U0001f600\U0001f468\u200d\U0001f469\ufe0f"  # emoji, ZWJ sequence, variation selector
    "\t\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029\u200b\ufeff"  # odd whitespace and breaks
)
CHARS = st.one_of(
    st.characters(exclude_categories=("Cs",)),  # anything a UTF-8 file can hold
    st.sampled_from(SPECIAL),
)
TEXT = st.text(CHARS, min_size=1, max_size=40)
TYPES = ("heading", "paragraph", "list", "table", "image", "code", "caption", "formula")


@st.composite
def elements(draw: st.DrawFn, page: int) -> tuple[Element, dict[str, bytes]]:
    kind = draw(st.sampled_from(TYPES))
    text = draw(TEXT)
    if kind == "heading":
        level = draw(st.integers(1, 6))
        return make_element("heading", markdown.heading(text, level), page, level=level), {}
    if kind == "list":
        items = draw(st.lists(TEXT, min_size=1, max_size=4))
        ordered = draw(st.booleans())
        return make_element(
            "list", markdown.bullet_list(items, ordered), page, items=items, ordered=ordered
        ), {}
    if kind == "table":
        width = draw(st.integers(1, 4))
        rows = draw(
            st.lists(st.lists(TEXT, min_size=width, max_size=width), min_size=1, max_size=4)
        )
        return make_element("table", markdown.table(rows), page, rows=rows), {}
    if kind == "image":
        data = text.encode("utf-8")
        ref = ImageRef(sha256=sha256_bytes(data), file=f"images/{sha256_bytes(data)}.png")
        return make_element("image", markdown.image(ref.file, text), page, image=ref), {
            ref.file: data
        }
    if kind == "code":
        return make_element("code", markdown.code(text), page), {}
    return make_element(kind, text, page), {}


@st.composite
def documents(draw: st.DrawFn) -> tuple[list[Element], dict[str, bytes]]:
    drawn = [draw(elements(page)) for page in range(1, draw(st.integers(1, 12)) + 1)]
    images: dict[str, bytes] = {}
    for _, imgs in drawn:
        images |= imgs
    return [e for e, _ in drawn], images


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(drawn=documents(), cuts=st.integers(1, 3))
def test_untampered_output_has_no_findings(
    tmp_path_factory: pytest.TempPathFactory,
    drawn: tuple[list[Element], dict[str, bytes]],
    cuts: int,
) -> None:
    els, images = drawn
    doc = build_doc(els, basis="words")
    n = len(doc.elements)
    bounds = sorted({round(i * n / (cuts + 1)) for i in range(1, cuts + 1)} - {0, n})
    edges = [0, *bounds, n]
    spans = [(edges[k] + 1, edges[k + 1], f"part {k + 1}") for k in range(len(edges) - 1)]
    plan = plan_for(doc, spans)
    files = write_all(doc, plan, formats={"markdown"}, source_pdf=None, images=images)
    files["ir.json"] = dump_ir(doc)
    files["plan.json"] = plan.model_dump_json(indent=1).encode()
    out = tmp_path_factory.mktemp("unicode")
    save_files(out, files)
    report = verify_output(out, render=False)
    assert report.findings == []


@pytest.mark.parametrize("text", ["a\ud800b", "\udfff", "x\ud83dy"])
def test_lone_surrogates_are_refused_when_an_element_is_made(text: str) -> None:
    with pytest.raises(ValueError, match="surrogate"):
        make_element("paragraph", text, 1)


def test_a_table_with_compatibility_characters_verifies(tmp_path: Path) -> None:
    """The 615-page manual's case: OHM SIGN and private-use glyphs in table cells."""
    rows = [["Sign", "Glyph"], ["\u03a0 80", "\u2126 87 \uf8eb"]]
    doc = build_doc([make_element("table", markdown.table(rows), 1, rows=rows)], basis="words")
    plan = plan_for(doc, [(1, 1, "Symbols")])
    files = write_all(doc, plan, formats={"markdown"}, source_pdf=None, images={})
    files["ir.json"] = dump_ir(doc)
    files["plan.json"] = plan.model_dump_json(indent=1).encode()
    save_files(tmp_path, files)
    assert verify_output(tmp_path, render=False).findings == []
