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

Format = Literal["pdf", "docx"]

_EXTENSIONS: dict[str, Format] = {".pdf": "pdf", ".docx": "docx"}
# The PDF header may be preceded by junk; readers accept it within the first 1024 bytes.
_PDF_MAGIC = b"%PDF-"
_PDF_HEADER_WINDOW = 1024


def detect_format(path: Path) -> Format:
    """Return "pdf" or "docx" for a file whose extension is known and whose bytes fit it.

    Raises UnsupportedFormatError (unknown extension), EmptyDocumentError (0 bytes) or
    CorruptDocumentError (a '.pdf' without a PDF header). DOCX container checks (is it a
    zip, does it have a body) belong to the DOCX parser.
    """
    path = Path(path)
    fmt = _EXTENSIONS.get(path.suffix.lower())
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
    return fmt
