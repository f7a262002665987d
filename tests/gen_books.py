"""Builds the EPUB and HTML test books in tests/data/ from a real manual: the Debian New
Maintainers' Guide (Debian packages maint-guide and maint-guide-zh-cn, DocBook's chunked
HTML), run through pandoc, a real converter. The tests use the committed files; this
script says how they were made and makes them again:

    apt-get download maint-guide maint-guide-zh-cn && for f in maint-guide*.deb; do
        dpkg-deb -x "$f" deb; done
    python3 tests/gen_books.py deb/usr/share/doc --pandoc PATH_TO_PANDOC

(pandoc 3.9, e.g. the binary inside the pypandoc-binary wheel). Made:
- maint-guide-en.epub: EPUB 3 (nav document, pandoc's epub:type footnotes), chapters 1 and 6
  of the English guide;
- maint-guide-zh.epub: EPUB 2 (NCX), the same chapters of the Chinese translation;
- maint-guide-html/: the English index page and those chapters' files, unchanged (a
  folder of chapters in the order of its index page; the only images they name are the
  navigation bars' icons, left out).

For pandoc, each chapter is cleaned the way an author converting it would: DocBook's
navigation bars and per-chapter contents are left out (pandoc makes its own navigation)
and DocBook's footnotes are marked as EPUB noterefs and footnotes, which pandoc reads.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

from lxml import etree

DATA = Path(__file__).parent / "data"
CHAPTERS = ("start", "build")  # chapters 1 and 6


XHTML = "http://www.w3.org/1999/xhtml"
NS = {"h": XHTML}


def clean_chapter(data: bytes) -> tuple[bytes, dict[str, bytes]]:
    """The chapter without navigation bars, contents and footnotes, each reference a
    token ("QNOTEidm44Q"); and each footnote's HTML by its token's id."""
    parser = etree.XMLParser(load_dtd=False, no_network=True, resolve_entities=False)
    root = etree.fromstring(data, parser=parser)
    for el in root.xpath(
        "//h:div[contains(@class,'navheader') or contains(@class,'navfooter') "
        "or @class='toc' or @class='footnotes']",
        namespaces=NS,
    ):
        if el.get("class") == "footnotes":
            notes = _notes(el)
        el.getparent().remove(el)
    for a in root.xpath("//h:a[@class='footnote']", namespaces=NS):
        key = (a.get("href") or "").removeprefix("#ftn.")
        span = etree.Element(f"{{{XHTML}}}span")
        span.text = f"QNOTE{key}Q"
        span.tail = a.tail
        a.getparent().replace(a, span)
    return etree.tostring(root, encoding="utf-8", xml_declaration=True), notes


def _notes(div: etree._Element) -> dict[str, bytes]:
    out = {}
    for note in div.xpath("h:div[@class='footnote']", namespaces=NS):
        for back in note.xpath(".//h:a[@class='para']", namespaces=NS):
            _drop(back)  # "[1]", its mark: pandoc numbers notes itself
        body = etree.Element(f"{{{XHTML}}}div")
        body.extend(list(note))
        out[(note.get("id") or "").removeprefix("ftn.")] = etree.tostring(body, encoding="utf-8")
    return out


def _drop(el: etree._Element) -> None:
    """Remove `el`, keeping the text that follows it."""
    parent, prev = el.getparent(), el.getprevious()
    if el.tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def _markdown(pandoc: str, data: bytes) -> str:
    done = subprocess.run(
        [pandoc, "-f", "html-native_divs-native_spans", "-t", "markdown", "--wrap=none"],
        input=data,
        capture_output=True,
        check=True,
    )
    return done.stdout.decode("utf-8")


def make_epub(
    src: Path, lang: str, suffix: str, title: str, fmt: str, out: Path, pandoc: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name in CHAPTERS:
            page, notes = clean_chapter((src / f"{name}.{suffix}.html").read_bytes())
            text = _markdown(pandoc, page)
            for key, note in notes.items():
                body = _markdown(pandoc, note).strip().replace("\n\n", "\n\n    ")
                text = text.replace(f"QNOTE{key}Q", f"[^{key}]")
                text += f"\n\n[^{key}]: {body}\n"
            path = Path(tmp) / f"{name}.md"
            path.write_text(text, encoding="utf-8")
            files.append(str(path))
        shutil.copytree(src / "images", Path(tmp) / "images")
        subprocess.run(
            [
                pandoc,
                "-f",
                "markdown",
                "-t",
                fmt,
                "--metadata",
                f"title={title}",
                "--metadata",
                f"lang={lang}",
                "-o",
                str(out),
                *files,
            ],
            check=True,
            cwd=tmp,
        )


def make_folder(src: Path, out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name in ("index", *CHAPTERS):  # their only images are the navigation bars' icons
        shutil.copy(src / f"{name}.en.html", out / f"{name}.en.html")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("doc", type=Path, help="the unpacked packages' usr/share/doc folder")
    ap.add_argument("--pandoc", default="pandoc")
    args = ap.parse_args()
    en = args.doc / "maint-guide" / "html"
    zh = args.doc / "maint-guide-zh-cn" / "html"
    make_epub(
        en,
        "en",
        "en",
        "Debian New Maintainers' Guide",
        "epub3",
        DATA / "maint-guide-en.epub",
        args.pandoc,
    )
    make_epub(
        zh,
        "zh-CN",
        "zh-cn",
        "Debian 新维护人员手册",
        "epub2",
        DATA / "maint-guide-zh.epub",
        args.pandoc,
    )
    make_folder(en, DATA / "maint-guide-html")


if __name__ == "__main__":
    main()
