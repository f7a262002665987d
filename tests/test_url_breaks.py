"""A web address broken across lines (TeX's `url` breaks after "/", "." and "-" without a
hyphen) is joined whole; an address at a line end followed by a word keeps the space. FOP
hyphenates addresses like words: such a hyphen goes when the document writes the word whole."""

from __future__ import annotations

from collections import Counter

import pymupdf
import pytest

from quire.workers.parse import parse_document
from quire.workers.parse.pdf_hyphens import Vocabulary
from quire.workers.parse.url_breaks import continues_url

LINES = [
    "The installer is described at https://tug.org/texlive/",
    "acquire.html, and the archive of the list at http://www.",
    "kenmore.org/kenmore/kp_arch.html keeps every message. The manifesto at",
    "http://dltr.law.duke.edu/2004/09/08/a-manifesto-on-",
    "wipo-and-the-future is quoted in full. Slides are made with beamer, see",
    "http://latex-beamer.sourceforge.net/",
    "to get it, and the licence is at http://www.latex-project.org/lppl.txt).",
    "The questions are answered at https://tex.stackexchange.com/questions/",
    "402779#406791 by the maintainers of the packages named above.",
    "Every gnucash user should read the mailing lists: see Netiquette [https://wiki.gnu-",
    "cash.org/wiki/Mailing_List-",
    "s#Netiquette] before writing to them.",
]


@pytest.fixture(scope="module")
def text(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("urls") / "urls.pdf"
    pdf = pymupdf.open()
    page = pdf.new_page(width=595, height=842)
    for i, line in enumerate(LINES):
        page.insert_text((72, 100 + i * 14), line, fontsize=11, fontname="helv")
    pdf.save(path)
    return "\n".join(e.text for e in parse_document(path).document.elements)


def test_an_address_broken_after_a_slash_dot_or_hyphen_is_whole(text: str) -> None:
    assert "https://tug.org/texlive/acquire.html," in text
    assert "http://www.kenmore.org/kenmore/kp_arch.html keeps" in text
    assert "/a-manifesto-on-wipo-and-the-future is" in text
    assert "https://tex.stackexchange.com/questions/402779#406791 by" in text


def test_a_hyphen_that_breaks_a_word_of_an_address_goes(text: str) -> None:
    assert "[https://wiki.gnucash.org/wiki/Mailing_Lists#Netiquette] before" in text


@pytest.mark.parametrize(
    ("before", "after", "hyphen"),
    [
        ("https://wiki.gnu-", "cash.org/wiki/", False),  # "gnucash" is written whole
        ("http://example.org/a-manifesto-on-", "wipo", True),  # "onwipo" never is
        ("https://ctan.org/pkg/lua-", "tex.html", True),  # "lua-tex" as often as "luatex"
        ("https://ctan.org/pkg/", "tex", True),  # no hyphen to take out
    ],
)
def test_breaks_address(before: str, after: str, hyphen: bool) -> None:
    words = Vocabulary(Counter({"gnucash": 3, "luatex": 1, "lua-tex": 1, "on": 9, "wipo": 1}))
    assert words.breaks_address(before, after) is not hyphen


def test_an_address_at_a_line_end_before_a_word_keeps_the_space(text: str) -> None:
    assert "http://latex-beamer.sourceforge.net/ to get it" in text
    assert "lppl.txt). The questions" in text


@pytest.mark.parametrize(
    ("before", "after", "joined"),
    [
        ("see https://texlive.info/tlgpg/", "pour la vérification", False),  # a word
        ("https://github.", "com/plk/biblatex", True),
        ("at www.ctan.org/pkg.", "Then", False),  # a new sentence
        ("not an address/", "path/file", False),
        ("https://example.org/a_", "b.html", True),
        ("see its pages and https:", "//www.ams.org/tex/author-info.html.", True),
        ("the ratio 3:", "//comment", False),
    ],
)
def test_continues_url(before: str, after: str, joined: bool) -> None:
    assert continues_url(before, after) is joined
