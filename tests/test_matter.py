"""Front and back matter recognition: titles in any script, listing lines, regions on
synthetic documents, and on corpus books in English, Persian, Russian and Chinese."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from corpus import parsed
from irgen import build_doc, bullets, caption, code, heading, pages_of_paragraphs, para, words

from quire.shared.ir import Document, Element, OutlineEntry, RemovedText
from quire.workers.boundaries.matter import (
    MatterRegion,
    chapters_after_contents,
    element_kinds,
    find_matter,
    join_labels,
    listing_line,
    title_matter,
)
from quire.workers.boundaries.matter_plan import absorb_slivers


@pytest.mark.parametrize(
    "title,expected",
    [
        ("Table of Contents", ("front_matter", "contents")),
        ("# Contents", ("front_matter", "contents")),
        ("List of Figures", ("front_matter", "list of figures")),
        ("目 录", ("front_matter", "contents")),
        ("فهرستمطالب", ("front_matter", "contents")),  # Persian extraction lost the space
        ("فهرست مطالب", ("front_matter", "contents")),
        ("Оглавление", ("front_matter", "contents")),
        ("Îãëàâëåíèå", ("front_matter", "contents")),  # Cyrillic extracted as Latin-1
        ("Title Page", ("front_matter", "title pages")),
        ("Appendix D Function and variable index", ("back_matter", "index")),
        ("Concept Index", ("back_matter", "index")),
        ("VI Index", ("back_matter", "index")),
        ("索引", ("back_matter", "index")),
        ("نمایه", ("back_matter", "index")),
        ("Предметный указатель", ("back_matter", "index")),
        ("Appendix F References", ("back_matter", "bibliography")),
        ("参考文献", ("back_matter", "bibliography")),
        ("کتاب\u200cنامه", ("back_matter", "bibliography")),  # with a zero-width non-joiner
        ("Литература", ("back_matter", "bibliography")),
        ("Glossary", ("back_matter", "glossary")),
        ("واژه‌نامه", ("back_matter", "glossary")),
    ],
)
def test_matter_titles_in_any_script(title: str, expected: tuple[str, str]) -> None:
    assert title_matter(title) == expected


@pytest.mark.parametrize(
    "title",
    [
        "Introduction",
        "2.7 Index vectors; selecting and modifying subsets",
        "References to objects",
        "Indexing",
        "The contents of a package",
        "第一章 LaTeX 的基本概念",
        "Предисловие",
    ],
)
def test_other_titles_are_not_matter(title: str) -> None:
    assert title_matter(title) is None


@pytest.mark.parametrize(
    "text,expected",
    [
        ("1.1 The R environment . . . . . . . . . . . . . . . . . 2", True),
        ("۱۷ . . . . . . . . . . . . . . . . . . .شکستنخط وصفحه۲ . ۲", True),  # visual order
        ("Glossary 47", True),
        ("序 iii", True),
        ("abline, 71 ace, 12 add1, 56, 58 anova, 57, 60", True),
        ("۴۱ ،\\underbrace ۸۴ ،۸۲ ،\\unitlength", True),
        ("A vector holds values of one mode; c() combines them, and in 1990 R began. " * 3, False),
        ("B C", None),  # an index letter group says nothing either way
    ],
)
def test_listing_lines(text: str, expected: bool | None) -> None:
    assert listing_line(para(text)) is expected


def small_book() -> Document:
    toc = [para("Contents", page=2)] + [
        para(f"{n} Chapter {n} . . . . . . . . . . . . . . {n * 8}", page=2 + n // 8)
        for n in range(1, 15)
    ]
    chapters = []
    for n, first in enumerate((4, 12, 20), 1):
        chapters += [
            heading(f"{n} Chapter {n}", 1, page=first),
            *pages_of_paragraphs(8, first_page=first),
        ]
    # a section *about* references inside a chapter is study text
    chapters[5:5] = [
        heading("1.1 References", 2, page=5),
        para("Cite the sources you use.", page=5),
    ]
    index = [heading("Index", 1, page=28)] + [
        para(f"term{k}, {k + 4}, {k + 12}", page=28 + k // 30) for k in range(80)
    ]
    return build_doc(
        [para("A Small Book", page=1), para("by Someone", page=1), *toc, *chapters, *index]
    )


def test_regions_of_a_small_book() -> None:
    doc = small_book()
    front, back = find_matter(doc)
    assert (front.kind, front.page_first, front.page_last) == ("front_matter", 1, 3)
    assert front.label == "title pages and contents" and front.first_id == "el-000001"
    assert doc.by_id()[front.last_id].page_first == 3
    assert (back.kind, back.label, back.page_first) == ("back_matter", "index", 28)
    assert back.last_id == doc.elements[-1].id
    kinds = element_kinds(doc, [front, back])
    references = next(i for i, e in enumerate(doc.elements) if "1.1 References" in e.text)
    assert kinds[references] == "study"
    assert kinds.count("study") == len(doc.elements) - kinds.count("front_matter") - (
        kinds.count("back_matter")
    )


def test_back_matter_is_in_the_second_half_of_the_pages_not_of_the_elements() -> None:
    """achemso: its implementation is a few long code blocks, its change history and index
    many short entries; the "Change History" title on page 17 of 20 came 20 % of the way
    through the elements, and the back matter was study text."""
    els = [heading("1 Introduction", 1, page=1), *pages_of_paragraphs(4)]
    els += [heading("2 Implementation", 1, page=5)]
    els += [code("\\def\\x{}\n" * 60, page=p) for p in range(5, 17)]
    els += [heading("Change History", 1, page=17)]
    els += [para(f"v1.{k}: fixed the spacing of the rule", page=17 + k // 40) for k in range(150)]
    doc = build_doc(els)
    (back,) = find_matter(doc)
    assert (back.kind, back.label, back.page_first, back.page_last) == (
        "back_matter",
        "change history",
        17,
        20,
    )


def _book_with_a_references_chapter(references: list[Element]) -> Document:
    """Four chapters of 8 pages, then a top-level "8 Bibliographie" chapter (page 36)
    holding `references`, then a last chapter (page 38)."""
    els = [heading("Contents", 1, page=1)] + [
        para(f"{n} Chapter {n} . . . . . . . . . . {n * 8}", page=1) for n in range(1, 5)
    ]
    for n in range(1, 5):
        els += [heading(f"{n} Chapter {n}", 1, page=4 + 8 * (n - 1))]
        els += pages_of_paragraphs(8, first_page=4 + 8 * (n - 1))
    els += [heading("8 Bibliographie", 1, page=36), *references]
    els += [heading("9 Compatibilité", 1, page=38), *pages_of_paragraphs(2, first_page=38)]
    return build_doc(els)


def test_a_chapter_about_bibliographies_is_study_text() -> None:
    """frenchb-doc, ctex-faq: a top-level part titled like a bibliography, whose text is
    prose under subsections of its own and lists no references, teaches how to make one;
    it is no back matter (which left the chapter after it a 2-page study stretch)."""
    about = [
        para("Ce qui suit concerne les bibliographies créées avec BibTeX.", page=36),
        heading("8.1 Bibliographie avec BibTeX", 2, page=36),
        *[para(words(60, seed=k), page=36) for k in range(4)],
        heading("8.2 Bibliographie avec Biblatex", 2, page=37),
        *[para(words(60, seed=k + 4), page=37) for k in range(4)],
    ]
    doc = _book_with_a_references_chapter(about)
    assert [r.kind for r in find_matter(doc)] == ["front_matter"]
    # a bibliography, with sections of its own too, stays back matter
    listed = [
        para("Ce qui suit liste les ouvrages cités.", page=36),
        heading("Livres", 2, page=36),
        *[
            para(f"[{k}] Auteur {k}. Titre du livre {k}, Éditeur, {1990 + k}.", page=36)
            for k in range(1, 9)
        ],
        heading("Articles", 2, page=37),
        *[
            para(f"[{k}] Auteur {k}. Un article, https://example.org/{k}.", page=37)
            for k in range(9, 17)
        ],
    ]
    doc = _book_with_a_references_chapter(listed)
    back = [r for r in find_matter(doc) if r.kind == "back_matter"]
    assert [(r.label, r.page_first, r.page_last) for r in back] == [("bibliography", 36, 37)]


def _contents_page_book(abstract: bool) -> Document:
    """Page 1: the title (an abstract), the contents as one list, and chapter 1 opening
    under it (tikz-cd, svg, longfbox); chapters of 4 pages; an outline without a
    "Contents" entry."""
    titles = ["1 Getting started", "2 Controlling the diagrams", "3 Advanced usage"]
    front = [para("Commutative diagrams with TikZ", page=1), para("Version 1.0", page=1)]
    if abstract:
        front.append(para(words(30, seed=99), page=1))
    lines = [f"{n + 1}.{k} Section {k} . . . . . . {1 + 4 * n}" for n in range(3) for k in range(8)]
    front += [para("Contents", page=1), bullets(lines, page=1)]
    body = [heading(titles[0], 1, page=1), para(words(40, seed=7), page=1)]
    body += pages_of_paragraphs(3, first_page=2)
    for k, title in enumerate(titles[1:], 1):
        body += [heading(title, 1, page=1 + 4 * k), *pages_of_paragraphs(4, first_page=1 + 4 * k)]
    doc = build_doc([*front, *body])
    doc.outline = [OutlineEntry(level=1, title=t, page=1 + 4 * k) for k, t in enumerate(titles)]
    return doc


@pytest.mark.parametrize("abstract", [True, False])
def test_front_matter_ends_where_a_chapter_opens_under_the_contents_on_its_page(
    abstract: bool,
) -> None:
    """The chapter on the contents' page was held by the front matter (tikz-cd's first 4
    pages, svg's first 15) or not (without an abstract, the title and a contents of one
    list element were too small to be front matter, and opened the first study session)."""
    doc = _contents_page_book(abstract)
    assert chapters_after_contents(doc)[0] == (1, "1 Getting started")
    (front,) = find_matter(doc)
    chapter = next(i for i, e in enumerate(doc.elements) if e.type == "heading")
    assert (front.kind, front.first_id) == ("front_matter", "el-000001")
    assert front.last_id == doc.elements[chapter - 1].id


def test_a_chapter_under_the_contents_keeps_its_heading_over_linked_examples() -> None:
    """cms-notes-intro: the first chapter opens on the contents' page, and its examples
    below the heading are links (each to its bibliography entry), so they read as listing
    lines: the contents' last "line" came after the chapter's heading, and the front matter
    held the chapter (pages 1-3)."""
    chapters = [("Standard entry types", 1), ("Other entry types", 3), ("Short notes", 6)]
    chapters += [("Abbreviated references", 8), ("Online materials", 9)]
    chapters += [("Related entries", 11), ("Citation commands", 12), ("In conclusion", 13)]
    front = [para("The Chicago Notes & Bibliography Specification", page=1), para("Contents")]
    front += [para(f"{t} {p}", page=1) for t, p in chapters[1:]]
    front += [para(words(25, seed=3), page=1)]
    examples = [
        para(
            f"[{kind}:](#el-000009) [{words(14, seed=n)} (Place: Publisher, 19{n}7).](#el-0000{n}0)"
        )
        for n, kind in enumerate(["Article", "Book", "InBook", "Manual", "Report"], 2)
    ]
    body = [heading(chapters[0][0], 1, page=1), para(words(30, seed=5), page=1), *examples]
    body += pages_of_paragraphs(1, first_page=2)
    for (title, page), (_, nxt) in zip(chapters[1:], [*chapters[2:], ("", 15)], strict=True):
        body += [heading(title, 1, page=page), *pages_of_paragraphs(nxt - page, first_page=page)]
    doc = build_doc([*front, *body])
    doc.outline = [OutlineEntry(level=1, title=t, page=p) for t, p in chapters]
    assert [page for page, _ in chapters_after_contents(doc)] == [p for _, p in chapters]
    (matter,) = find_matter(doc)
    chapter = next(i for i, e in enumerate(doc.elements) if e.type == "heading")
    assert (matter.kind, matter.page_last) == ("front_matter", 1)
    assert matter.last_id == doc.elements[chapter - 1].id


def test_a_contents_titled_as_an_outline_entry_is_no_chapter_on_its_page() -> None:
    """marathi: the outline's first entry is the contents ("अनुक्रमणिका", a title the table
    did not know), and the title page's version line above it reads as a listing line:
    the contents' title, which listing lines follow, is no chapter opening there."""
    entries = [("Inhaltsübersicht", 1), ("1 Einleitung", 3), ("2 Befehle", 5), ("3 Beispiele", 9)]
    front = [para("Das Paket", page=1), para("Version 1.7, 2021", page=1)]
    front += [heading("Inhaltsübersicht", 1, page=1)]
    front += [para(f"{t} {p}", page=1) for t, p in entries[1:]]
    front += [para(f"2.{k} Abschnitt {k} . . . . . . . . {5 + k}", page=1) for k in range(1, 6)]
    front += [para(words(30, seed=8), page=2)]
    body: list[Element] = []
    for (title, page), (_, nxt) in zip(entries[1:], [*entries[2:], ("", 14)], strict=True):
        body += [heading(title, 1, page=page), *pages_of_paragraphs(nxt - page, first_page=page)]
    doc = build_doc([*front, *body])
    doc.outline = [OutlineEntry(level=1, title=t, page=p) for t, p in entries]
    assert [page for page, _ in chapters_after_contents(doc)] == [3, 5, 9]
    (matter,) = find_matter(doc)
    assert (matter.kind, matter.page_first, matter.page_last) == ("front_matter", 1, 2)


