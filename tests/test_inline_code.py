"""Inline code: the names a PDF's prose sets in a monospace font are kept beside the text
(`Element.code`) and are key terms of a book without an index ("cd", "pwd")."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from quire.shared.ir import Document
from quire.workers.analysis.key_phrases import PhraseIndex, code_names
from quire.workers.parse import parse_document

# (text, monospace) runs of one prose line
LINE = [
    ("Type ", False),
    ("cd", True),
    (" to change the working directory and ", False),
    ("pwd", True),
    (" to print it;", False),
]
MORE = "with no argument the shell goes back to the home directory of the user."
OTHER = "A later chapter is about the editor, its buffers, windows and the keyboard."


def _manual(path: Path, monospace: bool) -> Path:
    """Two pages: a page of shell commands, some set in Courier, and a page on the editor."""
    doc = pymupdf.open()
    helv, cour = pymupdf.Font("helv"), pymupdf.Font("cour")
    for n, title in enumerate(["1 The shell", "2 The editor"]):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 90), title, fontsize=16, fontname="hebo")
        y = 130.0
        for _ in range(12):
            writer = pymupdf.TextWriter(page.rect)
            if n == 0:
                at = pymupdf.Point(72, y)
                for text, mono in LINE:
                    font = cour if mono and monospace else helv
                    writer.append(at, text, font=font, fontsize=10)
                    at = writer.last_point
                writer.append(pymupdf.Point(72, y + 13), MORE, font=helv, fontsize=10)
            else:
                writer.append(pymupdf.Point(72, y), OTHER, font=helv, fontsize=10)
            writer.write_text(page)
            y += 40
    doc.set_toc([[1, "1 The shell", 1], [1, "2 The editor", 2]])
    doc.save(path)
    return path


def _parsed(path: Path) -> Document:
    return parse_document(path).document


def test_monospace_names_in_prose_are_kept_beside_the_text(tmp_path: Path) -> None:
    doc = _parsed(_manual(tmp_path / "shell.pdf", monospace=True))
    shell = [e for e in doc.elements if e.page_first == 1 and e.type == "paragraph"]
    assert shell and all(e.code == ["cd", "pwd"] for e in shell), [e.code for e in shell]
    assert all("Type cd to change" in e.text for e in shell)  # the text is unchanged
    assert not [e for e in doc.elements if e.page_first == 2 and e.code]
    plain = _parsed(_manual(tmp_path / "plain.pdf", monospace=False))
    assert not [e for e in plain.elements if e.code]
    assert [e.text for e in plain.elements] == [e.text for e in doc.elements]


def test_inline_code_names_are_key_phrases(tmp_path: Path) -> None:
    """Two letters and a generic word's length are too short for a term, unless the book
    sets them as code."""
    for monospace, expected in ((True, True), (False, False)):
        doc = _parsed(_manual(tmp_path / f"m{monospace}.pdf", monospace))
        last = max(i for i, e in enumerate(doc.elements) if e.page_first == 1)
        terms = [t.term for t in PhraseIndex.of(doc.elements).top(0, last)]
        assert ({"cd", "pwd"} <= set(terms)) is expected, terms


def test_code_names_are_runs_of_one_word() -> None:
    runs = ["cd", "printf()", "$HOME", "--help", "set -e", "file.txt", "x", "\\section", "<dir>"]
    assert code_names(runs) == {
        "cd": "cd",
        "printf": "printf()",  # a term as the author set it
        "HOME": "$HOME",
        "help": "--help",
        "\\section": "\\section",
        "dir": "dir",  # "<dir>" would read as a template's blank
    }
    # no stop word, generic word or placeholder; a Python name keeps its underscores
    assert set(code_names(["if", "in", "true", "value", "foo", "__init__"])) == {"__init__"}
    # no character code (a font manual's "x01", "E000", "FB00"): two letters, no code
    assert set(code_names(["x01", "E000", "FB00", "U+00E9", "ls"])) == {"ls"}


def test_an_html_books_inline_code_is_kept_beside_the_text(tmp_path: Path) -> None:
    page = tmp_path / "shell.html"
    page.write_text(
        "<html><head><title>Shell</title></head><body><h1>The shell</h1>"
        "<p>Type <code>cd</code> to change the directory and <kbd>pwd</kbd> to print it.</p>"
        '<ul><li>Set <var>HOME</var> first, see <code><a href="#s">ls</a></code>.</li></ul>'
        '<h2 id="s">Listing</h2>'
        "<pre>cd /tmp\npwd</pre><p>No code here.</p></body></html>",
        encoding="utf-8",
    )
    doc = _parsed(page)
    code = {e.type: e.code for e in doc.elements if e.type != "heading"}
    assert code["paragraph"] is None  # the last paragraph's: none
    assert [e.code for e in doc.elements if e.type == "paragraph"] == [["cd", "pwd"], None]
    assert code["list"] == ["HOME", "ls"]  # a link's words, not its target
    assert code["code"] is None  # a listing is code already


def test_a_docx_paragraphs_monospace_runs_are_kept_beside_the_text(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("The shell", level=1)
    p = document.add_paragraph("Type ")
    for text, mono in (("cd", True), (" or ", False), ("pwd", True), (" now.", False)):
        run = p.add_run(text)
        if mono:
            run.font.name = "Courier New"
    document.add_paragraph("A paragraph without code.")
    path = tmp_path / "shell.docx"
    document.save(str(path))
    paragraphs = [e for e in _parsed(path).elements if e.type == "paragraph"]
    assert [e.text for e in paragraphs] == ["Type cd or pwd now.", "A paragraph without code."]
    assert [e.code for e in paragraphs] == [["cd", "pwd"], None]
