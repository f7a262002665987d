"""Page furniture and figure text on generated pages: a Chinese running header whose section
part changes (alone and where a paragraph crosses the page break), text inside figures, a
book set in typewriter type."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pdf_samples import ruled_table
from sweep_samples import (
    ADMONITION_EXAMPLE,
    ADMONITION_NOTES,
    ADMONITION_SECTIONS,
    BANNER_SECTIONS,
    CAPTIONED,
    CHAPTER_BOOK_PAGES,
    CHAPTER_OPENINGS,
    FOLIO_GAP,
    FOLIO_PAGES,
    FRAMED_SECTIONS,
    FRAMED_SHORT,
    GRAPHICS_HEADERS,
    JOURNAL_AUTHORS,
    JOURNAL_FOOTER,
    JOURNAL_PAGES,
    LISTING,
    LOCAL_INDEX_GROUP,
    LOCAL_INDEX_TITLE,
    NOTE,
    NUMBERED_PARAGRAPHS,
    PADDED_HEADER,
    PICTURE_LABELS,
    PLOT_HEADER,
    PLOT_LABELS,
    PROSE_ABOVE,
    PROSE_BELOW,
    SECTION_HEADERS,
    SLIDE_TITLE,
    SYNOPSIS_PAGES,
    TEXT_NUMBER,
    THESIS_HEADER,
    THESIS_PAGES,
    TYPEWRITER_CHAPTERS,
    TYPEWRITER_CODE_FOOT,
    WARNING,
    ZH_BREAK_START,
    build_admonitions,
    build_banner_headers,
    build_blank_page_thesis,
    build_bookmark_at_a_symbol,
    build_captioned_boxes,
    build_chapter_folios,
    build_cjk_headers,
    build_clipped_figure,
    build_figures,
    build_framed_slides,
    build_journal_pages,
    build_line_numbered,
    build_localised_index,
    build_long_listing,
    build_padded_headers,
    build_plot_over_header,
    build_raised_folios,
    build_section_headers,
    build_slide_titles,
    build_synopsis_labels,
    build_typewriter_book,
    numbered_lines,
    prose_line,
    zh_break_end,
)

from quire.shared.ir import Document
from quire.workers.boundaries import safe_candidates
from quire.workers.boundaries.matter import find_matter
from quire.workers.parse import parse_document
from quire.workers.parse.glyphs import expand_glyphs

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")  # Debian fonts-dejavu-core

_HEADER = re.compile(r"第1[34] 节\s*(用户手册|代码实现)\s*\d")


@pytest.fixture(scope="module")
def zh(tmp_path_factory: pytest.TempPathFactory) -> Document:
    return parse_document(build_cjk_headers(tmp_path_factory.mktemp("zh") / "zh.pdf")).document


def test_cjk_running_header_with_changing_section_is_removed(zh: Document) -> None:
    left = [e.text for e in zh.elements if _HEADER.search(e.text)]
    assert left == []
    headers = [r for r in zh.removed if r.kind == "header"]
    assert [r.page for r in headers] == list(range(1, zh.page_count + 1))
    assert {r.text.split()[1] for r in headers} == {"节"}
    # the section headings themselves stay
    assert [e.text for e in zh.elements if e.type == "heading"] == [
        "# 第13 节 用户手册",
        "# 第14 节 代码实现",
    ]


def test_paragraph_across_a_page_break_never_swallows_the_header(zh: Document) -> None:
    for n in (1, 2, 3, 5, 6, 7):  # (page 5 opens section 14 with its heading)
        glued = zh_break_end(n) + ZH_BREAK_START
        (hit,) = [e for e in zh.elements if glued in e.text]
        assert hit.page_first == n and hit.page_last == n + 1


def test_a_header_naming_a_one_page_section_is_removed(tmp_path: Path) -> None:
    # bib2gls: "6.2 Compound Entry Sets" heads the one page of its section, between runs
    # of "6.1 ..." and "6.3 ..." headers; it recurs nowhere and carries no page number,
    # but it stands where its neighbours' running headers stand
    doc = parse_document(build_section_headers(tmp_path / "sections.pdf")).document
    titles = [t for t, _ in SECTION_HEADERS]
    assert [e.text for e in doc.elements if e.type != "heading" and e.text in titles] == []
    headers = [r for r in doc.removed if r.kind == "header"]
    assert sorted(r.page for r in headers) == list(range(1, doc.page_count + 1))
    assert [e.text.lstrip("# ") for e in doc.elements if e.type == "heading"] == titles


def test_a_left_page_header_between_two_blank_pages_is_removed(tmp_path: Path) -> None:
    # sample-doctor: pp. 16 and 20 are blank, 17 and 19 open chapters without a header, so
    # p. 18's header recurs on no page within two; its side of the spread carries it four
    # pages away, past each blank page
    doc = parse_document(build_blank_page_thesis(tmp_path / "thesis.pdf")).document
    assert [e.page_first for e in doc.elements if THESIS_HEADER in e.text] == []
    removed = sorted(r.page for r in doc.removed if r.kind == "header")
    assert removed == [n for n, kind in enumerate(THESIS_PAGES, 1) if kind == "H"]


def test_a_bookmark_in_english_takes_the_localised_title_of_its_matter(tmp_path: Path) -> None:
    # lshort-cs: the bookmark "Index" points at "Rejstřík", over the bold letter group
    # "Symboly", which was taken for the title: the index was read as a chapter
    doc = parse_document(build_localised_index(tmp_path / "index.pdf")).document
    heads = [e.text.lstrip("# ") for e in doc.elements if e.type == "heading"]
    assert heads[-1] == LOCAL_INDEX_TITLE and LOCAL_INDEX_GROUP not in heads
    regions = find_matter(doc)
    assert [(r.kind, r.label, r.page_first) for r in regions] == [
        ("back_matter", "index", doc.page_count)
    ]


def test_a_clipped_drawing_counts_where_it_shows(tmp_path: Path) -> None:
    """lshort: a picture's grid is clipped to its window but drawn up past the running
    header; measured at full size, the figure took the header line (and the prose under
    the picture) into its text."""
    doc = parse_document(build_clipped_figure(tmp_path / "clip.pdf")).document
    assert [e.text for e in doc.elements if any(h in e.text for h in GRAPHICS_HEADERS)] == []
    assert sorted(r.page for r in doc.removed if r.kind == "header") == list(range(1, 7))
    figures = [e.text for e in doc.elements if e.origin == "figure"]
    assert figures == [" ".join(PICTURE_LABELS)]


def test_a_plot_climbing_past_the_header_rule_leaves_the_header_alone(tmp_path: Path) -> None:
    """pst-news10: a plot's curves climb past the running-header rule to the top of the
    page; the header row, its centre inside the curves' box, was taken into the plot's
    text ("7. The PostScript header files 20 y 7 6 5 ... x -8 -7"), so that page kept
    its header and the axis labels read as a paragraph."""
    doc = parse_document(build_plot_over_header(tmp_path / "plot.pdf")).document
    assert [e.text for e in doc.elements if PLOT_HEADER in e.text] == []
    assert sorted(r.page for r in doc.removed if r.kind == "header") == list(range(1, 6))
    figures = [e.text for e in doc.elements if e.origin == "figure"]
    assert figures == [" ".join(reversed(PLOT_LABELS))]


def test_a_title_taken_into_figure_text_is_judged_where_it_stands(tmp_path: Path) -> None:
    """beamer-verona: on one slide a drawing over the title area makes the repeated frame
    title figure text, whose block has the drawing's box; the title's own line stands
    where the other slides' titles stand, so it is removed like theirs."""
    doc = parse_document(build_slide_titles(tmp_path / "slides.pdf")).document
    assert [e.text for e in doc.elements if SLIDE_TITLE in e.text] == []
    removed = [(r.page, r.kind, r.text) for r in doc.removed]
    assert removed == [(n, "header", SLIDE_TITLE) for n in range(1, 6)]


