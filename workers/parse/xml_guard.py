"""XML parts that declare a document type are refused before any parser reads them.

A DTD is how XML declares entities: `<!ENTITY x SYSTEM "file:///etc/passwd">` reads a local
file, nested entities expand without bound, and python-docx (lxml without entity resolution)
silently drops an entity's text and whatever follows it in the run. Word, LibreOffice and
Google Docs never write a DTD into a package, so one is refused outright (`unsafe_xml`)
instead of parsed with care. Each part is read by lxml — the parser python-docx uses, so any
encoding it reads is read here too — only up to its root element: a DTD must come before it.
For any zip-based format (DOCX now, EPUB later).
"""

from __future__ import annotations

import io
import zipfile
from typing import IO

from lxml import etree

from quire.shared.errors import UnsafeXmlError


def declares_dtd(stream: IO[bytes]) -> bool:
    """Whether the XML read from `stream` has a document type declaration (an internal
    subset with entities, or an external DTD) before its root element. What lxml cannot
    read at all is not XML python-docx reads either: its own parser reports it."""
    try:
        for _, root in etree.iterparse(
            stream, events=("start",), resolve_entities=False, load_dtd=False, no_network=True
        ):
            info = root.getroottree().docinfo
            return bool(info.doctype) or info.internalDTD is not None
    except etree.XMLSyntaxError:
        pass
    return False


def refuse_dtds(archive: zipfile.ZipFile, source: str) -> None:
    """Raise UnsafeXmlError naming the first part of `archive` that declares a DTD. Every
    member is read as XML, whatever its name or declared type (other bytes fail at once)."""
    for info in archive.infolist():
        with archive.open(info) as member:
            if declares_dtd(member):
                raise UnsafeXmlError(
                    f"part {info.filename} declares a DTD (<!DOCTYPE>, entities): refused, "
                    "as entities can hide text, read files or expand without bound",
                    source=source,
                )


# An internal subset's declarations, in the encodings XML allows without a declaration
_ENTITY_MARKS = tuple(
    b"<!ENTITY".decode().encode(enc) for enc in ("ascii", "utf-16-le", "utf-16-be")
)


def declares_entities(data: bytes) -> bool:
    """Whether `data` (XML or HTML) declares entities or other markup in an internal DTD
    subset (`<!DOCTYPE html [<!ENTITY x SYSTEM "file:///etc/passwd">]>`). A plain
    `<!DOCTYPE html>` or XHTML's public DTD, which every EPUB content document may carry,
    is not loaded (no network, no DTD loading) and so is allowed."""
    head = data[: 1 << 20].upper()
    if any(mark in head for mark in _ENTITY_MARKS):
        return True
    try:
        for _, root in etree.iterparse(
            io.BytesIO(data),
            events=("start",),
            resolve_entities=False,
            load_dtd=False,
            no_network=True,
        ):
            dtd = root.getroottree().docinfo.internalDTD
            return dtd is not None and bool(list(dtd.entities()) or list(dtd.iterelements()))
    except etree.XMLSyntaxError:
        pass
    return False


def refuse_entities(parts: dict[str, bytes], source: str) -> None:
    """Raise UnsafeXmlError naming the first part that declares entities (see
    `declares_entities`)."""
    for name, data in parts.items():
        if declares_entities(data):
            raise UnsafeXmlError(
                f"part {name} declares entities in its DTD (<!DOCTYPE [...]>): refused, "
                "as entities can hide text, read files or expand without bound",
                source=source,
            )
