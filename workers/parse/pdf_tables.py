"""Ruled tables of a PDF page: found only where the page's rulings form a grid.

`find_tables` runs only on pages whose rulings form a grid (a vertical ruling crossing a
horizontal one inside its span; PyMuPDF's finder costs 30-200 ms a page), and keeps what
reads as a table (not a framed box or a slide drawn as vector graphics).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from quire.shared.text import is_cjk
from quire.workers.parse.accents import compose_accents
from quire.workers.parse.glyphs import expand_glyphs
from quire.workers.parse.pdf_open import text_flags
from quire.workers.parse.pdf_types import PdfBlock, round_box
from quire.workers.parse.table_chars import lean_table_chars

# Stroked rulings only, as pymupdf4llm does. ("lines" also takes filled rectangles as
# rulings; on this corpus that adds no real table, only coloured boxes such as beamer's
# example slides.)
TABLE_STRATEGY = "lines_strict"


def _rulings(
    paths: list[dict[str, Any]],
) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]], int]:
    """Horizontal (y, x0, x1) and vertical (x, y0, y1) stroked rulings: lines and the edges
    of rectangles (fill-only shapes are ignored, as by the lines_strict table finder), and
    the number of other stroked items (curves, slanted lines: plots and drawings)."""
    hs: list[tuple[float, float, float]] = []
    vs: list[tuple[float, float, float]] = []
    other = 0
    for path in paths:
        if "s" not in (path.get("type") or ""):
            continue
        for item in path["items"]:
            op = item[0]
            if op == "l":
                (ax, ay), (bx, by) = item[1], item[2]
                if abs(ay - by) <= 1 and abs(ax - bx) >= 5:
                    hs.append((ay, min(ax, bx), max(ax, bx)))
                elif abs(ax - bx) <= 1 and abs(ay - by) >= 5:
                    vs.append((ax, min(ay, by), max(ay, by)))
                else:
                    other += 1
            elif op == "c":
                other += 1
            elif op in ("re", "qu"):
                if op == "re":
                    x0, y0, x1, y1 = item[1]
                else:
                    px = [pt[0] for pt in item[1]]
                    py = [pt[1] for pt in item[1]]
                    x0, y0, x1, y1 = min(px), min(py), max(px), max(py)
                x0, x1 = min(x0, x1), max(x0, x1)
                y0, y1 = min(y0, y1), max(y0, y1)
                if y1 - y0 <= 2 and x1 - x0 >= 5:
                    hs.append(((y0 + y1) / 2, x0, x1))
                elif x1 - x0 <= 2 and y1 - y0 >= 5:
                    vs.append(((x0 + x1) / 2, y0, y1))
                elif x1 - x0 >= 5 and y1 - y0 >= 5:
                    hs += [(y0, x0, x1), (y1, x0, x1)]
                    vs += [(x0, y0, y1), (x1, y0, y1)]
    return hs, vs, other


def _join_collinear(segs: list[tuple[float, float, float]]) -> list[tuple[float, float, float]]:
    """Join touching segments on the same line: (pos, a0, a1) -> longer (pos, a0, a1)."""
    out: list[tuple[float, float, float]] = []
    for pos, a0, a1 in sorted(segs, key=lambda s: (round(s[0]), s[1])):
        if out and round(out[-1][0]) == round(pos) and a0 <= out[-1][2] + 2:
            out[-1] = (out[-1][0], out[-1][1], max(out[-1][2], a1))
        else:
            out.append((pos, a0, a1))
    return out


def _has_grid(paths: list[dict[str, Any]]) -> bool:
    """Does a vertical ruling meet a horizontal one inside its span (a cross or a T, not a
    corner)? Every ruled table with two columns has such a junction: the column separator
    meets the header rule. A framed box (code listing, note, one-column boxed table) has
    only corners, body text no rulings at all. Collinear touching pieces (one per cell)
    are joined first. Pages drawn mostly with curves and slanted lines (plots)
    are left out."""
    hs, vs, other = _rulings(paths)
    if not hs or not vs or other > len(hs) + len(vs):
        return False  # no rulings, or mostly curves and slanted lines: a plot, not a table
    hs = sorted(_join_collinear(hs))
    ys = [h[0] for h in hs]
    for x, y0, y1 in _join_collinear(vs):
        for _y, hx0, hx1 in hs[bisect.bisect_left(ys, y0 - 1) : bisect.bisect_right(ys, y1 + 1)]:
            if hx0 + 2 < x < hx1 - 2:  # a column separator meeting a row ruling
                return True
    return False


def find_tables(
    page: Any, paths: list[dict[str, Any]], decode: Callable[[str], str] = str
) -> list[PdfBlock]:
    """The ruled tables of `page` (`decode`: its words' text as the page's rows read it)."""
    if not _has_grid(paths):
        return []
    with lean_table_chars(page):
        found = page.find_tables(strategy=TABLE_STRATEGY, use_layout=False)
    tables: list[PdfBlock] = []
    words: list[Any] | None = None
    for tab in found.tables:
        if tab.row_count < 2 or tab.col_count < 2:
            continue
        # (tab.header.external would be a text line above the table that PyMuPDF guesses
        # is its header; often it is a heading or a caption, so we keep it as text.)
        cell_rows = [list(r.cells) for r in tab.rows]
        if words is None:
            words = page.get_text("words", flags=text_flags())
        # Cell text from MuPDF's words (which keep inter-word spaces that the table
        # finder's own char-based extract() drops in some PDFs, e.g. Apache FOP output).
        rows = _cells_text(words, cell_rows, decode)
        rows = [r for r in rows if any(rows_cell for rows_cell in r)]
        keep = [
            j
            for j in range(max((len(r) for r in rows), default=0))
            if any(j < len(r) and r[j] for r in rows)
        ]
        rows = [[r[j] if j < len(r) else "" for j in keep] for r in rows]
        if len(rows) < 2 or len(keep) < 2 or not _plausible(rows):
            continue
        tables.append(PdfBlock(kind="table", bbox=round_box(tab.bbox), rows=rows))
    return tables


def _plausible(rows: list[list[str]]) -> bool:
    """Reject "tables" that are really framed or coloured boxes (e.g. slides drawn as
    vector graphics): mostly empty cells, or a cell holding a whole paragraph, unless it
    is a described table's description."""
    cells = [c for r in rows for c in r]
    empty = sum(1 for c in cells if not c)
    return empty * 2 <= len(cells) and (max(len(c) for c in cells) <= 250 or _described(rows))


