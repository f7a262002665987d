"""Boundary planning data: safe cut candidates, topic-review votes, boundaries and chunks.

Pure data. The logic lives in `workers.boundaries` (candidates, scoring, planner) and
`workers.review` (reviewer backends).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from quire.shared.ir import ElementType
from quire.shared.pages import PageRange


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Candidate(_Model):
    """A structurally safe cut point: between `after_id` and `before_id`."""

    after_id: str
    before_id: str
    ends_type: ElementType
    begins_type: ElementType
    left_snippet: str
    right_snippet: str
    cum_pages: float  # size of the document up to the cut, in pages (PDF pages or words/400)
    cum_words: int
    heading_level: int | None = None  # level of the heading that begins after the cut
    numbering: str | None = None  # e.g. "Chapter 3", "2.4", when the next heading/para has it
    score: float = 0.0  # change-point score in [0, 1]; higher = stronger topic change
    # The score's evidence (workers.boundaries.scoring), None before scoring: how sharply
    # the vocabulary changes here (cohesion dip), and how strongly the structure marks it.
    lexical: float | None = None
    structural: float | None = None


ReviewRole = Literal["transition", "continuity", "adjudicator"]
REVIEW_ROLES: tuple[ReviewRole, ...] = ("transition", "continuity", "adjudicator")
Verdict = Literal["new_topic", "same_topic"]


class ReviewTask(_Model):
    """One candidate transition to review, with the element ids visible on each side."""

    doc_id: str
    after_id: str
    left_ids: list[str]
    right_ids: list[str]
    score: float
    words_basis: bool = False  # the document's pages are estimated from its words


class ReviewVote(_Model):
    """One reviewer's strict JSON answer, validated against the task's sides."""

    after_id: str
    role: ReviewRole
    verdict: Verdict
    confidence: float = Field(ge=0.0, le=1.0)
    evidence_left: list[str]
    evidence_right: list[str]
    reason: str = Field(min_length=1)
    backend: str
    # set when the run's LLM backend gave no valid vote and the heuristic voted instead
    backend_fallback: str | None = None


class ReviewFailure(_Model):
    after_id: str
    role: ReviewRole
    backend: str
    error: str


class ReviewOutcome(_Model):
    """All votes on one transition and what they add up to."""

    after_id: str
    votes: list[ReviewVote] = []
    failures: list[ReviewFailure] = []
    decision: Literal["confirmed_change", "continuity", "uncertain", "failed"]


ChunkKind = Literal["study", "front_matter", "back_matter"]
CHUNK_KINDS: tuple[ChunkKind, ...] = ("study", "front_matter", "back_matter")


class Alternative(_Model):
    """The best other place for a cut, and why the plan did not take it."""

    after_id: str | None  # the candidate the cut would have moved to; None: no cut at all
    page: int  # where the next session would then start (for no cut: where this one does)
    snippet: str  # what would then begin it
    why: str  # what it lacks or costs, e.g. "a level-2 heading; sessions of 3 and 9 pages"
    extra_cost: float  # how much worse the whole plan would be (planner cost units)


class Boundary(_Model):
    """A chosen cut. `after_id` is always a listed safe candidate."""

    after_id: str
    reason: str
    decider: str  # "heuristic", "openai", "anthropic", "command", "agent", "forced", "global"
    evidence: list[str] = []
    revision: int | None = None
    forced: bool = False  # hard cap reached: the next chunk continues this one's concept
    alternative: Alternative | None = None  # the best alternative this cut beat (global plan)
    backend_fallback: str | None = None  # the LLM decider's answer was refused: why


# The preferred session window, in pages: every way in (flags, `quire.split`, the HTTP API,
# MCP) takes its defaults from here through `shared.config.RunChoices`.
MIN_PAGES = 5
MAX_PAGES = 12
# An estimated page count (an HTML, EPUB or DOCX book's, from its words) is good to about
# half a page, and a PDF session counts every page it touches (4.2 pages of text across five
# pages meet a 5-page minimum): an estimated session this close to the minimum meets it, so
# that a book of 4.9-page chapters is planned a chapter a session, as its PDF would be.
ESTIMATE_SLACK = 0.5


# Where a session's size in pages sits against the plan's window: under the minimum, up to
# the preferred maximum, up to the soft maximum (finishing a concept), up to the hard cap,
# or over it. The planner weighs cuts by it; the web marks sessions with it.
PageZone = Literal["below_min", "preferred", "finish", "extended", "over_cap"]


class PlanSettings(_Model):
    min_pages: float = Field(MIN_PAGES, gt=0)
    max_pages: float = MAX_PAGES  # preferred maximum
    soft_max_pages: float = MAX_PAGES + 1  # allowed to finish a concept, with a specific reason
    hard_max_pages: float = 20  # absolute cap: a forced cut happens before this

    @model_validator(mode="after")
    def _ordered(self) -> PlanSettings:
        if not self.min_pages <= self.max_pages <= self.soft_max_pages <= self.hard_max_pages:
            raise ValueError(
                f"session sizes must satisfy minimum <= maximum <= soft maximum <= hard cap; "
                f"got {self.min_pages:g}, {self.max_pages:g}, {self.soft_max_pages:g}, "
                f"{self.hard_max_pages:g} pages"
            )
        return self

    def minimum(self, estimated: bool = False) -> float:
        """The fewest pages of a study session: `min_pages`, less `ESTIMATE_SLACK` where
        pages are `estimated` from words."""
        return self.min_pages - ESTIMATE_SLACK if estimated else self.min_pages

    def zone(self, pages: float, estimated: bool = False) -> PageZone:
        """Where `pages` sits against this window (see PageZone)."""
        if pages < self.minimum(estimated):
            return "below_min"
        if pages <= self.max_pages:
            return "preferred"
        if pages <= self.soft_max_pages:
            return "finish"
        if pages <= self.hard_max_pages:
            return "extended"
        return "over_cap"


KeyTermSource = Literal["index", "glossary", "phrase"]


class KeyTerm(_Model):
    """A term a session teaches: from the author's index or glossary, or, in a book with
    neither, a key phrase chosen against the rest of the book."""

    term: str
    count: int  # index locators (or occurrences) of the term in the session
    weight: float  # how much the term belongs to this session (higher first)
    defining: bool = False  # the index marks a defining occurrence in the session
    source: KeyTermSource = "phrase"


class ChunkPlan(PageRange, _Model):
    number: int  # 1-based
    first_id: str
    last_id: str
    page_first: int
    page_last: int
    pages: float
    words: int
    title: str
    end_reason: str  # why the chunk ends (the boundary's reason, or "end of document")
    end_decider: str
    continues: bool = False  # ends at a forced cut: the next chunk continues its concept
    kind: ChunkKind = "study"  # front and back matter are reference sessions, not study
    end_alternative: str | None = None  # the best other place for its end, and why not there
    key_terms: list[KeyTerm] = []  # what it teaches, in order (never part of its title)


class Plan(_Model):
    doc_id: str
    settings: PlanSettings
    boundaries: list[Boundary]
    chunks: list[ChunkPlan]
