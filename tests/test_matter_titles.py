"""Reference-session titles in the book's language, told by its script (and within the
Latin script by its function words)."""

from __future__ import annotations

import pytest

from quire.shared.ir import Element
from quire.workers.boundaries.matter_titles import (
    TITLES,
    book_language,
    reference_title,
    title_matter,
    title_matters,
)


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
        (["제1장 소개", "이 문서는 LaTeX 조판 시스템을 설명합니다."], "ko"),
        (["Κεφάλαιο 1. Εισαγωγή", "Αυτό το βιβλίο περιγράφει το LaTeX."], "el"),
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


def test_the_headings_script_decides_over_commands_in_the_prose() -> None:
    """The Persian Debian Handbook's prose holds more Latin letters (commands, package
    names) than Persian: its titles read "(continued)" among Persian headings."""
    prose = "برای نصب بسته از دستور apt-get install openssh-server sshd_config استفاده کنید"
    heads = [
        Element(id=f"el-h{i:05d}", type="heading", text=f"## پیکربندی شبکه و حساب کاربری {i}",
                level=2, page_first=i, page_last=i)
        for i in range(1, 30)
    ]  # fmt: skip
    assert book_language(_els(*[prose] * 200)) == "en"  # too few headings: the prose decides
    assert book_language([*heads, *_els(*[prose] * 200)]) == "fa"


def test_reference_titles() -> None:
    assert reference_title("title pages and contents", 1, 1, "en") == "Title pages and contents"
    assert reference_title("index", 2, 3, "en") == "Index, part 2 of 3"
    assert reference_title("title pages and contents", 1, 1, "zh") == "封面与目录"
    assert reference_title("index", 1, 2, "zh") == "索引（第 1 部分，共 2 部分）"
    assert reference_title("bibliography and index", 1, 1, "fa") == "کتاب‌نامه و نمایه"
    assert reference_title("contents", 2, 2, "ru") == "Оглавление, часть 2 из 2"
    # a label the table does not know keeps the whole title in English
    assert reference_title("contents and errata", 1, 1, "zh") == "Contents and errata"


# --- the one table of titles ---------------------------------------------------------------

TABLE = [
    (title, kind, label, language)
    for label, (kind, names) in TITLES.items()
    for language, titles in names.items()
    for title in titles
]


@pytest.mark.parametrize(("title", "kind", "label", "language"), TABLE)
def test_every_title_of_the_table_is_recognised(
    title: str, kind: str, label: str, language: str
) -> None:
    assert (kind, label) in title_matters(title)
    assert (kind, label) in title_matters(f"7 {title.upper()}")  # numbered, in capitals
    assert (kind, label) in title_matters(f"Chapter 12 {title}")


# One back-matter title per script, as PDFs extract them.
@pytest.mark.parametrize(
    ("title", "label"),
    [
        ("Bibliografía", "bibliography"),  # Latin (a Spanish "Bibliografía" was studied)
        ("Bibliograf´ıa", "bibliography"),  # TeX's spacing accent and a dotless i
        ("Literaturverzeichnis", "bibliography"),
        ("Rejstřík", "index"),
        ("Skorowidz", "index"),
        ("Литература", "bibliography"),  # Cyrillic
        ("Предметный указатель", "index"),
        ("Бібліоґрафія", "bibliography"),  # Ukrainian (lshort-ukr studied its bibliography)
        ("Покажчик", "index"),
        ("Βιβλιογραφία", "bibliography"),  # Greek
        ("Ευρετήριο", "index"),
        ("참고 문헌", "bibliography"),  # Hangul
        ("찾아보기", "index"),
        ("参考文献", "bibliography"),  # Han
        ("索引", "index"),
        ("用語集", "glossary"),  # Japanese
        ("کتاب‌نامه", "bibliography"),  # Arabic script (Persian)
        ("نمایه", "index"),
        ("ביבליוגרפיה", "bibliography"),  # Hebrew
        ("บรรณานุกรม", "bibliography"),  # Thai
        ("ดัชนี", "index"),
        ("ดรรชนี", "index"),  # lshort-thai's spelling
    ],
)
def test_back_matter_titles_in_every_script(title: str, label: str) -> None:
    assert title_matter(title) == ("back_matter", label)


