"""NLTK's TextTiling as the baseline for topic-change benchmarks, with its top-k boundaries.

NLTK's block comparison loops over the whole vocabulary for every gap and filters each
word's occurrence list three times per gap: about 95 s for one 35,000-word document on this
machine. `TextTiling` replaces only that step by the same sums over a count matrix (the
test checks the gap scores are NLTK's); tokenising, smoothing and depth scores are NLTK's
own code. Boundaries are snapped to paragraph breaks as NLTK means to (see top_k_boundaries).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from itertools import accumulate
from typing import Any

import numpy as np
from nltk.tokenize.texttiling import TextTilingTokenizer

_KEPT = re.compile(r"[a-z\-' \n\t]")
_TOKEN = re.compile(r"\w+")
NEAR_GAPS = 4  # NLTK drops a boundary within 4 pseudosentence gaps of a deeper one


class TextTiling(TextTilingTokenizer):
    def _block_comparison(self, tokseqs: list[Any], token_table: dict[str, Any]) -> list[float]:
        words = {w: j for j, w in enumerate(token_table)}
        counts = np.zeros((len(tokseqs), max(1, len(words))), dtype=np.float64)
        for word, field in token_table.items():
            for seq, n in field.ts_occurences:
                counts[seq, words[word]] += n
        scores: list[float] = []
        numgaps = len(tokseqs) - 1
        for gap in range(numgaps):  # the window sizes of NLTK's loop, edge cases included
            if gap < self.k - 1:
                size = gap + 1
            elif gap > numgaps - self.k:
                size = numgaps - gap
            else:
                size = self.k
            b1 = counts[max(0, gap - size + 1) : gap + 1].sum(axis=0)
            b2 = counts[gap + 1 : gap + size + 1].sum(axis=0)
            norm = math.sqrt(float(b1 @ b1) * float(b2 @ b2))
            scores.append(float(b1 @ b2) / norm if norm else 0.0)
        return scores


def top_k_boundaries(paragraphs: Sequence[str], k: int, stopwords: Sequence[str]) -> list[int]:
    """Indices of the paragraphs after which TextTiling's k deepest boundaries fall (NLTK's
    default settings and its rule that a boundary near a deeper one is dropped)."""
    text = "\n\n".join(paragraphs)
    tiler = TextTiling(stopwords=list(stopwords), demo_mode=True)
    _, _, depths, _ = tiler.tokenize(text)
    chosen: list[int] = []
    for gap in sorted(range(len(depths)), key=lambda g: (-depths[g], g)):
        if len(chosen) == k or depths[gap] <= 0:
            break
        if all(abs(gap - c) >= NEAR_GAPS for c in chosen):
            chosen.append(gap)
    # NLTK snaps a gap to a paragraph break by counting whitespace-separated words of the raw
    # text, while its pseudosentences count letter runs of the letters-only text ("R's" is
    # two, "2.4" none): over a long document that drifts by hundreds of words. Snap each gap
    # to the nearest paragraph break in the tokeniser's own count instead.
    ends = list(accumulate(len(_TOKEN.findall(_letters_only(p))) for p in paragraphs))
    found: set[int] = set()
    for gap in chosen:
        at = (gap + 1) * tiler.w  # tokens before the gap
        found.add(min(range(len(paragraphs) - 1), key=lambda j: (abs(ends[j] - at), j)))
    return sorted(found)


def _letters_only(text: str) -> str:
    """The text as NLTK's TextTiling tokenises it: lower case, letters, - ' and spaces."""
    return "".join(c for c in text.lower() if _KEPT.match(c))