def test_a_slides_frame_of_bars_is_no_figure(tmp_path: Path) -> None:
    """metafun-s: bars along the four edges of every slide touch and ring the page; taken
    as one figure, its short lines (the "Page 16 Paths" header, "This time we used the
    path:") became figure text, and the header, inside that block, was never removed."""
    doc = parse_document(build_framed_slides(tmp_path / "framed.pdf")).document
    removed = [(r.page, r.kind, r.text) for r in doc.removed]
    assert removed == [(n, "header", f"Page {n} {s}") for n, s in enumerate(FRAMED_SECTIONS, 1)]
    assert not [e for e in doc.elements if e.origin == "figure"]
    short = [e.text for e in doc.elements if e.text == FRAMED_SHORT]
    assert len(short) == len(FRAMED_SECTIONS)


def test_a_header_padded_with_spaces_is_short(tmp_path: Path) -> None:
    """groff's three-part header is one line whose parts are set apart by runs of spaces:
    173 characters, 69 without the runs; it was too long to be a running header."""
    doc = parse_document(build_padded_headers(tmp_path / "padded.pdf")).document
    assert not [e for e in doc.elements if "Header left" in e.text]
    assert [(r.page, r.text) for r in doc.removed] == [(n, PADDED_HEADER) for n in range(1, 7)]


