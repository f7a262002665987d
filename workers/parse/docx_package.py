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

from shared.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    EncryptedDocumentError,
    UnsupportedFormatError,
)

RELS_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
OFFICE_DOCUMENT = (
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
)
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
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        if data.startswith(b"PK\x03\x04"):
            raise CorruptDocumentError(
                "damaged DOCX: the zip archive is truncated or corrupt", source=source
            ) from exc
        raise CorruptDocumentError("not a DOCX (zip) file", source=source) from exc
    main = _main_part(archive, names)
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
