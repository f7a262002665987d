"""The table finder's lean character list: the same tables as PyMuPDF's full one, and only
inside Quire's own calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pdf_samples import ruled_table

from quire.workers.parse.pdf_open import pymupdf_module
from quire.workers.parse.pdf_tables import TABLE_STRATEGY, find_tables
from quire.workers.parse.table_chars import lean_table_chars

CELLS = [["Option", "Meaning"], ["--out", "the output folder"], ["--pages", "a page range"]]
LEAN_KEYS = {"x0", "top", "x1", "bottom", "text", "y0", "y1"}


def _tables_pdf(path: Path) -> Path:
    """Three pages with a ruled table: upright, upright on a shifted media box, rotated."""
    pymupdf = pymupdf_module()
    doc = pymupdf.open()
    for rotation in (0, 0, 90):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 90), "A short paragraph above the table.", fontsize=11)
        ruled_table(page, CELLS, 120.0, 150.0)
        page.set_rotation(rotation)
    doc[1].set_mediabox(pymupdf.Rect(10, 20, 595, 842))
    doc.save(path)
    return path


def _finder(page: Any) -> tuple[list[Any], list[dict[str, Any]]]:
    """PyMuPDF's tables on `page` (bbox and cells) and the characters the finder read."""
    table = pymupdf_module().table
    found = page.find_tables(strategy=TABLE_STRATEGY, use_layout=False)
    shape = [(tuple(t.bbox), [tuple(r.cells) for r in t.rows]) for t in found.tables]
    return shape, list(table.CHARS)


def test_lean_characters_find_the_same_tables(tmp_path: Path) -> None:
    doc = pymupdf_module().open(_tables_pdf(tmp_path / "tables.pdf"))
    for page in doc:
        full, full_chars = _finder(page)
        with lean_table_chars(page):
            lean, lean_chars = _finder(page)
        assert full and lean == full
        if page.rotation:  # PyMuPDF reads a rotated page's headers at once: the full list
            assert set(lean_chars[0]) == set(full_chars[0])
            continue
        assert set(lean_chars[0]) == LEAN_KEYS
        # every value the finder compares, exactly as PyMuPDF computes it (y0/y1 through
        # the page's matrix in single precision), character for character
        assert [{k: c[k] for k in LEAN_KEYS} for c in full_chars] == lean_chars
    # outside the block (pymupdf4llm's fallback calls extract()) the full list again
    _shape, chars = _finder(doc[0])
    assert "fontname" in chars[0] and "upright" in chars[0]


def test_quire_tables_unchanged(tmp_path: Path) -> None:
    doc = pymupdf_module().open(_tables_pdf(tmp_path / "tables.pdf"))
    page = doc[0]
    tables = find_tables(page, page.get_drawings())
    assert [t.rows for t in tables] == [CELLS]
