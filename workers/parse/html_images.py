"""Images of an HTML book: read from the book (EPUB members, the files beside an HTML
chapter) or a data: URI, stored by their sha256 as DOCX images are."""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Callable
from urllib.parse import unquote, urlsplit

from PIL import Image

from quire.shared.ir import ImageRef, ParserNote
from quire.shared.text import sha256_bytes
from quire.workers.parse.html_refs import member
from quire.workers.parse.limits import MAX_IMAGE_PIXELS

_SAFE_EXT = re.compile(r"[a-z0-9]{1,8}")
_DATA_URI = re.compile(r"data:image/([a-z0-9.+-]+)?(;base64)?,(.*)", re.I | re.S)
_MIME_EXT = {"jpeg": "jpg", "svg+xml": "svg"}


# A picture shown at 96 pixels an inch, scaled down to fit a text area 6.5 inches wide
# and 9 high (US Letter with 1-inch margins): the share of a page an estimate counts it as
_TEXT_WIDTH_PX, _TEXT_HEIGHT_PX = 6.5 * 96, 9 * 96


def page_share(ref: ImageRef) -> float | None:
    """The share of a page's text height the picture fills, from its pixel size (None
    when the size is unknown: SVG, a damaged image)."""
    if not (ref.width and ref.height):
        return None
    shown = ref.height * min(1.0, _TEXT_WIDTH_PX / ref.width)
    return round(min(1.0, shown / _TEXT_HEIGHT_PX), 3)


class ImageLoader:
    """`read(member)` gives a member's bytes or None when the book lacks it."""

    def __init__(self, read: Callable[[str], bytes | None]) -> None:
        self.read = read
        self.images: dict[str, bytes] = {}
        self.notes: list[ParserNote] = []
        self._cache: dict[str, ImageRef | None] = {}

    def ref(self, base: str, src: str) -> ImageRef | None:
        """The image `src` names (seen from member `base`), stored; None (with a note)
        when it is outside the book, missing or too large."""
        key = src if src.startswith("data:") else (member(base, src) or src)
        if key in self._cache:
            return self._cache[key]
        ref = self._load(base, src)
        self._cache[key] = ref
        return ref

    def _load(self, base: str, src: str) -> ImageRef | None:
        shown = src if len(src) < 80 else src[:77] + "..."
        data_uri = _DATA_URI.match(src.strip())
        if data_uri:
            try:
                payload = data_uri.group(3)
                blob = (
                    base64.b64decode(payload)
                    if data_uri.group(2)
                    else unquote(payload).encode("utf-8")
                )
            except ValueError:
                return self._skip(f"image {shown} is a data: URI that does not decode")
            ext = (data_uri.group(1) or "bin").lower()
            ext = _MIME_EXT.get(ext, ext)
        else:
            name = member(base, src)
            if name is None:
                return self._skip(f"image {shown} is outside the book (not fetched)")
            found = self.read(name)
            if found is None:
                return self._skip(f"image {name} is missing from the book")
            blob = found
            ext = urlsplit(name).path.rsplit(".", 1)[-1].lower() if "." in name else "bin"
        width = height = None
        try:
            with Image.open(io.BytesIO(blob)) as im:  # reads the header only
                width, height = im.size
        except Exception:  # SVG and damaged images: size unknown
            pass
        if width and height and width * height > MAX_IMAGE_PIXELS:
            return self._skip(
                f"image {shown} declares {width}x{height} pixels, over the limit of "
                f"{MAX_IMAGE_PIXELS:,}"
            )
        sha = sha256_bytes(blob)
        file = f"images/{sha}.{ext if _SAFE_EXT.fullmatch(ext) else 'bin'}"
        self.images[file] = blob
        return ImageRef(sha256=sha, file=file, width=width, height=height)

    def _skip(self, message: str) -> ImageRef | None:
        self.notes.append(ParserNote(kind="warning", message=f"{message}; left out"))
        return None
