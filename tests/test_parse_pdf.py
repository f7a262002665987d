"""PDF parser on small PDFs built in the test: one test per element type, bad input, and the
properties the pipeline relies on (range independence, JSON round trips)."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest
from pdf_samples import (
    BULLETS,
    CODE,
    HEADER,
    NEXT_PARA,
    NUMBERED,
    SPLIT_BOTTOM,
    SPLIT_TOP,
    TABLE,
    build_manual,
    build_text_pages,
    zero_page_pdf,
)

from quire.shared.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    EncryptedDocumentError,
    UnsupportedFormatError,
)
from quire.shared.ir import Document, Element, dump_ir, load_ir
from quire.shared.text import sha256_bytes
from quire.workers.parse import (
    PdfRangeResult,
    detect_format,
    merge_pdf_ranges,
    page_ranges,
    parse_document,
    parse_pdf_range,
    pdf_meta,
    pdf_page_count,
)
from quire.workers.parse.base import ParsedDocument
from quire.workers.parse.pdf import fallback_page
from quire.workers.parse.pdf_assemble import join_lines
from quire.workers.parse.pdf_extract import _Layout, _page_layout, _spaced_on, font_style
from quire.workers.parse.pdf_headings import _symbols, _wraps_onto
from quire.workers.parse.pdf_open import open_pdf, open_pdf_kept, pymupdf_module
from quire.workers.parse.pdf_tables import _cells_text
from quire.workers.parse.pdf_types import PdfBlock, Row


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_manual(tmp_path_factory.mktemp("pdf") / "manual.pdf")


@pytest.fixture(scope="module")
def parsed(manual: Path) -> ParsedDocument:
    return parse_document(manual)


def _const(name: str) -> int:
    """A PyMuPDF constant (not all are in its type stubs)."""
    return int(getattr(pymupdf, name))


def _of(doc: Document, type_: str) -> list[Element]:
    return [e for e in doc.elements if e.type == type_]


def _body(doc: Document) -> str:
    return "\n".join(e.text for e in doc.elements)


def test_document_identity_and_pages(manual: Path, parsed: ParsedDocument) -> None:
    doc = parsed.document
    assert doc.doc_id == sha256_bytes(manual.read_bytes())
    assert doc.source_format == "pdf" and doc.page_basis == "pdf"
    assert doc.page_count == 5 and doc.skipped_pages == []
    assert [e.id for e in doc.elements] == [f"el-{i:06d}" for i in range(1, len(doc.elements) + 1)]
    assert [(u.parser, u.first_page, u.last_page) for u in doc.parsers] == [("pymupdf", 1, 5)]
    pages = [e.page_first for e in doc.elements]
    assert pages == sorted(pages)


def test_headings_follow_the_outline(parsed: ParsedDocument) -> None:
    heads = [(e.text, e.level, e.page_first, e.origin) for e in _of(parsed.document, "heading")]
    assert heads == [
        ("# 1 Introduction", 1, 1, "outline"),
        ("## 1.1 Steps", 2, 1, "outline"),
        ("# 2 Code and Tables", 1, 2, "outline"),
        ("## 2.1 Results", 2, 2, "outline"),
        ("# 3 Pictures", 1, 3, "outline"),
        ("# 4 Appendix", 1, 5, "outline"),
    ]
    assert [o.title for o in parsed.document.outline][:2] == ["1 Introduction", "1.1 Steps"]


def test_headings_from_font_sizes_without_outline(tmp_path: Path) -> None:
    doc = parse_document(build_manual(tmp_path / "plain.pdf", outline=False)).document
    assert doc.outline == []
    heads = [(e.text, e.level, e.origin) for e in _of(doc, "heading")]
    assert heads == [
        ("# 1 Introduction", 1, "font"),
        ("## 1.1 Steps", 2, "font"),
        ("# 2 Code and Tables", 1, "font"),
        ("## 2.1 Results", 2, "font"),
        ("# 3 Pictures", 1, "font"),
        ("# 4 Appendix", 1, "font"),
    ]


def test_bullet_and_numbered_lists(parsed: ParsedDocument) -> None:
    lists = _of(parsed.document, "list")
    assert len(lists) == 2
    bullets, numbered = lists
    assert bullets.items == BULLETS and bullets.ordered is False
    assert bullets.text == "\n".join(f"- {i}" for i in BULLETS)
    assert numbered.items == NUMBERED and numbered.ordered is True and numbered.start == 1
    assert numbered.text.startswith("1. Open the file.\n2. Read every page.")


def test_code_block_keeps_indentation(parsed: ParsedDocument) -> None:
    (code,) = _of(parsed.document, "code")
    assert code.text == "```\n" + "\n".join(CODE) + "\n```"
    assert code.page_first == 2


def test_a_word_on_a_crossing_of_rulings_is_in_one_cell_only() -> None:
    """VisuelPSTricks: a diagram's label "x" drawn on the crossing of two rulings was in
    each of the four cells around it (95 "tables" of such diagrams, the text four times)."""
    cells = [[(0, 0, 50, 20), (50, 0, 100, 20)], [(0, 20, 50, 40), (50, 20, 100, 40)]]
    words = [
        (5, 5, 25, 15, "alpha", 0, 0, 0),
        (49.5, 19.5, 50.5, 20.5, "x", 0, 0, 1),  # its middle on the crossing
        (60, 25, 80, 35, "beta", 0, 0, 2),
        (99.5, 25, 100.5, 35, "y", 0, 0, 3),  # on the right edge: still its cell's
    ]
    rows = _cells_text(words, [list(r) for r in cells])
    assert " ".join(c for r in rows for c in r).split() == ["alpha", "x", "beta", "y"]
    assert rows[1][1] == "beta y"


def test_chinese_and_japanese_wrapped_in_a_cell_or_a_title_join_without_a_space() -> None:
    """Debian's installation guide in Japanese: "デフォルトのx86 マ" over "シン" in a table
    cell was "マ シン" (44 times), and a heading wrapped before its last character was
    "…インストールの自動 化". A chapter label over its title keeps its space."""
    cell = [[(0, 0, 200, 40)]]
    words = [
        (5, 5, 90, 15, "デフォルトのx86", 0, 0, 0),
        (95, 5, 105, 15, "マ", 0, 0, 1),
        (5, 20, 30, 30, "シン", 0, 1, 0),
    ]
    assert _cells_text(words, [list(r) for r in cell]) == [["デフォルトのx86 マシン"]]
    latin = [(5, 5, 40, 15, "Marvell", 0, 0, 0), (5, 20, 40, 30, "Kirkwood", 0, 1, 0)]
    assert _cells_text(latin, [list(r) for r in cell]) == [["Marvell Kirkwood"]]
    assert join_lines(["preseed を利用したインストールの自動", "化"], title=True) == (
        "preseed を利用したインストールの自動化"
    )
    assert join_lines(["第二章", "用LATEX 排版文字"], title=True) == "第二章 用LATEX 排版文字"
    assert join_lines(["第一部分", "基础"], title=True) == "第一部分 基础"


SPECIMEN = "ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz"


def test_bold_pieces_of_an_equation_are_no_headings(tmp_path: Path) -> None:
    """Simbody's theory manual: Word set its equations' matrices in bold at the body's
    size, one to three letters at a time ("G", "W GM", "DμT"); 136 of them were headings,
    and session titles read "Equations of motion (continued): DμT; M G T DμS". Nor is a
    font's specimen, the alphabet set large (TeX for the Impatient's session title
    "Concepts (suite) : ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz")."""
    doc = pymupdf.open()
    for n in range(2):
        page = doc.new_page()
        opening = f"Chapter {n + 1} opens with a paragraph of prose before its sections."
        page.insert_text((72, 100), opening, fontsize=12, fontname="tiro")
        y = 200.0
        for title, pieces in [
            (f"Impact Handler {n + 1}", ["G", "W GM", "DμT"]),
            ("FAQ", ["M G c"]),
        ]:
            page.insert_text((72, y), title, fontsize=12, fontname="tibo")
            y += 20
            for k in range(6):
                line = f"Step {k} of the method in chapter {n + 1}, as the equation shows."
                page.insert_text((72, y), line, fontsize=12, fontname="tiro")
                y += 15
            for piece in pieces:
                page.insert_text((250, y), piece, fontsize=12, fontname="tibo")
                y += 18
        page.insert_text((72, y + 10), SPECIMEN, fontsize=14, fontname="tibo")
    path = tmp_path / "equations.pdf"
    doc.save(path)
    parsed = parse_document(path).document
    titles = [e.text.lstrip("# ") for e in parsed.elements if e.type == "heading"]
    assert titles == ["Impact Handler 1", "FAQ", "Impact Handler 2", "FAQ"]
    assert [e.type for e in parsed.elements if e.text == SPECIMEN] == ["paragraph"] * 2
    # a Korean title's words are two or three syllables long (oblivoir's "글꼴의 이름")
    assert not _symbols("글꼴의 이름") and not _symbols("概要") and _symbols("1 v ω")


def test_contents_lines_set_as_headings_are_text(tmp_path: Path) -> None:
    """arrayjobx, curve2e, teubner-doc and 14 more manuals: the contents under the title
    (too little of its page to be a contents page) was set in bold and read as headings
    ("### 1 Introduction 2"): cut reasons, and the front matter ended inside them. A line
    that is a later heading's title and a page number is a contents line."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "The arrayjobx package", fontsize=20, fontname="hebo")
    page.insert_text((72, 120), "Contents", fontsize=14, fontname="hebo")
    titles = ["Introduction", "Command reference", "Examples"]
    for k, title in enumerate(titles):
        entry = f"{k + 1} {title} {k + 2}"
        page.insert_text((72, 160 + 40 * k), entry, fontsize=12, fontname="hebo")
    for n, title in enumerate(titles, 1):
        page = doc.new_page()
        page.insert_text((72, 80), f"{n} {title}", fontsize=14, fontname="hebo")
        for line in range(30):
            text = " ".join(f"word{n}{line}{k}" for k in range(10))
            page.insert_text((72, 110 + 14 * line), text, fontsize=10, fontname="helv")
    doc.save(tmp_path / "contents.pdf")
    els = parse_document(tmp_path / "contents.pdf").document.elements
    assert [e.text for e in els if e.type == "heading"] == [
        "# The arrayjobx package",
        "## Contents",
        "## 1 Introduction",
        "## 2 Command reference",
        "## 3 Examples",
    ]
    assert [e.text for e in els if e.page_first == 1][2:] == [
        "1 Introduction 2",
        "2 Command reference 3",
        "3 Examples 4",
    ]


def _justified(
    page: pymupdf.Page, y: float, lines: list[str], left: float = 72, right: float = 520
) -> None:
    """`lines` from baseline `y` down, 12 points apart, each set flush from x `left` to
    `right`, word by word (as TeX justifies)."""
    for k, text in enumerate(lines):
        words = text.split()
        widths = [pymupdf.get_text_length(w, fontname="helv", fontsize=10) for w in words]
        gap = (right - left - sum(widths)) / (len(words) - 1)
        x = left
        for w, width in zip(words, widths, strict=True):
            page.insert_text((x, y + 12 * k), w, fontsize=10, fontname="helv")
            x += width + gap


def _typewriter_between(
    before: list[str], code: str, after: list[str]
) -> tuple[pymupdf.Document, pymupdf.Page]:
    """A page of justified lines with one typewriter line at their left edge between
    `before` and `after`, where a wrapped sentence would put it."""
    doc = pymupdf.open()
    page = doc.new_page()
    _justified(page, 100, before)
    page.insert_text((72, 136), code, fontsize=10, fontname="cour")
    _justified(page, 160, after)
    return doc, page


def test_a_wrapped_line_of_inline_code_stays_in_its_sentence(tmp_path: Path) -> None:
    """The R manuals: a sentence whose line break falls before a typewriter word set that
    word alone on a line ("… the convention is to use file" / "inst/COPYRIGHTS."), and
    the monospace line became a code block that cut the sentence in two. A display (set
    apart and indented) stays code."""
    doc, page = _typewriter_between(
        [
            "An optional field can be used where the copyright holders are not the",
            "authors of the package. If necessary this can refer to an installed file and",
            "the convention that most packages follow for such a file is to use the file",
        ],
        "inst/COPYRIGHTS.",
        [
            "The optional date field gives the release date of the current version of",
            "the package and it is strongly recommended to use the ISO date format for it",
            "so that every tool that reads the file knows which day it is meant to name",
        ],
    )
    page.insert_text((100, 220), "R CMD build pkg", fontsize=10, fontname="cour")
    _justified(page, 244, ["which builds the package from its sources and checks what it finds"])
    doc.save(tmp_path / "inline.pdf")
    els = parse_document(tmp_path / "inline.pdf").document.elements
    assert [e.type for e in els] == ["paragraph", "paragraph", "code", "paragraph"]
    assert els[0].text.endswith("is to use the file inst/COPYRIGHTS.")
    assert "R CMD build pkg" in els[2].text


