"""Footnotes and cross-references on generated books: parsed as footnote elements tied to
their references and as links to elements, written into the session of the reference and
as links to the session holding the target, verified, and shown by the web workspace."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import pytest
from irgen import build_doc, para
from notes_samples import (
    NotesBook,
    NotesDocx,
    footnote_problems,
    link_problems,
    notes_docx,
    notes_pdf,
)

import quire
from quire.orchestrator.web.markdown import session_html, to_html
from quire.shared.ir import Document, Element, make_element
from quire.shared.links import footnote_def, heading_slug, ir_link
from quire.workers.boundaries.candidates import safe_candidates
from quire.workers.parse.pdf import parse_pdf_range
from quire.workers.parse.pdf_links import _annotation_links, _pymupdf_links, by_line, text_under
from quire.workers.parse.pdf_open import open_pdf_kept, pymupdf_module
from quire.workers.parse.pdf_types import PdfRangeResult
from quire.workers.verify.report import verify_output


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> NotesBook:
    return notes_pdf(tmp_path_factory.mktemp("notes") / "notes.pdf")


@pytest.fixture(scope="module")
def doc(book: NotesBook) -> Document:
    return quire.parse(book.path)


@pytest.fixture(scope="module")
def written(book: NotesBook, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("notes-out") / "out"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(out.parent)  # a store of its own, nothing reused from an earlier run
        result = quire.split(book.path, out, output_format="markdown", processes=1)
    assert result.verification.passed
    # session 1 is the title page with its contents (front matter), then one per chapter
    assert [s.kind for s in result.sessions][:2] == ["front_matter", "study"]
    return out


def notes_of(doc: Document) -> dict[str, Element]:
    return {e.mark or "": e for e in doc.elements if e.type == "footnote"}


# --- parsing ---------------------------------------------------------------------------------


def test_every_note_is_a_footnote_element_tied_to_its_reference(
    book: NotesBook, doc: Document
) -> None:
    notes, by_id = notes_of(doc), doc.by_id()
    assert set(notes) == set(book.notes)
    for mark, (page, opening, word_before) in book.notes.items():
        note = notes[mark]
        label = note.text[2 : note.text.index("]")]
        assert note.page_first == page and note.text.startswith(f"[^{label}]: {opening}")
        ref = by_id[note.ref_id or ""]
        assert ref.text.count(f"[^{label}]") == 1
        assert f"{word_before}[^{label}]" in ref.text  # the mark, not a stray digit
        assert doc.elements.index(note) == doc.elements.index(ref) + 1 or (
            doc.elements[doc.elements.index(note) - 1].type == "footnote"
        )
    assert notes["*"].text.startswith("[^star]: ")
    assert notes["3"].text.endswith("onto the next page, where it ends.")  # ran on
    assert notes["3"].page_last == notes["3"].page_first + 1


def test_no_note_text_is_left_in_the_body(book: NotesBook, doc: Document) -> None:
    body = [e.text for e in doc.elements if e.type != "footnote"]
    for _, opening, _ in book.notes.values():
        assert not any(opening in t for t in body)
    assert not any(re.search(r"\[\^[^\]]+\]:", t) for t in body)
    assert not any("\U0001fffe" in e.text or "\U0001ffff" in e.text for e in doc.elements)
    assert not any("onto the next page" in t for t in body)


def test_internal_links_lead_to_their_targets(book: NotesBook, doc: Document) -> None:
    by_id = doc.by_id()
    found = 0
    for page, text, target_page in book.links:
        holders = [e for e in doc.elements if e.page_first == page and f"[{text}](#el-" in e.text]
        assert holders, f"no link '{text}' on page {page}"
        target = re.search(rf"\[{re.escape(text)}\]\(#(el-\d+)\)", holders[0].text)
        assert target is not None
        assert by_id[target.group(1)].page_first == target_page
        found += 1
    assert found == len(book.links)
    chapter = by_id[re.search(r"\(#(el-\d+)\)", holders[0].text).group(1)]  # type: ignore[union-attr]
    assert chapter.type in ("heading", "paragraph")
    n = len(book.links)
    assert any(n_.message.startswith(f"internal links: {n} of {n}") for n_ in doc.notes)


def test_named_and_explicit_destinations_read_alike(book: NotesBook) -> None:
    """The direct annotation reader (named destinations) finds what get_links() finds."""
    pdf = open_pdf_kept(book.path)
    page_no = book.links[0][0]
    page = pdf[page_no - 1]
    direct, slow = _annotation_links(pdf, page), _pymupdf_links(pdf, page)

    def where(t: tuple[int, float, float]) -> tuple[int, int | None]:
        return t[0], round(t[2]) if math.isfinite(t[2]) else None

    assert [where(t) for _, t in direct] == [where(t) for _, t in slow]
    assert direct[0][1][0] == book.links[0][2] - 1 and len(direct) == 2


def test_range_results_carry_links_through_json(book: NotesBook) -> None:
    """A destination without a point ("/XYZ null null null", NaN from MuPDF) must not
    break the range result's JSON (the distributed parse passes it between tasks)."""
    page = book.links[0][0]
    back = PdfRangeResult.from_json(parse_pdf_range(book.path, page, page).to_json())
    links = {lk.text: lk for lk in back.pages[0].links}
    assert set(links) == {"Section 3.2", "Chapter 4"}
    assert links["Chapter 4"].page == book.chapters[3][1] and links["Chapter 4"].y == 0.0


