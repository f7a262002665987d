"""What a PDF page-range task hands to the merge step (stored as JSON between tasks).

A range result holds per-page *blocks*: runs of text lines already grouped within the page,
code runs, tables and images. Everything that needs other pages (running headers/footers,
headings and their levels, lists and paragraphs continuing across a page break, element
ids) is decided by the merge step, so the IR cannot depend on how pages were grouped.
Beside them `Row`, one visual text line while a page is read (the extraction and the
footnote finder both work on it; it is never stored).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from quire.shared.ir import ImageRef, OcrOutcome, OcrPage, TextlessKind

BlockKind = Literal["text", "code", "table", "image", "footnote"]


class PdfBlock(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: BlockKind
    bbox: tuple[float, float, float, float]
    # text: one string per visual line; code: one per line with indentation, "" = blank line
    lines: list[str] = []
    line_x0: list[float] = []  # left edge of each text line (list items, heading splits)
    line_mid: list[float] = []  # middle of each text line (titles centred over each other)
    size: float = 0.0  # dominant font size (text/code)
    bold: bool = False  # most characters bold
    rtl: bool = False  # mostly right-to-left letters
    figure: bool = False  # text of a vector figure (labels, ticks): never a heading or list
    ocr: bool = False  # read by OCR from a scan: its size is its lines' height, a guess
    # figure text: top and bottom of each line (the block's box is the figure's, not its text's)
    line_y: list[tuple[float, float]] = []
    rows: list[list[str]] | None = None  # table
    image: ImageRef | None = None  # image
    # footnote: the note's mark; None for a later paragraph of the note before it (or of
    # one that began on the page before)
    mark: str | None = None


class PdfLink(BaseModel):
    """An internal link on the page: the text under it and where it leads (both in
    MuPDF's page coordinates, origin top left)."""

    model_config = ConfigDict(extra="forbid")

    text: str
    bbox: tuple[float, float, float, float]
    page: int  # target page, 1-based
    y: float  # target point's height on that page
    x: float = 0.0  # ... and its left edge (which column)


class PdfPage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    page: int  # 1-based
    width: float
    height: float
    label: str = ""  # the PDF page label (printed page number), "" when none
    blocks: list[PdfBlock] = []
    skipped: str | None = None  # reason, when the page has no extractable text
    skipped_kind: TextlessKind | None = None  # what the page without text looks like
    skipped_ocr: OcrOutcome | None = None  # OCR off / no text / failed / no engine
    skipped_needs: str | None = None  # no OCR engine: what would read the page
    ocr: OcrPage | None = None  # the page's text was read by OCR
    parser: str = "pymupdf"
    parser_reason: str | None = None  # why a fallback parser was used
    # quality flags, turned into notes by the merge step
    garbled: bool = False  # Latin-1 mojibake (fonts without a Unicode map)
    presentation_forms: bool = False  # Arabic presentation forms in visual order
    unmapped: bool = False  # many U+FFFD (glyphs without Unicode)
    codes: bool = False  # a text layer of glyph codes: control characters, no words
    decorative_images: int = 0  # tiny images left out
    inline_images: int = 0  # inline images (no xref) left out
    oversized_images: int = 0  # images over limits.MAX_IMAGE_PIXELS left out, undecoded
    links: list[PdfLink] = []  # internal links (to a place in this document)
    line_numbers: list[str] = []  # a margin's line numbering, taken out of the text
    code: list[str] = []  # inline code: the runs of its prose lines set in a monospace font


class PdfRangeResult(BaseModel):
    """The output of `parse_pdf_range`; JSON-serialisable (image bytes as base64)."""

    model_config = ConfigDict(extra="forbid", ser_json_bytes="base64", val_json_bytes="base64")

    doc_id: str
    first: int
    last: int
    pages: list[PdfPage]
    images: dict[str, bytes] = {}  # ImageRef.file -> bytes
    ocr_cache_hits: int = 0  # OCR'd pages whose text came from the cache (not in the IR)

    def to_json(self) -> bytes:
        # defaults left out: about a third smaller, and faster to load in the merge step
        return self.model_dump_json(exclude_defaults=True).encode("utf-8")

    @classmethod
    def from_json(cls, data: bytes | str) -> PdfRangeResult:
        return cls.model_validate_json(data)


def round_box(b: Any) -> tuple[float, float, float, float]:
    """A box with its coordinates rounded to 2 decimals, as blocks keep them."""
    return (round(b[0], 2), round(b[1], 2), round(b[2], 2), round(b[3], 2))


@dataclass
class Row:
    """One visual text line (MuPDF lines on the same baseline joined)."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    bold: bool
    mono: bool
    rtl: bool
    horizontal: bool
    space_around: tuple[bool, bool] = (False, False)  # the raw text began / ended with one
    # the size of its Chinese and Japanese characters (0: none): they are often set larger
    # or smaller than the Latin text among them (jlreq: 10.95 pt beside 10 pt), so the size
    # of a mixed line's majority changes from line to line inside one paragraph
    cjk_size: float = 0.0
    gap: float = 0.0  # the widest gap between the pieces joined into it (a table's columns)
    base: float = 0.0  # its baseline (0: unknown, the bottom stands in)
    code: tuple[str, ...] = ()  # the runs of a prose line set in a monospace font

    @property
    def baseline(self) -> float:
        """Where its letters stand: line pitches are measured between baselines, as a
        line's bottom moves with the deepest glyph a font boxes (mixed Japanese and Latin
        text's bottoms vary by 3 pt from line to line at a 12.8-pt pitch)."""
        return self.base or self.y1

    @property
    def h(self) -> float:
        return max(1.0, self.y1 - self.y0)

    @property
    def left(self) -> float:
        """The edge lines align on: the left one, or the right one for RTL text."""
        return -self.x1 if self.rtl else self.x0
