"""DOCX parser on small documents built here with python-docx, one construct at a time."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import docx
import pytest
from docx.enum.style import WD_STYLE_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.text.paragraph import Paragraph
from lxml import etree

from quire.shared import markdown as md
from quire.shared.errors import CorruptDocumentError, EmptyDocumentError, UnsupportedFormatError
from quire.shared.ir import WORDS_PER_PAGE, Element, dump_ir, layout_words, load_ir
from quire.shared.text import sha256_bytes
from quire.workers.parse.docx import parse_docx
from quire.workers.parse.docx_content import _vml_height
from quire.workers.parse.pdf_open import pymupdf_module

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
M_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
PERSIAN = "این یک پاراگراف فارسی است"


def _save(document: docx.document.Document, tmp_path: Path, name: str = "t.docx") -> Path:
    path = tmp_path / name
    document.save(str(path))
    return path


def _ppr_child(paragraph: Paragraph, tag: str, **attrs: str) -> None:
    el = OxmlElement(tag)
    for key, value in attrs.items():
        el.set(qn(key), value)
    paragraph._p.get_or_add_pPr().append(el)


def _set_numbering(paragraph: Paragraph, num_id: int, ilvl: int) -> None:
    num_pr = OxmlElement("w:numPr")
    for tag, value in (("w:ilvl", ilvl), ("w:numId", num_id)):
        child = OxmlElement(tag)
        child.set(qn("w:val"), str(value))
        num_pr.append(child)
    paragraph._p.get_or_add_pPr().append(num_pr)


def _of_type(elements: list[Element], type_: str) -> list[Element]:
    return [e for e in elements if e.type == type_]


def _png(color: tuple[int, int, int], size: tuple[int, int] = (8, 6)) -> bytes:
    pymupdf = pymupdf_module()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, *size), False)
    pix.set_rect(pix.irect, color)
    return bytes(pix.tobytes("png"))


# -- element types ------------------------------------------------------------------------


def test_headings_from_styles_title_and_outline_level(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("The Book", style="Title")
    d.add_heading("Chapter one", level=1)
    d.add_paragraph("Intro text.")
    d.add_heading("Section one point one", level=2)
    d.add_heading("Deep part", level=4)
    outlined = d.add_paragraph("Outlined but plain style")
    _ppr_child(outlined, "w:outlineLvl", **{"w:val": "2"})
    body_level = d.add_heading("Demoted heading", level=2)
    _ppr_child(body_level, "w:outlineLvl", **{"w:val": "9"})  # 9 = body text
    d.add_heading("", level=3)  # empty headings are dropped
    doc = parse_docx(_save(d, tmp_path)).document
    headings = _of_type(doc.elements, "heading")
    assert [(h.level, h.text) for h in headings] == [
        (1, "# The Book"),
        (1, "# Chapter one"),
        (2, "## Section one point one"),
        (4, "#### Deep part"),
        (3, "### Outlined but plain style"),
    ]
    assert "Demoted heading" in [e.text for e in _of_type(doc.elements, "paragraph")]
    assert [(o.level, o.title) for o in doc.outline][:2] == [(1, "The Book"), (1, "Chapter one")]


def test_bulleted_and_numbered_lists_with_nesting(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("Before.")
    d.add_paragraph("apples", style="List Bullet")
    d.add_paragraph("pears", style="List Bullet")
    d.add_paragraph("Between.")
    first = d.add_paragraph("first step", style="List Number")
    d.add_paragraph("second step", style="List Number")
    nested = d.add_paragraph("a detail of step two", style="List Number")
    _set_numbering(nested, num_id=5, ilvl=1)  # List Number uses numId 5 in the template
    d.add_paragraph("third step", style="List Number")
    assert first.style is not None and first.style.name == "List Number"
    doc = parse_docx(_save(d, tmp_path)).document
    lists = _of_type(doc.elements, "list")
    assert len(lists) == 2
    bullets, numbered = lists
    assert bullets.ordered is False and bullets.items == ["apples", "pears"]
    assert bullets.text == "- apples\n- pears"
    assert numbered.ordered is True and numbered.start == 1
    assert numbered.items is not None and len(numbered.items) == 3
    assert numbered.items[1].startswith("second step\n")
    assert "a detail of step two" in numbered.items[1]
    assert numbered.text.splitlines()[0] == "1. first step"
    assert numbered.text.splitlines()[-1] == "3. third step"
    # the nested item is indented under its parent, not a top-level item
    assert re.search(r"^2\. second step\n {3}\S+ a detail of step two$", numbered.text, re.M)


def test_numbering_start_and_continuation(tmp_path: Path) -> None:
    d = docx.Document()
    numbering = d.part.numbering_part.element
    num = OxmlElement("w:num")
    num.set(qn("w:numId"), "77")
    abstract = OxmlElement("w:abstractNumId")
    # abstractNum of the template's "List Number" (numId 5)
    abs_id = numbering.xpath('w:num[@w:numId="5"]/w:abstractNumId/@w:val')[0]
    abstract.set(qn("w:val"), abs_id)
    override = OxmlElement("w:lvlOverride")
    override.set(qn("w:ilvl"), "0")
    start = OxmlElement("w:startOverride")
    start.set(qn("w:val"), "4")
    override.append(start)
    num.append(abstract)
    num.append(override)
    numbering.append(num)
    for text in ("four", "five"):
        _set_numbering(d.add_paragraph(text), num_id=77, ilvl=0)
    d.add_paragraph("An interruption.")
    _set_numbering(d.add_paragraph("six"), num_id=77, ilvl=0)
    doc = parse_docx(_save(d, tmp_path)).document
    lists = _of_type(doc.elements, "list")
    assert [(x.start, x.items) for x in lists] == [(4, ["four", "five"]), (6, ["six"])]
    assert lists[0].text == "4. four\n5. five"


def test_table_with_merged_cells(tmp_path: Path) -> None:
    d = docx.Document()
    table = d.add_table(rows=3, cols=3)
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row.cells):
            cell.text = f"r{r}c{c}"
    merged = table.cell(1, 0).merge(table.cell(1, 2))  # horizontal merge across 3 columns
    merged.text = "wide"
    tall = table.cell(2, 0).merge(table.cell(2, 1))
    tall.text = "tall | pipe"
    doc = parse_docx(_save(d, tmp_path)).document
    [tbl] = _of_type(doc.elements, "table")
    assert tbl.rows == [["r0c0", "r0c1", "r0c2"], ["wide", "", ""], ["tall | pipe", "", "r2c2"]]
    assert tbl.text == md.table(tbl.rows)
    assert tbl.text.count("wide") == 1 and "tall \\| pipe" in tbl.text


def test_a_long_table_is_cut_into_tables_of_a_few_pages(tmp_path: Path) -> None:
    """A table of many pages is several tables, in order, each with its rows whole: one
    element no cut may enter left the sessions around it oversized (HTML's alike)."""
    d = docx.Document()
    table = d.add_table(rows=80, cols=2)
    for r, row in enumerate(table.rows):
        row.cells[0].text = f"entry {r}"
        row.cells[1].text = " ".join(["term"] * 25)
    doc = parse_docx(_save(d, tmp_path)).document
    tables = _of_type(doc.elements, "table")
    assert len(tables) == 2 and all(t.word_count <= 3 * WORDS_PER_PAGE for t in tables)
    assert [r[0] for t in tables for r in t.rows or []] == [f"entry {r}" for r in range(80)]
    assert all(t.text == md.table(t.rows or []) for t in tables)


def test_embedded_image(tmp_path: Path) -> None:
    png = _png((200, 30, 30))
    d = docx.Document()
    d.add_paragraph("See the figure.")
    d.add_picture(io.BytesIO(png))
    doc_pr = d.inline_shapes[0]._inline.docPr
    doc_pr.set("descr", "A red [box]")
    parsed = parse_docx(_save(d, tmp_path))
    [image] = _of_type(parsed.document.elements, "image")
    sha = sha256_bytes(png)
    assert image.image is not None
    assert image.image.sha256 == sha and image.image.file == f"images/{sha}.png"
    assert (image.image.width, image.image.height) == (8, 6)
    assert (
        image.text
        == md.image(f"images/{sha}.png", "A red [box]")
        == (f"![A red [box](images/{sha}.png)")
    )
    assert parsed.images == {f"images/{sha}.png": png}


def test_code_from_style_and_monospace_runs(tmp_path: Path) -> None:
    d = docx.Document()
    d.styles.add_style("Source Code", WD_STYLE_TYPE.PARAGRAPH)
    d.add_paragraph("Run this:")
    d.add_paragraph("def f(x):", style="Source Code")
    d.add_paragraph("    return x + 1", style="Source Code")
    d.add_paragraph("Then:")
    mono = d.add_paragraph()
    mono.add_run("$ ls -l").font.name = "Courier New"
    d.add_paragraph("Mixed: ").add_run("inline()").font.name = "Consolas"
    # a script face whose name starts with its foundry's "Monotype" is no typewriter
    d.add_paragraph().add_run("With best wishes, the authors").font.name = "Monotype Corsiva"
    doc = parse_docx(_save(d, tmp_path)).document
    codes = _of_type(doc.elements, "code")
    assert [c.text for c in codes] == [
        md.code("def f(x):\n    return x + 1"),
        md.code("$ ls -l"),
    ]
    assert "Mixed: inline()" in [e.text for e in doc.elements]
    assert "With best wishes, the authors" in [e.text for e in doc.elements]


def test_caption(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("Body text.")
    d.add_paragraph("Figure 1: A caption", style="Caption")
    doc = parse_docx(_save(d, tmp_path)).document
    [caption] = _of_type(doc.elements, "caption")
    assert caption.text == "Figure 1: A caption"


def test_rtl_persian_paragraph(tmp_path: Path) -> None:
    d = docx.Document()
    para = d.add_paragraph(PERSIAN)
    _ppr_child(para, "w:bidi")
    english_in_rtl = d.add_paragraph("An untranslated English sentence.")
    _ppr_child(english_in_rtl, "w:bidi")
    d.add_paragraph("A normal English sentence.")
    doc = parse_docx(_save(d, tmp_path)).document
    by_text = {e.text: e for e in doc.elements}
    assert by_text[PERSIAN].rtl is True  # logical order kept: same string as written
    assert by_text["An untranslated English sentence."].rtl is False
    assert by_text["A normal English sentence."].rtl is False


def test_paragraph_without_style_and_hyperlink_text(tmp_path: Path) -> None:
    d = docx.Document()
    para = d.add_paragraph("Plain start ")
    link = OxmlElement("w:hyperlink")
    link.set(qn("w:anchor"), "somewhere")
    run = OxmlElement("w:r")
    text = OxmlElement("w:t")
    text.text = "linked words"
    run.append(text)
    link.append(run)
    para._p.append(link)
    styles = d.styles.element
    for style in styles.xpath('w:style[@w:styleId="Normal"]'):
        style.attrib.pop(qn("w:default"), None)  # like LibreOffice: no default style
    doc = parse_docx(_save(d, tmp_path)).document
    assert [e.text for e in doc.elements] == ["Plain start linked words"]


def test_text_inside_wrappers_fields_math_and_tracked_changes(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("First.")
    xml = (
        f'<w:sdt xmlns:w="{W_NS}" xmlns:m="{M_NS}"><w:sdtContent><w:p>'
        "<w:sdt><w:sdtContent><w:r><w:t>control </w:t></w:r></w:sdtContent></w:sdt>"
        "<w:ins><w:r><w:t>inserted </w:t></w:r></w:ins>"
        "<w:del><w:r><w:delText>deleted </w:delText></w:r></w:del>"
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
        "<w:r><w:instrText> PAGEREF x </w:instrText></w:r>"
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>page 7</w:t></w:r>'
        '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
        '<w:r><w:t xml:space="preserve"> and </w:t></w:r>'
        "<m:oMath><m:r><m:t>x=1</m:t></m:r></m:oMath>"
        "</w:p></w:sdtContent></w:sdt>"
    )
    d.element.body.insert(1, etree.fromstring(xml))
    doc = parse_docx(_save(d, tmp_path)).document
    assert [e.text for e in doc.elements] == ["First.", "control inserted page 7 and $x=1$"]


def test_elements_in_document_order(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_heading("Top", level=1)
    d.add_paragraph("One.")
    d.add_table(rows=1, cols=2).rows[0].cells[0].text = "cell"
    d.add_paragraph("Two.")
    doc = parse_docx(_save(d, tmp_path)).document
    assert [e.type for e in doc.elements] == ["heading", "paragraph", "table", "paragraph"]
    assert [e.id for e in doc.elements] == [f"el-{i:06d}" for i in range(1, 5)]


def test_pages_estimated_from_words(tmp_path: Path) -> None:
    d = docx.Document()
    for _ in range(3):
        d.add_paragraph(" ".join(["word"] * 300))
    parsed = parse_docx(_save(d, tmp_path))
    doc = parsed.document
    assert WORDS_PER_PAGE == 400
    assert [(e.page_first, e.page_last) for e in doc.elements] == [(1, 1), (1, 2), (2, 3)]
    assert doc.page_count == 3 and doc.page_basis == "words" and doc.source_format == "docx"
    assert [(u.first_page, u.last_page, u.parser) for u in doc.parsers] == [(1, 3, "python-docx")]
    assert doc.doc_id == sha256_bytes((tmp_path / "t.docx").read_bytes())


def test_pictures_and_page_breaks_count_in_estimated_pages(tmp_path: Path) -> None:
    """A manual's screenshots and its chapters that Word starts on a new page take pages
    that hold no words: the estimate counts a picture as the words that would fill the
    height it is drawn at, and a page break as the rest of its page left blank."""
    d = docx.Document()  # US Letter, 1-inch margins: a text area 9 inches high
    d.add_paragraph(" ".join(["alpha"] * 200))
    d.add_picture(io.BytesIO(_png((0, 0, 255))), height=docx.shared.Inches(4.5))  # half
    d.add_paragraph(" ".join(["beta"] * 100))
    d.add_page_break()  # Word's own: an empty paragraph holding w:br w:type="page"
    d.add_paragraph(" ".join(["gamma"] * 100))
    chapter = d.add_paragraph("Chapter two", style="Heading 1")
    _ppr_child(chapter, "w:pageBreakBefore")
    d.add_paragraph(" ".join(["delta"] * 100))
    d.add_section()  # a new section starts on a new page
    d.add_paragraph(" ".join(["epsilon"] * 100))
    d.add_picture(io.BytesIO(_png((0, 255, 0))), height=docx.shared.Inches(18))  # at most a page
    doc = parse_docx(_save(d, tmp_path)).document
    got = [(e.type, e.text.split()[0][:5], e.page_first, e.page_share) for e in doc.elements]
    image_words = doc.elements[1].word_count  # "![](images/….png)" counts 3
    assert got == [
        ("paragraph", "alpha", 1, None),
        ("image", "![](i", 1, 0.5),
        # 100 words on page 2 (after the picture's 3), then a page break
        ("paragraph", "beta", 2, (WORDS_PER_PAGE - 100 - image_words) / WORDS_PER_PAGE),
        ("paragraph", "gamma", 3, 0.75),  # the heading starts a page
        ("heading", "#", 4, None),
        ("paragraph", "delta", 4, (WORDS_PER_PAGE - 102) / WORDS_PER_PAGE),  # section ends
        ("paragraph", "epsil", 5, None),
        ("image", "![](i", 5, 1.0),  # 18 inches drawn: a page at most
    ]
    assert doc.page_count == 6
    assert sum(layout_words(e) for e in doc.elements) == 4 * WORDS_PER_PAGE + 100 + 403
    assert _vml_height("position:absolute;width:415pt;height:233.25pt") == 233.25 * 12700
    assert _vml_height("width:2in; height: 1.5in") == 1.5 * 914400


def test_ir_round_trip_is_byte_identical(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_heading("Round trip", level=1)
    d.add_paragraph("a", style="List Bullet")
    d.add_paragraph("b", style="List Number")
    d.add_table(rows=2, cols=2).rows[1].cells[1].text = "x"
    d.add_picture(io.BytesIO(_png((0, 0, 255))))
    _ppr_child(d.add_paragraph(PERSIAN), "w:bidi")
    doc = parse_docx(_save(d, tmp_path)).document
    data = dump_ir(doc)
    again = load_ir(data)
    assert again == doc
    assert dump_ir(again) == data


# -- bad input ------------------------------------------------------------------------------


def test_not_a_zip(tmp_path: Path) -> None:
    path = tmp_path / "fake.docx"
    path.write_bytes(b"This is plain text, not a DOCX package.\n")
    with pytest.raises(CorruptDocumentError, match=r"not a DOCX \(zip\) file") as err:
        parse_docx(path)
    assert "\n" not in str(err.value) and str(err.value).startswith("fake.docx: ")


def test_truncated_docx(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("Some text that will be cut off.")
    data = _save(d, tmp_path, "whole.docx").read_bytes()
    path = tmp_path / "cut.docx"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptDocumentError, match="truncated or corrupt"):
        parse_docx(path)


def test_zero_byte_file(tmp_path: Path) -> None:
    path = tmp_path / "zero.docx"
    path.write_bytes(b"")
    with pytest.raises(EmptyDocumentError, match="0 bytes"):
        parse_docx(path)


def test_zip_without_document_xml(tmp_path: Path) -> None:
    path = tmp_path / "other.docx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("hello.txt", "not a word document")
    with pytest.raises(CorruptDocumentError, match=r"no word/document\.xml"):
        parse_docx(path)


def test_spreadsheet_is_unsupported(tmp_path: Path) -> None:
    src = tmp_path / "src.docx"
    docx.Document().save(str(src))
    path = tmp_path / "book.docx"
    with zipfile.ZipFile(src) as old, zipfile.ZipFile(path, "w") as new:
        for info in old.infolist():
            data = old.read(info.filename)
            if info.filename == "[Content_Types].xml":
                data = data.replace(
                    b"wordprocessingml.document.main+xml", b"spreadsheetml.sheet.main+xml"
                )
            new.writestr(info, data)
    with pytest.raises(UnsupportedFormatError, match="not a Word document"):
        parse_docx(path)


def test_document_without_body(tmp_path: Path) -> None:
    src = _save(docx.Document(), tmp_path, "src.docx")
    path = tmp_path / "nobody.docx"
    with zipfile.ZipFile(src) as old, zipfile.ZipFile(path, "w") as new:
        for info in old.infolist():
            data = old.read(info.filename)
            if info.filename == "word/document.xml":
                data = re.sub(rb"<w:body>.*</w:body>", b"", data, flags=re.S)
            new.writestr(info, data)
    with pytest.raises(EmptyDocumentError, match="no body"):
        parse_docx(path)


def test_empty_document(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("")
    d.add_paragraph("   ")
    with pytest.raises(EmptyDocumentError, match="no text"):
        parse_docx(_save(d, tmp_path))


def test_image_only_document_has_no_text(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_picture(io.BytesIO(_png((1, 2, 3))))
    with pytest.raises(EmptyDocumentError, match="no text"):
        parse_docx(_save(d, tmp_path))


# -- the LibreOffice relationship quirk -----------------------------------------------------


def _with_anchor_relationship(src: Path, dest: Path) -> None:
    """Add what LibreOffice 7.4 writes for a link around an image: an internal-looking
    hyperlink relationship whose target is '#anchor', used by the document."""
    with zipfile.ZipFile(src) as old, zipfile.ZipFile(dest, "w") as new:
        for info in old.infolist():
            data = old.read(info.filename)
            if info.filename == "word/_rels/document.xml.rels":
                rel = (
                    b'<Relationship Id="rId900" Type="http://schemas.openxmlformats.org/'
                    b'officeDocument/2006/relationships/hyperlink" Target="#virtinst.connect"/>'
                )
                data = data.replace(b"</Relationships>", rel + b"</Relationships>")
            elif info.filename == "word/document.xml":
                link = (
                    b'<w:p><w:hyperlink r:id="rId900"><w:r><w:t>callout text</w:t></w:r>'
                    b"</w:hyperlink></w:p>"
                )
                data = data.replace(b"<w:sectPr", link + b"<w:sectPr", 1)
            new.writestr(info, data)


def test_lo_quirk_anchor_relationship_is_repaired(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_heading("Virtualization", level=1)
    d.add_paragraph("Some text before the link.")
    src = _save(d, tmp_path, "src.docx")
    path = tmp_path / "quirk.docx"
    _with_anchor_relationship(src, path)
    with pytest.raises(KeyError, match=r"virtinst\.connect"):
        docx.Document(str(path))  # the reproduction really trips python-docx
    doc = parse_docx(path).document
    assert [e.text for e in doc.elements] == [
        "# Virtualization",
        "Some text before the link.",
        "callout text",
    ]
    [use] = doc.parsers
    assert use.parser == "python-docx-tolerant" and use.reason and "external" in use.reason
    assert [n.kind for n in doc.notes] == ["fallback"]
    assert "KeyError" in doc.notes[0].message
    assert doc.doc_id == sha256_bytes(path.read_bytes())  # id of the original bytes


def test_a_long_numbered_list_is_cut_into_lists_of_a_few_pages(tmp_path: Path) -> None:
    # one list element of many pages would be a stretch no session could end inside
    d = docx.Document()
    d.add_heading("Steps", 1)
    for _ in range(30):
        d.add_paragraph(" ".join(["word"] * 99), style="List Number")
    d.save(tmp_path / "steps.docx")
    doc = parse_docx(tmp_path / "steps.docx").document
    lists = [e for e in doc.elements if e.type == "list"]
    assert [(e.start, len(e.items or [])) for e in lists] == [(1, 12), (13, 12), (25, 6)]
    assert all(e.word_count <= 3 * WORDS_PER_PAGE for e in lists)
