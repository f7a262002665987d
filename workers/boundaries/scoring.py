"""Change-point scores for cut candidates, and the review tasks they lead to.

Lexical part (TextTiling-like, tuned on `bench/bench_topics.py`): at every gap between two
elements compare the content words before it with those after it (tokens, see `tokens.py`:
stop words out, English stemmed, Chinese as character bigrams). Each side is a vector of
sqrt(term count x idf), idf taken over 400-token blocks of the document itself, so words
that run through the whole book count less and one repeated term does not dominate;
cohesion is the cosine of the two sides. A topic change shows up as a dip in this cohesion
curve. Its *relative depth* - how far the curve falls below the highest cohesion within
one window on either side, as a share of those peaks - is 0 in even text and near 1 where
the vocabulary is replaced, whatever the document's usual level of cohesion; a gap with
less than a window of text on one side (the ends of the document) gets proportionally
less. Two window sizes, 600 and 1,200 tokens a side (about 3 and 6 pages of English), are
averaged: session-sized changes are what the planner needs, smaller windows mostly measure
the wobble inside one topic, and a change that shows at both scales is a chapter rather
than a section. The windows slide along one token stream with their sums updated per
token, so each pass is O(total words) (plus O(gaps) for the depths).

Structural part: a heading that begins after the cut (level 1 strongest), a section number
("Chapter 4", "4", "4.2"...) at the start of the next heading or title-like paragraph, a
change of element type.

The two are combined as independent evidence: score = 1 - (1 - w·lexical)(1 - structural).
Of the candidates within a window of each other only the deepest keeps its full lexical
part, so one change is one strong candidate. Each candidate carries both parts
(`lexical`, `structural`) as the evidence behind its score.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence

from quire.shared.ir import WORDS_PER_PAGE, Document, layout_words
from quire.shared.plan import Candidate, ReviewTask
from quire.workers.boundaries.candidates import numbering_depth, plain_text
from quire.workers.boundaries.tokens import Vocabulary, stop_words
from quire.workers.boundaries.tokens import stem as stem  # re-exported for the analysis code

WINDOWS = (600, 1200)  # content tokens per side (~1,200 and ~2,400 words of English prose)
IDF_BLOCK_TOKENS = 400  # the "documents" that inverse document frequency counts
LEXICAL_WEIGHT = 0.7
SUPPRESSED = 0.5  # factor for a candidate next to a better one of the same change
# Lowest score worth a review: below it a transition is left to the size rules.
MIN_REVIEW_SCORE = 0.35
# By default about one review per this many pages (the strongest candidates).
REVIEW_EVERY_PAGES = 3.0

_HEADING_STRENGTH = {1: 0.75, 2: 0.6, 3: 0.45, 4: 0.3}
_NUMBER_STRENGTH = {1: 0.6, 2: 0.45, 3: 0.3}
STOP_WORDS = stop_words("en")  # the analysis code's key terms use the same list


def term_stream(doc: Document) -> tuple[list[int], list[int], int]:
    """Every element's content tokens as ids in one stream, the stream position after each
    element, and the vocabulary size."""
    vocab = Vocabulary()
    stream: list[int] = []
    ends: list[int] = []
    for el in doc.elements:
        stream.extend(vocab.token_ids(plain_text(el)))
        ends.append(len(stream))
    return stream, ends, len(vocab)


def idf_weights(stream: Sequence[int], size: int, block: int = IDF_BLOCK_TOKENS) -> list[float]:
    """log((blocks + 1) / (blocks containing the term + 1)), blocks of `block` tokens."""
    df = [0] * size
    blocks = 0
    for i in range(0, len(stream), block):
        blocks += 1
        for t in set(stream[i : i + block]):
            df[t] += 1
    return [math.log((blocks + 1) / (d + 1)) for d in df]


def cohesion_curve(doc: Document, window: int = WINDOWS[0]) -> tuple[list[float], list[int]]:
    """Cosine similarity of the windows before/after each gap, and each gap's token position.

    Gap g lies between elements g and g+1; a side's vector is sqrt(count x idf) per term.
    """
    stream, ends, size = term_stream(doc)
    return _cohesion(stream, ends, idf_weights(stream, size), window), ends[:-1]


def _cohesion(
    stream: Sequence[int], ends: Sequence[int], idf: Sequence[float], window: int
) -> list[float]:
    """The sums (dot product, squared norms) are updated as tokens enter and leave the
    windows: each token does so once per window, so the cost is O(tokens)."""
    size = len(idf)
    # A count reaches the window plus the longest element (whose tokens enter the right
    # window before they cross the gap): a 600-token window met a table repeating one
    # word 1,521 times in gammu's manual (its general index, one table).
    longest = max((e - s for s, e in zip([0, *ends], ends, strict=False)), default=0)
    roots = [math.sqrt(c) for c in range(longest + 2 * window + 2)]
    left = [0] * size
    right = [0] * size
    dot = nl2 = nr2 = 0.0
    n_tok = len(stream)
    # Current windows: left = stream[a:p], right = stream[p:b]
    a = p = b = 0
    cohesion: list[float] = []
    for g in range(len(ends) - 1):
        q = ends[g]
        qa, qb = max(0, q - window), min(n_tok, q + window)
        for t in stream[b:qb]:  # enters the right window
            c, w = right[t], idf[t]
            dot += w * roots[left[t]] * (roots[c + 1] - roots[c])
            nr2 += w  # (sqrt(w (c + 1)))^2 - (sqrt(w c))^2 = w
            right[t] = c + 1
        b = max(b, qb)
        for t in stream[p:q]:  # crosses the gap: right -> left
            c, k, w = right[t], left[t], idf[t]
            dot += w * (roots[c - 1] * roots[k + 1] - roots[c] * roots[k])
            nr2 -= w
            nl2 += w
            right[t], left[t] = c - 1, k + 1
        for t in stream[a:qa]:  # leaves the left window
            k, w = left[t], idf[t]
            dot -= w * roots[right[t]] * (roots[k] - roots[k - 1])
            nl2 -= w
            left[t] = k - 1
        a, p = max(a, qa), q
        cohesion.append(dot / math.sqrt(nl2 * nr2) if nl2 > 1e-9 and nr2 > 1e-9 else 0.0)
    return cohesion


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


def relative_depths(
    cohesion: Sequence[float], positions: Sequence[int], window: int, tokens: int
) -> list[float]:
    """Each gap's dip below the highest cohesion within `window` tokens on either side, as
    a share of those peaks (0..1), scaled down where a side has less than a window of the
    `tokens` in the document (its ends: there the curve compares scraps)."""
    peak_left = _sliding_max(cohesion, positions, window, backwards=False)
    peak_right = _sliding_max(cohesion, positions, window, backwards=True)
    out: list[float] = []
    for c, pl, pr, q in zip(cohesion, peak_left, peak_right, positions, strict=True):
        depth = ((pl - c) + (pr - c)) / (pl + pr) if pl + pr > 0 else 0.0
        out.append(depth * min(1.0, q / window, (tokens - q) / window))
    return out


def lexical_change(
    doc: Document, windows: Sequence[int] = WINDOWS
) -> tuple[list[float], list[int]]:
    """The lexical evidence of a topic change at each gap (the mean relative depth over the
    window sizes), and each gap's token position."""
    stream, ends, size = term_stream(doc)
    idf = idf_weights(stream, size)
    positions = ends[:-1]
    total = [0.0] * len(positions)
    for window in windows:
        depths = relative_depths(
            _cohesion(stream, ends, idf, window), positions, window, len(stream)
        )
        total = [t + d / len(windows) for t, d in zip(total, depths, strict=True)]
    return total, positions


