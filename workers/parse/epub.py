"""EPUB 2 and 3 -> IR: the container, the package (OPF), the spine and the navigation.

Read with zipfile and lxml (no ebooklib: it reads every member into memory without size
limits, parses XML with entity resolution left to lxml's defaults, and gives nothing the
OPF's few elements need; the checks below must come before any parser sees a part):
- the zip's declared sizes are checked first (docx_package.check_sizes: zip bombs, lying
  members), then every XML member is refused if it declares entities (xml_guard);
- META-INF/encryption.xml that encrypts more than fonts (font obfuscation, IDPF or Adobe,
  hides nothing of the text), Adobe's rights.xml or Apple's sinf.xml: DRM, refused
  (`drm`) with the scheme named;
- META-INF/container.xml names the package; its spine gives the chapters in reading
  order (non-linear items too, where they stand: nothing is dropped; a chapter that
  several spine items name, by places inside it, is read once, at the first); a spine
  item the archive lacks fails the document (`corrupt`) naming it: a book with a chapter
  missing is not a book to cut. A chapter that is not well-formed XML (an unescaped "<"
  in an e-mail address, an undeclared "epub:" prefix: e-readers show such books) is read
  by the HTML parser, as a browser reads it, with a warning naming it;
- the navigation: EPUB 3's nav document (epub:type="toc"), else EPUB 2's NCX (navMap);
  its page-list is kept with the removed page numbers; the book's language is the
  package's first dc:language.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from urllib.parse import unquote

from lxml import etree

from quire.shared.errors import CorruptDocumentError, DrmProtectedError, EmptyDocumentError
from quire.shared.ir import ParserNote
from quire.shared.text import sha256_bytes
from quire.workers.parse.base import ParsedDocument
from quire.workers.parse.docx_package import check_sizes
from quire.workers.parse.html_book import Book, NavEntry, build
from quire.workers.parse.html_content import collapse
from quire.workers.parse.html_input import read_as_html
from quire.workers.parse.html_refs import EPUB_NS, local, member, resolve
from quire.workers.parse.xml_guard import refuse_entities

PARSER = "lxml-epub"
CONTAINER = "META-INF/container.xml"
OPF_NS = "http://www.idpf.org/2007/opf"
DC_NS = "http://purl.org/dc/elements/1.1/"
NCX_NS = "http://www.daisy.org/z3986/2005/ncx/"
ENC_NS = "http://www.w3.org/2001/04/xmlenc#"
# Font obfuscation: mangled font bytes, the text is plain (EPUB OCF and Adobe's variant)
FONT_OBFUSCATION = frozenset(
    {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
)
_FONT_EXT = (".otf", ".ttf", ".woff", ".woff2", ".eot")
_XML_SUFFIXES = (".xml", ".opf", ".ncx", ".xhtml", ".html", ".htm", ".svg", ".xht", ".smil")
_HTML_TYPES = ("application/xhtml+xml", "text/html")


def parse_epub(path: Path) -> ParsedDocument:
    path = Path(path)
    data = path.read_bytes()
    return parse_epub_bytes(data, path.name)


def parse_epub_bytes(data: bytes, source: str) -> ParsedDocument:
    if not data:
        raise EmptyDocumentError("empty file (0 bytes)", source=source)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = set(archive.namelist())
    except Exception as exc:  # BadZipFile, ValueError, NotImplementedError...
        raise CorruptDocumentError(
            "damaged EPUB: the zip archive is truncated or corrupt"
            if data.startswith(b"PK")
            else "not an EPUB (zip) file",
            source=source,
        ) from exc
    check_sizes(archive, source, kind="EPUB")
    parts = {n: archive.read(n) for n in sorted(names) if n.lower().endswith(_XML_SUFFIXES)}
    refuse_entities(parts, source)  # before any XML parser reads them
    _refuse_drm(parts, names, source)
    notes: list[ParserNote] = []
    mimetype = archive.read("mimetype").strip() if "mimetype" in names else b""
    if mimetype != b"application/epub+zip":
        notes.append(
            ParserNote(kind="warning", message="no 'mimetype' member naming application/epub+zip")
        )
    opf_name = _package_name(parts, source)
    opf = _xml(parts, opf_name, source)
    items, spine, toc_id = _manifest_and_spine(opf, opf_name)
    if not spine:
        raise CorruptDocumentError(f"the package {opf_name} has an empty spine", source=source)
    chapters: list[tuple[str, etree._Element]] = []
    again: list[str] = []  # spine items naming a chapter already read (by a fragment of it)
    for idref, linear in spine:
        item = items.get(idref)
        if item is None:
            raise CorruptDocumentError(
                f"spine item {idref!r} is not in the manifest of {opf_name}", source=source
            )
        href, media, _ = item
        if href not in names:
            raise CorruptDocumentError(
                f"spine item {idref!r} ({href}) is missing from the archive", source=source
            )
        if media not in _HTML_TYPES and not href.lower().endswith((".xhtml", ".html", ".htm")):
            notes.append(
                ParserNote(kind="warning", message=f"spine item {href} is {media}: left out")
            )
            continue
        if any(href == read for read, _ in chapters):
            again.append(idref)
            continue
        chapters.append((href, _chapter(parts, href, source, notes)))
        if not linear:
            notes.append(
                ParserNote(kind="info", message=f"non-linear spine item {href} read in place")
            )
    if again:
        notes.append(
            ParserNote(
                kind="warning",
                message=f"{len(again)} spine items name a chapter already read (e.g. "
                f"{again[0]}, a place inside it): each chapter is read once",
            )
        )
    nav, page_list = _nav(items, parts, toc_id, notes)
    language = _language(opf)

    def read(name: str) -> bytes | None:
        if name not in names:
            return None
        return parts.get(name) or archive.read(name)

    book = Book(
        source_name=source,
        doc_id=sha256_bytes(data),
        source_format="epub",
        parser=PARSER,
        chapters=chapters,
        read=read,
        nav=nav,
        language=language,
        notes=notes,
        page_list=page_list,
    )
    return build(book)


def _refuse_drm(parts: dict[str, bytes], names: set[str], source: str) -> None:
    if "META-INF/rights.xml" in names:
        raise DrmProtectedError(
            "DRM-protected EPUB (Adobe ADEPT: META-INF/rights.xml); its text cannot be read",
            source=source,
        )
    if "META-INF/sinf.xml" in names:
        raise DrmProtectedError(
            "DRM-protected EPUB (Apple FairPlay: META-INF/sinf.xml); its text cannot be read",
            source=source,
        )
    enc = parts.get("META-INF/encryption.xml")
    if enc is None:
        return
    try:
        root = etree.fromstring(enc, parser=_parser())
    except etree.XMLSyntaxError as exc:
        raise DrmProtectedError(
            f"META-INF/encryption.xml is unreadable ({exc}): the book may be encrypted",
            source=source,
        ) from exc
    locked = []
    for data in root.iter(f"{{{ENC_NS}}}EncryptedData"):
        method = data.find(f"{{{ENC_NS}}}EncryptionMethod")
        algorithm = method.get("Algorithm", "") if method is not None else ""
        ref = data.find(f".//{{{ENC_NS}}}CipherReference")
        uri = unquote(ref.get("URI", "")) if ref is not None else ""
        if algorithm in FONT_OBFUSCATION and uri.lower().endswith(_FONT_EXT):
            continue
        locked.append((uri, algorithm))
    if locked:
        uri, algorithm = locked[0]
        raise DrmProtectedError(
            f"DRM-protected EPUB: META-INF/encryption.xml encrypts {len(locked)} "
            f"resource(s), e.g. {uri or '?'} ({algorithm or 'no algorithm'}); "
            "its text cannot be read",
            source=source,
        )


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False, load_dtd=False, no_network=True, huge_tree=False, recover=False
    )


def _member(parts: dict[str, bytes], name: str, source: str) -> bytes:
    data = parts.get(name)
    if data is None:
        raise CorruptDocumentError(f"{name} is missing from the archive", source=source)
    return data


def _why(exc: Exception) -> str:
    return " ".join(str(exc).split())[:160]


def _xml(parts: dict[str, bytes], name: str, source: str) -> etree._Element:
    data = _member(parts, name, source)
    try:
        return etree.fromstring(data, parser=_parser())
    except etree.XMLSyntaxError as exc:
        message = f"part {name} is not well-formed XML ({_why(exc)})"
        raise CorruptDocumentError(message, source=source) from exc


def _chapter(
    parts: dict[str, bytes], name: str, source: str, notes: list[ParserNote]
) -> etree._Element:
    data = _member(parts, name, source)
    try:
        return etree.fromstring(data, parser=_parser())
    except etree.XMLSyntaxError as exc:
        message = (
            f"chapter {name} is not well-formed XML ({_why(exc)}): read as HTML, as e-readers do"
        )
        notes.append(ParserNote(kind="warning", message=message))
    try:
        return read_as_html(data, name)
    except CorruptDocumentError as exc:
        raise CorruptDocumentError(str(exc), source=source) from exc


def _package_name(parts: dict[str, bytes], source: str) -> str:
    if CONTAINER not in parts:
        opfs = sorted(n for n in parts if n.lower().endswith(".opf"))
        if len(opfs) == 1:
            return opfs[0]
        raise CorruptDocumentError(f"not an EPUB: no {CONTAINER}", source=source)
    root = _xml(parts, CONTAINER, source)
    for rootfile in root.iter("{*}rootfile"):
        if rootfile.get("media-type", "application/oebps-package+xml").endswith("package+xml"):
            name = unquote(rootfile.get("full-path") or "").lstrip("/")
            if name:
                return name
    raise CorruptDocumentError(f"{CONTAINER} names no package (rootfile)", source=source)


Item = tuple[str, str, set[str]]  # (member name, media type, properties)


def _manifest_and_spine(
    opf: etree._Element, opf_name: str
) -> tuple[dict[str, Item], list[tuple[str, bool]], str | None]:
    items: dict[str, Item] = {}
    for item in opf.iter(f"{{{OPF_NS}}}item", "item"):
        href = member(opf_name, item.get("href") or "")
        if item.get("id") and href:
            props = set((item.get("properties") or "").split())
            items[item.get("id") or ""] = (href, item.get("media-type") or "", props)
    spine_el = next(opf.iter(f"{{{OPF_NS}}}spine", "spine"), None)
    spine: list[tuple[str, bool]] = []
    toc = None
    if spine_el is not None:
        toc = spine_el.get("toc")
        for ref in spine_el.iter(f"{{{OPF_NS}}}itemref", "itemref"):
            if ref.get("idref"):
                spine.append((ref.get("idref") or "", ref.get("linear", "yes") != "no"))
    return items, spine, toc


def _language(opf: etree._Element) -> str | None:
    for el in opf.iter(f"{{{DC_NS}}}language"):
        text = (el.text or "").strip()
        if text:
            return text
    return None


def _nav(
    items: dict[str, Item], parts: dict[str, bytes], toc_id: str | None, notes: list[ParserNote]
) -> tuple[list[NavEntry], list[str]]:
    """The navigation's entries and its page-list's targets."""
    nav_doc = next((href for href, _, props in items.values() if "nav" in props), None)
    entries: list[NavEntry] = []
    pages: list[str] = []
    if nav_doc and nav_doc in parts:
        try:
            root = etree.fromstring(parts[nav_doc], parser=_parser())
            entries, pages = nav_entries(nav_doc, root), page_list(nav_doc, root)
        except etree.XMLSyntaxError as exc:
            message = f"navigation {nav_doc} unreadable: {exc}"
            notes.append(ParserNote(kind="warning", message=message))
    ncx = items.get(toc_id or "", ("", "", set()))[0] or next(
        (href for href, media, _ in items.values() if media == "application/x-dtbncx+xml"), None
    )
    if ncx and ncx in parts and not (entries and pages):
        try:
            root = etree.fromstring(parts[ncx], parser=_parser())
            entries = entries or ncx_entries(ncx, root)
            pages = pages or ncx_pages(ncx, root)
        except etree.XMLSyntaxError as exc:
            notes.append(ParserNote(kind="warning", message=f"NCX {ncx} unreadable: {exc}"))
    if not entries:
        notes.append(ParserNote(kind="warning", message="no navigation document: headings only"))
    return entries, pages


def page_list(name: str, root: etree._Element) -> list[str]:
    """The targets of an EPUB 3 navigation document's page-list, in order."""
    for nav in root.iter():
        kinds = (nav.get(f"{{{EPUB_NS}}}type") or nav.get("epub:type") or "").split()
        if local(nav.tag) == "nav" and "page-list" in kinds:
            hrefs = (resolve(name, a.get("href") or "") for a in nav.iter() if local(a.tag) == "a")
            return [h for h in hrefs if h]
    return []


