"""Small Chinese, Japanese and Persian PDFs built with PyMuPDF's HTML boxes (HarfBuzz
shaping, bidi, the fonts MuPDF ships), with known text, running headers and a contents page.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

W, H = 595.0, 842.0
BOX = pymupdf.Rect(72, 90, 523, 780)
FA_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")

# One long Chinese paragraph: it wraps over many lines, breaking inside sentences.
ZH_PARAGRAPH = (
    "排版系统把作者写下的文字变成整齐的页面，它要决定每一行放多少个字、在哪里换行、"
    "段落之间留多少空白。中文没有词与词之间的空格，所以换行可以落在任何两个汉字之间，"
    "提取文本的时候也不应该在这些位置插入空格。宏包为文档类增加功能，使用之前要在导言区"
    "声明，然后就可以在正文里调用它提供的命令和环境。"
) * 3
ZH_SECTIONS = ["文档类和宏包", "中文排版基础", "数学公式排版", "插图和表格", "参考文献管理"]
JA_PARAGRAPH = (
    "アプティチュードはコマンドラインで使うパッケージ管理ツールです。検索パターンを使えば、"
    "必要なパッケージを素早く見つけることができます。設定ファイルを無駄に書き換えないように"
    "注意してください。"
) * 3
FA_PARAGRAPH = (
    "این یک پاراگراف آزمایشی است که متن فارسی را در چند سطر نشان می‌دهد و باید به "
    "درستی خوانده شود. بسته‌ها امکانات تازه‌ای به سند اضافه می‌کنند. "
) * 4
FA_SECTIONS = ["مقدمه", "نصب", "پیکربندی", "شبکه", "امنیت", "پشتیبان", "بروزرسانی", "پایان"]
BILINGUAL = "Chapter 2. Presentation مقدمة"


def _html(page: pymupdf.Page, rect: pymupdf.Rect, html: str) -> None:
    spare, _ = page.insert_htmlbox(rect, html)
    assert spare >= 0, "the text did not fit its box"


def build_chinese(path: Path, *, contents: bool = True) -> Path:
    """A contents page (dot leaders, page numbers), then one page per section: a running
    header "N 第一章 …" / "§1.x … N" whose number changes, a heading, a long paragraph."""
    doc = pymupdf.open()
    toc: list[list[object]] = []
    first = 2 if contents else 1
    if contents:
        page = doc.new_page(width=W, height=H)
        lines = "".join(
            f"<p>{i}.{i} {name} . . . . . . . . . . . . . . . . . . . . {i + 1}</p>"
            for i, name in enumerate(ZH_SECTIONS, 1)
        )
        _html(
            page,
            BOX,
            f'<h1 style="font-size:20pt">目录</h1><div style="font-size:11pt">'
            f"{lines}{lines.replace('. . . .', '. .')}</div>",
        )
        toc.append([1, "目录", 1])
    for i, name in enumerate(ZH_SECTIONS, 1):
        page = doc.new_page(width=W, height=H)
        n = page.number + 1
        header = f"{n - 1} 第一章 基本概念" if n % 2 == 0 else f"§1.{i} {name} {n - 1}"
        _html(page, pymupdf.Rect(72, 36, 523, 56), f'<p style="font-size:9pt">{header}</p>')
        _html(
            page,
            BOX,
            f'<h2 style="font-size:15pt;font-weight:bold">1.{i} {name}</h2>'
            f'<p style="font-size:11pt">{ZH_PARAGRAPH}</p>',
        )
        toc.append([1, f"1.{i} {name}", first + i - 1])
    doc.set_toc(toc)
    doc.save(path)
    return path


def build_japanese(path: Path) -> Path:
    doc = pymupdf.open()
    for _ in range(2):
        page = doc.new_page(width=W, height=H)
        _html(page, BOX, f'<p style="font-size:11pt">{JA_PARAGRAPH}</p>')
    doc.save(path)
    return path


def build_persian(path: Path, *, outline: bool = False) -> Path:
    """Eight right-to-left pages whose printed numbers (Persian digits) run 11-18: even
    pages carry "کتاب آزمایشی N", odd ones "N بخش <section>" (a different text on every
    page); page 3 opens with the bilingual heading BILINGUAL."""
    doc = pymupdf.open()
    for n in range(1, 9):
        page = doc.new_page(width=W, height=H)
        num = str(n + 10).translate(FA_DIGITS)
        header = f"{num} بخش {FA_SECTIONS[n - 1]}" if n % 2 else f"کتاب آزمایشی {num}"
        _html(
            page, pymupdf.Rect(72, 36, 523, 56), f'<p dir="rtl" style="font-size:9pt">{header}</p>'
        )
        body = f'<p dir="rtl" style="font-size:11pt">{FA_PARAGRAPH}</p>'
        if n == 3:
            body = f'<p dir="rtl" style="font-size:16pt;font-weight:bold">{BILINGUAL}</p>' + body
        _html(page, BOX, body)
    if outline:
        doc.set_toc([[1, FA_SECTIONS[0], 1], [1, BILINGUAL, 3]])
    doc.save(path)
    return path
