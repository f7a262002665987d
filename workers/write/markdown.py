"""A chunk as Markdown: a small front block, then each element's canonical text.

Layout (the verifier parses exactly this back):

    <!-- quire-chunk
    chunk: 3
    title: "Vectors and assignment"
    source-pages: 12-19
    elements: el-000120..el-000180
    -->

    <!-- el-000120 -->
    # Vectors and assignment

    <!-- el-000121 -->
    Paragraph text ...

    <!-- el-000125 -->
    [^5]: A footnote's text (footnotes come after every other element)

Element text is written as it is (it is already canonical Markdown), its links pointing at
files and book text that Markdown would read as markup escaped (`written_text`), so
the verifier can hash what it reads back and compare it with what `written_text` makes of
the IR. The anchors are HTML comments: invisible to a reader, but they map every stretch of
text back to its element id. Images are linked as
`images/<sha256>.<ext>`, relative to the chunk file, which sits beside the `images/` folder.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from quire.shared.ir import Element, ElementType
from quire.workers.write.escapes import escape_markup
from quire.workers.write.links import Places, write_links, written_order

FRONT_OPEN = "<!-- quire-chunk"
FRONT_CLOSE = "-->"
ANCHOR = re.compile(r"<!-- (el-\d{6,}) -->")


def anchor(element_id: str) -> str:
    return f"<!-- {element_id} -->"


def _title_value(title: str) -> str:
    # JSON string on one line; "--" is escaped so a title can never close the comment early
    return json.dumps(" ".join(title.split()), ensure_ascii=False).replace("--", "-\\u002d")


def front_block(
    number: int, title: str, page_first: int, page_last: int, first_id: str, last_id: str
) -> str:
    return "\n".join(
        [
            FRONT_OPEN,
            f"chunk: {number}",
            f"title: {_title_value(title)}",
            f"source-pages: {page_first}-{page_last}",
            f"elements: {first_id}..{last_id}",
            FRONT_CLOSE,
        ]
    )


def render_chunk_markdown(
    number: int, title: str, elements: Sequence[Element], places: Places | None = None
) -> str:
    """The chunk's Markdown text (ends with one newline): its footnotes after its other
    elements, its element links pointing at files through `places` (see write.links)."""
    if not elements:
        raise ValueError(f"chunk {number} has no elements")
    front = front_block(
        number,
        title,
        min(e.page_first for e in elements),
        max(e.page_last for e in elements),
        elements[0].id,
        elements[-1].id,
    )
    body = "\n\n".join(
        f"{anchor(e.id)}\n{written_text(e.text, e.type, number, places)}"
        for e in written_order(elements)
    )
    return f"{front}\n\n{body}\n"


def written_text(
    text: str, kind: ElementType, chunk: int, places: Places | None, *, escaped: bool = True
) -> str:
    """An element's text (or a table row's line) as chunk `chunk`'s file holds it: its
    element links pointing at files through `places` (see write.links), book text that
    would read as markup escaped (see write.escapes; not in a folder written before)."""
    if escaped:  # (first: the IR's element links show which escapes are its own)
        text = escape_markup(text, kind)
    return write_links(text, chunk, places) if places else text


IMAGE_LINK = re.compile(r"(?<!\\)!\[(?:\\.|[^\]\\\n])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


# A fenced code block (`markdown.code`): what it holds is shown as text, never an image.
_FENCED = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?(?:^\1[`~]*[ \t]*$|\Z)", re.M | re.S)


def image_links(text: str) -> list[str]:
    """Targets of Markdown image links in `text`, in order, outside fenced code (Pelican's
    manual shows `![Photo]({attach}photo.jpg)` in a listing: no image of the book)."""
    if "```" in text or "~~~" in text:
        text = _FENCED.sub("", text)
    return IMAGE_LINK.findall(text)
