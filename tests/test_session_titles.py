"""Study session titles are the author's headings: "(continued)" where a chapter spans
sessions (in the book's language), cut between headings and never inside one, numbering
left out, and no key terms glued on."""

from __future__ import annotations

from quire.shared.ir import Document, OutlineEntry
from quire.shared.plan import Boundary, PlanSettings
from quire.workers.boundaries.matter import MatterRegion
from quire.workers.boundaries.planner import plan_from_boundaries
from quire.workers.boundaries.session_titles import TITLE_CHARS, heading_title
from tests.irgen import build_doc, code, heading, para, words

RULES = PlanSettings()


def titles(doc: Document, *cuts: str, matter: list[MatterRegion] | None = None) -> list[str]:
    boundaries = [Boundary(after_id=c, reason="test cut", decider="heuristic") for c in cuts]
    plan = plan_from_boundaries(doc, RULES, boundaries, matter=matter or [])
    return [c.title for c in plan.chunks]


def book() -> Document:
    return build_doc(
        [
            heading("1 Introduction", 1, page=1),
            para(words(300), page=1, page_last=3),
            heading("2 Graphical procedures", 1, page=4),  # el-000003
            para(words(300, 1), page=4, page_last=6),
            heading("2.1 High-level plotting commands", 2, page=7),
            para(words(300, 2), page=7, page_last=9),  # el-000006
            heading("2.2 Interacting with graphics", 2, page=10),
            para(words(300, 3), page=10, page_last=12),
            heading("2.3 Using graphics parameters", 2, page=13),
            para(words(300, 4), page=13, page_last=15),  # el-000010
            para(words(300, 5), page=16, page_last=17),
            heading("3 Packages", 1, page=18),
            para(words(300, 6), page=18, page_last=20),
        ]
    )


def test_a_chapter_that_spans_sessions_is_marked_continued() -> None:
    assert titles(book(), "el-000002", "el-000006", "el-000010") == [
        "Introduction",
        "Graphical procedures",
        "Graphical procedures (continued): Interacting with graphics; Using graphics parameters",
        # starts inside 2.3, then reaches chapter 3: the continued chapter, then its sibling
        "Graphical procedures (continued); Packages",
    ]


def test_titles_are_cut_between_headings_never_inside_one() -> None:
    long_names = [
        "Essential shared libraries and kernel modules",
        "Mount point for a temporarily mounted filesystem",
        "Add-on application software packages",
        "Temporary files preserved between system reboots",
    ]
    doc = build_doc(
        [heading(f"3.{i} /dir{i} : {name}", 2, page=i + 1) for i, name in enumerate(long_names)]
        + [para(words(200), page=6)]
    )
    (title,) = titles(doc)
    assert title == "/dir0 : Essential shared libraries and kernel modules; …"
    assert len(title) <= TITLE_CHARS
    one = build_doc([heading("A " + "very long heading " * 10, 1), para(words(100))])
    (cut,) = titles(one)
    assert cut.endswith(" very…") and len(cut) <= TITLE_CHARS + 1  # at a word


