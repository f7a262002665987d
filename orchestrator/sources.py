"""Expanding `quire batch SOURCE...` arguments into the files to submit.

A SOURCE is a file, a folder (searched recursively), a glob (`books/**/*.pdf`) or an S3
prefix (`s3://bucket/prefix`). What the user named explicitly — a file, or whatever a glob
matched — is always submitted, so a wrong file fails with its reason in the report; what a
folder or prefix merely contains is taken only when it looks like a document (`.pdf`,
`.docx`, `.epub`, `.htmlz`, or one of them compressed: `.pdf.gz`), so a folder's README or
MANIFEST is not reported as a failed book. A folder that is an HTML book (its chapters'
order in `manifest.txt` or an index page) is one document, submitted as its bundle.
"""

from __future__ import annotations

import functools
import glob
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from quire.shared.errors import QuireError
from quire.workers.parse.compressed import COMPRESSION_SUFFIXES

DOCUMENT_SUFFIXES = (".pdf", ".docx", ".epub", ".htmlz")
# and each compressed, as Debian ships its manuals ("manual.pdf.gz"): read as the inside
COMPRESSED_SUFFIXES = tuple(d + c for d in DOCUMENT_SUFFIXES for c in COMPRESSION_SUFFIXES)
# named explicitly (or uploaded), these are documents too; inside a folder they are an HTML
# book's chapters, so a folder is one book when it states its order (manifest.txt, index)
HTML_SUFFIXES = (".html", ".htm", ".xhtml")
_GLOB_CHARS = set("*?[")
# S3 bucket names: 3-63 lowercase letters, digits, dots and hyphens, no dot or hyphen at the ends
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


class SourceError(QuireError):
    """A SOURCE argument names nothing usable (missing path, empty glob, bad URL)."""

    code = "source"


class BadSourceError(SourceError):
    """An `s3://` reference that no object could have: no valid bucket, a '..' segment,
    control characters. Refused before anything is asked of the endpoint."""

    code = "bad_source"


@dataclass(frozen=True)
class SourceItem:
    """One file to submit: where it came from, its file name, and how to read it."""

    origin: str  # a local path or s3://bucket/key, as shown in reports
    name: str  # the file name (its extension says what the bytes should be)
    size: int
    path: Path | None = None  # a local file, when there is one
    _read: Callable[[], bytes] | None = field(default=None, compare=False, repr=False)

    def read(self) -> bytes:
        if self.path is not None and self.path.is_dir():
            from quire.workers.parse.html_input import bundle_folder

            return bundle_folder(self.path)
        if self.path is not None:
            return self.path.read_bytes()
        assert self._read is not None
        return self._read()


SKIPPED_SHOWN = 10  # skipped files named one per line; the rest counted by type


def skipped_lines(skipped: Sequence[str]) -> list[str]:
    """What `quire batch` says of the files a folder held beside its documents: each of the
    first few by name, the rest counted by type (a shelf of HTML manuals printed 71 lines,
    one per stylesheet and chapter file)."""
    lines = [
        f"skipping {origin}: not a .pdf, .docx, .epub or .htmlz"
        for origin in skipped[:SKIPPED_SHOWN]
    ]
    rest = skipped[SKIPPED_SHOWN:]
    if rest:
        kinds = Counter(PurePosixPath(o).suffix.lower() or "no extension" for o in rest)
        counted = ", ".join(f"{kind} {n}" for kind, n in kinds.most_common())
        lines.append(f"skipping {len(rest)} more files that are not documents ({counted})")
    return lines


def is_document_name(name: str) -> bool:
    return name.lower().endswith(DOCUMENT_SUFFIXES + COMPRESSED_SUFFIXES)


def is_html_book(folder: Path) -> bool:
    """A folder of HTML chapters that states their order (see html_input) and holds no
    other documents beside them (a shelf of PDFs with an index.html stays a shelf)."""
    from quire.workers.parse.html_input import states_order

    # (a compressed copy beside the chapters, Debian's FAQ's .pdf.gz, is the same book)
    if any(p.is_file() and p.name.lower().endswith(DOCUMENT_SUFFIXES) for p in folder.iterdir()):
        return False
    return states_order(folder)