def test_a_web_address_broken_after_its_scheme_stays_in_its_sentence(tmp_path: Path) -> None:
    """amsmath's guide: "… see [9] or [7] and https:" / "//www.ams.org/tex/author-info.html."
    in typewriter; a line ending in a colon introduces a display, but not after "https"."""
    doc, _ = _typewriter_between(
        [
            "These all have something to do with the contents of math formulas. For more",
            "information on extra math symbols and math fonts, see the fonts guide and the",
            "classes of the society (amsart, amsbook, and the others) see its pages and https:",
        ],
        "//www.ams.org/tex/author-info.html.",
        [
            "If you are a long time user of the system and have lots of mathematics in what",
            "you write, then you may recognize solutions for some familiar problems in this",
        ],
    )
    doc.save(tmp_path / "scheme.pdf")
    els = parse_document(tmp_path / "scheme.pdf").document.elements
    assert [e.type for e in els] == ["paragraph", "paragraph"], [e.text for e in els]
    assert "and https://www.ams.org/tex/author-info.html." in els[0].text


DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")  # Debian fonts-dejavu-core


def test_a_numbered_listing_is_one_code_block(tmp_path: Path) -> None:
    """A .dtx's listing: each line number is set small in a roman font, as a line of its
    own or at the head of a short line ("15 \\else"), with docstrip guards ("⟨∗package⟩")
    in roman type. The numbers voted the lines into prose, one paragraph per line."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="dv", fontfile=str(DEJAVU))  # has the guards' angle brackets
    _justified(page, 90, ["The conditionals are set up first, and then the package ends."])
    code = [
        ("⟨∗package⟩", ""),
        ("", "\\prg_new_conditional:Npnn \\platex_if_box_yoko:N"),
        ("", "{ \\tex_ifybox:D #1"),
        ("", ""),  # a blank line: its number alone
        ("", "\\else"),
        ("", "\\fi }"),
        ("⟨/package⟩", ""),
    ]
    for k, (guard, line) in enumerate(code):
        y = 120 + 11 * k
        # achemso's numbers sit on the code's baseline, MuPDF lines of their own
        page.insert_text((72, y), str(548 + k), fontsize=5, fontname="helv")
        if guard:
            page.insert_text((84, y), guard, fontsize=9, fontname="dv")
        if line:
            page.insert_text((110 if len(line) > 8 else 100, y), line, fontsize=9, fontname="cour")
    _justified(page, 200, ["Which closes the listing, and the prose of the manual goes on here."])
    doc.save(tmp_path / "listing.pdf")
    els = parse_document(tmp_path / "listing.pdf").document.elements
    assert [e.type for e in els] == ["paragraph", "code", "paragraph"], [e.text for e in els]
    assert "548 ⟨∗package⟩" in els[1].text and "552 \\else" in els[1].text
    assert "\n551\n" in els[1].text


@pytest.mark.parametrize(
    ("font", "mono"),
    [
        ("ABCDEF+t1xtt", True),
        ("XYZABC+GoMono", True),
        ("QRSTUV+CMTT9", True),
        ("Iosevka-Slab", True),
        ("ABCDEF+TT10", True),
        ("t1xr", False),
        ("HLPCA+TT476t00", False),
        ("TFNFTN+TT4B6t00", False),
        ("LMMono10-Regular", True),
        ("LMMonoLt10-Bold", True),
        ("LMMonoPropLt10-Regular", False),
        ("LMTypewriterVarWd10-Regular", False),
        ("MonotypeCorsiva", False),
    ],
)
def test_typewriter_fonts_by_name(font: str, mono: bool) -> None:
    """newtxtt's "t1xtt" and Iosevka (luatexja's listings) carry no monospace flag: their
    numbered listings read as prose. Windows' PostScript driver names the TrueType fonts
    it sends "TT" + a number + "t00" (SasView's tutorials, through Ghostscript): no
    typewriter type, and the tutorial's prose was code. Latin Modern's proportional
    typewriter faces are the body font of Hans Hagen's ConTeXt manuals ("details": 166
    pages of code blocks, no heading), and Monotype's Corsiva is a script face."""
    assert font_style(font)[0] is mono


def test_a_japanese_paragraph_with_latin_words_is_one_paragraph(tmp_path: Path) -> None:
    """jlreq sets Japanese at 10.95 pt beside 10 pt Latin: a line of mostly option names
    and the next of mostly Japanese differ in their majority's size, which cut the
    paragraph after every such line ("…副題を受" / "け付けられる…")."""
    ja = pymupdf.Font("japan")
    lines = [
        [("final / landscape / openright / openany / leqno / fleqn ", 10.0), ("というよく", 10.95)],
        [
            ("あるオプションを受け付けます．また", 10.95),
            ("disablejfam ", 10.0),
            ("を渡します．", 10.95),
        ],
        [("\\section*[running head]{head}[sub] ", 10.0), ("というように副題を", 10.95)],
        [("受け付けられるように拡張されています．", 10.95)],
    ]
    doc = pymupdf.open()
    page = doc.new_page()
    for k, pieces in enumerate(lines):
        x = 72.0
        for text, size in pieces:
            font = "japan" if size > 10 else "helv"
            page.insert_text((x, 100 + 17 * k), text, fontsize=size, fontname=font)
            width = (
                ja.text_length(text, size)
                if size > 10
                else pymupdf.get_text_length(text, "helv", size)
            )
            x += width
    doc.save(tmp_path / "ja.pdf")
    els = parse_document(tmp_path / "ja.pdf").document.elements
    assert len(els) == 1, [e.text for e in els]
    assert "よくあるオプション" in els[0].text and "副題を受け付けられる" in els[0].text


def test_line_pitch_is_measured_between_baselines(tmp_path: Path) -> None:
    """pLaTeX's documentation: one line's bottom goes 5 pt deeper than its neighbours'
    (a glyph of a font with a deep descent), and measured bottom to bottom the step looked
    like a paragraph break ("…設定できる」" / "した。これに合わせて…")."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="deep", fontfile=str(DEJAVU))
    lines = [
        "The series of a family can be set for each family since the release of that",
        "year, and the same was added for the Japanese fonts in the next release of",
        "the format, so that the bold series of a Japanese family follows its Latin",
        "family in the documents that mix them, as the tables below show for each case.",
    ]
    for k, line in enumerate(lines):  # the third in a font whose box goes deep
        font = "deep" if k == 2 else "helv"
        page.insert_text((72, 100 + 12.8 * k), line, fontsize=9.5, fontname=font)
    _set_metrics(doc, page, "deep", 900, -800)
    doc.save(tmp_path / "deep.pdf")
    texts = [e.text for e in parse_document(tmp_path / "deep.pdf").document.elements]
    assert len(texts) == 1, texts


def test_a_described_term_with_a_hanging_indent_is_one_paragraph(tmp_path: Path) -> None:
    """A description list (biblatex's package list, a .dtx's macro descriptions): the term
    and its text's first line set full width, the rest indented under it. Each item was
    cut after its first line ("… biblatex will use its language sensitive quotation" /
    "facilities to enclose …")."""
    doc = pymupdf.open()
    page = doc.new_page()
    intro = [
        "The packages below are used by the style when they are available, and each of them",
        "is loaded automatically when the preamble asks for it, so nothing needs to be done",
        "by the author of a document beyond installing them with the rest of the system.",
    ]
    _justified(page, 100, intro)
    items = [
        [
            "biber is the backend of the package used to transfer the data from the source",
            "files to the code. It comes with the distribution and is also available from",
        ],
        [
            "csquotes If this package is available, the style will use its language sensitive",
            "facilities to enclose certain titles in quotation marks. If it is not there, the",
        ],
    ]
    y = 150.0
    for first, second in items:
        _justified(page, y, [first])
        _justified(page, y + 12, [second], left=100)
        page.insert_text((100, y + 24), "style uses plain quotes.", fontsize=10, fontname="helv")
        y += 44
    doc.save(tmp_path / "described.pdf")
    els = parse_document(tmp_path / "described.pdf").document.elements
    assert [e.text.split()[0] for e in els] == ["The", "biber", "csquotes"], [e.text for e in els]
    assert "language sensitive facilities to enclose" in els[2].text


def test_a_label_line_ends_before_a_paragraph_on_a_page_mostly_of_code(tmp_path: Path) -> None:
    """A .dtx page: more 8-pt code than 10-pt prose made 8 pt the page's body size, and
    the prose lost its paragraph rules: an argument's one-line description ("<1> Song
    artist.") ran into the indented paragraph after it, which was then cut after its
    first line ("... the page break if" / "a parameter other than 'N' has been passed.")."""
    doc = pymupdf.open()
    page = doc.new_page()
    for k in range(30):
        code = f"\\def\\SB@macro{k}#1{{\\ifthenelse{{\\equal{{#1}}{{N}}}}{{}}{{\\newpage}}}}%"
        page.insert_text((72, 60 + 9 * k), code, fontsize=8, fontname="cour")
    y = 360.0
    for label in ("<1> Song artist.", "<2> Song title and number."):
        page.insert_text((110, y), label, fontsize=10, fontname="helv")  # as songbook sets it
        _justified(page, y + 12, ["When we are in the compact mode we only execute the page"], 87)
        _justified(page, y + 24, ["break if the song has asked for it with its optional argument,"])
        page.insert_text((72, y + 36), "a parameter other than N has been passed.", fontsize=10)
        y += 70
    doc.save(tmp_path / "dtx.pdf")
    els = parse_document(tmp_path / "dtx.pdf").document.elements
    prose = [e.text for e in els if e.type != "code"]
    body = "When we are in the compact mode we only execute the page break if the song has "
    body += "asked for it with its optional argument, a parameter other than N has been passed."
    assert prose == ["<1> Song artist.", body, "<2> Song title and number.", body], prose


def _set_metrics(
    doc: pymupdf.Document, page: pymupdf.Page, name: str, ascent: int, descent: int
) -> None:
    """Give the embedded font `name` the declared ascent and descent (of a 1,000-unit em)."""
    font = next(xref for xref, *_, font_name, _ in page.get_fonts() if font_name == name)
    descendant = int(doc.xref_get_key(font, "DescendantFonts")[1].strip("[]").split()[0])
    descriptor = int(doc.xref_get_key(descendant, "FontDescriptor")[1].split()[0])
    doc.xref_set_key(descriptor, "Ascent", str(ascent))
    doc.xref_set_key(descriptor, "Descent", str(descent))


LEGAL = [
    "The style for the citation of legal authorities is intended to implement",
    "more or less the standard in its third edition, and it does so for cases",
    "and legislation of the jurisdictions most often cited in English work.",
]


def test_a_font_with_broken_metrics_keeps_its_paragraph_whole(tmp_path: Path) -> None:
    """oscola's Libertine declares an ascent of 454 and a descent of -2: MuPDF boxes its
    11-pt lines 5 pt high, and the gap between two such boxes looked like a paragraph
    break at every line. Computer Modern's symbol font boxes its ⟨ ⟩ 20 pt high in 11.5-pt
    text (texshade): the line's bottom went down past the line pitch and cut there."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="dv", fontfile=str(DEJAVU))
    page.insert_font(fontname="sy", fontfile=str(DEJAVU.with_name("DejaVuSerif.ttf")))
    for k, line in enumerate(LEGAL):
        page.insert_text((72, 100 + 13.6 * k), line, fontname="dv", fontsize=11)
    y = 200.0
    for k, line in enumerate(LEGAL):  # in Helvetica, with a mark in the tall font
        head, mark, tail = line.partition("standard") if k == 1 else (line, "", "")
        page.insert_text((72, y + 13.6 * k), head + mark, fontname="helv", fontsize=11)
        if mark:
            x = 72 + pymupdf.get_text_length(head + mark, "helv", 11)
            page.insert_text((x, y + 13.6), "†", fontname="sy", fontsize=11)
            x += 7
            page.insert_text((x, y + 13.6), tail, fontname="helv", fontsize=11)
    _set_metrics(doc, page, "dv", 454, -2)
    _set_metrics(doc, page, "sy", 900, -900)
    doc.save(tmp_path / "metrics.pdf")
    with pymupdf.open(tmp_path / "metrics.pdf") as check:  # the boxes are as odd as theirs
        spans = [
            s for b in check[0].get_text("dict")["blocks"] for ln in b["lines"] for s in ln["spans"]
        ]
        assert spans[0]["bbox"][3] - spans[0]["bbox"][1] < 6
        assert max(s["bbox"][3] - s["bbox"][1] for s in spans) > 18
    els = parse_document(tmp_path / "metrics.pdf").document.elements
    marked = " ".join(LEGAL).replace("standard", "standard†")
    assert [e.text for e in els] == [" ".join(LEGAL), marked]