@pytest.mark.parametrize(
    "title",
    [
        "Sommaire",
        "Table des matières",
        "Inhaltsverzeichnis",
        "Índice general",
        "Spis treści",
        "Obsah",
        "Содержание",
        "Περιεχόμενα",
        "차례",
        "目录",
        "目次",
        "فهرست مطالب",
        "สารบัญ",
        "अनुक्रमणिका",  # Devanagari (marathi's)
        "विषय सूची",
    ],
)
def test_front_matter_titles_in_every_script(title: str) -> None:
    assert title_matter(title) == ("front_matter", "contents")


def test_a_title_with_two_readings_gives_both_front_first() -> None:
    # Spanish and Portuguese "Índice" is the contents in front and the index at the back
    assert title_matters("Índice") == [("front_matter", "contents"), ("back_matter", "index")]
    assert title_matters("Index") == [("back_matter", "index")]  # never the contents


@pytest.mark.parametrize(
    "title",
    ["General Index: F – L", "PO Mode Index: Q – Y", "Index A–C", "Index — S", "Indexes"],
)
def test_an_index_page_of_letters_is_an_index(title: str) -> None:
    # a Texinfo HTML index splits into pages of letters (gettext's "General Index: M – P")
    assert title_matters(title) == [("back_matter", "index")]


@pytest.mark.parametrize(
    "title",
    [
        "C Index del LilyPond",  # Catalan (LilyPond's manuals studied their index)
        "Annex D Índex d'ordres del LilyPond",
        "Index de LilyPond",  # French
        "Índice de LilyPond",
        "E Indice dei comandi di LilyPond",
        "IndexofUnits",  # as the index reader gives a title: its letters alone
    ],
)
def test_an_index_of_a_subject_is_an_index(title: str) -> None:
    assert title_matters(title) == [("back_matter", "index")]


@pytest.mark.parametrize("title", ["Index design", "Indexed colour", "Indices and logarithms"])
def test_a_title_on_indexes_is_no_index(title: str) -> None:
    assert title_matters(title) == []


@pytest.mark.parametrize("title", ["Appendix A", "Part I", "Vitamin A", "Chapter 2 – B"])
def test_a_title_ending_in_a_letter_is_no_index(title: str) -> None:
    assert title_matters(title) == []


def test_reference_titles_in_more_scripts() -> None:
    assert reference_title("title pages and contents", 1, 1, "ko") == "표지 및 차례"
    assert reference_title("bibliography", 1, 1, "el") == "Βιβλιογραφία"
    assert reference_title("index", 2, 3, "ko") == "찾아보기 (2/3)"


FRENCH = "Cette commande permet de changer la taille des caractères dans le texte. " * 40
GERMAN = "Die Befehle werden in der Präambel des Dokuments geladen und sind nicht optional. " * 40
POLISH = "Polecenie jest używane przez pakiet, który nie może być ładowany dwa razy. " * 40
ENGLISH = "The package loads the fonts that the document class asks for at the start. "
ITALIAN = "Il testo della pagina che si vede con una prova del pacchetto è questo. "
# Debian's installation guide in Danish was read as Swedish (they share "det som med på har")
DANISH = "Det er ikke svært at installere systemet, og hvis det fejler, skal man også have hjælp. "
SWEDISH = "Det är inte svårt att installera systemet, och det finns också hjälp till den som vill. "
VIETNAMESE = "Bạn có thể cài đặt hệ thống này với các gói được chọn trong danh sách của nó. "
ROMANIAN = "Sistemul este instalat pentru toți utilizatorii prin această metodă sau alta. "
HUNGARIAN = "A kottát úgy szedi, hogy az olvasó csak a zenére figyeljen, és ne a jelekre. "
LINKED = "See [the command](#el-000027) and [its options](#el-000031) in this section. "


