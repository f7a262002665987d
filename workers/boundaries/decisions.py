"""Boundary decisions: what a decider sees, what it answers, and the rules every answer obeys.

The planner builds a `BoundaryContext` for the chunk being planned (where it starts, the safe
candidates it may end at, their change scores and reviews, the size rules). A decider — the
deterministic `HeuristicDecider`, an LLM, or an external agent through the CLI — answers
with a `Decision`. `validate_decision` is the single gate all of them pass through:

- "cut" only at a listed candidate;
- a cut beyond the preferred maximum (the "finish the concept" page) needs evidence ids;
- a chunk beyond `soft_max_pages` needs at least two independent continuity reviews
  (same_topic votes from different roles) on a skipped candidate past the preferred
  maximum, cited in the evidence — unless no shorter cut exists at all;
- "extend" (no cut in this window: the hard cap then forces one, after the cited
  continuity review) needs the same support, and is refused when a confirmed topic change
  lies in the window or the window reaches the end of the document;
- reasons must be specific: empty, short, templated or boilerplate reasons are refused.
"""

from __future__ import annotations

import re
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from quire.shared.errors import ValidationFailedError
from quire.shared.ir import ElementType
from quire.shared.plan import Alternative, PageZone, PlanSettings, ReviewRole

Zone = PageZone
MIN_REASON_CHARS = 15


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ContextCandidate(_Model):
    """A cut the decider may choose, seen from the chunk's start."""

    after_id: str
    before_id: str
    pages: float  # size of the chunk if it ends here
    words: int
    zone: Zone
    score: float
    ends_type: ElementType
    begins_type: ElementType
    heading_level: int | None = None
    numbering: str | None = None
    left_snippet: str
    right_snippet: str
    page_break: bool = False  # the next element starts on a new page (PDF: no shared page)
    review: Literal["confirmed_change", "continuity", "uncertain", "failed"] | None = None
    change_roles: list[ReviewRole] = []  # roles that voted new_topic
    continuity_roles: list[ReviewRole] = []  # roles that voted same_topic
    review_evidence: list[str] = []  # element ids the votes cited


class Recommendation(_Model):
    """The global plan's choice for this boundary: where the optimal plan of the whole
    document ends this chunk, why, and the best alternative it beat."""

    after_id: str
    reason: str
    evidence: list[str] = []
    alternative: Alternative | None = None


class BoundaryContext(_Model):
    """Everything needed to decide where the chunk starting at `start_id` ends."""

    doc_id: str
    page_basis: Literal["pdf", "words", "print"]
    chunk_number: int
    start_id: str
    start_page: int
    last_visible_id: str  # last element id a decision may cite as evidence
    remaining_pages: float  # from the start to the end of the document
    reaches_end: bool  # the document ends within the hard cap
    must_cut_by: str | None = None  # first confirmed topic change: never crossed
    may_extend: bool  # whether "extend" can be valid (it still needs evidence)
    rules: PlanSettings
    candidates: list[ContextCandidate]
    # the global plan's cut here (None: it makes the rest of the document one chunk)
    recommendation: Recommendation | None = None

    def candidate(self, after_id: str) -> ContextCandidate | None:
        return next((c for c in self.candidates if c.after_id == after_id), None)

    def shortlist(self, k: int = 12) -> list[ContextCandidate]:
        """The k most plausible cuts (for a prompt), in document order: the best-ranked
        allowed cuts (see `rank_cuts`), always with the confirmed change and the global
        plan's choice."""
        keep = {c.after_id for _, c, _ in rank_cuts(self)[:k]}
        if self.must_cut_by:
            keep.add(self.must_cut_by)
        if self.recommendation:
            keep.add(self.recommendation.after_id)
        return [c for c in self.candidates if c.after_id in keep]


class Decision(_Model):
    action: Literal["cut", "extend"]
    element_id: str | None = None  # the candidate's after_id, for "cut"
    reason: str
    evidence: list[str] = []
    decider: str
    start_id: str | None = None  # the context it answers; checked when given
    backend_fallback: str | None = None  # the LLM's answer was refused: why


class Decider(Protocol):
    name: str

    def decide(self, context: BoundaryContext) -> Decision: ...


# ---------------------------------------------------------------------------------------
# Validation