def test_a_justified_passage_narrower_than_the_page_keeps_its_lines_together(
    tmp_path: Path,
) -> None:
    """An indented, boxed passage set justified to its own right edge (it-lshort's "Se
    LaTeX non sta posizionando gli oggetti flottanti come ci si" / "aspetterebbe, …"):
    its full lines end short of the page's edge, and each was taken for a paragraph's
    short last line."""
    doc = pymupdf.open()
    page = doc.new_page()
    body = [
        f"Line {k} of the body text is set across the whole measure of the page here."
        for k in range(6)
    ]
    _justified(page, 100, body)
    boxed = [
        "If the floats are not placed where you would expect them in the text,",
        "it is often because one of them holds up all of those that come later:",
    ]
    _justified(page, 200, boxed, left=100, right=450)
    page.insert_text((100, 224), "blocks the others.", fontsize=10, fontname="helv")  # short
    doc.save(tmp_path / "boxed.pdf")
    texts = [e.text for e in parse_document(tmp_path / "boxed.pdf").document.elements]
    assert texts[-1] == " ".join([*boxed, "blocks the others."]), texts


def test_a_word_broken_at_a_described_terms_line_end_keeps_its_sentence(tmp_path: Path) -> None:
    """A macro's description (philosophersimprint): the term and the first line of its
    text set full width, the rest indented. The indent after a first line read as a label
    followed by its text, and cut a word in two ("… use this envi-" / "ronment. …")."""
    doc = pymupdf.open()
    page = doc.new_page()
    first = "\\jot This length is added between lines of eqnarray. People should not use this envi-"
    page.insert_text((72, 100), first, fontsize=10, fontname="helv")
    page.insert_text((100, 112), "ronment. Still, let us define it.", fontsize=10, fontname="helv")
    doc.save(tmp_path / "term.pdf")
    texts = [e.text for e in parse_document(tmp_path / "term.pdf").document.elements]
    assert len(texts) == 1 and texts[0].endswith("ronment. Still, let us define it."), texts


def test_a_double_spaced_thesis_keeps_its_paragraphs(tmp_path: Path) -> None:
    """A thesis set double-spaced (ndsu's class): the gap between every two lines is wider
    than a line, and each line was a paragraph of its own."""
    words = "time is the clue to the discovery of the categories as we have already seen"
    lines = [f"{words} and so on {k}" for k in range(7)]
    doc = pymupdf.open()
    page = doc.new_page()
    for k, line in enumerate(lines):
        y = 100 + 24 * k
        if k in (3, 6):  # the short last lines
            page.insert_text((72, y), line, fontsize=10, fontname="helv")
        else:
            _justified(page, y, [line], left=90 if k == 4 else 72)  # 4 opens a paragraph
    doc.save(tmp_path / "thesis.pdf")
    texts = [e.text for e in parse_document(tmp_path / "thesis.pdf").document.elements]
    assert texts == [" ".join(lines[:4]), " ".join(lines[4:])], texts


def test_a_double_spaced_line_the_next_word_did_not_fit_goes_on(tmp_path: Path) -> None:
    """mugsthesis: a double-spaced line ending an em and a half short of the edge ("… We
    can" / "then check the pagination") was a paragraph's end: only a full line went on at
    the wide pitch."""
    words = "time is the clue to the discovery of the categories as we have already seen"
    lines = [f"{words} and so on {k}" for k in range(5)] + [f"{words} as", f"a {words} {6}"]
    doc = pymupdf.open()
    page = doc.new_page()
    for k, line in enumerate(lines):
        if k == 6:  # the short last line
            page.insert_text((72, 100 + 24 * k), line, fontsize=10, fontname="helv")
        else:  # the sixth line ends 15 points short: "a" would have fit
            _justified(page, 100 + 24 * k, [line], right=505 if k == 5 else 520)
    doc.save(tmp_path / "thesis.pdf")
    texts = [e.text for e in parse_document(tmp_path / "thesis.pdf").document.elements]
    assert texts == [" ".join(lines)], texts


def test_spaced_description_items_stay_apart_on_their_wide_pitch() -> None:
    """lshort-ee's hyperref options, one spaced line each, give their page its wide pitch:
    an item ending 3.7 ems short ("linkcolor (=red) … värv") is no line of the next
    ("citecolor (=green) …"), though that one's first word would not have fit; a line
    an em short is."""

    def row(text: str, x1: float, base: float) -> Row:
        return Row(text, 169, base - 9, x1, base + 2, 11.0, False, False, False, True, base=base)

    lay = _Layout(body=11.0, pitch=17.44, ends=(501.0,), start=142.0)
    item = "citecolor (=green) viitelinkide (bibliograafia) värv"
    nxt = row(item, 425.6, 632.8)
    assert not _spaced_on(
        row("linkcolor (=red) siselinkide (jaotised) värv", 460.1, 615.4), nxt, lay
    )
    assert _spaced_on(row("linkcolor (=red) siselinkide (jaotised) värv", 490.0, 615.4), nxt, lay)


def test_stacked_symbols_do_not_set_the_pages_line_pitch() -> None:
    """mathtest: the pieces of extensible delimiters, glyphs standing 3.6 pt above one
    another at 12 pt, gave their page a line pitch of 3.6 pt, and every line of the page's
    prose then broke from the next ("… Control sequences \\oldxxx just invoke former" /
    "symbols when they exist, …"). Rows closer than 0.8 of their size are parts of one
    line; the pitch is the prose's."""

    def row(text: str, x0: float, base: float) -> Row:
        x1 = x0 + 6 * len(text)
        return Row(text, x0, base - 9, x1, base + 3, 12.0, False, False, False, True, base=base)

    pieces = [row("'", 173, 100 + 3.6 * k) for k in range(12)]
    prose = [
        row(f"Line {k} of the prose on this page, set in twelve point type.", 72, 200 + 14 * k)
        for k in range(5)
    ]
    assert _page_layout(pieces + prose).pitch == 14


def test_a_paragraph_set_ragged_on_a_justified_page_keeps_its_lines(tmp_path: Path) -> None:
    """tikz-network: a paragraph set ragged right among justified ones, its lines ending a
    few points short of the page's edge; each was taken for a paragraph's last line ("…
    Therefore, the same" / "rules and naming conventions …"). A line goes on when the next
    line's first word would not have fit in the room left; a line ending near the edge
    with its sentence over still ends its paragraph, and so does a description list's
    item (its key set apart from its text) before the next key (changes.ngerman)."""
    doc = pymupdf.open()
    page = doc.new_page()
    body = [
        f"Line {k} of the body text is set across the whole measure of the page." for k in range(4)
    ]
    _justified(page, 100, body[:3], right=400)
    page.insert_text((72, 136), "Its short last line.", fontsize=10, fontname="helv")
    _justified(
        page,
        160,
        ["Only the identifier is mandatory for a vertex and it corresponds to the"],
        right=400,
    )
    ragged = [  # at their own width: 2, 6 and 20 points short of the edge
        "Name argument of a single vertex command. Therefore, exactly the same",
        "rules and naming conventions apply as for the Name argument, that is to",
        "say no mathematical expressions and no blank spaces; and the value",
        "must be unique.",
    ]
    for k, line in enumerate(ragged, 1):
        page.insert_text((72, 160 + 12 * k), line, fontsize=10, fontname="helv")
    over = "A paragraph whose last line ends close to the edge is over."
    _justified(page, 240, [over], right=395)
    _justified(page, 252, body[3:], right=400)
    page.insert_text((72, 280), "summary", fontsize=10, fontname="helv")
    page.insert_text((150, 280), "gives the number of changes grouped by their author", fontsize=10)
    item = "compactsummary like summary, but changes counted zero are left out"
    page.insert_text((72, 292), item, fontsize=10, fontname="helv")
    doc.save(tmp_path / "ragged.pdf")
    texts = [e.text for e in parse_document(tmp_path / "ragged.pdf").document.elements]
    first = "Only the identifier is mandatory for a vertex and it corresponds to the"
    assert texts[1] == " ".join([first, *ragged]), texts
    assert texts[2:] == [
        over,
        body[3],
        "summary gives the number of changes grouped by their author",
        item,
    ], texts


def test_a_note_in_the_margin_does_not_cut_the_paragraph_beside_it(tmp_path: Path) -> None:
    """ltxdoc's \\DescribeMacro: the macro's name set small, in typewriter, in the left
    margin beside the line that introduces it (numprint, makebst, marginfix). The
    paragraph was cut in two at the note; it stays whole, the note follows it. A line in
    the margin beside a paragraph that ends there stays where it stands."""
    para = [
        "Lengths can be printed using the length command with an optional unit and a",
        "macro containing the length itself or a dimension, for instance the width of",
        "the text block of the page you are reading at this very moment, which is set",
        "justified.",
    ]
    doc = pymupdf.open()
    page = doc.new_page()
    _justified(page, 100, para[:1], left=150)
    # on the line it is attached to, written after it (as TeX does)
    page.insert_text((80, 100), "\\lenprint", fontsize=9, fontname="cour")
    _justified(page, 112, para[1:3], left=150)
    page.insert_text((150, 136), para[3], fontsize=10, fontname="helv")
    page.insert_text((150, 160), "A short paragraph.", fontsize=10, fontname="helv")
    page.insert_text((80, 160), "\\apart", fontsize=9, fontname="cour")  # beside its end
    page.insert_text((150, 184), "The next paragraph.", fontsize=10, fontname="helv")
    # a key with its default set flush right (pgfkeys' manuals): the key's line stays
    # apart from the description under it, its name in the margin between them
    page.insert_text((150, 220), "{direction}", fontsize=10, fontname="helv")
    default = "(initial: up)"
    x = 520 - pymupdf.get_text_length(default, fontname="helv", fontsize=10)
    page.insert_text((x, 220), default, fontsize=10, fontname="helv")
    page.insert_text((80, 220), "/BT/grow", fontsize=9, fontname="cour")
    _justified(page, 232, [para[0]], left=165)
    doc.save(tmp_path / "margin.pdf")
    texts = [e.text for e in parse_document(tmp_path / "margin.pdf").document.elements]
    assert texts[0] == " ".join(para), texts
    assert texts[1] == "```\n\\lenprint\n```", texts
    assert texts[2:5] == ["A short paragraph.", "```\n\\apart\n```", "The next paragraph."]
    assert texts[5:] == ["{direction} (initial: up)", "```\n/BT/grow\n```", para[0]], texts


def test_a_sentence_across_a_column_break_is_one_paragraph(tmp_path: Path) -> None:
    """Two columns: the first column's last paragraph goes on at the top of the second
    (in lower case: its sentence is not over), as across a page break. It was cut there on
    every page of a two-column article; a new paragraph opening a column stays apart."""
    left = ["Counting the runs of a long document is what this part", "is about, and the count"]
    right = ["grows with every line of the table.", "A new paragraph starts the next idea."]
    doc = pymupdf.open()
    page = doc.new_page()
    for k in range(28):  # a full first column, its last paragraph left open
        text = f"Line {k} of the earlier paragraph ends here."
        page.insert_text((50, 80 + 12 * k), text, fontsize=9, fontname="helv")
    for k, text in enumerate(left):
        page.insert_text((60 - 10 * k, 440 + 12 * k), text, fontsize=9, fontname="helv")
    page.insert_text((310, 80), right[0], fontsize=9, fontname="helv")
    page.insert_text((320, 104), right[1], fontsize=9, fontname="helv")
    doc.save(tmp_path / "columns.pdf")
    texts = [e.text for e in parse_document(tmp_path / "columns.pdf").document.elements]
    assert " ".join(left + right[:1]) in texts, texts
    assert right[1] in texts


def test_ruled_table(parsed: ParsedDocument) -> None:
    (table,) = _of(parsed.document, "table")
    assert table.rows == TABLE
    assert table.text.splitlines()[:2] == ["| Name | Pages |", "| --- | --- |"]


def test_image_is_extracted_with_its_bytes(parsed: ParsedDocument) -> None:
    (img,) = _of(parsed.document, "image")
    assert img.image is not None and img.page_first == 3
    data = parsed.images[img.image.file]
    assert img.image.sha256 == sha256_bytes(data)
    assert img.image.file == f"images/{img.image.sha256}.png"
    pix = pymupdf.Pixmap(data)
    assert (pix.width, pix.height) == (64, 48) == (img.image.width, img.image.height)
    assert list(parsed.images) == [img.image.file]


