"""TeX bitmap (PK) Type 3 fonts read as text: their ligatures, quotes, dashes and T1's
letters above 127 come out of MuPDF as codes, not characters (`tex_encodings`)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
from pdf_samples import parse_document, parsed_text, save_with_contents

from quire.workers.parse.pdf_tex_fonts import decode_text, words_decoder
from quire.workers.parse.picture_fonts import DECODER as PICTURE
from quire.workers.parse.tex_encodings import T1, decoder, font_encoding

# widths (in 1/100 em) by code of a text font: f, i and l narrow, the rest 50
_LETTERS = {ord(c): 50 for c in "abcdeghjkmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
_LETTERS.update({ord("f"): 30, ord("i"): 28, ord("l"): 28})
T1_WIDTHS = {**_LETTERS, 27: 58, 28: 56, 29: 56, 30: 84, 16: 50, 17: 50, 21: 50, 9: 50}
OT1_WIDTHS = {**_LETTERS, 11: 58, 12: 56, 13: 56, 16: 28, 17: 31, 21: 50}
# a math italic font: Greek letters where T1 has its ligatures, as wide as they are
OML_WIDTHS = {**_LETTERS, 27: 57, 28: 44, 29: 54, 30: 60, 16: 44, 17: 50, 21: 58}


def tex_bitmap_pdf(path: Path, lines: list[str], widths: dict[int, int]) -> Path:
    """A one-page PDF set in a Type 3 font as pdfTeX writes bitmap fonts: every glyph named
    `/aNN`, so nothing but the widths tells what a code draws."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)
    codes = sorted(widths)
    procs = {}
    for code in codes:
        procs[code] = xref = doc.get_new_xref()
        doc.update_object(xref, "<<>>")
        w = widths[code]
        doc.update_stream(xref, f"{w} 0 0 0 {w} 70 d1 0 0 {w} 70 re f".encode())

    def new(obj: str) -> int:
        xref = doc.get_new_xref()
        doc.update_object(xref, obj)
        return xref

    names = " ".join(f"{c} /a{c}" for c in codes)
    encoding = new(f"<< /Type /Encoding /Differences [ {names} ] >>")
    charprocs = new("<< " + " ".join(f"/a{c} {x} 0 R" for c, x in procs.items()) + " >>")
    table = " ".join(str(widths.get(c, 0)) for c in range(codes[0], codes[-1] + 1))
    font = new(
        "<< /Type /Font /Subtype /Type3 /Name /F1 /FontMatrix [0.01 0 0 0.01 0 0]"
        f" /FontBBox [0 0 100 100] /Resources << >> /FirstChar {codes[0]}"
        f" /LastChar {codes[-1]} /Widths [ {table} ] /Encoding {encoding} 0 R"
        f" /CharProcs {charprocs} 0 R >>"
    )
    doc.xref_set_key(page.xref, "Resources", f"<< /Font << /F1 {font} 0 R >> >>")

    def literal(text: str) -> str:
        escaped = (f"\\{ord(c):03o}" if c in "()\\" or not 32 <= ord(c) < 127 else c for c in text)
        return "".join(escaped)

    ops = [f"BT /F1 10 Tf 40 {250 - 14 * i} Td ({literal(t)}) Tj ET" for i, t in enumerate(lines)]
    return save_with_contents(doc, page, ops, path)


def test_a_t1_bitmap_fonts_ligatures_quotes_dashes_and_accents_read_as_text(
    tmp_path: Path,
) -> None:
    pdf = tex_bitmap_pdf(
        tmp_path / "t1.pdf",
        ["the de\x1cnition of an e\x1bect", "\x10quoted\x11 \x15 the p\x09ali canon"],
        T1_WIDTHS,
    )
    assert pymupdf.open(pdf)[0].get_text().startswith("the de\x1cnition")  # MuPDF's codes
    assert parsed_text(pdf) == "the definition of an effect “quoted” – the pāli canon"


def test_an_ot1_bitmap_font_reads_its_own_ligature_codes(tmp_path: Path) -> None:
    pdf = tex_bitmap_pdf(tmp_path / "ot1.pdf", ["the de\x0cnition of an e\x0bect"], OT1_WIDTHS)
    assert parsed_text(pdf) == "the definition of an effect"


def test_a_math_fonts_greek_is_no_ligature() -> None:
    assert font_encoding(T1_WIDTHS) == "T1"
    assert font_encoding(OT1_WIDTHS) == "OT1"
    assert font_encoding(OML_WIDTHS) is None
    # no ligature drawn: T1's quotes and en dash, all of one width, still tell
    assert font_encoding({**_LETTERS, 16: 50, 17: 50}) == "T1"
    assert font_encoding({**_LETTERS, 16: 28, 17: 31}) is None  # OT1's dotless i and j


