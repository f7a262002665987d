"""Names and references inside an HTML book: element names without namespaces, and a
link's destination as a key of the book ("OEBPS/ch02.xhtml#sec-3", or the file alone).

Keys are the book's own member names (posix paths inside the EPUB, or inside the HTML
bundle), so a link, an id and the navigation document meet on the same spelling.
"""

from __future__ import annotations

import functools
import posixpath
from urllib.parse import unquote, urlsplit

XHTML_NS = "http://www.w3.org/1999/xhtml"
EPUB_NS = "http://www.idpf.org/2007/ops"
XLINK_NS = "http://www.w3.org/1999/xlink"


def local(tag: object) -> str:
    """An element's name without its namespace, in lower case; "" for comments and
    processing instructions."""
    return _local(tag) if isinstance(tag, str) else ""


@functools.lru_cache(maxsize=4096)
def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1].lower()


def member(base: str, href: str) -> str | None:
    """The member `href` (a relative URL, query and fragment ignored) names, seen from
    member `base`; None for an absolute URL, a data: URI or a path that leaves the book."""
    parts = urlsplit(href.strip())
    if parts.scheme or parts.netloc:
        return None
    path = unquote(parts.path)
    if not path:
        return base
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(base), path))
    if path.startswith("/") or joined.startswith("../") or joined == "..":
        return None
    return joined


def resolve(base: str, href: str) -> str | None:
    """The key a link in member `base` leads to: "member#fragment", or "member" for a
    whole file; None for a link outside the book."""
    target = member(base, href)
    if target is None:
        return None
    fragment = unquote(urlsplit(href.strip()).fragment)
    return f"{target}#{fragment}" if fragment else target
