"""Text inside vector figures: axis labels, tick numbers, diagram labels.

Such text is part of a drawing, not of the prose: "0 0.2 0.4 0.6" under a plot is no
numbered part, "1." beside an arrow no list item, a node label no heading. Here the
page's vector paths are grouped into regions (paths whose boxes touch), and a region is
a figure when it holds shapes of its own: at least `MIN_SHAPES` drawing items besides its
frames, the few-item paths that span it (a rectangle or rounded box drawn or filled: a
boxed code listing or a coloured note has those only). The short text rows inside a
figure (with a small margin for tick labels set just outside the axes) are its text;
long rows stay prose, so a page border or a box around a whole page of text takes none.

Pure geometry on `get_cdrawings()` output and row boxes; pdf_extract puts the rows it is
told are figure text into one block per figure, flagged `figure`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Box = tuple[float, float, float, float]

MIN_SHAPES = 6  # drawing items inside a region, frames and backgrounds aside
MIN_SIDE = 24.0  # points: smaller regions are rules, bullets, underlines
FRAME_SHARE = 0.6  # a path covering this share of its region's area ...
FRAME_ITEMS = 8  # ... with at most this many items (4 sides, 4 rounded corners) frames it
TOUCH = 3.0  # points: paths this close belong to one region
MARGIN = 10.0  # points around a figure where its tick and axis labels sit
ROUNDS = 2  # the figure grows by the labels it took, once: the axis title is beyond them
SHORT_ROW = 40  # characters: longer rows are prose even inside a figure
MARGIN_ROW = 12  # characters: in the margin, only labels this short belong to the figure


@dataclass
class _Region:
    box: Box
    paths: list[tuple[Box, int]] = field(default_factory=list)  # (box, item count)

    def add(self, box: Box, items: int) -> None:
        self.box = _union(self.box, box)
        self.paths.append((box, items))

    def shapes(self) -> int:
        """Drawing items of the region, leaving out the paths that frame it."""
        area = _area(self.box)
        return sum(n for b, n in self.paths if n > FRAME_ITEMS or _area(b) < FRAME_SHARE * area)


def _area(b: Box) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _near(a: Box, b: Box, gap: float) -> bool:
    return a[0] - gap <= b[2] and b[0] - gap <= a[2] and a[1] - gap <= b[3] and b[1] - gap <= a[3]


def figure_regions(paths: list[dict[str, Any]], page: Box) -> list[Box]:
    """Boxes of the page's vector figures (see the module docstring)."""
    page_area = _area(page)
    regions: list[_Region] = []
    for path in paths:
        x0, y0, x1, y1 = path["rect"]
        box: Box = (x0, y0, x1, y1)
        if _area(box) >= 0.9 * page_area:
            continue  # a page background says nothing about figures
        items = len(path.get("items") or ())
        hits = [r for r in regions if _near(r.box, box, TOUCH)]
        if not hits:
            regions.append(_Region(box, [(box, items)]))
            continue
        keep = hits[0]
        keep.add(box, items)
        for other in hits[1:]:  # the path bridges regions: one region now
            keep.box = _union(keep.box, other.box)
            keep.paths += other.paths
            regions.remove(other)
    return [
        r.box
        for r in _settle(regions)
        if r.box[2] - r.box[0] >= MIN_SIDE
        and r.box[3] - r.box[1] >= MIN_SIDE
        and r.shapes() >= MIN_SHAPES
    ]


def _settle(regions: list[_Region]) -> list[_Region]:
    """Merge regions whose boxes grew into each other."""
    merged = True
    while merged:
        merged = False
        for i, a in enumerate(regions):
            for b in regions[i + 1 :]:
                if _near(a.box, b.box, TOUCH):
                    a.box = _union(a.box, b.box)
                    a.paths += b.paths
                    regions.remove(b)
                    merged = True
                    break
            if merged:
                break
    return regions


def figure_rows(rows: list[tuple[Box, str]], regions: list[Box]) -> list[int | None]:
    """For each (box, text) row, the index of the figure whose text it is, or None (prose).
    A row belongs to a figure whose box holds its centre; a short one also to a figure it
    comes within MARGIN of, and the figure's box grows by the rows it took, once more
    (tick labels first, then the axis title beyond them)."""
    found: list[int | None] = [None] * len(rows)
    prose = [k > 0 and _ends_prose(rows[k - 1], row) for k, row in enumerate(rows)]
    boxes = list(regions)
    for _ in range(ROUNDS):
        grown = list(boxes)
        for k, (row, text) in enumerate(rows):
            if found[k] is None and not prose[k] and len(text) <= SHORT_ROW:
                found[k] = _figure_of(row, text, boxes)
                if found[k] is not None:
                    grown[found[k]] = _union(grown[found[k]], row)  # type: ignore[index]
        boxes = grown
    return found


def _ends_prose(before: tuple[Box, str], row: tuple[Box, str]) -> bool:
    """Is `row` the next line of a long (prose) row right above it, aligned on its left
    edge: a paragraph's short last line in a box that also holds a drawn icon?"""
    (a, text), (b, _) = before, row
    height = max(a[3] - a[1], 1.0)
    gap = b[1] - a[3]  # (line boxes of one paragraph may overlap a little)
    return len(text) > SHORT_ROW and abs(a[0] - b[0]) <= 3 and -0.5 * height <= gap <= 0.7 * height


def _figure_of(row: Box, text: str, boxes: list[Box]) -> int | None:
    cx, cy = (row[0] + row[2]) / 2, (row[1] + row[3]) / 2
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        if x0 <= cx <= x1 and y0 <= cy <= y1:
            return i
        if len(text) <= MARGIN_ROW and _near(boxes[i], row, MARGIN):
            return i
    return None
