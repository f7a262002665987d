"""Which PDF pages are OCR'd, and an OCR'd page as a `PdfPage`.

The decision, per page, after native extraction (`ocr_reason`):
- off: nothing is OCR'd; a page without text that is not blank is recorded "OCR off";
- auto: a page without a text layer that is not blank (a scan, a figure, text drawn as
  outlines), a page-filling image with little text (a scan with a stamped page number), and
  a page whose text layer is glyph codes (control characters: its OCR text replaces it);
- force: every page that is not blank (e.g. a garbled text layer).
Blank and unreadable pages are never OCR'd. An OCR'd page's text blocks replace the native
ones (smaller images on it stay), except on a page-filling image with a text layer: that layer
is exact and stays whole, and OCR adds only what lies where it has no text
(`_add_to_text_layer`). When OCR finds no text, the page keeps its native blocks,
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
from quire.workers.parse.pdf_figures import Box
from quire.workers.parse.pdf_open import pymupdf_module
from quire.workers.parse.pdf_parser_notes import LOW_OCR_CONFIDENCE
from quire.workers.parse.pdf_types import PdfBlock, PdfPage

if TYPE_CHECKING:  # the engines are imported when a page needs OCR, not by every parse
    from quire.workers.parse.ocr import OcrLine, OcrText
    from quire.workers.parse.ocr_engines import Engine

LITTLE_TEXT_CHARS = 200  # fewer text characters than this on a page-filling image: OCR it
FILLING = 0.5  # share of the page an image must cover to be "page-filling"
COVERED = 0.25  # an OCR line this much under a text-layer block repeats it: dropped
MARGIN = 0.08  # top and bottom share of a page where running headers and stamps stand
BODY_LETTERS = 20  # a text layer with this many letters between the margins is the page's
SCAN_COVER = 0.9  # a scan fills the page; a picture that covers less is no scan
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
    if result.codes:
        return "text layer of glyph codes"
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
                ocr=True,
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
    if result.skipped is None and settings.mode == "auto" and not result.codes:
        # a text layer, however little, that says what the page prints
        return _add_to_text_layer(page, result, engine, reason, text, dpi), hit
    kept = [b for b in result.blocks if b.kind == "image" and not _fills(page, b)]
    blocks = sorted([*text_blocks(text, dpi), *kept], key=lambda b: (b.bbox[1], b.bbox[0]))
    page_result = result.model_copy(
        update={
            "blocks": blocks,
            "skipped": None,
            "skipped_kind": None,
            "skipped_ocr": None,
            "ocr": _record(result, engine, text, dpi, reason),
            "parser": engine.parser,
            "parser_reason": f"OCR: {reason}",
            # the text layer's quality flags do not apply to OCR'd text
            "garbled": False,
            "presentation_forms": False,
            "unmapped": False,
            "codes": False,
        }
    )
    return page_result, hit


def _record(result: PdfPage, engine: Engine, text: OcrText, dpi: int, reason: str) -> OcrPage:
    """What OCR put on the page: its words and their mean confidence."""
    return OcrPage(
        page=result.page,
        engine=engine.name,
        languages=engine.lang,
        confidence=text.mean_confidence,
        words=len(text.confidences),
        dpi=dpi,
        reason=reason,
    )


def _fills(page: Any, block: PdfBlock) -> bool:
    """Whether `block` covers FILLING of the page or more."""
    area = page.rect.width * page.rect.height or 1.0
    return (block.bbox[2] - block.bbox[0]) * (block.bbox[3] - block.bbox[1]) >= FILLING * area


def _overlap(a: Box, b: Box) -> float:
    """The share of box `a` that box `b` covers."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    area = (a[2] - a[0]) * (a[3] - a[1])
    return w * h / area if w > 0 and h > 0 and area > 0 else 0.0