def test_a_chapter_label_over_its_heading_begins_the_chapter_not_the_matter() -> None:
    """marathi: the first chapter's page opens with its label ("१ प्रस्तावना") over its
    heading; the contents, titled by a heading, ran to that heading and kept the label."""
    front = [para("Das Paket", page=1), heading("Inhaltsverzeichnis", 1, page=1)]
    front += [para(f"{n} Kapitel {n} . . . . . . {1 + 2 * n}", page=1) for n in range(1, 9)]
    front += [para(words(40, seed=2), page=2)]
    body: list[Element] = []
    for n, label in enumerate(["Erstes Kapitel", "Zweites Kapitel", "Drittes Kapitel"], 1):
        body += [para(label, page=3 + 4 * (n - 1))]
        body += [heading(f"Titel {n}", 1, page=3 + 4 * (n - 1))]
        body += pages_of_paragraphs(4, first_page=3 + 4 * (n - 1))
    doc = build_doc([*front, *body])
    doc.outline = [
        OutlineEntry(level=1, title=f"Titel {n}", page=3 + 4 * (n - 1)) for n in (1, 2, 3)
    ]
    (matter,) = find_matter(doc)
    label = next(e for e in doc.elements if e.text == "Erstes Kapitel")
    assert (matter.kind, matter.page_last) == ("front_matter", 2)
    assert doc.elements[doc.elements.index(label) - 1].id == matter.last_id


