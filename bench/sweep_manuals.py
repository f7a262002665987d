"""The sweep's fifth sample (`bench_sweep.py --manuals`): GNU and DocBook manuals, each in
the forms its package ships, from 11 Debian packages the other samples do not use:
Texinfo PDFs (autoconf, bash, zsh, sbcl, asymptote, GNU's coding standards), Texinfo HTML
as one file (bash, autoconf, the standards) and as folders (zsh, sbcl's internals;
makeinfo's index.html beside its Index.html of terms, asymptote; texi2html's top page named
after the manual, maxima), DocBook HTML folders (PostgreSQL's 1,169 pages, mutt, exim's
specification) and PDFs (Debian Reference, a 2004 Maxima book). What it met first: two of
the Texinfo folders were taken for loose files and lost, and maxima's was read in the
order of its cross-references. Prepared like the second sample (`sweep_other`), under
`manuals/` in the cache."""

from __future__ import annotations

from pathlib import Path

from sweep_docs import SweepDoc
from sweep_other import select_books

# package -> its books: paths inside the unpacked package, or file names found anywhere in it
MANUALS: dict[str, list[str]] = {
    "asymptote-doc": ["asymptote.pdf", "usr/share/doc/asymptote/html"],
    "autoconf-doc": ["autoconf.pdf.gz", "autoconf.html"],
    "bash-doc": ["bashref.pdf", "bash.pdf", "bashref.html", "bash.html"],
    "debian-reference-en": ["debian-reference.en.pdf"],  # (its HTML sits beside the PDF)
    "exim4-doc-html": ["usr/share/doc/exim4-doc-html/spec_html"],
    "gnu-standards": ["standards.pdf.gz", "maintain.pdf.gz", "standards.html"],
    "maxima-doc": ["maximabook-19-Sept-2004.pdf.gz", "usr/share/doc/maxima-doc/html"],
    "mutt": ["usr/share/doc/mutt/html"],
    "postgresql-doc-15": ["usr/share/doc/postgresql-doc-15/html"],
    "sbcl-doc": ["sbcl.pdf.gz", "usr/share/doc/sbcl/sbcl-internals"],
    "zsh-doc": ["zsh.pdf", "usr/share/doc/zsh-common/html"],
}


def select_manuals(cache: Path) -> list[SweepDoc]:
    """The fifth sample, packages in table order."""
    return select_books(cache, MANUALS, "manuals")