_GENERIC_REASONS = {
    "auto cut",
    "autocut",
    "auto",
    "cut",
    "cut here",
    "cut at this point",
    "split",
    "split here",
    "extend",
    "extended",
    "continue",
    "continues",
    "continuation",
    "boundary",
    "chunk boundary",
    "natural break",
    "natural boundary",
    "good place to cut",
    "good breaking point",
    "topic change",
    "new topic",
    "new section",
    "section break",
    "end of section",
    "same topic",
    "none",
    "n a",
    "na",
    "no reason",
    "reason",
    "ok",
}
# Words that say nothing about this particular place in this document.
_GENERIC_WORDS = {
    "a",
    "an",
    "the",
    "this",
    "that",
    "here",
    "there",
    "it",
    "is",
    "to",
    "of",
    "at",
    "in",
    "on",
    "and",
    "or",
    "as",
    "be",
    "for",
    "we",
    "i",
    "cut",
    "cuts",
    "cutting",
    "split",
    "splitting",
    "chunk",
    "chunks",
    "boundary",
    "break",
    "breaking",
    "point",
    "place",
    "good",
    "natural",
    "nice",
    "best",
    "appropriate",
    "reasonable",
    "logical",
    "topic",
    "topics",
    "change",
    "changes",
    "new",
    "section",
    "sections",
    "end",
    "ends",
    "start",
    "starts",
    "next",
    "because",
    "seems",
    "looks",
    "like",
    "extend",
    "extending",
    "continue",
    "continues",
    "same",
    "content",
    "text",
    "document",
    "part",
    "here's",
    "should",
    "would",
    "will",
    "do",
    "auto",
    "automatic",
    "automatically",
    "decision",
    "reason",
    "so",
    "make",
    "makes",
    "sense",
    "clear",
    "clearly",
    "ok",
    "okay",
    "fine",
}
_TEMPLATE = re.compile(
    # placeholders such as {reason} or <title>; quoted code like "{ x:=0 }" is not one
    r"\{\s*[a-z_][\w ]{0,30}\}|<[a-z_ ]+>|\[(?:reason|title|heading|n|x)\]|%[sd]|\$\{"
    r"|\bTODO\b|\bTBD\b"
    r"|\blorem ipsum\b|\bxxx+\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[\w']+", re.UNICODE)


def check_reason(reason: str) -> str:
    """The reason, stripped, if it says something specific; ValidationFailedError if not."""
    text = " ".join(reason.split())
    if len(text) < MIN_REASON_CHARS:
        raise ValidationFailedError(
            f"reason {text!r} is too short: say what ends and what begins here"
        )
    if _TEMPLATE.search(text):
        raise ValidationFailedError(f"reason {text!r} looks like an unfilled template")
    if text.endswith(("...", "…")):
        raise ValidationFailedError(f"reason {text!r} is cut off: finish the sentence")
    words = [w.lower() for w in _WORD.findall(text)]
    if " ".join(words) in _GENERIC_REASONS or all(w in _GENERIC_WORDS for w in words):
        raise ValidationFailedError(
            f"reason {text!r} is generic: name the heading, topic, score or size involved"
        )
    return text


def _ordinal(element_id: str) -> int | None:
    m = re.fullmatch(r"el-(\d+)", element_id)
    return int(m.group(1)) if m else None


def _visible(context: BoundaryContext, element_id: str) -> bool:
    known = {context.start_id, context.last_visible_id}
    for c in context.candidates:
        known.update((c.after_id, c.before_id), c.review_evidence)
    if element_id in known:
        return True
    lo, hi, x = _ordinal(context.start_id), _ordinal(context.last_visible_id), _ordinal(element_id)
    return lo is not None and hi is not None and x is not None and lo <= x <= hi


def continuity_support(
    context: BoundaryContext, before: int | None = None
) -> list[ContextCandidate]:
    """Skipped candidates past the preferred maximum (among the first `before`) that two
    or more reviewer roles judged to continue the same topic."""
    pool = context.candidates if before is None else context.candidates[:before]
    return [
        c for c in pool if c.pages > context.rules.max_pages and len(set(c.continuity_roles)) >= 2
    ]


