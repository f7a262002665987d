"""Reference-session titles in the book's language, told by its script."""

from __future__ import annotations

import pytest

from quire.shared.ir import Element
from quire.workers.boundaries.matter_titles import book_language, reference_title


def _els(*texts: str) -> list[Element]:
    return [
        Element(id=f"el-{i:06d}", type="paragraph", text=t, page_first=1, page_last=1)
        for i, t in enumerate(texts, 1)
    ]


@pytest.mark.parametrize(
    ("texts", "language"),
    [
        (["第一章 简介", "LaTeX 是一个排版系统，它的 TeX 引擎很强大。"], "zh"),
        (["第1章 はじめに", "このマニュアルでは aptitude の使い方を説明します。"], "ja"),
        (["فصل ۲. نصب", "این کتاب برای کاربران گنو/لینوکس نوشته شده است."], "fa"),
        (["Глава 1. Введение", "Эта книга рассказывает о системе LaTeX."], "ru"),
        (["Chapter 1. Introduction", "This manual explains R. 第一章 appears once."], "en"),
        (["الفصل الأول", "هذا الكتاب عن نظام التشغيل"], "en"),  # Arabic: no Persian table
    ],
)
def test_book_language_from_its_script(texts: list[str], language: str) -> None:
    assert book_language(_els(*texts)) == language


def test_code_does_not_decide_the_language() -> None:
    els = _els("第一章 简介", "LaTeX 是一个排版系统。")
    code = Element(
        id="el-000009", type="code", text="x <- c(1, 2, 3)\n" * 50, page_first=1, page_last=1
    )
    assert book_language([*els, code]) == "zh"


def test_reference_titles() -> None:
    assert reference_title("title pages and contents", 1, 1, "en") == "Title pages and contents"
    assert reference_title("index", 2, 3, "en") == "Index, part 2 of 3"
    assert reference_title("title pages and contents", 1, 1, "zh") == "封面与目录"
    assert reference_title("index", 1, 2, "zh") == "索引（第 1 部分，共 2 部分）"
    assert reference_title("bibliography and index", 1, 1, "fa") == "کتاب‌نامه و نمایه"
    assert reference_title("contents", 2, 2, "ru") == "Оглавление, часть 2 из 2"
    # a label the table does not know keeps the whole title in English
    assert reference_title("contents and colophon", 1, 1, "zh") == "Contents and colophon"