def test_captions(parsed: ParsedDocument) -> None:
    caps = [(e.text, e.page_first) for e in _of(parsed.document, "caption")]
    assert caps == [
        ("Table 1: Pages per chapter in the sample.", 2),
        ("Figure 1: A red and blue test picture.", 3),
    ]
    order = [e.type for e in parsed.document.elements if e.page_first == 3]
    assert order[:3] == ["heading", "image", "caption"]


def test_paragraph_across_page_break_is_one_element(parsed: ParsedDocument) -> None:
    joined = " ".join(SPLIT_TOP + SPLIT_BOTTOM)
    (para,) = [e for e in parsed.document.elements if e.text == joined]
    assert (para.type, para.page_first, para.page_last) == ("paragraph", 3, 4)
    nxt = parsed.document.elements[parsed.document.elements.index(para) + 1]
    assert nxt.text == " ".join(NEXT_PARA) and nxt.page_first == 4


def test_running_header_and_page_numbers_are_removed(parsed: ParsedDocument) -> None:
    doc = parsed.document
    assert HEADER not in _body(doc)
    removed = {(r.page, r.kind, r.text) for r in doc.removed}
    for n in range(1, 6):
        assert (n, "header", HEADER) in removed
        assert (n, "page_number", str(n)) in removed
    assert len(doc.removed) == 10
    assert not any(e.type == "paragraph" and e.text.strip().isdigit() for e in doc.elements)


def test_ir_json_round_trip_is_byte_identical(parsed: ParsedDocument, tmp_path: Path) -> None:
    data = dump_ir(parsed.document)
    again = load_ir(data)
    assert again == parsed.document
    assert dump_ir(again) == data
    (tmp_path / "ir.json").write_bytes(data)
    assert load_ir((tmp_path / "ir.json").read_bytes()) == parsed.document


def test_same_ir_whatever_the_range_size(manual: Path, parsed: ParsedDocument) -> None:
    reference = dump_ir(parsed.document)
    for size in (1, 2, 3):
        assert dump_ir(parse_document(manual, range_pages=size).document) == reference
    # ranges merged in any order, from their JSON form (as workers store them)
    meta = pdf_meta(manual)
    results = [
        PdfRangeResult.from_json(parse_pdf_range(manual, a, b).to_json())
        for a, b in reversed(page_ranges(meta.page_count, 2))
    ]
    merged = merge_pdf_ranges(manual, results)
    assert dump_ir(merged.document) == reference
    assert merged.images == parsed.images


def test_range_tasks_reuse_the_open_pdf_until_the_file_changes(
    manual: Path, tmp_path: Path
) -> None:
    """A worker keeps its last PDF open between range tasks; a file replaced at the same
    path (new bytes, new inode) is opened afresh, never read through the old handle."""
    copy = tmp_path / "doc.pdf"
    copy.write_bytes(manual.read_bytes())
    kept = open_pdf_kept(copy)
    assert open_pdf_kept(copy) is kept
    first = parse_pdf_range(copy, 1, 1)
    assert open_pdf_kept(copy) is kept
    other = build_text_pages(tmp_path / "other.pdf", 2)
    replacement = tmp_path / "replacement.pdf"
    replacement.write_bytes(other.read_bytes())
    replacement.replace(copy)
    again = parse_pdf_range(copy, 1, 1)
    assert open_pdf_kept(copy) is not kept and kept.is_closed
    assert again.doc_id == sha256_bytes(other.read_bytes()) != first.doc_id
    assert again.pages != first.pages
    assert parse_pdf_range(manual, 1, 1).pages == first.pages  # and back again


def _kept_in_child() -> bool:
    from quire.workers.parse import pdf_open

    return pdf_open._kept is None


def test_forked_child_does_not_inherit_the_kept_pdf(manual: Path) -> None:
    """A forked worker must open its own handle: sharing the parent's file offset would let
    two processes' reads interleave."""
    import multiprocessing

    open_pdf_kept(manual)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_kept_in_child) is True


def test_range_result_json_keeps_image_bytes(manual: Path, parsed: ParsedDocument) -> None:
    result = parse_pdf_range(manual, 3, 3)
    payload = json.loads(result.to_json())
    assert payload["first"] == 3 and payload["last"] == 3
    back = PdfRangeResult.from_json(result.to_json())
    assert back == result and back.images == parsed.images
    with pytest.raises(ValueError, match="outside"):
        parse_pdf_range(manual, 4, 6)


def test_merge_refuses_incomplete_ranges(manual: Path) -> None:
    with pytest.raises(ValueError, match="exactly once"):
        merge_pdf_ranges(manual, [parse_pdf_range(manual, 1, 2)])


def test_fallback_parser_is_recorded_per_page(manual: Path, parsed: ParsedDocument) -> None:
    """A page whose native extraction fails is parsed by pymupdf4llm and recorded."""
    results = [parse_pdf_range(manual, 1, 5)]
    doc = open_pdf(manual)
    try:
        results[0].pages[4] = fallback_page(doc, 5, RuntimeError("broken content stream"))
    finally:
        doc.close()
    out = merge_pdf_ranges(manual, results).document
    uses = [(u.parser, u.first_page, u.last_page, u.reason) for u in out.parsers]
    assert uses[0] == ("pymupdf", 1, 4, None)
    assert uses[1][:3] == ("pymupdf4llm", 5, 5)
    assert "native extraction failed (RuntimeError: broken content stream)" in (uses[1][3] or "")
    assert any(n.kind == "fallback" and n.first_page == 5 for n in out.notes)
    assert "Nothing more to say." in _body(out)


def test_pages_without_text_are_skipped_with_a_reason(tmp_path: Path) -> None:
    path = build_text_pages(tmp_path / "gaps.pdf", 6, blank={2}, image_only={4})
    doc = parse_document(path).document
    skipped = {s.page: s.reason for s in doc.skipped_pages}
    assert set(skipped) == {2, 4}
    assert "blank" in skipped[2]
    assert "image-only" in skipped[4] and skipped[4].endswith("; OCR off")
    kinds = {s.page: (s.kind, s.ocr) for s in doc.skipped_pages}
    assert kinds == {2: ("blank", None), 4: ("scanned", "off")}
    assert {e.page_first for e in doc.elements} == {1, 3, 5, 6}
    assert not any(e.type == "image" for e in doc.elements)


def test_repaired_pdf_parses_with_a_note(manual: Path, tmp_path: Path) -> None:
    data = manual.read_bytes()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(data[: int(len(data) * 0.97)])  # xref table and trailer gone
    doc = parse_document(cut).document
    assert doc.page_count == 5
    assert any(n.kind == "warning" and "repaired" in n.message for n in doc.notes)


# --- bad input: each fails with its own error class and a reason -------------------------


def test_zero_byte_files_are_empty(tmp_path: Path) -> None:
    for name in ("empty.pdf", "empty.docx"):
        path = tmp_path / name
        path.write_bytes(b"")
        with pytest.raises(EmptyDocumentError, match=r"empty file \(0 bytes\)"):
            parse_document(path)
    with pytest.raises(EmptyDocumentError, match="0 bytes"):
        pdf_page_count(tmp_path / "empty.pdf")


def test_text_file_named_pdf_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "notes.pdf"
    path.write_text("These are plain notes, not a PDF.\n")
    with pytest.raises(CorruptDocumentError, match="not a PDF file"):
        parse_document(path)
    with pytest.raises(CorruptDocumentError, match="not a PDF file"):
        detect_format(path)


def test_garbage_after_pdf_header_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "garbage.pdf"
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 40)
    with pytest.raises(CorruptDocumentError, match="cannot be opened as a PDF"):
        parse_document(path)


def test_truncated_pdf_repaired_to_nothing_is_corrupt(manual: Path, tmp_path: Path) -> None:
    packed = tmp_path / "packed.pdf"
    src = pymupdf.open(manual)
    src.save(packed, use_objstms=1, garbage=3, deflate=True)  # pages live in object streams
    src.close()
    data = packed.read_bytes()
    cut = tmp_path / "half.pdf"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptDocumentError, match="truncated PDF: MuPDF's repair recovered no"):
        pdf_page_count(cut)
    with pytest.raises(CorruptDocumentError):
        parse_document(cut)


def test_password_protected_pdf_is_encrypted(manual: Path, tmp_path: Path) -> None:
    locked = tmp_path / "locked.pdf"
    src = pymupdf.open(manual)
    src.save(locked, encryption=_const("PDF_ENCRYPT_AES_256"), user_pw="user", owner_pw="owner")
    src.close()
    with pytest.raises(EncryptedDocumentError, match="password"):
        pdf_page_count(locked)
    with pytest.raises(EncryptedDocumentError, match="user password is needed"):
        parse_document(locked)


def test_owner_password_only_pdf_parses(manual: Path, tmp_path: Path) -> None:
    restricted = tmp_path / "restricted.pdf"
    src = pymupdf.open(manual)
    src.save(
        restricted,
        encryption=_const("PDF_ENCRYPT_AES_128"),
        owner_pw="owner",
        permissions=_const("PDF_PERM_ACCESSIBILITY"),
    )
    src.close()
    assert pdf_page_count(restricted) == 5
    assert len(parse_document(restricted).document.elements) > 10


def test_zero_page_pdf_is_empty(tmp_path: Path) -> None:
    path = zero_page_pdf(tmp_path / "zero.pdf")
    with pytest.raises(EmptyDocumentError, match="zero pages"):
        pdf_page_count(path)
    with pytest.raises(EmptyDocumentError, match="zero pages"):
        parse_document(path)


def test_image_only_pdf_is_empty(tmp_path: Path) -> None:
    path = build_text_pages(tmp_path / "scan.pdf", 3, image_only={1, 2, 3})
    with pytest.raises(
        EmptyDocumentError,
        match="no extractable text on any page \\(3 pages without text: 1–3 — scanned, OCR off\\)",
    ):
        parse_document(path)


def test_unsupported_extension(tmp_path: Path) -> None:
    for name in ("book.txt", "book.mobi", "book"):
        path = tmp_path / name
        path.write_bytes(b"%PDF-1.7\n")
        with pytest.raises(UnsupportedFormatError, match="unsupported file type"):
            parse_document(path)
    fake = tmp_path / "book.epub"  # a supported extension: its bytes must fit it
    fake.write_bytes(b"%PDF-1.7\n")
    with pytest.raises(CorruptDocumentError, match="not an EPUB"):
        parse_document(fake)


def test_detect_format_by_extension_and_magic(manual: Path, tmp_path: Path) -> None:
    assert detect_format(manual) == "pdf"
    upper = tmp_path / "MANUAL.PDF"
    upper.write_bytes(manual.read_bytes())
    assert detect_format(upper) == "pdf"
    docx = tmp_path / "a.docx"
    docx.write_bytes(b"PK\x03\x04rest")
    assert detect_format(docx) == "docx"


def test_a_fallback_page_leaves_later_parsing_unchanged(tmp_path: Path) -> None:
    """pymupdf4llm changes PyMuPDF's process-wide text settings; after a fallback page the
    same pages must still parse to the same IR (else a worker's output would depend on
    whether it had fallen back before)."""
    sample = Path(__file__).resolve().parents[1] / "samples" / "fhs-3.0.pdf"
    before = parse_pdf_range(sample, 1, 30)
    doc = open_pdf(sample)
    try:
        fallback_page(doc, 3, RuntimeError("broken content stream"))
    finally:
        doc.close()
    assert parse_pdf_range(sample, 1, 30) == before


def test_parsing_ignores_pymupdf_settings_other_code_changed() -> None:
    """Other code in the process (pymupdf4llm called directly, as a benchmark or a test may)
    changes PyMuPDF's process-wide text settings; parsing puts them back first, so a
    long-lived process parses a PDF as a fresh one does (found as an embedded run that cut
    differently from a distributed one after such a call)."""
    from pymupdf4llm.helpers import pymupdf_rag

    sample = Path(__file__).resolve().parents[1] / "samples" / "fhs-3.0.pdf"
    before = parse_pdf_range(sample, 1, 30)
    pymupdf = pymupdf_module()
    with pymupdf.open(sample) as pdf:
        pymupdf_rag.to_markdown(pdf, pages=[3], page_chunks=True, show_progress=False)
    assert parse_pdf_range(sample, 1, 30) == before