def test_a_footnote_is_never_a_cut_point() -> None:
    els = [para("one " * 50, 1), para("two[^1] " * 50, 2)]
    note = make_element("footnote", footnote_def("1", ["the note"]), 3, ref_id="x", mark="1")
    doc = build_doc([*els, note, para("three " * 50, 3)], basis="pdf")
    cands = safe_candidates(doc)
    ids = [e.id for e in doc.elements]
    assert ids[2] not in {c.before_id for c in cands}
    assert ids[2] in {c.after_id for c in cands}


# --- writing and verifying ---------------------------------------------------------------------


def test_each_footnote_lands_in_the_session_of_its_reference(
    book: NotesBook, written: Path
) -> None:
    count, problems = footnote_problems(written)
    assert count == len(book.notes) and problems == []
    last_of_one = sorted(written.glob("02-*.md"))[0].read_text(encoding="utf-8")
    assert "[^4]: Note 4 belongs" in last_of_one  # chapter 2 starts on the next page
    assert last_of_one.rstrip().endswith("Note 4 belongs to the last page of chapter one.")


def test_every_written_link_has_its_file_and_anchor(book: NotesBook, written: Path) -> None:
    count, problems = link_problems(written)
    assert count >= len(book.links) and problems == []
    contents = sorted(written.glob("01-*.md"))[0].read_text(encoding="utf-8")
    chapter3 = sorted(written.glob("04-*.md"))[0].name
    slug = heading_slug("3 Verifying output")
    assert f"[3 Verifying output]({chapter3}#{slug})" in contents


def _tampered(written: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(written, tmp_path / "out"))


def test_a_changed_word_in_a_footnote_is_caught(written: Path, tmp_path: Path) -> None:
    out = _tampered(written, tmp_path)
    f = sorted(out.glob("02-*.md"))[0]
    f.write_text(f.read_text().replace("Note 4 belongs", "Note 4 lives"), encoding="utf-8")
    report = verify_output(out, render=False)
    assert any(x.kind == "altered" and "belongs" in x.message for x in report.findings)


def test_a_changed_word_in_a_link_is_caught(written: Path, tmp_path: Path) -> None:
    out = _tampered(written, tmp_path)
    f = sorted(out.glob("01-*.md"))[0]
    f.write_text(f.read_text().replace("[2 Planning sessions]", "[2 Planting sessions]"))
    report = verify_output(out, render=False)
    assert any(x.kind == "altered" and "Planning" in x.message for x in report.findings)


def test_a_link_to_another_place_is_caught(written: Path, tmp_path: Path) -> None:
    out = _tampered(written, tmp_path)
    f = sorted(out.glob("01-*.md"))[0]
    text = f.read_text()
    changed = re.sub(r"(\[2 Planning sessions\]\()[^)#]*", r"\g<1>09-nowhere.md", text)
    assert changed != text
    f.write_text(changed)
    report = verify_output(out, render=False)
    assert any(x.kind == "altered" for x in report.findings)


def test_a_link_to_a_missing_session_file_is_caught(written: Path, tmp_path: Path) -> None:
    out = _tampered(written, tmp_path)
    sorted(out.glob("02-*.md"))[0].unlink()
    report = verify_output(out, render=False)
    broken = [x for x in report.findings if x.kind == "broken_link"]
    assert broken and "does not exist" in broken[0].message and broken[0].chunk == 1


def test_a_footnote_moved_into_the_text_is_caught(written: Path, tmp_path: Path) -> None:
    out = _tampered(written, tmp_path)
    f = sorted(out.glob("02-*.md"))[0]
    text = f.read_text()
    start = text.index("<!-- el-", text.index("[^1]: ") - 30)
    block = text[start : text.index("\n\n", start) + 2]
    text = text.replace(block, "")
    first = text.index("<!-- el-", text.index("-->\n") + 4)
    f.write_text(text[:first] + block + text[first:])
    report = verify_output(out, render=False)
    assert any(x.kind == "footnote_misplaced" for x in report.findings)


# --- DOCX ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def docx_book(tmp_path_factory: pytest.TempPathFactory) -> NotesDocx:
    return notes_docx(tmp_path_factory.mktemp("docx") / "notes.docx", chapters=4, paragraphs=26)


def test_docx_footnotes_endnotes_and_internal_links(docx_book: NotesDocx) -> None:
    doc = quire.parse(docx_book.path)
    notes, by_id = notes_of(doc), doc.by_id()
    assert set(notes) == {"1", "2", "i"}
    for mark, (text, word) in docx_book.notes.items():
        assert notes[mark].text == f"[^{mark}]: {text}"
        assert by_id[notes[mark].ref_id or ""].text.endswith(f"{word}[^{mark}]")
    assert notes["i"].text == f"[^i]: {docx_book.endnote}"
    linked = [e for e in doc.elements if f"[{docx_book.link_text}](#el-" in e.text]
    target = re.search(r"\(#(el-\d+)\)", linked[0].text)
    assert target and by_id[target.group(1)].text == f"# {docx_book.bookmarked}"