def _cites(evidence: list[str], support: list[ContextCandidate]) -> bool:
    cited = set(evidence)
    return any(cited & {k.after_id, k.before_id, *k.review_evidence} for k in support)


def validate_decision(context: BoundaryContext, decision: Decision) -> Decision:
    """The decision, if it obeys the rules above; ValidationFailedError (with what to fix)
    if it does not."""
    if not decision.decider.strip():
        raise ValidationFailedError("decision has no decider name")
    if decision.start_id is not None and decision.start_id != context.start_id:
        raise ValidationFailedError(
            f"decision answers the chunk starting at {decision.start_id}, "
            f"but the chunk being planned starts at {context.start_id}"
        )
    reason = check_reason(decision.reason)
    for eid in decision.evidence:
        if not _visible(context, eid):
            raise ValidationFailedError(f"evidence id {eid!r} is not in this window")
    rules = context.rules
    if decision.action == "cut":
        if decision.element_id is None:
            raise ValidationFailedError("a cut needs element_id (a listed candidate)")
        pos = next(
            (i for i, c in enumerate(context.candidates) if c.after_id == decision.element_id), None
        )
        if pos is None:
            raise ValidationFailedError(
                f"{decision.element_id} is not a listed safe candidate of this window"
            )
        chosen = context.candidates[pos]
        if chosen.pages > rules.max_pages and not decision.evidence:
            raise ValidationFailedError(
                f"a {chosen.pages:g}-page chunk is over the preferred {rules.max_pages:g}: "
                "cite the evidence (element ids) that the concept ends here"
            )
        if chosen.pages > rules.soft_max_pages and pos > 0:
            support = continuity_support(context, before=pos)
            if not support:
                raise ValidationFailedError(
                    f"a {chosen.pages:g}-page chunk is over {rules.soft_max_pages:g} pages: "
                    "it needs two continuity reviews (different roles) on a skipped "
                    "candidate past the preferred maximum, and there are none"
                )
            if not _cites(decision.evidence, support):
                raise ValidationFailedError(
                    "cite the continuity review supporting this long chunk: one of "
                    + ", ".join(k.after_id for k in support)
                )
    else:
        if decision.element_id is not None:
            raise ValidationFailedError("extend takes no element_id")
        if context.must_cut_by:
            raise ValidationFailedError(
                f"a confirmed topic change after {context.must_cut_by} lies in this window; "
                "it cannot be crossed: cut at or before it"
            )
        if context.reaches_end:
            raise ValidationFailedError(
                f"the rest of the document ({context.remaining_pages:g} pages) is over the "
                f"preferred {rules.max_pages:g}: choose a cut"
            )
        if not decision.evidence:
            raise ValidationFailedError("extend needs evidence ids")
        if len(context.candidates) > 1:  # with a single candidate, extend = cut there
            support = continuity_support(context)
            if not support or not _cites(decision.evidence, support):
                raise ValidationFailedError(
                    f"extending past {rules.soft_max_pages:g} pages needs two continuity "
                    "reviews (different roles) on a candidate past the preferred maximum, "
                    "cited in the evidence"
                    + (": one of " + ", ".join(k.after_id for k in support) if support else "")
                )
    return decision.model_copy(update={"reason": reason})


# ---------------------------------------------------------------------------------------
# The deterministic decider

_HEADING_BONUS = {1: 0.6, 2: 0.4, 3: 0.2, 4: 0.1}
_ZONE_PENALTY: dict[Zone, float] = {
    "below_min": 1.5,
    "preferred": 0.0,
    "finish": 0.5,
    "extended": 2.0,
    "over_cap": 3.0,
}


def _strength(c: ContextCandidate) -> float:
    """How good a place to end a chunk this is, ignoring size."""
    value = c.score + _HEADING_BONUS.get(c.heading_level or 0, 0.05 if c.heading_level else 0)
    if c.numbering:
        value += 0.3 if "." not in c.numbering else 0.15
    if c.review == "confirmed_change":
        value += 1.5
    elif c.review == "continuity":
        value -= 0.8
    return value


def _pages_text(pages: float, basis: str) -> str:
    return f"{pages:.0f}" if basis != "words" else f"{pages:.1f}"