def test_acknowledgements_are_front_or_back_matter_by_their_place() -> None:
    """pkuthss: "致谢" after the bibliography was a study session; "Acknowledgements" before
    the contents is front matter, and a section of that title among the chapters is study
    text (teubner's "4 Acknowledgements")."""
    front = [para("A Thesis", page=1), heading("Acknowledgements", 1, page=2)]
    front += [para(words(60, seed=4), page=2), heading("Contents", 1, page=3)]
    front += [para(f"{n} Chapter {n} . . . . . . {4 + 6 * (n - 1)}", page=3) for n in range(1, 5)]
    body: list[Element] = []
    for n in range(1, 5):
        body += [heading(f"{n} Chapter {n}", 1, page=4 + 6 * (n - 1))]
        if n == 2:
            body += [heading("2.1 Acknowledgements", 2, page=10), para(words(40, seed=6), page=10)]
        body += pages_of_paragraphs(6, first_page=4 + 6 * (n - 1))
    back = [heading("References", 1, page=28)]
    back += [
        para(f"[{k}] Author {k}. Title {k}. Publisher, 20{k:02d}.", page=28) for k in range(12)
    ]
    back += [heading("致谢", 1, page=29), para(words(80, seed=9), page=29)]
    doc = build_doc([*front, *body, *back])
    titles = ["Acknowledgements", "Contents"] + [f"{n} Chapter {n}" for n in range(1, 5)]
    pages = [2, 3, 4, 10, 16, 22]
    doc.outline = [
        OutlineEntry(level=1, title=t, page=p) for t, p in zip(titles, pages, strict=True)
    ]
    doc.outline += [OutlineEntry(level=1, title="References", page=28)]
    doc.outline += [OutlineEntry(level=1, title="致谢", page=29)]
    found = [(r.kind, r.label, r.page_first, r.page_last) for r in find_matter(doc)]
    assert found[0][0] == "front_matter" and found[0][2:] == (1, 3)
    assert "acknowledgements" in found[0][1]
    assert found[-1] == ("back_matter", "bibliography and closing acknowledgements", 28, 29)
    assert len(found) == 2  # the section among the chapters is none


def test_a_title_page_with_a_contents_of_one_list_is_front_matter() -> None:
    """nccsect, compsci: the title and a contents set as one list of 16 entries on page 1
    were too small (one listing element) and opened the first study session."""
    lines = [f"{n} Chapter {n} . . . . . . . . {2 + 3 * n}" for n in range(1, 17)]
    front = [para("The nccsect package", page=1), heading("Contents", 2), bullets(lines)]
    body: list[Element] = []
    for n in range(1, 5):
        body += [heading(f"{n} Chapter {n}", 1, page=2 + 3 * (n - 1))]
        body += pages_of_paragraphs(3, first_page=2 + 3 * (n - 1))
    doc = build_doc([*front, *body])
    (front_matter,) = find_matter(doc)
    assert (front_matter.kind, front_matter.page_first, front_matter.page_last) == (
        "front_matter",
        1,
        1,
    )
    assert front_matter.last_id == "el-000003"


