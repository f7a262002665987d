"""The sweep's third sample (`bench_sweep.py --converted`): Word documents as people make
them from web manuals, with pandoc. Debian's HTML and reStructuredText manuals (Texinfo,
DocBook, Sphinx sources; English, German, Spanish, French, Japanese, Chinese) are made
DOCX by `pandoc`, one book from all of its pages in reading order. What they met first:
a Texinfo title block above the chapters, indexes split by letter ("General Index: F –
L"), contents without page numbers. Fetched like the other samples
(`sweep_docs.ensure_package`); the DOCX files go to `converted/` in the cache. Needs
pandoc (`apt-get install pandoc`); nothing else in the sweep does."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from sweep_docs import SweepDoc, ensure_package

_REFERENCE = "usr/share/debian-reference"
_MAINT = "usr/share/doc/maint-guide-{lang}/html/{page}.{lang}.html"
_MAINT_PAGES = [
    "index", "start", "first", "modify", "dreq", "dother", "build", "checkit", "upload",
    "update", "advanced",
]  # fmt: skip
_POLICY = "usr/share/doc/debian-policy/policy.html/_sources"

# book -> (package, its pages in reading order: paths or globs inside the package, sorted)
CONVERTED: dict[str, tuple[str, list[str]]] = {
    "autoconf": ("autoconf-doc", ["usr/share/doc/autoconf/autoconf.html"]),  # Texinfo
    "bashref": ("bash-doc", ["usr/share/doc/bash/bashref.html"]),
    "developers-reference": (
        "developers-reference",
        ["usr/share/developers-reference/developers-reference.html"],  # DocBook
    ),
    "git-user-manual": ("git-doc", ["usr/share/doc/git-doc/user-manual.html"]),  # AsciiDoc
    "fhs-3.0": ("debian-policy", ["usr/share/doc/debian-policy/fhs/fhs-3.0.html"]),
    "policy": (  # Sphinx's reStructuredText sources
        "debian-policy",
        [f"{_POLICY}/index.rst.txt", f"{_POLICY}/ch-*.rst.txt", f"{_POLICY}/ap-*.rst.txt"],
    ),
    **{
        f"reference.{lang}": (  # DocBook pages; the contents and lists without page numbers
            f"debian-reference-{lang}",
            [f"{_REFERENCE}/index.{lang}.html", f"{_REFERENCE}/ch*.{lang}.html"],
        )
        for lang in ("de", "es", "ja", "zh-cn")
    },
    **{
        f"maint-guide.{lang}": (
            f"maint-guide-{lang}",
            [_MAINT.format(lang=lang, page=page) for page in _MAINT_PAGES],
        )
        for lang in ("fr", "ja", "zh-cn")
    },
}
_TITLE = re.compile(rb"<title>\s*(.*?)\s*</title>", re.IGNORECASE | re.DOTALL)


def _pages(root: Path, specs: list[str]) -> list[Path]:
    pages: list[Path] = []
    for spec in specs:
        found = sorted(root.glob(spec))
        if not found:
            raise FileNotFoundError(f"{spec} is not in {root}")
        pages += found
    return pages


def _convert(pages: list[Path], target: Path) -> None:
    """One DOCX of `pages`, titled by the first page's title (pandoc takes the last's)."""
    reader = "rst" if pages[0].name.endswith(".rst.txt") else "html"
    title = _TITLE.search(pages[0].read_bytes()) if reader == "html" else None
    meta = ["-M", f"title={title[1].decode('utf-8', 'replace')}"] if title else []
    partial = target.with_name(target.name + ".partial.docx")
    subprocess.run(
        ["pandoc", "-f", reader, "-t", "docx", *meta, "-o", str(partial), *map(str, pages)],
        cwd=pages[0].parent,  # images by relative path, where the pages have them
        check=True,
        stderr=subprocess.DEVNULL,  # "Could not fetch resource": the image left out
    )
    partial.rename(target)


def select_converted(cache: Path) -> list[SweepDoc]:
    """The third sample, in table order (pages known once parsed: 0 here)."""
    if shutil.which("pandoc") is None:
        sys.exit("--converted makes its DOCX with pandoc: apt-get install pandoc")
    folder = cache / "converted"
    folder.mkdir(parents=True, exist_ok=True)
    docs = []
    for book, (package, specs) in CONVERTED.items():
        target = folder / f"{package}--{book}.docx"
        if not target.exists():
            _convert(_pages(ensure_package(cache, package), specs), target)
        docs.append(SweepDoc(package, target, 0))
    return docs