def test_an_outline_without_accents_still_names_its_chapters(tmp_path: Path) -> None:
    """Bookmarks made without Unicode drop the accents (lshort-vi: "Nhung kien thuc co ban"
    for "Những kiến thức cơ bản"); the chapter is still the title under them, not the
    "Chương 1" label above it alone."""
    font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"  # Debian fonts-dejavu-core
    doc = pymupdf.open()
    body = "Một đoạn văn bản ngắn về các khái niệm cơ bản của tài liệu này."
    chapters = [("Chương 1", "Những kiến thức cơ bản"), ("Chương 2", "Soạn thảo văn bản")]
    for n, (label, title) in enumerate(chapters):
        page = doc.new_page()
        page.insert_font(fontname="dv", fontfile=font)
        top = 90 + 200 * n  # not at the same height on both pages: no running header
        page.insert_text((72, top), label, fontsize=20, fontname="dv")  # as large as the title
        page.insert_text((72, top + 50), title, fontsize=20, fontname="dv")
        for k in range(8):
            page.insert_text((72, top + 90 + 14 * k), body, fontsize=10, fontname="dv")
    doc.set_toc([[1, "Nhung kien thuc co ban", 1], [1, "Soan thao van ban", 2]])
    doc.save(tmp_path / "vi.pdf")
    ir = parse_document(tmp_path / "vi.pdf").document
    assert [e.text for e in _of(ir, "heading")] == [
        "# Chương 1 Những kiến thức cơ bản",  # (the label opens its chapter: next test)
        "# Chương 2 Soạn thảo văn bản",
    ]


def test_a_slide_decks_section_outline_heads_only_the_section_it_opens(
    tmp_path: Path,
) -> None:
    """Beamer opens each section with a slide listing all sections (the current one
    highlighted) and points the section's bookmark at it; "1 Intro" above "2 Basics" was
    taken for the label of "Basics", as "Chapter 2" would be ("# 1 Intro 2 Basics" opened
    the section, the packaging tutorial's Japanese deck named its sessions so)."""
    sections = ["Intro", "Basics", "Tools"]
    doc = pymupdf.open()
    for n, current in enumerate(sections, 1):
        page = doc.new_page(width=360, height=270)
        page.insert_text((12, 20), "Outline", fontsize=14)
        for k, title in enumerate(sections, 1):
            grey = None if k == n else (0.5, 0.5, 0.5)
            page.insert_text((12, 30 + 26 * k), f"{k} {title}", fontsize=10, color=grey)
        slide = doc.new_page(width=360, height=270)
        for k in range(8):
            slide.insert_text((12, 40 + 14 * k), f"A point about {current.lower()} {k}.")
    doc.set_toc([[1, title, 2 * n - 1] for n, title in enumerate(sections, 1)])
    doc.save(tmp_path / "deck.pdf")
    ir = parse_document(tmp_path / "deck.pdf").document
    assert [e.text for e in _of(ir, "heading")] == ["# 1 Intro", "# 2 Basics", "# 3 Tools"]


def test_the_outline_title_is_the_heading_its_bookmark_points_at(tmp_path: Path) -> None:
    """Erlang's FOP manuals list their tools ("cover", "cprof", ...) at the top of the page
    whose foot opens the section "1.1 cover"; the bookmark points at the section, but the
    list line matched the title exactly and became the heading, the section a paragraph."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Tools User's Guide", fontsize=18)
    y = 110.0
    for tool in ["cover", "cprof", "eprof", "fprof"]:
        page.insert_text((72, y), tool, fontsize=10)
        page.insert_text((90, y + 12), f"A tool of the kit, named {tool}.", fontsize=10)
        y += 30
    page.insert_text((72, 500), "1.1  cover", fontsize=15)
    for k in range(6):
        page.insert_text((72, 530 + 14 * k), f"The module cover counts lines, part {k}.")
    point = {"kind": pymupdf.LINK_GOTO, "page": 0, "to": pymupdf.Point(72, 488)}
    doc.set_toc([[1, "Tools User's Guide", 1], [2, "cover", 1, point]])
    doc.save(tmp_path / "tools.pdf")
    ir = parse_document(tmp_path / "tools.pdf").document
    assert [e.text for e in _of(ir, "heading")] == ["# Tools User's Guide", "## 1.1 cover"]
    assert "cover" in [e.text for e in _of(ir, "paragraph")]


def _goto(title: str, page: int, y: float, *, level: int = 1, x: float = 72) -> list[object]:
    """An outline entry for `set_toc` pointing at (x, y) on `page`."""
    return [
        level,
        title,
        page,
        {"kind": pymupdf.LINK_GOTO, "page": page - 1, "to": pymupdf.Point(x, y)},
    ]


def test_a_numbered_title_at_the_target_beats_an_exact_line_further_down(tmp_path: Path) -> None:
    """latex2e-fr's chapter "13 Compteurs" sits at its bookmark's target point; further down
    the wrapped title of section 13.1 ends on a line "compteurs", which matched the entry
    "Compteurs" exactly and became the chapter's heading (the chapter title a paragraph,
    the section title cut in two). apa6's "3.3 Maketitle" lost so to the command
    "\\maketitle" set just under it. At the target point the title under its number wins;
    a line that only ends with the title does not: a running header over a thesis chapter
    (CQU-Example), an index line "hbox commands:" beside the letter "S" (GS1)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 96), "13 Compteurs", fontsize=17, fontname="hebo")
    for k in range(4):
        page.insert_text((72, 130 + 14 * k), f"Tout ce que LaTeX numérote, ligne {k}.")
    page.insert_text(
        (72, 230), "13.1 \\alph \\Alph \\arabic: Taper des", fontsize=14, fontname="hebo"
    )
    page.insert_text((72, 256), "compteurs", fontsize=14, fontname="hebo")
    for k in range(4):
        page.insert_text((72, 280 + 14 * k), f"Toutes ces commandes, ligne {k}.")
    page.insert_text((72, 360), "13.2 Maketitle", fontsize=14, fontname="hebo")
    page.insert_text((72, 380), "\\maketitle", fontsize=10, fontname="cour")
    for k in range(4):
        page.insert_text((72, 400 + 14 * k), f"The command formats the title, line {k}.")
    page = doc.new_page()
    page.insert_text((72, 40), "Thesis 2024 14 Conclusion", fontsize=9)
    page.insert_text((72, 90), "14 Conclusion", fontsize=17, fontname="hebo")
    for k in range(4):
        page.insert_text((72, 120 + 14 * k), f"What the thesis found, line {k}.")
    page.insert_text((72, 300), "hbox commands:", fontsize=10)
    page.insert_text((320, 350), "S", fontsize=14, fontname="hebo")
    for k in range(4):
        page.insert_text((320, 370 + 14 * k), f"\\setup{k} . . . . . {k + 3}")
    doc.set_toc(
        [
            _goto("Compteurs", 1, 80),
            _goto("\\alph \\Alph \\arabic: Taper des compteurs", 1, 216, level=2),
            _goto("Maketitle", 1, 346, level=2),
            _goto("14 Conclusion", 2, 34),
            _goto("S", 2, 290, level=2),
        ]
    )
    doc.save(tmp_path / "fr.pdf")
    ir = parse_document(tmp_path / "fr.pdf").document
    assert [e.text for e in _of(ir, "heading")] == [
        "# 13 Compteurs",
        "## 13.1 \\alph \\Alph \\arabic: Taper des compteurs",
        "## 13.2 Maketitle",
        "# 14 Conclusion",
        "## S",
    ]


