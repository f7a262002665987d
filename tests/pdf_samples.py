"""Small PDFs built with PyMuPDF for the parser tests: every element type, on known pages.

`build_manual` writes a 5-page "manual": running header and page number on every page, an
outline (set_toc) for the headings, bullet and numbered lists, a Courier code block, a
ruled table with a caption, an embedded PNG with a caption, and a paragraph that runs from
page 3 onto page 4.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymupdf

from quire.workers.parse import parse_document

HEADER = "Quire Sample Manual"
W, H = 595.0, 842.0
LEFT = 72.0

PARA_INTRO = [
    "This manual describes a small program that cuts long textbooks into study",
    "sessions. Every session starts at a safe place and keeps its figures.",
]
BULLETS = ["Parse the document once.", "Plan the sessions.", "Verify what was written."]
NUMBERED = ["Open the file.", "Read every page.", "Close the file."]
CODE = ["def cut(book):", "    for page in book:", "        yield page", "return None"]
TABLE = [["Name", "Pages"], ["alpha", "12"], ["beta", "7"]]
SPLIT_TOP = [
    "A paragraph near the end of a page keeps going after the page break, and",
    "the parser must join both halves into one element because the sentence",
    "continues on the next page where",
]
SPLIT_BOTTOM = [
    "it finally ends with a full stop after these words.",
]
NEXT_PARA = [
    "A new paragraph starts here, after a little vertical space, and it takes",
    "three lines to say that it is a paragraph of its own which ends on this",
    "page.",
]
TOC = [
    [1, "1 Introduction", 1],
    [2, "1.1 Steps", 1],
    [1, "2 Code and Tables", 2],
    [2, "2.1 Results", 2],
    [1, "3 Pictures", 3],
    [1, "4 Appendix", 5],
]


def _lines(
    page: Any,
    y: float,
    texts: list[str],
    *,
    size: float = 11,
    font: str = "helv",
    x: float = LEFT,
    leading: float = 14.0,
) -> float:
    for t in texts:
        page.insert_text((x, y), t, fontsize=size, fontname=font)
        y += leading
    return y


def _furniture(page: Any, n: int) -> None:
    page.insert_text((LEFT, 40), HEADER, fontsize=9, fontname="helv")
    page.insert_text((W / 2 - 5, H - 30), str(n), fontsize=9, fontname="helv")


def save_with_contents(doc: Any, page: Any, ops: list[str], path: Path) -> Path:
    """Give `page` the content stream `ops` (raw PDF operators, for fonts PyMuPDF's own text
    insertion cannot set) and save `doc` to `path`."""
    contents = doc.get_new_xref()
    doc.update_object(contents, "<<>>")
    doc.update_stream(contents, "\n".join(ops).encode())
    doc.xref_set_key(page.xref, "Contents", f"{contents} 0 R")
    doc.save(path)
    return path


def parsed_text(path: Path) -> str:
    """The text of every element of the parsed document, one space apart."""
    return " ".join(e.text or "" for e in parse_document(path).document.elements)


def png_bytes(width: int = 64, height: int = 48) -> bytes:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, width, height), False)
    pix.set_rect(pix.irect, (200, 40, 40))
    pix.set_rect(pymupdf.IRect(0, 0, width // 2, height // 2), (20, 90, 200))
    return bytes(pix.tobytes("png"))


def build_manual(path: Path, *, outline: bool = True) -> Path:
    doc = pymupdf.open()
    # page 1: headings, paragraph, lists
    p = doc.new_page(width=W, height=H)
    _furniture(p, 1)
    y = _lines(p, 120, ["1 Introduction"], size=20, font="hebo", leading=30)
    y = _lines(p, y, PARA_INTRO)
    y = _lines(p, y + 14, ["1.1 Steps"], size=15, font="hebo", leading=24)
    for item in BULLETS:
        p.insert_text((LEFT, y), "\u2022", fontsize=11, fontname="helv")
        y = _lines(p, y, [item], x=LEFT + 14)
    y += 10
    y = _lines(p, y, ["The numbered steps follow in order."])
    y += 10
    for n, item in enumerate(NUMBERED, 1):
        y = _lines(p, y, [f"{n}. {item}"])
    # page 2: code, table, caption
    p = doc.new_page(width=W, height=H)
    _furniture(p, 2)
    y = _lines(p, 120, ["2 Code and Tables"], size=20, font="hebo", leading=30)
    y = _lines(p, y, ["The following function shows the idea in a few lines of code."])
    y += 8
    for line in CODE:
        indent = (len(line) - len(line.lstrip())) * 6.6  # Courier 11pt: 6.6pt per char
        y = _lines(p, y, [line.strip()], font="cour", x=LEFT + 20 + indent)
    y = _lines(p, y + 14, ["2.1 Results"], size=15, font="hebo", leading=24)
    y = ruled_table(p, TABLE, y, 120.0, header_font="hebo") + 20
    y = _lines(p, y, ["Table 1: Pages per chapter in the sample."])
    # page 3: image, caption, paragraph running onto page 4
    p = doc.new_page(width=W, height=H)
    _furniture(p, 3)
    y = _lines(p, 120, ["3 Pictures"], size=20, font="hebo", leading=30)
    p.insert_image(pymupdf.Rect(LEFT, y, LEFT + 160, y + 120), stream=png_bytes())
    y += 140
    y = _lines(p, y, ["Figure 1: A red and blue test picture."])
    _lines(p, H - 110, SPLIT_TOP)
    # page 4: the paragraph's end, then more text
    p = doc.new_page(width=W, height=H)
    _furniture(p, 4)
    y = _lines(p, 120, SPLIT_BOTTOM)
    _lines(p, y + 10, NEXT_PARA)
    # page 5: appendix
    p = doc.new_page(width=W, height=H)
    _furniture(p, 5)
    y = _lines(p, 120, ["4 Appendix"], size=20, font="hebo", leading=30)
    _lines(p, y, ["Nothing more to say."])
    if outline:
        doc.set_toc(TOC)
    doc.save(path)
    doc.close()
    return path


def build_text_pages(
    path: Path, pages: int, *, blank: set[int] | None = None, image_only: set[int] | None = None
) -> Path:
    """`pages` pages of numbered prose; some pages may be blank or hold only an image."""
    doc = pymupdf.open()
    for n in range(1, pages + 1):
        p = doc.new_page(width=W, height=H)
        if blank and n in blank:
            continue
        if image_only and n in image_only:
            p.insert_image(pymupdf.Rect(0, 0, W, H), stream=png_bytes(300, 400))
            continue
        _furniture(p, n)
        _lines(
            p,
            120,
            [
                f"Page {n} has a short paragraph of its own.",
                f"It ends on the same page number {n}.",
            ],
        )
    doc.save(path)
    doc.close()
    return path


def zero_page_pdf(path: Path) -> Path:
    """A well-formed PDF whose page tree is empty (PyMuPDF refuses to save one)."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
    return path


def ruled_table(
    page: Any,
    cells: list[list[str]],
    top: float,
    col_w: float,
    *,
    fontname: str = "helv",
    fontsize: float = 11,
    header_font: str | None = None,
) -> float:
    """A two-column table ruled all round at `top` (the first row in `header_font` when
    given); returns its bottom."""
    row_h = 20.0
    for r in range(len(cells) + 1):
        page.draw_line((LEFT, top + r * row_h), (LEFT + 2 * col_w, top + r * row_h))
    for c in range(3):
        page.draw_line((LEFT + c * col_w, top), (LEFT + c * col_w, top + len(cells) * row_h))
    for r, row in enumerate(cells):
        font = header_font if r == 0 and header_font else fontname
        for c, cell in enumerate(row):
            page.insert_text(
                (LEFT + c * col_w + 5, top + r * row_h + 14), cell, fontsize=fontsize, fontname=font
            )
    return top + len(cells) * row_h
