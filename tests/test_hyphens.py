"""Line-end hyphens: undone where they only break a word, kept in real compounds, recorded
in the IR so the source's text can be restored, and verification still proves the text."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pymupdf
import pytest
from sweep_samples import FOP_ROWS, build_fop_table, build_hyphenated
from writefix import plan_every

from quire.shared.ir import (
    Document,
    Element,
    dump_ir,
    joined_hyphens_problem,
    make_element,
    source_text,
)
from quire.workers.parse import parse_document
from quire.workers.parse.link_apply import Link, LinkStats, apply_links
from quire.workers.parse.pdf_hyphens import JOIN, Vocabulary, join_cell_breaks
from quire.workers.parse.pdf_merge import settle_joins
from quire.workers.verify import verify_output
from quire.workers.write import save_files, write_all


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_hyphenated(tmp_path_factory.mktemp("hy") / "hyphens.pdf")


@pytest.fixture(scope="module")
def doc(sample: Path) -> Document:
    return parse_document(sample).document


def _body(doc: Document) -> str:
    return "\n".join(e.text for e in doc.elements)


def test_a_broken_word_is_joined_where_the_document_writes_it_whole(doc: Document) -> None:
    body = _body(doc)
    assert "Counting the number of runs" in body
    assert "the next argument settles" in body  # across the page break
    assert "num-ber" not in body and "argu-ment" not in body


def test_a_real_compound_keeps_its_hyphen(doc: Document) -> None:
    body = _body(doc)
    assert "every sub-line of a table" in body  # "sub-line" is written so elsewhere
    assert "its own texmf-dist entry" in body
    # neither "wellknown" nor "well-known" elsewhere, but "well" and "known" are words
    assert "a well-known problem" in body


def test_headings_and_list_items_are_joined_too(doc: Document) -> None:
    (heading,) = [e for e in doc.elements if e.type == "heading"]
    assert heading.text == "# The Problem of Runs"
    item = next(e for e in doc.elements if "per line is enough" in e.text)
    assert "a command per line" in item.text
    if item.items is not None:
        assert all("\ufdd0" not in i and "com-mand" not in i for i in item.items)


def test_the_ir_restores_the_source_form(doc: Document, sample: Path) -> None:
    """Every word PyMuPDF reads from the page is in the elements' source forms (plus the
    removed page numbers): nothing was lost by joining, and the IR says where it joined."""
    joined = [e for e in doc.elements if e.joined_hyphens]
    assert sum(len(e.joined_hyphens or []) for e in joined) == 4  # Prob num argu com
    assert all(joined_hyphens_problem(e) is None for e in doc.elements)
    restored = "\n".join([source_text(e) for e in doc.elements] + [r.text for r in doc.removed])
    assert "num-ber" in restored and "argu-ment" in restored and "Prob-lem" in restored
    with pymupdf.open(sample) as pdf:
        ref = Counter(re.findall(r"\w+", "".join(p.get_text() for p in pdf)))
    got = Counter(re.findall(r"\w+", restored))
    assert ref - got == Counter()


def test_the_ir_round_trips_with_its_joins(doc: Document) -> None:
    from quire.shared.ir import load_ir

    assert load_ir(dump_ir(doc)) == doc


def _write(doc: Document, out: Path) -> Path:
    plan = plan_every(doc, 1)
    files = write_all(doc, plan, formats={"markdown"}, source_pdf=None, images={})
    files["ir.json"] = dump_ir(doc)
    files["plan.json"] = plan.model_dump_json(indent=1).encode()
    save_files(out, files)
    return out


def test_verification_passes_and_catches_a_restored_hyphen(doc: Document, tmp_path: Path) -> None:
    out = _write(doc, tmp_path / "out")
    assert verify_output(out).passed
    chunk = next(p for p in sorted(out.glob("*.md")) if "number" in p.read_text())
    chunk.write_text(chunk.read_text().replace("the number of runs", "the num-ber of runs", 1))
    kinds = {f.kind for f in verify_output(out).findings}
    assert "altered" in kinds


def test_verification_catches_a_tampered_join_record(doc: Document, tmp_path: Path) -> None:
    out = _write(doc, tmp_path / "out")
    ir = json.loads((out / "ir.json").read_text())
    el = next(e for e in ir["elements"] if e.get("joined_hyphens"))
    el["joined_hyphens"] = [el["text"].index(" ")]  # a join between two words: impossible
    (out / "ir.json").write_text(json.dumps(ir))
    report = verify_output(out)
    assert not report.passed
    hit = [f for f in report.findings if f.element_id == el["id"]]
    assert hit and hit[0].kind == "altered" and "cannot be restored" in hit[0].message


@pytest.mark.parametrize(
    ("lines", "before", "after", "joined"),
    [
        (["the number grows"], "num-", "ber", True),  # the whole word elsewhere
        (["a sub-line here"], "sub-", "line", False),  # the compound elsewhere
        (["sub-line", "subline", "subline"], "sub-", "line", True),  # the commoner form
        (["well and known"], "well-", "known", False),  # parts are words: a compound
        (["nothing here"], "argu-", "ment", True),  # nothing known: a broken word
        (["Neben und so und"], "Haupt-", "und", False),  # suspended: "Haupt- und Neben"
        (["the number"], "num-", "Ber", False),  # a capital goes on: no break
        (["x86 64"], "x86-", "64", False),  # digits: no break
    ],
)
def test_vocabulary_decides_each_break(
    lines: list[str], before: str, after: str, joined: bool
) -> None:
    words = Vocabulary.from_lines([lines])
    assert words.breaks_word(f"some text with {before}", after) is joined


def test_break_fragments_never_count_as_words() -> None:
    words = Vocabulary.from_lines([["the num-", "ber of runs"]])
    assert words.counts["num"] == 0 and words.counts["ber"] == 0
    assert words.counts["runs"] == 1


def test_a_join_mark_in_the_text_layer_is_no_join() -> None:
    """The mark the parser uses for a hyphen it took out is a Unicode noncharacter; one
    that comes with the page's own text is dropped, never recorded as a join."""
    from quire.workers.parse.pdf_merge import merge_pdf_ranges
    from quire.workers.parse.pdf_open import PdfMeta
    from quire.workers.parse.pdf_types import PdfBlock, PdfPage, PdfRangeResult

    lines = ["Odd text\ufdd0layer words here and the num-", "ber of them."]
    block = PdfBlock(kind="text", bbox=(72, 100, 400, 130), lines=lines, size=11)
    page = PdfPage(page=1, width=595, height=842, blocks=[block])
    meta = PdfMeta(doc_id="d" * 64, source_name="odd.pdf", page_count=1)
    doc = merge_pdf_ranges(meta, [PdfRangeResult(doc_id="d" * 64, first=1, last=1, pages=[page])])
    (el,) = doc.document.elements
    assert el.text == "Odd textlayer words here and the number of them."
    assert el.joined_hyphens == [el.text.index("ber of")]