def expand_sources(
    args: Sequence[str], *, s3_endpoint_url: str | None, exclude: Sequence[str] = ()
) -> tuple[list[SourceItem], list[str]]:
    """The files the arguments name, in argument order (each folder's files sorted), each
    once; and the origins skipped because they are not documents (folder/prefix only).
    `s3://` arguments are read at `s3_endpoint_url` (QUIRE_S3_ENDPOINT_URL; None: AWS).
    A folder's search passes over hidden folders (".git", the embedded store's ".quire")
    and the `exclude` folders and `s3://` prefixes (the batch's output, the store): `quire
    batch . --out out` run again in the same folder took its own chunk PDFs and stored
    sources as books."""
    folders = [Path(x).resolve() for x in exclude if not x.startswith("s3://")]
    prefixes = [x.rstrip("/") + "/" for x in exclude if x.startswith("s3://")]
    items: list[SourceItem] = []
    skipped: list[str] = []
    for arg in args:
        if arg.startswith("s3://"):
            found, skip = _expand_s3(arg, s3_endpoint_url, prefixes)
        elif _GLOB_CHARS & set(arg) and not Path(arg).exists():
            found, skip = _expand_glob(arg), []
        else:
            found, skip = _expand_path(Path(arg), folders)
        items.extend(found)
        skipped.extend(skip)
    seen: set[str] = set()
    unique = []
    for item in items:
        key = str(item.path.resolve()) if item.path else item.origin
        if key not in seen:
            seen.add(key)
            unique.append(item)
    return unique, skipped


def _file_item(path: Path) -> SourceItem:
    return SourceItem(origin=str(path), name=path.name, size=path.stat().st_size, path=path)


def _book_item(folder: Path) -> SourceItem:
    from quire.workers.parse.html_input import book_name

    return SourceItem(origin=str(folder), name=book_name(folder), size=-1, path=folder)


def _expand_path(path: Path, exclude: Sequence[Path]) -> tuple[list[SourceItem], list[str]]:
    if path.is_file():
        return [_file_item(path)], []
    if path.is_dir() and is_html_book(path):
        return [_book_item(path)], []
    if path.is_dir():
        found = [p for p in path.rglob("*") if _searched(p, path, exclude)]
        books: list[Path] = []  # HTML books inside: one document each, their files not others
        for d in sorted(p for p in found if p.is_dir()):
            if not any(b in d.parents for b in books) and is_html_book(d):
                books.append(d)
        files = sorted(p for p in found if p.is_file() and not any(b in p.parents for b in books))
        docs = [p for p in files if is_document_name(p.name)]
        items = [_file_item(p) for p in docs] + [_book_item(b) for b in books]
        items.sort(key=lambda i: i.origin)
        return items, [str(p) for p in files if p not in docs]
    raise SourceError(f"no such file or folder: {path}")


def _searched(p: Path, folder: Path, exclude: Sequence[Path]) -> bool:
    """Whether a folder's search takes `p`: not hidden, nor under a hidden folder (below
    `folder`) or an excluded one."""
    if any(part.startswith(".") for part in p.relative_to(folder).parts):
        return False
    resolved = p.resolve()
    return not any(resolved == x or x in resolved.parents for x in exclude)


def _expand_glob(pattern: str) -> list[SourceItem]:
    matches = sorted(Path(m) for m in glob.glob(pattern, recursive=True))
    files = [m for m in matches if m.is_file()]
    if not files:
        raise SourceError(f"no files match {pattern!r}")
    return [_file_item(p) for p in files]


def _expand_s3(
    url: str, endpoint_url: str | None, exclude: Sequence[str] = ()
) -> tuple[list[SourceItem], list[str]]:
    """Every document under `s3://bucket/prefix` (at `endpoint_url`), none under the
    `exclude` prefixes (`s3://bucket/prefix/`)."""
    from quire.shared.store.base import validate_prefix
    from quire.shared.store.s3 import S3Store

    parts = urlsplit(url)
    bucket, prefix = parts.netloc, parts.path.lstrip("/")
    if not _BUCKET.fullmatch(bucket):
        raise BadSourceError(f"not an s3://bucket/prefix URL (no valid bucket name): {url!r}")
    try:  # '..' segments, control characters...: never sent to the endpoint
        validate_prefix(prefix)
    except ValueError as exc:
        raise BadSourceError(f"{url!r} names no S3 object or prefix: {exc}") from None
    store = S3Store(bucket, endpoint_url=endpoint_url)
    keys = store.list(prefix) if prefix else store.list()
    keys = [k for k in keys if not f"s3://{bucket}/{k}".startswith(tuple(exclude))]
    docs = [k for k in keys if is_document_name(k)]
    if not docs and not keys:
        raise SourceError(f"no objects under {url}")
    items = [
        SourceItem(
            origin=f"s3://{bucket}/{k}",
            name=k.rsplit("/", 1)[-1],
            size=-1,
            _read=functools.partial(store.get, k),
        )
        for k in docs
    ]
    return items, [f"s3://{bucket}/{k}" for k in keys if k not in docs]