@pytest.mark.parametrize(
    ("texts", "language"),
    [
        ([FRENCH], "fr"),
        ([GERMAN], "de"),
        ([POLISH], "pl"),
        ([DANISH * 40], "da"),
        ([SWEDISH * 40], "sv"),
        ([VIETNAMESE * 40], "vi"),
        ([ROMANIAN * 40], "ro"),
        ([HUNGARIAN * 40], "hu"),
        # an English manual quoting a French sentence stays English
        ([ENGLISH * 40, "« Cette commande est pour les utilisateurs de la classe. »"], "en"),
        # a bilingual manual: neither language's titles would fit half of it
        ([FRENCH, GERMAN], "en"),
        # an English manual of a lorem-ipsum package, its Italian samples as long as its text
        ([ENGLISH * 20, ITALIAN * 20], "en"),
        ([ITALIAN * 20], "it"),
        # link targets are no words ("el" is Spanish)
        ([LINKED * 40], "en"),
    ],
)
def test_a_latin_script_books_language_from_its_function_words(
    texts: list[str], language: str
) -> None:
    assert book_language(_els(*texts)) == language


@pytest.mark.parametrize(
    ("headings", "language"),
    [
        # VisualTikZ-fr: its prose is TikZ set as paragraphs ("at", "on": English), its
        # headings French
        (
            ["Les figures de base", "Les paramètres de la ligne", "Les nœuds et les flèches"] * 3,
            "fr",
        ),
        (["Chargement de la bibliothèque"], "en"),  # too few of its words to say
    ],
)
def test_headings_tell_the_language_where_the_prose_does_not(
    headings: list[str], language: str
) -> None:
    code = r"\draw (0,0) node at (1,1) {x} -- (2,0) on the path; \fill[red] (0,0) circle (1pt); "
    els = _els(code * 200, FRENCH)  # the prose alone reads as English
    els += [
        Element(id=f"el-{100 + i:06d}", type="heading", text=t, page_first=1, page_last=1, level=2)
        for i, t in enumerate(headings)
    ]
    assert book_language(els) == language


def test_reference_titles_in_latin_script_languages() -> None:
    assert reference_title("title pages and contents", 1, 1, "fr") == (
        "Page de titre et table des matières"
    )
    # German nouns keep their capital
    assert reference_title("bibliography and index", 1, 1, "de") == (
        "Literaturverzeichnis und Register"
    )
    assert reference_title("index", 2, 3, "pl") == "Skorowidz, część 2 z 3"
    assert reference_title("contents", 1, 2, "es") == "Índice general, parte 1 de 2"
    assert reference_title("title pages and contents", 1, 1, "da") == "Titelblad og indhold"
    assert reference_title("title pages and contents", 1, 1, "vi") == "Trang bìa và mục lục"
    assert reference_title("license and index", 1, 2, "ro") == "Licență și index, partea 1 din 2"
    assert reference_title("bibliography and license and index", 2, 2, "hu") == (
        "Irodalomjegyzék, licenc és tárgymutató (2/2. rész)"
    )
    # three or more: a list ("and" twice read as a stammer)
    assert reference_title("title pages and contents and lists", 1, 1, "en") == (
        "Title pages, contents and lists"
    )
    assert reference_title("license and bibliography and change history", 1, 1, "de") == (
        "Lizenz, Literaturverzeichnis und Änderungshistorie"
    )
    assert reference_title("title pages and contents and list of figures", 1, 1, "zh") == (
        "封面、目录与插图目录"
    )


