"""A lean character list for PyMuPDF's table finder, during Quire's own `find_tables` calls.

PyMuPDF's `table.make_chars` builds a 25-key dictionary per character (two matrix products
and three geometry objects each) for the finder's text strategies, `Table.extract()` and
header detection. Quire calls none of them: it finds tables with the "lines_strict"
strategy, whose only reading of the characters is "does this box hold text?" (`x0`, `top`,
`x1`, `bottom`, `y0`, `y1`, `text`), and takes cell text from MuPDF's words. Building only
those keys makes the finder about 3x faster on the same pages, with the same tables.

`y0`/`y1` are the character box through the page's transformation matrix, which MuPDF
computes in single precision: for the usual y-flip matrix that is `f - y` rounded to a
float32, reproduced here exactly; any other matrix falls back to PyMuPDF's own function.
Everyone else in the process (pymupdf4llm's fallback parse, which calls `extract()`) gets
PyMuPDF's full list: the lean one is used only inside `lean_table_chars()`.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from quire.workers.parse.pdf_open import pymupdf_module

_LEAN: ContextVar[bool] = ContextVar("quire_lean_table_chars", default=False)
_full_make_chars: Callable[..., Any] | None = None


def _x0(item: dict[str, Any]) -> float:
    return float(item["bbox"][0])


def _make_chars(page: Any, clip: Any = None) -> Any:
    """PyMuPDF's `make_chars` (fill the finder's CHARS, return the text page it read)."""
    assert _full_make_chars is not None
    if not _LEAN.get():
        return _full_make_chars(page, clip)
    a, b, c, d, _e, f = page.transformation_matrix
    if (a, b, c, d) != (1, 0, 0, -1):
        return _full_make_chars(page, clip)
    table = pymupdf_module().table
    chars = table.CHARS._list() if hasattr(table.CHARS, "_list") else table.CHARS
    textpage = page.get_textpage(clip=clip, flags=table.FLAGS)
    boxes: list[tuple[float, float, float, float]] = []
    texts: list[str] = []
    for block in textpage.extractRAWDICT()["blocks"]:
        for line in block["lines"]:
            # in PyMuPDF's order (spans and characters left to right)
            for span in sorted(line["spans"], key=_x0):
                for char in sorted(span["chars"], key=_x0):
                    boxes.append(char["bbox"])
                    texts.append(char["c"])
    # array("f") rounds each difference to float32, as MuPDF's fz_transform_rect does
    y0s = array("f", [f - box[3] for box in boxes]).tolist()
    y1s = array("f", [f - box[1] for box in boxes]).tolist()
    for (x0, top, x1, bottom), text, y0, y1 in zip(boxes, texts, y0s, y1s, strict=True):
        chars.append(
            {"x0": x0, "top": top, "x1": x1, "bottom": bottom, "text": text, "y0": y0, "y1": y1}
        )
    return textpage


@contextmanager
def lean_table_chars(page: Any) -> Iterator[None]:
    """Within this block, this thread's `find_tables` calls on `page` build the lean
    character list, unless the page is rotated: PyMuPDF then reads each table's header at
    once (before it puts the rotation back), and that reads the full list."""
    global _full_make_chars
    table = pymupdf_module().table
    if table.make_chars is not _make_chars:
        _full_make_chars = table.make_chars
        table.make_chars = _make_chars
    token = _LEAN.set(page.rotation == 0)
    try:
        yield
    finally:
        _LEAN.reset(token)
