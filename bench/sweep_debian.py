"""The sweep's seventh sample (`bench_sweep.py --debian`): the PDFs of 18 Debian
documentation packages outside TeX Live that no other sample uses, made by other hands than
LaTeX classes: Texinfo (flex, Gambit, MIT/GNU Scheme, gmsh), ReportLab and Prawn (their own
manuals), Ghostscript (the C++ Annotations, 1,151 pages; LilyPond's Italian and Dutch
manuals), doxygen (SeqAn's Raptor), Sphinx (the Ubuntu packaging guide), xdvipdfmx (the
Debian Live manual in five languages, whose body text the package's build left out: only
its footnoted addresses are text) and a 1997 pdfTeX (camlidl), besides code_saturne's and
LAMMPS's LaTeX manuals and Chez Scheme's user's guide (523 pages without an outline). When
it joined (37 documents, 5,729 pages) every document completed and verified, no running
header or page number was left, and 188 of 222 chapter starts were honoured (the page-level
oracle: 219), 30 of the 34 misses the Live manual's, which has no text under its outline.
Prepared like the second sample (`sweep_other`), under `debian/` in the cache."""

from __future__ import annotations

from pathlib import Path

from sweep_docs import SweepDoc
from sweep_other import select_books

_LIVE = "live-manual.portrait.{}.a4.pdf.gz"
_LILYPOND = "usr/share/doc/lilypond/html/Documentation/{}.pdf"

# package -> its books: paths inside the unpacked package, or file names found anywhere in it
DEBIAN: dict[str, list[str]] = {
    "c++-annotations-pdf": ["usr/share/doc/c++-annotations/cplusplus.pdf"],
    "chezscheme-doc": ["usr/share/doc/chezscheme-doc/csug.pdf.gz", "release_notes.pdf.gz"],
    "code-saturne-doc": [
        f"usr/share/doc/code-saturne/{n}.pdf"
        for n in ("developer", "install", "studymanager", "theory", "user")
    ],
    "flex-doc": ["flex.pdf.gz"],
    "gambc-doc": ["gambit.pdf.gz"],
    "gmsh-doc": ["usr/share/doc/gmsh-doc/gmsh.pdf.gz"],
    "lammps-doc": [
        "MACHDYN_LAMMPS_userguide.pdf.gz",
        "SPH_LAMMPS_userguide.pdf.gz",
        "colvars-refman-lammps.pdf.gz",
    ],
    "lilypond-doc-pdf-it": [
        _LILYPOND.format(f"{n}.it") for n in ("essay", "learning", "usage", "web")
    ],
    "lilypond-doc-pdf-nl": [_LILYPOND.format(f"{n}.nl") for n in ("learning", "web")],
    "live-manual-pdf": [
        *(_LIVE.format(lang) for lang in ("en", "de", "pl", "ro", "ca")),
        "live-manual.landscape.en.letter.pdf.gz",
    ],
    "mit-scheme-doc": [f"mit-scheme-{n}.pdf.gz" for n in ("ffi", "ref", "sos", "user")],
    "ubuntu-packaging-guide-pdf": ["ubuntu-packaging-guide.pdf.gz"],
    "yorick-doc": ["usr/share/doc/yorick-doc/yorick.pdf.gz"],
    "camlidl-doc": ["camlidl-1.04.doc.pdf"],
    "freefem-doc": ["freefem.pdf"],
    "python-reportlab-doc": ["reportlab-userguide.pdf"],
    "ruby-prawn-doc": ["manual.pdf.gz"],
    "seqan-raptor-doc": ["refman.pdf.gz"],
}


def select_debian(cache: Path) -> list[SweepDoc]:
    """The seventh sample, packages in table order."""
    return select_books(cache, DEBIAN, "debian")