def test_continuation_marks_in_the_books_language() -> None:
    zh = build_doc(
        [
            heading("第一章 数学公式", 1, page=1),
            para("数学公式可以放在行内，也可以单独成行。" * 60, page=1, page_last=6),
            para("表格的列格式决定每一列的对齐方式。" * 60, page=7, page_last=12),
            heading("1.1 公式编号", 2, page=12),
            para("公式编号由文档类决定。" * 30, page=12, page_last=13),
        ]
    )
    assert titles(zh, "el-000002") == ["数学公式", "数学公式（续）：公式编号"]
    ko = build_doc(  # Debian's installation guide in Korean had "(continued)"
        [
            heading("제6 장 데비안 설치 프로그램 사용하기", 1, page=1),
            para(
                "설치 프로그램은 여러 개의 구성 요소로 이루어져 있습니다. " * 60,
                page=1,
                page_last=6,
            ),
            para(
                "파티션하기는 디스크를 여러 부분으로 나누는 일입니다. " * 60, page=7, page_last=12
            ),
            heading("6.1 파티션하기", 2, page=12),
            para("마운트 위치를 정합니다. " * 30, page=12, page_last=13),
        ]
    )
    assert titles(ko, "el-000002") == [
        "데비안 설치 프로그램 사용하기",
        "데비안 설치 프로그램 사용하기 (계속): 파티션하기",
    ]
    fr = build_doc(
        [
            heading("3 Les tableaux", 1, page=1),
            para("Un tableau est composé de lignes et de colonnes dans le texte. " * 60,
                 page=1, page_last=6),
            para("La largeur des colonnes est calculée pour chaque tableau. " * 60,
                 page=7, page_last=12),
            heading("3.1 Cellules fusionnées", 2, page=12),
            para("Une cellule peut occuper plusieurs colonnes avec cette commande. " * 30,
                 page=12, page_last=13),
        ]
    )  # fmt: skip
    assert titles(fr, "el-000002") == ["Les tableaux", "Les tableaux (suite) : Cellules fusionnées"]
    th = build_doc(  # lshort-thai, read once thailatex's glyph names were: "(continued)"
        [
            heading("๒ การเรียงพิมพ์เอกสาร", 1, page=1),
            para("ภาษาไทยเขียนต่อกันโดยไม่เว้นวรรคระหว่างคำ " * 60, page=1, page_last=6),
            para("การเรียงพิมพ์ตารางต้องกำหนดคอลัมน์ก่อน " * 60, page=7, page_last=12),
            heading("๒.๑ ตาราง", 2, page=12),
            para("ตารางมีแถวและคอลัมน์ " * 30, page=12, page_last=13),
        ]
    )
    assert titles(th, "el-000002")[1].startswith("การเรียงพิมพ์เอกสาร (ต่อ): ")
    hu = build_doc(  # LilyPond's Hungarian manuals had "(continued)"
        [
            heading("1 A kottaszedés", 1, page=1),
            para("A program a kottát úgy szedi, hogy az olvasó csak a zenére figyeljen. " * 60,
                 page=1, page_last=6),
            para("Ez nem egy egyszerű feladat, és van, hogy csak a kézi munka segít. " * 60,
                 page=7, page_last=12),
            heading("1.1 A zenei betűkészlet", 2, page=12),
            para("A jelek vastagsága meg a formája is számít. " * 30, page=12, page_last=13),
        ]
    )  # fmt: skip
    assert titles(hu, "el-000002") == [
        "A kottaszedés",
        "A kottaszedés (folytatás): A zenei betűkészlet",
    ]


def test_the_title_pages_heading_is_no_chapter_to_continue() -> None:
    """feyn and 67 more manuals: every session after the first was "The feyn font
    (continued): …", the document's title heading (on its first page, holding all of it);
    the section open at the session's start is what goes on."""
    doc = build_doc(
        [
            heading("The feyn font", 1, page=1),
            heading("Description", 2, page=1),  # el-000002
            para(words(300), page=1, page_last=6),
            para(words(300, 1), page=7, page_last=8),  # el-000004
            heading("Examples", 2, page=9),
            para(words(300, 2), page=9, page_last=14),
        ]
    )
    assert titles(doc, "el-000003") == [
        "The feyn font",
        "Description (continued); Examples",
    ]


def test_a_heading_of_the_front_matter_is_no_chapter_to_continue() -> None:
    """compsci, kerntest, songbook and 15 more manuals: the title heading sits with the
    contents in the front matter, and a heading under it opens the study text at a deeper
    level ("Part I" under the title's level), so the first study session was "The compsci
    LaTeX package (continued); Discussion"."""
    doc = build_doc(
        [
            heading("The compsci LaTeX package", 2, page=1),
            para("Contents 1 Discussion 2 2 Implementation 9", page=1),  # el-000002
            heading("Part I", 3, page=2),
            heading("Discussion", 1, page=2),
            para(words(300), page=2, page_last=8),  # el-000005
            heading("Part II", 3, page=9),  # el-000006
            heading("Implementation", 1, page=9),
            para(words(300, 1), page=9, page_last=14),
        ]
    )
    front = MatterRegion(
        kind="front_matter",
        label="title pages and contents",
        first_id="el-000001",
        last_id="el-000002",
        page_first=1,
        page_last=1,
        evidence=["test"],
    )
    assert titles(doc, "el-000002", "el-000006", matter=[front])[1:] == [
        "Discussion",
        "Implementation",
    ]


