"""Chunk file names: `NN-semantic-slug`, safe on every file system and as an S3 key.

The number prefix makes names unique within a document (and keeps them sorted); the slug is
the chunk title in its own script: Latin, Greek and Cyrillic letters folded to ASCII
(Unidecode: "Основы" -> "osnovy"), every other script kept as written ("第一章-简介",
"مقدمه-نصب"), lower case, NFC, words joined by "-". File systems and S3 keys take any
UTF-8; only separators, punctuation, controls and invisible format characters (a ZWNJ
becomes "-") are left out. A slug holds at most MAX_SLUG columns (a CJK character takes
two) and MAX_SLUG_BYTES bytes. A title with no letter left falls back to `section-N`.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from unidecode import unidecode

from quire.shared.layout import Layout

MAX_SLUG = 60  # columns
MAX_SLUG_BYTES = 180  # UTF-8; file names stay under 255 bytes with prefix and extension

# Scripts folded to ASCII: their transliteration reads naturally.
_FOLDED_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC")

# Windows device names, reserved with or without an extension.
RESERVED = frozenset(
    {"con", "prn", "aux", "nul", "clock$"}
    | {f"com{i}" for i in range(10)}
    | {f"lpt{i}" for i in range(10)}
)

_NON_SLUG = re.compile(r"[^a-z0-9]+")
_SEPARATORS = re.compile(r"-+")


def number_width(total: int) -> int:
    """Digits of the number prefix: at least 2, more when there are more than 99 chunks."""
    return max(2, len(str(max(total, 1))))


def _slug_char(c: str) -> str:
    """`c` as slug text: folded to ASCII for Latin/Greek/Cyrillic, kept for letters, digits
    and marks of other scripts, "-" for anything else."""
    category = unicodedata.category(c)
    if c.isascii():
        return c.lower() if c.isalnum() else "-"
    if category[0] not in "LNM":
        return "-"
    if unicodedata.name(c, "").startswith(_FOLDED_SCRIPTS):
        return _NON_SLUG.sub("-", unidecode(c).lower())
    return c.lower()


def _width(c: str) -> int:
    return 2 if unicodedata.east_asian_width(c) in "WF" else 1


def _cut(slug: str, max_cols: int) -> str:
    """At most `max_cols` columns and MAX_SLUG_BYTES bytes, cut at a "-" when one is in the
    second half, and never inside a letter and its marks."""
    end = cols = size = 0
    for c in slug:
        cols += _width(c)
        size += len(c.encode())
        if cols > max_cols or size > MAX_SLUG_BYTES:
            break
        end += 1
    if end == len(slug):
        return slug
    while 0 < end < len(slug) and unicodedata.category(slug[end])[0] == "M":
        end -= 1  # the cut falls between a letter and its marks: drop the letter too
    cut = slug[:end]
    if "-" in cut[len(cut) // 2 :] and slug[end] != "-":
        cut = cut.rsplit("-", 1)[0]
    return cut.strip("-")


@functools.lru_cache(maxsize=4096)  # every chunk's links name every chunk's file
def slugify(title: str, max_len: int = MAX_SLUG) -> str:
    """The slug of `title` (letters and digits of any script and "-", at most `max_len`
    columns), or "" if nothing useful is left."""
    slug = ""
    for c in unicodedata.normalize("NFKC", title):
        part = _slug_char(c)
        if unicodedata.category(part[:1] or "-")[0] == "M" and slug[-1:] in ("", "-"):
            continue  # a mark with no letter to sit on
        slug += part
    slug = unicodedata.normalize("NFC", _SEPARATORS.sub("-", slug).strip("-"))
    slug = _cut(slug, max_len)
    if not any(c.isalpha() for c in slug) or slug in RESERVED:
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


_SAFE_IMAGE = re.compile(re.escape(Layout.IMAGES) + r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}")


def safe_image_path(path: str) -> str:
    """Image files live flat under `images/`; refuse anything that could escape the folder."""
    if not _SAFE_IMAGE.fullmatch(path) or ".." in path:
        raise ValueError(f"unsafe image path {path!r}")
    stem = path.split("/", 1)[1].split(".", 1)[0].lower()
    if stem in RESERVED:
        raise ValueError(f"reserved image file name {path!r}")
    return path
