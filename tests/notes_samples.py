"""Generated books with footnotes and cross-references, for the parser, writer, verifier and
web tests: a PDF drawn with PyMuPDF and a DOCX written with python-docx plus raw XML.

`notes_pdf` writes four chapters of eight pages (one session each), with
- raised footnote marks in the text (small type set above the baseline) and the notes in
  small type below a short rule at the foot of the page: two notes on one page, a symbol
  mark, a note whose text runs on below the rule of the next page, and a note whose
  reference closes the last page of chapter 1 while chapter 2 starts on the next page;
- internal links: a contents page whose entries link to the chapters (explicit GoTo
  destinations) and "see Section 3.2" in the text as a link with a *named* destination.
`notes_docx` writes footnotes, an endnote, a bookmark on a heading and a hyperlink to it.
The expected facts are returned with the paths.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from quire.workers.parse.pdf_open import pymupdf_module

W, H = 595.0, 842.0
LEFT, RIGHT = 72.0, 523.0
TOP, BOTTOM = 80.0, 700.0  # body text area
LEADING = 14.0
RULE_Y = 722.0
NOTE_SIZE = 8.0
WORDS = [
    "chunk", "session", "page", "boundary", "heading", "verify", "reader", "planner",
    "element", "paragraph", "hash", "index", "footnote", "reference", "section", "chapter",
    "figure", "margin", "column", "rule", "study", "topic",
]  # fmt: skip


@dataclass
class NotesBook:
    path: Path
    pages: int
    # mark -> (page of the note, text that starts the note, a word right before the mark)
    notes: dict[str, tuple[int, str, str]] = field(default_factory=dict)
    chapters: list[tuple[str, int]] = field(default_factory=list)  # (title, first page)
    links: list[tuple[int, str, int]] = field(default_factory=list)  # (page, text, target)


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(7, 12))).capitalize() + "."


def _lines(rng: random.Random, n: int, width: float = RIGHT - LEFT) -> list[str]:
    p = pymupdf_module()
    lines, line = [], ""
    while len(lines) < n:
        for word in _sentence(rng).split():
            trial = f"{line} {word}".strip()
            if p.get_text_length(trial, fontname="helv", fontsize=10) > width:
                lines.append(line)
                line = word
            else:
                line = trial
    return lines[:n]


class _Writer:
    """Draws pages: body lines, raised marks, the footnote area, headings."""

    def __init__(self, seed: int) -> None:
        self.p = pymupdf_module()
        self.doc = self.p.open()
        self.rng = random.Random(seed)
        self.page = None
        self.y = TOP

    def new_page(self) -> None:
        self.page = self.doc.new_page(width=W, height=H)
        self.y = TOP
        n = self.doc.page_count
        self.page.insert_text((W / 2 - 5, H - 40), str(n), fontsize=10, fontname="helv")

    def heading(self, title: str, size: float = 16) -> tuple[float, float]:
        assert self.page is not None
        top = self.y
        self.page.insert_text((LEFT, self.y + size), title, fontsize=size, fontname="hebo")
        self.y += size + 14
        return top, self.y

    def text_line(self, text: str, mark: str | None = None) -> tuple[float, float]:
        """A body line; `mark` raised right after it. Returns (x after the text, baseline)."""
        assert self.page is not None
        base = self.y + 10
        self.page.insert_text((LEFT, base), text, fontsize=10, fontname="helv")
        end = LEFT + self.p.get_text_length(text, fontname="helv", fontsize=10)
        if mark:
            self.page.insert_text((end + 0.5, base - 4), mark, fontsize=6.5, fontname="helv")
        self.y += LEADING
        return end, base

    def paragraph(self, n: int, mark: str | None = None) -> str:
        lines = _lines(self.rng, n)
        for i, line in enumerate(lines):
            self.text_line(line, mark if i == len(lines) - 1 else None)
        self.y += 8
        return lines[-1].split()[-1]

    def notes(self, notes: list[tuple[str | None, list[str]]]) -> None:
        """The footnote area: a short rule, then each note (mark raised, 8 pt text)."""
        assert self.page is not None
        self.page.draw_line((LEFT, RULE_Y), (LEFT + 150, RULE_Y), width=0.4)
        y = RULE_Y + 12
        for mark, lines in notes:
            for i, line in enumerate(lines):
                x = LEFT
                if mark and i == 0:
                    self.page.insert_text((x, y - 3), mark, fontsize=5.5, fontname="helv")
                    x += 5
                self.page.insert_text((x, y), line, fontsize=NOTE_SIZE, fontname="helv")
                y += 10


def notes_pdf(path: Path, seed: int = 7) -> NotesBook:
    wr = _Writer(seed)
    book = NotesBook(path=path, pages=33)
    titles = ["1 Reading pages", "2 Planning sessions", "3 Verifying output", "4 Serving notes"]
    # page 1: contents (links added at the end, when the chapter pages are known)
    wr.new_page()
    wr.heading("Contents", 18)
    toc_lines = []
    for t in titles:
        toc_lines.append((t, wr.text_line(f"{t} . . . . . . . . . .")))
    heading_spots: dict[str, tuple[int, float]] = {}
    for c, title in enumerate(titles):
        for k in range(8):
            wr.new_page()
            pno = wr.doc.page_count
            if k == 0:
                book.chapters.append((title, pno))
                top, _ = wr.heading(title)
                heading_spots[title] = (pno, top)
            if c == 2 and k == 1:
                top, _ = wr.heading("3.2 Checking links", 13)
                heading_spots["3.2"] = (pno, top)
            notes: list[tuple[str | None, list[str]]] = []
            if c == 0 and k == 1:  # two notes on one page
                w1 = wr.paragraph(4, "1")
                w2 = wr.paragraph(5, "2")
                notes = [
                    (m, [f"Note {m} explains the word {w}."]) for m, w in (("1", w1), ("2", w2))
                ]
                book.notes["1"] = (wr.doc.page_count, "Note 1 explains", w1)
                book.notes["2"] = (wr.doc.page_count, "Note 2 explains", w2)
            if c == 0 and k == 3:  # a symbol mark
                w = wr.paragraph(5, "*")
                notes = [("*", ["A starred note about the asterisk."])]
                book.notes["*"] = (wr.doc.page_count, "A starred note", w)
            if c == 1 and k == 2:  # a note running on below the next page's rule
                w = wr.paragraph(4, "3")
                notes = [("3", ["Note 3 starts on this page and its sentence goes on"])]
                book.notes["3"] = (wr.doc.page_count, "Note 3 starts", w)
            if c == 2 and k == 0:  # "see Section 3.2": a named destination
                wr.paragraph(2)
                wr.text_line("The checks are described in Section 3.2 below.")
                wr.text_line("Chapter 4 serves what they found.")
                book.links.append((wr.doc.page_count, "Section 3.2", -1))
            while wr.y + 5 * LEADING + 8 < (RULE_Y - 16 if notes or k == 7 else BOTTOM):
                wr.paragraph(wr.rng.randint(3, 5))
            if c == 0 and k == 7:  # the reference closes the chapter's last page
                w = wr.paragraph(3, "4")
                notes = [("4", ["Note 4 belongs to the last page of chapter one."])]
                book.notes["4"] = (wr.doc.page_count, "Note 4 belongs", w)
            if c == 1 and k == 3:
                wr.notes([(None, ["onto the next page, where it ends."])])
            if notes:
                wr.notes(notes)
    _links(wr, book, toc_lines, heading_spots, titles)
    wr.doc.set_toc([[1, t, p] for t, p in book.chapters])
    wr.doc.save(path)
    wr.doc.close()
    return book


def _links(
    wr: _Writer,
    book: NotesBook,
    toc_lines: list[tuple[str, tuple[float, float]]],
    spots: dict[str, tuple[int, float]],
    titles: list[str],
) -> None:
    p = wr.p
    toc = wr.doc[0]
    for title, (_, base) in toc_lines:
        pno, top = spots[title]
        rect = p.Rect(LEFT, base - 9, LEFT + p.get_text_length(title, "helv", 10), base + 3)
        toc.insert_link(
            {"kind": p.LINK_GOTO, "from": rect, "page": pno - 1, "to": p.Point(LEFT, top)}
        )
        book.links.append((1, title, pno))
    # "Section 3.2": a link whose action names a destination in the catalog's /Dests
    page_no, text, _ = book.links[0]
    page = wr.doc[page_no - 1]
    hits = page.search_for("Section 3.2")
    target_page, top = spots["3.2"]
    page.insert_link(
        {"kind": p.LINK_GOTO, "from": hits[0], "page": target_page - 1, "to": p.Point(LEFT, top)}
    )
    page = wr.doc.reload_page(page)
    xref = page.get_links()[-1]["xref"]
    wr.doc.xref_set_key(xref, "A", "<</S/GoTo/D(sec.3.2)>>")
    target_xref = wr.doc.page_xref(target_page - 1)
    dests = wr.doc.get_new_xref()
    y = H - top  # PDF coordinates: from the bottom
    ch4 = wr.doc.page_xref(book.chapters[3][1] - 1)  # "/XYZ null null null": no point
    wr.doc.update_object(
        dests,
        f"<</sec.3.2[{target_xref} 0 R/XYZ {LEFT} {y} 0]/ch.4[{ch4} 0 R/XYZ null null null]>>",
    )
    wr.doc.xref_set_key(wr.doc.pdf_catalog(), "Dests", f"{dests} 0 R")
    book.links[0] = (page_no, text, target_page)
    # "Chapter 4" on the same line's page: a named destination without a point
    hits = page.search_for("Chapter 4")
    page.insert_link({"kind": p.LINK_GOTO, "from": hits[0], "page": 0, "to": p.Point(0, 0)})
    page = wr.doc.reload_page(page)
    wr.doc.xref_set_key(page.get_links()[-1]["xref"], "A", "<</S/GoTo/D(ch.4)>>")
    book.links.append((page_no, "Chapter 4", book.chapters[3][1]))


@dataclass
class NotesDocx:
    path: Path
    # footnote id -> (text, a word of the paragraph holding its reference)
    notes: dict[str, tuple[str, str]] = field(default_factory=dict)
    endnote: str = ""
    link_text: str = ""
    bookmarked: str = ""  # the heading the hyperlink leads to


_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _notes_part(kind: str, notes: dict[str, str]) -> bytes:
    """word/footnotes.xml or word/endnotes.xml: Word's separators, then the notes."""
    body = "".join(
        f'<w:{kind} w:id="{nid}"><w:p><w:r><w:{kind}Ref/></w:r>'
        f'<w:r><w:t xml:space="preserve"> {text}</w:t></w:r></w:p></w:{kind}>'
        for nid, text in notes.items()
    )
    seps = (
        f'<w:{kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:{kind}>'
        f'<w:{kind} w:type="continuationSeparator" w:id="0"><w:p><w:r>'
        f"<w:continuationSeparator/></w:r></w:p></w:{kind}>"
    )
    return f'<w:{kind}s xmlns:w="{_W}">{seps}{body}</w:{kind}s>'.encode()


