"""EPUB and HTML input (issue 27): the element mapping, the navigation as the outline, notes,
images, and the real converters' books in tests/data (pandoc's EPUB 3 and EPUB 2 of the
Debian New Maintainers' Guide in English and Chinese, and DocBook's HTML folder of it)
through the whole pipeline."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from epub_samples import (
    LOREM,
    PNG_1X1,
    chapter,
    epub_bytes,
    paged_chapters,
    sample_chapters,
    sample_nav,
)
from html_coverage import chapters as chapters_of
from html_coverage import coverage
from pdf_samples import png_bytes
from plan_metrics import honoured, oracle_honoured

import quire
from quire.orchestrator.sources import is_html_book
from quire.shared.errors import InputError
from quire.shared.ir import Document, layout_words, load_ir
from quire.workers.boundaries.evidence import major_starts
from quire.workers.parse import parse_document
from quire.workers.parse.epub import parse_epub_bytes
from quire.workers.parse.html_input import bundle_folder, parse_html_bundle
from quire.workers.parse.list_runs import MAX_LIST_WORDS

DATA = Path(__file__).parent / "data"
EN_EPUB = DATA / "maint-guide-en.epub"
ZH_EPUB = DATA / "maint-guide-zh.epub"
HTML_DIR = DATA / "maint-guide-html"


@pytest.mark.parametrize(
    ("path", "language", "chapters"),
    [(EN_EPUB, "en", 2), (ZH_EPUB, "zh-CN", 2), (HTML_DIR, None, 2)],
    ids=["epub3-en", "epub2-zh", "html-folder"],
)
def test_real_converters_books_keep_their_text_notes_and_chapters(
    path: Path, language: str | None, chapters: int
) -> None:
    doc = parse_document(path).document
    assert coverage(doc, chapters_of(path)) >= 0.995
    assert doc.language == language
    assert doc.source_format == ("html" if path.is_dir() else "epub")
    # footnotes: each right after the element holding its reference, which names it
    notes = [e for e in doc.elements if e.type == "footnote"]
    assert len(notes) >= 15
    by_id = doc.by_id()
    for n in notes:
        ref = by_id[n.ref_id or ""]
        label = n.text[2 : n.text.index("]")]
        assert f"[^{label}]" in ref.text, (n.id, ref.id)
    # the navigation's chapters are the level-1 headings, and the chapter starts
    tops = [e for e in doc.elements if e.type == "heading" and e.level == 1]
    assert [e.origin for e in tops] == ["outline"] * len(tops)
    chapter_titles = [e.text for e in tops if "1." not in e.text[:6] or "Chapter" in e.text]
    assert any("Building" in t or "构建" in t for t in chapter_titles)
    starts = {doc.elements[i].id for i in major_starts(doc, 5)}
    assert {e.id for e in tops} >= starts and len(starts) >= chapters
    assert doc.outline and doc.outline[0].page >= 1


@pytest.mark.parametrize("path", [EN_EPUB, ZH_EPUB, HTML_DIR], ids=["en", "zh", "html"])
def test_real_converters_books_split_and_verify(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = quire.split(path, tmp_path / "out", processes=1)
    assert result.state == "complete" and result.verification is not None
    assert result.verification.passed, result.verification.findings[:5]
    assert len(result.sessions) >= 2
    doc = load_ir((tmp_path / "out" / "ir.json").read_bytes())
    # the plan honours every chapter start any cut into 5-13-page sessions could, and its
    # study sessions are 5-13 pages (the bench_plan figures of issue 27, on these books)
    starts = {s.page_first for s in result.sessions}
    assert honoured(doc, starts) == oracle_honoured(doc)
    sizes = [s.page_last - s.page_first + 1 for s in result.sessions if s.kind == "study"]
    assert sum(5 <= n <= 13 for n in sizes) >= 0.9 * len(sizes), sizes
    ir = doc.by_id()
    firsts = []
    for s in result.sessions:
        text = s.markdown.read_text(encoding="utf-8") if s.markdown else ""
        found = re.search(r"^elements: (el-\d+)", text, re.M)
        assert found
        firsts.append(ir[found.group(1)])
    # the second chapter (Chapter 6, 构建软件包) starts a session of its own
    assert any(e.type == "heading" and e.level == 1 and e.origin == "outline" for e in firsts[1:])
    assert "[^" in "".join(
        s.markdown.read_text(encoding="utf-8") for s in result.sessions if s.markdown
    )
    with pytest.raises(quire.DocumentFailedError) as refused:
        quire.split(path, tmp_path / "pdf", output_format="pdf", processes=1)
    assert "PDF output needs a PDF source" in str(refused.value)
    assert "\n" not in str(refused.value)


BODY = """
<nav epub:type="landmarks"><ol><li><a href="#x">Start</a></li></ol></nav>
<script>var tracked = 1;</script>
<h1 id="top">Chapter 1. Tables and lists</h1>
<p>A note here<a href="#fn1" epub:type="noteref" id="r1">1</a> and a link to
<a href="#sec">the section</a>.</p>
<p>Old style<a id="ftnref2" href="#ftn2"><sup>[2]</sup></a> note.</p>
<span epub:type="pagebreak" id="p2" title="2"/>
<ul><li>one<ul><li>one-a</li></ul></li><li>two</li></ul>
<ol start="4"><li>four</li><li>five</li></ol>
<dl><dt>term</dt><dd>its meaning</dd></dl>
<table><caption>Table 1. Widths</caption><tr><th colspan="2">wide</th></tr>
<tr><td>a</td><td>b</td></tr></table>
<pre><code class="language-sh">dpkg-buildpackage -us -uc
  debuild</code></pre>
