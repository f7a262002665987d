"""Small EPUBs written at test time: a well-formed EPUB 3 (or EPUB 2 with an NCX) from
chapters of XHTML body markup, and the hostile variants of one (DRM, malformed XML, a
missing spine item, a zip bomb, external entities)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

XHTML = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"
 lang="{lang}" xml:lang="{lang}"{dir}>
<head><title>{title}</title></head>
<body>
{body}
</body>
</html>
"""

PNG_1X1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)


def chapter(title: str, body: str, lang: str = "en", rtl: bool = False) -> str:
    return XHTML.format(title=title, body=body, lang=lang, dir=' dir="rtl"' if rtl else "")


def epub_bytes(
    chapters: list[tuple[str, str]],
    *,
    nav: list[tuple[int, str, str]] | None = None,
    version: int = 3,
    lang: str = "en",
    extra: dict[str, bytes] | None = None,
    spine_extra: list[str] | None = None,
    page_list: list[tuple[str, str]] | None = None,
) -> bytes:
    """An EPUB of `chapters` ((file name, XHTML)) in that spine order; `nav`: (level,
    title, href) entries (EPUB 3 nav document, or an NCX for version 2); `extra`: more
    members (images...); `spine_extra`: ids of spine items the manifest lists but the
    archive lacks."""
    files: dict[str, bytes] = {}
    manifest = []
    spine = []
    for k, (name, text) in enumerate(chapters, 1):
        files[f"OEBPS/{name}"] = text.encode("utf-8")
        manifest.append(f'<item id="c{k}" href="{name}" media-type="application/xhtml+xml"/>')
        spine.append(f'<itemref idref="c{k}"/>')
    for k, name in enumerate(spine_extra or [], 1):
        manifest.append(f'<item id="x{k}" href="{name}" media-type="application/xhtml+xml"/>')
        spine.append(f'<itemref idref="x{k}"/>')
    for name in extra or {}:
        if name.startswith("OEBPS/images/"):
            href = name.removeprefix("OEBPS/")
            manifest.append(f'<item id="i{len(manifest)}" href="{href}" media-type="image/png"/>')
    entries = nav or []
    if version == 3:
        files["OEBPS/nav.xhtml"] = _nav_doc(entries, page_list or []).encode()
        manifest.append(
            '<item id="nav" href="nav.xhtml" properties="nav" media-type="application/xhtml+xml"/>'
        )
        toc_attr = ""
    else:
        files["OEBPS/toc.ncx"] = _ncx(entries, page_list or []).encode()
        manifest.append('<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>')
        toc_attr = ' toc="ncx"'
    opf = f"""<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="{version}.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:identifier id="id">urn:uuid:quire-test</dc:identifier><dc:title>Test book</dc:title>
<dc:language>{lang}</dc:language></metadata>
<manifest>{"".join(manifest)}</manifest>
<spine{toc_attr}>{"".join(spine)}</spine>
</package>"""
    files["OEBPS/content.opf"] = opf.encode()
    files["META-INF/container.xml"] = (
        b'<?xml version="1.0"?><container version="1.0" '
        b'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
        b'<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
        b"</rootfiles></container>"
    )
    files.update(extra or {})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        for name, data in files.items():
            z.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def _nav_doc(entries: list[tuple[int, str, str]], pages: list[tuple[str, str]]) -> str:
    parts = ['<nav epub:type="toc"><h1>Contents</h1>']
    depth = 0
    for level, title, href in entries:
        if level > depth:
            parts += ["<ol><li>"] * (level - depth)
        else:
            parts += ["</li></ol>"] * (depth - level) + ["</li><li>"]
        depth = level
        parts.append(f'<a href="{href}">{title}</a>')
    parts += ["</li></ol>"] * depth
    parts.append("</nav>")
    if pages:
        parts.append('<nav epub:type="page-list"><ol>')
        parts += [f'<li><a href="{href}">{label}</a></li>' for label, href in pages]
        parts.append("</ol></nav>")
    return chapter("Contents", "".join(parts))


def _ncx(entries: list[tuple[int, str, str]], pages: list[tuple[str, str]]) -> str:
    out = []
    depth = 0
    for k, (level, title, href) in enumerate(entries, 1):
        while depth >= level:
            out.append("</navPoint>")
            depth -= 1
        out.append(
            f'<navPoint id="p{k}" playOrder="{k}"><navLabel><text>{title}</text></navLabel>'
            f'<content src="{href}"/>'
        )
        depth = level
    out += ["</navPoint>"] * depth
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><head/>'
        f"<docTitle><text>Test</text></docTitle><navMap>{''.join(out)}</navMap>"
        f"{_page_targets(pages)}</ncx>"
    )


def _page_targets(pages: list[tuple[str, str]]) -> str:
    if not pages:
        return ""
    targets = "".join(
        f'<pageTarget id="pt{label}" type="normal" value="{label}"><navLabel><text>{label}'
        f'</text></navLabel><content src="{href}"/></pageTarget>'
        for label, href in pages
    )
    return f"<pageList>{targets}</pageList>"


LOREM = (
    "The package maintainer reads the upstream sources, writes the packaging files and "
    "builds the package in a clean environment before every upload to the archive. "
)


def sample_chapters(n: int = 3, paragraphs: int = 14) -> list[tuple[str, str]]:
    out = []
    for k in range(1, n + 1):
        body = [f'<section epub:type="chapter"><h1 id="ch{k}">Chapter {k}. Topic {k}</h1>']
        for p in range(paragraphs):
            if p == 4:
                body.append(f'<h2 id="s{k}-1">{k}.1. Section</h2>')
            body.append(f"<p>{LOREM * 3} ({k}-{p}).</p>")
        body.append("</section>")
        out.append((f"ch{k}.xhtml", chapter(f"Chapter {k}", "".join(body))))
    return out


def sample_nav(n: int = 3) -> list[tuple[int, str, str]]:
    out = []
    for k in range(1, n + 1):
        out += [
            (1, f"Chapter {k}. Topic {k}", f"ch{k}.xhtml"),
            (2, f"{k}.1. Section", f"ch{k}.xhtml#s{k}-1"),
        ]
    return out


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def paged_chapters(
    n: int = 3, paragraphs: int = 14, per_page: int = 3
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Chapters with page break marks every `per_page` paragraphs (block-level, and one
    inside a paragraph), and the page-list that names them."""
    out = []
    pages: list[tuple[str, str]] = []
    for k in range(1, n + 1):
        body = ["<section>"]
        for p in range(paragraphs):
            if p % per_page == 0:
                label = str(len(pages) + 1)
                body.append(f'<span epub:type="pagebreak" id="page{label}" title="{label}"/>')
                pages.append((label, f"ch{k}.xhtml#page{label}"))
            if p == 0:
                body.append(f"<h1 id='ch{k}'>Chapter {k}. Topic {k}</h1>")
            if p == paragraphs - 1:
                label = str(len(pages) + 1)
                mark = f'<span epub:type="pagebreak" id="page{label}" title="{label}"/>'
                pages.append((label, f"ch{k}.xhtml#page{label}"))
                body.append(f"<p>{LOREM} {mark} {LOREM} ({k}-{p}).</p>")
            else:
                body.append(f"<p>{LOREM * 3} ({k}-{p}).</p>")
        body.append("</section>")
        out.append((f"ch{k}.xhtml", chapter(f"Chapter {k}", "".join(body))))
    return out, pages