def test_t1_letters_above_127_only_for_a_latin_font() -> None:
    polish = {**T1_WIDTHS, 0xA1: 50, 0xAA: 28, 0xF3: 50}
    assert "\xa1\xaa\xf3".translate(decoder("T1", polish)) == "ąłó"
    cyrillic = {**T1_WIDTHS, **{c: 50 for c in range(0xC0, 0x100)}, 0xA1: 50}
    assert "\xa1\x1c".translate(decoder("T1", cyrillic)) == "\xa1fi"  # T2A shares the low half


def test_words_without_fonts_are_read_only_where_the_pages_fonts_agree() -> None:
    assert words_decoder({"F1": T1, "F2": T1})("de\x1cnition \xa1") == "definition \xa1"
    assert words_decoder({"F1": T1, "F2": decoder("OT1", OT1_WIDTHS)})("a\x1cb") == "a\x1cb"


def math_extension_pdf(
    path: Path, font: str, codes: str, to_unicode: dict[int, str] | None = None
) -> Path:
    """A line set in a Type 1 font named `font` whose glyph names are cmex10's, with no
    Unicode map (as TeX writes it: MuPDF can only give the codes) or with `to_unicode`
    (code -> text) for some of them, as pdfTeX's glyphtounicode writes one."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)
    names = "0 /parenleftbig /parenrightbig 56 /bracelefttp 80 /summationtext 88"
    names += " /summationdisplay 90 /integraldisplay 112 /radicalbig"
    cmap = ""
    if to_unicode:
        pairs = "".join(f"<{c:02X}> <{ord(t):04X}>\n" for c, t in to_unicode.items())
        stream = doc.get_new_xref()
        doc.update_object(stream, "<<>>")
        body = "begincmap\n1 begincodespacerange\n<00> <FF>\nendcodespacerange\n"
        body += f"{len(to_unicode)} beginbfchar\n{pairs}endbfchar\nendcmap\n"
        doc.update_stream(stream, body.encode())
        cmap = f" /ToUnicode {stream} 0 R"
    font_xref = doc.get_new_xref()
    doc.update_object(
        font_xref,
        f"<< /Type /Font /Subtype /Type1 /BaseFont /{font} /FirstChar 0 /LastChar 127"
        f" /Widths [{' 500' * 128}] /Encoding << /Differences [{names}] >>{cmap} >>",
    )
    doc.xref_set_key(page.xref, "Resources", f"<< /Font << /F1 {font_xref} 0 R >> >>")
    text = "".join(f"\\{ord(c):03o}" for c in codes)
    return save_with_contents(doc, page, [f"BT /F1 10 Tf 40 250 Td ({text}) Tj ET"], path)


def test_a_math_extension_fonts_operators_and_delimiters_read_as_symbols(
    tmp_path: Path,
) -> None:
    """cmex10's sums, integrals, roots and delimiters came out as "X", "Z", "p" and
    control characters; a brace's top piece as a private-use character."""
    codes = "\x00X\x01Z8Pp"
    pdf = math_extension_pdf(tmp_path / "cmex.pdf", "CMEX10", codes)
    assert pymupdf.open(pdf)[0].get_text().strip() == "\x00X\x01Z\uf8f1Pp"  # MuPDF's codes
    assert parsed_text(pdf) == "(∑)∫⎧∑√"
    clone = math_extension_pdf(tmp_path / "lm.pdf", "ABCDEF+LMMathExtension10-Regular", codes)
    assert parsed_text(clone) == "(∑)∫⎧∑√"
    other = math_extension_pdf(tmp_path / "other.pdf", "MyFont", "XZPp")
    assert parsed_text(other) == "XZPp"  # any other font keeps its letters


def test_a_math_extension_fonts_own_unicode_map_is_kept(tmp_path: Path) -> None:
    """pdfTeX's glyphtounicode maps some cmex10 glyphs ("(" for parenleftbig) and not
    others: the mapped characters stay, though "(" is also cmex10's code of a big brace,
    and the unmapped codes are read as symbols."""
    mapped = {0: "(", 1: ")", 0x7B: "{"}
    pdf = math_extension_pdf(tmp_path / "map.pdf", "CMEX10", "\x00X\x01", to_unicode=mapped)
    assert pymupdf.open(pdf)[0].get_text().strip() == "(X)"  # the map, then a code
    assert parsed_text(pdf) == "(∑)"


