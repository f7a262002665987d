"""The author's index as key terms: index pages parsed (entries, sub-entries, see / see
also, roman numerals, ranges, wrapped lines, defining locators) in English, Chinese and
Russian (and on corpus books in English, Chinese, Russian and Persian), printed page labels
mapped to pages, locators landing in the session that holds their page, and key phrases
(no stop words, no generic verbs) for a book without an index."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from corpus import CORPUS
from index_samples import CHINESE, ENGLISH, RUSSIAN, Book, build_book

import quire
from quire.shared.ir import Document, RemovedText
from quire.shared.languages import book_languages
from quire.shared.manifest import load_manifest
from quire.workers.analysis.book_index import (
    IndexEntry,
    IndexLine,
    IndexPage,
    IndexSpan,
    parse_index,
    split_entry,
)
from quire.workers.analysis.book_terms import read_book_index, session_terms
from quire.workers.analysis.key_phrases import _EN_STOP, PhraseIndex
from quire.workers.analysis.page_labels import page_labels
from quire.workers.analysis.session_terms import shown_entry
from quire.workers.parse import parse_document
from quire.workers.parse.pdf_index_lines import read_index_pages
from tests.irgen import build_doc, heading, para


def parsed(tmp_path: Path, book: Book) -> tuple[Path, Document]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = build_book(tmp_path / "book.pdf", book)
    return path, parse_document(path).document


def entries(tmp_path: Path, book: Book) -> list[tuple[str, list[str], list[str], list[str]]]:
    path, doc = parsed(tmp_path, book)
    out = []
    for e in read_book_index(doc, path).entries:
        locators = [
            f"{loc.first}{'–' + loc.last if loc.last else ''}{'*' if loc.defining else ''}"
            for loc in e.locators
        ]
        out.append((e.display, locators, e.see, e.see_also))
    return out


def test_an_index_page_becomes_entries(tmp_path: Path) -> None:
    assert entries(tmp_path, ENGLISH) == [
        ("factor levels", ["5"], [], []),
        ("levels", [], ["factor levels"], []),
        ("matrix product", ["3", "4"], [], []),
        ("multiplication of vectors and matrices by columns", ["3"], [], []),  # wrapped
        ("notation", ["ii"], [], []),  # a roman page label
        ("outer product", ["4"], [], ["matrix product"]),
        ("recycling rule", ["1", "2*"], [], []),  # the bold locator: defined there
        ("transpose", ["3–4"], [], []),  # a range
        ("vectors", [], [], []),  # a heading for its sub-entries
        ("vectors (arithmetic)", ["1"], [], []),
        ("vectors (recycling)", [], ["recycling rule"], []),
    ]


def test_chinese_and_russian_indexes(tmp_path: Path) -> None:
    assert entries(tmp_path / "zh", CHINESE) == [
        ("宏包", ["1"], [], []),
        ("数学公式", ["2–3"], [], []),
        ("文档类", [], ["宏包"], []),
        ("表格", ["3"], [], []),
        ("表格 (列格式)", ["3"], [], []),
    ]
    assert entries(tmp_path / "ru", RUSSIAN) == [
        ("окружение", ["2"], [], ["таблица"]),
        ("пакет", ["1"], [], []),
        ("таблица", ["3"], [], []),
        ("таблица (ширина столбца)", ["3"], [], []),
    ]


@pytest.mark.parametrize(
    ("line", "term", "locators"),
    [
        ("anova . . . . . . . . . 58, 60", "anova", [("58", None), ("60", None)]),
        ("preface, xiv, 3", "preface", [("xiv", None), ("3", None)]),
        ("build, T-3, 12--15, 40ff", "build", [("T-3", None), ("12", "15"), ("40", None)]),
        ("\\,, 3, 13", "\\,", [("3", None), ("13", None)]),  # a comma that is the term
        ("Smith, John, 12", "Smith, John", [("12", None)]),
        ("atan2, 38", "atan2", [("38", None)]),  # a digit inside the term stays there
        ("۳۹ ،۳۷ ،سبک متنی", "سبک متنی", [("39", None), ("37", None)]),  # RTL, visual order
        ("mix civil", "mix civil", []),  # words that look roman are no locators
        # paracol: a range after the first locator, and a line that goes on below
        (
            "\\footnote. . . . 10, 25, 33–37, 60",
            "\\footnote",
            [("10", None), ("25", None), ("33", "37"), ("60", None)],
        ),
        ("κc(δ). . . . . . . . 65,", "κc(δ)", [("65", None)]),
        ("abkhaz (root language) . . . . §1; Table 1.2", "abkhaz (root language)", []),
        # a TeX control word holds no digits: what follows it is its locators
        ("\\@biblabel 725, 726", "\\@biblabel", [("725", None), ("726", None)]),
        ("\\@oddhead. 780", "\\@oddhead", [("780", None)]),
        ("\\@Masterstrue . 156", "\\@Masterstrue", [("156", None)]),  # a single leader
        ("Windows 10, 45", "Windows 10", [("45", None)]),
    ],
)
def test_locators_are_split_from_the_term(
    line: str, term: str, locators: list[tuple[str, str | None]]
) -> None:
    got = split_entry(line)
    assert (got[0], got[1]) == (term, locators)


def test_page_labels_from_the_pdf_and_from_printed_numbers() -> None:
    labels = page_labels(8, ["i", "ii", "1", "2", "3", "4", "5", "6"])
    assert labels.pages("ii") == [2] and labels.pages("3") == [5]
    assert labels.span("3", "4") == [5, 6] and labels.pages("۳") == [5]  # Persian digits
    # no PDF labels: the page numbers the parser removed, the rest by their shared offset
    removed = [
        RemovedText(page=2, kind="page_number", text="ii"),
        RemovedText(page=4, kind="page_number", text="1"),
        RemovedText(page=5, kind="header", text="2 Chapter title"),
        RemovedText(page=6, kind="header", text="3 Getting started 3"),
        RemovedText(page=7, kind="header", text="Version 5.4"),  # no page number
    ]
    printed = page_labels(30, (), removed)
    assert printed.pages("1") == [4] and printed.pages("2") == [5]
    assert printed.pages("20") == [23]  # printed 20 was never seen: the offset says 23
    assert printed.pages("4") == [7] and printed.pages("ii") == [2]
    assert printed.pages("99") == []  # past the end


def test_locators_land_in_the_session_holding_their_page(tmp_path: Path) -> None:
    path, doc = parsed(tmp_path, ENGLISH)
    terms = session_terms(doc, read_book_index(doc, path))

    def on_pages(first: int, last: int, skip_first: bool = False) -> list[tuple[str, bool]]:
        here = [i for i, e in enumerate(doc.elements) if first <= e.page_first <= last]
        lo = here[1] if skip_first else here[0]
        return sorted((t.term, t.defining) for t in terms.terms(lo, here[-1]))

    assert on_pages(2, 2) == [("notation", False)]  # "ii" is the second physical page
    assert on_pages(3, 4) == [
        ("recycling rule", True),  # bold locator: defined on page 2 (physical 4)
        ("vectors (arithmetic)", False),
    ]
    assert ("transpose", False) in on_pages(5, 6) and ("outer product", False) in on_pages(5, 6)
    assert on_pages(7, 7) == [("factor levels", False)]
    # a session cut after the heading of page 5: the term goes to the one that says it
    assert ("matrix product", False) in on_pages(5, 5, skip_first=True)
    heading_only = next(i for i, e in enumerate(doc.elements) if e.page_first == 5)
    assert terms.terms(heading_only, heading_only) == terms.phrases().top(
        heading_only, heading_only
    )


def test_a_book_with_an_index_gets_its_terms_end_to_end(tmp_path: Path) -> None:
    path = build_book(tmp_path / "book.pdf", ENGLISH)
    quire.split(path, tmp_path / "out", backend="heuristic")
    manifest = load_manifest((tmp_path / "out" / "manifest.json").read_bytes())
    study = [c for c in manifest.chunks if c.kind == "study"]
    terms = {t.term for c in study for t in c.key_terms}
    assert {"recycling rule", "matrix product", "transpose", "factor levels"} <= terms
    assert all(t.source == "index" for c in study for t in c.key_terms)
    for c in study:  # key terms live in their own field, never in the title
        assert not any(t.term in c.title for t in c.key_terms), c.title


def key_phrases(heading_text: str, text: str, other: str) -> list[str]:
    """The key phrases of a one-section book's section (`other`: a second section)."""
    doc = build_doc([heading(heading_text, 1), para(text, 1), para(other, 2)])
    return [t.term for t in PhraseIndex.of(doc.elements).top(0, 1)]


