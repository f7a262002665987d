"""Chunk file names: `NN-semantic-slug`, safe on every file system.

The number prefix makes names unique within a document (and keeps them sorted); the slug is
the chunk title folded to ASCII. Titles whose transliteration says nothing to a reader
(Persian, Arabic, Hebrew, CJK, ...) fall back to `section-N`.
"""

from __future__ import annotations

import re
import unicodedata

from unidecode import unidecode

MAX_SLUG = 60

# Scripts whose Unidecode transliteration a reader can still recognise.
_READABLE_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC")

# Windows device names, reserved with or without an extension.
RESERVED = frozenset(
    {"con", "prn", "aux", "nul", "clock$"}
    | {f"com{i}" for i in range(10)}
    | {f"lpt{i}" for i in range(10)}
)

_NON_SLUG = re.compile(r"[^a-z0-9]+")


def number_width(total: int) -> int:
    """Digits of the number prefix: at least 2, more when there are more than 99 chunks."""
    return max(2, len(str(max(total, 1))))


def _readable(title: str) -> bool:
    letters = [c for c in title if c.isalpha()]
    if not letters:
        return False
    readable = sum(1 for c in letters if unicodedata.name(c, "").startswith(_READABLE_SCRIPTS))
    return readable * 2 >= len(letters)


def slugify(title: str, max_len: int = MAX_SLUG) -> str:
    """ASCII slug of `title` ([a-z0-9-], at most `max_len`), or "" if nothing useful is left."""
    if not _readable(title):
        return ""
    folded = unidecode(unicodedata.normalize("NFKC", title)).lower()
    slug = _NON_SLUG.sub("-", folded).strip("-")
    if len(slug) > max_len:
        cut = slug[: max_len + 1]
        # cut at a word boundary when one is reasonably close to the limit
        slug = cut.rsplit("-", 1)[0] if "-" in cut[max_len // 2 :] else slug[:max_len]
        slug = slug.strip("-")
    if not re.search(r"[a-z]", slug) or slug in RESERVED:
        return ""
    return slug


def chunk_slug(number: int, title: str) -> str:
    return slugify(title) or f"section-{number}"


def chunk_stem(number: int, total: int, title: str) -> str:
    """`NN-slug` for chunk `number` of `total`; unique within a document by its number."""
    if not 1 <= number <= max(total, 1):
        raise ValueError(f"chunk number {number} outside 1..{total}")
    return f"{number:0{number_width(total)}d}-{chunk_slug(number, title)}"


def chunk_stems(titles: list[str]) -> list[str]:
    """Stems for all chunks of a document, in order (titles[0] is chunk 1)."""
    return [chunk_stem(n, len(titles), t) for n, t in enumerate(titles, 1)]


_SAFE_IMAGE = re.compile(r"images/[A-Za-z0-9][A-Za-z0-9._-]{0,200}")


def safe_image_path(path: str) -> str:
    """Image files live flat under `images/`; refuse anything that could escape the folder."""
    if not _SAFE_IMAGE.fullmatch(path) or ".." in path:
        raise ValueError(f"unsafe image path {path!r}")
    stem = path.split("/", 1)[1].split(".", 1)[0].lower()
    if stem in RESERVED:
        raise ValueError(f"reserved image file name {path!r}")
    return path
