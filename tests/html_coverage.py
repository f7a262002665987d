"""How much of an HTML book's visible text an IR holds: the characters a reader sees in
the chapters' bodies (no scripts, styles or navigation bars), as a multiset, against the
characters of the IR's element texts. Markup the IR adds (Markdown, link destinations)
never counts for it; text it lost or altered counts against it."""

from __future__ import annotations

import io
import zipfile
from collections import Counter
from pathlib import Path

from lxml import etree, html

from quire.shared.ir import Document
from quire.workers.parse.html_input import bundle_folder

_DROPPED = {"script", "style", "head", "nav"}
_CHROME = {"navheader", "navfooter"}


def visible(root: etree._Element) -> Counter[str]:
    """The characters a reader sees in a chapter's body, counted, without whitespace."""
    out: Counter[str] = Counter()

    def walk(el: etree._Element) -> None:
        tag = etree.QName(el).localname.lower() if isinstance(el.tag, str) else ""
        if not tag or tag in _DROPPED or set((el.get("class") or "").split()) & _CHROME:
            return
        out.update(c for c in (el.text or "") if not c.isspace())
        for child in el:
            walk(child)
            out.update(c for c in (child.tail or "") if not c.isspace())

    body = next(e for e in root.iter() if isinstance(e.tag, str) and e.tag.endswith("body"))
    walk(body)
    return out


def spine(path: Path) -> list[bytes]:
    """An EPUB's spine documents, in order (read apart from the parser under test)."""
    z = zipfile.ZipFile(path)
    opf_name = next(n for n in z.namelist() if n.endswith(".opf"))
    opf = etree.fromstring(z.read(opf_name))
    base = opf_name.rsplit("/", 1)[0]
    items = {i.get("id"): i.get("href") for i in opf.iter("{*}item")}
    return [z.read(f"{base}/{items[r.get('idref')]}") for r in opf.iter("{*}itemref")]


def chapters(path: Path) -> list[bytes]:
    """The chapters of an EPUB, or of an HTML folder (by its bundle)."""
    if path.is_dir():
        z = zipfile.ZipFile(io.BytesIO(bundle_folder(path)))
        return [z.read(n) for n in z.namelist() if n.endswith((".html", ".htm", ".xhtml"))]
    return spine(path)


def source_chars(docs: list[bytes]) -> Counter[str]:
    out: Counter[str] = Counter()
    for data in docs:
        out += visible(html.document_fromstring(data))
    return out


def coverage(doc: Document, docs: list[bytes]) -> float:
    source = source_chars(docs)
    ir = Counter(c for e in doc.elements for c in e.text if not c.isspace())
    return sum(min(n, ir[c]) for c, n in source.items()) / sum(source.values())