def test_key_phrases_are_never_stop_words_or_generic_verbs() -> None:
    text = (
        "The package manager installs the shared libraries and it runs the test suite. "
        "Shared libraries are installed in the library directory; the package manager "
        "uses the BLAS_LIBS variable to find the shared libraries. We make sure that it "
        "works, then we use the package manager again and it is done. "
    )
    found = key_phrases("1 Installing", text * 4, "Unrelated words about cooking.")
    assert "shared libraries" in found and "package manager" in found
    assert any("BLAS_LIBS" in t for t in found)  # a name of the subject's own
    for phrase in found:
        words = phrase.casefold().split()
        assert words[0] not in _EN_STOP and words[-1] not in _EN_STOP, phrase
        assert len(words) >= 2 or phrase == "BLAS_LIBS", phrase
    assert not {"installs", "installed", "runs", "uses", "make", "works", "done"} & {
        w for t in found for w in t.casefold().split()
    }


def test_key_phrases_end_at_a_verb_after_a_pronoun_and_not_in_a_participle() -> None:
    """bash's reference manual had "name refers", "compspec generates", "last command
    executed" and "list printed" among its key terms: a word a subject pronoun stands
    before is a verb ("it generates"), and a phrase does not end in a past participle (one
    before its noun stays: "shared library")."""
    text = (
        "The compspec generates the list of matches and it generates the list again when "
        "the last command executed fails. The directory list printed by dirs shows the "
        "shared library path; it generates a shared library for the compspec. "
    )
    found = key_phrases("1 Completion", text * 4, "Unrelated words about cooking.")
    assert "shared library path" in found or "shared library" in found, found
    assert not [t for t in found if t.casefold().split()[-1] in {"executed", "printed"}], found
    assert not [t for t in found if "generates" in t.casefold().split()], found