<figure><img src="images/dot.png" alt="A dot"/><figcaption>Figure 1. A dot</figcaption></figure>
<h2 id="sec">1.1. The section<a class="headerlink" href="#sec" title="Permalink">¶</a></h2>
<p dir="rtl">این یک پاراگراف فارسی است.</p>
<aside epub:type="footnote" id="fn1"><p>The first note.</p></aside>
<p id="ftn2"><a href="#ftnref2">[2]</a> The second note, back-linked.</p>
<aside epub:type="footnote" id="lonely"><p>A note nobody refers to stays.</p></aside>
"""


def _mapped() -> Document:
    data = epub_bytes(
        [("c1.xhtml", chapter("One", BODY))],
        nav=[
            (1, "Chapter 1. Tables and lists", "c1.xhtml"),
            (2, "1.1. The section", "c1.xhtml#sec"),
        ],
        extra={"OEBPS/images/dot.png": PNG_1X1},
    )
    return parse_epub_bytes(data, "mapped.epub").document


def test_html_elements_map_to_the_ir() -> None:
    doc = _mapped()
    kinds = [(e.type, e.text) for e in doc.elements]
    by_type: dict[str, list[str]] = {}
    for t, text in kinds:
        by_type.setdefault(t, []).append(text)
    assert by_type["heading"] == ["# Chapter 1. Tables and lists", "## 1.1. The section"]
    section = next(e for e in doc.elements if e.text == "## 1.1. The section")
    assert by_type["paragraph"][0] == f"A note here[^1] and a link to [the section](#{section.id})."
    assert by_type["footnote"] == ["[^1]: The first note.", "[^2]: The second note, back-linked."]
    lists = [e for e in doc.elements if e.type == "list"]
    assert lists[0].items == ["one\n- one-a", "two"] and not lists[0].ordered
    assert lists[1].ordered and lists[1].start == 4 and lists[1].items == ["four", "five"]
    assert lists[2].items == ["term: its meaning"]
    table = next(e for e in doc.elements if e.type == "table")
    assert table.rows == [["wide", ""], ["a", "b"]]
    assert by_type["caption"] == ["Table 1. Widths", "Figure 1. A dot"]
    code = next(e for e in doc.elements if e.type == "code")
    assert code.text == "```\ndpkg-buildpackage -us -uc\n  debuild\n```" and code.language == "sh"
    image = next(e for e in doc.elements if e.type == "image")
    assert image.image is not None
    assert image.image.sha256 == hashlib.sha256(PNG_1X1).hexdigest()
    assert image.image.width == 1 and image.text.startswith("![A dot](images/")
    rtl = next(e for e in doc.elements if "فارسی" in e.text)
    assert rtl.rtl
    assert "A note nobody refers to stays." in by_type["paragraph"]
    assert {(r.kind, r.text) for r in doc.removed} >= {
        ("navigation", "Start"),
        ("script", "var tracked = 1;"),
        ("page_number", "2"),
        ("navigation", "¶"),  # Sphinx's and MkDocs' permalink beside a heading
    }
    assert "tracked" not in "".join(e.text for e in doc.elements)


def test_epub2_ncx_and_epub3_nav_make_the_same_book() -> None:
    chapters, nav = sample_chapters(3), sample_nav(3)
    three = parse_epub_bytes(epub_bytes(chapters, nav=nav), "b3.epub").document
    two = parse_epub_bytes(epub_bytes(chapters, nav=nav, version=2), "b2.epub").document
    assert [e.text for e in three.elements] == [e.text for e in two.elements]
    assert three.outline == two.outline and len(three.outline) == 6
    assert [o.level for o in three.outline] == [1, 2] * 3
    assert [e.text for e in three.elements if e.type == "heading" and e.level == 1] == [
        f"# Chapter {k}. Topic {k}" for k in (1, 2, 3)
    ]


def test_a_flat_navigation_over_sections_leaves_the_headings_their_levels() -> None:
    """pandoc's EPUB of Debian's reference manual lists its 13 chapters and 430 sections
    in one flat list: every heading became a chapter (level 1), and sessions of 5 pages
    were cut at any section (26 of 47 "chapter starts"). A flat list over chapters and
    their sections says nothing of the structure; the headings' own levels stand. A flat
    list of chapters stays chapters, even where one chapter's heading is set a level
    lower."""
    chapters = sample_chapters(3)
    flat = [(1, title, href) for _, title, href in sample_nav(3)]
    doc = parse_epub_bytes(epub_bytes(chapters, nav=flat), "flat.epub").document
    nested = parse_epub_bytes(epub_bytes(chapters, nav=sample_nav(3)), "nested.epub").document
    levels = [e.level for e in doc.elements if e.type == "heading"]
    assert levels == [e.level for e in nested.elements if e.type == "heading"] == [1, 2] * 3
    assert [(o.level, o.title) for o in doc.outline] == [
        (lv, f"Chapter {k}. Topic {k}" if lv == 1 else f"{k}.1. Section")
        for k in (1, 2, 3)
        for lv in (1, 2)
    ]
    # chapters only, one of them an h2: still the chapters
    odd = [(n, x.replace("<h1", "<h2").replace("</h1>", "</h2>")) for n, x in chapters[2:]]
    only = [(1, title, href) for lv, title, href in sample_nav(3) if lv == 1]
    doc = parse_epub_bytes(epub_bytes(chapters[:2] + odd, nav=only), "odd.epub").document
    assert [o.level for o in doc.outline] == [1, 1, 1]
    assert [e.text for e in doc.elements if e.type == "heading" and e.level == 1] == [
        f"# Chapter {k}. Topic {k}" for k in (1, 2, 3)
    ]


def test_a_chapter_the_spine_names_again_by_a_place_inside_it_is_read_once() -> None:
    """SiSU's EPUBs (Debian's live-manual) list "the-basics.xhtml#o163" and two dozen
    more places of each chapter in the spine: read each time, a 60-page book became 900."""
    again = ["ch2.xhtml#s2-1", "ch3.xhtml#s3-1", "ch2.xhtml#ch2"]
    data = epub_bytes(sample_chapters(3), nav=sample_nav(3), spine_extra=again)
    doc = parse_epub_bytes(data, "places.epub").document
    once = parse_epub_bytes(epub_bytes(sample_chapters(3), nav=sample_nav(3)), "b.epub").document
    assert [e.text for e in doc.elements] == [e.text for e in once.elements]
    assert doc.page_count == once.page_count
    assert any("3 spine items name a chapter already read" in n.message for n in doc.notes)


def test_font_obfuscation_is_not_drm() -> None:
    enc = (
        b'<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        b'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
        b'<enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/>'
        b'<enc:CipherData><enc:CipherReference URI="OEBPS/fonts/a.otf"/></enc:CipherData>'
        b"</enc:EncryptedData></encryption>"
    )
    data = epub_bytes(sample_chapters(1), nav=sample_nav(1), extra={"META-INF/encryption.xml": enc})
    assert parse_epub_bytes(data, "fonts.epub").document.elements


def test_html_folder_order_is_stated_by_its_manifest_or_refused(tmp_path: Path) -> None:
    book = tmp_path / "book"
    book.mkdir()
    for k in (1, 2):
        (book / f"c{k}.html").write_text(
            f"<html lang='fa'><body><h1>فصل {k}</h1><p>متن فصل {k}.</p>"
            "<p><img src='img/dot.png' alt='نقطه'></p></body></html>",
            encoding="utf-8",
        )
    (book / "img").mkdir()
    (book / "img" / "dot.png").write_bytes(PNG_1X1)
    with pytest.raises(InputError, match="states no order"):
        bundle_folder(book)
    (book / "manifest.txt").write_text("# order\nc2.html\nc1.html\n", encoding="utf-8")
    parsed = parse_html_bundle(bundle_folder(book), "book.htmlz")
    doc = parsed.document
    assert [e.text for e in doc.elements if e.type == "heading"] == ["# فصل 2", "# فصل 1"]
    assert doc.language == "fa" and all(e.rtl for e in doc.elements if e.type != "image")
    images = [e.image for e in doc.elements if e.image is not None]
    assert len(images) == 2 and images[0].sha256 == hashlib.sha256(PNG_1X1).hexdigest()
    assert parsed.images[images[0].file] == PNG_1X1  # one file for the same bytes
    assert bundle_folder(book) == bundle_folder(book)  # the same files, the same document
    (book / "manifest.txt").write_text("c3.html\n", encoding="utf-8")
    with pytest.raises(InputError, match="lacks"):
        bundle_folder(book)


def test_an_index_pages_contents_and_not_its_prose_orders_the_chapters(tmp_path: Path) -> None:
    """pikepdf's Sphinx index: a list in its introduction links to later chapters ("[Copy
    pages] from one PDF into another") above the contents; those links led the chapter
    order (the tutorial came after the topics) and became the outline's chapters."""
    book = tmp_path / "book"
    book.mkdir()
    names = ["tutorial", "topics", "pages", "api"]
    for name in names:
        (book / f"{name}.html").write_text(
            f"<html><body><h1>{name.title()}</h1><p>{LOREM}</p></body></html>", encoding="utf-8"
        )
    prose = (
        "<ul><li><a href='pages.html'>Copy pages</a> from one PDF into another</li>"
        "<li><a href='api.html'>Split</a> and <a href='topics.html'>merge</a> PDFs</li></ul>"
    )
    contents = "".join(f"<li><a href='{n}.html'>{n.title()}</a></li>" for n in names)
    (book / "index.html").write_text(
        f"<html><body><h1>The library</h1><p>{LOREM}</p>{prose}<ul>{contents}</ul></body></html>",
        encoding="utf-8",
    )
    doc = parse_document(book).document
    chapters = [e.text for e in doc.elements if e.type == "heading" and e.level == 1]
    assert chapters == ["# Tutorial", "# Topics", "# Pages", "# Api"]
    assert [o.title for o in doc.outline] == ["Tutorial", "Topics", "Pages", "Api"]


