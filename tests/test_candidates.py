"""Safe cut candidates: every rule on small hand-built IRs, then properties over random IRs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from irgen import (
    build_doc,
    bullets,
    caption,
    code,
    documents,
    formula,
    heading,
    image,
    para,
    table,
    words,
)

from quire.shared.ir import Document
from quire.workers.boundaries.candidates import (
    SNIPPET_CHARS,
    is_safe_gap,
    numbering_depth,
    parse_numbering,
    safe_candidates,
)


def gaps(doc: Document) -> list[tuple[str, str]]:
    """(ends_type, begins_type) of every candidate, in order."""
    return [(c.ends_type, c.begins_type) for c in safe_candidates(doc)]


def cut_after(doc: Document) -> list[int]:
    """Positions (0-based element index) after which a cut is allowed."""
    index = {e.id: i for i, e in enumerate(doc.elements)}
    return [index[c.after_id] for c in safe_candidates(doc)]


def test_plain_paragraphs_can_be_cut_between_each_other() -> None:
    doc = build_doc([para("one"), para("two"), para("three")])
    assert cut_after(doc) == [0, 1]
    first, second = safe_candidates(doc)
    assert (first.after_id, first.before_id) == ("el-000001", "el-000002")
    assert (second.after_id, second.before_id) == ("el-000002", "el-000003")


def test_no_candidate_at_the_ends_or_in_a_one_element_document() -> None:
    assert safe_candidates(build_doc([])) == []
    assert safe_candidates(build_doc([para("alone")])) == []


def test_never_directly_after_a_heading() -> None:
    doc = build_doc(
        [
            para("intro"),
            heading("2 Lists", 1),
            para("body"),
            heading("2.1 Sub", 2),
            heading("2.1.1 Subsub", 3),
            para("text"),
        ]
    )
    # before each heading run is fine; after any heading is not
    assert cut_after(doc) == [0, 2]


def test_an_empty_section_alone_on_its_page_may_end_a_chunk() -> None:
    """liboctave's last chapters are stubs, a heading a page ("13 Error Handling" to
    "15 Bugs"), before the index: a cut after one is safe when the next heading, as high or
    higher, opens a later page. A title in two lines, or a section's first subsection,
    is not."""
    doc = build_doc(
        [
            para("the end of chapter 12", page=1),
            heading("13 Error Handling", 1, page=2),
            heading("14 Installation", 1, page=3),
            heading("Part II", 1, page=4),
            heading("Methods", 1, page=4),
            heading("15 Bugs", 1, page=5),
            heading("15.1 Reporting", 2, page=6),
            para("how to report one", page=6),
        ]
    )
    assert cut_after(doc) == [0, 1, 2, 4]


def test_heading_at_the_very_end_has_nothing_after_it() -> None:
    doc = build_doc([para("a"), heading("Appendix", 1)])
    assert cut_after(doc) == [0]


@pytest.mark.parametrize(
    "left,right",
    [
        (image(), caption()),
        (caption(), image()),
        (table(), caption("Table 2: numbers")),
        (caption("Table 2: numbers"), table()),
    ],
)
def test_never_between_a_figure_or_table_and_its_caption(left, right) -> None:
    assert not is_safe_gap(left, right)
    assert cut_after(build_doc([para("x"), left, right, para("y")])) == [0, 2]


def test_caption_does_not_bind_plain_paragraphs() -> None:
    doc = build_doc([image(), caption(), para("after the figure"), caption("stray"), para("z")])
    # image|caption unsafe; caption|para, para|caption, caption|para safe
    assert cut_after(doc) == [1, 2, 3]


@pytest.mark.parametrize("follower", [bullets(["a", "b"]), table(), code(), formula()])
def test_never_between_an_introductory_colon_paragraph_and_what_it_introduces(follower) -> None:
    intro = para("The function takes these arguments:")
    assert not is_safe_gap(intro, follower)
    doc = build_doc([para("before"), intro, follower, para("after")])
    assert cut_after(doc) == [0, 2]


def test_colon_rule_sees_through_closing_emphasis() -> None:
    assert not is_safe_gap(para("**Example:**"), code())
    assert not is_safe_gap(para("as in (see below):"), bullets(["x"]))


@pytest.mark.parametrize(
    "intro,follower",
    [
        (para("The function takes these arguments."), bullets(["a"])),  # no colon
        (para("Note the following:"), para("A paragraph is not introduced.")),
        (bullets(["ends with a colon:"]), code()),  # only paragraphs introduce
    ],
)
def test_colon_rule_is_narrow(intro, follower) -> None:
    assert is_safe_gap(intro, follower)


def test_cum_pages_counts_pdf_pages_from_the_first_page() -> None:
    doc = build_doc(
        [para("a", page=3), para("b", page=3, page_last=5), para("c", page=6), para("d", page=9)]
    )
    cands = safe_candidates(doc)
    assert [c.cum_pages for c in cands] == [1.0, 3.0, 4.0]
    assert all(isinstance(c.cum_pages, float) for c in cands)


def test_cum_pages_for_docx_is_words_over_400() -> None:
    doc = build_doc([para(words(200)), para(words(600)), para(words(100))], basis="words")
    cands = safe_candidates(doc)
    assert [c.cum_words for c in cands] == [200, 800]
    assert [c.cum_pages for c in cands] == [0.5, 2.0]


def test_heading_level_and_numbering_of_what_begins() -> None:
    doc = build_doc(
        [
            para("a"),
            heading("Chapter 4 Lists and data frames", 1),
            para("b"),
            heading("4.2 Indexing", 2),
            para("c"),
            heading("Overview", 3),
            para("d"),
            para("e"),
        ]
    )
    by_before = {c.before_id: c for c in safe_candidates(doc)}
    assert (by_before["el-000002"].heading_level, by_before["el-000002"].numbering) == (
        1,
        "Chapter 4",
    )
    assert (by_before["el-000004"].heading_level, by_before["el-000004"].numbering) == (2, "4.2")
    assert (by_before["el-000006"].heading_level, by_before["el-000006"].numbering) == (3, None)
    assert (by_before["el-000008"].heading_level, by_before["el-000008"].numbering) == (None, None)


def test_bare_numbers_far_ahead_of_the_chapters_are_not_section_numbers() -> None:
    doc = build_doc(
        [
            para(words(50)),
            para("1 Creating packages"),
            para(words(50)),
            para("66 This defaults to the same pattern as exportPattern"),  # a footnote
            para(words(50)),
            para("3 Tidying and profiling code"),  # chapter 2 was lost: still in sequence
            para(words(50)),
            heading("27 A heading keeps its number", 1),
            para(words(50)),
            para("20 Twenty is within two of the heading's 27"),
        ]
    )
    numbers = [c.numbering for c in safe_candidates(doc) if c.numbering]
    assert numbers == ["1", "3", "27", "20"]


@pytest.mark.parametrize(
    "el,expected",
    [
        (heading("Chapter 3 Objects", 1), "Chapter 3"),
        (heading("CHAPTER 12: Packages", 1), "Chapter 12"),
        (heading("Part II Advanced", 1), "Part II"),
        (heading("Appendix B Invoking R", 1), "Appendix B"),
        (heading("2.4 Matrix facilities", 2), "2.4"),
        (heading("A.1 Sample session", 2), "A.1"),
        (heading("3. Objects", 1), "3"),
        (heading("10.2.3 Deep", 3), "10.2.3"),
        (heading("A Quick Tour", 1), None),  # a word, not an appendix letter
        (heading("Overview", 1), None),
        (para("3 Objects, their modes and attributes"), "3"),  # a heading that lost its style
        (para("2.4 Matrix facilities"), "2.4"),
        (para("3 is the number of arguments that this function takes in total here."), None),
        (para("2023 was the year"), None),
        (para("0 1 2 3"), None),  # a figure's axis ticks, not part 0
        (para("0.5 1.0 1.5 2.0"), None),
        (para("1 Introduction\nwith a second line"), None),
        (code("1 + 1"), None),
        (para("第三章 文档元素"), "第三章"),
        (heading("第12节 表格", 2), "第12节"),
        (para("附录A 安装TEX"), "附录A"),
        (para("第一个例子"), None),
        # a formula's lines set apart (japanese-mathformulas cut "before numbered part
        # '2 |x1y2 −x2y1|'") and numbered lines of code start no title; a heading may ("5.3 R")
        (para("2 |x1y2 −x2y1|"), None),
        (para("1 −r"), None),
        (para("5 = 5x + 12"), None),
        (para("33 \\box0"), None),
        (para("12 a) \\ifinside 3[1,8](oui)(non)"), None),
        (para("35 % pour correspondre aux dimensions"), None),
        (para("0 1 2 3 4 Wavelength (nm)"), None),
        (heading("5.3 R", 2), "5.3"),
        (para("3 Go"), "3"),
        (para("1 序"), "1"),
    ],
)
def test_parse_numbering(el, expected) -> None:
    assert parse_numbering(el) == expected


@pytest.mark.parametrize(
    "numbering,depth",
    [
        ("Chapter 3", 1),
        ("Part II", 1),
        ("Appendix A", 1),
        ("3", 1),
        ("2.4", 2),
        ("A.1", 2),
        ("1.2.3", 3),
        ("Section 4.2", 2),
        ("第三章", 1),
        ("第12节", 2),
        ("附录A", 1),
        (None, None),
    ],
)
def test_numbering_depth(numbering, depth) -> None:
    assert numbering_depth(numbering) == depth


def test_snippets_are_short_and_face_the_cut() -> None:
    long_left = "start " + words(300) + " LEFTEND"
    long_right = "RIGHTSTART " + words(300)
    doc = build_doc([para(long_left), heading(long_right, 2), para("x")])
    (c,) = safe_candidates(doc)
    assert len(c.left_snippet) <= SNIPPET_CHARS and len(c.right_snippet) <= SNIPPET_CHARS
    assert c.left_snippet.endswith("LEFTEND")  # the text just before the cut
    assert c.right_snippet.startswith("RIGHTSTART")  # without the '#' marks
    assert "\n" not in c.left_snippet


def test_a_snippet_of_an_image_names_it() -> None:
    """A cut before a figure read "cut before '' on p. 11" (SasView's tutorial)."""
    doc = build_doc([para(words(200)), image("", page=2), para(words(200), page=2)])
    assert safe_candidates(doc)[0].right_snippet == "[image]"


def test_scores_are_taken_from_the_mapping() -> None:
    doc = build_doc([para("a"), para("b"), para("c")])
    cands = safe_candidates(doc, scores={"el-000002": 0.7})
    assert [c.score for c in cands] == [0.0, 0.7]


def test_element_types_are_recorded() -> None:
    doc = build_doc([para("a"), code(), table(), image(), caption(), para("z")])
    assert gaps(doc) == [
        ("paragraph", "code"),
        ("code", "table"),
        ("table", "image"),
        ("caption", "paragraph"),
    ]


@settings(max_examples=150, deadline=None)
@given(documents(max_elements=50))
def test_candidates_are_exactly_the_safe_gaps(doc: Document) -> None:
    els = doc.elements
    cands = safe_candidates(doc)
    index = {e.id: i for i, e in enumerate(els)}
    expected = [i for i in range(len(els) - 1) if is_safe_gap(els[i], els[i + 1])]
    assert [index[c.after_id] for c in cands] == expected
    for c in cands:
        i = index[c.after_id]
        assert c.before_id == els[i + 1].id
        left, right = els[i], els[i + 1]
        if left.type == "heading":  # only an empty section, done: the next as high, a page on
            assert right.type == "heading" and right.page_first > left.page_last
            assert (right.level or 1) <= (left.level or 1)
        assert not (
            left.type == "paragraph"
            and left.text.rstrip().endswith(":")
            and right.type in ("list", "table", "code", "formula")
        )
        assert c.cum_words == sum(e.word_count for e in els[: i + 1])
    cum = [c.cum_pages for c in cands]
    assert cum == sorted(cum)
    assert all(p >= 0 for p in cum)