def test_key_phrases_hold_no_filler_measures_sample_letters_or_placeholders() -> None:
    """The TL sweep's key phrases, read against the books' own indexes: "sit amet",
    "Cras viverra metus", "Curabitur auctor semper" (lorem ipsum and the lipsum package's
    paragraphs), "10pt 11pt", "ABCDE", "AAA", "ABCDEabcde1234", "arg1", "arg2", "false
    default" named what the sessions show, not what they teach."""
    text = (
        "The font size option takes 10pt 11pt or 12pt and the font size option is false "
        "default. The sample line ABCDEabcde1234 shows the font size option with ABCDE and "
        "AAA. The macro takes arg1 and arg2 and the macro expands arg1 before arg2. "
    )
    lorem = (
        "Lorem ipsum dolor sit amet, consectetuer adipiscing elit. Cras viverra metus "
        "rhoncus sem. Curabitur auctor semper nulla, commodo posuere pede gravida. "
    )
    els = [heading("1 Font size", 1), para(text * 4, 1), para(lorem * 4, 1)]
    doc = build_doc([*els, para("Unrelated words about cooking.", 2)])
    found = [t.term for t in PhraseIndex.of(doc.elements).top(0, 2)]
    assert "font size option" in found, found
    filler = {"sit", "amet", "elit", "cras", "viverra", "curabitur", "auctor", "semper"}
    filler |= {"abcdeabcde1234", "arg1", "arg2", "10pt", "11pt", "abcde", "aaa", "false"}
    assert not [t for t in found if filler & set(t.casefold().split())], found


def test_character_codes_are_no_key_phrases() -> None:
    """Font manuals list their encodings: ap-info's and kurier-info's key terms were "xAA",
    "xDF", "x9B", GregorioNabcRef's its glyphs' "C26A", "C81E". A code is no term; the
    processor "x86" may be one."""
    text = (
        "The encoding vector maps xAA to C26A and xDF to C81E; the encoding vector puts "
        "U+00E9 at 0x1F and x9B at F040. An encoding vector targets x86 machines. "
    )
    found = key_phrases("1 Encoding", text * 4, "Unrelated words about cooking.")
    assert "encoding vector" in found and any("x86" in t for t in found), found
    codes = {"xAA", "C26A", "xDF", "C81E", "U+00E9", "0x1F", "x9B", "F040"}
    assert not [t for t in found if codes & set(t.split())], found


def test_a_template_opening_many_elements_is_no_key_phrase() -> None:
    """l3doc sets "(End definition for \\foo.)" after every definition: "End definition"
    was a key phrase of 9 TL manuals. A phrase opening nearly every element it is in is a
    template's words; a term that opens some of its paragraphs stays."""
    els = [heading("1 Sequences", 1)]
    for n in range(8):
        els += [para(f"The token list holds the sequence item {n}; the token list grows.", 1)]
        els += [para(f"(End definition for \\seq_item_{n}:n and others.)", 1)]
    els += [para("Token list variables hold the sequence items in order.", 1)]
    doc = build_doc([*els, para("Unrelated words about cooking.", 2)])
    found = [t.term for t in PhraseIndex.of(doc.elements).top(0, len(els) - 1)]
    assert "token list" in found, found
    assert not [t for t in found if "end definition" in t.casefold()], found


def test_a_french_books_key_phrases_end_at_its_verbs() -> None:
    """The TL sweep's French manuals had "paramètre spécifie", "false écrit" and "false
    affiche" among their key phrases: in a book written in French, a word before "le",
    "la", "les", "un", "une" or after "il", "on", "se" is a verb, as in English."""
    french = (
        "Le paramètre spécifie la taille de la boîte et le paramètre affiche la marge. "
        "La macro écrit le texte dans le fichier auxiliaire ; on spécifie la taille de la "
        "boîte avec le paramètre, et il affiche le résultat. Le fichier auxiliaire se "
        "trouve dans le répertoire courant de la compilation. "
    )
    found = key_phrases("1 Paramètres", french * 4, "Un autre sujet sur la cuisine.")
    assert "fichier auxiliaire" in found, found
    verbs = {"spécifie", "affiche", "écrit", "trouve"}
    assert not [t for t in found if verbs & set(t.casefold().split())], found


def test_a_tex_manuals_key_phrases_name_its_commands() -> None:
    """A LaTeX manual teaches commands, and its index names them ("\\section"): read as a
    backslash and a word, "section" was never a candidate on its own, and the TL sweep's key
    phrases matched their books' indexes 13.7 % of the time (27.3 % with control words).
    Environment brackets, conditional branches and "\\foo" are no key terms."""
    text = (
        "The \\chapter command starts a chapter and \\section starts a section of it. "
        "Inside \\begin{document} and \\end{document} the \\section command numbers the "
        "section; \\fi and \\else close a conditional. Define \\foo to try the sectioning "
        "commands, and give \\section a short title for the running head. "
    )
    found = key_phrases("1 Sectioning", text * 4, "Unrelated words about cooking.")
    assert {"\\section", "\\chapter"} <= set(found), found
    assert not {"\\begin", "\\end", "\\fi", "\\else", "\\foo"} & set(found), found
    assert not [t for t in found if "\\" in t and " " in t], found  # alone, never in a phrase


