"""Planning rules that a sweep over unseen manuals asked for, on generated documents.

- The runt rule holds for the last study session before back matter too: a short last
  chapter joins its neighbour when the two fit 13 pages, and keeps its own session only
  when they would not, and only in a long document, where it is one short session among
  many, or when it is a chapter of its own a page short: a short document otherwise splits
  evenly (8 + 7, not 13 + 2).
- Back matter titled in any script of the table ("Bibliografía", "Литература", "참고 문헌")
  is a reference session, never a short study session.
- Front matter ends before the first chapter the outline places after the contents, and
  back matter (a closing run of listing-like lines, or short study text after it) never
  holds one; an outline entry that names matter, or goes on with one ("Index bis"), is no
  chapter.
- A chapter start the outline gives, whatever the IR made of its first line, is worth a
  session whenever the size rules allow one.
- The pages before the outline's first chapter (a title page with an abstract) are front
  matter, so the first study session begins where the book does.
"""

from __future__ import annotations

import pytest
from irgen import build_doc, heading, pages_of_paragraphs, para, words
from plan_metrics import (
    chapter_starts,
    chapters_in_matter,
    honoured,
    oracle_honoured,
    plan_ranges,
    runts,
)

from quire.shared.ir import Document, Element, OutlineEntry
from quire.shared.plan import Plan, PlanSettings
from quire.workers.boundaries.candidates import safe_candidates
from quire.workers.boundaries.evidence import CutEvidence, major_starts
from quire.workers.boundaries.global_plan import SESSION
from quire.workers.boundaries.matter import chapters_after_contents, find_matter
from quire.workers.boundaries.planner import plan_globally
from quire.workers.boundaries.scoring import score_candidates

RULES = PlanSettings()


def plan(doc: Document) -> Plan:
    return plan_globally(doc, score_candidates(doc, safe_candidates(doc)), {}, RULES)


def chapter(title: str, first: int, pages: int, topic: int = 0) -> list[Element]:
    return [
        heading(title, 1, page=first),
        *pages_of_paragraphs(pages, first_page=first, topic_every=100 if topic else None),
    ]


