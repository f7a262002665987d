"""Which PDF pages are OCR'd, and an OCR'd page as a `PdfPage`.

The decision, per page, after native extraction (`ocr_reason`):
- off: nothing is OCR'd; a page without text that is not blank is recorded "OCR off";
- auto: a page without a text layer that is not blank (a scan, a figure, text drawn as
  outlines), and a page-filling image with little text (a scan with a stamped page number);
- force: every page that is not blank (e.g. a garbled text layer).
Blank and unreadable pages are never OCR'd. An OCR'd page's text blocks replace the native
ones; smaller images on it stay. When OCR finds no text, the page keeps its native blocks,
or is recorded as a page without text, "OCR found no text".

The engine is chosen per language set (`ocr_engines`). When no engine reads the languages,
`auto` lists the page without text with what would read it ("no_ocr_engine: apt-get install
tesseract-ocr-fas") and the document goes on; `force` fails the document with that line.

Results are cached by page content: the key is the hash of the rendered grey pixels, the
resolution, the languages, the engine, its version and model files, and CACHE_FORMAT, so the
same scan in another document (or a re-run) is not read again, and a changed engine or
language reads it afresh.
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict

from quire.shared.config import OcrMode
from quire.shared.errors import OcrUnavailableError
from quire.shared.ir import OcrPage
from quire.shared.text import sha256_bytes
from quire.workers.parse.pdf_open import pymupdf_module
from quire.workers.parse.pdf_types import PdfBlock, PdfPage

if TYPE_CHECKING:  # the engines are imported when a page needs OCR, not by every parse
    from quire.workers.parse.ocr import OcrText
    from quire.workers.parse.ocr_engines import Engine

LITTLE_TEXT_CHARS = 200  # fewer text characters than this on a page-filling image: OCR it
FILLING = 0.5  # share of the page an image must cover to be "page-filling"
MIN_DPI, MAX_DPI, DEFAULT_DPI = 150, 400, 300
CACHE_FORMAT = 1  # raise when what `recognize` makes of an engine's output changes
_RTL = set(range(0x0590, 0x0900)) | set(range(0xFB1D, 0xFE00)) | set(range(0xFE70, 0xFF00))


class OcrSettings(BaseModel):
    """How a parse OCRs pages, as a run's settings say (`RunSettings.ocr`, `.ocr_lang`:
    their defaults are QUIRE_OCR's and QUIRE_OCR_LANG's, in the settings model only).
    A parse given none OCRs nothing."""

    model_config = ConfigDict(frozen=True)

    mode: OcrMode
    lang: str


class OcrCache(Protocol):
    """Where OCR results are kept between runs and workers (an object store prefix)."""

    def get(self, key: str) -> bytes | None: ...

    def put(self, key: str, data: bytes) -> None: ...


def _image_cover(page: Any) -> tuple[float, int | None]:
    """The largest share of the page one image covers, and that image's resolution (dpi)."""
    area = page.rect.width * page.rect.height or 1.0
    best, dpi = 0.0, None
    for info in page.get_image_info():
        x0, y0, x1, y1 = info["bbox"]
        cover = max(0.0, x1 - x0) * max(0.0, y1 - y0) / area
        if cover > best and x1 > x0:
            best, dpi = cover, round(info.get("width", 0) / ((x1 - x0) / 72))
    return best, dpi


def ocr_reason(page: Any, result: PdfPage, mode: OcrMode) -> str | None:
    """Why page `result` (natively extracted from `page`) must be OCR'd; None: it must not."""
    if mode == "off" or result.skipped_kind in ("blank", "unreadable"):
        return None
    if result.skipped is not None:
        return result.skipped
    if mode == "force":
        return "--ocr force"
    chars = sum(len(ln) for b in result.blocks for ln in b.lines)
    if chars < LITTLE_TEXT_CHARS and _image_cover(page)[0] >= FILLING:
        return f"page-filling image with little text ({chars} characters)"
    return None


def likely_ocr_pages(doc: Any, mode: OcrMode) -> set[int]:
    """Pages (1-based) that will probably be OCR'd, found cheaply (image resources first,
    text only on those pages): for sizing the parse range tasks, not for the decision."""
    if mode == "off":
        return set()
    if mode == "force":
        return set(range(1, doc.page_count + 1))
    return {
        page.number + 1
        for page in doc
        if page.get_images() and len(page.get_text("text").strip()) < LITTLE_TEXT_CHARS
    }


def choose_dpi(page: Any) -> int:
    """The resolution of the page's main image (upsampling a scan does not help Tesseract,
    downsampling loses detail), within MIN_DPI..MAX_DPI; DEFAULT_DPI without images."""
    cover, dpi = _image_cover(page)
    if dpi is None or cover < 0.25:
        return DEFAULT_DPI
    return max(MIN_DPI, min(MAX_DPI, dpi))