def test_a_chapter_and_its_section_of_one_title_each_keep_their_own(tmp_path: Path) -> None:
    """HSAUR's chapters are bookmarked "Analysis of Variance" over the chapter's longer
    title, and so is its section "5.2 Analysis of Variance" further down the page: the
    section's exact match took the chapter's bookmark (a level-1 heading under "5.1
    Introduction", the chapter title a paragraph). A line at another entry's target, away
    from this one's, belongs to that entry."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text(
        (72, 100),
        "Analysis of Variance: Weight Gain and Egyptian Skulls",
        fontsize=17,
        fontname="hebo",
    )
    y = 140
    for title in ["5.1 Introduction", "5.2 Analysis of Variance", "5.3 Analysis Using R"]:
        page.insert_text((72, y), title, fontsize=12, fontname="hebo")
        for k in range(3):
            page.insert_text((72, y + 20 + 14 * k), f"What the section says, line {k}.")
        y += 90
    doc.set_toc(
        [
            _goto("Analysis of Variance", 1, 84),
            _goto("Introduction", 1, 126, level=2),
            _goto("Analysis of Variance", 1, 216, level=2),
            _goto("Analysis Using R", 1, 306, level=2),
        ]
    )
    doc.save(tmp_path / "hsaur.pdf")
    ir = parse_document(tmp_path / "hsaur.pdf").document
    assert [e.text for e in _of(ir, "heading")] == [
        "# Analysis of Variance: Weight Gain and Egyptian Skulls",
        "## 5.1 Introduction",
        "## 5.2 Analysis of Variance",
        "## 5.3 Analysis Using R",
    ]


def test_a_bookmarked_title_takes_back_its_last_line_set_apart(tmp_path: Path) -> None:
    """HSAUR's chapter titles run three lines, the last centred under the others, and the
    page's grouping split it off: "Egyptian Skulls" opened the chapter's text as a
    paragraph under the heading. A line in the title's style centred under it (under a
    one-line title too: "Principal Component Analysis: The" over "Olympic Heptathlon"),
    going on in lower case or after an unfinished line (a comma) is the title's; one
    under a title closed by a period, or starting anew at the left edge of a finished
    one-line title (a section's title), is not."""

    def centred(line: str, under: str) -> float:
        width = pymupdf.get_text_length(line, fontname="hebo", fontsize=17)
        return 72 + (pymupdf.get_text_length(under, fontname="hebo", fontsize=17) - width) / 2

    pages = [  # the title's lines, the lines the grouping splits off, all centred or not
        (["Analysis of Variance: Weight Gain, Foster", "Feeding in Rats and Mice"], ["Skulls"], 1),
        (["Notes on the data."], ["Sources"], 1),
        (["Placing the picture"], ["12.1 In the text"], 0),
        (["anpassen von classicthesis"], ["mit dem arsclassica-paket"], 0),
        (
            ["Conditional Inference: Guessing Lengths,"],
            ["Suicides, Gastric Damage, and", "Infants"],
            1,
        ),
        (["Principal Component Analysis: The"], ["Olympic Heptathlon"], 1),
    ]
    doc = pymupdf.open()
    toc = []
    for n, (title, rest, centre) in enumerate(pages, start=1):
        page = doc.new_page()
        page.insert_text((270, 100), "CHAPTER 5", fontsize=10)  # the bookmark's target
        for k, line in enumerate(title + rest):
            x = centred(line, title[0]) if centre else 72
            page.insert_text((x, 150 + 21 * k), line, fontsize=17, fontname="hebo")
        for k in range(4):
            page.insert_text((72, 250 + 14 * k), f"What the chapter says, line {k}.")
        toc.append(_goto(title[0].split(":")[0].rstrip("."), n, 84))
    doc.set_toc(toc)
    doc.save(tmp_path / "wrapped.pdf")
    ir = parse_document(tmp_path / "wrapped.pdf").document
    assert [e.text for e in _of(ir, "heading")] == [
        "# Analysis of Variance: Weight Gain, Foster Feeding in Rats and Mice Skulls",
        "# Notes on the data.",
        "# Placing the picture",
        "# anpassen von classicthesis mit dem arsclassica-paket",
        "# Conditional Inference: Guessing Lengths, Suicides, Gastric Damage, and Infants",
        "# Principal Component Analysis: The Olympic Heptathlon",
    ]
    assert {"Sources", "12.1 In the text"} <= {e.text for e in _of(ir, "paragraph")}


def test_an_unfinished_title_line_goes_on_into_the_line_under_it() -> None:
    """HSAUR's "Conditional Inference: Guessing Lengths," over "Suicides, Gastrointestinal
    Damage, and" (a block of its own, centred under a one-line title) ended the chapter's
    title at its comma. An unfinished line (comma, colon, dash) goes on into a line of its
    style under it; so does a centred one, even two in a block ("Analyzing Longitudinal
    Data II –" over "Generalized Estimation Equations and" / "Linear Mixed Effect Models:
    Treating"), up to five lines in all; a finished one-line title does not go on into a
    line at its own left edge (a section's title in its style)."""

    def block(lines: list[str], x0: float, top: float) -> PdfBlock:
        return PdfBlock(
            kind="text",
            bbox=(x0, top, 600 - x0, top + 16 * len(lines)),
            lines=lines,
            size=17.0,
            bold=True,
        )

    title = block(["Conditional Inference: Guessing Lengths,"], 155, 190)
    under = block(["Suicides, Gastrointestinal Damage, and"], 163, 209)
    assert _wraps_onto(title, under, body=10.0)
    assert _wraps_onto(block(["Conditional Inference"], 155, 190), under, body=10.0)
    column = block(["Suicides, Gastrointestinal Damage, and"], 155, 209)
    assert not _wraps_onto(block(["Conditional Inference"], 155, 190), column, body=10.0)
    assert not _wraps_onto(title, under, body=16.0)  # not set large: no title
    two = block(["Generalized Estimation Equations and", "Linear Mixed Effect Models:"], 166, 209)
    assert _wraps_onto(block(["Analyzing Longitudinal Data II –"], 185, 190), two, body=10.0)
    four = block(["Analyzing Longitudinal", "Data II –", "Generalized", "Estimation"], 185, 190)
    assert not _wraps_onto(four, two, body=10.0)  # six lines: no title
    # split from one block by the bookmark, they share its box: oxyear's "9.5 Database"
    # and its margin reference; a paragraph going on in lower case (tikz-among-us)
    section = block(["9.5 Database"], 85, 303)
    margin = section.model_copy(update={"lines": ["NHR §18.8.5†"], "line_x0": [450.0]})
    assert not _wraps_onto(section.model_copy(update={"line_x0": [85.0]}), margin, body=10.0)
    # split from one block, the lines' middles tell ("Analyzing Longitudinal Data II –"
    # over "Generalized Estimation Equations and" / "Linear Mixed Effect Models: Treating")
    head = block(["Analyzing Longitudinal Data II –"], 150, 190)
    head = head.model_copy(update={"line_x0": [185.0], "line_mid": [311.5]})
    lines = ["Generalized Estimation Equations and", "Linear Mixed Effect Models: Treating"]
    rest = head.model_copy(update={"lines": lines, "line_x0": [166, 168], "line_mid": [311, 311]})
    assert _wraps_onto(head, rest, body=10.0)
    text = block(["emotions.", "Style II are looking back to you"], 49, 330)
    assert not _wraps_onto(block(["3.9 Don’t forget Style II"], 49, 300), text, body=10.0)


def test_a_title_that_opens_a_page_after_its_bookmark_is_its_heading(tmp_path: Path) -> None:
    """A bookmark added before the page break that starts its chapter points at the end of
    the page before: maximabook's "Index" and "Bibliography" both point at p. 131 and open
    pp. 132 and 133 (the index fills the page between). The title opening one of the next
    two pages is the heading; a mention lower on a page, or three pages on, is not."""
    doc = pymupdf.open()
    pages = [
        ("7 Installing", "Run make and then make install, step {k}."),
        ("Index", "Compiling, {k}"),
        ("Bibliography", "[Ab{k}] A. Author. A Book, volume {k}."),
        ("Notes on terms", "Glossary"),
        ("Colophon", "Set in Times, line {k}."),
    ]
    for title, line in pages:
        page = doc.new_page()
        page.insert_text((72, 90), title, fontsize=17, fontname="hebo")
        for k in range(6):
            page.insert_text((72, 130 + 14 * k), line.format(k=k + 3))
    doc.set_toc(
        [
            _goto("Installing", 1, 80),
            _goto("Index", 1, 700),
            _goto("Bibliography", 1, 700),
            _goto("Glossary", 3, 700),
            _goto("Colophon", 1, 700),
        ]
    )
    doc.save(tmp_path / "book.pdf")
    ir = parse_document(tmp_path / "book.pdf").document
    assert [(e.text, e.page_first) for e in _of(ir, "heading")] == [
        ("# 7 Installing", 1),
        ("# Index", 2),
        ("# Bibliography", 3),
    ]


def test_a_bookmark_whose_title_stands_in_its_page_text_takes_no_other_line(
    tmp_path: Path,
) -> None:
    """Woven WEB and CWEB programs (TeX's, BibTeX's) bookmark every named module, and the
    name stands inside the code on that page ("... <Add up the char widths in this string
    401> ..."). The title is there, not garbled, so the bold line under the bookmark's
    target ("end;", a Pascal keyword) is no heading: bibtex.pdf had 118 such headings of 223.
    A title the page does not hold (garbled text) still takes the styled line there."""
    doc = pymupdf.open()
    for k in range(2):
        page = doc.new_page()
        page.insert_text((72, 90), ["end;", "begin"][k], fontsize=11, fontname="hebo")
        for j in range(8):
            words = "Add up the char widths in this string" if (k, j) == (0, 5) else "and so on"
            page.insert_text((72, 130 + 14 * j), f"if p > 0 then q := q + {j}; {{ {words} }}")
    doc.set_toc(
        [_goto("Add up the char widths in this string", 1, 78), _goto("Xqzv wkrp jjd", 2, 78)]
    )
    doc.save(tmp_path / "woven.pdf")
    ir = parse_document(tmp_path / "woven.pdf").document
    assert [(e.text, e.page_first, e.origin) for e in _of(ir, "heading")] == [
        ("# begin", 2, "outline-position")
    ]


def test_a_bookmark_to_a_page_without_its_title_takes_no_styled_line_below_other_text(
    tmp_path: Path,
) -> None:
    """tex-changes.pdf, a change file of tex.web, bookmarks each part ("[10] Data
    structures for boxes and their friends") at the top of a page that holds only changed
    sections of it: the title is not there, and the first bold line under the target,
    below lines of text, was a Pascal keyword ("end;") made the part's heading (24 such
    in the document). A styled line right at the target still heads it (garbled text)."""
    doc = pymupdf.open()
    for k in range(2):
        page = doc.new_page()
        if k == 0:
            page.insert_text((72, 90), "1415*. The changed section reads on here.", fontsize=11)
        page.insert_text((72, 110), ["end;", "Qzx wvk"][k], fontsize=11, fontname="hebo")
        for j in range(8):
            page.insert_text((72, 130 + 14 * j), f"if p > 0 then q := q + {j};", fontsize=11)
    doc.set_toc([_goto("[10] Data structures for boxes", 1, 78), _goto("Garbled title", 2, 98)])
    doc.save(tmp_path / "changes.pdf")
    ir = parse_document(tmp_path / "changes.pdf").document
    assert [(e.text, e.page_first) for e in _of(ir, "heading")] == [("# Qzx wvk", 2)]


def test_a_bookmark_whose_title_stands_only_in_a_sidebar_takes_the_frame_title(
    tmp_path: Path,
) -> None:
    """A beamer deck with a sidebar: the bookmark "Example Frames" points at the top of a
    frame titled "Frame with a subtitle", and the sidebar lists the sections' titles, each
    a line of its own. That is navigation, not the title said in the page's text: the
    frame's title opens the section (DEMO-BFHBeamer-Sidebar had no heading for it)."""
    doc = pymupdf.open()
    for title in ["Frame with a subtitle", "Another frame"]:
        page = doc.new_page(width=454, height=255)
        page.insert_text((20, 22), title, fontsize=14.5, fontname="hebo")
        page.insert_text((20, 120), "Example content of the frame.", fontsize=11)
        for k, line in enumerate(["Beamer using BFH CI", "Example Frames", "Section pages"]):
            page.insert_text((400, 60 + 10 * k), line, fontsize=6)
    doc.set_toc([_goto("Example Frames", 1, 0, x=14), _goto("Section pages", 2, 0, x=14)])
    doc.save(tmp_path / "deck.pdf")
    ir = parse_document(tmp_path / "deck.pdf").document
    assert [(e.text, e.page_first) for e in _of(ir, "heading")] == [
        ("# Frame with a subtitle", 1),
        ("# Another frame", 2),
    ]


def test_a_page_whose_lines_end_in_one_number_is_no_contents_page(tmp_path: Path) -> None:
    """pst-barcode's reference: a page of "2 of 5" variants, each heading and most list
    lines ending in 5, read as a contents page whose entries all name page 5, and its
    headings as entries: the bookmarks took "Data and Options" instead."""
    doc = pymupdf.open()
    for _ in range(5):
        doc.new_page().insert_text((72, 90), "Some text.", fontsize=10)
    page = doc.new_page()
    variants = ["Matrix", "Datalogic", "COOP"]
    y, toc = 80.0, []
    for k, name in enumerate(variants, 11):
        page.insert_text((72, y), f"5.9.{k} {name} 2 of 5", fontsize=11, fontname="hebo")
        toc.append(_goto(f"{name} 2 of 5", 6, y - 14))
        y += 16
        for other in ["Industrial", "IATA", *[v for v in variants if v != name]]:
            page.insert_text((90, y), f"- {other} 2 of 5.", fontsize=11)
            y += 14
        page.insert_text((72, y), "Data and Options", fontsize=11, fontname="hebo")
        y += 30
    doc.set_toc(toc)
    doc.save(tmp_path / "barcodes.pdf")
    ir = parse_document(tmp_path / "barcodes.pdf").document
    assert [e.text for e in _of(ir, "heading")] == [
        "# 5.9.11 Matrix 2 of 5",
        "# 5.9.12 Datalogic 2 of 5",
        "# 5.9.13 COOP 2 of 5",
    ]


def test_a_run_in_title_behind_its_section_number_is_the_bookmarks_heading(
    tmp_path: Path,
) -> None:
    """Woven WEB and CWEB programs open each starred section with a run-in title behind
    its number ("44. Doing it. TeX checks ..."), and the bookmark says "Doing it": the
    title and its number become the heading, split off the paragraph (tftopl.pdf had none
    of its nine chapters); so does a change file's starred section under its part's
    bookmark ("256*. The hash table." for "[18] The hash table"). A named module's bookmark
    where the line goes on past its name without a period ("45. <Compute the base addresses
    46> =") takes no heading there."""
    doc = pymupdf.open()
    for first in [
        "44. Doing it. TeX checks the information of a font file for validity.",
        "45. <Compute the base addresses 46> = for k := 0 to nl do begin",
        "256*. The hash table. Control sequences are stored and retrieved by means of",
    ]:
        page = doc.new_page()
        page.insert_text((72, 90), first, fontsize=10)
        for j in range(8):
            page.insert_text((72, 104 + 12 * j), f"and the checks go on, line {j} of them.")
    titles = ["Doing it", "Compute the base addresses", "[18] The hash table"]
    doc.set_toc([_goto(title, page, 70) for page, title in enumerate(titles, 1)])
    doc.save(tmp_path / "woven.pdf")
    ir = parse_document(tmp_path / "woven.pdf").document
    assert [(e.text, e.page_first, e.origin) for e in _of(ir, "heading")] == [
        ("# 44. Doing it.", 1, "outline"),
        ("# 256*. The hash table.", 3, "outline"),
    ]
    assert _of(ir, "paragraph")[0].text.startswith("TeX checks the information")


def test_a_chapter_label_above_its_title_opens_the_chapter(tmp_path: Path) -> None:
    """ "Chapter 1" on a line of its own above the title (LaTeX's book and report classes,
    and their "Capítulo", "Rozdział", "제1 장"...) was a paragraph of its own and so closed
    the session before; it now heads its chapter. A body-size number is no label."""
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 300), "A Small Book", fontsize=30, fontname="hebo")
    for n, title in [(1, "Introduction"), (2, "Methods")]:
        page = doc.new_page()
        page.insert_text((72, 100), f"Chapter {n}", fontsize=20, fontname="hebo")
        page.insert_text((72, 140), title, fontsize=24, fontname="hebo")
        y = 190.0
        for k in range(12):
            page.insert_text((72, y), f"Line {k} of the {title.lower()} text.", fontsize=10)
            y += 14
        page.insert_text((72, y + 10), "3", fontsize=10)  # a number in the text, no label
        page.insert_text((72, y + 30), f"{n}.1 Details", fontsize=14, fontname="hebo")
        page = doc.new_page()  # a page of text between chapters: their tops differ
        for k in range(20):
            page.insert_text((72, 80 + 14 * k), f"More of chapter {n}, line {k}.", fontsize=10)
    doc.set_toc([[1, "Introduction", 2], [2, "1.1 Details", 2], [1, "Methods", 4],
                 [2, "2.1 Details", 4]])  # fmt: skip
    doc.save(tmp_path / "book.pdf")
    ir = parse_document(tmp_path / "book.pdf").document
    assert [e.text for e in _of(ir, "heading")] == [
        "# Chapter 1 Introduction",
        "## 1.1 Details",
        "# Chapter 2 Methods",
        "## 2.1 Details",
    ]
    assert "3" in [e.text for e in _of(ir, "paragraph")]