def test_a_member_titled_contents_deep_in_a_reference_manual_is_study_text() -> None:
    """siscone's doxygen manual: a class's data member "contents" (a level-4 heading and
    outline entry, page 12) was taken for the contents, and the front matter ran to it,
    holding the first classes of "Class Documentation" (pages 6-12)."""
    lines = [f"Class{n} . . . . . . . . {6 + 3 * n}" for n in range(20)]
    els = [para("The library reference manual", page=1), heading("Class Index", 1, page=2)]
    els += [bullets(lines, page=2), heading("Class Documentation", 1, page=6)]
    outline = [OutlineEntry(level=1, title="Class Index", page=2)]
    outline.append(OutlineEntry(level=1, title="Class Documentation", page=6))
    for n in range(20):  # 66 pages: page 12 is in the first fifth
        page = 6 + 3 * n
        els += [heading(f"4.{n + 1} Class{n} Class Reference", 2, page=page)]
        els += [heading(f"4.{n + 1}.1 Member Data Documentation", 3, page=page)]
        member = "contents" if n == 2 else f"member{n}"
        els += [
            heading(f"4.{n + 1}.1.1 {member}", 4, page=page),
            para(words(80, seed=n), page=page),
        ]
        els += pages_of_paragraphs(2, first_page=page + 1)
        outline.append(OutlineEntry(level=2, title=f"Class{n} Class Reference", page=page))
        outline.append(OutlineEntry(level=4, title=member, page=page))
    doc = build_doc(els)
    doc.outline = outline
    (front,) = find_matter(doc)
    assert (front.kind, front.page_first, front.page_last) == ("front_matter", 1, 2)
    assert (6, "Class Documentation") in chapters_after_contents(doc)


def test_a_contents_under_a_lone_title_heading_is_front_matter() -> None:
    """curve2e's manual: its one level-1 heading is its title, so its "## Contents" (whose
    lines the parser made headings, an abstract under them) is a top-level part, and
    front matter by its title."""
    titles = ["1 Installation", "2 Usage", "3 Examples"]
    els = [heading("Package curve2e user manual", 1), heading("Contents", 2)]
    els += [heading(f"{t} {2 + 3 * k}", 4) for k, t in enumerate(titles)]
    els.append(para(words(300, seed=3)))
    for k, title in enumerate(titles):
        els += [heading(title, 2, page=2 + 3 * k), *pages_of_paragraphs(3, first_page=2 + 3 * k)]
    (front,) = find_matter(build_doc(els))
    assert (front.kind, front.page_first, front.last_id) == ("front_matter", 1, "el-000006")


def test_a_contents_list_running_on_to_the_first_page_of_the_body_is_front_matter() -> None:
    """The Debian Handbook's index page: its contents (lists of links, pages by word count)
    ends with appendix B's entries on the page where the Preface begins, and those
    entries opened the first study session ("Legal Notice (continued); Preface"); pikepdf's
    Sphinx contents has a caption over each part, and its last parts did the same."""

    def entries(n: int) -> list[str]:
        return [f"[{n}.{k}. Section {k}](#el-{900000 + 10 * n + k:06d})" for k in range(9)]

    lists = [bullets(entries(n), page=n) for n in (1, 2, 3)]
    lists.append(bullets([f"[B.{k}. Appendix {k}](#el-{990000 + k:06d})" for k in range(3)], 4))
    # a Sphinx index's contents parts have captions above them ("API", "Reference")
    lists[3:3] = [caption("Reference", page=4)]
    els = [heading("The Handbook", 1), *lists, heading("Preface", 1, page=4)]
    els += [para(words(120, seed=k), page=4) for k in range(3)]
    els += pages_of_paragraphs(8, first_page=5)
    (front,) = find_matter(build_doc(els))
    assert (front.kind, front.page_first, front.last_id) == ("front_matter", 1, "el-000006")


def test_a_slide_decks_contents_of_links_is_the_contents() -> None:
    """metapostpropaganda (beamer): its contents slide sets each section's title under its
    number as a link and its subsections' titles as links on one line, no page numbers; it
    was read as text, and the dated bullets of the "A bit of history" slides after it
    ("Volume2, 2nd ed., 1977") as the contents: the front matter held the Introduction."""

    def link(title: str, n: int) -> str:
        return f"[{title}](#el-{900000 + n:06d})"

    els = [para("A METAPOST tutorial", page=1), para("Evil WYSIWYG", page=2)]
    els += [
        para(f"1 {link('Introduction', 1)}", page=3),
        para(f"{link('A bit of history', 2)} {link('What is METAPOST?', 3)}", page=3),
        para(f"2 {link('Workflow', 4)}", page=3),
        para(link("Workflow example", 5), page=3),
    ]
    history = ["Volume1, 1969, hot metal", "Volume2, 2nd ed., 1977", "AMS, 1983", "TeX, v1, 1978"]
    els += [heading("A bit of history", 1, page=4), bullets(history, page=4)]
    els += [heading("A bit of history", 2, page=5), bullets(history, page=5)]
    els += [heading("Workflow", 1, page=6), *pages_of_paragraphs(8, first_page=6)]
    doc = build_doc(els).model_copy(
        update={
            "outline": [
                OutlineEntry(level=1, title="Introduction", page=4),
                OutlineEntry(level=1, title="Workflow", page=6),
            ]
        }
    )
    (front,) = find_matter(doc)
    assert (front.kind, front.page_first, front.page_last) == ("front_matter", 1, 3)


def test_a_chapters_own_list_of_sections_after_a_long_introduction_is_no_contents() -> None:
    """fontforge's site opens with 27 pages of introduction on its index page; its
    Tutorial's own list of sections (links) on p. 28 was taken for the book's contents,
    and the introduction became "Title pages and contents". A few pages of foreword before
    a contents are still front matter."""

    def book(intro_pages: int) -> list[Element]:
        els = [heading("FontForge Documentation", 1)]
        els += pages_of_paragraphs(intro_pages, first_page=1)
        page = intro_pages + 1
        entries = [f"[1.{k}. Step {k}](#el-{900000 + k:06d})" for k in range(12)]
        els += [heading("Tutorial", 1, page=page), bullets(entries, page=page)]
        for n in range(1, 31):  # a long book: p. 28 is within its first fifth
            first = page + 1 + 5 * (n - 1)
            els += [heading(f"{n}. Part {n}", 2, page=first)]
            els += pages_of_paragraphs(5, first_page=first)
        return els

    assert find_matter(build_doc(book(27))) == []
    (front,) = find_matter(build_doc(book(3)))
    assert (front.kind, front.page_first) == ("front_matter", 1)


