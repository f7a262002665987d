"""Verification compares like with like: element texts from the whole of Unicode go through
write -> verify for every element type without a finding on untampered output, with
footnotes (written after their session's text) and links between elements (written as
links to session files) among them.

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
from quire.shared.ir import Document, Element, ImageRef, dump_ir, element_id, make_element
from quire.shared.links import footnote_def, footnote_ref, ir_link, note_label
from quire.shared.text import count_words, normalize, sha256_bytes, text_hash
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
    return draw(with_notes([e for e, _ in drawn])), images


MARKS = st.sampled_from(["1", "2", "*", "†", "a", "۳", "12"])
_PROSE = ("paragraph", "caption", "heading")


@st.composite
def with_notes(draw: st.DrawFn, els: list[Element]) -> list[Element]:
    """Some prose elements get a footnote (`[^label]` in their text, the note right after
    them, as parsers place it); ids are "el-" + position, as `build_doc` assigns them."""
    out: list[Element] = []
    used: set[str] = set()
    for e in els:
        out.append(e)
        if e.type in _PROSE and draw(st.integers(0, 3)) == 0:
            mark = draw(MARKS)
            label = note_label(mark, used)
            out[-1] = _retext(e, e.text + footnote_ref(label))
            body = draw(st.lists(TEXT, min_size=1, max_size=2))
            ref = element_id(len(out))
            note = make_element(
                "footnote", footnote_def(label, body), e.page_last, ref_id=ref, mark=mark
            )
            out.append(note)
    return out


@st.composite
def with_links(draw: st.DrawFn, els: list[Element]) -> list[Element]:
    """Some paragraphs and captions link to any element (their ids are final)."""
    out = list(els)
    for k, e in enumerate(els):
        if e.type in ("paragraph", "caption") and draw(st.booleans()):
            target = els[draw(st.integers(0, len(els) - 1))].id
            out[k] = _retext(e, f"{e.text} {ir_link(draw(TEXT), target)}")
    return out


def _retext(e: Element, text: str) -> Element:
    text = normalize(text)
    update = {"text": text, "word_count": count_words(text), "content_hash": text_hash(text)}
    return e.model_copy(update=update)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(drawn=documents(), cuts=st.integers(1, 3), data=st.data())
def test_untampered_output_has_no_findings(
    tmp_path_factory: pytest.TempPathFactory,
    drawn: tuple[list[Element], dict[str, bytes]],
    cuts: int,
    data: st.DataObject,
) -> None:
    els, images = drawn
    doc = build_doc(els, basis="words")
    doc = doc.model_copy(update={"elements": data.draw(with_links(doc.elements))})
    n = len(doc.elements)
    bounds = sorted(
        {_past_notes(doc, round(i * n / (cuts + 1))) for i in range(1, cuts + 1)} - {0, n}
    )
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


def _past_notes(doc: Document, cut: int) -> int:
    """A cut before element `cut` moved past any footnote there (as the planner's
    candidates do: a footnote stays with its reference)."""
    while cut < len(doc.elements) and doc.elements[cut].type == "footnote":
        cut += 1
    return cut


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
