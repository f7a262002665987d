"""Offline, deterministic topic review: a baseline built from a few visible signals.

Signals: the candidate's change-point score, whether the first element after the cut is a
heading (and its level), the lexical overlap of both sides (Jaccard over content words),
and whether the text before the cut ends with a colon (it announces what follows). Each
role weighs them differently, mirroring what the LLM roles are asked to look at. Votes
are plain functions of the input, so the same task always gives byte-identical JSON, and
their reasons say they are a heuristic baseline and quote the signals they used.

The baseline confirms only the starts of major divisions (see major_starts); where the
signals point to a new topic anywhere else, the transition and adjudicator roles abstain
(a vote below the counting confidence) rather than claim that the topic continues.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate

from quire.shared.ir import WORDS_PER_PAGE, Element, layout_words
from quire.shared.plan import MIN_PAGES, ReviewRole, ReviewTask, ReviewVote
from quire.shared.text import MARKS
from quire.workers.boundaries.scoring import LEXICAL_WEIGHT
from quire.workers.review.prompts import ReviewAnswer, side_elements, validate_answer

NAME = "heuristic"
# Calibrated on r-intro.pdf (pages 11-60, windows of 3 text blocks per side): Jaccard
# overlap within a chapter has deciles 0.03 .. 0.17 (median 0.08); across chapter starts
# it is 0.00 .. 0.09 (median 0.02).
OVERLAP_LOW = 0.04  # below: the sides share little vocabulary
OVERLAP_HIGH = 0.12  # at or above: the sides clearly talk about the same things
# How strongly a heading of each level announces a new topic on its own.
HEADING_STRENGTH = {1: 0.9, 2: 0.8, 3: 0.65, 4: 0.5, 5: 0.45, 6: 0.4}
# A confirmed change is never crossed by the planner, so the baseline confirms only the
# starts of major divisions (chapters of a textbook, not its sections) that are at least a
# minimum session long (the default minimum) on both sides; see major_starts.
MIN_SESSION_PAGES = MIN_PAGES
MINOR_CAP = 0.45  # without a major heading no role confirms a new topic (see heuristic_vote)
ABSTAIN = 0.4  # confidence of a vote that does not count (combine: below 0.5)

_WORD = re.compile(rf"(?:[^\W\d_]|[{MARKS}]){{3,}}")
_STOP_WORDS = """
the and for are but not you all any can had her was one our out has him his how its may
new now see two way who did get let put say she too use this that with have from they will
would there their what about which when make like into than them then some these could
other more only also such each most many much very been were where while after before
between both because through over under same used using given thus hence here show shows
shown above below following example figure table section chapter page note see
"""
_STOP = frozenset(_STOP_WORDS.split())


def _content_words(elements: list[Element]) -> Counter[str]:
    words: Counter[str] = Counter()
    for element in elements:
        words.update(w for w in (m.lower() for m in _WORD.findall(element.text)) if w not in _STOP)
    return words


def _heading_title(element: Element) -> str:
    title = element.text.lstrip("#").strip().splitlines()[0] if element.text.strip() else ""
    return title if len(title) <= 60 else title[:57] + "..."


def _quoted(text: str) -> str:
    """Book text in single quotes, its own straight quotes made typographic: the validator
    sets quoted text aside (`prompts.generic_reason`), and a quote inside it paired wrongly
    (numba's heading "(<class 'numba.core.types…'>, '__hash__')" left "<class >" unquoted,
    a "template placeholder" that failed the document)."""
    return "'" + text.replace("'", "’") + "'"


_MAJOR_CACHE: dict[tuple[int, bool], tuple[dict[str, Element], frozenset[str]]] = {}


def major_starts(elements: dict[str, Element], words_basis: bool = False) -> frozenset[str]:
    """Ids of the headings that start a major division worth confirming: at the major
    level (the deepest whose headings are no more frequent than one per MIN_SESSION_PAGES
    pages), with at least MIN_SESSION_PAGES pages on each side up to the neighbouring major
    headings. Short chapters are left for the size rules to group, never forced apart.
    Pages are the span a stretch touches, or estimated (`words_basis`) as the planner
    measures them: a 3.4-page chapter touches 5 estimated pages."""
    key = (id(elements), words_basis)
    cached = _MAJOR_CACHE.get(key)
    if cached is not None and cached[0] is elements:
        return cached[1]
    order = list(elements.values())
    if words_basis:
        cum = list(accumulate((layout_words(e) for e in order), initial=0))
        pages = cum[-1] / WORDS_PER_PAGE

        def size(a: int, b: int) -> float:  # elements a..b-1
            return (cum[b] - cum[a]) / WORDS_PER_PAGE
    else:
        pages = max((e.page_last for e in order), default=1)

        def size(a: int, b: int) -> float:
            return order[b - 1].page_last - order[a].page_first + 1

    levels = Counter(e.level for e in order if e.type == "heading" and e.level)
    budget = max(2, int(pages // MIN_SESSION_PAGES))
    major, total = 0, 0
    for level in sorted(levels):
        total += levels[level]
        if total > budget:
            break
        major = level
    heads = [i for i, e in enumerate(order) if e.type == "heading" and e.level and e.level <= major]
    bounds = [0, *heads, len(order)]
    starts = frozenset(
        order[h].id
        for k, h in enumerate(heads, 1)
        if h > 0
        and size(bounds[k - 1], h) >= MIN_SESSION_PAGES
        and size(h, bounds[k + 1]) >= MIN_SESSION_PAGES
    )
    _MAJOR_CACHE.clear()  # one document at a time; never keep a stale one alive
    _MAJOR_CACHE[key] = (elements, starts)
    return starts


@dataclass(frozen=True)
class Signals:
    score: float
    heading_level: int | None
    heading_title: str
    overlap: float
    shared_terms: tuple[str, ...]
    ends_with_colon: bool
    major: bool  # a heading starting a major division starts here (see major_starts)

    @classmethod
    def of(cls, task: ReviewTask, elements: dict[str, Element]) -> Signals:
        left = side_elements(task.left_ids, elements)
        right = side_elements(task.right_ids, elements)
        first = right[0] if right else None
        lw, rw = _content_words(left), _content_words(right)
        union = set(lw) | set(rw)
        shared = set(lw) & set(rw)
        overlap = len(shared) / len(union) if union else 0.0
        top = sorted(shared, key=lambda w: (-(lw[w] + rw[w]), w))[:3]
        last_text = left[-1].text.rstrip() if left else ""
        return cls(
            score=min(1.0, max(0.0, task.score)),
            heading_level=first.level if first is not None and first.type == "heading" else None,
            heading_title=_heading_title(first) if first is not None else "",
            overlap=round(overlap, 4),
            shared_terms=tuple(top),
            ends_with_colon=last_text.endswith(":"),
            major=first is not None and first.id in major_starts(elements, task.words_basis),
        )

    def heading_strength(self) -> float:
        return HEADING_STRENGTH.get(self.heading_level or 0, 0.0)

    def lexical_change(self) -> float:
        """1 when the sides share no vocabulary, 0 at OVERLAP_HIGH or more."""
        return max(0.0, 1.0 - self.overlap / OVERLAP_HIGH)

    def text_change(self) -> float:
        """The text's own evidence of a change, headings aside: mostly the change-point
        score (a clean vocabulary switch without a heading scores about LEXICAL_WEIGHT),
        and the overlap of the few elements on each side (noisy: within one topic a tenth
        of such pairs share under 3 % of their words)."""
        return 0.7 * min(1.0, self.score / LEXICAL_WEIGHT) + 0.3 * self.lexical_change()


def _p_new_topic(role: ReviewRole, s: Signals) -> float:
    """The role's belief that a new topic starts, in [0, 1], before the minor cap.

    Every role counts the text's own evidence (`text_change`): where no heading stands, a
    change score near the scorer's clean-switch level with sides that share almost no
    vocabulary is a new topic, never "the same topic continues" (which the planner would
    take as a reason to cut elsewhere)."""
    if role == "transition":  # what starts here: headings and the change-point score
        p = max(s.heading_strength(), s.text_change())
    elif role == "continuity":  # what carries over: shared vocabulary first
        p = 0.6 * s.lexical_change() + 0.4 * s.score
        if s.heading_level is not None and s.heading_level <= 2:
            p += 0.2
    else:  # adjudicator: all signals together
        p = max(0.4 * s.heading_strength() + 0.6 * s.text_change(), s.text_change())
        if s.heading_level is not None:
            p = max(p, 0.5 * s.heading_strength() + 0.3)
    if s.ends_with_colon:
        # "as follows:" announces what comes next, unless what comes next shares no
        # vocabulary with it (then the announced text was not this)
        p -= 0.3 * (1.0 - s.lexical_change())
    return min(1.0, max(0.0, p))


def _reason(role: ReviewRole, s: Signals, new_topic: bool, abstains: bool = False) -> str:
    parts = [f"heuristic baseline ({role})"]
    if s.heading_level is not None:
        rank = "major" if s.major else "minor"
        title = _quoted(s.heading_title)
        parts.append(f"{rank} heading {title} (level {s.heading_level}) starts here")
    else:
        parts.append("no heading starts here")
    parts.append(f"change-point score {s.score:.2f}")
    relation = "<" if s.overlap < OVERLAP_LOW else ">=" if s.overlap >= OVERLAP_HIGH else "between"
    if relation == "between":
        parts.append(f"lexical overlap {s.overlap:.3f} between {OVERLAP_LOW} and {OVERLAP_HIGH}")
    else:
        bound = OVERLAP_LOW if relation == "<" else OVERLAP_HIGH
        parts.append(f"lexical overlap {s.overlap:.3f} {relation} {bound}")
    if s.shared_terms:  # quoted: the book's words ("todo", "xxx") are evidence, not a template
        parts.append("shared terms: " + ", ".join(map(_quoted, s.shared_terms)))
    if s.ends_with_colon:
        parts.append("text before the cut ends with ':'")
    if abstains:
        verdict = "looks like a new topic, but the baseline confirms only major divisions: abstains"
    else:
        verdict = "new topic" if new_topic else "same topic continues"
    return "; ".join(parts) + f" -> {verdict}"


# The signals of the tasks voted on lately: the three roles of a task share them (their
# words counted once, not three times). Keyed by the task object, kept with it so that a
# recycled id cannot match; a review's tasks are voted on in order, so a few suffice.
_SIGNALS: dict[int, tuple[ReviewTask, dict[str, Element], Signals]] = {}
_SIGNALS_KEPT = 32


def _signals(task: ReviewTask, elements: dict[str, Element]) -> Signals:
    kept = _SIGNALS.get(id(task))
    if kept is not None and kept[0] is task and kept[1] is elements:
        return kept[2]
    signals = Signals.of(task, elements)
    if len(_SIGNALS) >= _SIGNALS_KEPT:
        _SIGNALS.clear()
    _SIGNALS[id(task)] = (task, elements, signals)
    return signals


def heuristic_vote(task: ReviewTask, role: ReviewRole, elements: dict[str, Element]) -> ReviewVote:
    signals = _signals(task, elements)
    p = _p_new_topic(role, signals)
    capped = not signals.major and role != "continuity"
    # Where the signals say "new topic" but no major heading starts here, the cap keeps the
    # baseline from confirming it; voting "same topic" there instead would be a confident
    # claim against the evidence (a planner then avoids the best cut), so the role abstains.
    abstains = capped and p >= 0.5
    if capped:
        p = min(p, MINOR_CAP)
    new_topic = abstains or p >= 0.5
    answer = ReviewAnswer(
        verdict="new_topic" if new_topic else "same_topic",
        confidence=ABSTAIN if abstains else round(min(0.95, 0.5 + abs(p - 0.5)), 2),
        evidence_left=task.left_ids[-1:],  # the element that ends at the cut
        evidence_right=task.right_ids[:1],  # the element that starts after it
        reason=_reason(role, signals, new_topic, abstains),
    )
    # The same rules as for LLM answers: a heuristic vote is never exempt from validation.
    return validate_answer(answer, task, role, NAME)


class HeuristicReviewer:
    name = NAME

    def vote(self, task: ReviewTask, role: ReviewRole, elements: dict[str, Element]) -> ReviewVote:
        return heuristic_vote(task, role, elements)
