"""Titles of front and back matter in the languages of the books Quire meets: one table.

`TITLES` lists, for every kind of reference matter ("contents", "index", "bibliography",
…), how books title it, language by language. The same table serves both directions:

- recognition (`title_matter`): a heading or outline entry whose folded title is any of
  them names that matter ("Bibliografía", "Rejstřík", "찾아보기", "Предметный указатель");
  a title that names more than one ("Índice": the contents in front, the index at the back)
  gives every reading, and the region's place in the book decides;
- naming (`reference_title`): a reference session is titled by what it holds in the
  book's language, as its study sessions are by their headings: a Chinese book gets
  "封面与目录", a Korean one "차례", a German one "Literaturverzeichnis und Register" (the
  first title of the language). The language is told by the script, and within the Latin
  script by its function words (`book_language`); a Latin-script book in none of the
  languages named here, or in two, keeps the English titles.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from quire.shared.ir import Element
from quire.shared.languages import SIGNATURES, sole_language
from quire.shared.links import plain
from quire.shared.text import HAN, HANGUL, KANA

MatterKind = Literal["front_matter", "back_matter"]

_FRONT: MatterKind = "front_matter"
_BACK: MatterKind = "back_matter"

# the author's thanks: front matter before the first chapter, back matter after the last
# (a thesis's "致谢" after its bibliography was a study session)
_THANKS: dict[str, tuple[str, ...]] = {
    "en": ("Acknowledgements", "Acknowledgments"),
    "de": ("Danksagung",),
    "fr": ("Remerciements",),
    "es": ("Agradecimientos", "Reconocimientos"),
    "it": ("Ringraziamenti",),
    "pt": ("Agradecimentos",),
    "nl": ("Dankwoord",),
    "pl": ("Podziękowania",),
    "cs": ("Poděkování",),
    "fi": ("Kiitokset",),
    "ru": ("Благодарности",),
    "el": ("Ευχαριστίες",),
    "zh": ("致谢", "致 谢"),
    "ja": ("謝辞",),
    "ko": ("감사의 글",),
}

# label -> (kind, {language: titles}). The first title of a language names sessions in it.
TITLES: dict[str, tuple[MatterKind, dict[str, tuple[str, ...]]]] = {
    "title pages": (
        _FRONT,
        {
            "en": ("Title pages", "Title page"),
            "de": ("Titelseite", "Titelblatt"),
            "fr": ("Page de titre",),
            "es": ("Portada",),
            "it": ("Frontespizio",),
            "pt": ("Folha de rosto",),
            "nl": ("Titelpagina",),
            "pl": ("Strona tytułowa",),
            "cs": ("Titulní strana",),
            "sv": ("Titelsida",),
            "da": ("Titelblad",),
            "ro": ("Pagina de titlu",),
            "hu": ("Címoldal",),
            "vi": ("Trang bìa",),
            "ru": ("Титульные страницы", "Титульный лист"),
            "zh": ("封面", "标题页"),
            "ja": ("扉",),
            "ko": ("표지",),
            "el": ("Εξώφυλλο",),
            "fa": ("صفحه‌های عنوان",),
            "th": ("หน้าปก",),
        },
    ),
    "contents": (
        _FRONT,
        {
            "en": ("Contents", "Table of contents"),
            "de": ("Inhaltsverzeichnis", "Inhalt"),
            "fr": ("Table des matières", "Sommaire"),
            "es": ("Índice general", "Índice", "Contenido", "Contenidos", "Índice de contenidos"),
            "it": ("Indice", "Sommario", "Indice generale", "Indice dei contenuti"),
            "pt": ("Sumário", "Índice", "Conteúdo", "Índice de conteúdos"),
            "ca": ("Sumari",),  # not "Índex": folded, it is the English "Index"
            "nl": ("Inhoudsopgave", "Inhoud"),
            "pl": ("Spis treści",),
            "cs": ("Obsah",),  # Czech and Slovak
            "hu": ("Tartalomjegyzék", "Tartalom"),
            "fi": ("Sisällys", "Sisällysluettelo", "Sisältö"),
            "et": ("Sisukord",),
            "sv": ("Innehåll", "Innehållsförteckning"),
            "da": ("Indhold", "Indholdsfortegnelse", "Innhold", "Innholdsfortegnelse"),
            "tr": ("İçindekiler",),
            "ro": ("Cuprins",),
            "hr": ("Sadržaj", "Vsebina"),
            "vi": ("Mục lục",),
            "ru": ("Оглавление", "Содержание"),
            "uk": ("Зміст",),
            "el": ("Περιεχόμενα",),
            "he": ("תוכן העניינים",),
            "ko": ("차례", "목차"),
            "zh": ("目录", "目錄", "目次"),
            "ja": ("目次",),
            "fa": ("فهرست مطالب", "فهرست"),
            "th": ("สารบัญ",),
            "mr": ("अनुक्रमणिका",),  # Devanagari
            "hi": ("विषय सूची",),
        },
    ),
    "list of figures": (
        _FRONT,
        {
            "en": ("List of figures", "List of illustrations"),
            "de": ("Abbildungsverzeichnis",),
            "fr": ("Table des figures", "Liste des figures"),
            "es": ("Índice de figuras", "Índice de ilustraciones", "Lista de figuras"),
            "it": ("Elenco delle figure", "Indice delle figure"),
            "pt": ("Lista de figuras",),
            "pl": ("Spis rysunków",),
            "cs": ("Seznam obrázků",),
            "ru": ("Список иллюстраций", "Список рисунков"),
            "el": ("Κατάλογος σχημάτων",),
            "ko": ("그림 차례", "그림 목차"),
            "zh": ("插图目录", "图目录", "插图清单"),
            "ja": ("図目次",),
            "fa": ("فهرست تصاویر", "فهرست شکل‌ها"),
            "th": ("สารบัญรูป", "สารบัญภาพ"),
        },
    ),
    "list of tables": (
        _FRONT,
        {
            "en": ("List of tables",),
            "de": ("Tabellenverzeichnis",),
            "fr": ("Liste des tableaux",),
            "es": ("Índice de cuadros", "Índice de tablas", "Lista de tablas"),
            "it": ("Elenco delle tabelle", "Indice delle tabelle"),
            "pt": ("Lista de tabelas",),
            "pl": ("Spis tabel",),
            "cs": ("Seznam tabulek",),
            "ru": ("Список таблиц",),
            "el": ("Κατάλογος πινάκων",),
            "ko": ("표 차례", "표 목차"),
            "zh": ("表格目录", "表目录", "表格清单"),
            "ja": ("表目次",),
            "fa": ("فهرست جدول‌ها",),
            "th": ("สารบัญตาราง",),
        },
    ),
    "list of listings": (
        _FRONT,
        {
            "en": ("List of listings", "List of examples"),
            "de": ("Beispielverzeichnis",),
            "es": ("Lista de ejemplos",),
            "pt": ("Lista de exemplos",),
            "ru": ("Список листингов",),
            "zh": ("代码目录",),
            "ja": ("コード目次",),
            "fa": ("فهرست برنامه‌ها",),
        },
    ),
    "list of symbols": (
        _FRONT,
        {
            "en": ("List of symbols", "Nomenclature", "List of abbreviations"),
            "de": ("Symbolverzeichnis", "Abkürzungsverzeichnis"),
            "fr": ("Liste des symboles", "Liste des abréviations"),
            "es": ("Lista de símbolos", "Lista de abreviaturas"),
            "pt": ("Lista de símbolos", "Lista de abreviaturas"),
            "zh": ("符号说明", "符号表"),
        },
    ),
    "index": (
        _BACK,
        {
            # (WEB and CWEB weave the index of a program's named modules last)
            "en": ("Index", "Names of the sections"),
            "de": ("Register", "Stichwortverzeichnis", "Sachregister", "Sachverzeichnis"),
            "fr": ("Index général", "Index alphabétique"),
            "es": ("Índice alfabético", "Índice analítico", "Índice temático", "Índice"),
            "it": ("Indice analitico", "Indice dei nomi"),
            "pt": ("Índice remissivo", "Índice"),
            "nl": ("Trefwoordenregister",),
            "pl": ("Skorowidz", "Indeks"),
            "cs": ("Rejstřík",),
            "hu": ("Tárgymutató",),
            "fi": ("Hakemisto", "Asiahakemisto", "Asiahakemistot"),
            "et": ("Aineregister",),
            "sv": ("Sakregister",),
            "da": ("Stikordsregister",),
            "tr": ("Dizin",),
            "vi": ("Chỉ mục",),
            "ro": ("Index",),
            "ru": (
                "Предметный указатель",
                "Указатель",
                "Алфавитный указатель",
                "Индекс",
            ),
            "uk": ("Покажчик", "Предметний покажчик", "Алфавітний покажчик"),
            "el": ("Ευρετήριο",),
            "he": ("מפתח",),
            "ko": ("찾아보기", "색인"),
            "zh": ("索引",),
            "ja": ("索引",),
            "fa": ("نمایه",),
            "th": ("ดัชนี", "ดรรชนี"),
        },
    ),
    "bibliography": (
        _BACK,
        {
            "en": ("Bibliography", "References", "Works cited"),
            "de": ("Literaturverzeichnis", "Literatur", "Bibliographie", "Quellenverzeichnis"),
            "fr": ("Bibliographie", "Références", "Références bibliographiques"),
            "es": ("Bibliografía", "Referencias", "Referencias bibliográficas"),
            "it": ("Bibliografia", "Riferimenti bibliografici"),
            "pt": ("Bibliografia", "Referências", "Referências bibliográficas"),
            "nl": ("Bibliografie", "Literatuur", "Literatuurlijst"),
            "pl": ("Bibliografia", "Literatura"),
            "cs": ("Literatura", "Seznam literatury"),
            "hu": ("Irodalomjegyzék", "Irodalom"),
            "fi": ("Lähteet", "Kirjallisuutta"),
            "et": ("Kirjandus",),
            "sv": ("Litteratur", "Referenser"),
            "da": ("Litteratur", "Litteraturliste", "Bibliografi"),
            "tr": ("Kaynakça",),
            "vi": ("Tài liệu tham khảo",),
            "ro": ("Bibliografie",),
            "ru": ("Литература", "Список литературы", "Библиография"),
            # Ukrainian (lshort-ukr writes "Бібліоґрафія"); a Cyrillic book's sessions are
            # named in Russian (`book_language`), so these only recognise
            "uk": ("Бібліографія", "Бібліоґрафія", "Література", "Список літератури"),
            "el": ("Βιβλιογραφία",),
            "he": ("ביבליוגרפיה", "מקורות"),
            "ko": ("참고 문헌",),
            "zh": ("参考文献", "参考书目"),
            "ja": ("参考文献",),
            "fa": ("کتاب‌نامه", "منابع", "مراجع"),
            "th": ("บรรณานุกรม", "เอกสารอ้างอิง"),
        },
    ),
    "glossary": (
        _BACK,
        {
            # a list of abbreviations at the back ("List of abbreviations" in front is
            # "list of symbols"; a back title is not read in the front matter)
            "en": ("Glossary", "Abbreviations"),
            "de": ("Glossar", "Abkürzungen"),
            "fr": ("Glossaire", "Abréviations"),
            "es": ("Glosario",),
            "it": ("Glossario",),
            "pt": ("Glossário",),
            "cs": ("Slovník pojmů", "Glosář"),
            "ru": ("Глоссарий", "Словарь терминов"),
            "el": ("Γλωσσάριο",),
            "zh": ("术语表", "词汇表"),
            "ja": ("用語集",),
            "fa": ("واژه‌نامه",),
            "th": ("อภิธานศัพท์",),
        },
    ),
    # what a package's documentation generates after its index (ltxdoc's "Change History")
    "change history": (
        _BACK,
        {
            "en": (
                "Change history",
                "Change log",
                "Changelog",
                "Revision history",
                "Important changes",  # biblatex's and its styles' version log
                "Changes",  # skrapport's, after its chapters (a back title: second half only)
                "Version history",
                "List of changes",
            ),
            "de": (
                "Änderungshistorie",
                "Versionsgeschichte",
                "Änderungsprotokoll",
                "Versionsprotokoll",
                "Versionshistorie",
                "Liste der Änderungen",  # sr-vorl's, last
            ),
            "fr": (
                "Historique des modifications",
                "Historique des versions",
                "Historique des changements",
            ),
            "es": ("Historial de cambios", "Registro de cambios"),
            "it": ("Registro delle modifiche", "Cronologia delle modifiche"),
            "pt": ("Histórico de alterações", "Histórico de versões"),
            "ru": ("История изменений", "Список изменений"),
            "zh": ("更新记录", "修改记录", "版本历史", "更新日志"),
            "ja": ("更新履歴", "変更履歴"),
        },
    ),
    "acknowledgements": (_FRONT, _THANKS),
    "closing acknowledgements": (_BACK, _THANKS),
    # the production notes on a book's last page (sbcl's manual: "Colophon" after its
    # index was a chapter of its own to count)
    "colophon": (
        _BACK,
        {
            "en": ("Colophon",),
            "de": ("Kolophon",),
            "fr": ("Colophon", "Achevé d'imprimer"),
            "es": ("Colofón",),
            "it": ("Colophon",),
            "pt": ("Colofão", "Cólofon"),
            "nl": ("Colofon",),
            "pl": ("Kolofon",),
            "cs": ("Tiráž",),
            "sv": ("Kolofon",),
            "da": ("Kolofon",),
            "hu": ("Impresszum",),
            "ru": ("Выходные данные",),
            "zh": ("版权页", "版本记录"),
            "ja": ("奥付",),
            "ko": ("판권",),
        },
    ),
    # the full text of a licence a manual reprints as an appendix (texinfo's GNU FDL, a
    # package's LPPL, lshort's GPL): legal text, to look up, not to study; a short
    # "License" section in an introduction stands in the first half and stays study text
    "license": (
        _BACK,
        {
            "en": ("License", "Licence", "Licenses", "Licences", "License agreement"),
            "de": ("Lizenz", "Lizenzen", "Lizenzbedingungen"),
            "fr": ("Licence", "Traduction de la licence"),
            "es": ("Licencia", "Traducción de la licencia"),
            "it": ("Licenza",),
            "pt": ("Licença",),
            "pl": ("Licencja",),
            "cs": ("Licence",),
            "ru": ("Лицензия",),
            "zh": ("许可证", "许可协议"),
            "ja": ("ライセンス",),
            "ko": ("라이선스", "라이센스"),
            "sv": ("Licens",),
            "da": ("Licens",),
            "ro": ("Licență",),
            "hu": ("Licenc",),
            "vi": ("Giấy phép",),
        },
    ),
}

# ---------------------------------------------------------------------------------------
# Recognition

# "Function and variable index", "Concept index", "Index of commands"
_INDEX_SUFFIX = re.compile(r"(?:index|indexes|indices|указатель|索引)$")
# "Index des commandes", "Índice de LilyPond", "Indice dei comandi", Catalan "Índex del
# LilyPond" and "Índex d'ordres" (after the table, which reads "Índice de figuras" as a
# list of figures), read word by word ("Index design" is no index); a title given as its
# letters alone (the index reader's) by its folded key
_INDEX_PREFIX = re.compile(
    r"^(?:index|indice) (?:of|to|de|des|du|del|dels|d|dei|della|delle|degli|di)\b"
)
_INDEX_KEY_PREFIX = re.compile(r"^(?:index(?:of|to|des|du)|indice(?:de|dei|delle|degli|del|di))")
# an index's page of letters, as a Texinfo HTML index splits it: "General Index: F – L"
_LETTER_RANGE = re.compile(r"(?<=\w)[\s:,.—–-]+[^\W\d_](?:\s*[–—-]\s*[^\W\d_])?\s*$")
# other listings a book's front matter gathers: "List of Exercises", "Table des
# avertissements", "Anhangsverzeichnis", "算法清单" (Verzeichnisse the table names
# otherwise, a bibliography or an index, are found first), labelled "lists"; no title
# names them alone ("Lists" is a chapter on itemize and enumerate)
_LISTING_WORDS = re.compile(r"^[\W\d.]*(?:list of|liste des?|table des)\s", re.IGNORECASE)
_LISTING_SUFFIX = re.compile(r"verzeichnis$|清单$")
# "Chapter 3", "Appendix D", "附录 A", "第八章", "2.4", "A.1", "F References" (an appendix
# letter), Persian digits too
_NUMBERING = re.compile(
    r"^(?:(?:chapter|part|appendix|annex|section|глава|приложение|часть|فصل|پیوست)\s*"
    r"[\w.]{1,6}|附录\s*[a-z\d]{1,3}|第[\d一二三四五六七八九十百]+[章节部篇]"
    r"|[\d.]{1,8}|[a-z](?:\.\d+)+|[ivxlc]{1,6}\.?(?=\s)|[a-z]\.?(?=\s))[\s:.\-–—]*",
    re.IGNORECASE,
)
# a licence by its name, folded: "GNU General Public License", "GNU Free Documentation
# License", "The LaTeX Project Public License (v 1.3c)", "SIL Open Font License, v1.1",
# "GNU General Public License, version 2"
_LICENSE_NAME = re.compile(
    r"(?:public|documentation|font)licen[cs]e(?:v[\da-z]{1,4}|version[\da-z]{0,4})?$"
)
# a change log named for its software: "Change history for coverage.py", "Changelog of foo"
_CHANGE_LOG_FOR = re.compile(
    r"^(?:changehistory|changelog|revisionhistory|versionhistory)(?:for|of)"
)
_NOT_LETTER = re.compile(r"[\W_]+", re.UNICODE)
# "I N H A LT S V E R Z E I C H N I S": a letter-spaced title (its "I " is no numbering)
_LETTER_SPACED = re.compile(r"(?:\w{1,2} ){3,}\w{1,2}")
_LATIN1_CYRILLIC = re.compile(r"^[\s\dÀ-ÿ.,:;!?()\-–—]+$")
_LATIN1_LETTER = re.compile(r"[À-ÖØ-öø-ÿ]")
# "2.4.3 Contents": a numbered subsection about contents (or an index), studied as such
_SUBSECTION = re.compile(r"^\s*#*\s*\d+\.\d+")


def fold_title(text: str) -> str:
    """A title reduced for comparison: casefolded, numbering dropped, accents and every
    character but letters dropped (spaces and zero-width joiners too: Persian extraction
    loses them; TeX's spacing accents, "Bibliograf´ıa", become nothing)."""
    return _NOT_LETTER.sub("", _bare(text))


def _words(text: str) -> str:
    """A title reduced as `fold_title` does, its words kept apart by one space."""
    return " ".join(_NOT_LETTER.sub(" ", _bare(text)).split())


def _bare(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\u200c", "").strip().lstrip("#").strip()
    if _LETTER_SPACED.fullmatch(text):
        text = text.replace(" ", "")
    text = _NUMBERING.sub("", text.casefold(), count=1)
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return bare.replace("ı", "i")


def _readings() -> dict[str, list[tuple[MatterKind, str]]]:
    out: dict[str, list[tuple[MatterKind, str]]] = {}
    for label, (kind, names) in TITLES.items():
        for titles in names.values():
            for title in titles:
                found = out.setdefault(fold_title(title), [])
                if (kind, label) not in found:
                    found.append((kind, label))
    return out


_READINGS = _readings()  # folded title -> every (kind, label) it may name, front first
# an index titled by its subject, its word last as in the table: "B LilyPond tárgymutató",
# "Käsitteiden hakemisto", "LilyPond-Sachregister"; one-word titles of the index alone, six
# letters or more ("Dizin" is Turkish for a folder, "Register" a processor's too)
_INDEX_WORDS = re.compile(
    "(?:"
    + "|".join(
        sorted(
            {
                key
                for titles in TITLES["index"][1].values()
                for key in map(fold_title, titles)
                if len(key) >= 6 and key != "register" and _READINGS[key] == [(_BACK, "index")]
            }
        )
    )
    + ")$"
)
# a GNU licence in translation, folded, "GNU" at either end: "Licencia Pública General GNU",
# "GNU 通用公共授权", "GNU 일반 공중 사용 허가서", "Giấy phép Công cộng GNU", "GNU ... GNU-Lizenz"
_LICENSE_WORDS = (
    "лиценз",
    "허가서",
    "라이선스",
    "라이센스",
    "授权",
    "许可",
    "ライセンス",
    "giấy phép",
)
_GNU_LICENSE = re.compile("licen[cstz]|lizenz|" + "|".join(map(fold_title, _LICENSE_WORDS)))


def _index_prefix(words: str) -> bool:
    """`words` (a title as `_words` gives it) opens as an index of a subject does."""
    return bool(_INDEX_PREFIX.match(words) if " " in words else _INDEX_KEY_PREFIX.match(words))


def _gnu_license(key: str) -> bool:
    return (key.startswith("gnu") or key.endswith("gnu")) and bool(_GNU_LICENSE.search(key))


def cyrillic_from_latin1(text: str) -> str | None:
    """Cyrillic text whose fonts extracted it as Latin-1 ("Îãëàâëåíèå"), decoded again as
    Windows-1251 ("Оглавление"); None when the text does not look like that."""
    # three letters or more: "Ä", "Ö", "Ü" alone are a German index's letter groups, not "Д"
    if not _LATIN1_CYRILLIC.match(text) or len(_LATIN1_LETTER.findall(text)) < 3:
        return None
    try:
        return text.encode("latin-1").decode("cp1251")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return None


def title_matters(text: str) -> list[tuple[MatterKind, str]]:
    """Every (kind, label) `text` may name as a title of front or back matter, front
    first ("Índice": contents, then index); [] for any other title."""
    if _SUBSECTION.match(text):
        return []
    letters = _LETTER_RANGE.search(text)
    if letters and (_BACK, "index") in title_matters(text[: letters.start()]):
        return [(_BACK, "index")]
    for variant in (text, cyrillic_from_latin1(text.lstrip("# ").strip())):
        words = _words(variant) if variant else ""
        key = words.replace(" ", "")  # fold_title(variant)
        if not variant or not key:
            continue
        if key in _READINGS:
            return sorted(_READINGS[key], key=lambda r: r[0] != _FRONT)
        if _INDEX_SUFFIX.search(key) or _INDEX_WORDS.search(key) or _index_prefix(words):
            return [(_BACK, "index")]
        if _LICENSE_NAME.search(key) or _gnu_license(key):
            return [(_BACK, "license")]
        if _CHANGE_LOG_FOR.match(key):
            return [(_BACK, "change history")]
        if _LISTING_WORDS.match(variant) or _LISTING_SUFFIX.search(key):
            return [(_FRONT, "lists")]
    return []


def title_matter(text: str) -> tuple[MatterKind, str] | None:
    """The first reading of `text` as front or back matter (see `title_matters`)."""
    found = title_matters(text)
    return found[0] if found else None


# ---------------------------------------------------------------------------------------
# Naming


@dataclass(frozen=True)
class _Language:
    join: str  # between two labels: "contents and list of figures"
    part: str  # "{title}, part {i} of {n}"
    lower: bool = True  # a title after the first in lower case (German nouns keep theirs)
    comma: str = ", "  # between the others of three or more: "title pages, contents and lists"


_ENGLISH = _Language(" and ", "{title}, part {i} of {n}")
_LANGUAGES = {
    "zh": _Language("与", "{title}（第 {i} 部分，共 {n} 部分）", comma="、"),
    "ja": _Language("と", "{title}（{i}/{n}）", comma="、"),
    "ko": _Language(" 및 ", "{title} ({i}/{n})"),
    "fa": _Language(" و ", "{title}، بخش {i} از {n}", comma="، "),
    "ru": _Language(" и ", "{title}, часть {i} из {n}"),
    "el": _Language(" και ", "{title}, μέρος {i} από {n}"),
    "th": _Language(" และ ", "{title} ส่วนที่ {i} จาก {n}", lower=False, comma=" "),
    "de": _Language(" und ", "{title}, Teil {i} von {n}", lower=False),
    "fr": _Language(" et ", "{title}, partie {i} sur {n}"),
    "es": _Language(" y ", "{title}, parte {i} de {n}"),
    "it": _Language(" e ", "{title}, parte {i} di {n}"),
    "pt": _Language(" e ", "{title}, parte {i} de {n}"),
    "nl": _Language(" en ", "{title}, deel {i} van {n}"),
    "pl": _Language(" i ", "{title}, część {i} z {n}"),
    "cs": _Language(" a ", "{title}, část {i} z {n}"),
    "sv": _Language(" och ", "{title}, del {i} av {n}"),
    "da": _Language(" og ", "{title}, del {i} af {n}"),
    "ro": _Language(" și ", "{title}, partea {i} din {n}"),
    "hu": _Language(" és ", "{title} ({i}/{n}. rész)"),
    "vi": _Language(" và ", "{title}, phần {i}/{n}"),
}

_HAN = re.compile(f"[{HAN}]")
_KANA = re.compile(f"[{KANA}]")
_HANGUL = re.compile(f"[{HANGUL}]")
_PERSIAN_ONLY = frozenset("پچژگ")
# the scripts book_language counts, by regular expression (a loop over characters in
# Python took half a second a book)
_ASCII_LETTERS = re.compile("[A-Za-z]+")
_ARABIC = re.compile("[\u0600-\u06ff]")
_PERSIAN = re.compile(f"[{''.join(sorted(_PERSIAN_ONLY))}]")  # all in U+0600-U+06FF
_CYRILLIC = re.compile("[\u0400-\u04ff]")
_GREEK = re.compile("[\u0370-\u03ff\u1f00-\u1fff]")
_THAI = re.compile("[\u0e00-\u0e7f]")
_WORD = re.compile(r"[^\W\d_]+")  # a Latin-script book's words, for its function words
SAMPLE_CHARS = 200_000  # enough text to tell a book's script
HEADING_LETTERS = 500  # enough headings to tell their script
HEADING_SIGNATURE_WORDS = 8  # a language's function words in the headings that name it


def _script_letters(elements: Sequence[Element]) -> Counter[str]:
    """Letters per script in the first SAMPLE_CHARS characters of prose."""
    letters: Counter[str] = Counter()
    taken = 0
    for e in elements:
        if e.type in ("code", "image", "formula") or taken > SAMPLE_CHARS:
            continue
        text = e.text
        taken += len(text)
        letters["latin"] += sum(map(len, _ASCII_LETTERS.findall(text)))
        if text.isascii():
            continue  # none of the other scripts
        letters["kana"] += len(_KANA.findall(text))
        letters["han"] += len(_HAN.findall(text))
        letters["hangul"] += len(_HANGUL.findall(text))
        persian = len(_PERSIAN.findall(text))
        letters["persian"] += persian
        letters["arabic"] += len(_ARABIC.findall(text)) - persian
        letters["cyrillic"] += len(_CYRILLIC.findall(text))
        letters["greek"] += len(_GREEK.findall(text))
        letters["thai"] += len(_THAI.findall(text))
    return letters


def book_language(elements: Sequence[Element]) -> str:
    """The language a book's reference titles are written in, told by its script: "zh"
    (Han), "ja" (Han with kana), "ko" (Hangul), "fa" (Arabic script with Persian letters),
    "ru" (Cyrillic), "el" (Greek), "th" (Thai), else "en". Arabic-script books without
    Persian letters stay "en": a Persian title would be wrong for them. The titles stand
    among the book's headings, so their script decides when they have HEADING_LETTERS
    letters (a Persian or Japanese manual's prose can hold more Latin, its commands, than
    its own script)."""
    letters = _script_letters([e for e in elements if e.type == "heading"])
    if sum(letters.values()) < HEADING_LETTERS:
        letters = _script_letters(elements)
    # a CJK character stands for about two Latin letters' worth of text
    cjk = 2 * (letters["han"] + letters["kana"])
    if 2 * letters["hangul"] > max(letters["latin"], cjk):
        return "ko"
    if cjk > letters["latin"]:
        return "ja" if letters["kana"] * 10 > letters["han"] else "zh"
    arabic = letters["arabic"] + letters["persian"]
    if arabic > letters["latin"] and letters["persian"]:
        return "fa"
    if letters["cyrillic"] > letters["latin"]:
        return "ru"
    if letters["greek"] > letters["latin"]:
        return "el"
    if letters["thai"] > letters["latin"]:
        return "th"
    return _latin_language(elements)


def _latin_language(elements: Sequence[Element]) -> str:
    """A Latin-script book's language told by its function words
    (`quire.shared.languages.sole_language`) when it is one named here, else "en". Links
    count as their text: their targets ("#el-000027") are no words of the book ("el" made
    English manuals Spanish). Where the prose names no one language (TikZ code set as
    paragraphs, "at" and "on" outweighing VisualTikZ's French; Portuguese read as Spanish
    too), the headings do when HEADING_SIGNATURE_WORDS of their words name one."""
    words: Counter[str] = Counter()
    taken = 0
    for e in elements:
        if e.type not in ("paragraph", "list"):
            continue
        text = plain(e.text)
        taken += len(text)
        words.update(_WORD.findall(text.casefold()))
        if taken > SAMPLE_CHARS:
            break
    lang = sole_language(words)
    if lang is None:
        titles = Counter(
            w
            for e in elements
            if e.type == "heading"
            for w in _WORD.findall(plain(e.text).casefold())
        )
        lang = sole_language(titles)
        if (
            lang in SIGNATURES
            and sum(titles[w] for w in SIGNATURES[lang]) < HEADING_SIGNATURE_WORDS
        ):
            lang = None
    return lang if lang in _LANGUAGES else "en"


def reference_title(label: str, part: int, parts: int, language: str) -> str:
    """The title of one reference session: its region's label ("title pages and
    contents") in `language`, with its part number when the region has several."""
    lang = _LANGUAGES.get(language, _ENGLISH)
    labels = label.split(" and ")
    names = [TITLES[x][1].get(language) if x in TITLES else None for x in labels]
    if language not in _LANGUAGES or not all(names):
        # English, or a label without a title in that language: the English title
        english = [TITLES[x][1]["en"][0].lower() if x in TITLES else x for x in labels]
        lang, pieces = _ENGLISH, english
    else:
        pieces = [n[0].lower() if lang.lower else n[0] for n in names if n]
    listed = lang.comma.join(pieces[:-1])
    title = unicodedata.normalize("NFC", lang.join.join([listed, pieces[-1]] if listed else pieces))
    title = title[:1].upper() + title[1:]
    return lang.part.format(title=title, i=part, n=parts) if parts > 1 else title
