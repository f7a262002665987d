"""XML parts that declare a document type are refused before any parser reads them.

A DTD is how XML declares entities: `<!ENTITY x SYSTEM "file:///etc/passwd">` reads a local
file, nested entities expand without bound, and python-docx (lxml without entity resolution)
silently drops an entity's text and whatever follows it in the run. Word, LibreOffice and
Google Docs never write a DTD into a package, so one is refused outright (`unsafe_xml`)
instead of parsed with care. Only each part's prolog is read: a DTD must come before the
root element. For any zip-based format (DOCX now, EPUB later).
"""

from __future__ import annotations

import zipfile
from typing import IO
from xml.parsers import expat

from quire.shared.errors import UnsafeXmlError

_XML_STARTS = (b"<", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")  # '<', or a BOM
_CHUNK = 64 * 1024


class _Stop(Exception):
    """Raised from an expat handler: nothing past this point matters."""


def declares_dtd(stream: IO[bytes]) -> bool:
    """Whether the XML read from `stream` has a document type declaration before its root
    element (expat reads no further). Malformed XML is left to the part's own parser."""
    parser = expat.ParserCreate()
    found = False

    def doctype(*_: object) -> None:
        nonlocal found
        found = True
        raise _Stop

    def root(*_: object) -> None:
        raise _Stop

    parser.StartDoctypeDeclHandler = doctype
    parser.StartElementHandler = root
    try:
        while chunk := stream.read(_CHUNK):
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except _Stop:
        pass
    except expat.ExpatError:
        return False
    return found


def refuse_dtds(archive: zipfile.ZipFile, source: str) -> None:
    """Raise UnsafeXmlError naming the first XML part of `archive` that declares a DTD.
    Every member that starts like XML is checked, whatever its name or declared type."""
    for info in archive.infolist():
        with archive.open(info) as member:
            head = member.read(4).lstrip()
        if not head.startswith(_XML_STARTS):
            continue
        with archive.open(info) as member:
            if declares_dtd(member):
                raise UnsafeXmlError(
                    f"part {info.filename} declares a DTD (<!DOCTYPE>, entities): refused, "
                    "as entities can hide text, read files or expand without bound",
                    source=source,
                )
