"""Change-point scores for cut candidates, and the review tasks they lead to.

Lexical part (TextTiling-like): at every gap between two elements compare the word
frequencies of the ~300 words before it with the ~300 words after it (cosine). A topic
change shows up as a dip in this cohesion curve; its *depth* (how far the curve falls below
the highest cohesion within one window on either side) measures how sharp the change is.
The windows slide along one token stream with counts updated incrementally, so the whole
pass is O(total words) (plus O(gaps) for the depths), fast enough for a 2,400-page manual.

Structural part: a heading that begins after the cut (level 1 strongest), a section number
("Chapter 4", "4", "4.2"...) at the start of the next heading or title-like paragraph, a
change of element type.

Depths are put on a 0-1 scale against the document's own 95th percentile (with a floor, so
one-topic text stays low), then combined with structure as independent evidence:
score = 1 - (1 - w·lexical)(1 - structural). Of the candidates within ~100 words of each
other only the best keeps its full score, so one change is one strong candidate.
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Sequence

from quire.shared.ir import WORDS_PER_PAGE, Document
from quire.shared.plan import Candidate, ReviewTask
from quire.workers.boundaries.candidates import numbering_depth, plain_text

WINDOW_WORDS = 300
LEXICAL_WEIGHT = 0.7
DEPTH_FLOOR = 0.4  # real manuals: 95th percentile 0.5-0.7; one-topic text ~0.2
SUPPRESSED = 0.5  # factor for a candidate next to a better one of the same change
# Lowest score worth a review: below it a transition is left to the size rules.
MIN_REVIEW_SCORE = 0.35
# By default about one review per this many pages (the strongest candidates).
REVIEW_EVERY_PAGES = 3.0

_HEADING_STRENGTH = {1: 0.75, 2: 0.6, 3: 0.45, 4: 0.3}
_NUMBER_STRENGTH = {1: 0.6, 2: 0.45, 3: 0.3}
_WORD = re.compile(r"[^\W\d_]{2,}")

_STOP_TEXT = """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during each
    either else etc even ever every few for from further get gets got had has have having he
    her here hers herself him himself his how however i if in into is it its itself just
    least less let like may me might more most much must my myself need no nor not now of
    off often on once one only or other others otherwise our ours ourselves out over own
    per rather same see several shall she should since so some such than that the their
    theirs them themselves then there therefore these they this those though through thus to
    too two under until up upon us use used uses using very via was we well were what when
    where whether which while who whom whose why will with within without would yet you your
    yours yourself yourselves"""
STOP_WORDS = frozenset(_STOP_TEXT.split())


def stem(word: str) -> str:
    """Crude suffix stripping: enough to make 'vectors'/'vector', 'fitted'/'fit' agree."""
    for suffix, keep in (
        ("ations", 4),
        ("ation", 4),
        ("ings", 4),
        ("ing", 4),
        ("ies", 3),
        ("ed", 4),
        ("es", 4),
        ("ly", 4),
        ("s", 3),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= keep:
            if suffix == "s" and word.endswith("ss"):
                return word
            base = word[: -len(suffix)]
            return base + "y" if suffix == "ies" else base
    return word


class _Vocabulary:
    """Word -> small int id (None for stop-words), memoised: tokenising is the hot loop."""

    def __init__(self) -> None:
        self.ids: dict[str, int | None] = {}
        self.stems: dict[str, int] = {}

    def token_ids(self, text: str) -> list[int]:
        out: list[int] = []
        ids = self.ids
        for raw in _WORD.findall(text.lower()):
            tid = ids.get(raw, -1)
            if tid == -1:
                tid = (
                    None if raw in STOP_WORDS else self.stems.setdefault(stem(raw), len(self.stems))
                )
                ids[raw] = tid
            if tid is not None:
                out.append(tid)
        return out


def cohesion_curve(
    doc: Document, window_words: int = WINDOW_WORDS
) -> tuple[list[float], list[int]]:
    """Cosine similarity of the windows before/after each gap, and each gap's token position.

    Gap g lies between elements g and g+1. Counts are updated incrementally as the gap moves
    forward: each token enters and leaves each window once, so the cost is O(tokens).
    """
    vocab = _Vocabulary()
    stream: list[int] = []
    ends: list[int] = []  # token position after element i
    for el in doc.elements:
        stream.extend(vocab.token_ids(plain_text(el)))
        ends.append(len(stream))
    size = len(vocab.stems)
    left = [0] * size
    right = [0] * size
    dot = nl2 = nr2 = 0
    n_tok = len(stream)
    w = window_words
    # Current windows: left = stream[a:p], right = stream[p:b]
    a = p = b = 0
    cohesion: list[float] = []
    positions: list[int] = []
    for g in range(len(ends) - 1):
        q = ends[g]
        qa, qb = max(0, q - w), min(n_tok, q + w)
        # dot = sum(left[t] * right[t]); nl2, nr2 = squared norms; all kept exact (ints)
        for t in stream[b:qb]:  # enters the right window
            dot += left[t]
            nr2 += 2 * right[t] + 1
            right[t] += 1
        b = max(b, qb)
        for t in stream[p:q]:  # crosses the gap: right -> left
            right[t] -= 1
            nr2 -= 2 * right[t] + 1
            dot += right[t] - left[t]
            nl2 += 2 * left[t] + 1
            left[t] += 1
        for t in stream[a:qa]:  # leaves the left window
            left[t] -= 1
            nl2 -= 2 * left[t] + 1
            dot -= right[t]
        a, p = max(a, qa), q
        cohesion.append(dot / math.sqrt(nl2 * nr2) if nl2 and nr2 else 0.0)
        positions.append(q)
    return cohesion, positions


def _sliding_max(
    values: Sequence[float], positions: Sequence[int], reach: int, backwards: bool
) -> list[float]:
    """For each i, max(values[j]) over j on one side with |pos[j] - pos[i]| <= reach."""
    n = len(values)
    order = range(n - 1, -1, -1) if backwards else range(n)
    out = [0.0] * n
    window: deque[int] = deque()
    for i in order:
        while window and values[window[-1]] <= values[i]:
            window.pop()
        window.append(i)
        while abs(positions[window[0]] - positions[i]) > reach:
            window.popleft()
        out[i] = values[window[0]]
    return out


def depth_scores(
    cohesion: Sequence[float], positions: Sequence[int], reach: int = WINDOW_WORDS
) -> list[float]:
    """Depth of each gap's cohesion below the peaks within `reach` tokens on each side."""
    peak_left = _sliding_max(cohesion, positions, reach, backwards=False)
    peak_right = _sliding_max(cohesion, positions, reach, backwards=True)
    return [(pl - c) + (pr - c) for c, pl, pr in zip(cohesion, peak_left, peak_right, strict=True)]