def structural_score(c: Candidate) -> float:
    """How strongly the document's own structure marks this cut, in [0, 0.95]."""
    heading = _HEADING_STRENGTH.get(c.heading_level or 0, 0.2 if c.heading_level else 0.0)
    depth = numbering_depth(c.numbering)
    number = _NUMBER_STRENGTH.get(depth or 0, 0.2 if depth else 0.0)
    if c.numbering and depth == 1 and (" " in c.numbering or not c.numbering.isascii()):
        # a named top-level part: "Chapter 4", "Part II", "第四章"
        number = 0.7
    value = max(heading, number)
    if heading and number:
        value += 0.1
    if c.ends_type != c.begins_type:
        value += 0.05
    return min(0.95, value)


def score_candidates(
    doc: Document, candidates: Sequence[Candidate], windows: Sequence[int] = WINDOWS
) -> list[Candidate]:
    """Candidates with `score` in [0, 1] filled in (higher = stronger topic change), and
    its lexical and structural parts as evidence."""
    if not candidates:
        return []
    change, positions = lexical_change(doc, windows)
    gap_of = {e.id: i for i, e in enumerate(doc.elements)}
    gaps = [gap_of[c.after_id] for c in candidates]
    lexical = [min(1.0, change[g]) for g in gaps]
    # One topic change lowers the cohesion curve over every gap within a window of it; only
    # the deepest candidate of such a stretch keeps its full lexical evidence, so that one
    # change is one strong candidate (reviewed once, not three times) and does not crowd
    # out others. Structure is exact where it is, so it is never suppressed.
    cand_pos = [positions[g] for g in gaps]
    reach = min(windows)
    best_left = _sliding_max(lexical, cand_pos, reach, backwards=False)
    best_right = _sliding_max(lexical, cand_pos, reach, backwards=True)
    out: list[Candidate] = []
    for i, c in enumerate(candidates):
        lex = lexical[i]
        if lex < max(best_left[i], best_right[i]):
            lex *= SUPPRESSED
        struct = structural_score(c)
        score = 1.0 - (1.0 - LEXICAL_WEIGHT * lex) * (1.0 - struct)
        fields = {
            **c.__dict__,
            "score": _unit(score),
            "lexical": _unit(lex),
            "structural": _unit(struct),
        }
        out.append(Candidate.model_construct(**fields))  # validated already: no copy cost
    return out


def _unit(x: float) -> float:
    return round(min(1.0, max(0.0, x)), 4)


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
                words_basis=doc.page_basis == "words",
            )
        )
    return tasks


def document_pages(doc: Document) -> float:
    if not doc.elements:
        return 0.0
    if doc.page_basis == "words":
        return sum(layout_words(e) for e in doc.elements) / WORDS_PER_PAGE
    return float(doc.elements[-1].page_last - doc.elements[0].page_first + 1)
