"""HTML input: one .html file, or a folder of chapters in a stated order, as one bundle.

The pipeline stores one source per document, so HTML is admitted as a bundle: a zip (made
the same, byte for byte, from the same files) holding the chapters, the local files their
images name, and `quire-html.json` (the chapters in reading order, and the index page when
there is one). A `.htmlz` (Calibre's zipped HTML) is read as a bundle too.

A folder states its order by
- `manifest.txt`: one chapter file per line, relative to the folder (`#` comments), or
- an index page (`index.html`, `index.htm`, `index.xhtml`, or one `index.<lang>.html`):
  the index first, then the folder's HTML files its links lead to, depth first in link
  order (a chapter's own section pages follow it), leaving out links in navigation chrome
  (DocBook's next/previous bars), and its contents entries (links that are a whole list
  item) before links in its prose. The index's contents entries (else all its links) are
  then the outline: their nesting in lists is their level, so its top-level entries are
  the chapter starts.
A folder with neither is refused: its order is not stated.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

from lxml import etree, html

from quire.shared.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    InputError,
    UnsafeXmlError,
)
from quire.shared.ir import ParserNote
from quire.shared.text import sha256_bytes
from quire.workers.parse.base import ParsedDocument
from quire.workers.parse.docx_package import check_sizes
from quire.workers.parse.html_book import Book, NavEntry, build
from quire.workers.parse.html_content import (
    body_of,
    classes,
    collapse,
    is_chrome,
    outside_main,
    rels,
    text_except,
)
from quire.workers.parse.html_refs import XLINK_NS, local, member, resolve
from quire.workers.parse.xml_guard import declares_entities, refuse_entities

PARSER = "lxml-html"
META = "quire-html.json"
MANIFEST = "manifest.txt"
HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".xht")
_INDEX = re.compile(r"index(?:\.[A-Za-z_-]{2,10})?\.(?:html?|xhtml)$")
_LISTS = ("ol", "ul", "dl")
MAX_BUNDLE_FILES = 20_000
UNREAD_SHOWN = 8  # pages a note on the unread ones names


def parse_html(path: Path) -> ParsedDocument:
    """An .html file (with the images beside it), a folder or an .htmlz, parsed."""
    path = Path(path)
    return parse_html_bundle(bundle_path(path), _shown_name(path))


# Folders named for what they hold rather than for their book: such a book takes the name
# of the folder it sits in ("python-requests-doc/html" is python-requests-doc.htmlz)
_GENERIC_FOLDERS = frozenset(
    {"html", "htm", "xhtml", "doc", "docs", "book", "build", "_build", "out", "output", "site"}
)


def book_name(folder: Path) -> str:
    """The file name a folder of HTML chapters is known by: its own, or its parent's when
    its own is generic ("html"), as the .htmlz it is bundled into."""
    folder = Path(folder)
    parent = folder.resolve().parent.name
    return f"{parent if folder.name.lower() in _GENERIC_FOLDERS and parent else folder.name}.htmlz"


def _shown_name(path: Path) -> str:
    return path.name if not path.is_dir() else book_name(path)


def bundle_path(path: Path) -> bytes:
    """The bundle of an .html file, a folder, or an .htmlz as it is."""
    path = Path(path)
    if path.is_dir():
        return bundle_folder(path)
    data = path.read_bytes()
    if data.startswith(b"PK\x03\x04"):
        return data
    return _bundle(path.parent, [path.name], None, {path.name: data})


def bundle_bytes(data: bytes, name: str) -> bytes:
    """A lone HTML file (an upload: no files beside it) as a bundle of one."""
    if data.startswith(b"PK\x03\x04"):
        return data
    name = PurePosixPath(name.replace("\\", "/")).name or "index.html"
    return _write_zip({name: data, META: _meta([name], None, [])})


def index_names(names: Iterable[str]) -> list[str]:
    """The index pages among a folder's file names: index.html (or index.en.html...); a
    capitalised Index.html beside one is no index page but a Texinfo node, the book's index
    of terms (asymptote). Without any, the top page that HeVeA and texi2html name after the
    book, where most pages are named after it: maxima.html before maxima_1.html ...
    maxima_383.html."""
    pages = sorted(n for n in names if n.lower().endswith(HTML_SUFFIXES))
    found = [n for n in pages if _INDEX.fullmatch(n.lower())]
    if found:
        lower = [n for n in found if _INDEX.fullmatch(n)]
        return lower or found
    stems = {n: n.rpartition(".")[0] for n in pages}
    return [
        n
        for n, stem in stems.items()
        if 2 * sum(1 for m in pages if m != n and _named_after(m, stem)) > len(pages) - 1
    ]


def _named_after(name: str, stem: str) -> bool:
    return name.startswith(stem) and name[len(stem)] in "_-0123456789"


def states_order(folder: Path) -> bool:
    """Whether a folder is an HTML book: it has a manifest.txt or one index page."""
    if (folder / MANIFEST).is_file():
        return True
    return len(_index_pages([p for p in folder.iterdir() if p.is_file()])) == 1


def _index_pages(files: list[Path]) -> list[Path]:
    """The folder's index pages (`index_names`), a page and its symbolic links once
    (Debian's FAQ links index.html to index.en.html): the real file where it is among them."""
    named = set(index_names([p.name for p in files]))
    pages = sorted((p for p in files if p.name in named), key=lambda p: p.name)
    by_target: dict[Path, Path] = {}
    for page in pages:
        target = page.resolve()
        if target not in by_target or not page.is_symlink():
            by_target[target] = page
    return sorted(by_target.values(), key=lambda p: p.name)


def bundle_folder(folder: Path) -> bytes:
    files = {
        p.relative_to(folder).as_posix(): p
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    }
    if len(files) > MAX_BUNDLE_FILES:
        raise InputError(
            f"folder holds {len(files)} files, over the limit of {MAX_BUNDLE_FILES}",
            source=folder.name,
        )

    def read(name: str) -> bytes | None:
        p = files.get(name)
        return p.read_bytes() if p is not None else None

    if MANIFEST in files:
        chapters = _manifest(files[MANIFEST].read_text(encoding="utf-8-sig"), files, folder.name)
        index = None
    else:
        top = [files[n] for n in files if "/" not in n]
        found = [p.relative_to(folder).as_posix() for p in _index_pages(top)]
        if len(found) != 1:
            raise InputError(
                f"the folder states no order for its chapters: it needs {MANIFEST} (one "
                "chapter file per line) or one index.html"
                + (f" (it has {len(found)} index pages)" if found else ""),
                source=folder.name,
            )
        index = found[0]
        chapters = order_chapters(index, set(files), read)
        index = chapters[0]  # the book's top page (texi2html's: its contents page)
    return _bundle(folder, chapters, index, {}, unread=_unread(files, chapters))


def _unread(names: Iterable[str], chapters: list[str]) -> list[str]:
    """The folder's HTML pages that are no chapter: no link of the book reaches them, or
    they are a site's search page."""
    read = set(chapters)
    return sorted(n for n in names if n.lower().endswith(HTML_SUFFIXES) and n not in read)


def unread_note(unread: list[str]) -> list[ParserNote]:
    """What a reader should know of the pages left out (Sphinx's search and index pages,
    and any page only a search would find)."""
    if not unread:
        return []
    shown = ", ".join(unread[:UNREAD_SHOWN]) + (", …" if len(unread) > UNREAD_SHOWN else "")
    return [
        ParserNote(
            kind="warning",
            message=f"{len(unread)} HTML page{'s' if len(unread) > 1 else ''} not read (no "
            f"link of the book leads there, or a site's search page): {shown} (a {MANIFEST} "
            "listing the chapters, one per line, reads what it names)",
        )
    ]


def _manifest(text: str, files: dict[str, Path], source: str) -> list[str]:
    chapters = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name = member("", line)
        if name is None or name not in files:
            raise InputError(f"{MANIFEST} lists {line!r}, which the folder lacks", source=source)
        if name not in chapters:
            chapters.append(name)
    if not chapters:
        raise InputError(f"{MANIFEST} lists no chapters", source=source)
    return chapters


def order_chapters(index: str, names: set[str], read: Callable[[str], bytes | None]) -> list[str]:
    """The index, then the HTML files its links lead to, depth first in link order, a
    page's contents entries before its prose links. A page that contents entries reach
    is read where its entry stands, never earlier where prose mentions it (beets' guide
    links to the plugin it names, and the plugin's page was read inside the guide). When
    the index's navigation lists more pages than its text links to (mdBook's sidebar is
    the book's table of contents; its text links to a few pages, and its menu bar to the
    whole book on one page), the navigation's order comes first; and before it, the order
    of the contents page the index declares (`_declared`: Texinfo's)."""
    links: dict[str, tuple[list[str], list[str]]] = {}  # page -> (entry, prose) targets
    searches: set[str] = set()  # a site's search pages: a form and a notice, no text
    top: list[str] = []  # the declared contents page when it is the book's top page

    def targets(name: str) -> tuple[list[str], list[str]]:
        if name not in links:
            links[name] = ([], [])
            data = read(name)
            try:
                root = parse_markup(data, name) if data is not None else None
            except InputError:  # the parser reports it, with the document
                root = None
            around = outside_main(body_of(root)) if root is not None else set()
            if root is not None and name != index and _search_page(root, around):
                searches.add(name)
            if root is not None:
                found = _content_links(root, around)
                entries = _pages(name, [a for a in found if _entry_link(a)], names)
                prose = _pages(name, found, names)
                if name == index:
                    listed, top[:] = _declared(root, name, names, read)
                    listed = listed or _listed(root, name, names, prose)
                    entries = listed + [t for t in entries if t not in listed]
                links[name] = (entries, [t for t in prose if t not in entries])
        return links[name]

    # the pages the contents entries reach, each under its lister (`_contents_tree`), and
    # then the order with prose links as well; a site's search page is no chapter
    reached = _depth_first(index, lambda name: targets(name)[0])
    children = _contents_tree(reached, lambda name: targets(name)[0])

    def follow(name: str) -> list[str]:
        entries, prose = targets(name)
        by_entry = children[name] if name in children else [t for t in entries if t not in children]
        return by_entry + [t for t in prose if t not in children]

    order = [n for n in _depth_first(index, follow) if n == index or n not in searches]
    return [*top, *(n for n in order if n not in top)]


_SEARCH_RESULTS = re.compile(r"search[-_]?results", re.IGNORECASE)
SEARCH_PAGE_WORDS = 40  # a search page's own text: a title, a notice, a hint


def _search_page(root: etree._Element, around: set[etree._Element]) -> bool:
    """A site's search page (Sphinx's search.html: "Please activate JavaScript to enable
    the search functionality", a form, an empty results box in its main content; mdBook
    has a search box on every page, beside its main): no chapter of the book. `around`:
    what stands around the page's main content (`outside_main`)."""
    body = body_of(root)
    box = any(
        _SEARCH_RESULTS.search(f"{el.get('id')} {el.get('class')}")
        and not any(a in around for a in el.iterancestors())
        for el in body.iter("*")
        if el not in around
    )
    if not box:
        return False
    text = text_except(body, lambda x: x in around or local(x.tag) in ("script", "style"))
    return len(collapse(text).split()) <= SEARCH_PAGE_WORDS


def _contents_tree(order: list[str], entries: Callable[[str], list[str]]) -> dict[str, list[str]]:
    """Each page's children among the pages it lists. A page belongs to the page whose
    entries reached it first (`order`), or, when that is not the book's index, to the index
    page of its own folder if that lists it: gammu's quick start lists the SMS daemon's
    pages before the daemon's own index does, and beets' guide three plugins before the
    plugins' index."""
    rank = {name: k for k, name in enumerate(order)}
    first: dict[str, str] = {}  # the lister whose entries reached each page
    listed: dict[str, list[str]] = {}
    for name in order:
        for target in entries(name):
            listed.setdefault(target, []).append(name)
            if rank[target] > rank[name]:
                first.setdefault(target, name)
    parent = dict(first)
    for target, listers in listed.items():
        if first.get(target) == order[0]:
            continue  # the book's index (an mdBook's sidebar) states the book's order
        folder, _, page = target.rpartition("/")
        if _INDEX.search(page):
            continue  # a folder's index belongs to the folder above
        own = [x for x in listers if x.rpartition("/")[0] == folder and _INDEX.search(x)]
        if own:
            parent[target] = own[0]
    for target in list(parent):  # a page whose parents lead back to it: the first lister
        seen, node = {target}, parent[target]
        while node in parent and node not in seen:
            seen.add(node)
            node = parent[node]
        if node in seen:
            parent[target] = first[target]
    return {name: [t for t in entries(name) if parent.get(t) == name] for name in order}


def _depth_first(start: str, follow: Callable[[str], list[str]]) -> list[str]:
    order: list[str] = []
    stack = [start]
    seen = {start}
    while stack:
        name = stack.pop()
        order.append(name)
        nxt = [t for t in follow(name) if t not in seen]
        seen.update(nxt)
        stack += reversed(nxt)
    return order


def _pages(name: str, links: list[etree._Element], names: set[str]) -> list[str]:
    """The book's HTML pages that links in page `name` lead to, once each, in order."""
    out: list[str] = []
    for a in links:
        target = member(name, a.get("href") or "")
        if target is None or target == name or target in out or target not in names:
            continue
        if target.lower().endswith(HTML_SUFFIXES):
            out.append(target)
    return out


_GENERATED = re.compile(r"(?:^|/)(?:genindex|\w*modindex|search)\.html?$")  # Sphinx's


def _declared(
    root: etree._Element, name: str, names: set[str], read: Callable[[str], bytes | None]
) -> tuple[list[str], list[str]]:
    """The contents page that index page `name` declares (`rel="contents"`, a Texinfo
    page's link to its table of contents), then the pages its entries list, in their
    order; else none. texi2html's first page is the first chapter, its "Next" link and
    cross-references led the order, and maxima's manual was read 2.1, 4.3, 4, 5, 8.1, 8,
    9, 14.2 ... And that contents page alone when it is the book's top page, whose "Next"
    is the index page (maxima's title and contents before its first chapter)."""
    declared = _rel_targets(root, name, {"contents", "toc"})
    contents = next((t for t in declared if t in names and t != name), None)
    if contents is None or (data := read(contents)) is None:
        return [], []
    try:
        page = parse_markup(data, contents)
    except InputError:  # the parser reports it, with the document
        return [], []
    found = _content_links(page)
    listed = _pages(contents, [a for a in found if _entry_link(a)], names)
    top = [contents] if _rel_targets(page, contents, {"next"})[:1] == [name] else []
    return [contents, *(t for t in listed if t != name)], top


def _rel_targets(root: etree._Element, name: str, wanted: set[str]) -> list[str]:
    """The members that page `name`'s `<link>` and `<a>` elements of a relation in `wanted`
    (`rel="contents"`, `rel="next"`) name, in order."""
    return [
        t
        for el in root.iter("link", "a")
        if wanted & rels(el) and (t := member(name, el.get("href") or "")) is not None
    ]


def _listed(root: etree._Element, name: str, names: set[str], text: list[str]) -> list[str]:
    """The pages the navigation of index page `name` lists, when they are more than the
    pages its text links to (`text`; mdBook's sidebar: the book's table of contents), or
    when the text links to none of some (fontforge's sidebar lists its eight chapters, its
    text the general index and twenty pages it mentions); else none. Sphinx's general
    index, module index and search page lead no order (a bar that links them is no
    contents: Debian Policy's, FRR's)."""
    listed = [p for p in _pages(name, _navigation_links(root), names) if not _GENERATED.search(p)]
    return listed if len(listed) > len(text) or set(listed) - set(text) else []


def _navigation_links(root: etree._Element) -> list[etree._Element]:
    """The links in lists inside the page's navigation elements (and what stands around
    its one main content: Furo's sidebar holds the book's contents when the index page's
    own are hidden), in order."""
    around = outside_main(body_of(root))

    def nav_like(el: etree._Element) -> bool:
        return is_chrome(el) or el in around

    out = []
    for nav in root.iter():
        if not isinstance(nav.tag, str) or not nav_like(nav):
            continue
        if any(nav_like(x) for x in nav.iterancestors()):
            continue  # counted with the navigation around it
        for a in nav.iter():
            listed = any(local(x.tag) in ("ol", "ul") for x in a.iterancestors())
            if isinstance(a.tag, str) and local(a.tag) == "a" and a.get("href") and listed:
                out.append(a)
    return out


def _content_links(
    root: etree._Element, around: set[etree._Element] | None = None
) -> list[etree._Element]:
    """The page's links outside its chrome: its navigation, and what stands around its one
    main content (`around`, when the caller has it; borgbackup's sidebar lists every page
    of the book on each page, and the usage chapter's pages came after the last chapter)."""
    out = []
    chrome = set(outside_main(body_of(root)) if around is None else around)
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        if is_chrome(el):
            chrome.add(el)
        linked = local(el.tag) == "a" and bool(el.get("href")) and el not in chrome
        if linked and not any(x in chrome for x in el.iterancestors()):
            out.append(el)
    return out


_CONTROLS = frozenset({"label", "button", "input", "select", "textarea"})
_HIDDEN = frozenset({"visually-hidden", "sr-only", "screen-reader-text"})


def _aside_entry(el: etree._Element) -> bool:
    """What an entry's own text leaves out: its nested lists, and the controls a theme
    adds to expand them (Furo: "Toggle child pages in navigation", for screen readers)."""
    tag = local(el.tag)
    return tag in _LISTS or tag in _CONTROLS or bool(_HIDDEN & classes(el))


_DESCRIBED = re.compile(r"\s*[:–—]|\s+-\s")  # a title, then its description
_LIST_OF = frozenset(
    {"list-of-tables", "list-of-figures", "list-of-examples", "list-of-equations", "lot", "lof"}
)
# an entry's number before its link: "1. ", "2.1. ", "Part 1. ", "Appendix A. ", "IV. "
_NUMBERED = re.compile(r"(?:[^\W\d_]+\s+)?(?:\d+|[A-Z]|[IVXLC]+)(?:\.\d+)*\.?\s*")


def _entry_link(a: etree._Element) -> bool:
    """Is the link a whole entry of a list, its item's own text (nested lists aside): a
    contents entry, not a link in prose ("[Copy pages] from one PDF into another" on
    pikepdf's index page, above its contents, led the chapter order and the outline)?"""
    item = next((x for x in a.iterancestors() if local(x.tag) in ("li", "dt")), None)
    if item is None or any(_LIST_OF & classes(x) for x in a.iterancestors()):
        return False  # (a list of tables or figures names no chapter: mutt's, DocBook XSL's)
    own = collapse(text_except(item, _aside_entry))
    title = collapse("".join(a.itertext()))
    # or the entry's title before its description ("Chromaprint/Acoustid Plugin: Use
    # acoustic fingerprinting…", beets' list of plugins), or after its number outside the
    # link (DocBook's DSSSL contents: "1. <a>Shell Programming!</a>"; the Advanced
    # Bash-Scripting Guide's 38 chapters were read in the order its prose cites them)
    return (
        own == title
        or (own.startswith(title) and _DESCRIBED.match(own[len(title) :]) is not None)
        or (
            bool(title)
            and own.endswith(title)
            and _NUMBERED.fullmatch(own[: len(own) - len(title)]) is not None
        )
    )


def _bundle(
    folder: Path,
    chapters: list[str],
    index: str | None,
    given: dict[str, bytes],
    unread: list[str] | None = None,
) -> bytes:
    members: dict[str, bytes] = {}
    for name in chapters:
        data = given.get(name)
        if data is None:
            data = (folder / name).read_bytes()
        members[name] = data
    for name in list(chapters):  # the local files the chapters' images name
        try:
            root = parse_markup(members[name], name)
        except InputError:  # the parser reports it, with the document
            continue
        for src in _image_sources(root):
            target = member(name, src)
            if target and target not in members and (folder / target).is_file():
                members[target] = (folder / target).read_bytes()
    members[META] = _meta(chapters, index, unread or [])
    return _write_zip(members)


def _image_sources(root: etree._Element) -> list[str]:
    out = []
    for el in root.iter():
        tag = local(el.tag)
        if tag == "img" and el.get("src"):
            out.append(el.get("src") or "")
        elif tag == "image":
            href = el.get(f"{{{XLINK_NS}}}href") or el.get("href")
            if href:
                out.append(href)
    return out


def _meta(chapters: list[str], index: str | None, unread: list[str]) -> bytes:
    meta = {"chapters": chapters, "index": index, "unread": unread}
    return json.dumps(meta, ensure_ascii=False).encode()


def _write_zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, members[name])
    return out.getvalue()


