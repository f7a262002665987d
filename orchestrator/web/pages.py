"""Source pages as PNG images, rendered on demand with PyMuPDF and kept in the store.

A document id is the sha256 of its source bytes, so an image key made of the document, the
page and the resolution names one image forever (content-addressed): it is rendered once per
store — by whichever server asks first — and served from the store after that, with an
ETag and a long cache lifetime for the browser.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from quire.shared import keys
from quire.shared.job import Job
from quire.shared.layout import Layout
from quire.shared.store import NotFound
from quire.workers.runtime import Runtime

# PyMuPDF must not be used by two threads at once, and the server's request threads use it
# (page images here; page counts when a document is admitted): all of them hold this lock.
# The pipeline's own parts never run in the server process (see `driver.py`).
PYMUPDF = threading.Lock()

DEFAULT_DPI = 110  # a US Letter page is 935 x 1210 pixels: sharp beside the text, ~150 KB
MIN_DPI, MAX_DPI = 36, 200


def image_key(doc_id: str, page: int, dpi: int) -> str:
    return keys.work(doc_id, Layout.page_image(dpi, page))


def etag(doc_id: str, page: int, dpi: int) -> str:
    return f'"{doc_id[:32]}-{page}-{dpi}"'


def render_png(pdf: Any, page: int, dpi: int) -> bytes:
    """One page of an open `pymupdf.Document` (1-based) as an RGB PNG."""
    return bytes(pdf[page - 1].get_pixmap(dpi=dpi, alpha=False, annots=True).tobytes("png"))


class PageImages:
    """Renders and caches page images; keeps the last source PDF it opened, because a
    person reads a session's pages one after another."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self._doc_id: str | None = None
        self._pdf: Any = None
        self._stack = contextlib.ExitStack()  # closes the open PDF (and its S3 download)

    def png(self, s: Job, page: int, dpi: int = DEFAULT_DPI) -> bytes:
        key = image_key(s.doc_id, page, dpi)
        try:
            return self.rt.store.get(key)
        except NotFound:
            pass
        with PYMUPDF:
            data = render_png(self._source(s), page, dpi)
        self.rt.store.put(key, data)
        return data

    def _source(self, s: Job) -> Any:
        """The open source PDF (the caller holds PYMUPDF)."""
        if self._doc_id != s.doc_id:
            from quire.workers.parse.pdf_open import pymupdf_module

            self._stack.close()
            self._doc_id = None
            path = self._stack.enter_context(self.rt.file(s.source_key))  # S3: cached locally
            self._pdf = pymupdf_module().open(path)
            self._stack.callback(self._pdf.close)
            self._doc_id = s.doc_id
        return self._pdf

    def close(self) -> None:
        with PYMUPDF:
            self._stack.close()
            self._doc_id, self._pdf = None, None