def test_contents_entries_numbered_outside_their_links_order_the_chapters(
    tmp_path: Path,
) -> None:
    """DocBook's DSSSL stylesheets number a contents entry outside its link ("Part 1. <A>
    Introduction</A>", "2.1. <A>Invoking the script</A>", in uppercase markup): no entry
    was taken for one, and the Advanced Bash-Scripting Guide's 38 chapters were read in the
    order its prose and cross-references cite them, its bibliography and index first. A
    list of tables numbered so (mutt's) is no contents. Its bar of Prev / Next links atop
    every page (CLASS="NAVHEADER", in capitals) was a table there, the target of every
    contents entry, and the chapters' headings kept their page's <H1>."""
    book = tmp_path / "abs"
    book.mkdir()
    pages = [("part1", "Introduction"), ("why", "Shell Programming"), ("bang", "Sha-Bang"),
             ("part2", "Basics"), ("quoting", "Quoting"), ("biblio", "Bibliography")]  # fmt: skip
    bar = (  # DocBook DSSSL's bar atop every page, its class in capitals
        '<DIV CLASS="NAVHEADER"><TABLE><TR><TH COLSPAN="3">The guide</TH></TR><TR>'
        '<TD><A HREF="index.html">Prev</A></TD><TD><A HREF="index.html">Next</A></TD>'
        "</TR></TABLE></DIV>"
    )
    for name, title in pages:
        (book / f"{name}.html").write_text(
            f"<HTML><BODY>{bar}<H1>{title}</H1><P>{LOREM}</P></BODY></HTML>", encoding="utf-8"
        )
    contents = (
        '<DL><DT>I. <A HREF="part1.html">Introduction</A></DT><DD><DL>'
        '<DT>1. <A HREF="why.html">Shell Programming</A></DT>'
        '<DT>2. <A HREF="bang.html">Sha-Bang</A></DT></DL></DD>'
        '<DT>Part 2. <A HREF="part2.html">Basics</A></DT><DD><DL>'
        '<DT>3. <A HREF="quoting.html">Quoting</A></DT></DL></DD>'
        '<DT><A HREF="biblio.html">Bibliography</A></DT></DL>'
        '<DIV CLASS="list-of-tables"><DL><DT>1.1. <A HREF="quoting.html">Quote marks</A></DT>'
        "</DL></DIV>"  # (DocBook XSL's list of tables: no chapters)
    )
    prose = '<P>See <A HREF="biblio.html">the books</A> and <A HREF="quoting.html">quotes</A>.</P>'
    (book / "index.html").write_text(
        f"<HTML><BODY><H1>The guide</H1>{prose}{contents}</BODY></HTML>", encoding="utf-8"
    )
    doc = parse_document(book).document
    titles = [e.text.lstrip("# ") for e in doc.elements if e.type == "heading"]
    assert titles == ["The guide", *(t for _, t in pages)]
    assert not [e for e in doc.elements if e.type == "table"]  # the bars are furniture
    assert [e.level for e in doc.elements if e.type == "heading"][1:] == [1, 2, 2, 1, 2, 1]
    assert [(o.level, o.title) for o in doc.outline] == [
        (1, "Introduction"), (2, "Shell Programming"), (2, "Sha-Bang"),
        (1, "Basics"), (2, "Quoting"), (1, "Bibliography"),
    ]  # fmt: skip


@pytest.mark.parametrize("layout", ["makeinfo", "texi2html"])
def test_a_texinfo_manuals_folder_is_one_book(tmp_path: Path, layout: str) -> None:
    """Texinfo's HTML: makeinfo writes the book's index of terms to Index.html beside the
    top page index.html (asymptote), and texi2html names the top page after the manual,
    with no index.html (maxima.html before maxima_1.html ... maxima_383.html). Both were
    taken for folders of loose files, skipped one by one: the manual was lost."""
    book = tmp_path / "manual"
    book.mkdir()
    top = "index.html" if layout == "makeinfo" else "manual.html"
    nodes = ["Tutorial", "Drawing", "Index"] if layout == "makeinfo" else ["1", "2", "3"]
    files = [f"{n}.html" if layout == "makeinfo" else f"manual_{n}.html" for n in nodes]
    for name, node in zip(files, nodes, strict=True):
        (book / name).write_text(
            f"<html><body><h1>{node}</h1><p>{LOREM}</p></body></html>", encoding="utf-8"
        )
    menu = "".join(f"<li><a href='{f}'>{n}</a></li>" for f, n in zip(files, nodes, strict=True))
    (book / top).write_text(
        f"<html><body><h1>The manual</h1><ul>{menu}</ul></body></html>", encoding="utf-8"
    )
    assert is_html_book(book)
    doc = parse_document(book).document
    chapters = [e.text for e in doc.elements if e.type == "heading" and e.level == 1]
    assert chapters == [f"# {n}" for n in nodes]


def test_the_contents_page_a_texinfo_page_declares_orders_the_book(tmp_path: Path) -> None:
    """texi2html's first page is the first chapter, and a page's lists of cross-references
    (its categories) led the order before its "Next" link (maxima's manual was read 2.1,
    4.3, 4, 5, 8.1, 8, 9, 14.2 ...). Its `rel="contents"` link names the page whose
    entries list the chapters in the book's order; that page, whose "Next" is the first
    chapter, is the book's top page: its title and contents come first, and its entries
    are the outline (the first chapter's own links made it: "Next", "Index", "?")."""
    book = tmp_path / "manual"
    book.mkdir()
    head = "<link href='manual_toc.html#SEC_Contents' rel='contents' title='Contents'>"
    titles = ["Introduction", "Data Types", "Operators", "Plotting"]
    pages = ["manual.html", "manual_1.html", "manual_2.html", "manual_3.html"]
    for k, (page, title) in enumerate(zip(pages, titles, strict=True)):
        nxt = pages[k + 1] if k + 1 < len(pages) else "manual_toc.html"
        later = pages[-1] if k < 2 else pages[0]
        (book / page).write_text(
            f"<html><head>{head}</head><body><div class='header'><p>Next: "
            f"<a href='{nxt}' rel='next'>next</a></p></div><h2>{k + 1} {title}</h2>"
            f"<p>{LOREM}</p><p>Categories:</p><ul><li><a href='{later}'>Later</a></li></ul>"
            "</body></html>",
            encoding="utf-8",
        )
    entries = "".join(f"<li><a href='{p}'>{t}</a></li>" for p, t in zip(pages, titles, strict=True))
    (book / "manual_toc.html").write_text(
        "<html><head><link href='manual.html' rel='next'></head><body><h1>The manual</h1>"
        f"<h2>Table of Contents</h2><ul>{entries}</ul></body></html>",
        encoding="utf-8",
    )
    doc = parse_document(book).document
    headings = [e.text.lstrip("# ") for e in doc.elements if e.type == "heading"]
    assert headings == ["The manual", "Table of Contents"] + [
        f"{k} {t}" for k, t in enumerate(titles, 1)
    ]
    assert [o.title for o in doc.outline] == titles


def test_a_page_is_read_where_its_contents_entry_stands_not_where_prose_mentions_it(
    tmp_path: Path,
) -> None:
    """beets' guide names the chroma plugin in its prose, and lists the web plugin among
    its tips: each plugin's page was read inside the guide, its Plugins chapter three
    chapters later. A page belongs to its own folder's index when that lists it (the
    plugins' list gives each entry as a title and its description, "Chroma: identify
    files by sound")."""
    book = tmp_path / "book"
    (book / "guides").mkdir(parents=True)
    (book / "plugins").mkdir()

    def page(name: str, body: str) -> None:
        (book / name).write_text(f"<html><body>{body}</body></html>", encoding="utf-8")

    page(
        "index.html",
        "<h1>beets</h1><ul><li><a href='guides/index.html'>Guides</a></li>"
        "<li><a href='plugins/index.html'>Plugins</a></li></ul>",
    )
    page("guides/index.html", "<h1>Guides</h1><ul><li><a href='tagger.html'>Tagger</a></li></ul>")
    page(
        "guides/tagger.html",
        f"<h2>Tagger</h2><p>{LOREM} The <a href='../plugins/"
        "chroma.html'>chroma plugin</a> fingerprints files.</p><p>Tips:</p><ul><li>"
        "<a href='../plugins/web.html'>Web</a>: browse the library</li></ul>",
    )
    page(
        "plugins/index.html",
        "<h1>Plugins</h1><ul><li><a href='chroma.html'>Chroma</a>: "
        "identify files by sound</li><li><a href='web.html'>Web</a> – a browser view</li></ul>",
    )
    page("plugins/chroma.html", f"<h2>Chroma</h2><p>{LOREM}</p>")
    page("plugins/web.html", f"<h2>Web</h2><p>{LOREM}</p>")
    doc = parse_document(book).document
    headings = [e.text for e in doc.elements if e.type == "heading"]
    assert headings[1:] == ["# Guides", "## Tagger", "# Plugins", "## Chroma", "## Web"]


def test_the_books_own_contents_order_its_pages_before_a_folders_index(tmp_path: Path) -> None:
    """The Embedded Rust Book's table of contents (mdBook's sidebar) puts the HAL checklist
    first; the HAL chapter's own page lists it last. The book's contents decide. Every
    mdBook page has a search box beside its main content: a short page is no search page."""
    book = tmp_path / "book"
    (book / "hal").mkdir(parents=True)
    pages = ["hal/index", "hal/checklist", "hal/naming"]
    for name in pages:
        title = name.split("/")[1].title()
        own = ""
        if name == "hal/index":
            own = "<ul><li><a href='naming.html'>Naming</a></li><li><a href='checklist.html'>"
            own += "Checklist</a></li></ul>"
        search = "<div id='search-wrapper'><input type='search'/><ul id='searchresults'></ul></div>"
        (book / f"{name}.html").write_text(
            f"<html><body>{search}<main><h1>{title}</h1><p>{LOREM}</p>{own}</main></body></html>",
            encoding="utf-8",
        )
    toc = "".join(f"<li><a href='{n}.html'>{n}</a></li>" for n in pages)
    (book / "index.html").write_text(
        f"<html><body><nav><ol>{toc}</ol></nav><h1>Embedded</h1><p>{LOREM}</p></body></html>",
        encoding="utf-8",
    )
    headings = [e.text.lstrip("# ") for e in parse_document(book).document.elements]
    headings = [h for h in headings if h in ("Index", "Checklist", "Naming")]
    assert headings == ["Index", "Checklist", "Naming"]


