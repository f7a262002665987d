"""The sweep's sixth sample (`bench_sweep.py --languages`): the manuals of programming
languages and mathematical systems, from 6 Debian packages the other samples do not use:
the Haskell 98 report (a PDF without an outline, its label "Chapter 2" set smaller than
the title, and its HTML folder), PARI/GP's plain-TeX manuals (a tutorial without an
outline whose sections read "1. Greetings!.", the 675-page user's guide and the library
manual), GAP's GAPDoc tutorial, gnuplot's HTML manual (its PDF is the corpus's), the Advanced
Bash-Scripting Guide (DocBook HTML) and KiCad's PCB editor manual (one AsciiDoc HTML
file). What it met first: the Haskell report's sessions were titled as the chapter
before's continuation, and every section of PARI's tutorial was read as text. Prepared
like the second sample (`sweep_other`), under `languages/` in the cache."""

from __future__ import annotations

from pathlib import Path

from sweep_docs import SweepDoc
from sweep_other import select_books

# package -> its books: paths inside the unpacked package, or file names found anywhere in it
LANGUAGES: dict[str, list[str]] = {
    "haskell98-report": [
        "haskell98-report.pdf.gz",
        "ffi.pdf.gz",
        "usr/share/doc/haskell98-report/html/haskell98-report-html",
    ],
    "pari-doc": ["tutorial.pdf", "tutorial-mf.pdf", "develop.pdf", "users.pdf", "libpari.pdf"],
    "gap-doc": ["usr/share/gap/doc/tut/manual.pdf"],
    "gnuplot-doc": ["usr/share/doc/gnuplot/htmldocs"],  # (its PDF is the corpus's)
    "abs-guide": ["usr/share/doc/abs-guide/html"],
    "kicad-doc-en": ["usr/share/doc/kicad/help/en/pcbnew.html"],
}


def select_languages(cache: Path) -> list[SweepDoc]:
    """The sixth sample, packages in table order."""
    return select_books(cache, LANGUAGES, "languages")