def test_headings_read_as_titles() -> None:
    assert heading_title("## 3.8. /home : User home directories (optional)") == (
        "/home : User home directories (optional)"
    )
    assert heading_title("# Chapter 2 Getting started") == "Getting started"
    assert heading_title("# Ýòî íóæíî çíàòü") == "Это нужно знать"  # Latin-1 mojibake
    for letter in ["Ä", "Ö", "Ü", "É"]:  # a German or French index's letter groups
        assert heading_title(f"## {letter}") == letter
    assert heading_title("## عنوانبازی۱ . ۱") == "عنوانبازی"  # Persian numbering at the end
    assert heading_title("# 第二章 入门") == "入门"
    # chapter labels the parser puts into the heading (their own line above the title)
    assert heading_title("# Capitolo 1 Cose che bisogna sapere") == "Cose che bisogna sapere"
    assert heading_title("# Chapitre1 Premiers pas") == "Premiers pas"
    assert heading_title("# 제1 장 문서 레이아웃") == "문서 레이아웃"
    assert heading_title("# Parte della vita") == "Parte della vita"  # a word, no label
    # appendix labels in the languages of Debian's installation guide
    for label in ["Příloha A", "부록 A", "付録A", "Bijlage A", "Bilaga A", "Bilag A",
                  "Dodatek A", "Apèndix A", "Anexa A", "Anexo A", "Lampiran A",
                  "Phụ lục A", "Függelék A", "Liite A", "Παράρτημα Α"]:  # fmt: skip
        assert heading_title(f"# {label} Howto") == "Howto", label
    assert heading_title("# Anexo técnico") == "Anexo técnico"  # a word, no label
    assert heading_title("# Luku 1 Asiat, jotka tulisi tietää") == "Asiat, jotka tulisi tietää"
    assert heading_title("# Bölüm 2 Metin dizgisi") == "Metin dizgisi"


def test_a_session_without_headings_is_named_by_the_long_section_it_lies_in() -> None:
    """apprendre-a-programmer-en-tex, fontname, xysource and 8 more manuals: a session
    inside a chapter of over CONTINUED_MAX_PAGES pages, with no heading of its own, was
    titled by its first words: "68 }", "``` l_____ Futura-BookOblique 118.3 …". The section
    it lies in names it, however long; a contents heading holding the book does not."""
    doc = build_doc(
        [
            heading("Dimensions et boites", 2, page=2),
            para(words(300), page=2, page_last=40),
            para("68 }", page=41),  # el-000003: a numbered line of code
            para(words(300, 1), page=41, page_last=90),
        ]
    )
    assert titles(doc, "el-000002") == ["Dimensions et boites", "Dimensions et boites (continued)"]
    contents_only = build_doc(
        [
            heading("Contents", 1, page=1),
            para(words(300), page=1, page_last=9),
            code("\\def\\x{1}", page=10),
            para("Compatibilité " + words(300, 1), page=10),
        ]
    )
    assert (
        titles(contents_only, "el-000002")[1]
        == "Compatibilité " + " ".join(words(300, 1).split()[:7]) + "…"
    )


def test_a_bare_chapter_label_takes_its_title_from_the_line_after_it() -> None:
    """tipaman-de, apprendre-a-programmer-en-tex, latex-via-exemplos, kotex: "Kapitel 3"
    and "Anwendung" are two headings, "Chapitre4" a heading over its title set as text:
    the sessions were "Kapitel 3; Anwendung" and "Chapitre4". A sentence or a numbered
    section after the label names nothing."""
    doc = build_doc(
        [
            heading("Kapitel 1", 2, page=1),
            heading("Einleitung", 2, page=1),
            para(words(300), page=1, page_last=6),
            heading("Chapitre4", 2, page=7),  # el-000004
            para("Une boucle « for »", page=7),
            para(words(300, 1), page=7, page_last=13),
            heading("Kapitel 5", 2, page=14),  # el-000007
            para("Dieses Kapitel zeigt, wie man TIPA anpasst.", page=14),
            para(words(300, 2), page=14, page_last=20),
        ]
    )
    assert titles(doc, "el-000003", "el-000006") == [
        "Einleitung",
        "Une boucle « for »",
        "Kapitel 5",
    ]


