"""Text inside vector figures: axis labels, tick numbers, diagram labels.

Such text is part of a drawing, not of the prose: "0 0.2 0.4 0.6" under a plot is no
numbered part, "1." beside an arrow no list item, a node label no heading. Here the
page's vector paths are grouped into regions (paths whose boxes touch), and a region is
a figure when it holds shapes of its own: at least `MIN_SHAPES` drawing items besides its
frames, the few-item paths that span it (a rectangle or rounded box drawn or filled: a
boxed code listing or a coloured note has those only), or when a figure caption ("Figure
1.1: ...") sits right below or above it: the author called it a figure, though it may be
only a frame around one large letter (a thesis template's sample figure, whose 36 pt "A"
was read as the document's top heading) or a placeholder box. The short text rows inside a
figure (with a small margin for tick labels set just outside the axes) are its text;
long rows stay prose, so a page border or a box around a whole page of text takes none.
Few-item paths running from edge to edge of the page, across and down (a slide's title,
side and footer bars), are chrome, like the page's background, and no part of any figure.

A path is measured where it shows: its box cut to the clip paths it is drawn in (a
`\\clip`ped TikZ grid is drawn far beyond its window; at full size it would join the page's
running-header rule and take the header line into the figure's text).

Pure geometry on `get_cdrawings(extended=True)` output and row boxes; pdf_extract puts the
rows it is told are figure text into one block per figure, flagged `figure`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

Box = tuple[float, float, float, float]

MIN_SHAPES = 6  # drawing items inside a region, frames and backgrounds aside
MIN_SIDE = 24.0  # points: smaller regions are rules, bullets, underlines
FRAME_SHARE = 0.6  # a path covering this share of its region's area ...
FRAME_ITEMS = 8  # ... with at most this many items (4 sides, 4 rounded corners) frames it
TOUCH = 3.0  # points: paths this close belong to one region
EDGE = 1.0  # points: a path this close to two opposite edges of the page spans it
ROW_BUDGET = 100_000  # (path, grid row) pairs a page may cost before the grid coarsens
MARGIN = 10.0  # points around a figure where its tick and axis labels sit
ROUNDS = 2  # the figure grows by the labels it took, once: the axis title is beyond them
SHORT_ROW = 40  # characters: longer rows are prose even inside a figure
MARGIN_ROW = 12  # characters: in the margin, only labels this short belong to the figure
CAPTION_GAP = 24.0  # points between a figure's box and its caption (about two lines)
FIGURE_CAPTION = re.compile(
    r"^(?:figure|fig\.|abbildung|abb\.|figura|рисунок|рис\.|图|圖|図|شکل|شكل)\s*"
    r"(?:[A-Z]?\d+|[A-Z])(?:[.\-–]\d+)*[a-z]?\s*(?:[:.—–-]|$)",  # 1.1, A.1, 3b
    re.IGNORECASE,
)


def _area(b: Box) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _near(a: Box, b: Box, gap: float) -> bool:
    return a[0] - gap <= b[2] and b[0] - gap <= a[2] and a[1] - gap <= b[3] and b[1] - gap <= a[3]


def split_drawings(
    drawn: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(paths, visible) from `get_cdrawings(extended=True)`: the paths as plain
    `get_cdrawings()` gives them, and the same paths with each "rect" cut to the clips
    it is drawn in (a path wholly clipped away is left out of `visible`). A clip or group
    entry at level L holds the entries after it of a level above L."""
    paths: list[dict[str, Any]] = []
    visible: list[dict[str, Any]] = []
    scopes: list[tuple[int, Box | None]] = []  # (level, clip box in force) of open scopes
    for entry in drawn:
        level = entry.get("level", 0)
        while scopes and scopes[-1][0] >= level:
            scopes.pop()
        clip = scopes[-1][1] if scopes else None
        kind = entry.get("type")
        if kind in ("clip", "group"):
            scissor = entry.get("scissor") if kind == "clip" else None
            if scissor is not None:
                clip = _intersect(clip, tuple(scissor)) if clip is not None else tuple(scissor)
            scopes.append((level, clip))
            continue
        path = {k: v for k, v in entry.items() if k != "level"}
        paths.append(path)
        box = tuple(path["rect"]) if clip is None else _intersect(tuple(path["rect"]), clip)
        if box[0] <= box[2] and box[1] <= box[3]:
            visible.append({**path, "rect": box})
    return paths, visible


def _intersect(a: Box, b: Box) -> Box:
    return (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))


