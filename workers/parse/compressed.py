"""Documents shipped compressed: Debian keeps its manuals as `.pdf.gz` in /usr/share/doc.

A file named as a document with a compression suffix after it ("manual.pdf.gz",
"guide.epub.xz", "notes.docx.bz2") is read as the document inside: admission stores the
inner bytes under the inner name, so the document's id is their hash and the compressed
file and the plain one are one document. The inner size is held to the same limit as any
file's, read no further than that (a small archive of gigabytes of zeros is refused, not
unpacked)."""

from __future__ import annotations

import bz2
import contextlib
import lzma
import tempfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path, PurePath
from typing import Protocol

from quire.shared.errors import CorruptDocumentError, TooLargeError
from quire.workers.parse.detect import format_of_name


class _Decompressor(Protocol):
    @property
    def eof(self) -> bool: ...

    def decompress(self, data: bytes, max_length: int = ..., /) -> bytes: ...


_DECOMPRESSORS: dict[str, Callable[[], _Decompressor]] = {
    ".gz": lambda: zlib.decompressobj(wbits=16 + zlib.MAX_WBITS),  # gzip's header
    ".xz": lzma.LZMADecompressor,
    ".bz2": bz2.BZ2Decompressor,
}
COMPRESSION_SUFFIXES = tuple(_DECOMPRESSORS)


def inner_name(name: str) -> str | None:
    """The document's own name when `name` is a document's compressed file, else None
    ("manual.pdf.gz" -> "manual.pdf"; "data.tar.gz" and "manual.pdf" -> None)."""
    path = PurePath(name)
    if path.suffix.lower() not in _DECOMPRESSORS or format_of_name(path.stem) is None:
        return None
    return path.stem


def decompress(data: bytes, name: str, limit: int) -> bytes:
    """The bytes inside `data`, compressed as `name`'s suffix says. Raises
    CorruptDocumentError (not that format, or cut short) or TooLargeError (more than
    `limit` bytes inside)."""
    suffix = PurePath(name).suffix.lower()
    worker = _DECOMPRESSORS[suffix]()
    try:
        out = worker.decompress(data, limit + 1)
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as exc:
        raise CorruptDocumentError(f"not a valid {suffix} file: {exc}", source=name) from None
    if len(out) > limit:
        raise TooLargeError(f"the document inside is over the limit of {limit} bytes", source=name)
    if not worker.eof:
        raise CorruptDocumentError(f"the {suffix} file is cut short", source=name)
    return out


@contextlib.contextmanager
def unpacked(path: Path, limit: int) -> Iterator[Path]:
    """A compressed document's inside as a temporary file named as the document, for a
    reader that takes a path (`quire parse`, `quire.parse`)."""
    inner = inner_name(path.name)
    assert inner is not None, path
    data = decompress(path.read_bytes(), path.name, limit)
    with tempfile.TemporaryDirectory(prefix="quire-unpacked-") as tmp:
        copy = Path(tmp) / inner
        copy.write_bytes(data)
        yield copy