def test_a_german_books_key_phrases_hold_no_german_function_words() -> None:
    """DEMO-TUDaPub and ArsClassica-de: "für die, der Titelseite, auf der, über die" were
    a German manual's key terms. The function words of the language a book is written in
    end a phrase; an English book is written in none of them."""
    german = (
        "Die Titelseite wird mit dem Befehl maketitle gesetzt, und die farbige Titelseite "
        "zeigt das Logo der Universität. Auf der Titelseite steht der Name der Arbeit; "
        "für die Abschlussarbeit gibt es eine eigene Titelseite, über die man alles "
        "einstellen kann. "
    )
    found = key_phrases("1 Titelseite", german * 4, "Ein anderes Thema.")
    assert found and "Titelseite" in " ".join(found)
    function_words = {"die", "der", "das", "auf", "für", "über", "mit", "dem", "und", "eine"}
    for phrase in found:
        words = phrase.casefold().split()
        assert words[0] not in function_words and words[-1] not in function_words, phrase
    english = Counter(("the package manager installs the shared libraries " * 20).split())
    assert book_languages(english) == []
    assert book_languages(Counter(german.casefold().split())) == ["de"]


def test_a_german_books_key_phrases_end_in_a_noun() -> None:
    """The TL sweep's German manuals had "folgendes enthält", "Makros geschrieben" and
    "Titelseite platziert" among their key phrases: German capitalises its nouns, and a
    noun phrase ends in its noun."""
    german = (
        "Die geschweiften Klammern werden vom Befehl übergeben; die Makros werden in "
        "geschweiften Klammern geschrieben. Der Titel wird auf der Titelseite platziert, "
        "folgendes enthält die Titelseite: das Logo, den Titel und die geschweiften Klammern "
        "der Makros, die auf der Titelseite platziert werden. "
    )
    found = key_phrases("1 Titelseite", german * 4, "Ein anderes Thema.")
    assert "geschweiften Klammern" in found, found
    for phrase in found:
        assert phrase.split()[-1][0].isupper(), (phrase, found)


def test_key_phrases_hold_no_adverbs() -> None:
    """ "map immediately terminates", "available locally", "loaded automatically": a word
    in -ly whose base the book also uses ("immediate", "local", "automatic") is an
    adverb and ends a phrase; "font family" and "assembly language" keep their nouns."""
    text = (
        "The font family is loaded automatically and the map immediately terminates; the "
        "font family of the assembly language is available locally. An automatic font "
        "family needs a local copy and an immediate reload of the assembly language. "
    )
    found = key_phrases("1 Fonts", text * 4, "Unrelated words about cooking.")
    assert {"font family", "assembly language"} <= set(found), found
    adverbs = {"automatically", "immediately", "locally"}
    assert not [t for t in found if adverbs & set(t.casefold().split())], found


def test_japanese_key_phrases_hold_no_hiragana() -> None:
    """A Japanese manual's key phrases were "作成 します", "場合 です", "指定 のとき":
    hiragana are its particles and verb endings and end a phrase like stop words; the
    kanji and katakana words around them are candidates ("和文 フォント")."""
    japanese = (
        "和文フォントを指定します。和文フォントの場合です。和文フォントを作成します。"
        "ベースラインシフトの影響を指定のときに設定します。"
    )
    found = key_phrases("1 和文フォント", japanese * 4, "別の話題について。")
    assert found, found
    assert not [t for t in found if re.search("[\u3040-\u309f]", t)], found
    assert any("フォント" in t for t in found), found


# --- corpus books in four scripts ----------------------------------------------------------

KNOWN = {
    "amsmath-user-guide.pdf": ("align environment", ["4", "6", "7", "9", "26", "31–33"]),
    "lshort-zh-cn.pdf": ("amsmath 宏包", ["39"]),
    "lshort-russian.pdf": ("пакет", ["6", "9", "99"]),  # fonts give Latin-1: shown as Cyrillic
    "lshort-persian.pdf": ("piecewise function", ["45"]),  # a right-to-left index
}


@pytest.mark.corpus
@pytest.mark.parametrize("name", sorted(KNOWN))
def test_corpus_indexes_are_read_and_their_locators_land_on_their_pages(name: str) -> None:
    path = CORPUS / name
    doc = parse_document(path).document
    data = read_book_index(doc, path)
    term, locators = KNOWN[name]
    found = {
        shown_entry(e): [f"{loc.first}{'–' + loc.last if loc.last else ''}" for loc in e.locators]
        for e in data.entries
    }
    assert found.get(term) == locators
    # every locator's term lands on the page it names (checked page by page)
    labels = page_labels(doc.page_count, data.labels, doc.removed)
    terms = session_terms(doc, data)
    by_page: dict[int, list[int]] = {}  # the elements on each page (spanning ones too)
    for i, e in enumerate(doc.elements):
        for page in range(e.page_first, e.page_last + 1):
            by_page.setdefault(page, []).append(i)
    landed = total = 0
    for e in data.entries:
        for loc in e.locators:
            for page in labels.span(loc.first, loc.last)[:1]:
                if page in by_page:
                    total += 1
                    here = terms.terms(by_page[page][0], by_page[page][-1])
                    landed += shown_entry(e) in {t.term for t in here}
    assert total > 300 and landed >= 0.9 * total


def test_a_glossary_gives_its_terms_to_the_sessions_that_say_them() -> None:
    body = "The recycling rule repeats the shorter vector. " * 30
    doc = build_doc(
        [
            heading("1 Vectors", 1, page=1),
            para(body, page=1, page_last=2),
            heading("2 Matrices", 1, page=3),
            para("A matrix product multiplies rows by columns. " * 30, page=3, page_last=4),
            heading("3 Regression", 1, page=5),
            para("Least squares fits a line; nothing else here. " * 30, page=5, page_last=6),
            heading("Glossary", 1, page=7),
            para("recycling rule: how R lengthens the shorter vector", page=7),
            para("matrix product — rows of one times columns of the other", page=7),
        ]
    )
    data = read_book_index(doc, None)  # a glossary needs no PDF: a DOCX has them too
    assert data.glossary == ["recycling rule", "matrix product"] and not data.entries
    terms = session_terms(doc, data)
    first = terms.terms(0, 1)
    assert [(t.term, t.source) for t in first] == [("recycling rule", "glossary")]
    assert [t.term for t in terms.terms(2, 3)] == ["matrix product"]
    assert all(t.source == "phrase" for t in terms.terms(4, 5))  # says neither: key phrases


