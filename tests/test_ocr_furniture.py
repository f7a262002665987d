"""A scanned book's furniture, as OCR reads it (The Lure of the Temptress' manual, scanned
through Photoshop): the running header is cut or misread differently on every page, and a
paragraph's first line, its height a guess, is no title. Pure logic on the parser's page
model, as OCR leaves it (`pdf_ocr.text_blocks`)."""

from __future__ import annotations

from quire.shared.ir import OcrPage
from quire.workers.parse.pdf_headings import _font_candidate
from quire.workers.parse.pdf_running import find_running_text
from quire.workers.parse.pdf_types import PdfBlock, PdfPage

HEADERS = [
    "The Lure of the Temptress",
    "The Lure of the Temptr",
    "ure of the Temptr",
    "The Lure of the emptre",
    "Lure of the Temp",
    "The Lure of the Temptre",
]
BODY = "Talking to the other characters works in much the same way as the rest of the game. "


def _scanned(n: int, header: str, y: float, ocr: bool = True) -> PdfPage:
    lines = [BODY * 2] * 12
    body = PdfBlock(kind="text", bbox=(60, 120, 540, 700), lines=lines, size=10.5, ocr=ocr)
    top = PdfBlock(kind="text", bbox=(200, y, 400, y + 14), lines=[header], size=11.5, ocr=ocr)
    ocr = OcrPage(
        page=n, engine="tesseract", languages="eng", confidence=80, words=300, dpi=300, reason=""
    )
    return PdfPage(page=n, width=595, height=842, blocks=[top, body], ocr=ocr)


def test_a_scanned_books_header_is_running_text_however_ocr_reads_it() -> None:
    # the page sits a little higher or lower on the scanner every time
    pages = [_scanned(n, h, 40 + 7 * (n % 2)) for n, h in enumerate(HEADERS, 1)]
    drop, removed = find_running_text(pages, 10.5)
    assert [(r.page, r.text) for r in removed] == list(enumerate(HEADERS, 1))
    assert drop == {(n, 0) for n in range(1, len(HEADERS) + 1)}


def test_two_parts_titles_alike_are_not_one_misread_header() -> None:
    titles = ["PART THREE - WHO ON EARTH AM I?", "PART FOUR - WHERE ON EARTH AM I?"]
    pages = [_scanned(n, t, 40) for n, t in enumerate(titles, 1)]
    assert find_running_text(pages, 10.5) == (set(), [])
    # a footer quoted in the last page's closing sentence is no reading of it
    footer = "<elsarticle@stmdocs.in>"
    closing = f"Bugs and comments shall be mailed to {footer}. Contact: {footer[1:-1]}"
    pages = [_scanned(n, t, 40) for n, t in enumerate([footer, footer, closing], 1)]
    assert [r.page for r in find_running_text(pages, 10.5)[1]] == [1, 2]
    # text a page's text layer has (OCR or not elsewhere on the page) matches exactly,
    # digits aside: two readings are two texts
    pair = [_scanned(n, h, 40, ocr=False) for n, h in enumerate(HEADERS[:2], 1)]
    assert find_running_text(pair, 10.5) == (set(), [])


def test_a_scans_long_or_lowercase_line_is_no_title() -> None:
    def block(text: str) -> PdfBlock:
        return PdfBlock(kind="text", bbox=(60, 100, 540, 130), lines=[text], size=16, ocr=True)

    assert _font_candidate(block("MINIMUM SYSTEM REQUIREMENTS"), 10.5)
    line = "If there's an exit available from the screen you're on and you want to"
    assert not _font_candidate(block(line), 10.5)
    assert not _font_candidate(block("yourself, then maybe you could talk"), 10.5)
    # the same lines from a text layer set large are titles as before
    assert _font_candidate(block(line).model_copy(update={"ocr": False}), 10.5)