def test_a_korean_part_label_in_roman_numerals_opens_its_part(tmp_path: Path) -> None:
    """ko.TeX's part pages set "제 II 편" above the part's title: a label like "제1 장",
    its number in roman numerals (kotex-utf-doc's second part had no heading)."""
    doc = pymupdf.open()
    for n, title in [("I", "사용설명서"), ("II", "그밖의 것들")]:
        page = doc.new_page()
        page.insert_text((200, 280), f"제 {n} 편", fontsize=17, fontname="korea")
        page.insert_text((200, 330), title, fontsize=20, fontname="korea")
        page = doc.new_page()
        for k in range(20):
            page.insert_text((72, 80 + 14 * k), f"Text of part {n}, line {k}.", fontsize=10)
    doc.set_toc([[1, "사용설명서", 1], [1, "그밖의 것들", 3]])
    doc.save(tmp_path / "parts.pdf")
    ir = parse_document(tmp_path / "parts.pdf").document
    assert [(e.text, e.page_first) for e in _of(ir, "heading")] == [
        ("# 제 I 편 사용설명서", 1),
        ("# 제 II 편 그밖의 것들", 3),
    ]


_PROSE = (
    "Kerberos keeps the keys of every principal in its database, and the tickets it "
    "grants let a user prove who she is to a service without sending a password. "
)


_FULL_PAGE = (72, 80, 520, 700)


def _chapter_text(doc: pymupdf.Document, page: pymupdf.Page, top: float) -> None:
    """Prose on `page` from `top` down, and a page of prose after it (the tops of the
    pages between chapters differ from the chapter's first: no running header)."""
    page.insert_textbox((72, top, 520, 700), _PROSE * 4, fontsize=10)
    doc.new_page().insert_textbox(_FULL_PAGE, _PROSE * 5, fontsize=10)


def test_a_chapter_label_in_a_size_of_its_own_opens_the_chapter_without_an_outline(
    tmp_path: Path,
) -> None:
    """Without an outline, headings come from the fonts, and haskell98-report's "Chapter 2",
    set smaller than its title "Lexical Structure", became a heading of its own one level
    down: the session it opened was titled "Introduction (continued); Lexical Structure".
    The label joins its title; a label set larger than the heading under it ("Appendix A"
    over "A.1 Tables") is a heading of its own."""
    doc = pymupdf.open()
    for label, title, size in [
        ("Part I", "The Language", 24),
        ("Chapter 1", "Introduction", 24),
        ("Chapter 2", "Lexical Structure", 24),
        ("Appendix A", "A.1 Tables", 14),
    ]:
        page = doc.new_page()
        page.insert_text((72, 100), label, fontsize=18, fontname="hebo")
        page.insert_text((72, 100 + size + 12), title, fontsize=size, fontname="hebo")
        _chapter_text(doc, page, 180)
    doc.save(tmp_path / "report.pdf")
    ir = parse_document(tmp_path / "report.pdf").document
    assert [e.text for e in _of(ir, "heading")] == [
        "# Part I The Language",
        "# Chapter 1 Introduction",
        "# Chapter 2 Lexical Structure",
        "## Appendix A",
        "### A.1 Tables",
    ]


def test_numbered_titles_set_large_are_headings_without_an_outline(tmp_path: Path) -> None:
    """PARI's tutorial (plain TeX, no outline) numbers its sections "1. Greetings!." in a
    large bold font: they started like list items and were read as text, so its sessions
    were titled by their first sentences. A numbered list in the body font stays a list."""
    doc = pymupdf.open()
    for title in ["1. Greetings!.", "2. Warming up."]:
        page = doc.new_page()
        page.insert_text((72, 100), title, fontsize=13, fontname="hebo")
        page.insert_textbox((72, 120, 520, 400), _PROSE * 2, fontsize=10)
        page.insert_text((90, 420), "1. Type a number.", fontsize=10)
        page.insert_text((90, 434), "2. Press return.", fontsize=10)
        doc.new_page().insert_textbox(_FULL_PAGE, _PROSE * 5, fontsize=10)
    doc.save(tmp_path / "tutorial.pdf")
    ir = parse_document(tmp_path / "tutorial.pdf").document
    assert [e.text for e in _of(ir, "heading")] == ["# 1. Greetings!.", "# 2. Warming up."]
    assert [e.text for e in _of(ir, "list")] == ["1. Type a number.\n2. Press return."] * 2


def test_titles_in_large_bold_typewriter_type_are_headings_without_an_outline(
    tmp_path: Path,
) -> None:
    """ConTeXt's primitives manual (no outline) titles each primitive's section in large
    bold typewriter type, "9 \\tokspre": read as one-line listings, the manual had four
    headings for 110 sections. Its listings, at the body's size, bold or not, stay code."""
    doc = pymupdf.open()
    for title in ["9 \\tokspre", "10 \\etokspre"]:
        page = doc.new_page()
        page.insert_text((72, 100), title, fontsize=14, fontname="cobo")
        page.insert_textbox((72, 120, 520, 400), _PROSE * 2, fontsize=10)
        page.insert_text(
            (90, 420), "\\tokspre\\scratchtoks{less stuff}", fontsize=10, fontname="cobo"
        )
        page.insert_text((90, 434), "\\def\\temp{more}", fontsize=10, fontname="cour")
        doc.new_page().insert_textbox(_FULL_PAGE, _PROSE * 5, fontsize=10)
    doc.save(tmp_path / "primitives.pdf")
    ir = parse_document(tmp_path / "primitives.pdf").document
    assert [e.text for e in _of(ir, "heading")] == ["# 9 \\tokspre", "# 10 \\etokspre"]
    assert all("\\tokspre\\scratchtoks" in e.text for e in _of(ir, "code")[:2])


def test_an_outline_of_front_and_back_matter_only_leaves_the_chapters_to_the_fonts(
    tmp_path: Path,
) -> None:
    """pldoc's bookmarks are "Contents", "Change History" and "Index" only: its sections,
    set large and bold, were read as text under them (the outline was "usable", so the
    fonts were never asked), and 24 of its 25 sessions were titled by their first
    sentences. The matter entries still head their pages."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "Contents", fontsize=16, fontname="hebo")
    page.insert_textbox((72, 130, 520, 700), _PROSE * 2, fontsize=10)
    for title in ["1 Fonts", "2 Layout"]:
        page = doc.new_page()
        page.insert_text((72, 100), title, fontsize=14, fontname="hebo")
        _chapter_text(doc, page, 130)
    page = doc.new_page()
    page.insert_text((72, 100), "Index", fontsize=16, fontname="hebo")
    page.insert_textbox((72, 130, 520, 700), "fonts, 2\nlayout, 4", fontsize=10)
    doc.set_toc([[1, "Contents", 1], [1, "Index", 6]])
    doc.save(tmp_path / "dtx.pdf")
    ir = parse_document(tmp_path / "dtx.pdf").document
    assert [(e.text, e.page_first) for e in _of(ir, "heading")] == [
        ("# Contents", 1),
        ("## 1 Fonts", 2),
        ("## 2 Layout", 4),
        ("# Index", 6),
    ]


def test_a_large_title_in_two_lines_is_one_heading_without_an_outline(tmp_path: Path) -> None:
    """TeX for the Impatient sets "Commands" over "for composing paragraphs" in 26-point
    type, and the page's grouping split the lines: two headings, the session titled
    "Commands; for composing paragraphs", the next "for composing paragraphs (continued)"."""
    doc = pymupdf.open()
    for first, second in [("Commands", "for composing paragraphs"), ("Making sense", "of errors")]:
        page = doc.new_page()
        page.insert_text((60, 160), "5", fontsize=36, fontname="hebo")  # its number beside it
        page.insert_text((100, 160), first, fontsize=26)
        page.insert_text((100, 192), second, fontsize=26)
        _chapter_text(doc, page, 220)
    doc.save(tmp_path / "impatient.pdf")
    ir = parse_document(tmp_path / "impatient.pdf").document
    assert [e.text for e in _of(ir, "heading")] == [
        "# 5 Commands for composing paragraphs",
        "# 5 Making sense of errors",
    ]


def test_sphinx_chapter_label_in_two_lines_opens_the_chapter(tmp_path: Path) -> None:
    """Sphinx's PDFs set "CHAPTER" over the number in words ("THREE") above the title, as
    two lines: they were two paragraphs that closed the session before (and were glued to
    a list running on from the page before)."""
    doc = pymupdf.open()
    chapters = [("ONE", "INSTALLATION"), ("TWO", "USAGE"), ("TWENTY-TWO", "REALMS")]
    toc = []
    for word, title in chapters:
        page = doc.new_page()
        toc.append([1, title, page.number + 1])
        page.insert_text((480, 100), "CHAPTER", fontsize=10, fontname="hebo")
        page.insert_text((450, 125), word, fontsize=14, fontname="hebo")
        page.insert_text((280, 180), title, fontsize=14, fontname="hebo")
        page.insert_textbox((72, 210, 520, 700), _PROSE * 3, fontsize=10)
        for _ in range(3):  # pages of text between chapters: their tops differ
            doc.new_page().insert_textbox((72, 80, 520, 700), _PROSE * 5, fontsize=10)
    doc.set_toc(toc)
    doc.save(tmp_path / "sphinx.pdf")
    ir = parse_document(tmp_path / "sphinx.pdf").document
    assert [e.text for e in _of(ir, "heading")] == [
        "# CHAPTER ONE INSTALLATION",
        "# CHAPTER TWO USAGE",
        "# CHAPTER TWENTY-TWO REALMS",
    ]
    assert not any(e.text in ("CHAPTER", "ONE", "TWO") for e in ir.elements)


def test_sections_under_a_bookmark_longer_than_a_session_are_headings(tmp_path: Path) -> None:
    """apprendre-a-programmer-en-tex bookmarks its chapters only, and "Dimensions et
    boites" runs 62 pages: its sections ("8.2. Les dimensions étirables"), set larger than
    the body, were text, and four sessions in a row were titled "Dimensions et boites
    (suite)". Under a bookmark that runs longer than a session, titles set between the body
    and the bookmarked titles are headings one level down; under a short one they stay text,
    and so does a style seen on one page only."""
    words = (_PROSE * 8).split()
    doc = pymupdf.open()
    sections = {1: "1.1 Keys", 6: "1.2 Tickets", 11: "1.3 Services", 18: "2.1 Hosts"}
    for n in range(1, 20):
        page = doc.new_page()
        top = 80
        if n in (1, 17):
            page.insert_text(
                (72, top + 20), "Kerberos" if n == 1 else "Realms", fontsize=20, fontname="hebo"
            )
            top += 40
        if n in sections:
            page.insert_text((72, top + 14), sections[n], fontsize=14, fontname="hebo")
            top += 30
        if n == 8:  # a one-off: a word set large once
            page.insert_text((72, top + 16), "Warning", fontsize=16, fontname="hebo")
            top += 30
        text = " ".join(words[3 * n :])  # every page's first line its own: no running header
        page.insert_textbox((72, top, 520, 700), text, fontsize=10)
    doc.set_toc([[1, "Kerberos", 1], [1, "Realms", 17]])
    doc.save(tmp_path / "guide.pdf")
    ir = parse_document(tmp_path / "guide.pdf").document
    assert [(e.text, e.page_first) for e in _of(ir, "heading")] == [
        ("# Kerberos", 1),
        ("## 1.1 Keys", 1),
        ("## 1.2 Tickets", 6),
        ("## 1.3 Services", 11),
        ("# Realms", 17),
    ]
    assert "2.1 Hosts" in _body(ir) and "Warning" in _body(ir)


def test_numbered_sections_under_a_long_bookmark_are_headings(tmp_path: Path) -> None:
    """PARI's reference manual bookmarks two levels and sets each function as a paragraph
    that opens with its section number ("3.8.31 factorback(f, {e}). Gives back ..."): its
    65 pages of "Arithmetic functions" held no heading, and five sessions in a row were
    titled "Arithmetic functions (continued)". Under a numbered bookmark longer than a
    session, the paragraphs that open with its number one level down, in increasing
    order, are sections; the run-in title is split off its text. A number out of order, or
    under a short bookmark, stays text."""
    words = (_PROSE * 8).split()
    doc = pymupdf.open()
    for n in range(1, 21):
        page = doc.new_page()
        top = 80
        if n in (1, 17):
            title = "3.8 Arithmetic functions" if n == 1 else "3.9 Polynomials"
            page.insert_text((72, top + 20), title, fontsize=16, fontname="hebo")
            top += 40
        text = " ".join(words[3 * n :])
        if n <= 16:
            opening = f"3.8.{n} gcd{n}(x, y). " if n != 12 else "3.8.1 of this manual says "
        else:
            opening = f"3.9.{n - 16} polcoeff{n}(x, n). "
        page.insert_textbox((72, top, 520, 700), opening + text, fontsize=10)
    doc.set_toc([[1, "3.8 Arithmetic functions", 1], [1, "3.9 Polynomials", 17]])
    doc.save(tmp_path / "pari.pdf")
    ir = parse_document(tmp_path / "pari.pdf").document
    headings = [(e.text, e.page_first) for e in _of(ir, "heading")]
    functions = [(f"## 3.8.{n} gcd{n}(x, y).", n) for n in range(1, 17) if n != 12]
    assert headings == [
        ("# 3.8 Arithmetic functions", 1),
        *functions,
        ("# 3.9 Polynomials", 17),
    ]
    after = ir.elements[[e.text for e in ir.elements].index("## 3.8.2 gcd2(x, y).") + 1]
    assert after.type == "paragraph" and after.text.startswith(words[6])
    assert "3.8.1 of this manual says" in _body(ir) and "3.9.1 polcoeff17(x, n)." in _body(ir)


def test_a_paragraph_opening_with_a_bold_run_in_title_stays_whole(tmp_path: Path) -> None:
    """PARI's manual opens paragraphs with a bold run-in title, most of their first line
    ("Multivariate polynomials and rational functions. PARI recursively factors poly-"):
    the bold line was a paragraph of its own, and its broken word stayed in two pieces."""
    doc = pymupdf.open()
    page = doc.new_page()
    head = "Multivariate polynomials and rational functions."
    tail = " PARI factors multivariate poly-"
    y = 100.0
    page.insert_text((72, y), head, fontsize=10, fontname="hebo")
    x = 72 + pymupdf.get_text_length(head, fontname="hebo", fontsize=10)
    page.insert_text((x, y), tail, fontsize=10, fontname="helv")
    rest = [
        "nomials over the same fields as above, and the argument is used in the same",
        "way to choose the field. The irreducible factors are sorted by their main",
        "variable first and then by increasing degree, as the examples below show.",
    ]
    for line in rest:
        y += 12
        page.insert_text((72, y), line, fontsize=10, fontname="helv")
    doc.save(tmp_path / "runin.pdf")
    paragraphs = _of(parse_document(tmp_path / "runin.pdf").document, "paragraph")
    assert len(paragraphs) == 1
    assert "PARI factors multivariate polynomials over the same fields" in paragraphs[0].text


def test_a_word_broken_before_a_smaller_line_stays_whole(tmp_path: Path) -> None:
    """bash's manual page sets names of signals a point smaller: "upon re-" / "ceipt of a
    SIGWINCH." was mostly 9 pt under a 10 pt line, and became two paragraphs, "re-" and
    "ceipt" apart."""
    doc = pymupdf.open()
    page = doc.new_page()
    lines = [
        "Used by the select compound command to determine the terminal width when",
        "printing lists, and set by the shell in an interactive session upon re-",
    ]
    y = 100.0
    for line in lines:
        page.insert_text((72, y), line, fontsize=10, fontname="tiro")
        y += 12
    page.insert_text((72, y), "ceipt of", fontsize=10, fontname="tiro")
    x = 72 + pymupdf.get_text_length("ceipt of", fontname="tiro", fontsize=10)
    page.insert_text((x, y), " SIGWINCH.", fontsize=9, fontname="tibo")
    page.insert_text((72, y + 30), "The next paragraph names the receipt again.", fontsize=10)
    doc.save(tmp_path / "man.pdf")
    paragraphs = _of(parse_document(tmp_path / "man.pdf").document, "paragraph")
    assert len(paragraphs) == 2
    assert paragraphs[0].text.endswith("in an interactive session upon receipt of SIGWINCH.")


def test_a_ragged_line_ending_short_of_the_edge_goes_on(tmp_path: Path) -> None:
    """TeX sets a ragged-right paragraph as a whole: oscola's "… is intended to implement
    more or less" ended 2 em short of the column's edge, though "the" would have fit, and
    the paragraph was cut there in two. Up to 2 em short, a line that goes on into a
    lowercase word is no paragraph's last line."""
    doc = pymupdf.open()
    page = doc.new_page()
    box = (72, 72, 520, 200)
    page.insert_textbox(
        box, _PROSE * 3, fontsize=11, fontname="tiro", align=_const("TEXT_ALIGN_JUSTIFY")
    )
    words = ("The style is to be set in a way so as to do it as it is in the book " * 4).split()
    line = ""
    for w in words:  # the longest run of short words that ends over a word's room short
        if 72 + pymupdf.get_text_length(f"{line} {w}".strip(), "tiro", 11) > box[2] - 12:
            break
        line = f"{line} {w}".strip()
    room = box[2] - 72 - pymupdf.get_text_length(line, "tiro", 11)
    assert 12 < room < 22  # "a" would fit: under the 2 em of an 11-pt ragged line
    page.insert_text((72, 230), line, fontsize=11, fontname="tiro")
    page.insert_text(
        (72, 243.5), "a matter of style, as the standard says.", fontsize=11, fontname="tiro"
    )
    page.insert_textbox(
        (72, 270, 520, 400),
        _PROSE * 3,
        fontsize=11,
        fontname="tiro",
        align=_const("TEXT_ALIGN_JUSTIFY"),
    )
    doc.save(tmp_path / "ragged.pdf")
    paragraphs = _of(parse_document(tmp_path / "ragged.pdf").document, "paragraph")
    assert [p.text[:10] for p in paragraphs] == ["Kerberos k", line[:10], "Kerberos k"]
    assert paragraphs[1].text == f"{line} a matter of style, as the standard says."