def _body_letters(page: Any, blocks: list[PdfBlock]) -> int:
    """Letters of the text layer between the page's margins (a running header, a page
    number or a download stamp in the top or bottom MARGIN does not count)."""
    top, bottom = page.rect.height * MARGIN, page.rect.height * (1 - MARGIN)
    return sum(
        c.isalpha()
        for b in blocks
        if b.kind in ("text", "code") and top < (b.bbox[1] + b.bbox[3]) / 2 < bottom
        for ln in b.lines
        for c in ln
    )


def _add_to_text_layer(
    page: Any, result: PdfPage, engine: Engine, reason: str, text: OcrText, dpi: int
) -> PdfPage:
    """A page-filling image on a page with a text layer: the text layer is exact, so it is
    kept whole, and OCR adds only the lines that lie where it has no text. Where the image
    leaves the page's edges free or the text layer has words of its own between the
    margins (a slide over a background picture, a screenshot and its caption, a title page
    over cover art), the image is a picture and what OCR reads in it is its text: one
    figure-text paragraph, never a heading or an item, as a drawing's labels are, of the
    lines read with some confidence (cover art read as letters is not). Otherwise (a scan
    with a stamped page number or running header) what OCR reads is the page's text."""
    native = [b.bbox for b in result.blocks if b.kind in ("text", "code", "table", "footnote")]
    picture = (
        _image_cover(page)[0] < SCAN_COVER or _body_letters(page, result.blocks) >= BODY_LETTERS
    )

    def new(ln: OcrLine) -> bool:
        sure = not picture or statistics.fmean(ln.confidences or [0.0]) >= LOW_OCR_CONFIDENCE
        return sure and not any(_overlap(_layer_box(page, ln, dpi), n) >= COVERED for n in native)

    paragraphs = [kept for para in text.paragraphs if (kept := [ln for ln in para if new(ln)])]
    if not paragraphs:
        return result
    text = text.model_copy(update={"paragraphs": paragraphs})  # what OCR adds
    if picture:
        added = [_figure_block(page, [ln for para in paragraphs for ln in para], dpi)]
        blocks = list(result.blocks)
    else:  # the scan is read: its image is not kept beside its text
        added = text_blocks(text, dpi)
        blocks = [b for b in result.blocks if not (b.kind == "image" and _fills(page, b))]
    for block in added:  # each where it stands: before the first block that starts below it
        at = next((i for i, b in enumerate(blocks) if b.bbox[1] > block.bbox[1]), len(blocks))
        blocks.insert(at, block)
    return result.model_copy(
        update={
            "blocks": blocks,
            "ocr": _record(result, engine, text, dpi, reason),
            "parser": engine.parser,
            "parser_reason": f"OCR: {reason}, added to the text layer",
        }
    )


def _layer_box(page: Any, line: OcrLine, dpi: int) -> Box:
    """An OCR'd line's box in the text layer's coordinates: points, and on a rotated page
    unrotated (the pixels are of the page as shown)."""
    scale = 72 / dpi
    x0, y0, x1, y1 = (v * scale for v in line.bbox)
    r = pymupdf_module().Rect(x0, y0, x1, y1) * page.derotation_matrix
    return (round(r.x0, 2), round(r.y0, 2), round(r.x1, 2), round(r.y1, 2))


def _top_left(placed: tuple[Box, str]) -> tuple[float, float]:
    return placed[0][1], placed[0][0]


def _figure_block(page: Any, lines: list[OcrLine], dpi: int) -> PdfBlock:
    """OCR'd lines as the text of one picture, top to bottom."""
    placed = sorted(((_layer_box(page, ln, dpi), ln.text) for ln in lines), key=_top_left)
    boxes = [b for b, _ in placed]
    return PdfBlock(
        kind="text",
        bbox=(
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        ),
        lines=[t for _, t in placed],
        line_x0=[b[0] for b in boxes],
        line_y=[(b[1], b[3]) for b in boxes],
        size=round(statistics.median(ln.row_height for ln in lines) * 72 / dpi * 2) / 2,
        figure=True,
    )