def ncx_pages(name: str, root: etree._Element) -> list[str]:
    """The targets of an NCX pageList, in order."""
    out = []
    for target in root.iter(f"{{{NCX_NS}}}pageTarget", "pageTarget"):
        content = next((c for c in target if local(c.tag) == "content"), None)
        href = resolve(name, content.get("src") or "") if content is not None else None
        if href:
            out.append(href)
    return out


def nav_entries(name: str, root: etree._Element) -> list[NavEntry]:
    """The toc nav of an EPUB 3 navigation document (its first nav, when none is typed)."""
    navs = [el for el in root.iter() if local(el.tag) == "nav"]
    typed = [
        n
        for n in navs
        if "toc" in (n.get(f"{{{EPUB_NS}}}type") or n.get("epub:type") or "").split()
    ]
    chosen = (typed or navs or [root])[0]
    lists = [c for c in chosen.iter() if local(c.tag) in ("ol", "ul")]
    if not lists:
        return []
    out: list[NavEntry] = []
    _nav_list(name, lists[0], 1, out)
    return out


def _nav_list(name: str, ol: etree._Element, level: int, out: list[NavEntry]) -> None:
    for li in ol:
        if local(li.tag) != "li":
            continue
        a = next((c for c in li if local(c.tag) in ("a", "span")), None)
        if a is not None and a.get("href"):
            target = resolve(name, a.get("href") or "")
            title = collapse("".join(a.itertext()))
            if target is not None and title:
                out.append(NavEntry(level, title, target))
        for sub in li:
            if local(sub.tag) in ("ol", "ul"):
                _nav_list(name, sub, level + 1, out)


def ncx_entries(name: str, root: etree._Element) -> list[NavEntry]:
    nav_map = next(root.iter(f"{{{NCX_NS}}}navMap", "navMap"), None)
    out: list[NavEntry] = []
    if nav_map is not None:
        _ncx_points(name, nav_map, 1, out)
    return out


def _ncx_points(name: str, parent: etree._Element, level: int, out: list[NavEntry]) -> None:
    for point in parent:
        if local(point.tag) != "navpoint":
            continue
        label = next((c for c in point.iter() if local(c.tag) == "text"), None)
        content = next((c for c in point if local(c.tag) == "content"), None)
        title = collapse("".join(label.itertext())) if label is not None else ""
        target = resolve(name, content.get("src") or "") if content is not None else None
        if target is not None and title:
            out.append(NavEntry(level, title, target))
        _ncx_points(name, point, level + 1, out)
