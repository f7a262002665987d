"""Line numbers printed in a margin (the `lineno` package: a journal's review copy, a draft,
a legal text): a column of bare numbers, one beside each line of text, counting the lines.
They are furniture, not text: kept, they became a paragraph each ("1", "2", … 1,272 of them
in aomart's sample article) or were glued into the sentences beside them.

A column is line numbering only when it stands in a margin (no other text reaches into
it), is set smaller than the text beside it, its numbers rise down the page a line apart
per number (every fifth line numbered, 5, 10, 15, passes too; where the space around lists
and headings makes that pitch uneven, each number as many lines below the one before as it
counts on), and most sit on the baselines of prose beside them. A count that starts again
(a reset, a second column of text) is judged in runs. Numbered paragraphs (as far apart as
their paragraphs are long), a numbered list (the text around it starts where its numbers
do), a contents page's numbers (the size of its entries) and a listing's line numbers
(beside monospace code, kept with it) fail these tests and stay, and so does a table's
column of numbers (a font table's codes: they count faster than its lines)."""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Sequence
from itertools import pairwise

from quire.workers.parse.pdf_footnotes import unwrap_marks
from quire.workers.parse.pdf_types import Row

_NUMBER = re.compile(r"[0-9]{1,5}")
_CODE = re.compile(r"[\\{};]|^%|%$|^[!-~]{12,}$")  # TeX or C-like, or ASCII without a space
MIN_NUMBERS = 5


def margin_line_numbers(rows: Sequence[Row]) -> tuple[list[Row], list[str]]:
    """(the page's rows without its line numbers, the line numbers taken out)."""
    values: dict[int, int] = {}  # id(row) -> the bare number it is
    for r in rows:
        text = unwrap_marks(r.text)  # a small number beside a line reads as a note mark
        if r.horizontal and _NUMBER.fullmatch(text):
            values[id(r)] = int(text)
    if len(values) < MIN_NUMBERS:
        return list(rows), []
    numbers = [r for r in rows if id(r) in values]
    others = [r for r in rows if r.horizontal and id(r) not in values]
    # left-aligned or right-aligned numbers, the longest column first: one judged whole
    # is not judged again in parts (right-aligned 1-9 and 10-42 share no left edge)
    edges: tuple[Callable[[Row], float], ...] = (lambda r: r.x0, lambda r: r.x1)
    columns = sorted(
        (c for edge in edges for c in _columns(numbers, edge, values)), key=len, reverse=True
    )
    taken: set[int] = set()
    judged: set[int] = set()
    for column in columns:
        if judged.isdisjoint(map(id, column)) and _counts_lines(column, values, others):
            taken.update(map(id, column))
        judged.update(map(id, column))
    kept = [r for r in rows if id(r) not in taken]
    return kept, [str(values[id(r)]) for r in rows if id(r) in taken]


def _columns(
    numbers: list[Row], edge: Callable[[Row], float], values: dict[int, int]
) -> list[list[Row]]:
    """The numbers grouped by a shared edge (within 1.5 pt), each group cut where its count
    starts again (a second column of text, a numbering reset), top down: the runs of
    MIN_NUMBERS or more."""
    groups: list[list[Row]] = []
    group: list[Row] = []
    for r in sorted(numbers, key=edge):
        if group and edge(r) - edge(group[-1]) > 1.5:
            groups.append(group)
            group = []
        group.append(r)
    groups.append(group)
    runs: list[list[Row]] = []
    for g in groups:
        run: list[Row] = []
        for r in sorted(g, key=lambda r: r.y1):
            if run and values[id(r)] <= values[id(run[-1])]:
                runs.append(run)
                run = []
            run.append(r)
        runs.append(run)
    return [run for run in runs if len(run) >= MIN_NUMBERS]


def _counts_lines(column: list[Row], values: dict[int, int], others: list[Row]) -> bool:
    steps = [(values[id(b)] - values[id(a)], b.y1 - a.y1) for a, b in pairwise(column)]
    pitches = [dy / dv for dv, dy in steps]
    pitch = statistics.median(pitches)
    if pitch <= 0:
        return False
    left, right = min(r.x0 for r in column), max(r.x1 for r in column)
    if any(r.x0 < right and r.x1 > left for r in others):
        return False  # text reaches into the column: numbers inside the text block
    top, bottom = column[0].y1 - pitch, column[-1].y1 + pitch
    beside = [r for r in others if top <= r.y1 <= bottom]
    # the text on each number's line
    on_lines = [
        line for r in column if (line := [b for b in beside if abs(r.y1 - b.y1) <= 0.5 * b.size])
    ]
    if not on_lines:
        return False
    code = sum(_code(" ".join(b.text for b in ln), all(b.mono for b in ln)) for ln in on_lines)
    if code * 2 >= len(on_lines):
        return False  # a listing's numbers (a .dtx's code lines, which its index cites)
    if max(r.size for r in column) > 0.9 * statistics.median(b.size for ln in on_lines for b in ln):
        return False  # set as large as the text: a contents' chapter or page numbers
    lines = _baselines(beside)
    # a line apart per number (per fifth line when every fifth is numbered): paragraph
    # numbers stand as far apart as their paragraphs are long
    even = sum(abs(p - pitch) <= 0.15 * pitch for p in pitches) >= 0.8 * len(pitches)
    if not (even or _line_by_line(column, values, lines)):
        return False
    gaps = [b - a for a, b in pairwise(lines)]
    if gaps and pitch < 0.5 * statistics.median(gaps):
        return False  # counting faster than the lines: a table's column (a font's codes)
    # most numbers stand on a line of text, or most lines have a number (a page of
    # figures and displays has fewer lines than numbers)
    return len(on_lines) * 2 >= min(len(column), len(lines))


def _line_by_line(column: list[Row], values: dict[int, int], lines: list[float]) -> bool:
    """Does nearly every number stand as many lines of text below the one before as it
    counts on from it? (The space around a list, a heading or a display makes the pitch
    uneven: lineno's own manual numbers every line of it.)"""
    if len(lines) < 2:
        return False
    near = 0.5 * statistics.median(b - a for a, b in pairwise(lines))
    line: dict[int, int] = {}  # id(number) -> the index of the line it stands on
    for r in column:
        k = min(range(len(lines)), key=lambda k: abs(lines[k] - r.y1))
        if abs(lines[k] - r.y1) <= near:
            line[id(r)] = k
    steps = [
        values[id(b)] - values[id(a)] == line[id(b)] - line[id(a)]
        for a, b in pairwise(column)
        if id(a) in line and id(b) in line
    ]
    return sum(steps) >= 0.8 * (len(column) - 1)


def _code(text: str, mono: bool) -> bool:
    """Is a numbered line code: set in a typewriter face, TeX or C-like, data without a
    letter or a space (a CSV file's lines) (listings set in other faces: chhaya's in Latin
    Modern Sans, fmtcount's in a Type 3 font, randomlist's CSV in Computer Modern)?"""
    return mono or _CODE.search(text) is not None or not any(c.isalpha() for c in text)


def _baselines(rows: list[Row]) -> list[float]:
    """The distinct lines the rows sit on (pieces of one line share its bottom)."""
    out: list[float] = []
    for r in sorted(rows, key=lambda r: r.y1):
        if not out or r.y1 - out[-1] > 0.5 * r.size:
            out.append(r.y1)
    return out