def structural_score(c: Candidate) -> float:
    """How strongly the document's own structure marks this cut, in [0, 0.95]."""
    heading = _HEADING_STRENGTH.get(c.heading_level or 0, 0.2 if c.heading_level else 0.0)
    depth = numbering_depth(c.numbering)
    number = _NUMBER_STRENGTH.get(depth or 0, 0.2 if depth else 0.0)
    if c.numbering and " " in c.numbering and depth == 1:  # "Chapter 4", "Part II"
        number = 0.7
    value = max(heading, number)
    if heading and number:
        value += 0.1
    if c.ends_type != c.begins_type:
        value += 0.05
    return min(0.95, value)


def score_candidates(
    doc: Document, candidates: Sequence[Candidate], window_words: int = WINDOW_WORDS
) -> list[Candidate]:
    """Candidates with `score` in [0, 1] filled in (higher = stronger topic change)."""
    if not candidates:
        return []
    cohesion, positions = cohesion_curve(doc, window_words)
    depths = depth_scores(cohesion, positions, window_words)
    gap_of = {e.id: i for i, e in enumerate(doc.elements)}
    gaps = [gap_of[c.after_id] for c in candidates]
    cand_depth = [depths[g] for g in gaps]
    scale = _depth_scale(cand_depth)
    raw: list[float] = []
    for c, depth in zip(candidates, cand_depth, strict=True):
        # Saturating, not clamped: the deepest dips keep their order among themselves.
        lexical = 1.0 - math.exp(-depth / scale)
        raw.append(1.0 - (1.0 - LEXICAL_WEIGHT * lexical) * (1.0 - structural_score(c)))
    # One topic change moves the cohesion curve over several neighbouring gaps; only the
    # best-scored candidate of such a cluster keeps its full score, so that one change does
    # not crowd out others (and is reviewed once, not three times).
    cand_pos = [positions[g] for g in gaps]
    reach = window_words // 3
    best_left = _sliding_max(raw, cand_pos, reach, backwards=False)
    best_right = _sliding_max(raw, cand_pos, reach, backwards=True)
    out: list[Candidate] = []
    for i, c in enumerate(candidates):
        score = raw[i]
        if score < max(best_left[i], best_right[i]):
            score *= SUPPRESSED
        out.append(c.model_copy(update={"score": round(min(1.0, max(0.0, score)), 4)}))
    return out