def parse_markup(data: bytes, name: str) -> etree._Element:
    """A chapter's tree: XHTML as XML (no entities, no DTD, no network); HTML, and XHTML
    that is not well-formed, with lxml's HTML parser, as a browser would read it."""
    if declares_entities(data):
        raise UnsafeXmlError(
            f"{name} declares entities in its DTD (<!DOCTYPE [...]>): refused, as entities "
            "can hide text, read files or expand without bound"
        )
    head = data[:200].lstrip()
    if name.lower().endswith((".xhtml", ".xht")) or head.startswith(b"<?xml"):
        try:
            return etree.fromstring(
                data,
                parser=etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True),
            )
        except etree.XMLSyntaxError:
            pass
    return read_as_html(data, name)


def read_as_html(data: bytes, name: str) -> etree._Element:
    """`data` read by lxml's HTML parser, as a browser or an e-reader reads markup that
    is not well-formed (an unescaped "<" in text, an undeclared "epub:" prefix)."""
    try:  # bytes that are UTF-8 are read as UTF-8 (lxml would guess Latin-1 without a meta)
        data.decode("utf-8")
        encoding: str | None = "utf-8"
    except UnicodeDecodeError:
        encoding = None  # the document's own declaration, else lxml's guess
    try:
        root = html.document_fromstring(
            data,
            parser=html.HTMLParser(no_network=True, remove_comments=True, encoding=encoding),
        )
    except (etree.ParserError, ValueError) as exc:
        raise CorruptDocumentError(f"{name} cannot be read as HTML ({exc})") from exc
    return root