@pytest.fixture(scope="module")
def fig(tmp_path_factory: pytest.TempPathFactory) -> Document:
    return parse_document(build_figures(tmp_path_factory.mktemp("fig") / "fig.pdf")).document


def test_figure_text_is_one_paragraph_per_figure(fig: Document) -> None:
    figures = [e for e in fig.elements if e.origin == "figure"]
    assert [e.type for e in figures] == ["paragraph", "paragraph"]
    plot, diagram = figures
    assert sorted(plot.text.split()) == sorted(["0", "1", "2", "3", "0", "5", "10", "size", "(MB)"])
    assert sorted(diagram.text.split()) == ["1.", "2.", "Parse", "Plan", "Write"]


def test_figure_text_is_never_a_heading_list_or_cut_reason(fig: Document) -> None:
    assert [e.text for e in fig.elements if e.type == "heading"] == ["# Measuring Growth"]
    assert not [e for e in fig.elements if e.type == "list"]
    assert all(c.numbering is None for c in safe_candidates(fig))


def test_prose_and_boxed_notes_stay_prose(fig: Document) -> None:
    """A rounded box is a frame, not a figure; a paragraph beside a drawn icon keeps its
    short last line."""
    prose = [e.text for e in fig.elements if e.type == "paragraph" and e.origin is None]
    assert prose == [PROSE_ABOVE, PROSE_BELOW, " ".join(NOTE), " ".join(WARNING)]


def test_a_run_in_label_right_under_a_drawn_note_is_no_label_of_it(tmp_path: Path) -> None:
    """Erlang's notes are figures (a title band and a tinted body, each side a line of its
    own: nine drawing items); the run-in "Example:" set right under one was taken as the
    figure's label and read "Note: Example:" before the note. A row ending in a colon
    introduces what follows, no figure's label. "Note:", a one-word label set large, is no
    heading, even where a bookmark points."""
    doc = parse_document(build_admonitions(tmp_path / "notes.pdf")).document
    assert [e.text for e in doc.elements if e.type == "heading"] == [
        f"# {s}" for s in ADMONITION_SECTIONS
    ]
    texts = [e.text for e in doc.elements]
    for section, note in zip(ADMONITION_SECTIONS, ADMONITION_NOTES, strict=True):
        at = texts.index(f"# {section}")
        assert texts[at - 3 : at] == ["Note:", note, ADMONITION_EXAMPLE]
    marked = parse_document(build_admonitions(tmp_path / "marked.pdf", bookmarks=True)).document
    assert [e.text for e in marked.elements if "Note:" in e.text] == ["Note:", "Note:"]


def test_a_bookmark_pointing_at_a_symbol_takes_no_title_there(tmp_path: Path) -> None:
    doc = parse_document(build_bookmark_at_a_symbol(tmp_path / "tilde.pdf")).document
    assert [e.text for e in doc.elements if e.type == "heading"] == ["# Getting started"]
    assert [e.type for e in doc.elements if e.text == "~"] == ["paragraph"]


