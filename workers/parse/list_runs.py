"""A long list, code block or table as several elements of a few pages each, so that a
session can end inside it: in a book measured in words (HTML, EPUB, DOCX) a 13-page
definition list, such as the Python reference's "standard type hierarchy", or a 17-page
listing of a phone protocol's frames (gammu's manual), would otherwise be one element
that no cut may enter, and the sessions around it oversized or runts (a PDF's list or
code block carried over page breaks is cut the same way, at `MAX_CARRY_PAGES`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from quire.shared.ir import CODE_LINE_WORDS, WORDS_PER_PAGE
from quire.shared.text import count_words

MAX_CARRY_PAGES = 3  # pages one list (or a PDF's code block) may span, in any format
MAX_LIST_WORDS = MAX_CARRY_PAGES * WORDS_PER_PAGE

T = TypeVar("T")


def runs_of(
    parts: Sequence[T], size: Callable[[T], float], max_words: float = MAX_LIST_WORDS
) -> list[tuple[int, list[T]]]:
    """`parts` in runs of at most `max_words` words by `size` (a part longer than that
    alone), each with the index of its first part."""
    runs: list[tuple[int, list[T]]] = []
    first, run, words = 0, list[T](), 0.0
    for i, part in enumerate(parts):
        n = size(part)
        if run and words + n > max_words:
            runs.append((first, run))
            first, run, words = i, [], 0.0
        run.append(part)
        words += n
    if run:
        runs.append((first, run))
    return runs


def list_runs(
    items: Sequence[str], max_words: float = MAX_LIST_WORDS
) -> list[tuple[int, list[str]]]:
    """`items` in runs of at most `max_words` words (an item longer than that alone), each
    with the index of its first item."""
    return runs_of(items, count_words, max_words)


def code_runs(lines: Sequence[str], max_words: float = MAX_LIST_WORDS) -> list[list[str]]:
    """A code block's lines in runs of a few pages, measured as the planner measures code
    (`ir.layout_words`: a line is at least CODE_LINE_WORDS); a run ends after its last
    blank line when that stands in its second half, so a cut falls between stanzas."""

    def size(line: str) -> float:
        return max(count_words(line), CODE_LINE_WORDS)

    out: list[list[str]] = []
    run: list[str] = []
    words, blank = 0.0, -1  # the run's measure, and its last blank line
    for line in lines:
        if run and words + size(line) > max_words:
            cut = blank + 1 if blank >= len(run) // 2 else len(run)
            out.append(run[:cut])
            run = run[cut:]
            words = sum(map(size, run))
            blank = max((i for i, x in enumerate(run) if not x.strip()), default=-1)
        run.append(line)
        words += size(line)
        if not line.strip():
            blank = len(run) - 1
    out.append(run)
    return [r for r in out if any(x.strip() for x in r)]


def row_runs(
    rows: Sequence[Sequence[str]], max_words: float = MAX_LIST_WORDS
) -> list[list[list[str]]]:
    """A table's rows in runs of a few pages (its header row opens the first run)."""
    return [
        [list(r) for r in run]
        for _, run in runs_of(rows, lambda r: sum(count_words(c) for c in r), max_words)
    ]