def _depth_scale(depths: Sequence[float]) -> float:
    """A depth that counts as a clear change in this document: its 95th percentile, but at
    least DEPTH_FLOOR, so that the small wobbles of a text without any topic change are not
    blown up into changes."""
    ordered = sorted(depths)
    if not ordered:
        return DEPTH_FLOOR
    return max(DEPTH_FLOOR, ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))])


def default_review_threshold(
    candidates: Sequence[Candidate], pages: float, every_pages: float = REVIEW_EVERY_PAGES
) -> float:
    """The score of the k-th best candidate, k = ceil(pages / every_pages) (at least 1), but
    never below MIN_REVIEW_SCORE."""
    k = max(1, math.ceil(pages / every_pages))
    ordered = sorted((c.score for c in candidates), reverse=True)
    kth = ordered[k - 1] if len(ordered) >= k else MIN_REVIEW_SCORE
    return max(MIN_REVIEW_SCORE, kth)


def select_for_review(
    candidates: Sequence[Candidate], pages: float, every_pages: float = REVIEW_EVERY_PAGES
) -> list[Candidate]:
    """The default selection: the k = ceil(pages / every_pages) best candidates scoring at
    least MIN_REVIEW_SCORE (ties go to the earlier one), in document order. At most k, so a
    document gets at most about one review task per `every_pages` pages."""
    k = max(1, math.ceil(pages / every_pages))
    ranked = sorted(range(len(candidates)), key=lambda i: (-candidates[i].score, i))
    chosen = sorted(i for i in ranked[:k] if candidates[i].score >= MIN_REVIEW_SCORE)
    return [candidates[i] for i in chosen]


def review_tasks(
    doc: Document,
    candidates: Sequence[Candidate],
    threshold: float | None = None,
    context_words: int = 250,
) -> list[ReviewTask]:
    """One review task per candidate scoring >= threshold (default: `select_for_review`),
    with the element ids within `context_words` on each side (at least one element each)."""
    els = doc.elements
    if threshold is None:
        selected = select_for_review(candidates, document_pages(doc))
    else:
        selected = [c for c in candidates if c.score >= threshold]
    index = {e.id: i for i, e in enumerate(els)}
    tasks: list[ReviewTask] = []
    for c in selected:
        i = index[c.after_id]
        left: list[str] = []
        words = 0
        j = i
        while j >= 0 and (not left or words < context_words):
            left.append(els[j].id)
            words += els[j].word_count
            j -= 1
        right: list[str] = []
        words = 0
        j = i + 1
        while j < len(els) and (not right or words < context_words):
            right.append(els[j].id)
            words += els[j].word_count
            j += 1
        tasks.append(
            ReviewTask(
                doc_id=doc.doc_id,
                after_id=c.after_id,
                left_ids=left[::-1],
                right_ids=right,
                score=c.score,
            )
        )
    return tasks


def document_pages(doc: Document) -> float:
    if not doc.elements:
        return 0.0
    if doc.page_basis == "words":
        return sum(e.word_count for e in doc.elements) / WORDS_PER_PAGE
    return float(doc.elements[-1].page_last - doc.elements[0].page_first + 1)