def test_a_captioned_box_is_a_figure_and_its_large_letter_no_heading(tmp_path: Path) -> None:
    """A frame around one 36 pt letter has no shapes of its own, but "Figure 1.1: ..."
    right below it (or above it) makes it a figure: the letter is its text, not the
    document's top heading (mugsthesis: "A" was a chapter, a cut and a session title)."""
    doc = parse_document(build_captioned_boxes(tmp_path / "captioned.pdf")).document
    headings = [e.text for e in doc.elements if e.type == "heading"]
    assert headings == ["# Introduction", "# Literature Review"]
    assert [(e.text, e.page_first) for e in doc.elements if e.origin == "figure"] == [
        ("A", 1),
        ("B", 2),
    ]
    assert [e.text for e in doc.elements if e.type == "caption"] == CAPTIONED


def test_header_in_a_drawn_bar_and_page_x_of_y_footer_are_removed(tmp_path: Path) -> None:
    """The commonest text is smaller than the header (so it counts as "large"), sections
    last one or two pages, the header sits in a drawn bar (figure text); the numbered
    code lines right under the bar are no page numbers."""
    doc = parse_document(build_banner_headers(tmp_path / "banner.pdf")).document
    assert [e for e in doc.elements if "toolkit.sty" in e.text or " of 6" in e.text] == []
    removed = [(r.page, r.kind, r.text) for r in doc.removed]
    pages = range(1, len(BANNER_SECTIONS) + 1)
    assert removed[0::2] == [(n, "header", f"toolkit.sty {BANNER_SECTIONS[n - 1]}") for n in pages]
    assert removed[1::2] == [(n, "page_number", f"{n} of 6") for n in pages]
    code = [e for e in doc.elements if "465" in e.text]  # one listing, its numbers kept
    assert [(e.type, e.text) for e in code] == [
        ("code", "```\n465 {\n466 \\def\\optionsa{}\n467 \\def\\optionsb{}\n```")
    ]


def test_a_folio_above_the_bottom_band_is_removed_and_a_bare_number_in_the_text_kept(
    tmp_path: Path,
) -> None:
    """The page number stands at 84.5 % of the height, the page's last block, at the same
    height on its neighbours; page FOLIO_GAP has none, and its last line "5" is text."""
    doc = parse_document(build_raised_folios(tmp_path / "folios.pdf")).document
    folios = [n for n in range(1, FOLIO_PAGES + 1) if n != FOLIO_GAP]
    assert [(r.page, r.kind, r.text) for r in doc.removed] == [
        (n, "page_number", str(n)) for n in folios
    ]
    bare = [(e.page_first, e.text) for e in doc.elements if e.text.isdigit()]
    assert bare == [(FOLIO_GAP, str(FOLIO_GAP))]


def test_folios_only_at_the_foot_of_chapter_openings_are_removed(tmp_path: Path) -> None:
    """The other pages carry their number in the header, so no two folios at the foot are
    within two pages of each other: four at one height are folios all the same."""
    doc = parse_document(build_chapter_folios(tmp_path / "chapters.pdf")).document
    numbers = [(r.page, r.text) for r in doc.removed if r.kind == "page_number"]
    assert numbers == [(n, str(n)) for n in CHAPTER_OPENINGS]
    headers = [r.page for r in doc.removed if r.kind == "header"]
    assert headers == [n for n in range(1, CHAPTER_BOOK_PAGES + 1) if n not in CHAPTER_OPENINGS]
    bare = [(e.page_first, e.text) for e in doc.elements if e.text.isdigit()]
    assert bare == [(TEXT_NUMBER, str(TEXT_NUMBER))]


def test_a_split_header_and_a_footer_set_high_are_removed(tmp_path: Path) -> None:
    """aomsample's even pages set "18" and "AMS AND BORIS VEYTSMAN" side by side just
    under the 13 % band, where only the page's top block was looked at (15 headers kept);
    cjeguide's footer stands at 83.5 %, above the bottom band (18 kept)."""
    doc = parse_document(build_journal_pages(tmp_path / "journal.pdf")).document
    assert not [e for e in doc.elements if JOURNAL_AUTHORS in e.text or "Revue" in e.text]
    pages = list(range(1, JOURNAL_PAGES + 1))
    footers = [r.page for r in doc.removed if r.kind == "footer" and r.text == JOURNAL_FOOTER]
    assert footers == pages
    headers = [r.page for r in doc.removed if r.text in (JOURNAL_AUTHORS, f"SAMPLE PAPER {r.page}")]
    assert headers == pages
    text = " ".join(e.text for e in doc.elements)
    assert all(f"Lemma {n}.{i} " in text for n in pages for i in (0, 23))  # the body stays