def test_docx_split_keeps_notes_with_references(
    docx_book: NotesDocx, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = quire.split(docx_book.path, tmp_path / "out", processes=1)
    assert result.verification.passed and len(result.sessions) >= 2
    count, problems = footnote_problems(tmp_path / "out")
    assert count == 3 and problems == []
    links, bad = link_problems(tmp_path / "out")
    assert links == 1 and bad == []


# --- the web workspace's rendering --------------------------------------------------------------


def test_session_html_shows_marks_notes_and_heading_anchors() -> None:
    text = (
        "<!-- quire-chunk\nchunk: 1\n-->\n\n<!-- el-000001 -->\n# 3.2 The usr part\n\n"
        "<!-- el-000002 -->\nSee [the part](#32-the-usr-part) and [more](02-b.md#x)[^5].\n\n"
        f"<!-- el-000003 -->\n{footnote_def('5', ['First.', 'Second.'])}\n"
    )
    html = session_html(
        text, image=lambda s: None, link=lambda h: "/s/2" if h == "02-b.md#x" else None
    )
    assert html[0].html.startswith('<h2 id="32-the-usr-part">')
    assert '<sup class="fnref"><a href="#fn-5">5</a></sup>' in html[1].html
    assert 'href="#32-the-usr-part"' in html[1].html and 'href="/s/2"' in html[1].html
    assert html[2].html.startswith('<div class="footnote" id="fn-5">')
    assert "<p>Second.</p>" in html[2].html and "<pre>" not in html[2].html
    assert "[^" not in to_html(
        ir_link("x", "el-000001") + "[^a]", image=lambda s: None, link=lambda h: None
    )


def test_retrieval_chunks_stay_lossless_with_notes_and_links(written: Path, tmp_path: Path) -> None:
    out = _tampered(written, tmp_path)  # a copy: chunking writes into the folder
    chunks = quire.retrieval_chunks(out, max_chars=400)
    text = "".join(c.text for c in chunks)
    assert "[^4]: Note 4 belongs" in text and "](#el-" in text
    report = verify_output(out, render=False)
    assert report.passed and report.checked["rag_chunks"] == len(chunks)


def test_link_text_keeps_reading_order_and_cuts_words() -> None:
    """Words are found by their line but read in MuPDF's order (a number and a Chinese
    title on one line have different middles); a box over part of a word takes part."""
    words = by_line(
        [
            (72.0, 100.0, 90.0, 110.0, "1.1", 0, 0, 0),  # middle 105
            (95.0, 97.0, 140.0, 111.0, "历史回顾", 0, 0, 1),  # middle 104, yet after it
            (72.0, 130.0, 100.0, 140.0, "below", 0, 1, 0),
            (150.0, 100.0, 170.0, 110.0, "(3.24)", 0, 0, 2),
        ]
    )
    assert text_under(words, (70.0, 98.0, 141.0, 114.0)) == "1.1 历史回顾"
    assert text_under(words, (153.5, 98.0, 167.0, 112.0)) == "3.24"


def test_a_numbered_listing_under_a_rule_is_no_footnote_of_a_far_link(tmp_path: Path) -> None:
    """hycolor's manual: a code listing in small type under a box's bottom rule, its lines
    numbered (182, 183 ...), reads like notes; the index on a later page links "182" to
    line 182. A footnote's reference is on the note's page (or the page before), so the
    index locator is no reference: the listing stays where it was, the index unmarked (it
    had taken line 182 as its footnote, and its session ran from p. 8 to p. 26)."""
    p = pymupdf_module()
    pdf = p.open()
    listing = [r"182 \def\HyColor@Bookmark#1#2{%", r"183 \HyColor@IfModel{#1}{%", "184 }%"]
    for n in range(3):
        page = pdf.new_page(width=595, height=842)
        for k in range(20):
            page.insert_text(
                (72, 90 + 14 * k), f"Body line {k} of page {n + 1} says a little more."
            )
    first = pdf[0]
    first.draw_line((72, 640), (272, 640), width=0.4)  # the box's bottom rule, short
    for k, line in enumerate(listing):
        first.insert_text((72, 660 + 11 * k), line, fontsize=8, fontname="cour")
    last = pdf[2]
    last.insert_text((72, 420), r"\HyColor@Bookmark . . . . . . . . 182", fontsize=10)
    hit = last.search_for("182")[0]
    last.insert_link({"kind": p.LINK_GOTO, "from": hit, "page": 0, "to": p.Point(72, 652)})
    path = tmp_path / "listing.pdf"
    pdf.save(path)
    doc = quire.parse(path)
    assert not [e for e in doc.elements if e.type == "footnote"]
    index = next(e for e in doc.elements if "Bookmark . ." in e.text)
    assert "[^" not in index.text and index.page_first == 3
    line = next(e for e in doc.elements if r"\def\HyColor@Bookmark" in e.text)
    assert line.page_first == 1 and line.text.startswith("182")