def test_a_numbered_group_of_the_index_is_no_parent_of_its_entries() -> None:
    """VisuelPSTricks groups its index as "1) Commandes", "3) Variables PsTricks": the
    commands were key terms "1) Commandes (\\Cnode)" in 30 sessions."""

    def line(text: str, x0: float, y0: float) -> IndexLine:
        return IndexLine(x0, x0 + 120, y0, y0 + 10, 10.0, [IndexSpan(text)])

    rows = [("Index", 50), ("1) Commandes", 50), ("\\Cnode, 37", 60), ("\\psarc, 5, 6", 60)]
    rows += [("vectors", 50), ("arithmetic, 1", 60), ("3) Variables PsTricks", 50)]
    rows += [("arcsep, 12", 60)]
    page = IndexPage(9, 600, 800, [line(t, x, 100 + 12 * i) for i, (t, x) in enumerate(rows)])
    assert [(e.display, [loc.first for loc in e.locators]) for e in parse_index([page])] == [
        ("\\Cnode", ["37"]),
        ("\\psarc", ["5", "6"]),
        ("vectors", []),
        ("vectors (arithmetic)", ["1"]),
        ("arcsep", ["12"]),
    ]


def _page(number: int, rows: list[tuple[str, float, float]]) -> IndexPage:
    """An index page of lines (text, left edge, font size), 14 points apart."""
    return IndexPage(
        number,
        600,
        800,
        [
            IndexLine(x, x + 150, 100 + 14 * i, 100 + 14 * i + size, size, [IndexSpan(t)])
            for i, (t, x, size) in enumerate(rows)
        ],
    )


def test_other_matter_after_or_before_the_index_gives_no_entries() -> None:
    """A LaTeX package's change history follows its index ("v1.0 General: Initial
    release . . . 1"): frenchb's key terms were 114 of its versions and notes, apa6's 43.
    A title of other matter set larger than the index's lines ends the index, up to the
    next title; an entry "bibliography" at the index's size does not."""
    index = _page(40, [("Index", 50, 14.0), ("bibliography", 50, 10.0), ("styles, 4", 60, 10.0)])
    history = _page(
        41,
        [
            ("matrix product, 5", 50, 10.0),
            ("Change History", 50, 14.0),
            ("v1.0", 50, 10.0),
            ("General: Initial release . . . . 1", 60, 10.0),
            ("v1.1", 50, 10.0),
        ],
    )
    found = [(e.display, [loc.first for loc in e.locators]) for e in parse_index([index, history])]
    assert found == [
        ("bibliography", []),
        ("bibliography (styles)", ["4"]),
        ("matrix product", ["5"]),
    ]
    # a bibliography before an index whose title the table does not know (Vietnamese)
    both = _page(
        50,
        [
            ("Tài liệu tham khảo", 50, 14.0),
            ("[1] Leslie Lamport. LaTeX, 1994.", 50, 10.0),
            ("Chỉ số", 50, 14.0),
            ("vectơ, 12", 50, 10.0),
        ],
    )
    assert [e.display for e in parse_index([both])] == ["vectơ"]


def test_a_page_of_sub_entries_alone_keeps_them_under_their_group() -> None:
    """ctex-faq groups its index's second part under "命令(Commands)", "宏包(Packages)";
    a page whose column held sub-entries alone read them as entries, the first the parent
    of the rest ("\\raggedend (\\ref)", 19 key terms so). The edge of a page's column is
    remembered for the next page of the same side."""
    first = _page(40, [("Index", 50, 14.0), ("Commands", 50, 10.0), ("\\alpha, 3", 62, 10.0)])
    second = _page(41, [("\\beta, 4", 62, 10.0), ("Packages", 50, 10.0), ("amsmath, 5", 62, 10.0)])
    third = _page(42, [("babel, 6", 62, 10.0), ("color, 7", 62, 10.0), ("fancyhdr, 8", 62, 10.0)])
    assert [e.display for e in parse_index([first, second, third])] == [
        "Commands",
        "Commands (\\alpha)",
        "Commands (\\beta)",
        "Packages",
        "Packages (amsmath)",
        "Packages (babel)",
        "Packages (color)",
        "Packages (fancyhdr)",
    ]


def test_a_numbered_group_set_out_is_no_edge_for_the_next_pages() -> None:
    """VisualPSTricks heads its right column "2) Paramètres et options" an em and a half
    left of the entries under it, which are entries of their own: remembered as the
    column's edge, two pages on its entries read as sub-entries of the left column's last
    ("GenCurvFirst (linewidth)")."""

    def page(number: int, left: list[str], right: list[tuple[str, float]]) -> IndexPage:
        rows = [(t, 50.0, 100 + 14 * i) for i, t in enumerate(left)]
        rows += [(t, x, 100 + 14 * i) for i, (t, x) in enumerate(right)]
        lines = [IndexLine(x, x + 150, y, y + 10, 10.0, [IndexSpan(t)]) for t, x, y in rows]
        return IndexPage(number, 600, 800, lines)

    first = page(
        40, ["axis, 3", "base, 4"], [("2) Options", 300), ("arcangle, 5", 320), ("boxsep, 6", 320)]
    )
    second = page(41, ["cap, 7"], [("dash, 8", 320)])
    third = page(42, ["Gen, 9"], [("linewidth, 10", 320), ("llx, 11", 320)])
    found = [e.display for e in parse_index([first, second, third])]
    assert found == ["axis", "base", "arcangle", "boxsep", "cap", "dash", "Gen", "linewidth", "llx"]