def test_a_listing_after_the_first_numbered_chapter_is_no_contents() -> None:
    """feyn's font manual: a glyph table on page 3 ("a 97", "b 98") read as contents lines
    after "1 Description" (page 2), and the front matter held the description; the Ada
    standard's list of annexes with their pages did the same after "1 General". (Its
    closing "Licence", the text of the BSD licence, is back matter.)"""
    els = [heading("The feyn font", 1), para(words(60, seed=1))]
    els += [heading("1 Description", 1, page=2), para(words(300, seed=2), page=2)]
    els += [para(f"glyph {c} {ord(c)}", page=3) for c in "abcdefghijklmnopqrstuvwxyz"]
    for n, title in enumerate(["Examples", "Installation", "Licence"], 2):
        els += [heading(f"{n} {title}", 1, page=2 * n), *pages_of_paragraphs(2, first_page=2 * n)]
    found = find_matter(build_doc(els))
    assert [(r.kind, r.label, r.page_first) for r in found] == [("back_matter", "license", 8)]


def test_roman_page_numbers_are_evidence() -> None:
    doc = small_book().model_copy(
        update={
            "removed": [
                RemovedText(page=p, kind="page_number", text=t) for p, t in ((2, "ii"), (3, "iii"))
            ]
        }
    )
    front = find_matter(doc)[0]
    assert "roman page numbers on pages 2-3" in front.evidence


def test_a_book_without_matter_has_none() -> None:
    doc = build_doc([heading("1 One", 1), *pages_of_paragraphs(20)])
    assert find_matter(doc) == []


def test_a_sliver_before_a_confirmed_change_joins_the_matter() -> None:
    doc = small_book()
    front = find_matter(doc)[0]
    pos = {e.id: i for i, e in enumerate(doc.elements)}
    end = pos[front.last_id]
    # a confirmed change two elements after the contents: the heading and one line
    grown = absorb_slivers(doc, [front], mandatory=[end + 1])[0]
    assert grown.last_id == doc.elements[end + 1].id
    # a confirmed change a chapter later leaves the front matter as it was
    assert absorb_slivers(doc, [front], mandatory=[end + 30])[0] == front


