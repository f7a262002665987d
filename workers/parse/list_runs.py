"""A long list as several list elements of a few pages each, so that a session can end
inside it: in a book measured in words (HTML, EPUB) a 13-page definition list, such as
the Python reference's "standard type hierarchy", would otherwise be one element that no
cut may enter (a PDF's list carried over page breaks is cut the same way, at
`MAX_CARRY_PAGES`)."""

from __future__ import annotations

from collections.abc import Sequence

from quire.shared.ir import WORDS_PER_PAGE
from quire.shared.text import count_words

MAX_CARRY_PAGES = 3  # pages one list (or a PDF's code block) may span, in any format
MAX_LIST_WORDS = MAX_CARRY_PAGES * WORDS_PER_PAGE


def list_runs(
    items: Sequence[str], max_words: float = MAX_LIST_WORDS
) -> list[tuple[int, list[str]]]:
    """`items` in runs of at most `max_words` words (an item longer than that alone), each
    with the index of its first item."""
    runs: list[tuple[int, list[str]]] = []
    first, run, words = 0, list[str](), 0
    for i, item in enumerate(items):
        size = count_words(item)
        if run and words + size > max_words:
            runs.append((first, run))
            first, run, words = i, [], 0
        run.append(item)
        words += size
    if run:
        runs.append((first, run))
    return runs