def rank_cuts(context: BoundaryContext) -> list[tuple[float, ContextCandidate, list[str]]]:
    """The cuts the rules allow without further evidence, best first, as (utility,
    candidate, supporting continuity-review ids). Utility: the candidate's strength
    (confirmed change, heading level, numbering, change score), minus a penalty for its
    size zone, favouring a size near the middle of the preferred range, page breaks, and
    not leaving a tiny last chunk."""
    rules = context.rules
    target = (rules.min_pages + rules.max_pages) / 2 + 1
    ranked: list[tuple[float, float, int, ContextCandidate, list[str]]] = []
    for pos, c in enumerate(context.candidates):
        support: list[str] = []
        if c.pages > rules.soft_max_pages and pos > 0:
            found = continuity_support(context, before=pos)
            if not found:
                continue
            support = [found[-1].after_id]
        utility = _strength(c) - _ZONE_PENALTY[c.zone]
        if c.zone == "preferred":
            utility -= 0.03 * abs(c.pages - target)
        if c.page_break:  # PDF chunks then share no page
            utility += 0.15
        if c.review == "confirmed_change" and c.zone == "below_min":
            utility += _ZONE_PENALTY["below_min"]  # the rule wins over the minimum
        if context.reaches_end:
            tail = context.remaining_pages - c.pages
            if tail < rules.min_pages:
                utility -= 0.8 * (1 - tail / rules.min_pages)
        ranked.append((round(utility, 6), c.pages, -pos, c, support))
    ranked.sort(key=lambda r: (r[0], r[1], r[2]), reverse=True)
    return [(u, c, support) for u, _, _, c, support in ranked]


class HeuristicDecider:
    """Deterministic: confirmed changes first, then higher headings and higher change
    scores, near the preferred size; never an unsupported long chunk."""

    name = "heuristic"

    def decide(self, context: BoundaryContext) -> Decision:
        rules = context.rules
        ranked = rank_cuts(context)
        assert ranked  # the first candidate of a window is always allowed
        utility, c, support = ranked[0]
        if context.may_extend and utility < -1.0:
            found = continuity_support(context)
            if found:
                k = found[-1]
                return Decision(
                    action="extend",
                    decider=self.name,
                    start_id=context.start_id,
                    reason=(
                        f"no good cut within {rules.soft_max_pages:g} pages (best utility "
                        f"{utility:.2f}); reviewers ({', '.join(k.continuity_roles)}) "
                        f"judged the text after {k.after_id} to continue the same topic"
                    ),
                    evidence=[k.after_id, *k.review_evidence],
                )
        return Decision(
            action="cut",
            element_id=c.after_id,
            decider=self.name,
            start_id=context.start_id,
            reason=self._reason(context, c, support),
            evidence=[c.after_id, c.before_id, *support],
        )

    @staticmethod
    def _reason(context: BoundaryContext, c: ContextCandidate, support: list[str]) -> str:
        rules = context.rules
        title = c.right_snippet[:70] + ("…" if len(c.right_snippet) > 70 else "")
        parts: list[str] = []
        if c.review == "confirmed_change":
            roles = f" ({', '.join(c.change_roles)})" if c.change_roles else ""
            parts.append(f"reviewers confirmed a topic change{roles}")
        if c.heading_level:
            parts.append(f"level-{c.heading_level} heading '{title}' begins")
        elif c.numbering:
            parts.append(f"numbered part '{c.numbering}' begins: '{title}'")
        else:
            parts.append(f"{c.begins_type} '{title}' follows a {c.ends_type}")
        parts.append(f"change score {c.score:.2f}")
        size = _pages_text(c.pages, context.page_basis)
        if c.zone == "below_min":
            why = (
                "a confirmed change"
                if c.review == "confirmed_change"
                else "no better safe cut within the size rules"
            )
            parts.append(f"chunk {size} pages, under the {rules.min_pages:g}-page minimum ({why})")
        elif c.zone == "finish":
            parts.append(f"chunk {size} pages: the extra page finishes the part before it")
        elif c.zone == "extended":
            parts.append(f"chunk {size} pages, continuity reviewed at {', '.join(support)}")
        elif c.zone == "over_cap":
            parts.append(f"chunk {size} pages: nothing in it can be cut safely")
        else:
            parts.append(f"chunk {size} pages")
        return "; ".join(parts)