def test_a_sub_entry_after_one_ending_in_a_comma_is_an_entry_of_its_own() -> None:
    """lshort-it's "\\documentclass, 7, 9, 10, 14," ends its line with a comma, and the
    next sub-entry, set as far in, was read as its continuation: "comandi
    (\\documentclass, 7, 9, 10, 14, \\dum)". A continuation is set further in."""
    rows = [
        ("Index", 50, 14.0),
        ("commands", 50, 10.0),
        ("\\documentclass, 7, 9, 10, 14,", 62, 10.0),
    ]
    rows += [("\\dum, 3", 62, 10.0), ("\\emph, 4,", 62, 10.0), ("5, 6", 80, 10.0)]
    found = [(e.display, [loc.first for loc in e.locators]) for e in parse_index([_page(9, rows)])]
    assert found == [
        ("commands", []),
        ("commands (\\documentclass)", ["7", "9", "10", "14"]),
        ("commands (\\dum)", ["3"]),
        ("commands (\\emph)", ["4", "5", "6"]),
    ]


def test_a_control_word_hyphenated_across_index_lines_is_one_name() -> None:
    """TeX hyphenates a long control word in a narrow index column; zref-clever's key terms
    read "\\zrefcheck_zcref_end_label_- maybe:" (151 entries in 7 of the TL sample's
    indexes). A control word holds no hyphen: the break is undone."""
    page = _page(
        30,
        [
            ("Index", 50, 14.0),
            ("\\bibglsnewdualentryabbreviationsec-", 50, 10.0),
            ("ondary, 12", 90, 10.0),
            ("\\zrefcheck_zcref_end_label_-", 50, 10.0),
            ("maybe:, 7", 90, 10.0),
        ],
    )
    assert [e.display for e in parse_index([page])] == [
        "\\bibglsnewdualentryabbreviationsecondary",
        "\\zrefcheck_zcref_end_label_maybe:",
    ]


def test_columns_whose_extents_touch_are_read_apart() -> None:
    """GregorioRef's index sets long control-word names in two narrow columns; an overfull
    line of the left one runs 5 points into the right one, the page read as one column,
    and 64 key terms were two entries in one ("moraadjustmentbar, 61 underslurshift")."""

    def line(text: str, x0: float, x1: float, y0: float) -> IndexLine:
        return IndexLine(x0, x1, y0, y0 + 10, 10.0, [IndexSpan(text)])

    left = ["moraadjustmentbar, 61", "nabcfontsize, 40", "punctummaxshift, 66"]
    left += ["ascendingpunctuminclinatumbigshift, 65", "risingshift, 64", "spaceinitial, 12"]
    right = ["underslurshift, 73", "voidshift, 2", "zerowidth, 5", "bar, 9", "brace, 11"]
    lines = [line(t, 100, 307 if i == 3 else 250, 100 + 12 * i) for i, t in enumerate(left)]
    lines += [line(t, 302, 500, 100 + 12 * i) for i, t in enumerate(right)]
    found = [e.display for e in parse_index([IndexPage(7, 600, 800, lines)])]
    assert found == [t.split(",")[0] for t in left + right]


def test_a_heading_set_large_across_the_gutter_leaves_the_columns_apart() -> None:
    """A Finnish LaTeX guide's index is titled "Asiahakemistot" (a title the table did not
    know) in large type above two narrow columns, running past the gutter, and a note under
    it runs wider still: each page was read as one column, and 11 key terms were two
    entries in one ("\\', 31, 179, 180 \\-"). A line set large joins the column it starts
    in once the others have set the columns apart (here a heading over the entries)."""

    def line(text: str, x0: float, x1: float, y0: float, size: float = 10.0) -> IndexLine:
        return IndexLine(x0, x1, y0, y0 + size, size, [IndexSpan(text)])

    left = ["article, 18, 19", "beamer, 61, 64", "book, 60, 61", "cd, 65", "guitartabs, 65"]
    right = ["leaflet, 65", "letter, 61, 254", "memoir, 64", "report, 60, 61", "slides, 61"]
    lines = [line("Dokumenttiluokat ja komennot", 44, 213, 120, 14.0)]
    lines += [line("Tekstitilan ja matematiikkatilan komennot on ladottu:", 44, 346, 160)]
    lines += [line(t, 44, 176, 200 + 13 * i) for i, t in enumerate(left)]
    lines += [line(t, 201, 276, 200 + 13 * i) for i, t in enumerate(right)]
    found = [e.display for e in parse_index([IndexPage(259, 420, 595, lines)])]
    assert found == ["Dokumenttiluokat ja komennot", *(t.split(",")[0] for t in left + right)]