def _links_over(text: str, *links: tuple[str, str]) -> Element:
    """`text` (JOIN where a hyphen was taken out) with links written in, then settled."""
    el = make_element("paragraph", text, 1, id="el-000001")
    found = [Link(0, t, target, (k,)) for k, (t, target) in enumerate(links)]
    return settle_joins(apply_links([el], found, LinkStats())[0])


def test_a_link_over_a_word_broken_across_lines_stays_one_link() -> None:
    # hyperref draws one box per line: "…orienta-" and "tion]" lead to the same place
    el = _links_over(
        f"see Section 10.9 [Object orienta{JOIN}tion] for more",
        ("Section 10.9 [Object orienta-", "el-000002"),
        ("tion]", "el-000002"),
    )
    assert joined_hyphens_problem(el) is None
    assert el.text.count("](#el-000002)") == 1
    assert "orientation" in el.text
    assert "orienta-tion" in source_text(el)


def test_a_hyphen_between_two_links_keeps_its_place_in_the_text() -> None:
    # two targets meet inside the broken word: no join can be recorded there, so the
    # hyphen stays in the text as the source printed it (the text is still proven)
    el = _links_over(
        f"see [Object orienta{JOIN}tion]",
        ("[Object orienta-", "el-000002"),
        ("tion]", "el-000003"),
    )
    assert joined_hyphens_problem(el) is None
    assert el.joined_hyphens == []
    assert "orienta-" in el.text


def test_a_word_broken_in_figure_text_is_joined_too(tmp_path: Path) -> None:
    """A table drawn cell by cell whose first column holds paragraphs is no table for the
    finder but figure text, and "specifi-" / "er." kept its hyphen there (GnuCash's guide
    before its described tables were tables)."""
    doc = parse_document(build_fop_table(tmp_path / "fop.pdf", described=False)).document
    figure = [e for e in doc.elements if e.origin == "figure"]
    assert len(figure) == 1, [e.text for e in doc.elements]
    assert "font specifier. If this field" in figure[0].text
    assert "specifi-er" not in figure[0].text and figure[0].joined_hyphens


def test_a_described_table_is_a_table_with_its_broken_words_joined(tmp_path: Path) -> None:
    """GnuCash's guide: names, types and paragraphs describing them, three rows or more;
    refused for its long cells, it was figure text (63 of 304 breaks left in the book)."""
    doc = parse_document(build_fop_table(tmp_path / "fop.pdf")).document
    assert [e for e in doc.elements if e.origin == "figure"] == []
    (table,) = [e for e in doc.elements if e.type == "table"]
    assert table.rows is not None and [r[0] for r in table.rows] == [r[0] for r in FOP_ROWS]
    assert "accepts as a font specifier. If this field" in table.rows[1][2]


def test_a_cell_keeps_a_suspended_hyphen_and_its_prefixes() -> None:
    words = Vocabulary(Counter({"specifier": 3, "and": 40, "post-processing": 2}))
    cell = "pre- and post-processing of a font specifi- er"
    assert join_cell_breaks(cell, words) == "pre- and post-processing of a font specifier"
    assert join_cell_breaks("jñ- jh- ñ-", words) == "jñ- jh- ñ-"  # prefixes, no break
    # a word the document writes nowhere else is judged as in prose: a broken word
    assert join_cell_breaks("the jour- nal of record", words) == "the journal of record"