def parse_html_bundle(data: bytes, source: str) -> ParsedDocument:
    if not data:
        raise EmptyDocumentError("empty file (0 bytes)", source=source)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = set(archive.namelist())
    except Exception as exc:
        raise CorruptDocumentError(
            "damaged HTML bundle: the zip archive is truncated or corrupt", source=source
        ) from exc
    check_sizes(archive, source, kind="HTML bundle")
    markup = {
        n: archive.read(n) for n in sorted(names) if n.lower().endswith((*HTML_SUFFIXES, ".xml"))
    }
    refuse_entities(markup, source)
    notes: list[ParserNote] = []
    if META in names:
        try:
            meta = json.loads(archive.read(META))
            chapters = [str(c) for c in meta["chapters"]]
            index = meta.get("index")
            notes += unread_note([str(n) for n in meta.get("unread", [])])
        except (ValueError, KeyError, TypeError) as exc:
            raise CorruptDocumentError(f"{META} is unreadable ({exc})", source=source) from exc
    else:  # an .htmlz: index.html at its root
        found = index_names(n for n in names if "/" not in n)
        if not found:
            raise CorruptDocumentError("the HTML bundle has no index.html", source=source)
        index = found[0]
        chapters = order_chapters(index, names, lambda n: markup.get(n))
        index = chapters[0]
        notes += unread_note(_unread(markup, chapters))
    missing = [c for c in chapters if c not in markup]
    if missing:
        raise CorruptDocumentError(
            f"chapter {missing[0]} is missing from the bundle", source=source
        )
    roots: list[tuple[str, etree._Element]] = []
    for name in chapters:
        try:
            roots.append((name, parse_markup(markup[name], name)))
        except InputError as exc:
            exc.source = source
            raise
    nav = index_entries(index, dict(roots)) if index else []
    roots = _once(roots, index, notes)
    first = roots[0][1]
    language = first.get("lang") or first.get("{http://www.w3.org/XML/1998/namespace}lang")

    def read(name: str) -> bytes | None:
        return archive.read(name) if name in names else None

    book = Book(
        source_name=source,
        doc_id=sha256_bytes(data),
        source_format="html",
        parser=PARSER,
        chapters=roots,
        read=read,
        nav=nav,
        language=language or None,
        notes=notes,
    )
    return build(book)


