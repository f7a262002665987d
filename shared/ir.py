"""The intermediate representation (IR): one parsed document as an ordered list of elements.

The planner cuts between elements, the writers render them and the verifier checks written
output against them. `ir.json` is `Document` serialised by `dump_ir`; `load_ir(dump_ir(d))`
gives back an equal document and dumping it again gives the same bytes.

A footnote is an element of its own ("footnote", text `[^label]: ...`) placed right after
the element whose text holds its reference `[^label]` (`ref_id`); a cross-reference is a
Markdown link to an element, `[Section 3.2](#el-000123)` (see shared.links).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from quire.shared.pages import PageRange
from quire.shared.text import count_words, normalize, text_hash

IR_VERSION = 1

SourceFormat = Literal["pdf", "docx", "epub", "html"]
# "pdf": physical PDF pages; "words": estimated at WORDS_PER_PAGE words; "print": the pages
# of the printed edition an EPUB's page-list marks (counted in reading order from 1)
PageBasis = Literal["pdf", "words", "print"]
ElementType = Literal[
    "heading", "paragraph", "list", "table", "image", "code", "caption", "formula", "footnote"
]
ELEMENT_TYPES: tuple[ElementType, ...] = (
    "heading",
    "paragraph",
    "list",
    "table",
    "image",
    "code",
    "caption",
    "formula",
    "footnote",
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ImageRef(_Model):
    """An extracted image: its bytes live in `images/{sha256}.{ext}` beside the IR."""

    sha256: str
    file: str  # relative path, e.g. "images/3fa4….png"
    width: int | None = None
    height: int | None = None


class Element(PageRange, _Model):
    """One unit of content. Cuts may only fall between elements, never inside one."""

    id: str = ""  # "el-000042", assigned in reading order by `assign_ids`
    type: ElementType
    text: str  # canonical Markdown (see shared.markdown)
    page_first: int = Field(ge=1)
    page_last: int = Field(ge=1)
    level: int | None = None  # heading level, 1 = top
    items: list[str] | None = None  # list items, in order
    ordered: bool | None = None
    start: int | None = None  # first number of an ordered list
    rows: list[list[str]] | None = None  # table rows, first row is the header
    image: ImageRef | None = None
    language: str | None = None  # code language when known
    rtl: bool = False  # right-to-left paragraph (text kept in logical order)
    origin: str | None = None  # how structure was found, e.g. "outline", "font", "style"
    # offsets in `text` where a line-end hyphen that only broke a word was taken out
    # ("num-" / "ber" -> "number"); `source_text` puts them back
    joined_hyphens: list[int] | None = None
    # footnote: the element whose text holds its reference ("[^label]") and the printed mark
    ref_id: str | None = None
    mark: str | None = None
    # page space the element takes beyond its words, as a share of a page: a picture's
    # drawn height (DOCX) or its pixels (EPUB, HTML), the rest of a page a DOCX page break
    # after it leaves blank; estimated pages (page_basis "words") count it as the words that
    # would fill it (`layout_words`)
    page_share: float | None = Field(default=None, ge=0)
    # inline code its text holds, as set in a monospace font ("cd", "$HOME"): the names of
    # the subject's own, which key phrases take as terms (`workers/parse/inline_code.py`)
    code: list[str] | None = None
    word_count: int = 0
    content_hash: str = ""

    @model_validator(mode="after")
    def _check(self) -> Element:
        if self.page_last < self.page_first:
            raise ValueError(f"{self.id or 'element'}: page_last < page_first")
        if self.type == "heading" and not (self.level and 1 <= self.level <= 6):
            raise ValueError(f"{self.id or 'heading'}: heading needs a level 1-6")
        if self.type == "list" and self.items is None:
            raise ValueError(f"{self.id or 'list'}: list needs items")
        if self.type == "table" and not self.rows:
            raise ValueError(f"{self.id or 'table'}: table needs rows")
        if self.type == "image" and self.image is None:
            raise ValueError(f"{self.id or 'image'}: image needs an ImageRef")
        if self.type == "footnote" and not (self.ref_id and self.mark):
            raise ValueError(f"{self.id or 'footnote'}: footnote needs ref_id and mark")
        return self


def make_element(
    type: ElementType, text: str, page_first: int, page_last: int | None = None, **fields: object
) -> Element:
    """Build an element with normalised text, its hash and word count filled in."""
    text = normalize(text)
    return Element(
        type=type,
        text=text,
        page_first=page_first,
        page_last=page_last if page_last is not None else page_first,
        word_count=count_words(text),
        content_hash=text_hash(text),
        **fields,
    )


def source_text(e: Element) -> str:
    """The element's text as the source printed it: with the line-end hyphens that the
    parser took out of broken words put back ("number" -> "num-ber")."""
    text = e.text
    for at in reversed(e.joined_hyphens or []):
        text = text[:at] + "-" + text[at:]
    return text


def joined_hyphens_problem(e: Element) -> str | None:
    """Why the element's `joined_hyphens` cannot be where hyphens were taken out of words
    (each offset must fall between two letters, in order), or None."""
    offsets = e.joined_hyphens or []
    if offsets != sorted(set(offsets)):
        return f"joined_hyphens {offsets[:5]} are not in increasing order"
    for at in offsets:
        if not (0 < at < len(e.text) and e.text[at - 1].isalpha() and e.text[at].isalpha()):
            return f"joined_hyphens offset {at} is not inside a word"
    return None


def element_id(index: int) -> str:
    return f"el-{index:06d}"


def assign_ids(elements: list[Element]) -> list[Element]:
    """Number elements in reading order: el-000001, el-000002, ..."""
    return [e.model_copy(update={"id": element_id(i)}) for i, e in enumerate(elements, 1)]


class ParserUse(_Model):
    """Which parser produced a page range (and why, if it was a fallback)."""

    first_page: int
    last_page: int
    parser: str
    reason: str | None = None


TextlessKind = Literal["blank", "figure", "scanned", "unreadable"]
_TEXTLESS_LABEL = {
    "blank": "blank",
    "figure": "figure only",
    "scanned": "scanned",
    "unreadable": "unreadable",
}
# what became of OCR on a page left without text (no_engine: none reads its languages)
OcrOutcome = Literal["off", "no_text", "failed", "no_engine"]
_OCR_LABEL = {
    "off": "OCR off",
    "no_text": "OCR found no text",
    "failed": "OCR failed",
    "no_engine": "no OCR engine",
}


class SkippedPage(_Model):
    """A page that ends without text in any output, and why."""

    page: int
    reason: str  # the full explanation
    kind: TextlessKind = "blank"
    ocr: OcrOutcome | None = None  # None: not relevant (blank...)
    needs: str | None = None  # what would read it, e.g. "apt-get install tesseract-ocr-fas"

    @property
    def label(self) -> str:
        """Short reason, e.g. "scanned, OCR off" or "scanned, no OCR engine: apt-get install
        tesseract-ocr-fas"."""
        ocr = f", {_OCR_LABEL[self.ocr]}" if self.ocr else ""
        needs = f": {self.needs}" if self.needs else ""
        return _TEXTLESS_LABEL[self.kind] + ocr + needs