def test_a_chapter_number_in_words_is_no_part_of_the_title() -> None:
    """Sphinx's PDFs head a chapter "CHAPTER THREE" over its title: the session is titled
    by the title, as "Chapter 3 Introduction" is; "Chapter One" alone over a sentence keeps
    its name."""
    doc = build_doc(
        [
            heading("CHAPTER THREE REALM CONFIGURATION DECISIONS", 1, page=1),
            para(words(300), page=1, page_last=6),
            heading("Chapter Twenty-One", 1, page=7),  # el-000003
            para("It was a bright cold day in April, and the clocks were striking.", page=7),
            para(words(300, 1), page=7, page_last=13),
        ]
    )
    assert titles(doc, "el-000002") == ["REALM CONFIGURATION DECISIONS", "Chapter Twenty-One"]


def test_a_session_without_headings_is_named_by_the_bookmarks_into_its_pages() -> None:
    """pdf-trans's example bookmarks one macro per page ("\\boxflipx") over boxes drawn
    from the word "Yoga", and no bookmark names a line of text: all ten sessions were
    titled "Yoga" or "g". The bookmarks into a session's pages title it (the highest
    level among them; on its first page only when the session starts that page)."""
    doc = build_doc(
        [
            para("Yoga " + words(200), page=1, page_last=5),
            para("Yoga " + words(200, 1), page=5, page_last=10),  # el-000002
            para("Yoga " + words(200, 2), page=11, page_last=15),
        ]
    )
    doc.outline = [
        OutlineEntry(level=1, title="\\boxflipx", page=1),
        OutlineEntry(level=2, title="Details", page=3),
        OutlineEntry(level=1, title="\\boxflipy", page=5),
        OutlineEntry(level=1, title="\\boxrotate", page=8),
        OutlineEntry(level=2, title="1.2 Angles", page=12),
    ]
    assert titles(doc, "el-000001", "el-000002") == [
        "\\boxflipx; \\boxflipy",
        "\\boxrotate",
        "Angles",
    ]


def test_a_continued_session_is_named_by_the_bookmarks_into_its_pages_too() -> None:
    """Erlang's reference manuals bookmark every function ("abs/1") over its signature set
    as text ("abs(Float) -> float()"), never a heading: 17 sessions in a row were "erlang
    (continued)". A session without a heading of its own follows its chapter's title with
    the bookmarks into its pages that name no heading (zref-clever's "Plumbing
    (continued)" must not be named for "Options", the next session's heading on its last
    page); without any it stays "(continued)"."""
    doc = build_doc(
        [
            heading("erlang", 1, page=1),
            para(words(300), page=1, page_last=10),
            para(words(300, 1), page=11, page_last=20),  # el-000003
            para(words(300, 2), page=21, page_last=30),
            heading("Options", 1, page=30),
            para(words(300, 3), page=30, page_last=38),
        ]
    )
    doc.outline = [
        OutlineEntry(level=1, title="erlang", page=1),
        OutlineEntry(level=2, title="abs/1", page=4),
        OutlineEntry(level=2, title="byte_size/1", page=12),
        OutlineEntry(level=2, title="cancel_timer/1", page=15),
        OutlineEntry(level=2, title="cancel_timer/1", page=16),
        OutlineEntry(level=1, title="Options", page=30),
    ]
    assert titles(doc, "el-000002", "el-000003", "el-000004") == [
        "erlang",
        "erlang (continued): byte_size/1; cancel_timer/1",
        "erlang (continued)",
        "Options",
    ]


def test_a_functions_signature_is_titled_by_its_bookmark() -> None:
    """A function's signature heading (Erlang's "atom_to_binary(Atom, Encoding) ->
    binary()", a C declaration) is titled by the bookmark on its page that names it, in
    order ("atom_to_binary/1" for the first of two, "enif_alloc()"): sessions were
    titled by a list of whole signatures, cut at the first wrapped one ("monitor(Type ::
    process,")."""
    doc = build_doc(
        [
            heading("erlang", 1, page=1),
            para(words(300), page=1, page_last=8),
            heading("atom_to_binary(Atom) -> binary()", 2, page=9),  # el-000003
            para(words(200, 1), page=9, page_last=10),
            heading("atom_to_binary(Atom, Encoding) -> binary()", 2, page=10),
            para(words(200, 2), page=10, page_last=12),
            heading("erlang:crc32(Data) -> integer() >= 0", 2, page=13),
            para(words(200, 3), page=13, page_last=14),
            heading("void *enif_alloc(size_t size)", 2, page=15),
            para(words(200, 4), page=15, page_last=16),
        ]
    )
    doc.outline = [
        OutlineEntry(level=1, title="erlang", page=1),
        OutlineEntry(level=2, title="atom_to_binary/1", page=9),
        OutlineEntry(level=2, title="atom_to_binary/2", page=10),
        OutlineEntry(level=2, title="crc32/1", page=13),
        OutlineEntry(level=2, title="enif_alloc()", page=15),
    ]
    assert titles(doc, "el-000002") == [
        "erlang",
        "atom_to_binary/1; atom_to_binary/2; crc32/1; enif_alloc()",  # (the title page's)
    ]