def _described(rows: list[list[str]]) -> bool:
    """A table of names and their descriptions (GnuCash's and SISCone's manuals, through
    Apache FOP and doxygen): three rows or more, at most eight columns, every long cell in
    the last column and every other cell short. A framed box or a slide has its long text
    anywhere, a layout demo two rows, a periodic table eighteen columns."""
    width = max(len(r) for r in rows)
    return len(rows) >= 3 and 2 <= width <= 8 and all(len(c) <= 60 for r in rows for c in r[:-1])


def _cells_text(
    words: list[Any], cell_rows: list[list[Any]], decode: Callable[[str], str] = str
) -> list[list[str]]:
    """The text of each cell (None: covered by a merged neighbour, ""): the words whose
    middle lies in it, a point of slack around it for words on a ruling; a word in the
    slack of several cells goes to one only, the nearest (a diagram's label "x" on the
    crossing of two rulings was in all four of its cells)."""
    cells = [(i, j, c) for i, row in enumerate(cell_rows) for j, c in enumerate(row) if c]
    parts: dict[tuple[int, int], list[Any]] = {}
    for w in words:
        x, y = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
        near = [
            (max(c[0] - x, x - c[2], 0) + max(c[1] - y, y - c[3], 0), i, j)
            for i, j, c in cells
            if c[0] - 1 <= x <= c[2] + 1 and c[1] - 1 <= y <= c[3] + 1
        ]
        if near:
            _, i, j = min(near)
            parts.setdefault((i, j), []).append(w)
    # as in the text rows: "eﬀect" -> "effect", "Par´ametro" -> "Parámetro"
    return [
        [
            compose_accents(expand_glyphs(decode(_joined(parts.get((i, j), [])))))
            for j in range(len(row))
        ]
        for i, row in enumerate(cell_rows)
    ]


def _joined(words: list[Any]) -> str:
    """A cell's words, a space between them, but none where a line of Chinese or Japanese
    wraps ("マ" at a line end, "シン" opening the next: "マシン")."""
    out = ""
    for before, w in zip([None, *words], words, strict=False):
        wrapped = before is not None and w[1] > (before[1] + before[3]) / 2  # a line below
        glued = wrapped and is_cjk(out[-1:]) and is_cjk(w[4][:1])
        out += w[4] if not out or glued else " " + w[4]
    return out