def read_page(page: Any, engine: Engine, cache: OcrCache | None) -> tuple[OcrText, int, bool]:
    """OCR a page (from the cache when it was read before): (text, dpi, cache hit)."""
    from quire.workers.parse.ocr import OcrText

    pymupdf = pymupdf_module()
    dpi = choose_dpi(page)
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    samples = pix.samples
    header = (
        f"{CACHE_FORMAT}|{engine.cache_id()}|{engine.lang}|{dpi}|{pix.width}x{pix.height}|"
    ).encode()
    key = f"ocr-cache/{sha256_bytes(header + samples)}.json"
    if cache is not None and (data := cache.get(key)) is not None:
        return OcrText.model_validate_json(data), dpi, True
    text = engine.recognize(samples, pix.width, pix.height, pix.stride, dpi)
    if cache is not None:
        cache.put(key, text.model_dump_json().encode())
    return text, dpi, False


def _is_rtl(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(ord(c) in _RTL for c in letters) * 2 > len(letters)


def text_blocks(text: OcrText, dpi: int) -> list[PdfBlock]:
    """The OCR paragraphs as text blocks in page coordinates (points)."""
    scale = 72 / dpi
    blocks = []
    for para in text.paragraphs:
        rtl = _is_rtl(" ".join(ln.text for ln in para))
        x0, y0 = min(ln.bbox[0] for ln in para), min(ln.bbox[1] for ln in para)
        x1, y1 = max(ln.bbox[2] for ln in para), max(ln.bbox[3] for ln in para)
        size = statistics.median(ln.row_height for ln in para) * scale
        blocks.append(
            PdfBlock(
                kind="text",
                bbox=(
                    round(x0 * scale, 2),
                    round(y0 * scale, 2),
                    round(x1 * scale, 2),
                    round(y1 * scale, 2),
                ),
                lines=[ln.text for ln in para],
                line_x0=[
                    round(-ln.bbox[2] * scale if rtl else ln.bbox[0] * scale, 2) for ln in para
                ],
                size=round(size * 2) / 2,
                rtl=rtl,
            )
        )
    return blocks


def _no_engine(result: PdfPage, settings: OcrSettings, needs: str) -> PdfPage:
    """No engine reads the languages: `auto` lists a page without text with what would read
    it (a page with some text keeps it); `force` fails the document."""
    if settings.mode == "force":
        raise OcrUnavailableError(f"no OCR engine reads {settings.lang}: {needs}")
    if result.skipped is not None:
        result.skipped_ocr = "no_engine"
        result.skipped_needs = needs
        result.skipped += f"; no_ocr_engine: {needs}"
    return result


def apply_ocr(
    doc: Any, result: PdfPage, settings: OcrSettings | None, cache: OcrCache | None = None
) -> tuple[PdfPage, bool]:
    """OCR the page when the settings and the page call for it (see the module doc; None:
    no OCR); returns the page and whether its OCR text came from the cache."""
    page = doc[result.page - 1]  # kept referenced while its pixmap is in use
    reason = None if settings is None else ocr_reason(page, result, settings.mode)
    if reason is None or settings is None:
        if result.skipped is not None and result.skipped_kind in ("scanned", "figure"):
            result.skipped_ocr = "off"
            result.skipped += "; OCR off"
        return result, False
    from quire.workers.parse.ocr_engines import pick_engine

    engine = pick_engine(settings.lang)
    if engine.choice.engine is None:
        return _no_engine(result, settings, engine.choice.needs), False
    try:
        text, dpi, hit = read_page(page, engine, cache)
    except Exception as exc:  # a page that cannot be rendered or read must not sink the rest
        if result.skipped is not None:
            result.skipped_ocr = "failed"
            result.skipped += f"; OCR failed ({type(exc).__name__}: {str(exc)[:100]})"
        return result, False
    if not text.paragraphs:
        if result.skipped is not None:
            result.skipped_ocr = "no_text"
            result.skipped += f"; OCR ({settings.lang}) found no text"
        return result, hit
    area = page.rect.width * page.rect.height or 1.0
    kept = [
        b
        for b in result.blocks
        if b.kind == "image" and (b.bbox[2] - b.bbox[0]) * (b.bbox[3] - b.bbox[1]) < FILLING * area
    ]
    blocks = sorted([*text_blocks(text, dpi), *kept], key=lambda b: (b.bbox[1], b.bbox[0]))
    ocr = OcrPage(
        page=result.page,
        engine=engine.name,
        languages=settings.lang,
        confidence=text.mean_confidence,
        words=len(text.confidences),
        dpi=dpi,
        reason=reason,
    )
    page_result = result.model_copy(
        update={
            "blocks": blocks,
            "skipped": None,
            "skipped_kind": None,
            "skipped_ocr": None,
            "ocr": ocr,
            "parser": engine.parser,
            "parser_reason": f"OCR: {reason}",
            # the text layer's quality flags do not apply to OCR'd text
            "garbled": False,
            "presentation_forms": False,
            "unmapped": False,
        }
    )
    return page_result, hit
