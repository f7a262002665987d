"""Where a link's text is written: a PDF gives the text under each link box, and the same
short text ("2", a back-reference to page 2) may stand earlier inside a word or number."""

from __future__ import annotations

from quire.shared.ir import make_element
from quire.workers.parse.link_apply import Link, LinkStats, apply_links


def _linked(text: str, *links: tuple[str, str]) -> str:
    el = make_element("paragraph", text, 1, id="el-000001")
    found = [Link(0, t, target, (k,)) for k, (t, target) in enumerate(links)]
    return apply_links([el], found, LinkStats())[0].text


def test_a_back_reference_is_not_written_into_a_year() -> None:
    # sertodoc's bibliography: "Nöldeke, Theodor: 2001. … Eisenbrauns. 2" (cited on p. 2)
    text = _linked(
        "Nöldeke, Theodor: 2001. Compendious Syriac Grammar. Eisenbrauns. 2", ("2", "el-000006")
    )
    assert (
        text == "Nöldeke, Theodor: 2001. Compendious Syriac Grammar. Eisenbrauns. [2](#el-000006)"
    )


def test_text_found_only_inside_a_word_is_still_linked() -> None:
    # a box over part of a word (its first line's part of a name broken across lines)
    text = _linked("the Fontspec package", ("Font", "el-000009"))
    assert text == "the [Font](#el-000009)spec package"


def test_a_link_over_a_symbol_fonts_letters_is_found_as_the_words_read_them() -> None:
    # the text under a link is MuPDF's words ("CTEX"); the paragraph reads msbm's ℂ
    assert _linked("the ℂTEX forum", ("CTEX", "el-000004")) == "the [ℂTEX](#el-000004) forum"
    # only where the words' text is found nowhere as it is: latexsym's □ (read "2" by
    # the words) is no page number "2"
    assert _linked("□ see page 2", ("2", "el-000005")) == "□ see page [2](#el-000005)"
    lines = ["numbers", "the sets ℕ and ℝ"]
    items = make_element("list", "\n".join(lines), 1, id="el-000001", items=lines)
    found = [Link(0, "R", "el-000007", (0,))]
    assert apply_links([items], found, LinkStats())[0].items == [
        "numbers",
        "the sets ℕ and [ℝ](#el-000007)",
    ]


def test_a_bracket_the_box_took_with_the_number_stays_outside_the_link() -> None:
    # the page's words place "3)." character by character by width class: the box over
    # "3" took the ")" too, and the link read "(see Table [3)](…)."
    assert _linked("(see Table 3).", ("3)", "el-000073")) == "(see Table [3](#el-000073))."
    assert _linked("by (2) and (4)", ("2)", "el-000026")) == "by ([2](#el-000026)) and (4)"
    assert _linked("eq. (2a) holds", ("(2a", "el-000008")) == "eq. ([2a](#el-000008)) holds"
    # a bracket the link's text closes itself stays in it
    assert _linked("the map f(x) is", ("f(x)", "el-000009")) == "the map [f(x)](#el-000009) is"