@pytest.mark.parametrize("sidebar", ["<div class='sphinxsidebar'>{}</div>", "<aside>{}</aside>"])
def test_a_sidebar_listing_the_chapters_does_not_order_the_book(
    tmp_path: Path, sidebar: str
) -> None:
    """borgbackup's theme sets Sphinx's sidebar (the chapters) before the page's own
    contents (the chapters and their pages), with no navigation role: the chapters came
    first and every nested page after the last chapter. A sidebar of a page that marks its
    main content is no contents either."""
    book = tmp_path / "book"
    book.mkdir()
    chapters = {"usage": ["init", "create"], "faq": []}
    for name, pages in chapters.items():
        for sub in [name, *pages]:
            (book / f"{sub}.html").write_text(
                f"<html><body><h1>{sub.title()}</h1><p>{LOREM}</p></body></html>",
                encoding="utf-8",
            )
    top = "<ul>" + "".join(f"<li><a href='{n}.html'>{n.title()}</a></li>" for n in chapters)
    tree = "<ul>" + "".join(
        f"<li><a href='{n}.html'>{n.title()}</a><ul>"
        + "".join(f"<li><a href='{p}.html'>{p.title()}</a></li>" for p in pages)
        + "</ul></li>"
        for n, pages in chapters.items()
    )
    main = "<div role='main'>" if "aside" in sidebar else "<div>"
    (book / "index.html").write_text(
        "<html><body>"
        + sidebar.format(top + "</ul>")
        + main
        + f"<h1>Borg</h1><p>{LOREM}</p>"
        + tree
        + "</ul></div></body></html>",
        encoding="utf-8",
    )
    doc = parse_document(book).document
    headings = [e.text.lstrip("# ") for e in doc.elements if e.type == "heading"]
    assert headings[1:] == ["Usage", "Init", "Create", "Faq"]
    # Furo: the index's own contents hidden, the sidebar lists the book (and is read), an
    # entry with pages below it carries a control to expand them, named for screen readers
    toggle = "<input type='checkbox'/><label><div class='visually-hidden'>Toggle child pages"
    furo = tree.replace("</a><ul><li>", f"</a>{toggle}</div></label><ul><li>")
    (book / "index.html").write_text(
        "<html><body>" + sidebar.format(furo + "</ul>") + main + f"<h1>Borg</h1><p>{LOREM}"
        "</p></div></body></html>",
        encoding="utf-8",
    )
    doc = parse_document(book).document
    headings = [e.text.lstrip("# ") for e in doc.elements if e.type == "heading"]
    assert headings[1:] == ["Usage", "Init", "Create", "Faq"]
    assert [(o.level, o.title) for o in doc.outline][:2] == [(1, "Usage"), (2, "Init")]


def test_a_sidebar_listing_chapters_the_text_never_links_orders_the_book(tmp_path: Path) -> None:
    """fontforge's index links the general index and a dozen pages it mentions in its
    text, its sidebar the eight chapters: 149 of its 260 pages were not read. A bar
    linking only Sphinx's general index leads nothing (Debian Policy, FRR)."""
    book = tmp_path / "book"
    book.mkdir()
    for name in ("tutorial", "menus", "appendices", "genindex"):
        (book / f"{name}.html").write_text(
            f"<html><body><h1>{name.title()}</h1><p>{LOREM}</p></body></html>", encoding="utf-8"
        )
    sidebar = "".join(
        f"<li><a href='{n}.html'>{n.title()}</a></li>" for n in ("tutorial", "appendices")
    )
    text = "".join(f"<a href='{n}.html'>{n}</a> " for n in ("menus", "tutorial", "genindex"))
    index = book / "index.html"
    index.write_text(
        "<html><body><div class='related' role='navigation'><ul><li><a href='genindex.html'>"
        f"index</a></li></ul></div><div class='sphinxsidebar'><ul>{sidebar}</ul></div>"
        f"<div class='body'><h1>FontForge</h1><p>{LOREM} See {text}.</p></div></body></html>",
        encoding="utf-8",
    )
    chapters = [e.text for e in parse_document(book).document.elements if e.type == "heading"]
    assert chapters[1:3] == ["# Tutorial", "# Appendices"] and "## Menus" in chapters
    index.write_text(index.read_text().replace(sidebar, ""), encoding="utf-8")
    chapters = [e.text for e in parse_document(book).document.elements if e.type == "heading"]
    assert chapters[1:] == ["# Menus", "# Tutorial", "# Genindex"]  # the text's order


def test_pages_no_link_reaches_and_a_search_page_are_named_in_a_warning(
    tmp_path: Path,
) -> None:
    """A folder's pages that no link of the book reaches are not read (borgbackup's
    introduction, linked only from a single-page copy), nor is a site's search page, which
    the index links ("Search Page": Sphinx's notice to activate JavaScript was mypy's last
    chapter). The reader is told which."""
    book = tmp_path / "book"
    book.mkdir()
    (book / "index.html").write_text(
        f"<html><body><h1>Book</h1><p>{LOREM}</p><ul><li><a href='one.html'>One</a></li>"
        "<li><a href='search.html'>Search Page</a></li></ul></body></html>",
        encoding="utf-8",
    )
    for name in ("one", "introduction"):
        (book / f"{name}.html").write_text(
            f"<html><body><h1>{name}</h1><p>{LOREM}</p></body></html>", encoding="utf-8"
        )
    (book / "search.html").write_text(
        "<html><body><div role='main'><h1>Search</h1><noscript><p>Please activate JavaScript "
        "to enable the search functionality.</p></noscript><form><input name='q'/></form>"
        "<div id='search-results'></div></div><aside>" + LOREM * 3 + "</aside></body></html>",
        encoding="utf-8",
    )
    doc = parse_document(book).document
    [warning] = [n.message for n in doc.notes if n.kind == "warning"]
    assert warning.startswith("2 HTML pages not read (no link of the book leads there, or a ")
    assert "introduction.html, search.html" in warning
    assert not [e for e in doc.elements if "JavaScript" in e.text or e.text == "# Search"]


def test_an_mdbook_is_read_in_its_sidebars_order_once(tmp_path: Path) -> None:
    """mdBook (the Rust books) puts the table of contents in a sidebar on every page, its
    text links to a few later pages, its menu bar links "print.html" (the whole book on one
    page), and its index.html is a copy of the first chapter. The book was read from
    index.html, then print.html, then the pages the text links to: the embedded Rust book
    came out 118 pages long, its last 42 a second copy."""
    book = tmp_path / "book"
    (book / "intro").mkdir(parents=True)
    chapters = {
        "intro/index": "Introduction",
        "intro/install": "Installation",
        "start": "Getting started",
        "peripherals": "Peripherals",
        "glossary": "Glossary",
    }
    see = "See <a href='{up}glossary.html'>the glossary</a>, <a href='{up}start.html'>start</a>."

    def page(name: str, up: str) -> str:
        sidebar = "".join(f"<li><a href='{up}{n}.html'>{t}</a></li>" for n, t in chapters.items())
        body = see.format(up=up) if name == "intro/index" else ""
        return (
            f"<html><body><nav id='sidebar' class='sidebar'><ol class='chapter'>{sidebar}</ol>"
            "</nav><div id='menu-bar' class='menu-bar'><h1 class='menu-title'>The Book</h1>"
            f"<a href='{up}print.html' title='Print this book'>Print</a></div>"
            f"<main><h1>{chapters[name]}</h1><p>{LOREM} {body}</p></main></body></html>"
        )

    for name in chapters:
        (book / f"{name}.html").write_text(page(name, "../" * name.count("/")), "utf-8")
    (book / "index.html").write_text(page("intro/index", ""), encoding="utf-8")
    whole = "".join(f"<h1>{t}</h1><p>{LOREM}</p>" for t in chapters.values())
    (book / "print.html").write_text(f"<html><body><main>{whole}</main></body></html>", "utf-8")
    doc = parse_document(book).document
    headings = [e.text for e in doc.elements if e.type == "heading"]
    assert headings == [f"# {t}" for t in chapters.values()]  # each once, in the sidebar's order
    assert [o.title for o in doc.outline] == list(chapters.values())
    assert not any("The Book" in e.text for e in doc.elements)  # the menu bar is chrome
    assert any("index.html repeats intro/index.html" in n.message for n in doc.notes)