def notes_docx(path: Path, seed: int = 3, chapters: int = 4, paragraphs: int = 14) -> NotesDocx:
    """Chapters of prose (each several pages at 400 words a page); footnotes 1 and 2 in
    chapter 1 (note 2 in its last paragraph), an endnote in chapter 2, a bookmark on the
    heading of chapter 3 and, in chapter 1, a hyperlink to it."""
    import docx
    from docx.opc.constants import CONTENT_TYPE as CT
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    rng = random.Random(seed)
    document = docx.Document()
    out = NotesDocx(path)
    footnotes = {
        "1": "The first note, on the opening paragraph.",
        "2": "The second note closes chapter one.",
    }
    endnotes = {"1": "An endnote from chapter two."}

    def reference(paragraph: object, kind: str, nid: str) -> None:
        run = paragraph.add_run()  # type: ignore[attr-defined]
        ref = OxmlElement(f"w:{kind}Reference")
        ref.set(qn("w:id"), nid)
        run._r.append(ref)

    heading3 = None
    link_para = None
    for c in range(chapters):
        h = document.add_heading(f"{c + 1} Chapter about {WORDS[c]}", level=1)
        if c == 2:
            heading3 = h
        for k in range(paragraphs):
            text = " ".join(_sentence(rng) for _ in range(rng.randint(6, 9)))
            para = document.add_paragraph(text)
            if c == 0 and k == 0:
                reference(para, "footnote", "1")
                out.notes["1"] = (footnotes["1"], text.split()[-1])
            if c == 0 and k == paragraphs - 1:
                reference(para, "footnote", "2")
                out.notes["2"] = (footnotes["2"], text.split()[-1])
            if c == 1 and k == 2:
                reference(para, "endnote", "1")
                out.endnote = endnotes["1"]
            if c == 0 and k == 3:
                link_para = para
    assert heading3 is not None and link_para is not None
    start, end = OxmlElement("w:bookmarkStart"), OxmlElement("w:bookmarkEnd")
    start.set(qn("w:id"), "7")
    start.set(qn("w:name"), "chapter-three")
    end.set(qn("w:id"), "7")
    heading3._p.insert(1, start)
    heading3._p.append(end)
    out.bookmarked = heading3.text
    link = OxmlElement("w:hyperlink")
    link.set(qn("w:anchor"), "chapter-three")
    run = OxmlElement("w:r")
    t = OxmlElement("w:t")
    t.text = out.link_text = "the chapter on verification"
    run.append(t)
    link.append(run)
    tail = OxmlElement("w:r")
    t2 = OxmlElement("w:t")
    t2.set(qn("xml:space"), "preserve")
    t2.text = " is where this goes on."
    tail.append(t2)
    link_para._p.append(link)
    link_para._p.append(tail)
    package = document.part.package
    for kind, rel, ct, notes in (
        ("footnote", RT.FOOTNOTES, CT.WML_FOOTNOTES, footnotes),
        ("endnote", RT.ENDNOTES, CT.WML_ENDNOTES, endnotes),
    ):
        part = Part(PackURI(f"/word/{kind}s.xml"), ct, _notes_part(kind, notes), package)
        document.part.relate_to(part, rel)
    document.save(str(path))
    return out