def test_a_label_at_the_foot_of_some_pages_stays(tmp_path: Path) -> None:
    """A last block above the bottom band is a candidate only as a footer of most pages:
    it is no evidence that the same label inside the band on a neighbour is running."""
    doc = parse_document(build_synopsis_labels(tmp_path / "synopsis.pdf")).document
    kept = [e.page_first for e in doc.elements if e.text == "Synopsis :"]
    assert kept == list(SYNOPSIS_PAGES) and not doc.removed


def test_a_long_listing_is_cut_at_page_breaks(tmp_path: Path) -> None:
    """fontname.pdf's 91-page listing was one element: no session could end inside it."""
    doc = parse_document(build_long_listing(tmp_path / "listing.pdf", pages=8)).document
    spans = [(e.page_first, e.page_last) for e in doc.elements]
    assert all(e.type == "code" for e in doc.elements)
    assert spans == [(1, 3), (4, 6), (7, 8)]
    lines = [ln for e in doc.elements for ln in e.text.split("\n") if ln.startswith("font")]
    assert lines == sorted(lines) and len(lines) == len(set(lines))  # nothing lost or moved


def test_a_book_in_typewriter_type_keeps_its_titles_and_loses_its_footer(tmp_path: Path) -> None:
    # tkz-berge: chapter titles set in monospace were code blocks (no chapter, no heading:
    # "``` 1 Macros and Vertices" titled a session), and the monospace footer stayed
    doc = parse_document(build_typewriter_book(tmp_path / "typewriter.pdf")).document
    headings = [e.text.lstrip("# ") for e in doc.elements if e.type == "heading"]
    assert headings == [title for title, _ in TYPEWRITER_CHAPTERS]
    assert not any("AlterMundus" in e.text for e in doc.elements)
    footers = [r.page for r in doc.removed if r.kind == "footer"]
    assert footers == list(range(1, doc.page_count + 1))
    # a code line of the text that merely recurs at a page's foot stays
    kept = [e.page_first for e in doc.elements if e.text == f"```\n{TYPEWRITER_CODE_FOOT}\n```"]
    assert kept == [1, 4, 7]


def test_old_style_figures_read_as_digits() -> None:
    """Fonts with old-style numerals extract them as Adobe's private-use "zerooldstyle".."
    "nineoldstyle" (U+F730..U+F739): numprint's numbers, bgteubner-cm's heading numbers and
    page references ("\uf734 Weitere Textelemente \uf731\uf737")."""
    assert expand_glyphs("\uf734 Weitere Textelemente \uf731\uf737") == "4 Weitere Textelemente 17"
    assert expand_glyphs("\ufb01le \uf730.\uf735") == "file 0.5"  # beside a ligature


def test_a_soft_hyphen_drawn_on_the_page_reads_as_a_hyphen() -> None:
    """OpenOffice exports its hyphen glyph as U+00AD: Faust's slides said "real\u00adtime",
    which a browser shows as "realtime" and a search for "real-time" misses. In a PDF the
    glyph is drawn, so it is a hyphen; at a line end, a break like any other."""
    assert expand_glyphs("for real\u00adtime signals") == "for real-time signals"
    assert expand_glyphs("hand\u00ad") == "hand-"


def test_a_noncharacter_reads_as_a_missing_character() -> None:
    """MuPDF gives U+FFFF for a glyph its font maps to no character: toptesi's "1 µm" read
    "1 \uffffm", shown as "1 m". It reads as U+FFFD, which a reader sees and the parse
    counts as unmapped; the parser's own marks (a footnote mark's plane-1 noncharacters)
    and the text around stay."""
    assert expand_glyphs("a 1 \uffffm.") == "a 1 \ufffdm."
    assert expand_glyphs("\ufb01le \uffff\ufffe") == "file \ufffd\ufffd"
    assert expand_glyphs("\U0001fffe1\U0001ffff \uffef") == "\U0001fffe1\U0001ffff \uffef"


