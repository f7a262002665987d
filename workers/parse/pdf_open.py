"""Opening PDFs with PyMuPDF: a quiet import, input validation and document-level facts.

`import pymupdf` (2.0) also imports `pymupdf.layout`, which loads an ONNX layout model
(~0.5 s, and ONNX sessions that can hang a forked worker when garbage-collected there) and
makes `find_tables` consult it. Quire never uses that model, so when PyMuPDF is not yet
imported we block the sub-package before importing it. MuPDF's own warnings are kept out of
stdout/stderr; the parser records what matters (e.g. repairs) as notes instead.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel

from quire.shared.errors import (
    BadPasswordError,
    CorruptDocumentError,
    EmptyDocumentError,
    EncryptedDocumentError,
)
from quire.shared.ir import OutlineEntry
from quire.shared.text import sha256_bytes
from quire.workers.parse.detect import detect_format

_pymupdf: ModuleType | None = None


def pymupdf_module() -> ModuleType:
    """PyMuPDF, imported once, without the ONNX layout analyzer and without console chatter."""
    global _pymupdf
    if _pymupdf is None:
        if "pymupdf" not in sys.modules:
            # A None entry makes `import pymupdf.layout` raise ImportError, which PyMuPDF
            # (and pymupdf4llm) treat as "layout analyzer not installed".
            sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]
            # PyMuPDF 2.0 also imports pymupdf4llm (and numpy, tabulate: ~0.3 s) for its
            # `to_markdown` aliases, which Quire never calls; the fallback parser imports
            # it when it needs it. Blocked only while PyMuPDF imports.
            blocked = "pymupdf4llm" not in sys.modules
            if blocked:
                sys.modules["pymupdf4llm"] = None  # type: ignore[assignment]
            try:
                import pymupdf
            finally:
                if blocked:
                    del sys.modules["pymupdf4llm"]
            # what importing pymupdf4llm does to PyMuPDF's process-wide settings, so
            # that every page is read as in a process that imported it
            pymupdf.TOOLS.unset_quad_corrections(True)
        import pymupdf

        pymupdf.no_recommend_layout()  # else find_tables prints a hint to stdout
        pymupdf.TOOLS.mupdf_display_errors(False)
        pymupdf.TOOLS.mupdf_display_warnings(False)
        _pymupdf = pymupdf
    return _pymupdf


def pin_text_settings() -> None:
    """Put PyMuPDF's process-wide text settings back to its defaults before a parse.

    Other code in the process may change them (pymupdf4llm turns quad corrections off on
    import and changes the table text flags per call); a page parsed after that would get
    other boxes, and so other elements and cuts, than in a fresh process."""
    p = pymupdf_module()
    p.TOOLS.unset_quad_corrections(True)  # as a freshly imported PyMuPDF has it
    p.table.FLAGS = (
        p.TEXTFLAGS_TEXT | p.TEXT_COLLECT_STYLES | p.TEXT_ACCURATE_BBOXES | p.TEXT_MEDIABOX_CLIP
    )


class PdfMeta(BaseModel):
    """Document-level facts every range task and the merge step agree on."""

    doc_id: str  # sha256 of the uploaded bytes
    source_name: str
    # sha256 of the file read, when it is not the upload (a decrypted copy); else None
    source_sha256: str | None = None
    page_count: int
    repaired: bool = False
    outline: list[OutlineEntry] = []
    # Where each outline entry points on its page (MuPDF coordinates, y grows downwards);
    # None when the entry has no position. Parallel to `outline`.
    outline_y: list[float | None] = []
    # optional-content layers the default view hides that were shown to read the text
    # (`show_hidden_layers`)
    shown_layers: list[str] = []


NEEDS_PASSWORD = (
    "password-protected PDF: a user password is needed to open it (give it with "
    "--password-file FILE, a --password-map for batches, or QUIRE_PDF_PASSWORD)"
)


def unlock_pdf(path: Path, password: str | None) -> bytes | None:
    """A decrypted copy of a PDF that needs a user password, or None when it opens without
    one (including owner-password-only PDFs, which MuPDF reads as they are).

    Raises EncryptedDocumentError when a password is needed and none is given, and
    BadPasswordError when `password` does not open it. The copy's bytes depend only on the
    input (no new file id), so making it twice stores the same object.
    """
    path = Path(path)
    pymupdf = pymupdf_module()
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except Exception:
        return None  # not openable at all: open_pdf says why
    try:
        if not doc.needs_pass:
            return None
        if not password:
            raise EncryptedDocumentError(NEEDS_PASSWORD, source=path.name)
        if not doc.authenticate(password):
            raise BadPasswordError("the password given does not open this PDF", source=path.name)
        return bytes(doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_NONE, no_new_id=True))
    finally:
        doc.close()


def open_pdf(path: Path) -> Any:
    """Open and validate a PDF; returns a `pymupdf.Document` with at least one page.

    Raises CorruptDocumentError (not a PDF, unreadable, repaired down to zero pages),
    EncryptedDocumentError (a user password is needed) or EmptyDocumentError.
    """
    path = Path(path)
    if detect_format(path) != "pdf":
        raise CorruptDocumentError("not a PDF file (wrong extension)", source=path.name)
    pymupdf = pymupdf_module()
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except Exception as exc:  # FileDataError, RuntimeError...: MuPDF gave up entirely
        raise CorruptDocumentError(
            f"cannot be opened as a PDF ({_one_line(exc, path)})", source=path.name
        ) from None
    if doc.needs_pass:
        doc.close()
        raise EncryptedDocumentError(NEEDS_PASSWORD, source=path.name)
    try:
        page_count = doc.page_count
    except Exception as exc:  # a page tree MuPDF refuses ("Invalid number of pages")
        doc.close()
        raise CorruptDocumentError(
            f"damaged page tree ({_one_line(exc, path)})", source=path.name
        ) from None
    if page_count == 0:
        repaired = doc.is_repaired
        doc.close()
        if repaired:
            raise CorruptDocumentError(
                "damaged or truncated PDF: MuPDF's repair recovered no pages", source=path.name
            )
        raise EmptyDocumentError("the PDF has zero pages", source=path.name)
    show_hidden_layers(doc)
    return doc


HIDDEN_TEXT_SHARE = 0.25  # the visible share of the text under which hidden layers show


def show_hidden_layers(doc: Any) -> None:
    """Turn on the optional-content layers the PDF's default view hides when they hold
    most of its text (the visible text is under HIDDEN_TEXT_SHARE of all of it). A ConTeXt
    slide deck puts each slide's text in "step:N" layers, all off until clicked: shown as
    it opens, every page is its running title, and the deck was refused as empty. Layers
    that hide less (a solution key, a print-only watermark, the other one of two
    languages) stay hidden. A PDF chunk copies its pages without the layers' default view
    and so shows them all; render-compare opens the source through this function too."""
    hidden = [c for c in doc.layer_ui_configs() if not c["on"] and not c["locked"]]
    if not hidden:
        return
    visible = sum(len(page.get_text()) for page in doc)
    for c in hidden:
        doc.set_layer_ui_config(c["number"], 0)  # 0: on
    if visible >= HIDDEN_TEXT_SHARE * sum(len(page.get_text()) for page in doc):
        for c in hidden:
            doc.set_layer_ui_config(c["number"], 2)  # 2: off


# The PDF the last range task in this process opened, kept open for the next one: opening
# r-fullrefman costs ~0.1 s (MuPDF loads the whole outline), 15% of a 100-page task, and a
# worker usually gets several ranges of the same document in a row. One entry, so memory
# stays that of one open document; keyed by the file's identity so a replaced file reopens.
_kept: tuple[tuple[str, int, int, int, int], Any] | None = None


def _forget_kept() -> None:
    # a forked child must not share the parent's MuPDF file handle (and its file offset)
    global _kept
    _kept = None


os.register_at_fork(after_in_child=_forget_kept)


def open_pdf_kept(path: Path) -> Any:
    """Like `open_pdf`, but reuses this process's last open PDF when it is the same file.

    The caller must not close the returned document.
    """
    global _kept
    st = Path(path).stat()
    key = (str(Path(path).resolve()), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if _kept is not None and _kept[0] == key:
        return _kept[1]
    if _kept is not None:
        _kept[1].close()
        _kept = None
    doc = open_pdf(path)
    _kept = (key, doc)
    return doc


def pdf_page_count(path: Path) -> int:
    """Validate the PDF (see `open_pdf`) and return its number of pages."""
    doc = open_pdf(path)
    try:
        return int(doc.page_count)
    finally:
        doc.close()


def read_meta(doc: Any, path: Path, doc_id: str | None = None) -> PdfMeta:
    """doc_id (sha256 of the bytes, unless the caller knows the upload's), page count,
    repair flag and the outline of an open PDF."""
    path = Path(path)
    file_sha = sha256_bytes(path.read_bytes())
    toc = doc.get_toc(simple=True)
    outline = [
        OutlineEntry(
            level=int(level),
            title=" ".join(str(title).split()),
            page=page if 1 <= page <= doc.page_count else 0,
        )
        for level, title, page, *_ in toc
    ]
    return PdfMeta(
        doc_id=doc_id or file_sha,
        source_name=path.name,
        source_sha256=file_sha if doc_id and doc_id != file_sha else None,
        page_count=int(doc.page_count),
        repaired=bool(doc.is_repaired),
        outline=outline,
        outline_y=_outline_y(doc, outline) if toc else [],
        shown_layers=_shown_layers(doc),
    )


def _shown_layers(doc: Any) -> list[str]:
    """The names of the layers the PDF's default view hides that `show_hidden_layers`
    turned on."""
    ocgs = doc.get_ocgs()
    off = doc.get_layer(-1).get("off") if ocgs else None
    if not off:
        return []
    hidden = {str(ocgs[x]["name"]) for x in off if x in ocgs}
    return [str(c["text"]) for c in doc.layer_ui_configs() if c["on"] and c["text"] in hidden]


def _outline_y(doc: Any, outline: list[OutlineEntry]) -> list[float | None]:
    """The target height of each outline entry on its page (None when unknown).

    get_toc(simple=False) resolves named destinations one by one (~0.6 s on r-fullrefman);
    walking the outline tree is cheap and MuPDF has already resolved each node's target
    point (x, y) in page coordinates. The walk visits nodes in get_toc order.
    """
    ys: list[float | None] = []
    stack: list[Any] = [doc.outline]
    while stack:
        node = stack.pop()
        if node.next is not None:
            stack.append(node.next)
        if node.down is not None:
            stack.append(node.down)
        y = node.y
        ys.append(float(y) if isinstance(y, int | float) and y == y else None)
    if len(ys) != len(outline):
        return [None] * len(outline)
    return [y if e.page else None for y, e in zip(ys, outline, strict=True)]


def pdf_meta(path: Path, doc_id: str | None = None) -> PdfMeta:
    """Open, validate and describe a PDF (for callers that merge range results)."""
    return read_meta(open_pdf_kept(path), path, doc_id)


def _one_line(exc: BaseException, path: Path) -> str:
    """MuPDF's message, on one line, naming the file as the user knows it: the path it
    was opened from may be a temporary copy (an upload) that must not be shown."""
    text = " ".join(str(exc).replace(str(path), path.name).split())
    return text[:200] or type(exc).__name__


def text_flags() -> int:
    p = pymupdf_module()
    # No image payloads (we extract images ourselves). Ligatures are kept as MuPDF sees
    # them and expanded by `glyphs.expand_glyphs`: MuPDF's own expansion puts the letters of an
    # Arabic lam-alef in visual order and spaces words differently from get_text().
    return int(p.TEXTFLAGS_DICT & ~p.TEXT_PRESERVE_IMAGES)