def _once(
    roots: list[tuple[str, etree._Element]], index: str | None, notes: list[ParserNote]
) -> list[tuple[str, etree._Element]]:
    """The chapters, each text once: mdBook's index.html is a copy of the book's first
    chapter (the index gives way to the chapter its contents list), and a page that
    repeats an earlier one is left out; each with a note."""
    text = {name: collapse(text_except(root, is_chrome)) for name, root in roots}
    drop: dict[str, str] = {}  # a chapter left out -> the one it repeats
    if index is not None and text.get(index):
        twin = next((n for n, _ in roots if n != index and text[n] == text[index]), None)
        if twin is not None:
            drop[index] = twin
    kept: dict[str, str] = {}
    for name, _ in roots:
        if name not in drop and text[name]:
            if text[name] in kept:
                drop[name] = kept[text[name]]
            else:
                kept[text[name]] = name
    notes += [
        ParserNote(kind="info", message=f"{name} repeats {twin}: read once, there")
        for name, twin in drop.items()
    ]
    return [(n, r) for n, r in roots if n not in drop]


def index_entries(index: str, roots: dict[str, etree._Element]) -> list[NavEntry]:
    """The index page's links to other chapters, their list nesting as their level."""
    root = roots.get(index)
    if root is None:
        return []
    out = []
    links = _content_links(root)
    if _listed(root, index, set(roots), _pages(index, links, set(roots))):  # a sidebar
        links = _navigation_links(root)
    entries = [a for a in links if _entry_link(a)]  # its contents, when it has one
    for a in entries if len(entries) >= 2 else links:
        target = resolve(index, a.get("href") or "")
        if target is None or target.split("#", 1)[0] not in roots or target.startswith(index):
            continue
        title = collapse("".join(a.itertext()))
        depth = sum(1 for x in a.iterancestors() if local(x.tag) in _LISTS)
        if title:
            out.append(NavEntry(max(depth, 1), title, target))
    return out if len(out) >= 2 else []
