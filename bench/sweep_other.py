"""The sweep's second sample (`bench_sweep.py --other`): books that other tools than pdfTeX
made, from Debian documentation packages the corpus does not use: DocBook (dblatex PDF,
Publican HTML in English and Persian), Sphinx (PDF and HTML folders), doxygen, Texinfo,
yodl, Apache FOP, Microsoft Word, Apple Pages, OpenOffice.org, pod2pdf and dvips, dvipdfm,
groff, Windows' PostScript driver, slides (Beamer, Impress, Distiller, ConTeXt, gropdf),
mdBook and AsciiDoc HTML, EPUBs (pandoc, SiSU, DocBook; screenshots, Malayalam), Word
documents (equations, a novel, a screenshot manual), a scanned game manual, an Ada
standard, and Debian's installation guide in Danish, Spanish, Korean and Vietnamese.
Fetched like the TeX Live sample (`sweep_docs.ensure_package`) and prepared under
`other/` in the same cache: a gzipped PDF unpacked, every book under a name of its own
(`<package>--<file>`), an HTML book as a link to its folder (its index.html states the
chapter order)."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

from sweep_docs import SweepDoc, ensure_package, page_counts

# package -> its books: paths inside the unpacked package, or file names found anywhere in it
OTHER: dict[str, list[str]] = {
    "ada-reference-manual-2012": ["arm2012.pdf.gz"],
    "auto-multiple-choice-doc-pdf": [
        f"auto-multiple-choice.{lang}.pdf" for lang in ["en", "fr", "ja"]
    ],
    "axiom-doc": ["bookvol2.pdf.gz"],  # dvipdfm
    "c++-annotations-pdf": ["cplusplus.pdf"],
    # Microsoft Word (PDFWriter, Quartz) and Apple Pages
    "clips-doc": ["basic_programming_guide.pdf.gz", "users_guide.pdf.gz"],
    "context": ["metafun-s.pdf"],  # ConTeXt slides: a frame of bars rings every slide
    "context-modules": ["handlecsv.epub"],  # pandoc's undeclared "epub:" prefix
    "db5.3-doc": ["BerkeleyDB-Core-C-GSG.pdf.gz"],  # Apache FOP 0.95
    "debian-edu-doc-en": ["debian-edu-bookworm-manual.epub"],  # 68 screenshots
    "debian-faq": ["usr/share/doc/debian/FAQ"],  # index.html a link to index.en.html
    "debian-history": ["project-history.en.epub"],
    "debian-paketmanagement-buch": ["*.epub"],
    "debian-handbook": [
        "usr/share/doc/debian-handbook/html/en-US",
        "usr/share/doc/debian-handbook/html/fa-IR",
    ],
    "docbook-xsl-doc-pdf": ["reference.pdf.gz"],
    "debmake-doc": ["debmake-doc.en.epub"],
    "dynare-doc": ["macroprocessor.pdf.gz"],  # Beamer slides
    "erlang-doc": ["et-1.6.5.pdf"],  # Apache FOP 2.8: a screenshot and its caption
    "eyes17-manuals-en": ["eyes17.epub", "eyes17.pdf.gz"],
    "eyes17-manuals-es": ["eyes17.epub", "eyes17.pdf.gz"],
    "eyes17-manuals-ml": ["eyes17.epub"],  # Malayalam: vowel signs and viramas inside words
    "faust-common": ["faust-den-haag-april-2006-v6.pdf.gz"],  # OpenOffice.org Impress
    # Word documents: equations (OMML) and a novel's chapter
    "fonts-texgyre-math": ["test-word-texgyre_pagella_math.docx"],
    "git-doc": ["user-manual.html"],  # AsciiDoc's DocBook XSL, one HTML file
    "gle-graphics-manual": ["gle-manual.pdf"],
    "gnucash-docs": ["gnucash-guide-en.pdf.gz"],  # DocBook through Apache FOP
    "graphviz-doc": ["gvpr.1.pdf.gz", "dottyguide.pdf.gz"],  # groff; Distiller (1997)
    "groff": ["slide-demo.pdf.gz"],  # gropdf's mom slides: a header padded with spaces
    "gri-pdf-doc": ["gri.pdf.gz"],
    "installation-guide-amd64": ["install.ja.pdf.gz"],  # dblatex, xdvipdfmx: Japanese tables
    # the GNU GPL's title translated; appendix labels; Danish read as Swedish
    "installation-guide-arm64": [f"install.{lang}.pdf.gz" for lang in ("da", "es", "ko", "vi")],
    "jmeter-help": ["jmeter_tutorial.pdf"],  # OpenOffice.org Writer
    "krb5-doc": ["admin.pdf.gz", "user.pdf.gz"],  # Sphinx: "CHAPTER" over "THREE" above the title
    "libsystemc-doc": ["SLIDES.pdf"],  # Distiller: slides over a background picture
    "lilypond-doc-pdf": [
        f"{m}.pdf" for m in ["contributor", "essay", "extending", "music-glossary"]
    ],
    "lilypond-doc-pdf-de": ["learning.de.pdf"],
    "lilypond-doc-pdf-fr": ["usage.fr.pdf", "web.fr.pdf"],
    "lilypond-doc-pdf-es": ["essay.es.pdf"],  # "B Índice de LilyPond"
    # SiSU's EPUBs: places inside chapters in the spine, an unescaped "<" in the metadata
    "live-manual-epub": ["live-manual.en.epub", "live-manual.ja.epub"],
    "live-manual-pdf": ["live-manual.portrait.en.a4.pdf.gz"],
    "lure-of-the-temptress": ["Manual.pdf"],  # a game's manual scanned: OCR, its header misread
    "mma": ["mma.pdf"],  # dvips and Ghostscript
    "ocrmypdf-doc": ["usr/share/doc/ocrmypdf/html"],
    "octave-doc": ["liboctave.pdf"],  # Texinfo: three empty chapters before the index
    "packaging-tutorial": ["packaging-tutorial.pdf", "packaging-tutorial.ja.pdf"],  # Beamer
    "parallel": ["parallel_tutorial.pdf.gz"],  # pod2pdf
    "pikepdf-doc": ["usr/share/doc/python3-pikepdf/html"],
    # Word 2010 and its PDF by LibreOffice: screenshots are half the pages, chapters start
    # with page breaks
    "previsat": ["PreviSat_en.docx", "PreviSat_en.pdf"],
    "python-requests-doc": ["usr/share/doc/python-requests-doc/html"],  # Sphinx, "html"
    "python3-pattern": ["carroll-lookingglass.docx"],
    "r-doc-pdf": [f"usr/share/R/doc/manual/R-{m}.pdf" for m in ("admin", "exts", "ints")],
    "rust-doc": [  # mdBook folders: a sidebar of contents, print.html, a copied first page
        "usr/share/doc/rust-doc/html/book",
        "usr/share/doc/rust-doc/html/embedded-book",
    ],
    "sasview-doc": ["correlation_function_analysis_in_sasview_v5.pdf.gz"],  # PScript5
    "simbody-doc": ["SimbodyTheoryManual.pdf"],  # Word through Quartz: bold equations
    "siscone-doc-pdf": ["refman.pdf.gz"],
    "therion-doc": ["thbook.pdf"],  # a title page over cover art
    "ubuntu-packaging-guide-pdf": ["ubuntu-packaging-guide.pdf.gz"],
    "why3-doc-pdf": ["manual.pdf"],
    "xorg-docs": ["icccm.pdf.gz"],  # DocBook through Apache FOP
}


def _find(root: Path, spec: str) -> Path:
    exact = root / spec
    if exact.exists():
        return exact
    found = sorted(root.rglob(spec))
    if not found:
        raise FileNotFoundError(f"{spec} is not in {root}")
    return found[0]


def _prepared(cache: Path, package: str, source: Path, under: str) -> Path:
    """The book under `under/` in the cache: `<package>--<name>` (an EPUB's, a DOCX's or
    an HTML file's stem marked, so a PDF and an EPUB, DOCX or HTML file of one name keep
    their own output folders)."""
    folder = cache / under
    folder.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        target = folder / f"{package}--{source.name}"
        if not target.exists():
            target.symlink_to(source.resolve(), target_is_directory=True)
        return target
    name = source.name.removesuffix(".gz")
    for kind in ("epub", "docx", "html"):
        if name.endswith(f".{kind}"):
            name = name.removesuffix(f".{kind}") + f"-{kind}.{kind}"
    target = folder / f"{package}--{name}"
    if not target.exists():
        partial = target.with_name(target.name + ".partial")
        opener = gzip.open if source.suffix == ".gz" else open
        with opener(source, "rb") as src, partial.open("wb") as dst:
            shutil.copyfileobj(src, dst)
        partial.rename(target)
    return target


def select_other(cache: Path, *, max_pages: int = 2000) -> list[SweepDoc]:
    """The second sample, packages in table order; PDFs of 15 to `max_pages` pages (an
    HTML or EPUB book's pages are known once parsed: 0 here)."""
    return select_books(cache, OTHER, "other", max_pages=max_pages)


def select_books(
    cache: Path, table: dict[str, list[str]], under: str, *, max_pages: int = 2000
) -> list[SweepDoc]:
    """The books of `table` (package -> paths or file names in it), prepared under
    `under/` in the cache, in table order; PDFs of 15 to `max_pages` pages."""
    docs: list[SweepDoc] = []
    for package, specs in table.items():
        root = ensure_package(cache, package)
        for spec in specs:
            path = _prepared(cache, package, _find(root, spec), under)
            if path.suffix != ".pdf":
                docs.append(SweepDoc(package, path, 0))
                continue
            pages = page_counts(cache, [path])[str(path.relative_to(cache))]
            if 15 <= pages <= max_pages:
                docs.append(SweepDoc(package, path, pages))
    return docs