def index_pages(first: int, pages: int, title: str = "Index") -> list[Element]:
    lines = [para(f"term{k}, {k + 3}, {k + 11}", page=first + k // 40) for k in range(40 * pages)]
    return [heading(title, 1, page=first), *lines]


def with_outline(doc: Document, *entries: tuple[str, int]) -> Document:
    outline = [OutlineEntry(level=1, title=t, page=p) for t, p in entries]
    return doc.model_copy(update={"outline": outline})


def study_sizes(p: Plan) -> list[float]:
    return [c.pages for c in p.chunks if c.kind == "study"]


# --- the runt rule before back matter ------------------------------------------------------


def manual(last_before: int, last: int, chapters: int = 2) -> Document:
    """`chapters` chapters of 8 pages, a chapter of `last_before` pages, a last chapter of
    `last` pages ("Conclusion; Acknowledgments"), then a 3-page index."""
    els: list[Element] = []
    page = 1
    for n, size in enumerate((*[8] * chapters, last_before, last), 1):
        els += chapter(f"{n} Chapter {n}", page, size)
        page += size
    return build_doc([*els, *index_pages(page, 3)])


def test_a_short_last_chapter_before_the_index_joins_its_neighbour() -> None:
    # pp. 17-22 and 23-24: together 8 pages, so the 2-page chapter is no session of its own
    p = plan(manual(last_before=6, last=2))
    assert [c.kind for c in p.chunks][-1] == "back_matter"
    assert min(study_sizes(p)) >= RULES.min_pages, study_sizes(p)
    ranges, study = plan_ranges(p), [c.kind == "study" for c in p.chunks]
    assert runts(ranges, study, RULES) == []


def test_a_short_last_chapter_keeps_its_session_when_joining_would_pass_13_pages() -> None:
    # pp. 89-100 (12 pages) and 101-102: joined they would be 14 pages, so in a book of a
    # dozen sessions the runt rule allows the 2-page chapter its own session, and its
    # start is honoured
    doc = manual(last_before=12, last=2, chapters=11)
    p = plan(doc)
    last_study = [c for c in p.chunks if c.kind == "study"][-1]
    assert (last_study.page_first, last_study.page_last) == (101, 102)
    assert runts(plan_ranges(p), [c.kind == "study" for c in p.chunks], RULES) == []


def bibliography_pages(first: int, pages: int) -> list[Element]:
    refs = [
        para(f"[{k}] Author {k}. The manual of package {k}, {1990 + k}.", page=first + k // 10)
        for k in range(10 * pages)
    ]
    return [heading("Bibliography", 1, page=first), *refs]


@pytest.mark.parametrize("index_after", [False, True])
def test_a_short_stretch_of_study_text_after_back_matter_joins_it(index_after: bool) -> None:
    """milog, letgut, ctex-faq: a 2-page chapter (a change history, a membership form)
    after the bibliography, before the index or the document's end, has only reference
    matter beside it: no study session can hold it, so the back matter does."""
    els: list[Element] = []
    for n in range(4):
        els += chapter(f"{n + 1} Chapter", 1 + 8 * n, 8, topic=n % 2)
    els += bibliography_pages(33, 2)
    els += chapter("5 Adhésion", 35, 2, topic=1)
    if index_after:
        els += index_pages(37, 1)
    p = plan(build_doc(els))
    kinds = [(c.kind, c.page_first, c.page_last) for c in p.chunks]
    assert [k for k in kinds if k[0] == "study"][-1][2] == 32, kinds
    assert min(study_sizes(p)) >= RULES.min_pages, kinds
    assert {k[0] for k in kinds if k[1] >= 33} == {"back_matter"}, kinds
    assert kinds[-1][2] == (37 if index_after else 36)


def test_a_chapter_after_back_matter_is_a_study_session_of_its_own() -> None:
    # cjeguide, hfutthesis: appendices after the bibliography, listed by the outline after
    # the contents, were held by the bibliography's session: back matter holds no chapter,
    # so a 2-page appendix is a short study session between reference sessions
    els: list[Element] = []
    for n in range(4):
        els += chapter(f"{n + 1} Chapter", 1 + 8 * n, 8, topic=n % 2)
    els += bibliography_pages(33, 2)
    els += chapter("Appendix A", 35, 2, topic=1)
    entries = [(f"{n + 1} Chapter", 1 + 8 * n) for n in range(4)]
    doc = with_outline(
        build_doc(els), ("Contents", 1), *entries, ("Bibliography", 33), ("Appendix A", 35)
    )
    p = plan(doc)
    kinds = [(c.kind, c.page_first, c.page_last) for c in p.chunks]
    assert kinds[-2:] == [("back_matter", 33, 34), ("study", 35, 36)], kinds
    ranges, study = plan_ranges(p), [c.kind == "study" for c in p.chunks]
    assert chapters_in_matter(doc, ranges, study) == []


def test_a_woven_programs_names_of_the_sections_close_its_index() -> None:
    # tftopl, gftype, ctangle and seven more WEB and CWEB programs: "Names of the sections"
    # lists the named modules after the index, its bookmark's title in the running header
    # only. It was read as a chapter after the index: a 1-page study session at the end
    els: list[Element] = []
    for n in range(4):
        els += chapter(f"{n + 1}. Part {n + 1}.", 1 + 8 * n, 8, topic=n % 2)
    els += index_pages(33, 2)
    els += [para(f"<Set initial values {k}> Used in section {k + 2}.", page=35) for k in range(9)]
    entries = [(f"Part {n + 1}", 1 + 8 * n) for n in range(4)]
    doc = with_outline(build_doc(els), *entries, ("Index", 33), ("Names of the sections", 35))
    assert [t for _, t in chapters_after_contents(doc)] == [t for t, _ in entries]
    kinds = [(c.kind, c.page_first, c.page_last) for c in plan(doc).chunks]
    assert kinds[-1] == ("back_matter", 33, 35), kinds


def test_an_entry_going_on_with_matter_is_no_chapter() -> None:
    # multisample: "Index bis", "Index with tag a1" after "Index" are more index, and
    # "Contents" or "List of Figures" are no chapter a plan must honour
    els = [para("A Manual", page=1), *chapter("1 One", 2, 8), *chapter("2 Two", 10, 8)]
    els += index_pages(18, 1) + index_pages(19, 1, "Index bis")
    doc = with_outline(
        build_doc(els),
        ("Contents", 1),
        ("1 One", 2),
        ("2 Two", 10),
        ("Index", 18),
        ("Index bis", 19),
        ("Index with tag a1", 19),
    )
    assert [t for _, t in chapters_after_contents(doc)] == ["1 One", "2 Two"]
    assert chapter_starts(doc) == [2, 10]
    assert chapter_starts(doc, matter=True) == [1, 10, 18]  # as the naive splitter cuts


def two_chapter_manual(first: int, last: int, *, index: bool) -> Document:
    """A short manual: a `first`-page chapter, a `last`-page one, and maybe an index."""
    els = chapter("1 Usage", 1, first) + chapter("2 Implementation", first + 1, last)
    end = first + last + 1
    return build_doc([*els, *(index_pages(end, 2) if index else [])])


@pytest.mark.parametrize("index", [False, True])
@pytest.mark.parametrize(("first", "last"), [(13, 2), (12, 3)])
def test_a_short_document_splits_evenly_rather_than_keep_a_short_last_chapter(
    first: int, last: int, index: bool
) -> None:
    # The sweep's 15-16-page manuals (zhs-man, hep-math) were cut 13 + 2 for the start of
    # their short last chapter: one of their two sessions far outside 5-13 pages, where
    # 8 + 7 was possible. In a short document a closing session more than a page short is
    # no exception to the runt rule's cost.
    p = plan(two_chapter_manual(first, last, index=index))
    sizes = study_sizes(p)
    assert len(sizes) == 2 and all(5 <= n <= 13 for n in sizes), sizes
    assert [c.kind for c in p.chunks][-1] == ("back_matter" if index else "study")


@pytest.mark.parametrize("index", [False, True])
@pytest.mark.parametrize(("first", "last"), [(12, 4), (11, 4)])
def test_a_short_document_keeps_a_closing_chapter_a_page_short(
    first: int, last: int, index: bool
) -> None:
    # xpinyin, libertine, msc: a last chapter of 4 pages is a session of its own, as the
    # runt rule allows (joined to the chapter before it would pass 13 pages), rather than
    # 8 + 8 cut inside the first chapter: a chapter start is honoured where the sizes allow
    p = plan(two_chapter_manual(first, last, index=index))
    study = [(c.page_first, c.page_last) for c in p.chunks if c.kind == "study"]
    assert study == [(1, first), (first + 1, first + last)], study


def test_a_chapter_start_still_places_an_even_split_of_a_short_document() -> None:
    # within the sizes, the chapter start decides where a short document is cut: 9 + 7 at
    # the chapter, not 8 + 8 inside it
    doc = build_doc(chapter("1 Usage", 1, 9) + chapter("2 Implementation", 10, 7))
    p = plan(doc)
    assert [(c.page_first, c.page_last) for c in p.chunks] == [(1, 9), (10, 16)]


# --- back matter in every script -----------------------------------------------------------


@pytest.mark.parametrize(
    "title",
    ["Bibliografía", "Literaturverzeichnis", "Rejstřík", "Литература", "Βιβλιογραφία",
     "참고 문헌", "参考文献", "کتاب‌نامه", "ביבליוגרפיה", "บรรณานุกรม"],
)  # fmt: skip
def test_back_matter_in_any_script_is_a_reference_session(title: str) -> None:
    # a Spanish "Bibliografía" of 3 pages after a 6-page chapter became a study session
    els = chapter("1 Uno", 1, 8) + chapter("2 Dos", 9, 8) + chapter("3 Tres", 17, 6)
    refs = [heading(title, 1, page=23)] + [
        para(
            f"Autor {'abcdefghijkl'[k % 12]}. Un libro sobre el tema. Editorial Sur.",
            page=23 + k // 12,
        )
        for k in range(36)
    ]
    p = plan(build_doc([*els, *refs]))
    assert p.chunks[-1].kind == "back_matter" and p.chunks[-1].page_first == 23
    assert min(study_sizes(p)) >= RULES.min_pages


# --- front and back matter never hold a chapter after the contents ------------------------


def early_chapters_manual() -> Document:
    """The issue's 28-page manual: contents on p. 2, then its Introduction (p. 3) and
    "Document setup and structure" (p. 4) while pages 3-7 are dense with listing-like
    option lines ("\\title 12"), which read as more contents."""
    toc = [heading("Contents", 1, page=2)] + [
        para(f"{n} Topic {n} . . . . . . . . . . . . . . . . {n * 2 + 3}", page=2)
        for n in range(1, 13)
    ]
    intro = [heading("1 Introduction", 1, page=3), para("This manual explains a class.", page=3)]
    intro += [para(f"\\option{k} {k + 10}", page=3) for k in range(8)]
    setup = [heading("2 Document setup and structure", 1, page=4)]
    for p in range(4, 8):
        setup += [para(f"\\command{p}{k} {p * 3 + k}", page=p) for k in range(10)]
    body = pages_of_paragraphs(21, first_page=8)
    doc = build_doc([para("A Class Manual", page=1), *toc, *intro, *setup, *body])
    return with_outline(
        doc, ("Contents", 2), ("1 Introduction", 3), ("2 Document setup and structure", 4)
    )


def test_front_matter_ends_before_the_first_chapter_after_the_contents() -> None:
    doc = early_chapters_manual()
    assert chapters_after_contents(doc) == [
        (3, "1 Introduction"),
        (4, "2 Document setup and structure"),
    ]
    front = find_matter(doc)[0]
    assert front.kind == "front_matter" and front.page_last == 2  # was pp. 1-7
    p = plan(doc)
    ranges, study = plan_ranges(p), [c.kind == "study" for c in p.chunks]
    assert chapters_in_matter(doc, ranges, study) == []
    assert p.chunks[1].kind == "study" and p.chunks[1].page_first == 3


def test_a_closing_run_of_listing_lines_does_not_swallow_a_chapter() -> None:
    # a change log at the end reads like an index ("v0.4, 2004, 12"): it is still studied
    els = chapter("1 One", 1, 8) + chapter("2 Two", 9, 8)
    log = [heading("3 ChangeList", 1, page=17)] + [
        para(f"v0.{k}, {2000 + k}, {k + 1}", page=17 + k // 40) for k in range(80)
    ]
    doc = with_outline(
        build_doc([*els, *log]), ("Contents", 1), ("1 One", 1), ("2 Two", 9), ("3 ChangeList", 17)
    )
    assert all(r.kind != "back_matter" or r.page_first > 18 for r in find_matter(doc))
    p = plan(doc)
    ranges, study = plan_ranges(p), [c.kind == "study" for c in p.chunks]
    assert chapters_in_matter(doc, ranges, study) == []


def test_an_index_under_a_title_the_table_does_not_know_is_back_matter() -> None:
    # LilyPond's Dutch manual: "C LilyPond register" (the outline's last entry) holds an
    # alphabetical index; its title names no matter, so the index was spared as a chapter
    # and became a 7-page study session after "License and index"
    names = [f"{chr(97 + k // 12)}{chr(97 + k % 12)}term" for k in range(240)]
    index = [heading("C LilyPond register", 1, page=15)] + [
        para(f"{name} . . . . . . . . . . . . {k % 12 + 1}", page=15 + k // 40)
        for k, name in enumerate(names)
    ]
    doc = with_outline(
        build_doc([*chapter("1 One", 1, 8), *chapter("2 Two", 9, 6), *index]),
        ("1 One", 1),
        ("2 Two", 9),
        ("C LilyPond register", 15),
    )
    assert chapters_after_contents(doc) == [(1, "1 One"), (9, "2 Two")]
    back = [r for r in find_matter(doc) if r.kind == "back_matter"]
    assert [(r.label, r.page_first, r.page_last) for r in back] == [("index", 15, 20)]
    assert [c.kind for c in plan(doc).chunks][-1] == "back_matter"


def test_a_change_list_after_an_alphabetical_index_is_still_a_chapter() -> None:
    # ctex-faq: "Index", then "Contributors" and "ChangeList of v0.4" in the outline, the
    # change list's lines like an index's; they are no part of the index
    names = [f"{chr(97 + k // 12)}{chr(97 + k % 12)}term" for k in range(120)]
    index = [heading("Index", 1, page=15)] + [
        para(f"{name}, {k % 12 + 1}", page=15 + k // 40) for k, name in enumerate(names)
    ]
    log = [heading("ChangeList", 1, page=18)] + [
        para(f"v0.{k}, {2000 + k}, {k + 1}", page=18 + k // 40) for k in range(120)
    ]
    doc = with_outline(
        build_doc([*chapter("1 One", 1, 8), *chapter("2 Two", 9, 6), *index, *log]),
        ("1 One", 1),
        ("2 Two", 9),
        ("Index", 15),
        ("ChangeList", 18),
    )
    assert chapters_after_contents(doc) == [(1, "1 One"), (9, "2 Two"), (18, "ChangeList")]
    back = [r for r in find_matter(doc) if r.kind == "back_matter"]
    assert [(r.label, r.page_first, r.page_last) for r in back] == [("index", 15, 17)]


def test_an_index_after_a_change_log_on_its_page_is_still_back_matter() -> None:
    # ltxdoc manuals: "Change History" (in the outline) and "Index" begin on the same page;
    # the index's span started at that page and was cut back before the change log, to
    # nothing (zhlipsum: a 13 + 2 plan with the index as a study session). The change
    # history is back matter too: the back matter begins at its title.
    els = chapter("1 One", 1, 8) + chapter("2 Two", 9, 4)
    log = [heading("Change History", 1, page=13)] + [
        para(f"v0.{k} (2017/04/{k + 10}) First release {k}", page=13) for k in range(6)
    ]
    index = [heading("Index", 1, page=13)] + [
        para(f"\\command{k}, {k % 12 + 1}, {k % 7 + 2}", page=13 + k // 40) for k in range(90)
    ]
    doc = with_outline(
        build_doc([*els, *log, *index]),
        ("1 One", 1),
        ("2 Two", 9),
        ("Change History", 13),
        ("Index", 13),
    )
    back = [r for r in find_matter(doc) if r.kind == "back_matter"]
    first = {e.id: e.text for e in doc.elements}
    assert [first[r.first_id] for r in back] == ["# Change History"]
    assert [c.kind for c in plan(doc).chunks][-1] == "back_matter"


# --- chapter starts are worth a session ---------------------------------------------------


def test_a_chapter_start_the_outline_gives_is_honoured_when_the_sizes_allow_it() -> None:
    # Four 6-page chapters whose openings the parser did not make headings of: only the
    # outline says where they start. The old weights put two chapters in each 12-page
    # session (a session cost more than an outline-only chapter start was worth).
    els = []
    for n in range(4):
        els += pages_of_paragraphs(6, first_page=1 + 6 * n)
    doc = with_outline(
        build_doc(els), ("Basics", 1), ("Options", 7), ("Examples", 13), ("Internals", 19)
    )
    p = plan(doc)
    assert [c.page_first for c in p.chunks] == [1, 7, 13, 19]
    assert honoured(doc, {a for a, _ in plan_ranges(p)}) == oracle_honoured(doc, RULES) == (4, 4)


# --- the pages before the outline's first chapter ------------------------------------------


def title_page_manual(chapter_one_page: int) -> Document:
    """A package manual: a title page (title, author, date, a short abstract; the contents
    on it too short for the listing test), then four 6-page chapters the outline gives,
    the first beginning on `chapter_one_page`."""
    front = [
        para("The widget package", page=1),
        para("A. Author, version 1.2, 2021/04/05", page=1),
        para("Abstract. " + words(60), page=1),
    ]
    els: list[Element] = []
    titles = ["Introduction", "Usage", "Options", "Implementation"]
    page = chapter_one_page
    for n, title in enumerate(titles, 1):
        els += chapter(f"{n} {title}", page, 6)
        page += 6
    doc = build_doc([*(front if chapter_one_page > 1 else []), *els])
    first = chapter_one_page
    return with_outline(doc, *((f"{n} {t}", first + 6 * (n - 1)) for n, t in enumerate(titles, 1)))


def test_the_title_page_before_the_first_chapter_is_front_matter() -> None:
    # aomsample, stix, libertine, platex: chapter 1 begins on p. 2 and the first study
    # session began on the title page, so no session began where the book does
    doc = title_page_manual(chapter_one_page=2)
    regions = find_matter(doc)
    assert [(r.kind, r.page_first, r.page_last) for r in regions] == [("front_matter", 1, 1)]
    p = plan(doc)
    assert [c.kind for c in p.chunks] == ["front_matter", *["study"] * 4]
    assert [c.page_first for c in p.chunks] == [1, 2, 8, 14, 20]
    assert honoured(doc, {a for a, _ in plan_ranges(p)}) == (4, 4)


def test_no_front_matter_when_the_first_chapter_begins_on_the_first_page() -> None:
    doc = title_page_manual(chapter_one_page=1)
    assert find_matter(doc) == []
    assert all(c.kind == "study" for c in plan(doc).chunks)


@pytest.mark.parametrize(
    ("entry", "shown"),
    [
        ("第4节 编译方式、编码与中文字库", "第4 节 编译方式、编码与中文字库"),  # ctex, zhnumber
        ("A few comparisons with xymatrix", "5 A few comparisons with xymatrix"),  # diaxydoc
        ("Using Devanagari in XeLaTeX and luaLaTeX", "8 Using Devanagari in X"),  # devanagari
    ],
)
def test_an_outline_entry_finds_its_heading_under_a_longer_or_shorter_title(
    entry: str, shown: str
) -> None:
    # the heading as the parser read it differs from the outline's title (the section
    # label spaced, an appendix-like "A" read as a label on one side only, a title cut
    # short by its font): the chapter start was put at the top of its page, inside the
    # previous chapter's text, and the heading itself earned no chapter value
    doc = with_outline(
        build_doc(
            [
                *chapter("1 First", 1, 8),
                para("The end of the first chapter. " + words(40), page=9),
                heading(shown, 1, page=9),
                *pages_of_paragraphs(8, first_page=9),
            ]
        ),
        ("1 First", 1),
        (entry, 9),
    )
    at = next(i for i, e in enumerate(doc.elements) if e.type == "heading" and e.page_first == 9)
    assert at in major_starts(doc, RULES.min_pages)
    assert at - 1 not in major_starts(doc, RULES.min_pages)


def frames_manual(shown: str, above: int) -> Document:
    """16 pages: an 8-page part, then a part whose outline entry "Example Frames" (p. 9)
    names no heading on its page: `above` words of running header, then the heading
    `shown`; and a part "Section pages" on p. 12."""
    els = [
        heading("Introduction", 1, page=1),
        *pages_of_paragraphs(8, first_page=1),
        para("Beamer using CI, M. Author, " + words(above), page=9),
        heading(shown, 1, page=9),
        *pages_of_paragraphs(3, first_page=9),
        heading("Section pages", 1, page=12),
        *pages_of_paragraphs(5, first_page=12),
    ]
    return with_outline(
        build_doc(els), ("Introduction", 1), ("Example Frames", 9), ("Section pages", 12)
    )


def test_an_outline_entry_without_its_heading_takes_the_top_level_heading_atop_its_page() -> None:
    # DEMO-BFHBeamer-Sidebar: the part's entry names no heading on its page, so the chapter
    # start went to the running header above the slide's frame title; with its worth
    # split over two cuts the sweep's plan went 11 + 5 pages past the part's start
    doc = frames_manual("Frame with a subtitle", above=8)
    at = next(i for i, e in enumerate(doc.elements) if e.text == "# Frame with a subtitle")
    assert at in major_starts(doc, RULES.min_pages)
    p = plan(doc)
    assert [c.page_first for c in p.chunks] == [1, 9]
    assert honoured(doc, {a for a, _ in plan_ranges(p)}) == oracle_honoured(doc, RULES)


def test_a_top_level_heading_low_on_the_page_is_not_taken_for_an_unnamed_entry() -> None:
    # tikz-among-us: a heading under a page of other text is not where the entry points
    doc = frames_manual("Frame with a subtitle", above=300)
    at = next(i for i, e in enumerate(doc.elements) if e.text == "# Frame with a subtitle")
    assert at not in major_starts(doc, RULES.min_pages)
    assert at - 1 in major_starts(doc, RULES.min_pages)


def estimated_pages_manual(*, outline: bool) -> Document:
    """An HTML-like book of estimated pages: chapters at 0.9, 5.7 and 11.7 pages' worth of
    words, on (estimated) pages 1, 6 and 12."""
    els: list[Element] = [para(words(360), page=1)]
    for title, first, body in [("One", 1, 1920), ("Two", 6, 2400), ("Three", 12, 2000)]:
        els.append(heading(title, 1, page=first))
        els += [para(words(240, seed=k), page=first + k * 240 // 400) for k in range(body // 240)]
    doc = build_doc(els, basis="words")
    return with_outline(doc, ("One", 1), ("Two", 6), ("Three", 12)) if outline else doc


@pytest.mark.parametrize("outline", [True, False])
def test_a_chapter_five_estimated_pages_on_is_a_chapter_start(outline: bool) -> None:
    # python-bs4-ptbr: "Saída" 4.8 pages' worth of words after the chapter before it is five
    # pages on, as the book's outline and the sweep's chapter-start figure count it; the
    # planner counted words, took it for no chapter, and its session began pages before it
    doc = estimated_pages_manual(outline=outline)
    starts = {doc.elements[i].text for i in major_starts(doc, RULES.min_pages)}
    assert starts == {"# One", "# Two", "# Three"}


def test_an_estimated_page_books_chapters_are_its_top_headings_under_a_title_entry() -> None:
    # debian-edu's manual: its outline nests 28 chapters under one entry, the book's title,
    # and counted by the outline the whole book was one chapter (sessions of 14 pages)
    doc = estimated_pages_manual(outline=False)
    nested = [OutlineEntry(level=1, title="One", page=1)] + [
        OutlineEntry(level=2, title=t, page=p) for t, p in [("Two", 6), ("Three", 12)]
    ]
    doc = doc.model_copy(update={"outline": nested})
    starts = {doc.elements[i].text for i in major_starts(doc, RULES.min_pages)}
    assert starts == {"# One", "# Two", "# Three"}


def test_an_estimated_page_books_lone_title_heading_stands_over_its_chapters() -> None:
    # maxima's HTML manual: one h1, "Maxima 5.46.0 Manual", over 96 chapters set as h2;
    # counted at the top level the book had one chapter, and 12 of 64 chapter starts fell
    # inside sessions where the naive splitter honoured them all
    doc = estimated_pages_manual(outline=False)
    titled = [heading("The Manual", 1, page=1)] + [
        heading(e.text.lstrip("# "), 2, page=e.page_first) if e.type == "heading" else e
        for e in doc.elements
    ]
    doc = build_doc(titled, basis="words")
    starts = {doc.elements[i].text for i in major_starts(doc, RULES.min_pages)}
    assert starts == {"## One", "## Two", "## Three"}


def test_an_outline_entry_finds_its_heading_spelt_with_a_typo() -> None:
    # oscola: "Scotish Cases" under the entry "Scottish Cases", after the end of the
    # previous chapter's example (a quarter page of it) at the top of the page
    doc = frames_manual("Exampel Frames", above=150)
    at = next(i for i, e in enumerate(doc.elements) if e.text == "# Exampel Frames")
    assert at in major_starts(doc, RULES.min_pages)


def test_the_oracle_honours_a_chapter_on_the_last_page_only_by_a_session_there() -> None:
    # a session starting on the page after a chapter's first honours it (the metric's one
    # page of slack); after the last page no session starts, so a 1-page last chapter
    # joined to the one before is not honoured (the oracle counted 12 such on the sweep)
    doc = build_doc([*chapter("1 One", 1, 8), *chapter("2 Two", 9, 8), *chapter("3 End", 17, 1)])
    doc = with_outline(doc, ("1 One", 1), ("2 Two", 9), ("3 End", 17))
    assert oracle_honoured(doc, RULES) == (2, 3)
    p = plan(doc)
    assert honoured(doc, {a for a, _ in plan_ranges(p)}) == (2, 3)


def test_a_chapter_start_outweighs_two_chapter_cuts_that_add_a_session() -> None:
    # songs' manual: chapters 8, 9 and 11 on pp. 21, 24 and 27, and only chapter 9 a session
    # or more after the last chapter start (p. 17). Cutting at 21 and 27 made one session
    # more than cutting at 24 alone, and the old weights paid for it (4/5 chapter starts,
    # the naive splitter 5/5): every cut there is a top-level heading with the heuristic
    # reviewers' votes and a clean switch of vocabulary.
    def cut(*, major: bool) -> int:
        return CutEvidence(
            after_id="a",
            before_id="b",
            snippet="9 Chapters and Sections",
            page=24,
            heading_level=1,
            numbering="9",
            score=0.93,
            page_break=False,
            review=None,
            vote_balance=1.7,
            major=major,
            lexical=0.7,
        ).value

    assert cut(major=True) - SESSION > 2 * (cut(major=False) - SESSION)


def test_chapter_starts_are_counted_from_the_first_chapter_not_the_contents() -> None:
    # A contents page, then chapters on pp. 2, 4, 6, 10 and 13. Chapter starts are taken a
    # session apart from the first chapter: pp. 2 and 10. Counted from the "Contents" entry
    # on p. 1 they were pp. 6 and 13, and the plan cut 2-12 + 13-18 past chapter 4's start
    # (csquotes-DE, opmac and 13 other manuals of the sweep).
    els = [heading("Contents", 1, page=1)]
    els += [para(f"{k} Chapter {k} . . . . {k + 2}", page=1) for k in range(1, 6)]
    entries = [("Contents", 1)]
    page = 2
    for n, size in enumerate([2, 2, 4, 3, 6], 1):
        els += chapter(f"{n} Chapter {n}", page, size, topic=n)
        entries.append((f"{n} Chapter {n}", page))
        page += size
    doc = with_outline(build_doc(els), *entries)
    assert chapter_starts(doc) == [2, 10]
    p = plan(doc)
    assert plan_ranges(p) == [(1, 1), (2, 9), (10, 18)]
    assert honoured(doc, {a for a, _ in plan_ranges(p)}) == oracle_honoured(doc, RULES) == (2, 2)