def page_list(pages: list[int]) -> str:
    """[2, 9, 10, 11, 30] -> "2, 9–11, 30" (runs of three or more as ranges)."""
    out: list[str] = []
    run: list[int] = []
    for p in [*sorted(pages), None]:
        if p is not None and run and p == run[-1] + 1:
            run.append(p)
            continue
        if run:
            out += [f"{run[0]}–{run[-1]}"] if len(run) >= 3 else [str(n) for n in run]
        run = [p] if p is not None else []
    return ", ".join(out)


def describe_textless(pages: list[SkippedPage]) -> str:
    """One line for people: "3 pages without text: 5, 6, 18 — scanned, OCR off" (several
    reasons are separated by semicolons); "" when every page has text."""
    if not pages:
        return ""
    groups: dict[str, list[int]] = {}
    for p in sorted(pages, key=lambda p: p.page):
        groups.setdefault(p.label, []).append(p.page)
    n = len(pages)
    parts = "; ".join(f"{page_list(nums)} — {label}" for label, nums in groups.items())
    return f"{n} page{'s' if n != 1 else ''} without text: {parts}"


class OcrPage(_Model):
    """A page whose text was read by OCR."""

    page: int
    engine: str  # e.g. "tesseract 5.5.4"
    languages: str  # Tesseract codes, e.g. "eng+fas"
    confidence: float  # mean word confidence, 0-100
    words: int
    dpi: int
    reason: str  # why the page was OCR'd


class RemovedText(_Model):
    """Text deliberately left out of the body: running headers/footers, page numbers."""

    page: int
    # navigation and script: HTML chrome (nav bars, DocBook navheaders) and scripts;
    # line_number: a margin's line numbering (lineno), one entry per page, numbers joined
    kind: Literal["header", "footer", "page_number", "line_number", "navigation", "script"]
    text: str


class ParserNote(_Model):
    kind: Literal["fallback", "warning", "info"]
    message: str
    first_page: int | None = None
    last_page: int | None = None


class OutlineEntry(_Model):
    level: int
    title: str
    page: int  # 1-based; 0 when the entry points nowhere


# A PDF bookmark added before the page break that starts its chapter points at the end of
# the page before: its title may open one of this many pages after the entry's page.
TITLE_PAGES_AFTER_ENTRY = 2


class Document(_Model):
    ir_version: int = IR_VERSION
    doc_id: str  # sha256 of the source bytes
    source_name: str
    source_format: SourceFormat
    page_count: int
    # "pdf": page numbers are physical PDF pages; "words": estimated at WORDS_PER_PAGE;
    # "print": the printed edition's pages an EPUB's page-list marks
    page_basis: PageBasis
    parsers: list[ParserUse] = []
    skipped_pages: list[SkippedPage] = []  # pages without text, with the reason
    ocr_pages: list[OcrPage] = []
    # sha256 of the file the pages were read from when it is not the uploaded bytes (a
    # password-protected upload is stored and parsed as a decrypted copy)
    source_sha256: str | None = None
    removed: list[RemovedText] = []
    notes: list[ParserNote] = []
    outline: list[OutlineEntry] = []
    language: str | None = None  # the book's language from its metadata (EPUB, HTML)
    elements: list[Element] = []

    def by_id(self) -> dict[str, Element]:
        return {e.id: e for e in self.elements}


WORDS_PER_PAGE = 400


# A line of code takes a line of the page whatever its words: 50 lines to 400 words
CODE_LINE_WORDS = 8


def layout_words(e: Element) -> int:
    """The words an element counts for where pages are estimated: its own, or for code its
    lines (a manual's listings are short lines), and the words that would fill the space
    it takes beyond them (a manual's screenshots are half its pages)."""
    words = e.word_count
    if e.type == "code":  # a fenced block: the fences are two of its lines
        words = max(words, CODE_LINE_WORDS * (e.text.count("\n") - 1))
    return words + round((e.page_share or 0.0) * WORDS_PER_PAGE)


def dump_ir(doc: Document) -> bytes:
    return doc.model_dump_json(indent=1, exclude_none=True).encode("utf-8") + b"\n"


def load_ir(data: bytes | str) -> Document:
    return Document.model_validate_json(data)