def test_a_running_header_read_in_pieces_is_left_out_of_the_columns() -> None:
    """GAP's reference manual heads its index pages "GAP - Reference Manual" and the page
    number, set apart: the parser removed the row whole, the index reader kept the title
    piece, which spans the gutter, and each page was read as one column ("Atan2, 260
    Bernoulli, 224 BestQuoInt": 15 key terms so)."""

    def line(text: str, x0: float, x1: float, y0: float) -> IndexLine:
        return IndexLine(x0, x1, y0, y0 + 10, 10.0, [IndexSpan(text)])

    left = ["Atan, 260", "Atan2, 260", "Atanh, 260", "AtlasIrrationality, 250", "Attr, 185"]
    right = ["Bernoulli, 224", "BestQuoInt, 197", "BiAlgebra, 31", "Bind, 82", "Blist, 440"]
    lines = [line("GAP - Reference Manual", 245, 326, 73), line("1429", 497, 519, 73)]
    lines += [line(t, 77, 230, 108 + 14 * i) for i, t in enumerate(left)]
    lines += [line(t, 303, 450, 108 + 14 * i) for i, t in enumerate(right)]
    page = IndexPage(1429, 595, 842, lines)
    found = [e.display for e in parse_index([page], {1429: ["GAP - Reference Manual 1429"]})]
    assert found == [t.split(",")[0] for t in left + right]


def test_a_persian_word_joined_by_a_zero_width_non_joiner_is_one_word() -> None:
    """The Persian Debian Handbook's "نرم‌افزار آزاد" (free software) was the key term
    "افزار آزاد": the tokenizer cut "نرم‌افزار" at its zero-width non-joiner."""
    text = "نرم‌افزار آزاد را هر کسی می‌تواند تغییر دهد و نرم‌افزار آزاد را منتشر کند. " * 6
    found = key_phrases("۱ نرم‌افزار", text, "موضوعی دیگر.")
    assert "نرم‌افزار آزاد" in found and "افزار آزاد" not in found


def test_an_elided_article_is_a_word_of_its_own() -> None:
    """fbook's key terms were "d’une commande", "qu’une pénalité", "compose d’un"."""
    text = (
        "Le nom d’une commande suit la barre oblique; qu’une pénalité soit infinie, "
        "TEX compose d’un seul bloc le nom d’une commande et qu’une pénalité. "
    ) * 5
    found = key_phrases("1 Commandes", text, "Autre sujet.")
    assert found and not [t for t in found if "’" in t], found


def _read_back(doc: Any, tmp_path: Path) -> tuple[list[str], list[IndexEntry]]:
    """A one-page index PDF saved and read back: its printed lines, and its entries."""
    path = tmp_path / "index.pdf"
    doc.save(path)
    pages = read_index_pages(path, [1])
    return [ln.text for ln in pages[0].lines], parse_index(pages)


def test_an_index_that_sets_a_space_before_the_first_locator(tmp_path: Path) -> None:
    """apprendre-a-programmer-en-tex sets "préprocesseur 10", "format 7, 8" (no comma, the
    number right-aligned); its entries read "préprocesseur10" with no locator, and a
    locator range ending a column's line joined the next column's entry to it."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=500, height=700)
    page.insert_text((60, 80), "Index", fontsize=14)
    left = [("préprocesseur", "10"), ("format", "7, 8"), ("\\floatsep . . .", "961-963")]
    right = [("paragraphe", "18"), ("token", "3, 5"), ("\\lotmark . . .", "702")]
    for i, ((lt, ln), (rt, rn)) in enumerate(zip(left, right, strict=True)):
        y = 120 + 14 * i
        x = 60.0
        for term, number in ((lt, ln), (rt, rn)):  # the next column 10 pt after the first
            page.insert_text((x, y), term, fontsize=10)
            x += pymupdf.get_text_length(term, fontsize=10) + 8  # a gap, no space
            page.insert_text((x, y), number, fontsize=10)
            x = 170.0
    lines, read = _read_back(doc, tmp_path)
    assert "préprocesseur 10" in lines and "\\floatsep . . . 961-963" in lines
    entries = [(e.term, [loc.first for loc in e.locators]) for e in read]
    assert entries == [
        ("préprocesseur", ["10"]),
        ("format", ["7", "8"]),
        ("\\floatsep", ["961"]),
        ("paragraphe", ["18"]),
        ("token", ["3", "5"]),
        ("\\lotmark", ["702"]),
    ]


def test_locators_set_apart_beside_a_code_entry_are_that_entrys(tmp_path: Path) -> None:
    """source3's index sets "\\cs:w" in a code font under the group "cs commands:" with its
    long locator list well to its right; the digits rise above the code font's top, and
    read by their tops they came first: the group read "cs commands: 21, 539, 563, 644,
    \\cs:w" and every entry under it was its child (99 of the key terms)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=500, height=700)
    page.insert_text((60, 80), "Index", fontsize=14)
    rows = [
        ((60, 100), "\\countdef . . . . . . . 221", "helv"),
        ((60, 112), "cs commands:", "helv"),
        ((70, 124), "\\cs:w", "cour"),
        ((115, 124), "21, 539, 563, 644,", "helv"),  # 2 em after the entry's end
        ((80, 136), "1466, 1468, 1521", "helv"),
        ((70, 148), "\\cs_end: . . . . . 413, 563", "cour"),
        ((60, 160), "\\cscode . . . . . . . 25", "helv"),
    ]
    for at, text, font in rows:
        page.insert_text(at, text, fontsize=9, fontname=font)
    lines, read = _read_back(doc, tmp_path)
    assert lines[2:5] == ["cs commands:", "\\cs:w", "21, 539, 563, 644,"]
    assert [(e.term, e.parent, [loc.first for loc in e.locators]) for e in read] == [
        ("\\countdef", None, ["221"]),
        ("cs commands:", None, []),
        ("\\cs:w", "cs commands:", ["21", "539", "563", "644", "1466", "1468", "1521"]),
        ("\\cs_end:", "cs commands:", ["413", "563"]),
        ("\\cscode", None, ["25"]),
    ]


