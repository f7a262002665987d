"""`draws_no_image`: the shortcut that spares `get_image_info` its own text page on pages
that cannot draw an image. It must never say "no image" of a page that has one."""

from __future__ import annotations

import io

import pymupdf
import pytest
from corpus import CORPUS

from quire.workers.parse.pdf_images import draws_no_image


def _page_with(content: bytes) -> tuple[pymupdf.Document, pymupdf.Page]:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Some text on the page")
    xref = page.get_contents()[0]
    doc.update_stream(xref, doc.xref_stream(xref) + b"\n" + content)
    return doc, page


def test_a_text_page_draws_no_image() -> None:
    _doc, page = _page_with(b"")
    assert page.get_image_info() == []
    assert draws_no_image(page)


def test_an_image_xobject_is_seen() -> None:
    _doc, page = _page_with(b"")
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pix.clear_with(200)
    page.insert_image(pymupdf.Rect(100, 100, 200, 200), stream=io.BytesIO(pix.tobytes("png")))
    assert page.get_image_info()
    assert not draws_no_image(page)


def test_an_inline_image_is_seen() -> None:
    image = b"BI /W 2 /H 2 /CS /G /BPC 8 ID \x00\xff\xff\x00 EI"
    _doc, page = _page_with(b"q 50 0 0 50 100 300 cm " + image + b" Q")
    assert page.get_image_info()
    assert not draws_no_image(page)


def test_a_graphics_state_is_not_trusted() -> None:
    # a soft mask in a graphics state may hold a shading, which MuPDF reports as an image
    _doc, page = _page_with(b"q /GS0 gs Q")
    assert not draws_no_image(page)


def test_an_annotation_is_not_trusted() -> None:
    _doc, page = _page_with(b"")
    page.add_text_annot((100, 100), "a note")
    assert not draws_no_image(page)


@pytest.mark.corpus
def test_never_wrong_on_the_corpus() -> None:
    checked = 0
    for path in sorted(CORPUS.glob("*.pdf")):
        with pymupdf.open(path) as doc:
            if doc.needs_pass:
                continue
            for page in doc:
                if draws_no_image(page):
                    checked += 1
                    assert page.get_image_info(xrefs=True) == [], (path.name, page.number)
    assert checked > 1000