def test_a_hanging_entry_whose_next_word_did_not_fit_goes_on(tmp_path: Path) -> None:
    """TeX for the Impatient's command summary sets each command with a hanging indent:
    "*\\baselineskip ressort pour la distance verticale normale entre une" ends an em
    short of the edge, "ligne de base et la suivante" goes on indented, and was a paragraph
    of its own: the first line was read as a label over indented text."""
    doc = pymupdf.open()
    page = doc.new_page()
    justified = {"fontsize": 10, "fontname": "tiro", "align": _const("TEXT_ALIGN_JUSTIFY")}
    page.insert_textbox((72, 72, 520, 180), _PROSE * 3, **justified)
    page.insert_text((72, 220), "*\\baselineskip", fontsize=10, fontname="cour")
    x = 72 + pymupdf.get_text_length("*\\baselineskip", "cour", 10) + 8
    text = "ressort pour la distance verticale normale entre une ligne de base et la suivante"
    words = f"{text} dans un paragraphe ordinaire de texte".split()
    line = ""
    for w in words:  # as far as the words fit short of the edge by at least half an em
        if x + pymupdf.get_text_length(f"{line} {w}".strip(), "tiro", 10) > 520 - 5:
            break
        line = f"{line} {w}".strip()
    rest = " ".join(words[len(line.split()) :]) + ", par défaut 12 pt."
    assert 520 - x - pymupdf.get_text_length(line, "tiro", 10) < 20  # under the next word
    page.insert_text((x, 220), line, fontsize=10, fontname="tiro")
    page.insert_text((100, 232), rest, fontsize=10, fontname="tiro")
    page.insert_textbox((72, 260, 520, 400), _PROSE * 3, **justified)
    doc.save(tmp_path / "summary.pdf")
    paragraphs = _of(parse_document(tmp_path / "summary.pdf").document, "paragraph")
    assert len(paragraphs) == 3
    assert paragraphs[1].text.endswith(f"{line} {rest}")


def _set_flush(
    page: pymupdf.Page, y: float, runs: list[tuple[str, float]], left: float = 72
) -> None:
    """Words of `runs` ((text, size) each) on baseline `y`, spread flush from x `left` to
    520 as TeX justifies a line."""
    words = [(w, size) for text, size in runs for w in text.split()]
    widths = [pymupdf.get_text_length(w, "helv", size) for w, size in words]
    gap = (520 - left - sum(widths)) / (len(words) - 1)
    x = left
    for (w, size), width in zip(words, widths, strict=True):
        page.insert_text((x, y), w, fontsize=size, fontname="helv")
        x += width + gap


def test_a_full_line_goes_on_whatever_its_majority_size_or_its_item_marker(
    tmp_path: Path,
) -> None:
    """A full line that ends in a word goes on into a lower-case line below it: lilyglyphs'
    line of 8.5-pt glyph names in 11-pt text was its own paragraph ("… This is actually
    simpler" / "because we don't …"), and frenchb's dash items, whose lines run on under
    the dash, were cut after their first ("— Biblatex … sont" / "transcrits …")."""
    doc = pymupdf.open()
    page = doc.new_page()
    _justified(page, 80, [(_PROSE * 2)[:110].rsplit(" ", 1)[0]] * 3)  # the edge, at 520
    names = "lilyGlyph lilyPrintGlyph lilyGlyphByNumber lilyImage lilyScore lilyDynamics"
    _set_flush(page, 200, [("Use", 11.0), (names, 8.5), ("This is actually simpler", 11.0)])
    page.insert_text((72, 213), "because we do not set the design size.", fontsize=11)
    item = "— Biblatex takes the language options of Babel into account and sets the words"
    _set_flush(page, 300, [(f"{item} of its lists of", 10.0)], 90)
    page.insert_text((72, 312), "authors automatically, as the French rules ask.", fontsize=10)
    doc.save(tmp_path / "full.pdf")
    texts = [e.text for e in parse_document(tmp_path / "full.pdf").document.elements]
    assert any(
        t.endswith("This is actually simpler because we do not set the design size.") for t in texts
    ), texts
    assert any(
        t.endswith("lists of authors automatically, as the French rules ask.") for t in texts
    ), texts


def test_a_chapter_number_set_large_after_its_title_goes_before_it(tmp_path: Path) -> None:
    """ConTeXt's manuals set a chapter's number in 60 points after its 25-point title
    ("Children of TEX" and "1"): the heading read "Children of TEX 1" and every session of
    the chapter was "Children of TEX 1 (continued)". A number set at least twice as large
    as its line's words goes before them; a number in the words' size stays where it is."""
    doc = pymupdf.open()
    for n, (title, size) in enumerate([("Children of TeX", 60), ("Why use TeX? Part", 24)], 1):
        page = doc.new_page()
        page.insert_text((200, 90), title, fontsize=24, fontname="hebo")
        width = pymupdf.get_text_length(title, fontname="hebo", fontsize=24)
        page.insert_text((206 + width, 90), str(n), fontsize=size, fontname="hebo")
        page.insert_text((72, 150), f"{n}.1 The theme", fontsize=16, fontname="hebo")
        for k in range(6):
            page.insert_text((72, 180 + 14 * k), f"What the chapter says, line {k}.")
    doc.save(tmp_path / "musings.pdf")
    ir = parse_document(tmp_path / "musings.pdf").document
    texts = [e.text for e in ir.elements]
    assert "# 1 Children of TeX" in texts
    assert "# Why use TeX? Part 2" in texts


def test_a_functions_bookmark_makes_its_signature_a_heading(tmp_path: Path) -> None:
    """Erlang's reference manuals bookmark each function as "name/arity" ("abs/1",
    "cancel_timer/1") over its signature set as text ("abs(Float) -> float()",
    "erlang:cancel_timer(TimerRef) -> Result"), and each C function as "name()" over
    its declaration ("void *enif_alloc(size_t size)"): no bookmark matched a line, the
    functions were no headings and sessions began in the middle of a description. The
    signature at a function's bookmark's target is its heading; a line there that calls
    another function, or calls it in a sentence, is not."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "erlang", fontsize=16, fontname="hebo")
    lines = [
        "abs(Float) -> float()",
        "erlang:cancel_timer(TimerRef) -> Result",
        "void *enif_alloc(size_t size)",
        "apply(Fun, Args) -> term()",
        "Calls enif_free(ptr) to release it",
    ]
    toc = [_goto("erlang", 1, 46)]
    bookmarks = ["abs/1", "cancel_timer/1", "enif_alloc()", "atom/2", "enif_free()"]
    for k, (line, bookmark) in enumerate(zip(lines, bookmarks, strict=True)):
        y = 100 + 130 * k
        page.insert_text((72, y), line, fontsize=10, fontname="cour")
        page.insert_text((72, y + 20), "Types:")
        for j in range(4):
            page.insert_text((72, y + 40 + 14 * j), f"What the function does, line {j}.")
        toc.append(_goto(bookmark, 1, y - 10, level=2))
    doc.set_toc(toc)
    doc.save(tmp_path / "erts.pdf")
    ir = parse_document(tmp_path / "erts.pdf").document
    headings = [e.text for e in _of(ir, "heading")]
    assert headings[0] == "# erlang"
    assert [h.strip("#` ").replace("\\", "") for h in headings[1:]] == lines[:3]