def test_a_paths_spacing_tilde_reads_as_a_tilde() -> None:
    """groff's and TeX's fonts set "~" as the glyph "tilde", the spacing accent U+02DC:
    bash's manual page read "˜/.bashrc", and "www.case.edu/˜chet/" as a link a reader
    copies. Against a slash it is the path's tilde; an accent table's, or one after a
    symbol (PARI's "x˜"), stays."""
    assert expand_glyphs("reads \u02dc/.bashrc first") == "reads ~/.bashrc first"
    assert (
        expand_glyphs("https://www.case.edu/\u02dcchet/bash/") == "https://www.case.edu/~chet/bash/"
    )
    assert expand_glyphs("` \u00b4 \u02c6 \u02dc \u00a8") == "` \u00b4 \u02c6 \u02dc \u00a8"
    assert expand_glyphs("returns x\u02dc") == "returns x\u02dc"


def test_ligatures_and_old_style_figures_in_table_cells_read_as_letters(tmp_path: Path) -> None:
    """A ruled table's cells read as the text rows do (the sweep: 73 lines of tables in 23
    manuals kept "eﬀect", "deﬁned" and private-use digits, so search missed them)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="dv", fontfile=str(DEJAVU))  # has the ligature glyphs
    page.insert_text((72, 80), "Options", fontsize=16, fontname="dv")
    cells = [
        ["Option", "Meaning"],
        ["lyrics", "the macro is in e\ufb00ect"],
        ["color", "user de\ufb01ned"],
    ]
    ruled_table(page, cells, 120.0, 150.0, fontsize=10, fontname="dv")
    doc.save(tmp_path / "ligatures.pdf")
    ir = parse_document(tmp_path / "ligatures.pdf").document
    (table,) = [e for e in ir.elements if e.type == "table"]
    assert table.rows == [
        ["Option", "Meaning"],
        ["lyrics", "the macro is in effect"],
        ["color", "user defined"],
    ]


def test_margin_line_numbers_are_removed_and_paragraph_numbers_kept(tmp_path: Path) -> None:
    """A review copy numbers every line in its margin (lineno): each number was a paragraph
    of its own between the lines of its paragraph, 1,272 of them in aomart's sample. A page
    of numbered paragraphs (a number by each paragraph's first line) and a numbered listing
    keep their numbers."""
    doc = parse_document(build_line_numbered(tmp_path / "lineno.pdf")).document
    numbered = [e.text for e in doc.elements if e.page_first <= 2]
    assert " ".join(numbered) == " ".join(numbered_lines())  # all there, nothing glued in
    assert [(r.page, r.kind, r.text) for r in doc.removed] == [
        (1, "line_number", " ".join(str(n) for n in range(1, 31))),
        (2, "line_number", " ".join(str(n) for n in range(31, 61))),
    ]
    third = " ".join(e.text for e in doc.elements if e.page_first == 3).split()
    assert [t for t in third if t.isdigit()] == [str(n) for n in range(1, NUMBERED_PARAGRAPHS + 1)]
    listing = "\n".join(e.text for e in doc.elements if e.page_first == 4)
    assert re.findall(r"\b\d\b", listing) == [str(n) for n in range(1, len(LISTING) + 1)]


def test_line_numbers_that_start_again_around_uneven_space_are_removed(tmp_path: Path) -> None:
    """lineno's own manual: the space around its lists and headings makes the numbers' pitch
    uneven, and a reset (or the second column) starts them again at 1 halfway down; its
    numbers stayed, a paragraph each ("1", "2", ...) on 13 of its 18 pages."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y, lines = 90.0, [prose_line(n) for n in range(24)]
    for k, text in enumerate(lines):
        y += 13 + (9 if k % 4 == 0 else 0)  # a list's or a paragraph's space every 4 lines
        page.insert_text((72, y), text, fontsize=10, fontname="tiro")
        number = str(k % 12 + 1)  # reset to 1 at line 13
        page.insert_text(
            (64 - pymupdf.get_text_length(number, "helv", 6), y - 2),
            number,
            fontsize=6,
            fontname="helv",
        )
    doc.save(tmp_path / "reset.pdf")
    ir = parse_document(tmp_path / "reset.pdf").document
    assert [e.text for e in ir.elements] and " ".join(e.text for e in ir.elements) == " ".join(
        lines
    )
    (removed,) = [(r.kind, r.text) for r in ir.removed]
    assert removed == ("line_number", " ".join(str(n % 12 + 1) for n in range(24)))