def figure_regions(
    paths: list[dict[str, Any]], page: Box, captions: Sequence[Box] = ()
) -> list[Box]:
    """Boxes of the page's vector figures (see the module docstring); `captions`: the
    boxes of the page's rows that begin a figure caption (`FIGURE_CAPTION`)."""
    page_area = _area(page)
    boxes: list[Box] = []
    items: list[int] = []
    for path in paths:
        x0, y0, x1, y1 = path["rect"]  # clipped to the page: off-page drawing is no figure
        box = (max(x0, page[0]), max(y0, page[1]), min(x1, page[2]), min(y1, page[3]))
        if box[0] <= box[2] and box[1] <= box[3] and _area(box) < 0.9 * page_area:
            boxes.append(box)  # (a page background tells nothing)
            items.append(len(path.get("items") or ()))
    chrome = _page_frame(boxes, items, page)
    if chrome:
        boxes = [b for k, b in enumerate(boxes) if k not in chrome]
        items = [n for k, n in enumerate(items) if k not in chrome]
    groups: dict[int, list[int]] = {}
    for k, root in enumerate(_components(boxes)):
        groups.setdefault(root, []).append(k)
    out: list[Box] = []
    for members in groups.values():
        box = boxes[members[0]]
        for k in members[1:]:
            box = _union(box, boxes[k])
        if box[2] - box[0] < MIN_SIDE or box[3] - box[1] < MIN_SIDE:
            continue
        frame = FRAME_SHARE * _area(box)  # paths this large with few items frame the region
        shapes = sum(items[k] for k in members if items[k] > FRAME_ITEMS or _area(boxes[k]) < frame)
        if shapes >= MIN_SHAPES or any(_captions(box, c) for c in captions):
            out.append(box)
    return sorted(out, key=lambda b: (b[1], b[0]))


def _page_frame(boxes: list[Box], items: list[int], page: Box) -> set[int]:
    """The few-item paths that run from edge to edge of the page, when some run across and
    some down: a slide's title, side and footer bars, which touch and so ring the page. As
    one "figure" they took its running header and every short line of its text. (A bar
    across alone, a drawn header banner, is kept: its text is its figure's.)"""
    few = [(k, b) for k, b in enumerate(boxes) if items[k] <= FRAME_ITEMS]
    across = {k for k, b in few if b[0] <= page[0] + EDGE and b[2] >= page[2] - EDGE}
    down = {k for k, b in few if b[1] <= page[1] + EDGE and b[3] >= page[3] - EDGE}
    return across | down if across and down else set()


def _captions(box: Box, caption: Box) -> bool:
    """Does the caption row sit right below or above the box, overlapping it across?"""
    across = caption[0] <= box[2] and box[0] <= caption[2]
    below, above = caption[1] - box[3], box[1] - caption[3]
    return across and (0 <= below <= CAPTION_GAP or 0 <= above <= CAPTION_GAP)


def _components(boxes: list[Box]) -> list[int]:
    """A component id per box: boxes that touch (within about TOUCH) are one component.
    Scanline over a grid of TOUCH-sized cells, so tens of thousands of paths (a scatter
    plot's markers) cost the rows they span, not every pair."""
    parent = list(range(len(boxes)))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def union(a: int, b: int) -> None:
        parent[find(a)] = find(b)

    # cells of TOUCH points; coarser when the boxes would fill too many rows (thousands of
    # large overlapping paths): then touching is judged more loosely, in bounded time
    span = sum((b[3] - b[1]) / TOUCH + 1 for b in boxes)
    cell = TOUCH * max(1.0, span / ROW_BUDGET)
    rows: dict[int, list[tuple[int, int, int]]] = {}  # grid row -> (first, last cell, box)
    for k, (x0, y0, x1, y1) in enumerate(boxes):
        c0, c1 = int(x0 // cell), int(x1 // cell)
        for r in range(int(y0 // cell), int(y1 // cell) + 1):
            rows.setdefault(r, []).append((c0, c1, k))
    prev: list[tuple[int, int, int]] = []
    prev_row: int | None = None
    for r in sorted(rows):
        segs: list[tuple[int, int, int]] = []  # the row's runs of touching cells
        for c0, c1, k in sorted(rows[r]):
            if segs and c0 <= segs[-1][1] + 1:
                union(k, segs[-1][2])
                segs[-1] = (segs[-1][0], max(segs[-1][1], c1), segs[-1][2])
            else:
                segs.append((c0, c1, k))
        if prev_row == r - 1:  # runs of adjacent rows that overlap touch
            i = j = 0
            while i < len(prev) and j < len(segs):
                if prev[i][1] + 1 >= segs[j][0] and segs[j][1] + 1 >= prev[i][0]:
                    union(prev[i][2], segs[j][2])
                if prev[i][1] < segs[j][1]:
                    i += 1
                else:
                    j += 1
        prev, prev_row = segs, r
    return [find(k) for k in range(len(boxes))]


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
    """The figure whose text the row is (see `figure_rows`). A row that runs past the
    figure on both sides is none of its text: pst-news10's plotted curves climb past the
    running-header rule to the top of the page, and the header row ("7. The PostScript
    header files 20"), its centre inside the curves' box, became the plot's text."""
    cx, cy = (row[0] + row[2]) / 2, (row[1] + row[3]) / 2
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        wider = row[0] < x0 - MARGIN and row[2] > x1 + MARGIN
        if x0 <= cx <= x1 and y0 <= cy <= y1 and not wider:
            return i
        if _label(text) and _near(boxes[i], row, MARGIN):
            return i
    return None


def _label(text: str) -> bool:
    """Could the row be a label set beside a figure (a tick label, an axis title): short,
    and not introducing what follows with a colon ("Produz:" over an example's output;
    "Example:" under one of Erlang's notes read "Note: Example:")?"""
    return len(text) <= MARGIN_ROW and not text.rstrip().endswith(":")
