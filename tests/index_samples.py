"""Small books with a back-of-book index, built with PyMuPDF's HTML boxes: roman page labels
on the front matter, arabic ones after, body pages that say their terms, and an index set
in two columns with sub-entries, a wrapped entry, "see" and "see also", a range and a bold
(defining) locator. In English, Chinese and Russian."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf

W, H = 595.0, 842.0
BOX = pymupdf.Rect(72, 90, 523, 780)
LEFT = pymupdf.Rect(72, 130, 290, 780)
RIGHT = pymupdf.Rect(310, 130, 523, 780)
SUB = "margin-left:14pt"  # a sub-entry, indented about one and a half ems
WRAP = "margin-left:34pt"  # the wrapped rest of a line, indented three ems or more


@dataclass(frozen=True)
class Book:
    title: str  # of the index
    front: list[tuple[str, str]]  # (heading, text) pages numbered i, ii, ...
    body: list[tuple[str, str]]  # (heading, text) pages numbered 1, 2, ...
    left: list[str]  # index lines (HTML) of the left column
    right: list[str]


ENGLISH = Book(
    title="Index",
    front=[("A short book", "On vectors and matrices."), ("Preface", "A word on notation first.")],
    body=[
        ("1 Vectors", "Vector arithmetic works element by element on whole vectors."),
        ("1.1 Recycling", "The recycling rule repeats the shorter vector as needed."),
        ("2 Matrices", "The matrix product multiplies rows by columns; transpose swaps them."),
        ("2.1 Outer products", "The outer product of two vectors; transpose it again here."),
        ("3 Factors", "Factor levels name the categories a factor can take."),
    ],
    left=[
        "factor levels, 5",
        "levels, <i>see</i> factor levels",
        "matrix product, 3, 4",
        "multiplication of vectors and matrices by",
        f'<p style="{WRAP}">columns, 3</p>',
        "notation, ii",
    ],
    right=[
        "outer product, 4; <i>see also</i> matrix product",
        "recycling rule, 1, <b>2</b>",
        "transpose, 3–4",
        "vectors",
        f'<p style="{SUB}">arithmetic, 1</p>',
        f'<p style="{SUB}">recycling, <i>see</i> recycling rule</p>',
    ],
)

CHINESE = Book(
    title="索引",
    front=[("前言", "本书介绍排版的基本概念。")],
    body=[
        ("第一章 宏包", "宏包为文档增加功能，使用之前要在导言区声明宏包。"),
        ("第二章 数学公式", "数学公式可以放在行内，也可以单独成行。"),
        ("第三章 表格", "表格的列格式决定每一列的对齐方式，数学公式也可以放进表格。"),
    ],
    left=["宏包, 1", "数学公式, 2–3", "文档类, <i>见</i> 宏包"],
    right=["表格, 3", f'<p style="{SUB}">列格式, 3</p>'],
)

RUSSIAN = Book(
    title="Предметный указатель",
    front=[("Предисловие", "Краткое введение в вёрстку.")],
    body=[
        ("Глава 1. Пакеты", "Пакет добавляет новые команды; пакет подключают в преамбуле."),
        ("Глава 2. Окружения", "Окружение задаёт оформление фрагмента текста."),
        ("Глава 3. Таблицы", "Таблица строится в окружении tabular; ширина столбца задаётся."),
    ],
    left=["окружение, 2; <i>см. также</i> таблица", "пакет, 1"],
    right=["таблица, 3", f'<p style="{SUB}">ширина столбца, 3</p>'],
)


def _html(page: pymupdf.Page, rect: pymupdf.Rect, html: str) -> None:
    spare, _ = page.insert_htmlbox(rect, html)
    assert spare >= 0, "the text did not fit its box"


def _column(lines: list[str]) -> str:
    body = "".join(line if line.startswith("<p") else f"<p>{line}</p>" for line in lines)
    return f'<div style="font-size:10pt; line-height:1.3">{body}</div>'


def build_book(path: Path, book: Book) -> Path:
    """The book as a PDF: front pages labelled i, ii, ..., body pages 1, 2, ..., and the
    index (its first column continued on the right) on the last page."""
    doc = pymupdf.open()
    for heading, text in [*book.front, *book.body]:
        page = doc.new_page(width=W, height=H)
        _html(page, BOX, f'<h1 style="font-size:18pt">{heading}</h1><p>{text * 12}</p>')
    page = doc.new_page(width=W, height=H)
    _html(page, pymupdf.Rect(72, 80, 523, 120), f'<h1 style="font-size:18pt">{book.title}</h1>')
    _html(page, LEFT, _column(book.left))
    _html(page, RIGHT, _column(book.right))
    front = len(book.front)
    doc.set_page_labels(
        [
            {"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
            {"startpage": front, "prefix": "", "style": "D", "firstpagenum": 1},
        ]
    )
    toc = [[1, h, i] for i, (h, _) in enumerate([*book.front, *book.body], 1)]
    doc.set_toc([*toc, [1, book.title, doc.page_count]])
    doc.save(path)
    doc.close()
    return path