def test_the_clauses_of_one_function_are_no_labels() -> None:
    """erts bookmarks each clause of `statistics/1` as "statistics/1": titled by it, the
    clauses shared one title three times and more, so they were labels and the sessions
    inside them were "erlang (continued)". Labels are found by the headings' own words."""
    clauses = ["active_tasks", "context_switches", "exact_reductions"]
    doc = build_doc(
        [
            heading("Reference Manual", 1, page=1),
            para(words(100), page=1),
            heading("erlang", 1, page=2),
            para(words(100, 1), page=2),
            *[
                el
                for k, item in enumerate(clauses)
                for el in (
                    heading(f"statistics(Item :: {item}) -> term()", 2, page=3 + 4 * k),
                    para(words(200, 2 + k), page=3 + 4 * k, page_last=6 + 4 * k),
                )
            ],
            para(words(300, 9), page=15, page_last=22),  # el-000011
            para(words(300, 10), page=23, page_last=70),  # a module longer than a chapter
        ]
    )
    doc.outline = [
        OutlineEntry(level=1, title="Reference Manual", page=1),
        OutlineEntry(level=1, title="erlang", page=2),
        *[OutlineEntry(level=2, title="statistics/1", page=3 + 4 * k) for k in range(3)],
    ]
    assert titles(doc, "el-000010", "el-000011")[-2] == "statistics/1 (continued)"


def test_a_heading_repeated_through_its_section_is_a_label_not_a_title() -> None:
    """emoji-doc sets its long tables' column heads as a heading on page after page, and
    mecaso its author's name over every section: sessions were titled "Emoji Fullname
    Aliases Description Codepoints Version (continued)" and "Y.Derrazi". Three headings of
    one section sharing a title are labels: the section around them names the session,
    and a session's own headings do; one repeat ("Exercises" once per chapter) is a title."""
    table_head = "Emoji Fullname Aliases Description Codepoints Version"
    doc = build_doc(
        [
            heading("3.1.2 People & Body", 3, page=1),
            heading(table_head, 4, page=1),
            para(words(300), page=1, page_last=20),
            heading(table_head, 4, page=21),  # el-000004
            para(words(300, 1), page=21, page_last=40),
            heading(table_head, 4, page=41),  # el-000006
            para(words(300, 2), page=41, page_last=70),
        ]
    )
    assert titles(doc, "el-000003", "el-000005") == [
        "People & Body",
        "People & Body (continued)",
        "People & Body (continued)",
    ]
    author = "Y.Derrazi"
    doc = build_doc(
        [
            heading(author, 1, page=1),
            heading("1 Cinétique", 1, page=1),
            para(words(300), page=1, page_last=6),
            heading(author, 1, page=7),  # el-000004
            heading("2 Dynamique", 1, page=7),
            para(words(300, 1), page=7, page_last=12),
            heading(author, 1, page=13),  # el-000007
            heading("3 Energétique", 1, page=13),
            para(words(300, 2), page=13, page_last=18),
        ]
    )
    assert titles(doc, "el-000003", "el-000006") == ["Cinétique", "Dynamique", "Energétique"]
    exercises = build_doc(
        [
            heading("1 Vectors", 1, page=1),
            para(words(300), page=1, page_last=6),
            heading("Exercises", 2, page=7),  # el-000003
            para(words(300, 1), page=7, page_last=12),
            heading("2 Matrices", 1, page=13),
            para(words(300, 2), page=13, page_last=18),
            heading("Exercises", 2, page=19),  # el-000006
            para(words(300, 3), page=19, page_last=24),
        ]
    )
    assert titles(exercises, "el-000002", "el-000004", "el-000005") == [
        "Vectors",
        "Vectors (continued): Exercises",
        "Matrices",
        "Matrices (continued): Exercises",
    ]