def test_index_lines_are_read_with_the_parsers_text_repairs(tmp_path: Path) -> None:
    """latex2e-fr's index drew its accents apart, as its text does ("mode math ́ematique",
    "caract`ere"): its key terms read so in 409 of 2,376 places until the index lines got
    the parser's repairs (accents composed, across a change of font too)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=500, height=700)
    page.insert_text((60, 80), "Index", fontsize=14)
    page.insert_text((60, 120), "mode math\u00b4ematique, 189", fontsize=10)
    page.insert_text((60, 134), "caract`ere invisible, 190", fontsize=10)
    page.insert_text((60, 148), "fichier de d\u00b4efinitions, 12", fontsize=10)
    x = 60 + pymupdf.get_text_length("r\u00b4", fontsize=10)  # the accent in one font,
    page.insert_text((60, 162), "r\u00b4", fontsize=10)  # its letter in another
    page.insert_text((x, 162), "esum\u00b4e, 14", fontsize=10, fontname="hebo")
    page.insert_text((60, 176), "\\`a (code), 15", fontsize=10, fontname="cour")
    path = tmp_path / "index.pdf"
    doc.save(path)
    lines = [ln.text for ln in read_index_pages(path, [1])[0].lines]
    assert lines[1:] == [
        "mode mathématique, 189",
        "caractère invisible, 190",
        "fichier de définitions, 12",
        "résumé, 14",
        "\\`a (code), 15",  # a backquote in code is code's own
    ]


def test_control_words_do_not_outvote_a_spaced_index(tmp_path: Path) -> None:
    """apprendre-a-programmer-en-tex's index is mostly control words ("\\\\def 12"), whose
    locators read the same with or without the space rule; they outvoted its plain terms,
    and 130 key terms read "préprocesseur 10"."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=500, height=700)
    page.insert_text((60, 80), "Index", fontsize=14)
    lines = [f"\\macro{chr(97 + i)} {10 + i}, {40 + i}" for i in range(8)]
    lines += ["format 7, 8", "préprocesseur 10, 12-13", "ligne de base 17, 20"]
    for i, text in enumerate(sorted(lines)):
        page.insert_text((60, 120 + 14 * i), text, fontsize=10)
    path = tmp_path / "index.pdf"
    doc.save(path)
    read = {
        e.term: [loc.first for loc in e.locators] for e in parse_index(read_index_pages(path, [1]))
    }
    assert read["préprocesseur"] == ["10", "12"] and read["format"] == ["7", "8"]
    assert read["ligne de base"] == ["17", "20"] and read["\\macroa"] == ["10", "40"]


def test_an_entry_without_locators_is_not_joined_to_the_next_columns(tmp_path: Path) -> None:
    """lshort-ee's three close columns: an entry with no locators of its own (its
    sub-entries below) ends a word space or two before the next column's entry on its
    baseline; the two were read as one line, and the page as one column ("LibreOffice, 2,
    94 \\\\max, 54 nurksulud": 98 of its 496 key terms)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=500, height=700)
    page.insert_text((60, 80), "Index", fontsize=14)
    columns = {
        60.0: ["kirjakodeering", "  ansinew, 26", "  cp1251, 26", "LaTeX, 1, 2", "liim, 124"],
        135.0: ["\\max, 54", "\\mbox, 18, 19", "\\min, 54", "\\mathrm, 55", "\\mu, 56"],
        210.0: ["nurksulud, 5", "numbrid, 60", "ood, 12", "paber, 80", "punkt, 7"],
    }
    for x, lines in columns.items():
        for i, text in enumerate(lines):
            indent = 10 if text.startswith("  ") else 0
            page.insert_text((x + indent, 120 + 14 * i), text.strip(), fontsize=10)
    lines, entries = _read_back(doc, tmp_path)
    assert "kirjakodeering" in lines and "\\max, 54" in lines
    read = [(e.display, [loc.first for loc in e.locators]) for e in entries]
    assert read[:4] == [
        ("kirjakodeering", []),
        ("kirjakodeering (ansinew)", ["26"]),
        ("kirjakodeering (cp1251)", ["26"]),
        ("LaTeX", ["1", "2"]),
    ]
    assert ("\\max", ["54"]) in read and ("nurksulud", ["5"]) in read


def test_a_range_wrapped_at_a_lines_end_stays_a_range_in_a_spaced_index() -> None:
    """paracol's index sets a space before its first locators ("top page 29") and wraps a
    range at a line's end ("\\\\output . . . 70, 71, 73–" above "76, 79–85"): the space
    rule read the wrapped range as the first locator's space, and "73–" as the term's."""
    text = "\\output . . . . 70, 71, 73– 76, 79–85, 88"
    term, locators, _, _ = split_entry(text, spaced=True)
    assert term == "\\output"
    assert locators == [("70", None), ("71", None), ("73", "76"), ("79", "85"), ("88", None)]