def test_a_chapter_of_few_words_is_no_sliver() -> None:
    """dynare's Beamer slides: the title page and an outline slide, then the four slides
    of "1 Overview" (a few words each: under half a page of words in all) before a
    confirmed change at "2 Syntax". The front matter grew over the Overview as if it
    were a sliver; it is a chapter the outline places after the contents, which matter
    never holds. A part title alone on its page before the glossary ("3 Annexes", after
    a confirmed change) still joins the glossary."""
    els = [para("The Dynare Macro Processor"), para("Villemot and Bastani")]
    els += [para("Outline", page=2), para("1 Overview", page=2), para("2 Syntax", page=2)]
    els += [heading("1 Overview", 1, page=3), para(words(20, seed=1), page=3)]
    els += [para(words(25, seed=k), page=k) for k in (4, 5, 6)]
    syntax = len(els)
    els += [heading("2 Syntax", 1, page=7), *pages_of_paragraphs(6, first_page=7)]
    annexes = len(els)
    els += [heading("3 Annexes", 1, page=13), heading("Glossary", 2, page=14)]
    els += [para(f"term {k} {words(8, seed=k)}", page=14 + k // 20) for k in range(60)]
    outline = [
        OutlineEntry(level=1, title=t, page=p)
        for t, p in (("Overview", 3), ("Syntax", 7), ("Annexes", 13))
    ]
    doc = build_doc(els).model_copy(update={"outline": outline})
    (front,) = find_matter(doc)
    assert (front.page_first, front.page_last) == (1, 2)
    glossary = doc.elements[annexes + 1 :]
    back = MatterRegion(
        kind="back_matter",
        label="glossary",
        first_id=glossary[0].id,
        last_id=glossary[-1].id,
        page_first=14,
        page_last=16,
        evidence=["heading 'Glossary'"],
    )
    grown = absorb_slivers(doc, [front, back], mandatory=[syntax - 1, annexes - 1])
    assert grown[0] == front
    assert grown[1].first_id == doc.elements[annexes].id  # "3 Annexes" joins the glossary


def _back_region(doc: Document, first: int, last: int, label: str) -> MatterRegion:
    part = doc.elements[first : last + 1]
    return MatterRegion(
        kind="back_matter",
        label=label,
        first_id=part[0].id,
        last_id=part[-1].id,
        page_first=part[0].page_first,
        page_last=part[-1].page_last,
        evidence=[f"heading '{part[0].text}'"],
    )


@pytest.mark.parametrize("appendix", [True, False])
def test_an_appendix_with_text_of_its_own_between_back_matter_is_no_sliver(
    appendix: bool,
) -> None:
    """l2tabuen: the references (page 10), a one-page appendix of a sentence and a code
    example (under half a page of words), the licence (page 12). Both regions grew over
    the appendix, a chapter the outline places after the contents, and a back-matter
    session held it. A part title whose only text is references set as paragraphs
    ("IV Annexes" over "Références" and its entries, dun19expl3) still joins them."""
    els = [heading("1 Basics", 1, page=1), *pages_of_paragraphs(8, first_page=1)]
    refs = len(els)
    els += [heading("References", 1, page=10)]
    els += [para(f"[{k}] A. Author. Title {k}. Press, 20{10 + k}.", page=10) for k in range(8)]
    middle = len(els)
    if appendix:
        els += [heading("A An example of the sloppy command", 1, page=11)]
        els += [para("This is the example published earlier:", page=11)]
        els += [code("\\documentclass{article}\n" + words(60, seed=3), page=11)]
        els += [para(words(20, seed=4), page=11)]
    else:
        els += [heading("IV Annexes", 1, page=11), para("Références", page=11)]
        entry = "The LaTeX3 Project Team. The xparse package, document command parser. 2019."
        els += [para(f"[{k}] {entry} {k}p.", page=11) for k in range(6)]
    licence = len(els)
    els += [heading("B GNU Free Documentation License", 1, page=12)]
    els += [*pages_of_paragraphs(2, first_page=12)]
    title = "An example of the sloppy command" if appendix else "Annexes"
    outline = [
        OutlineEntry(level=1, title=t, page=p)
        for t, p in (("Basics", 1), ("References", 10), (title, 11), ("License", 12))
    ]
    doc = build_doc(els).model_copy(update={"outline": outline})
    back = [
        _back_region(doc, refs, middle - 1, "bibliography"),
        _back_region(doc, licence, len(els) - 1, "license"),
    ]
    grown = absorb_slivers(doc, back, mandatory=[])
    if appendix:
        assert grown == back
    else:
        assert grown[0].last_id == doc.elements[licence - 1].id


# --- corpus books in four languages -------------------------------------------------------

Regions = Callable[[str], list[MatterRegion]]


@pytest.fixture(scope="module")
def regions() -> Regions:
    cache: dict[str, list[MatterRegion]] = {}

    def get(name: str) -> list[MatterRegion]:
        if name not in cache:
            cache[name] = find_matter(parsed(name).document)
        return cache[name]

    return get


def pages(regions: list[MatterRegion]) -> list[tuple[str, int, int]]:
    return [(r.kind, r.page_first, r.page_last) for r in regions]


@pytest.mark.corpus
def test_english_r_intro(regions: Regions) -> None:
    found = regions("r-intro.pdf")
    # title and copyright pages, contents on pp. 3-6 (roman numbered); the Preface on p. 7
    # is studied. Back: function and concept indexes and the references, pp. 108-113.
    assert pages(found) == [("front_matter", 1, 6), ("back_matter", 108, 113)]
    assert found[1].label == "index and bibliography"
    assert any("roman page numbers" in e for e in found[0].evidence)


@pytest.mark.corpus
def test_persian_lshort(regions: Regions) -> None:
    found = regions("lshort-persian.pdf")
    # contents (فهرست مطالب, pp. 7-14) after the translator's preface and the preface;
    # back: کتاب‌نامه (bibliography, p. 131: its bookmark points at p. 129, where section
    # 6.7 stands, before a blank page) and نمایه (index, pp. 133-147)
    assert pages(found) == [("front_matter", 1, 14), ("back_matter", 131, 147)]
    assert found[1].label == "bibliography and index"


@pytest.mark.corpus
def test_russian_lshort(regions: Regions) -> None:
    found = regions("lshort-russian.pdf")
    # the body text is Latin-1 garbage, so the contents and index are found by their
    # listing lines; "4.2 Библиография" (how to make one) is a section, not back matter
    assert pages(found) == [("front_matter", 1, 16), ("back_matter", 139, 152)]


@pytest.mark.corpus
def test_chinese_lshort(regions: Regions) -> None:
    found = regions("lshort-zh-cn.pdf")
    # 标题页 / 致谢 / 前言 / 目录, then chapters; 参考文献, the GNU FDL's text (pp. 127-132:
    # to look up, not to study) and 索引 at the back
    assert pages(found) == [("front_matter", 1, 11), ("back_matter", 125, 139)]
    assert found[1].label == "bibliography and license and index"


@pytest.mark.corpus
def test_chinese_notes_sections_about_indexes_are_studied(regions: Regions) -> None:
    # "6.3 参考文献" and "6.4 索引" explain how to make a bibliography and an index; the
    # page before chapter 1 (p. 10, blank but for a joke about blank pages) is front matter
    assert pages(regions("latex-notes-zh-cn.pdf")) == [("front_matter", 1, 10)]


def test_merged_regions_name_each_part_once() -> None:
    # debian-reference.en.pdf: its title pages met "title pages and contents", and its
    # sessions were titled "Title pages and title pages and contents, part 1 of 3"
    assert join_labels("title pages", "title pages and contents") == "title pages and contents"
    assert join_labels("contents", "list of figures", "contents") == "contents and list of figures"


def test_front_matter_before_the_first_chapter_ends_at_its_heading_not_its_page() -> None:
    """biber's manual: a change log (named as matter, so no chapter) opens the book under
    its contents and runs on to page 3, where the Introduction begins; the front matter
    ended at page 3's first element, and the change log's last paragraphs opened the first
    study session as "Important Changes (continued); Introduction"."""
    lines = [f"{n} Chapter {n} . . . . . . . . {3 + 3 * n}" for n in range(1, 9)]
    els = [para("The backend manual", page=1), heading("Contents", 1), bullets(lines)]
    els += [heading("1 Important Changes", 1), *[para(words(90, seed=k), page=2) for k in range(3)]]
    log_tail = [para(words(70, seed=10 + k), page=3) for k in range(2)]
    els += [*log_tail, heading("2 Introduction", 1, page=3), para(words(120, seed=20), page=3)]
    els += pages_of_paragraphs(8, first_page=4)
    doc = build_doc(els)
    doc.outline = [
        OutlineEntry(level=1, title="1 Important Changes", page=1),
        OutlineEntry(level=1, title="2 Introduction", page=3),
    ]
    (front,) = find_matter(doc)
    intro = next(i for i, e in enumerate(doc.elements) if e.text == "# 2 Introduction")
    assert (front.kind, front.last_id) == ("front_matter", doc.elements[intro - 1].id)


def test_the_contents_last_line_set_as_a_heading_does_not_take_the_first_chapter() -> None:
    """arrayjobx: the contents' last entry ("4 Thanks 37") stands alone on page 2, set as
    a heading, right above "1 Introduction"; moving the front matter's end to a safe cut
    (a heading stays with what follows) took the chapter's heading and first paragraph,
    and the first study session was "Introduction (continued); Command reference"."""
    titles = ["1 Introduction", "2 Command reference", "3 Examples"]
    els = [heading("The arrayjobx package", 1), para(words(80, seed=1)), heading("Contents", 2)]
    els += [heading(f"{t} {2 + 3 * k}", 6) for k, t in enumerate(titles)]
    els += [para(f"3.{k} Example {k} . . . . . . . . . . . . . . {8 + k}") for k in range(1, 6)]
    els += [heading("4 Thanks 37", 6, page=2)]
    for k, title in enumerate(titles):
        page = 2 + 3 * k
        els += [heading(title, 2, page=page), para(words(150, seed=k), page=page)]
        els += pages_of_paragraphs(2, first_page=page + 1)
    doc = build_doc(els)
    (front,) = find_matter(doc)
    intro = next(i for i, e in enumerate(doc.elements) if e.text == "## 1 Introduction")
    assert front.kind == "front_matter"
    ids = [e.id for e in doc.elements]
    assert ids.index(front.last_id) < intro


def test_a_contents_run_ends_where_the_numbered_chapters_begin() -> None:
    """biblatex-archaeology's samples (five manuals): pages of citation examples, each
    line with its page references ("\\\\textcite Auler & Hiller (2015a, 159-187)"), read as
    contents lines, and the front matter ran from the contents on page 1 over chapters 1-3
    to page 6 (the title, set as two level-1 headings, hid the level-2 chapters)."""
    titles = ["1 Preliminary remarks", "2 Blindtext", "3 Citation commands", "4 Ligatures"]
    els = [heading("biblatex-archaeology sample", 1), heading("document", 1)]
    els += [heading("Contents", 2), bullets([f"{t} {2 + k}" for k, t in enumerate(titles)])]
    els += [heading(titles[0], 2, page=2), para(words(60, seed=1), page=2)]
    els += [heading(titles[1], 2, page=2), para(words(200, seed=2), page=2)]
    els.append(heading(titles[2], 2, page=3))
    for page in (3, 4, 5):
        els += [
            para(f"\\\\cite{k} Auler & Hiller, 2015, {100 + k}–{120 + k}", page) for k in range(15)
        ]
    els += [heading(titles[3], 2, page=6), *pages_of_paragraphs(6, first_page=6)]
    doc = build_doc(els)
    (front,) = find_matter(doc)
    first = next(i for i, e in enumerate(doc.elements) if e.text == f"## {titles[0]}")
    assert (front.kind, front.last_id) == ("front_matter", doc.elements[first - 1].id)


def test_a_title_block_above_the_chapters_is_not_their_level() -> None:
    """A Texinfo manual as one HTML page, made a DOCX by pandoc (bash's reference
    manual): the title twice and the top node's "Bash Features" as level-1 headings, the
    chapters and appendices at level 2. The title block was the top level, the appendices
    were not top-level parts, and the licence and the indexes were study sessions."""
    els = [
        heading("Bash Reference Manual", 1, page=1),
        heading("Bash Reference Manual", 1, page=1),
        para("This text is a brief description of the features of Bash.", page=1),
        heading("Bash Features", 1, page=1),
    ]
    for n in range(1, 6):
        els += [heading(f"{n} Chapter {n}", 2, page=2 + 8 * (n - 1))]
        els += pages_of_paragraphs(8, first_page=2 + 8 * (n - 1))
    els += [heading("Appendix C GNU Free Documentation License", 2, page=42)]
    els += pages_of_paragraphs(3, first_page=42)
    els += [heading("Appendix D Indexes", 2, page=45)]
    els += [heading("D.1 Index of Shell Builtin Commands", 3, page=45)]
    els += [para(f"builtin{k}: Bourne Shell Builtins", page=45 + k // 40) for k in range(120)]
    doc = build_doc(els, basis="words", name="bashref.docx")
    back = [(r.label, r.page_first, r.page_last) for r in find_matter(doc)]
    assert back == [("license and index", 42, 47)]


def test_a_contents_without_page_numbers_is_front_matter() -> None:
    """Debian's reference manual in Chinese, its HTML pages made one DOCX: the contents
    lists each section by number and title, with no page numbers and no links, and its
    list of tables each table by its caption without "表" ("1.4. “ls -l”输出的…"); 13
    estimated pages of them were a study session. A chapter's own list of its sections
    (DocBook's, under the chapter's heading) is study text."""
    sections = [(n, k) for n in range(1, 6) for k in range(1, 9)]
    els = [heading("Debian 参考手册", 1, page=1), para("目录", page=1)]
    els += [para(f"{n}. 第{n}章的标题", page=1) for n in range(1, 6)]
    els += [para(f"{n}.{k}. 小节{n}{k}的标题", page=1) for n, k in sections]
    els += [para("表格清单", page=1)]
    els += [para(f"{n}.{k}. 表格{n}{k}的说明", page=1) for n, k in sections]
    for n in range(1, 6):
        els += [heading(f"第 {n} 章 第{n}章的标题", 1, page=1)]
        els += [para(f"{n}.{k}. 小节{n}{k}的标题", page=1) for k in range(1, 9)]
        for k in range(1, 9):
            els += [heading(f"{n}.{k}. 小节{n}{k}的标题", 2, page=1)]
            els += [para(f"表 {n}.{k}. 表格{n}{k}的说明", page=1)]
            els += [para(words(120, seed=10 * n + k), page=1)]
    doc = build_doc(els, basis="words", name="reference.zh-cn.docx")
    (front,) = find_matter(doc)
    chapter = next(k for k, e in enumerate(doc.elements) if e.text.startswith("# 第 1 章"))
    assert front.kind == "front_matter" and front.first_id == doc.elements[0].id
    assert front.last_id == doc.elements[chapter - 1].id


def test_a_chapter_titled_like_matter_after_the_first_chapters_is_study_text() -> None:
    """practicalreports' manual: its chapter "7 Figures" (how to include figures) was
    read as a list of figures, front matter ran from the title to it, and past the front
    matter's share of the book none was found: the contents opened the first study
    session."""
    chapters = ["Importing the Package", "Exponent Macro", "Title Page", "Tables", "Figures"]
    lines = [f"{n} {t} {2 + 2 * n}" for n, t in enumerate(chapters, 1)]
    els = [heading("practicalreports Documentation", 1), heading("Contents", 2), bullets(lines)]
    for n, title in enumerate(chapters, 1):
        els += [heading(f"{n} {title}", 2, page=2 * n)]
        els += pages_of_paragraphs(2, first_page=2 * n)
    (front,) = find_matter(build_doc(els))
    assert (front.kind, front.last_id) == ("front_matter", "el-000003")


def _closing_index_book(outline: bool) -> Document:
    """Three chapters; the last one's final paragraphs open page 28, where "References"
    (a few entries) and then the index begin."""
    els: list[Element] = []
    for n, first in enumerate((1, 10, 19), 1):
        els += [heading(f"{n} Chapter {n}", 1, page=first), *pages_of_paragraphs(9, first)]
    els += [para(words(40, seed=k), page=28) for k in range(2)]  # chapter 3 ends here
    els += [heading("References", 1, page=28)]
    els += [para(f"[{k}] A. Author. A book, Press, 20{k:02d}.", page=28) for k in range(1, 4)]
    els += [para(f"term{k}, {k + 4}, {k + 12}", page=28 + k // 40) for k in range(80)]
    doc = build_doc(els)
    if outline:
        doc.outline = [
            OutlineEntry(level=1, title=f"{n} Chapter {n}", page=p)
            for n, p in enumerate((1, 10, 19), 1)
        ]
        doc.outline.append(OutlineEntry(level=1, title="References", page=28))
    return doc


@pytest.mark.parametrize("outline", [False, True])
def test_back_matter_on_the_last_chapters_page_begins_at_its_title(outline: bool) -> None:
    """rkeyval, numprint, booktabs-de: the index's first page opens with the last lines of
    the implementation, and the back matter took them from the page's top; ctex-faq's
    outline entry "References" did the same to its questions 88 and 89."""
    doc = _closing_index_book(outline)
    (back,) = find_matter(doc)
    title = next(e for e in doc.elements if e.text == "# References")
    assert (back.kind, back.first_id) == ("back_matter", title.id)


def test_numbered_code_lines_after_a_linked_contents_are_no_contents() -> None:
    """tikz-among-us: its contents, a list of links on the title page, leads to page 3;
    the examples' code from page 5 on, numbered lines with coordinates ("2 \\\\node at
    (0,0) …; 3 \\\\node at (5,0) …"), read as contents lines, and the front matter ran
    over the first 13 pages (the introduction and the examples)."""
    titles = ["Introduction", "Using the package", "Examples"]
    # the headings will be el-000003, el-000005 and el-000007
    entries = [f"[{t}](#el-{3 + 2 * k:06d}) . . . . . {k + 1}" for k, t in enumerate(titles)]
    els = [para("The tikz-among-us package", page=1), bullets(entries, page=1)]
    els += [heading(titles[0], 1, page=1), para(words(120, seed=1), page=1)]
    els += [heading(titles[1], 1, page=2), para(words(250, seed=2), page=2)]
    els += [heading(titles[2], 1, page=3), *pages_of_paragraphs(2, first_page=3)]
    for page in range(5, 9):
        els += [
            para(f"{k} \\\\node at ({k},0) {{\\\\amongUs{{c{k}}}}}; {k + 1} \\\\draw (0,{k})", page)
            for k in range(1, 12, 2)
        ]
    els += pages_of_paragraphs(20, first_page=9)
    doc = build_doc(els)
    assert [e.id for e in doc.elements if e.type == "heading"] == [
        "el-000003",
        "el-000005",
        "el-000007",
    ]
    assert not any(r.kind == "front_matter" and r.page_last > 2 for r in find_matter(doc))


def _book_closing_with(back: list[Element], first_page: int) -> Document:
    """Three parts of 10 pages (level 1), chapters under them (level 2), and `back` after
    the last chapter, from `first_page` on."""
    els: list[Element] = []
    for n in range(3):
        els += [heading(f"Part {n + 1}", 1, page=1 + 10 * n)]
        els += [heading(f"{n + 1}.1 Chapter", 2, page=1 + 10 * n)]
        els += pages_of_paragraphs(10, first_page=1 + 10 * n)
    return build_doc([*els, *back])


def test_a_closing_bibliography_under_the_last_part_is_back_matter() -> None:
    """maximabook: "Bibliography" (level 2, under part III) closes the book with 22 pages
    of references, read as study text titled "Installing, Resources, Misc (continued)". A
    closing section that lists references is back matter; one that is prose is not."""
    refs = [heading("Bibliography", 2, page=31)]
    refs += [
        para(
            f"[Ab{k:02d}] A. Author and B. Author. {words(12, seed=k)}. Proceedings of the "
            f"conference on symbolic computation, {1980 + k}.",
            page=31 + k // 30,
        )
        for k in range(90)
    ]
    doc = _book_closing_with(refs, 31)
    back = [(r.label, r.page_first, r.page_last) for r in find_matter(doc)]
    assert back == [("bibliography", 31, 33)]
    prose = [heading("Bibliography", 2, page=31), *pages_of_paragraphs(3, first_page=31)]
    assert find_matter(_book_closing_with(prose, 31)) == []
    # Toptesi: only a bookmark "Bibliografia" names it, pointing at the page where a chapter
    # of code opens; the references close its last page. The chapter is no back matter.
    listing = [heading("4 The package's code", 2, page=31)]
    listing += [code("\\def\\x{}\n" * 40, page=p) for p in (31, 32, 33)]
    doc = _book_closing_with([*listing, *refs[1:4]], 31)
    doc.outline = [OutlineEntry(level=1, title=f"Part {n + 1}", page=1 + 10 * n) for n in range(3)]
    doc.outline.append(OutlineEntry(level=2, title="Bibliography", page=31))
    assert find_matter(doc) == []


def test_a_matter_title_opening_the_page_after_its_bookmark_starts_the_matter() -> None:
    """asymptote's Chinese manual: the bookmark "索引" points at p. 30, where the last
    section ends; the index's title opens p. 31. The back matter begins at the title, not
    at the top of the bookmark's page."""
    index = [heading("索引", 1, page=31)]
    index += [para(f"term{k}, {k + 4}, {k + 12}", page=31 + k // 60) for k in range(120)]
    doc = _book_closing_with(index, 31)
    doc.outline = [OutlineEntry(level=1, title=f"Part {n + 1}", page=1 + 10 * n) for n in range(3)]
    doc.outline.append(OutlineEntry(level=1, title="索引", page=30))
    (back,) = find_matter(doc)
    assert (back.label, back.page_first) == ("index", 31)
