"""Titles of reference sessions in the book's own language.

A reference session is titled by what it holds ("Title pages and contents", "Index, part 2
of 3"), not by its first line. A Chinese book gets "封面与目录" and a Chinese slug, as its
study sessions do from its headings; languages without a table keep the English title.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from quire.shared.ir import Element
from quire.shared.text import HAN, KANA


@dataclass(frozen=True)
class _Language:
    words: dict[str, str]  # English label -> label in this language
    join: str  # between two labels: "contents and list of figures"
    part: str  # "{title}, part {i} of {n}"


_ENGLISH = _Language({}, " and ", "{title}, part {i} of {n}")
_LANGUAGES = {
    "zh": _Language(
        {
            "title pages": "封面",
            "contents": "目录",
            "list of figures": "插图目录",
            "list of tables": "表格目录",
            "list of listings": "代码目录",
            "index": "索引",
            "bibliography": "参考文献",
            "glossary": "术语表",
        },
        "与",
        "{title}（第 {i} 部分，共 {n} 部分）",
    ),
    "ja": _Language(
        {
            "title pages": "扉",
            "contents": "目次",
            "list of figures": "図目次",
            "list of tables": "表目次",
            "list of listings": "コード目次",
            "index": "索引",
            "bibliography": "参考文献",
            "glossary": "用語集",
        },
        "と",
        "{title}（{i}/{n}）",
    ),
    "fa": _Language(
        {
            "title pages": "صفحه‌های عنوان",
            "contents": "فهرست مطالب",
            "list of figures": "فهرست تصاویر",
            "list of tables": "فهرست جدول‌ها",
            "list of listings": "فهرست برنامه‌ها",
            "index": "نمایه",
            "bibliography": "کتاب‌نامه",
            "glossary": "واژه‌نامه",
        },
        " و ",
        "{title}، بخش {i} از {n}",
    ),
    "ru": _Language(
        {
            "title pages": "титульные страницы",
            "contents": "оглавление",
            "list of figures": "список иллюстраций",
            "list of tables": "список таблиц",
            "list of listings": "список листингов",
            "index": "предметный указатель",
            "bibliography": "литература",
            "glossary": "глоссарий",
        },
        " и ",
        "{title}, часть {i} из {n}",
    ),
}

_HAN = re.compile(f"[{HAN}]")
_KANA = re.compile(f"[{KANA}]")
_PERSIAN_ONLY = frozenset("پچژگ")
SAMPLE_CHARS = 200_000  # enough text to tell a book's script


def book_language(elements: Sequence[Element]) -> str:
    """The language a book's reference titles are written in, told by its script: "zh"
    (Han), "ja" (Han with kana), "fa" (Arabic script with Persian letters), "ru"
    (Cyrillic), else "en". Arabic-script books without Persian letters stay "en": a
    Persian title would be wrong for them."""
    letters: Counter[str] = Counter()
    taken = 0
    for e in elements:
        if e.type in ("code", "image", "formula") or taken > SAMPLE_CHARS:
            continue
        taken += len(e.text)
        letters["kana"] += len(_KANA.findall(e.text))
        letters["han"] += len(_HAN.findall(e.text))
        for c in e.text:
            if c.isalpha() and c.isascii():
                letters["latin"] += 1
            elif "\u0600" <= c <= "\u06ff":
                letters["persian" if c in _PERSIAN_ONLY else "arabic"] += 1
            elif "\u0400" <= c <= "\u04ff":
                letters["cyrillic"] += 1
    # a CJK character stands for about two Latin letters' worth of text
    cjk = 2 * (letters["han"] + letters["kana"])
    if cjk > letters["latin"]:
        return "ja" if letters["kana"] * 10 > letters["han"] else "zh"
    arabic = letters["arabic"] + letters["persian"]
    if arabic > letters["latin"] and letters["persian"]:
        return "fa"
    if letters["cyrillic"] > letters["latin"]:
        return "ru"
    return "en"


def reference_title(label: str, part: int, parts: int, language: str) -> str:
    """The title of one reference session: its region's label ("title pages and
    contents") in `language`, with its part number when the region has several."""
    lang = _LANGUAGES.get(language, _ENGLISH)
    pieces = [lang.words.get(p, p) for p in label.split(" and ")]
    if any(p not in lang.words for p in label.split(" and ")):
        lang, pieces = _ENGLISH, label.split(" and ")  # a label without a translation
    title = unicodedata.normalize("NFC", lang.join.join(pieces))
    title = title[:1].upper() + title[1:]
    return lang.part.format(title=title, i=part, n=parts) if parts > 1 else title
