"""Make the heuristic's study focus specific to its chunk, knowing the other chunks' focuses.

The heuristic focus names a chunk's key terms and section titles. In a reference manual two
chunks can share both (the same commands documented twice, tables without headings), and
the analysis rules refuse a focus that is the same as another chunk's. `distinct_focus`
then adds the chunk's own words that the clashing focuses do not name, most frequent first,
as few as tell them apart; when the chunk has no such words it gives up ("") and the
heuristic says why instead of writing a focus.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from quire.workers.analysis.validate import english_problem, focus_key, is_filler, same_focus

MAX_EXTRA_WORDS = 15
MIN_WORD_CHARS = 4
_MARKUP = re.compile(r"<!--.*?-->|\]\([^)]*\)")  # anchors and link targets are not words


def own_words(content: str, terms: Sequence[str] = ()) -> list[str]:
    """The chunk's words that could tell it apart: its key terms' words first, then the
    words of its text, each group most frequent first (ties: first seen). Latin script, at
    least MIN_WORD_CHARS letters, no filler, no digits."""
    ranked: list[str] = []
    for source in (" ".join(terms), _MARKUP.sub(" ", content)):
        counts = Counter(w for w in focus_key(source) if _usable(w))
        ranked += [w for w, _ in sorted(counts.items(), key=lambda kv: -kv[1])]
    return list(dict.fromkeys(ranked))


def _usable(word: str) -> bool:
    return (
        len(word) >= MIN_WORD_CHARS
        and not is_filler(word)
        and word.isalpha()
        and english_problem(word) is None
    )


def distinct_focus(
    focus: str,
    content: str,
    rivals: Sequence[str],
    terms: Sequence[str] = (),
    limit: int = 700,
) -> str:
    """`focus`, extended with the chunk's own words until it is the same as none of
    `rivals`, within `limit` characters; "" when the chunk's words cannot do that."""
    clashing = [r for r in rivals if same_focus(focus, r)]
    if not clashing:
        return focus
    theirs = {w for r in clashing for w in focus_key(r)} | set(focus_key(focus))
    extra = [w for w in own_words(content, terms) if w not in theirs][:MAX_EXTRA_WORDS]
    for n in range(1, len(extra) + 1):
        tail = f" Also on these pages: {', '.join(extra[:n])}."
        head = focus if len(focus) + len(tail) <= limit else _cut(focus, limit - len(tail))
        candidate = head + tail
        if not any(same_focus(candidate, r) for r in rivals):
            return candidate
    return ""


def _cut(text: str, limit: int) -> str:
    cut = text[: max(limit - 1, 0)].rsplit(" ", 1)[0].rstrip(" ,;:-")
    return cut + "…"