def test_one_html_file_brings_its_images(tmp_path: Path) -> None:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "dot.png").write_bytes(PNG_1X1)
    page = tmp_path / "page.html"
    page.write_text(
        "<html><body><h1>Title</h1><p>Text <img src='img/dot.png' alt='dot'>"
        "<img src='http://example.invalid/x.png'></p></body></html>",
        encoding="utf-8",
    )
    parsed = parse_document(page)
    images = [e for e in parsed.document.elements if e.type == "image"]
    assert len(images) == 1 and images[0].image is not None
    assert parsed.images[images[0].image.file] == PNG_1X1
    assert any("outside the book" in n.message for n in parsed.document.notes)


def test_pictures_count_in_estimated_pages(tmp_path: Path) -> None:
    """A lab manual's screenshots: without a page-list, a picture counts as the words that
    would fill it at 96 pixels an inch, scaled to a 6.5 x 9 inch text area."""
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "wide.png").write_bytes(png_bytes(1248, 864))  # half: scaled down
    (tmp_path / "img" / "tall.png").write_bytes(png_bytes(300, 2000))  # a page at most
    (tmp_path / "img" / "icon.png").write_bytes(png_bytes(32, 32))
    words = " ".join(["word"] * 100)
    page = tmp_path / "page.html"
    page.write_text(
        f"<html><body><h1>Title</h1><p>{words}</p><p><img src='img/wide.png' alt='w'></p>"
        f"<p><img src='img/tall.png' alt='t'></p><p><img src='img/icon.png' alt='i'> {words}"
        "</p></body></html>",
        encoding="utf-8",
    )
    doc = parse_document(page).document
    shares = [e.page_share for e in doc.elements if e.type == "image"]
    assert shares == [0.5, 1.0, round(32 / 864, 3)]
    assert doc.page_basis == "words" and doc.page_count == 3  # 1 + 5 words, 1.5 pages
    assert doc.elements[-1].page_first == 3


