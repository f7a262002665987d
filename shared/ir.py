"""The intermediate representation (IR): one parsed document as an ordered list of elements.

The planner cuts between elements, the writers render them and the verifier checks written
output against them. `ir.json` is `Document` serialised by `dump_ir`; `load_ir(dump_ir(d))`
gives back an equal document and dumping it again gives the same bytes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from quire.shared.text import count_words, normalize, text_hash

IR_VERSION = 1

ElementType = Literal[
    "heading", "paragraph", "list", "table", "image", "code", "caption", "formula"
]
ELEMENT_TYPES: tuple[ElementType, ...] = (
    "heading", "paragraph", "list", "table", "image", "code", "caption", "formula",
)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ImageRef(_Model):
    """An extracted image: its bytes live in `images/{sha256}.{ext}` beside the IR."""

    sha256: str
    file: str  # relative path, e.g. "images/3fa4….png"
    width: int | None = None
    height: int | None = None


class Element(_Model):
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
        return self


def make_element(type: ElementType, text: str, page_first: int, page_last: int | None = None,
                 **fields: object) -> Element:
    """Build an element with normalised text, its hash and word count filled in."""
    text = normalize(text)
    return Element(
        type=type, text=text, page_first=page_first,
        page_last=page_last if page_last is not None else page_first,
        word_count=count_words(text), content_hash=text_hash(text),
        **fields,
    )


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


class SkippedPage(_Model):
    page: int
    reason: str


class RemovedText(_Model):
    """Text deliberately left out of the body: running headers/footers, page numbers."""

    page: int
    kind: Literal["header", "footer", "page_number"]
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


class Document(_Model):
    ir_version: int = IR_VERSION
    doc_id: str  # sha256 of the source bytes
    source_name: str
    source_format: Literal["pdf", "docx"]
    page_count: int
    # "pdf": page numbers are physical PDF pages; "words": estimated at WORDS_PER_PAGE
    page_basis: Literal["pdf", "words"]
    parsers: list[ParserUse] = []
    skipped_pages: list[SkippedPage] = []
    removed: list[RemovedText] = []
    notes: list[ParserNote] = []
    outline: list[OutlineEntry] = []
    elements: list[Element] = []

    def by_id(self) -> dict[str, Element]:
        return {e.id: e for e in self.elements}


WORDS_PER_PAGE = 400


def dump_ir(doc: Document) -> bytes:
    return doc.model_dump_json(indent=1, exclude_none=True).encode("utf-8") + b"\n"


def load_ir(data: bytes | str) -> Document:
    return Document.model_validate_json(data)