def test_a_picture_mode_fonts_strokes_are_no_text(tmp_path: Path) -> None:
    """LaTeX's picture environment draws lines and circles with glyphs of line10 and
    lcircle10; MuPDF gave their codes as control characters in the figure's text."""
    pdf = math_extension_pdf(tmp_path / "line.pdf", "LINE10", "\x08\x10\x01\x18")
    with pymupdf.open(pdf) as doc:
        assert doc[0].get_text().strip() == "\x08\x10\x01\x18"  # MuPDF's codes
        doc[0].insert_text((40, 100), "The picture above draws a vector.", fontsize=10)
        doc.save(tmp_path / "picture.pdf")
    assert parsed_text(tmp_path / "picture.pdf") == "The picture above draws a vector."


def test_an_ornament_fonts_fleurons_are_no_text(tmp_path: Path) -> None:
    """Fourier's ornaments sit at the codes of letters and its map says so: letgut's
    headings read "A INTRODUCTION", tkz-berge's thanks "M Firstly, I would like…"."""
    name = "SMGTSE+FourierOrns-Regular"
    pdf = math_extension_pdf(tmp_path / "orns.pdf", name, "AM", to_unicode={65: "A", 77: "M"})
    with pymupdf.open(pdf) as doc:
        assert doc[0].get_text().strip() == "AM"  # MuPDF's reading
        doc[0].insert_text((40, 100), "Firstly, I thank the authors.", fontsize=10)
        doc.save(tmp_path / "thanks.pdf")
    assert parsed_text(tmp_path / "thanks.pdf") == "Firstly, I thank the authors."
    other = math_extension_pdf(tmp_path / "other.pdf", "FourierStyle", "AM")
    assert parsed_text(other) == "AM"  # Fourier's text fonts keep their letters


def test_a_glyph_read_as_nothing_leaves_no_character_behind() -> None:
    """A "rawdict" line keeps no empty character for a picture font's strokes: the word
    spacing reads a line character by character (lshort-persian's picture pages fell
    back to pymupdf4llm, their headers kept, on an empty one)."""
    chars = [{"c": c, "bbox": (x, 0, x + 5, 10)} for x, c in enumerate("\x08\x10")]
    text = {
        "blocks": [
            {
                "type": 0,
                "lines": [
                    {"spans": [{"font": "LINE10", "chars": chars}, {"font": "F1", "chars": []}]}
                ],
            }
        ]
    }
    decode_text(text, {"LINE10": PICTURE})
    assert text["blocks"][0]["lines"][0]["spans"][0]["chars"] == []


def test_blackboard_bold_and_latexsym_read_as_their_symbols(tmp_path: Path) -> None:
    """msbm draws ℝ as glyph "R" (and \\shortmid at code 0x70, read "p"); latexsym's lasy
    has no standard names, so its □ came out as "2" and its triangles as control
    characters. Their own Unicode map (glyphtounicode's "R" for R) does not make them
    letters."""
    pdf = math_extension_pdf(tmp_path / "msbm.pdf", "ABCDEF+MSBM10", "RZNkp")
    assert pymupdf.open(pdf)[0].get_text().strip() == "RZNkp"  # MuPDF's reading
    assert parsed_text(pdf) == "ℝℤℕ𝕜∣"
    mapped = math_extension_pdf(tmp_path / "map.pdf", "MSBM7", "CQ", to_unicode={67: "C"})
    assert parsed_text(mapped) == "ℂℚ"
    lasy = math_extension_pdf(tmp_path / "lasy.pdf", "LASY10", "\x01\x0323;<")
    assert pymupdf.open(lasy)[0].get_text().strip() == "\x01\x0323;<"
    assert parsed_text(lasy) == "◁▷□◇↝⊏"
    other = math_extension_pdf(tmp_path / "other.pdf", "MSBMX", "RZ23")
    assert parsed_text(other) == "RZ23"  # a font of another name keeps its letters


def test_a_link_over_blackboard_bold_still_leads_to_its_target(tmp_path: Path) -> None:
    """The text under a link comes from the page's words, which read ℝℤ as "RZ": the
    link is still found in the paragraph that now reads ℝℤ (ctex-faq's 21 links over
    its ℂTEX logo were lost without this)."""
    pdf = math_extension_pdf(tmp_path / "msbm.pdf", "MSBM10", "RZ")
    with pymupdf.open(pdf) as doc:
        target = doc.new_page(width=400, height=300)
        target.insert_text((40, 60), "Number sets", fontsize=16, fontname="hebo")
        target.insert_text((40, 100), "The integers and the reals are defined here.")
        box = pymupdf.Rect(doc[0].get_text("words")[0][:4])  # MuPDF's word "RZ"
        doc[0].insert_link({"kind": pymupdf.LINK_GOTO, "from": box, "page": 1})
        doc.save(tmp_path / "linked.pdf")
    elements = parse_document(tmp_path / "linked.pdf").document.elements
    heading = next(e for e in elements if e.type == "heading")
    assert elements[0].text == f"[ℝℤ](#{heading.id})"