@pytest.mark.parametrize(
    ("title", "label"),
    [
        # what a package's documentation generates after its index, in the sweep's scripts
        ("Change History", "change history"),
        ("9 Change History", "change history"),
        ("Revision History", "change history"),
        ("Versionsgeschichte", "change history"),
        ("Historique des versions", "change history"),
        ("История изменений", "change history"),
        ("更新记录", "change history"),
        ("更新履歴", "change history"),
        # French and Latin indexes by their subject ("Index des commandes")
        ("Index des concepts", "index"),
        ("Index du code", "index"),
        # Spanish, Portuguese and Italian ones (LilyPond's "B Índice de LilyPond" was a
        # chapter the index session held)
        ("B Indice de LilyPond", "index"),
        ("Índice de funciones", "index"),
        ("Indice dei comandi", "index"),
        # met in the sweep, each once: the chapter they held or split was reference
        ("5 Important Changes", "change history"),  # biblatex-sbl's version log
        ("Versionsprotokoll", "change history"),
        ("4 Changes", "change history"),  # skrapport's, a chapter the study session held
        ("Liste der Änderungen", "change history"),  # sr-vorl's, a 2-page study session
        ("Change history for coverage.py", "change history"),  # 44 pages of study sessions
        ("Index général", "index"),
        ("Aineregister", "index"),  # Estonian
        # an index by its subject, its word last: LilyPond's Hungarian manuals' appendix
        # (the bookmark without accents), a Finnish and a German one
        ("B LilyPond targymutato", "index"),
        ("Käsitteiden hakemisto", "index"),
        ("LilyPond-Sachregister", "index"),
        ("Abbreviations", "glossary"),  # a list of them after the version log
        # licences reprinted whole: by their name, or titled so, in the sweep's scripts
        ("GNU Free Documentation License", "license"),
        ("Dodatek B GNU GENERAL PUBLIC LICENSE", "license"),
        ("GNU General Public License, version 2", "license"),  # its outline entry
        ("A The LATEX Project Public License (v 1.3c)", "license"),
        ("C The SIL Open Font License, v1.1", "license"),
        # the GNU GPL's title in the translations of Debian's installation guide
        ("Licencia Pública General GNU", "license"),
        ("Llicència Pública General de GNU", "license"),
        ("Licenza Pubblica Generica GNU", "license"),
        ("Licența publică generală GNU", "license"),
        ("GNU General Public License (Allgemeine Öffentliche GNU-Lizenz, GNU GPL)", "license"),
        ("GNU General Public License — GNU Algemene Publieke Licentie", "license"),
        ("Giấy phép Công cộng GNU", "license"),
        ("GNU 通用公共授权", "license"),
        ("GNU 일반 공중 사용 허가서", "license"),
        ("Licenses", "license"),
        ("Traduction de la licence", "license"),
        ("Traducción de la licencia", "license"),  # latex2e-es, before its indexes
        ("Lizenz", "license"),
        ("Лицензия", "license"),
        ("许可证", "license"),
    ],
)
def test_change_histories_and_named_indexes_are_back_matter(title: str, label: str) -> None:
    assert title_matter(title) == ("back_matter", label)


@pytest.mark.parametrize(
    ("title", "reading"),
    [
        # the other listings a book's front gathers: no chapter, whatever they list
        ("Table des avertissements", ("front_matter", "lists")),
        ("Liste des acronymes prédéfinis", ("front_matter", "lists")),
        ("List of Exercises", ("front_matter", "lists")),
        ("Anhangsverzeichnis", ("front_matter", "lists")),
        ("插图清单", ("front_matter", "list of figures")),
        ("表格清单", ("front_matter", "list of tables")),
        ("算法清单", ("front_matter", "lists")),
        # "Índice de ..." names an index unless the table reads it otherwise
        ("Índice de contenidos", ("front_matter", "contents")),
        ("Indice dei contenuti", ("front_matter", "contents")),
        ("Índice de ilustraciones", ("front_matter", "list of figures")),
        ("Indice delle tabelle", ("front_matter", "list of tables")),
        # a letter-spaced title is read whole: its "I " is no roman numbering
        ("I N H A LT S V E R Z E I C H N I S", ("front_matter", "contents")),
        ("B I B L I O G R A P H Y", ("back_matter", "bibliography")),
    ],
)
def test_listings_and_letter_spaced_titles(title: str, reading: tuple[str, str]) -> None:
    assert title_matter(title) == reading


@pytest.mark.parametrize(
    "title",
    [
        "listofitems package",
        "Listing 3",
        "Lists",
        "插图",
        "I Introduction",
        "Changes in v2",
        "License and requirements",  # an introduction's section on it
        "Choosing a public license for your package",
        "Choosing a GNU license for your package",
        "GNU Emacs",
        "Statusregister",  # a processor's register, not the German index
        "Geçici dizin",  # Turkish: a temporary folder
    ],
)
def test_titles_that_only_look_like_matter(title: str) -> None:
    assert title_matters(title) == []


@pytest.mark.parametrize("title", ["Agradecimientos", "Reconocimientos", "Danksagung"])
def test_thanks_are_reference_matter_in_the_sweeps_languages(title: str) -> None:
    # GLPK's Spanish GMPL manual closes with "Reconocimientos", counted as a chapter
    assert title_matters(title) == [
        ("front_matter", "acknowledgements"),
        ("back_matter", "closing acknowledgements"),
    ]
