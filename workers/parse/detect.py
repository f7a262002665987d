"""Input checks before parsing: which format a file is, and whether it is usable at all.

The extension says what the user meant, the first bytes say what the file is; both must
agree. Every refusal raises a specific `InputError` subclass with a one-line reason, so the
CLI and the workers can report *why* a document failed without a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from quire.shared.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    InputError,
    UnsupportedFormatError,
)

Format = Literal["pdf", "docx", "epub", "html"]

_EXTENSIONS: dict[str, Format] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".epub": "epub",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".htmlz": "html",  # a zipped HTML book (Calibre's HTMLZ, Quire's own bundles)
}
EXTENSIONS = tuple(_EXTENSIONS)  # what an upload form offers: the one list
# The PDF header may be preceded by junk; readers accept it within the first 1024 bytes.
_PDF_MAGIC = b"%PDF-"
_PDF_HEADER_WINDOW = 1024


def format_of_name(name: str) -> Format | None:
    """The format a file name's extension says, or None."""
    return _EXTENSIONS.get(Path(name).suffix.lower())


def detect_format(path: Path) -> Format:
    """Return the format of a file whose extension is known and whose bytes fit it.

    Raises UnsupportedFormatError (unknown extension), EmptyDocumentError (0 bytes) or
    CorruptDocumentError (a '.pdf' without a PDF header, an '.epub' that is no zip).
    Container checks (does it have a body, a spine) belong to each format's parser.
    """
    path = Path(path)
    if path.is_dir():
        return "html"  # a folder of HTML chapters (html_input checks its order)
    fmt = format_of_name(path.name)
    if fmt is None:
        known = ", ".join(sorted(_EXTENSIONS))
        shown = path.suffix or "no extension"
        raise UnsupportedFormatError(
            f"unsupported file type ({shown}); supported: {known}", source=path.name
        )
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise InputError("file not found", source=path.name) from None
    if size == 0:
        raise EmptyDocumentError("empty file (0 bytes)", source=path.name)
    if fmt == "pdf":
        with path.open("rb") as fh:
            head = fh.read(_PDF_HEADER_WINDOW)
        if _PDF_MAGIC not in head:
            raise CorruptDocumentError(
                "not a PDF file: no '%PDF-' header in the first 1024 bytes", source=path.name
            )
    if fmt == "epub":
        with path.open("rb") as fh:
            head = fh.read(4)
        if head != b"PK\x03\x04":
            raise CorruptDocumentError(
                "not an EPUB: the file is not a zip archive", source=path.name
            )
    return fmt