@pytest.mark.parametrize("version", [3, 2])
def test_page_list_pages_are_the_printed_editions(
    version: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chapters, pages = paged_chapters(3)
    data = epub_bytes(chapters, nav=sample_nav(3)[::2], page_list=pages, version=version)
    doc = parse_epub_bytes(data, "paged.epub").document
    assert doc.page_basis == "print" and doc.page_count == len(pages) == 18
    firsts = [e.page_first for e in doc.elements]
    assert firsts == sorted(firsts) and doc.elements[0].page_first == 1
    split = next(e for e in doc.elements if "(1-13)" in e.text)  # its page break inside
    assert (split.page_first, split.page_last) == (5, 6)
    assert [o.page for o in doc.outline] == [1, 7, 13]
    assert [r.text for r in doc.removed if r.kind == "page_number"] == [p for p, _ in pages]
    # without its page-list, the same book's pages are estimated
    plain = parse_epub_bytes(epub_bytes(chapters, nav=sample_nav(3)[::2]), "p.epub").document
    assert plain.page_basis == "words" and plain.page_count < 18
    if version == 3:
        monkeypatch.chdir(tmp_path)
        (tmp_path / "paged.epub").write_bytes(data)
        result = quire.split(tmp_path / "paged.epub", tmp_path / "out", processes=1)
        assert result.verification is not None and result.verification.passed
        assert [s.page_first for s in result.sessions] == [1, 7, 13]


def test_endnotes_in_their_own_file_and_office_back_links_are_tied_to_their_references(
    tmp_path: Path,
) -> None:
    body = (
        '<h1>Chapter 1. Notes</h1><p>See the end<a href="notes.xhtml#en1" '
        'epub:type="noteref">i</a> and again<a href="notes.xhtml#en2" epub:type="noteref">ii'
        "</a>.</p>"
    )
    notes = (
        '<section epub:type="endnotes"><h1>Notes</h1><ol>'
        '<li id="en1" epub:type="endnote"><p>First endnote.</p></li>'
        '<li id="en2" epub:type="endnote"><p>Second endnote.</p></li></ol></section>'
    )
    data = epub_bytes(
        [("c1.xhtml", chapter("One", body)), ("notes.xhtml", chapter("Notes", notes))],
        nav=[(1, "Chapter 1. Notes", "c1.xhtml"), (1, "Notes", "notes.xhtml")],
    )
    doc = parse_epub_bytes(data, "endnotes.epub").document
    texts = [e.text for e in doc.elements]
    assert texts == [
        "# Chapter 1. Notes",
        "See the end[^i] and again[^ii].",
        "[^i]: First endnote.",
        "[^ii]: Second endnote.",
        "# Notes",
    ]
    # LibreOffice's HTML export: anchors by name, the note links back to its reference
    page = tmp_path / "office.html"
    page.write_text(
        "<html><body><h1>Title</h1><p>Text<a class='sdfootnoteanc' name='sdfootnote1anc' "
        "href='#sdfootnote1sym'><sup>1</sup></a> goes on.</p>"
        "<div id='sdfootnote1'><p><a class='sdfootnotesym' name='sdfootnote1sym' "
        "href='#sdfootnote1anc'>1</a>The note.</p></div></body></html>",
        encoding="utf-8",
    )
    office = parse_document(page).document
    assert [e.text for e in office.elements] == [
        "# Title",
        "Text[^1] goes on.",
        "[^1]: The note.",
    ]


def test_sphinx_footnotes_in_a_definition_list_are_notes_and_their_marks_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docutils writes a footnote as `<dl class="footnote">`: a term with its label and
    back-link, a definition with its text. Cython's manual refers to three from a table: the
    marks vanished (the notes read as empty) and left two spaces in the Markdown rows, so
    verification failed the document; in a paragraph the mark vanished unseen."""
    ref = '<a class="footnote-reference brackets" href="#id{n}" id="r{n}">{n}</a>'
    note = (
        '<dt class="label" id="id{n}"><span class="brackets">'
        '<a class="fn-backref" href="#r{n}">{n}</a></span></dt><dd><p>{text}</p></dd>'
    )
    prose = " ".join(["Automatic conversions work for the basic numeric and string types."] * 30)
    page = tmp_path / "types.html"
    page.write_text(
        "<html><body><h1>Types</h1><p>" + prose + "</p>"
        "<table><thead><tr><th>C types</th><th>To Python types</th></tr></thead><tbody>"
        f"<tr><td>char*</td><td><p>str/bytes {ref.format(n=3)}</p></td></tr>"
        f"<tr><td>C array</td><td><p>list {ref.format(n=5)}</p></td></tr></tbody></table>"
        f"<p>Unions convert too{ref.format(n=4)} with care.</p>"
        '<dl class="footnote brackets">'
        + note.format(n=3, text="To/from str for Python 2, bytes for Python 3.")
        + note.format(n=4, text="A union of an int and a char* is refused.")
        + note.format(n=5, text="Other than signed/unsigned char[].")
        + "</dl><p>More text follows here.</p></body></html>",
        encoding="utf-8",
    )
    doc = parse_document(page).document
    table = next(e for e in doc.elements if e.type == "table")
    assert table.rows is not None and table.rows[1:] == [
        ["char*", "str/bytes [^3]"],
        ["C array", "list [^5]"],
    ]
    texts = [e.text for e in doc.elements if e.type != "table"][2:]
    assert texts == [
        "[^3]: To/from str for Python 2, bytes for Python 3.",
        "[^5]: Other than signed/unsigned char[].",
        "Unions convert too[^4] with care.",
        "[^4]: A union of an int and a char* is refused.",
        "More text follows here.",
    ]
    monkeypatch.chdir(tmp_path)
    result = quire.split(page, tmp_path / "out", processes=1)
    assert result.verification is not None and result.verification.passed
    # a reference whose note has no text keeps the mark the book prints
    empty = tmp_path / "empty.html"
    empty.write_text(
        f"<html><body><h1>T</h1><p>A claim{ref.format(n=7)} stands.</p>"
        '<p id="id7"></p></body></html>',
        encoding="utf-8",
    )
    assert [e.text for e in parse_document(empty).document.elements] == ["# T", "A claim7 stands."]


def test_image_syntax_shown_in_a_listing_is_text_not_an_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pelican's manual shows Markdown in listings (`![Photo]({attach}photo.jpg)`): the
    verifier took each for an image link to a missing file and failed the document."""
    page = tmp_path / "content.html"
    page.write_text(
        "<html><body><h1>Writing content</h1><p>A post links its files:</p><pre>"
        "Title: Test Post\n\n![Photo]({attach}photo.jpg)\n![Alt Text](images/han.jpg)\n"
        "</pre><p>Site generation copies them.</p></body></html>",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    result = quire.split(page, tmp_path / "out", processes=1)
    assert result.verification is not None and result.verification.passed
    text = "\n".join(p.read_text() for p in (tmp_path / "out").glob("01-*.md"))
    assert "![Photo]({attach}photo.jpg)" in text and "![Alt Text](images/han.jpg)" in text


def _sessions_markdown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, html: str) -> str:
    """The session files of `html` split and verified, one after another."""
    page = tmp_path / "content.html"
    page.write_text(html, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = quire.split(page, tmp_path / "out", processes=1)
    assert result.verification is not None and result.verification.passed
    return "\n".join(p.read_text() for p in sorted((tmp_path / "out").glob("0*.md")))


def test_an_exclamation_before_a_link_is_written_as_text_not_an_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """selnolig's manual ends a sentence with "errors!" and its footnote marks' links follow
    ("errors![33,](#el-000272)"): Markdown reads that as an image, and the verifier failed
    the document over an image that does not exist. A book quoting Markdown's image syntax
    in its text is the same case. The "!" is written escaped and reads as the book's."""
    from markdown_it import MarkdownIt

    text = _sessions_markdown(
        tmp_path,
        monkeypatch,
        "<html><body><h1>Ligatures</h1>"
        f"<p>{LOREM} It still made 21,000 errors!<a href='#later'>[33]</a> Write "
        "![Photo](photo.jpg) to show a picture.</p>"
        f"<h2 id='later'>Later</h2><p>{LOREM}</p></body></html>",
    )
    assert "errors\\![\\[33\\]](#later)" in text and "Write \\![Photo](photo.jpg)" in text
    rendered = MarkdownIt("commonmark").render(text)
    assert "<img" not in rendered
    assert 'errors!<a href="#later">[33]</a>' in rendered and "Write !<a" in rendered


def test_book_text_that_reads_as_markup_is_written_to_read_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A TeX manual's "\\_" and "\\\\" showed as "_" and "\\" (a backslash escapes the
    punctuation after it). startex's manual opens a paragraph with "<style>", which a
    Markdown viewer takes for an HTML block running to "</style>" (the rest of the session
    gone); placeholders such as "<source>" are tags a viewer drops; a root prompt "# mount"
    (in a paragraph or a list item) became a heading and a quoted fence turned what follows
    into code. Rendered as a viewer renders it (raw HTML on), every one reads as the book's
    text; code, and a code span in the book's own backticks, are left as they are."""
    from markdown_it import MarkdownIt

    lines = [
        "&lt;style&gt; The command &lt;style&gt; is called to read a document style.",
        "Copy it with cp &lt;source&gt; &lt;target&gt; and keep &lt;https://ctan.org/&gt;.",
        "# mount /dev/sda1 /mnt",
        "```python",
        "A book that quotes code in backticks: `make &lt;target&gt;`.",
        r"In TeX \_ prints an underscore, \\ ends a line, \$ costs \$5 and a\.b matches.",
        "The last paragraph is plain text.",
    ]
    text = _sessions_markdown(
        tmp_path,
        monkeypatch,
        "<html><body><h1>Styles</h1>"
        + "".join(f"<p>{line}</p>" for line in lines)
        + "<ul><li># a comment line</li><li>an item</li></ul>"
        + "<pre>#include &lt;stdio.h&gt;</pre></body></html>",
    )
    assert "\\<style> The command \\<style>" in text and "```\n#include <stdio.h>\n```" in text
    rendered = MarkdownIt("commonmark").render(text)
    for shown in [
        "&lt;style&gt; The command &lt;style&gt; is called",
        'cp &lt;source&gt; &lt;target&gt; and keep <a href="https://ctan.org/">',
        "<p># mount /dev/sda1 /mnt</p>",
        "<p>```python</p>",
        "<p>The last paragraph is plain text.</p>",
        "<li># a comment line</li>",
        "backticks: <code>make &lt;target&gt;</code>.",
        r"In TeX \_ prints an underscore, \\ ends a line, \$ costs \$5 and a\.b matches.",
        "<code>#include &lt;stdio.h&gt;\n</code>",
    ]:
        assert shown in rendered, shown


def test_a_folder_written_before_the_escapes_is_verified_as_it_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Manifest version 1 folders hold the book's "<" as it is: an upgrade must not fail the
    outputs it finds (a run of a document done before exports and verifies them again),
    and a version 2 folder without its escapes is altered."""
    import hashlib
    import json

    from quire.workers.verify.report import verify_output

    _sessions_markdown(
        tmp_path,
        monkeypatch,
        f"<html><body><h1>Styles</h1><p>{LOREM} Copy with cp &lt;source&gt; &lt;target&gt;.</p>"
        "<p># mount /dev/sda1 /mnt</p></body></html>",
    )
    out = tmp_path / "out"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["manifest_version"] == 2
    for chunk in manifest["chunks"]:  # the files as version 1 wrote them
        path = out / chunk["markdown_file"]
        path.write_text(path.read_text().replace("\\<", "<").replace("\\#", "#"))
        chunk["files"][chunk["markdown_file"]] = hashlib.sha256(path.read_bytes()).hexdigest()
    assert "cp <source> <target>" in (out / manifest["chunks"][0]["markdown_file"]).read_text()
    for version, passed in ((2, False), (1, True)):
        manifest["manifest_version"] = version
        (out / "manifest.json").write_text(json.dumps(manifest, indent=2))
        report = verify_output(out, render=False)
        assert report.passed is passed, report.findings
        assert passed or {f.kind for f in report.findings} == {"altered"}


def test_an_html_books_contents_of_links_is_front_matter(tmp_path: Path) -> None:
    """A contents list carries links where a printed one carries page numbers: the index
    page of a folder (title, then a list of links to every section) is front matter, and
    the first chapter after it is not."""
    from quire.workers.boundaries.matter import find_matter

    book = tmp_path / "book"
    book.mkdir()
    toc = []
    for k in range(1, 13):
        sections = "".join(
            f"<li><a href='c{k}.html#s{j}'>{k}.{j}. Section {j} of part {k}</a></li>"
            for j in range(1, 9)
        )
        toc.append(f"<li><a href='c{k}.html'>{k}. Part {k}</a><ul>{sections}</ul></li>")
        paras = "".join(
            f"<h2 id='s{j}'>{k}.{j}. Section {j} of part {k}</h2><p>{LOREM * 4}</p>"
            for j in range(1, 9)
        )
        (book / f"c{k}.html").write_text(
            f"<html><body><h1>Chapter {k}. Part {k}</h1>{paras}</body></html>", encoding="utf-8"
        )
    (book / "index.html").write_text(
        "<html><body><h1>The Book</h1><p>An author</p><p><b>Table of Contents</b></p>"
        f"<ul>{''.join(toc)}</ul></body></html>",
        encoding="utf-8",
    )
    doc = parse_document(book).document
    regions = find_matter(doc)
    assert [r.kind for r in regions][:1] == ["front_matter"], regions
    first = next(i for i, e in enumerate(doc.elements) if e.text == "# Chapter 1. Part 1")
    ids = {e.id: i for i, e in enumerate(doc.elements)}
    assert ids[regions[0].first_id] == 0 and ids[regions[0].last_id] < first
    assert regions[0].label.endswith("contents")


def test_contents_set_as_headings_are_entries_and_front_matter(tmp_path: Path) -> None:
    """SiSU's EPUBs (Debian's Live Systems Manual) open with a contents page whose every
    entry is an <h1>-<h6> linking to its chapter: they were 200 headings and an 8-page
    first study session. Headings that link back to one contents page (texi2html) stay
    headings."""
    from quire.workers.boundaries.matter import find_matter

    entries, chapters = [], []
    for k in range(1, 7):
        entries.append(f"<h1 class='toc'>Part {k}</h1>")
        entries.append(f"<h4 class='toc'><a href='c{k}.xhtml'>{k}. Chapter {k}</a></h4>")
        entries += [
            f"<h5 class='toc'><a href='c{k}.xhtml#s{j}'>{k}.{j} Section {j}</a></h5>"
            for j in range(1, 13)
        ]
        sections = "".join(
            f"<h2 id='s{j}'><a href='index.xhtml#t{k}'>{k}.{j} Section {j}</a></h2>"
            f"<p>{LOREM * 4}</p>"
            for j in range(1, 13)
        )
        chapters.append((f"c{k}.xhtml", chapter(f"C{k}", f"<h1>{k}. Chapter {k}</h1>{sections}")))
    contents = ("index.xhtml", chapter("Contents", "<p>The Manual</p>" + "".join(entries)))
    doc = parse_epub_bytes(epub_bytes([contents, *chapters]), "sisu.epub").document
    headings = [e.text for e in doc.elements if e.type == "heading"]
    assert len(headings) == 6 * 13  # the chapters' own, each section's linking back included
    assert headings[:3] == ["# 1. Chapter 1", "## 1.1 Section 1", "## 1.2 Section 2"]
    regions = find_matter(doc)
    assert [r.kind for r in regions][:1] == ["front_matter"], regions
    ids = {e.id: i for i, e in enumerate(doc.elements)}
    first = next(i for i, e in enumerate(doc.elements) if e.text == "# 1. Chapter 1")
    assert ids[regions[0].last_id] == first - 1


FOOTER = "© Copyright 2001-2026, the authors. Last updated on 7 October. Created using Sphinx."


def test_a_footer_repeated_in_most_chapters_is_removed_as_a_running_footer() -> None:
    # Sphinx's HTML (the Python tutorial) ends every page with the same copyright block
    chapters = []
    for k in range(1, 5):
        body = (
            f"<h1>Chapter {k}</h1><p>Text of chapter {k} about topic {k}.</p>"
            '<div class="admonition"><p>Note</p><p>A remark of its own, number '
            f"{k}, long enough to count.</p></div>"
            f'<div class="footer"><p>{FOOTER}</p></div>'
        )
        if k == 2:  # a long sentence in one chapter only stays
            body += "<p>This sentence stands in the second chapter and nowhere else at all.</p>"
        chapters.append((f"ch{k}.xhtml", chapter(f"Chapter {k}", body)))
    doc = parse_epub_bytes(epub_bytes(chapters), "sphinx.epub").document
    texts = [e.text for e in doc.elements]
    assert not any("Copyright" in x for x in texts)
    assert [(r.kind, r.text) for r in doc.removed if "Copyright" in r.text] == [
        ("footer", FOOTER)
    ] * 4
    assert texts.count("Note") == 4  # a short label repeated in every chapter is text
    assert any("nowhere else" in x for x in texts)
    # two chapters are too few to tell a running footer from a repeated paragraph
    two = parse_epub_bytes(epub_bytes(chapters[:2]), "two.epub").document
    assert sum("Copyright" in e.text for e in two.elements) == 2


def test_a_sites_name_heading_atop_every_page_is_a_running_header(tmp_path: Path) -> None:
    # exim's specification: every chapter page opens with the site's name as a heading, all
    # one link (`<h1><a href="http://www.exim.org">Exim Internet Mailer</a></h1>`); it made
    # every page a chapter of that name and titled all 90 sessions "Exim Internet Mailer".
    # A chapter's own title, a link to its page, stays.
    book = tmp_path / "spec"
    book.mkdir()
    banner = "<h1 id='header'><a href='http://www.example.org'>Example Mailer</a></h1>"
    titles = ["Introduction", "Routers", "Transports", "Logging"]
    for k, title in enumerate(titles, 1):
        (book / f"ch{k}.html").write_text(
            f"<html><body>{banner}<div id='content'><h2><a href='ch{k}.html'>Chapter {k} - "
            f"{title}</a></h2><p>{LOREM}</p></div></body></html>",
            encoding="utf-8",
        )
    entries = "".join(f"<li><a href='ch{k}.html'>{t}</a></li>" for k, t in enumerate(titles, 1))
    (book / "index.html").write_text(
        f"<html><body><h1>The specification</h1><ul>{entries}</ul></body></html>",
        encoding="utf-8",
    )
    doc = parse_document(book).document
    headings = [e.text.lstrip("# ") for e in doc.elements if e.type == "heading"]
    assert headings == ["The specification"] + [
        f"Chapter {k} - {t}" for k, t in enumerate(titles, 1)
    ]
    assert [(r.kind, r.text) for r in doc.removed if "Mailer" in r.text] == [
        ("header", "Example Mailer")
    ] * 4


def test_a_texinfo_button_bar_neither_orders_the_book_nor_enters_its_outline(
    tmp_path: Path,
) -> None:
    # zsh's manual (texi2any): a bar of buttons "<<  <  Up  >  >>  Top Contents Index ?"
    # atop and under every page; its Index button led the order into the indexes right
    # after the first chapter, and its buttons were four chapters of the outline
    book = tmp_path / "zsh"
    book.mkdir()
    pages = ["Manual.html", "Intro.html", "Grammar.html", "Concept-Index.html"]
    titles = ["1 The Manual", "2 Introduction", "3 Shell Grammar", "Concept Index"]

    def bar(k: int) -> str:
        nxt = pages[min(k + 1, len(pages) - 1)]
        cells = [(nxt, " &gt; "), ("index.html", "Top"), ("toc.html", "Contents")]
        cells += [("Concept-Index.html", "Index"), ("about.html", " ? ")]
        tds = "".join(f"<td>[<a href='{h}'>{t}</a>]</td>" for h, t in cells)
        return f"<table class='header'><tr>{tds}</tr></table>"

    for k, (page, title) in enumerate(zip(pages, titles, strict=True)):
        (book / page).write_text(
            f"<html><body>{bar(k)}<h2>{title}</h2><p>{LOREM}</p>{bar(k)}</body></html>",
            encoding="utf-8",
        )
    entries = "".join(f"<li><a href='{p}'>{t}</a></li>" for p, t in zip(pages, titles, strict=True))
    for name, title in [("toc.html", "Table of Contents"), ("about.html", "About")]:
        (book / name).write_text(
            f"<html><body><h1>{title}</h1><ul>{entries}</ul></body></html>", encoding="utf-8"
        )
    (book / "index.html").write_text(
        f"<html><body>{bar(-1)}<h1>The Z Shell Manual</h1><ul>{entries}</ul></body></html>",
        encoding="utf-8",
    )
    doc = parse_document(book).document
    headings = [e.text.lstrip("# ") for e in doc.elements if e.type == "heading"]
    assert headings == ["The Z Shell Manual", *titles]
    assert [o.title for o in doc.outline] == titles


def test_a_texinfo_header_line_of_neighbour_links_is_no_text(tmp_path: Path) -> None:
    """texi2any's line atop each node, "Next: <a rel=next>…</a>, Previous: <a rel=prev>…</a>,
    Up: <a rel=up>…</a> [Contents]", has words outside its links, so no button bar; it
    stood in the text of every page (maxima's HTML manual 550 times, autoconf's 229), and
    its copy under the node, whose links have no `rel`, in sbcl-internals'. A header of
    links to neighbour pages, or of three links or more and a label for each, is
    navigation; a footer with a link to elsewhere stays text."""
    book = tmp_path / "sbcl"
    book.mkdir()
    pages = ["index.html", "Build.html", "Calling.html"]
    titles = ["SBCL Internals", "1 Build", "2 Calling Convention"]

    def header(k: int) -> str:
        links = []
        if k + 1 < len(pages):
            links.append(f"Next: <a href='{pages[k + 1]}' rel='next'>{titles[k + 1]}</a>")
        if k > 0:
            links.append(f"Previous: <a href='{pages[k - 1]}' rel='prev'>{titles[k - 1]}</a>")
            links.append("Up: <a href='index.html' rel='up'>SBCL Internals</a>")
        links.append("[<a href='index.html#SEC_Contents' rel='contents'>Contents</a>]")
        return f"<div class='header'><p>{', '.join(links)}</p></div><hr>"

    entries = "".join(
        f"<li><a href='{p}'>{t}</a></li>" for p, t in zip(pages[1:], titles[1:], strict=True)
    )
    for k, (page, title) in enumerate(zip(pages, titles, strict=True)):
        body = f"<ul>{entries}</ul>" if k == 0 else f"<p>{LOREM}</p>"
        under = header(k)  # the line under a node: on a page of nodes, no `rel` but one
        if k:
            under = under.replace(" rel='next'", "").replace(" rel='prev'", "")
            under = under.replace(" rel='up'", "")
        (book / page).write_text(
            f"<html><body>{header(k)}<h2>{title}</h2>{body}{under}"
            "<div class='footer'><p>Made with <a href='https://www.gnu.org/'>Texinfo</a>"
            "</p></div></body></html>",
            encoding="utf-8",
        )
    doc = parse_document(book).document
    texts = [e.text for e in doc.elements]
    assert not [t for t in texts if t.startswith(("Next:", "Previous:"))]
    assert [e.text.lstrip("# ") for e in doc.elements if e.type == "heading"] == titles
    assert sum("Made with" in t for t in texts) >= 1  # a footer with another link stays


def test_a_footer_whose_page_buttons_differ_is_removed_in_every_chapter() -> None:
    """pikepdf's Sphinx footer holds "Previous" and "Next" buttons: the first chapter has
    no "Previous", the last no "Next", and their footers stayed in the text; ocrmypdf's
    index page ends with links "Index", "Search Page", and its buttons' "Next" stood
    between them and the footer, which was then no edge of the page."""
    chapters = []
    for k in range(1, 5):
        buttons = ("<a href='p'>Previous</a>" if k > 1 else "") + (
            "<a href='n'>Next</a>" if k < 4 else ""
        )
        links = "<ul><li><p><a href='i'>Index</a></p></li><li><p><a href='s'>Search Page</a>"
        body = (
            f"<div><h1>Chapter {k}</h1><p>Text of chapter {k} about topic {k}.</p>"
            + (f"{links}</p></li></ul>" if k == 1 else "")
            + "</div><footer><div role='navigation'>"
            f"{buttons}</div><p>© Copyright 2022, J. R. Barlow. Licensed under CC BY-SA.</p>"
            "Built with Sphinx using a theme provided by Read the Docs.</footer>"
        )
        chapters.append((f"ch{k}.xhtml", chapter(f"Chapter {k}", body)))
    doc = parse_epub_bytes(epub_bytes(chapters), "sphinx.epub").document
    assert not any("Copyright" in e.text or "Sphinx" in e.text for e in doc.elements)
    assert sum(r.kind == "footer" for r in doc.removed) == 4


def test_a_publican_books_banner_logos_and_page_links_are_removed(tmp_path: Path) -> None:
    """The Debian Handbook's HTML (Publican): every page opens with a banner link
    "Download the ebook", the site's two logos and a Prev / Home / Next list, and ends with
    another; they stood 127 times in its study sessions (the banner was too short to count
    as a running header, the logos had no text, the lists were no known navigation)."""
    book = tmp_path / "handbook"
    (book / "img").mkdir(parents=True)
    (book / "img" / "logo.png").write_bytes(png_bytes(40, 40))
    top = (
        '<div id="banner"><a href="https://example.org/get"><span>Download the ebook'
        '</span></a></div><p id="title"><a href="https://example.org"><img alt="Site" '
        'src="img/logo.png"/></a></p>'
    )
    names = ["index"] + [f"c{k}" for k in range(1, 5)]
    contents = "<ul>" + "".join(f"<li><a href='{n}.html'>Part {n}</a></li>" for n in names[1:])
    for k, name in enumerate(names):
        back = f'<a href="{names[k - 1]}.html"><strong>Prev</strong>Part {k - 1}</a>'
        nav = f'<ul class="docnav"><li>{back if k else ""}</li><li>Home</li></ul>'
        body = f"<h1>Part {k}</h1>" + f"<p>{LOREM}</p>" * 14  # over 2,000 characters
        body += "<p>The label Note</p>" if k == 2 else ""
        body += contents + "</ul>" if k == 0 else ""
        (book / f"{name}.html").write_text(
            f"<html><body>{top}{nav}<div class='chapter'>{body}</div>{nav}</body></html>",
            encoding="utf-8",
        )
    doc = parse_document(book).document
    texts = [e.text for e in doc.elements]
    assert not [t for t in texts if "ebook" in t or "Prev" in t or t.startswith("![")]
    assert texts.count("# Part 2") == 1 and "The label Note" in texts
    removed = [(r.kind, r.text) for r in doc.removed]
    assert removed.count(("header", "Download the ebook")) == 5
    assert removed.count(("header", "<img img/logo.png>")) == 5
    assert sum(kind == "navigation" for kind, _ in removed) == 10


def test_a_site_themes_chrome_around_the_main_content_is_removed(tmp_path: Path) -> None:
    """Furo (kitty's manual) puts its whole navigation tree in an `aside` with no role, and
    labels "Hide navigation sidebar" for screen readers beside the page: the first study
    session was titled by those labels, and each page's tree doubled the book's pages. A
    page that marks its one main content keeps only that; the rest is navigation."""
    tree = "<ul>" + "".join(f"<li><a href='#s{k}'>Section {k}</a></li>" for k in range(40))
    page = tmp_path / "furo.html"
    page.write_text(
        "<html><body><label for='nav'><div class='visually-hidden'>Hide navigation sidebar"
        "</div></label><div class='page'><aside class='sidebar-drawer'><form role='search'>"
        "<input placeholder='Search'/></form>" + tree + "</ul></aside><div class='main'>"
        "<a href='#' class='back-to-top'>Back to top</a><article role='main'><h1>kitty</h1>"
        f"<p>{LOREM}</p><section id='s1'><h2>Fast</h2><p>{LOREM}</p></section></article>"
        "</div></div></body></html>",
        encoding="utf-8",
    )
    doc = parse_document(page).document
    assert [e.text for e in doc.elements] == ["# kitty", LOREM.strip(), "## Fast", LOREM.strip()]
    removed = [r.text for r in doc.removed if r.kind == "navigation"]
    assert "Hide navigation sidebar" in removed and "Back to top" in removed
    # without a main, or with two, every block is read as before
    two = page.read_text().replace("<aside ", "<main><p>Other</p></main><aside ")
    page.write_text(two, encoding="utf-8")
    texts = [e.text for e in parse_document(page).document.elements]
    assert "Hide navigation sidebar" in texts[0] and "Other" in texts


def test_a_long_list_is_cut_into_lists_of_a_few_pages() -> None:
    # the Python reference's "standard type hierarchy": a 13-page definition list was one
    # element, so the plan could not end a session inside it and left a 3-page one before
    item = " ".join(["word"] * 99)
    terms = "".join(f"<dt>Type {k}</dt><dd>{item}</dd>" for k in range(40))
    steps = "".join(f"<li>{item}</li>" for k in range(30))
    body = f'<h1>Data model</h1><dl>{terms}</dl><ol start="3">{steps}</ol>'
    doc = parse_epub_bytes(epub_bytes([("c1.xhtml", chapter("Data", body))]), "l.epub").document
    lists = [e for e in doc.elements if e.type == "list"]
    assert all(e.word_count <= MAX_LIST_WORDS for e in lists)
    described = [e for e in lists if not e.ordered]
    assert sum(len(e.items) for e in described) == 40 and len(described) == 4
    assert described[1].items[0].startswith("Type 11: word")  # 11 of 101 words a run
    numbered = [e for e in lists if e.ordered]
    assert [e.start for e in numbered] == [3, 15, 27]  # numbering goes on
    assert sum(len(e.items) for e in numbered) == 30


def test_a_long_listing_and_a_long_table_are_cut_into_a_few_pages_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gammu's manual lists a phone protocol's frames in one 17-page `pre`, and Sphinx's
    general index is one table: elements no cut may enter, so the sessions around them ran
    to 17 pages, with a one-page session before each (a heading and a sentence)."""
    frames = [f"0x{k:02x}: frame {k} sets value {k} of the ringtone block" for k in range(240)]
    frames[100] = frames[200] = ""  # stanzas
    rows = "".join(
        f"<tr><td>entry {k}</td><td>{' '.join(['term'] * 20)}</td></tr>" for k in range(90)
    )
    page = tmp_path / "protocol.html"
    page.write_text(
        f"<html><body><h1>Nokia 6510</h1><p>{LOREM}</p><pre>" + "\n".join(frames) + "</pre>"
        "<h1>Index</h1><table><tr><th>Entry</th><th>Pages</th></tr>" + rows + "</table>"
        "</body></html>",
        encoding="utf-8",
    )
    doc = parse_document(page).document
    codes = [e for e in doc.elements if e.type == "code"]
    assert len(codes) == 3 and all(layout_words(e) <= MAX_LIST_WORDS for e in codes)
    assert codes[0].text.splitlines()[-2] == frames[99]  # cut after the blank line
    lines = [x for c in codes for x in c.text.splitlines()[1:-1] if x]
    assert lines == [f for f in frames if f]
    tables = [e for e in doc.elements if e.type == "table"]
    assert len(tables) == 2 and sum(len(t.rows or []) for t in tables) == 91
    assert all(t.word_count <= MAX_LIST_WORDS for t in tables)
    monkeypatch.chdir(tmp_path)
    result = quire.split(page, tmp_path / "out", processes=1)
    assert result.verification is not None and result.verification.passed
