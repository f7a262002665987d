"""Opening a DOCX package with python-docx, with one specific error per kind of bad input and
a tolerant second attempt for packages with dangling internal relationships.

LibreOffice 7.4 writes links around images as relationships with Target="#anchor" and no
TargetMode="External"; python-docx then looks for a part named "word/#anchor" and raises
KeyError, although Word and LibreOffice open the file. The repair marks such targets external
(or drops relationships to parts that do not exist) in an in-memory copy and tries again.
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
from dataclasses import dataclass
from urllib.parse import unquote

import docx
from docx.document import Document as DocxDocument
from lxml import etree

from quire.shared.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    EncryptedDocumentError,
    TooLargeError,
    UnsupportedFormatError,
)
from quire.workers.parse.limits import (
    MAX_DOCX_MEMBERS,
    MAX_DOCX_UNCOMPRESSED_BYTES,
    MAX_DOCX_XML_PART_BYTES,
)
from quire.workers.parse.xml_guard import refuse_dtds

RELS_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
OFFICE_DOCUMENT = (
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
)
_XML_PARTS = (".xml", ".rels", ".opf", ".ncx", ".xhtml", ".html", ".htm", ".svg")
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass
class OpenedDocx:
    document: DocxDocument
    repair: str | None = None  # what the tolerant reopen changed, when it was needed
    error: str | None = None  # why the plain open failed, when it did


def open_docx(data: bytes, source: str) -> OpenedDocx:
    if not data:
        raise EmptyDocumentError("empty file (0 bytes)", source=source)
    if data.startswith(_OLE_MAGIC):
        # An encrypted OOXML file is an OLE container holding an "EncryptionInfo" stream.
        if "EncryptionInfo".encode("utf-16-le") in data:
            raise EncryptedDocumentError("password-protected (encrypted) DOCX", source=source)
        raise UnsupportedFormatError("legacy Word .doc (OLE) file, not DOCX", source=source)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = set(archive.namelist())
    except Exception as exc:  # zipfile raises BadZipFile, ValueError, NotImplementedError...
        if data.startswith(b"PK\x03\x04"):
            raise CorruptDocumentError(
                "damaged DOCX: the zip archive is truncated or corrupt", source=source
            ) from exc
        raise CorruptDocumentError("not a DOCX (zip) file", source=source) from exc
    check_sizes(archive, source)
    refuse_dtds(archive, source)  # before any XML parser reads a part
    try:
        main = _main_part(archive, names)
    except Exception as exc:  # a damaged member (bad offsets, CRC, deflate data)
        raise CorruptDocumentError(
            f"damaged DOCX: cannot read its package relationships ({_describe(exc)})",
            source=source,
        ) from exc
    if main is None or main not in names:
        raise CorruptDocumentError(
            f"zip has no {main or 'word/document.xml'}: not a Word document", source=source
        )
    try:
        return OpenedDocx(docx.Document(io.BytesIO(data)))
    except ValueError as exc:
        if "is not a Word file" in str(exc):
            raise UnsupportedFormatError(
                f"not a Word document ({_one_line(exc)})", source=source
            ) from exc
        first: Exception = exc
    except Exception as exc:  # python-docx raises KeyError, lxml errors, ...
        first = exc
    try:
        repaired, fixes = _repair_relationships(archive, names)
    except Exception:  # damaged members (bad CRC, broken deflate data): report the first error
        fixes = []
    if not fixes:
        raise CorruptDocumentError(
            f"python-docx cannot open it: {_describe(first)}", source=source
        ) from first
    try:
        document = docx.Document(io.BytesIO(repaired))
    except Exception as exc:
        raise CorruptDocumentError(
            f"python-docx cannot open it, even after repair: {_describe(exc)}", source=source
        ) from exc
    return OpenedDocx(document, repair="; ".join(fixes), error=_describe(first))


def check_sizes(archive: zipfile.ZipFile, source: str, kind: str = "DOCX") -> None:
    """Refuse a zip bomb by the sizes its directory declares, then make sure no member
    inflates beyond its declaration: zipfile stops there, but only after inflating a whole
    `read()` into memory, which python-docx would do with a lying member."""
    infos = archive.infolist()
    total = sum(i.file_size for i in infos)
    if len(infos) > MAX_DOCX_MEMBERS:
        raise TooLargeError(
            f"{kind} package has {len(infos)} parts, over the limit of {MAX_DOCX_MEMBERS}",
            source=source,
        )
    if total > MAX_DOCX_UNCOMPRESSED_BYTES:
        raise TooLargeError(
            f"{kind} package inflates to {total:,} bytes, over the limit of "
            f"{MAX_DOCX_UNCOMPRESSED_BYTES:,}",
            source=source,
        )
    for info in infos:
        if info.filename.endswith(_XML_PARTS) and info.file_size > MAX_DOCX_XML_PART_BYTES:
            raise TooLargeError(
                f"{kind} part {info.filename} inflates to {info.file_size:,} bytes, over the "
                f"limit of {MAX_DOCX_XML_PART_BYTES:,}",
                source=source,
            )
    for info in infos:  # inflate in bounded steps: a lying member fails its CRC here
        try:
            with archive.open(info) as member:
                while member.read(1 << 20):
                    pass
        except Exception as exc:
            raise CorruptDocumentError(
                f"damaged {kind}: part {info.filename} cannot be read ({_describe(exc)})",
                source=source,
            ) from exc


def _main_part(archive: zipfile.ZipFile, names: set[str]) -> str | None:
    """The part the package relationships name as the main document."""
    if "_rels/.rels" not in names:
        return "word/document.xml" if "word/document.xml" in names else None
    try:
        root = etree.fromstring(archive.read("_rels/.rels"))
    except (etree.XMLSyntaxError, zipfile.BadZipFile, OSError):
        return None
    for rel in root.iter(f"{{{RELS_NS}}}Relationship"):
        if rel.get("Type") == OFFICE_DOCUMENT:
            return unquote((rel.get("Target") or "").lstrip("/"))
    return None


def _repair_relationships(archive: zipfile.ZipFile, names: set[str]) -> tuple[bytes, list[str]]:
    """Copy the package, making every internal relationship point at a part that exists."""
    marked: list[str] = []
    dropped: list[str] = []
    replaced: dict[str, bytes] = {}
    for name in sorted(n for n in names if n.endswith(".rels")):
        try:
            root = etree.fromstring(archive.read(name))
        except etree.XMLSyntaxError:
            continue
        base = posixpath.dirname(posixpath.dirname(name))  # word/_rels/x.rels -> word
        changed = False
        for rel in list(root.iter(f"{{{RELS_NS}}}Relationship")):
            if rel.get("TargetMode") == "External":
                continue
            target = rel.get("Target") or ""
            part = unquote(
                target.lstrip("/")
                if target.startswith("/")
                else posixpath.normpath(posixpath.join(base, target))
            )
            if part in names:
                continue
            if target.startswith("#") or _SCHEME.match(target):
                rel.set("TargetMode", "External")
                marked.append(target)
            else:
                parent = rel.getparent()
                if parent is not None:
                    parent.remove(rel)
                dropped.append(target)
            changed = True
        if changed:
            replaced[name] = etree.tostring(
                root, xml_declaration=True, encoding="UTF-8", standalone=True
            )
    fixes = []
    if marked:
        fixes.append(
            f"marked {len(marked)} relationship(s) without a part as external (e.g. {marked[0]!r})"
        )
    if dropped:
        fixes.append(
            f"dropped {len(dropped)} relationship(s) to missing parts (e.g. {dropped[0]!r})"
        )
    if not fixes:
        return b"", []
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as new:
        for info in archive.infolist():
            new.writestr(info, replaced.get(info.filename) or archive.read(info.filename))
    return out.getvalue(), fixes


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {_one_line(exc)}"


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200]
