"""EPUB and HTML benchmark: what the parser keeps of a book, and how fast, beside bare lxml.

    python3 bench/bench_epub.py [PATH ...] [--debian] [--pandoc PANDOC]

PATH: EPUB files, HTML files or folders of HTML chapters (default: the test books in
tests/data). `--debian` adds the whole Debian New Maintainers' Guide in English and
Chinese (Debian's DocBook HTML: `apt-get download maint-guide maint-guide-zh-cn`, unpacked
under ~/.cache/quire-epub), and with `--pandoc` its EPUB 3 and EPUB 2 made by pandoc the
way tests/gen_books.py makes the test books (every chapter).

Per book: elements, footnotes tied to their references, chapter starts (the navigation's
top-level entries that became level-1 headings), the share of the chapters' visible
characters the IR holds (tests/html_coverage.py), estimated pages, and parse time and
pages/s beside the baseline measured in the same run: bare lxml reading the same chapters'
text (parse + itertext, no structure). Then peak memory of the process.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from html_coverage import chapters, coverage  # noqa: E402
from lxml import html  # noqa: E402

from quire.workers.parse import parse_document  # noqa: E402

CACHE = Path.home() / ".cache" / "quire-epub"
DEFAULT = [
    ROOT / "tests" / "data" / "maint-guide-en.epub",
    ROOT / "tests" / "data" / "maint-guide-zh.epub",
    ROOT / "tests" / "data" / "maint-guide-html",
]
GUIDE = [
    "index",
    "start",
    "first",
    "modify",
    "dreq",
    "dother",
    "build",
    "checkit",
    "update",
    "upload",
    "advanced",
]


def debian_books(pandoc: str | None) -> list[Path]:
    doc = CACHE / "usr" / "share" / "doc"
    if not (doc / "maint-guide-zh-cn").is_dir():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["apt-get", "download", "maint-guide", "maint-guide-zh-cn"], cwd=CACHE, check=True
        )
        for deb in sorted(CACHE.glob("maint-guide*.deb")):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(CACHE)], check=True)
    books = [doc / "maint-guide" / "html", doc / "maint-guide-zh-cn" / "html"]
    if pandoc:
        import gen_books

        gen_books.CHAPTERS = tuple(GUIDE[1:])
        en, zh = CACHE / "maint-guide-full-en.epub", CACHE / "maint-guide-full-zh.epub"
        for out, src, lang, suffix, title, fmt in (
            (en, books[0], "en", "en", "Debian New Maintainers' Guide", "epub3"),
            (zh, books[1], "zh-CN", "zh-cn", "Debian 新维护人员手册", "epub2"),
        ):
            if not out.exists():
                gen_books.make_epub(src, lang, suffix, title, fmt, out, pandoc)
        books += [en, zh]
    return books


def bare_lxml(docs: list[bytes]) -> int:
    return sum(len("".join(html.document_fromstring(d).itertext())) for d in docs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("--debian", action="store_true")
    ap.add_argument("--pandoc", default=None)
    args = ap.parse_args()
    books = list(args.paths) or list(DEFAULT)
    if args.debian:
        books += debian_books(args.pandoc)
    head = f"{'book':<30}{'elements':>9}{'notes':>6}{'chapters':>9}{'chars':>8}{'pages':>6}"
    print(head + f"{'parse s':>9}{'pages/s':>9}{'lxml s':>8}")
    total_pages = 0
    total = {"parse": 0.0, "lxml": 0.0}
    with tempfile.TemporaryDirectory():
        for path in books:
            docs = chapters(path)
            t = time.perf_counter()
            doc = parse_document(path).document
            took = time.perf_counter() - t
            t = time.perf_counter()
            bare_lxml(docs)
            bare = time.perf_counter() - t
            total["parse"] += took
            total["lxml"] += bare
            total_pages += doc.page_count
            notes = sum(1 for e in doc.elements if e.type == "footnote")
            tops = sum(
                1
                for e in doc.elements
                if e.type == "heading" and e.origin == "outline" and e.level == 1
            )
            name = path.name if path.name != "html" else f"{path.parent.name}/html"
            print(
                f"{name[:29]:<30}{len(doc.elements):>9}{notes:>6}{tops:>9}"
                f"{coverage(doc, docs):>8.2%}{doc.page_count:>6}{took:>9.2f}"
                f"{doc.page_count / took:>9.0f}{bare:>8.2f}"
            )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"total: {total_pages} pages in {total['parse']:.2f}s "
        f"({total_pages / total['parse']:.0f} pages/s); bare lxml text {total['lxml']:.2f}s; "
        f"peak memory {peak:.0f} MB"
    )


if __name__ == "__main__":
    main()