# --- checks on an output folder, independent of the verifier -------------------------------

_LINK_DEST = re.compile(r"\]\(([^()\s]*)\)")


def link_problems(out: Path) -> tuple[int, list[str]]:
    """(internal links in the session files, those whose file or anchor is missing):
    a heading's anchor is its GitHub slug in its file, any element's its id."""
    from quire.shared.links import Slugger, heading_title
    from quire.workers.verify.markdown import parse_chunk_markdown

    anchors: dict[str, set[str]] = {}
    files = sorted(p for p in out.glob("[0-9]*.md"))
    for f in files:
        slugger = Slugger()
        segments = parse_chunk_markdown(f.read_text(encoding="utf-8")).segments
        anchors[f.name] = {eid for eid, _ in segments} | {
            slugger.slug(heading_title(t)) for _, t in segments if t.startswith("#")
        }
    count, bad = 0, []
    for f in files:
        for dest in _LINK_DEST.findall(f.read_text(encoding="utf-8")):
            target, _, anchor = dest.partition("#")
            if (
                "://" in dest
                or dest.startswith("images/")
                or not (target.endswith(".md") or dest.startswith("#"))
            ):
                continue
            count += 1
            name = target or f.name
            if name not in anchors or anchor not in anchors[name]:
                bad.append(f"{f.name}: ({dest})")
    return count, bad


def footnote_problems(out: Path) -> tuple[int, list[str]]:
    """(footnotes written, problems): a footnote outside the file of its reference, or
    followed by text in its file."""
    from quire.shared.ir import load_ir
    from quire.workers.verify.markdown import parse_chunk_markdown

    doc = load_ir((out / "ir.json").read_bytes())
    by_id = doc.by_id()
    where: dict[str, str] = {}
    bad = []
    for f in sorted(out.glob("[0-9]*.md")):
        segments = parse_chunk_markdown(f.read_text(encoding="utf-8")).segments
        kinds = [by_id[eid].type for eid, _ in segments]
        if "footnote" in kinds and any(k != "footnote" for k in kinds[kinds.index("footnote") :]):
            bad.append(f"{f.name}: text after a footnote")
        where.update({eid: f.name for eid, _ in segments})
    notes = [e for e in doc.elements if e.type == "footnote"]
    for e in notes:
        ref = where.get(e.ref_id or "")
        if where.get(e.id) != ref:
            bad.append(f"{e.id} in {where.get(e.id)}, its reference {e.ref_id} in {ref}")
    return len(notes), bad
