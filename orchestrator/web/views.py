"""What the pages show, computed from the API's models: pure functions, no I/O.

The page strip lays the whole book out page by page, grouped into sessions, marking chapter
starts (top-level outline entries), pages without text and pages with verification findings.
A page shared by two sessions (a cut in the middle of a page) appears in both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import get_args
from urllib.parse import urlencode

from quire.orchestrator.web.models import PagesOut, PlanOut, SessionOut
from quire.shared.job import STOPPED, DocState
from quire.shared.manifest import Finding, VerificationReport
from quire.shared.plan import PageZone, PlanSettings

STATES: tuple[str, ...] = get_args(DocState)
WORKING = tuple(s for s in STATES if s not in STOPPED and s != "queued")
# what the documents page's state filter offers: a state, or "running" (any working state)
STATE_FILTERS: dict[str, str] = {
    "queued": "queued",
    "running": "running",
    "awaiting_decision": "awaiting decision",
    "complete": "complete",
    "failed": "failed",
}


@dataclass
class Cell:
    page: int
    chapter: str = ""  # title of the chapter starting on this page
    no_text: str = ""  # why the page has no text, when it has none
    findings: int = 0

    @property
    def classes(self) -> str:
        return " ".join(
            c
            for c, on in (("ch", self.chapter), ("nt", self.no_text), ("bad", self.findings))
            if on
        )

    @property
    def title(self) -> str:
        notes = [f"p. {self.page}"]
        notes += [f"chapter: {self.chapter}"] if self.chapter else []
        notes += [f"no text: {self.no_text}"] if self.no_text else []
        notes += [f"{self.findings} verification findings"] if self.findings else []
        return " · ".join(notes)


@dataclass
class StripItem:
    """A session's pages, or pages that belong to no session (session None)."""

    session: SessionOut | None
    size: str = ""  # against the plan's window: short, ok, soft, long; ref (front/back matter)
    cells: list[Cell] = field(default_factory=list)


# the page's CSS classes for the plan's zones: past the soft maximum is "long" either way
_SIZE_CLASS: dict[PageZone, str] = {
    "below_min": "short",
    "preferred": "ok",
    "finish": "soft",
    "extended": "long",
    "over_cap": "long",
}


def size_class(
    pages: float, settings: PlanSettings, kind: str = "study", estimated: bool = False
) -> str:
    """How a session's size sits against the plan's window (5-12 pages by default); "ref"
    for front and back matter, which are looked up, not studied, so no window applies."""
    return "ref" if kind != "study" else _SIZE_CLASS[settings.zone(pages, estimated)]


def reason_alone(reason: str, alternative: str | None) -> str:
    """A cut's reason without its "rather than ..." clause, for pages that show the
    alternative on a line of its own (so it is not read twice)."""
    return reason.split("; rather than ", 1)[0] if alternative else reason


def chapter_starts(pages: PagesOut) -> dict[int, str]:
    """Page -> title of the top-level outline entries starting there."""
    entries = [e for e in pages.outline if e.page > 0]
    top = min((e.level for e in entries), default=1)
    starts: dict[int, str] = {}
    for e in entries:
        if e.level == top:
            starts[e.page] = f"{starts[e.page]}; {e.title}" if e.page in starts else e.title
    return starts


def page_strip(
    plan: PlanOut | None, pages: PagesOut, report: VerificationReport | None
) -> list[StripItem]:
    chapters = chapter_starts(pages)
    no_text = {p.page: p.reason for p in pages.skipped_pages}
    bad: dict[int, int] = {}
    for f in report.findings if report else []:
        if f.page is not None:
            bad[f.page] = bad.get(f.page, 0) + 1

    def cell(n: int) -> Cell:
        return Cell(n, chapters.get(n, ""), no_text.get(n, ""), bad.get(n, 0))

    items: list[StripItem] = []
    page = 1  # the first page not shown yet
    for s in plan.sessions if plan else []:
        if s.page_first > page:
            items.append(StripItem(None, cells=[cell(n) for n in range(page, s.page_first)]))
        estimated = pages.page_basis == "words"
        size = size_class(s.pages, plan.settings, s.kind, estimated) if plan else ""
        items.append(StripItem(s, size, [cell(n) for n in range(s.page_first, s.page_last + 1)]))
        page = max(page, s.page_last + 1)
    if page <= pages.page_count:
        items.append(StripItem(None, cells=[cell(n) for n in range(page, pages.page_count + 1)]))
    return items


@dataclass
class PlacedFindings:
    """A session's verification findings where the session page shows them."""

    by_element: dict[str, list[Finding]] = field(default_factory=dict)  # beside the element
    by_page: dict[int, list[Finding]] = field(default_factory=dict)  # under the page image
    general: list[Finding] = field(default_factory=list)  # at the top


def place_findings(findings: list[Finding], elements: set[str], pages: set[int]) -> PlacedFindings:
    """Each finding at the element it names if the text shows it, else at its page if that
    page is shown, else at the top: none is left out."""
    placed = PlacedFindings()
    for f in findings:
        if f.element_id in elements:
            placed.by_element.setdefault(f.element_id, []).append(f)
        elif f.page in pages:
            placed.by_page.setdefault(f.page, []).append(f)
        else:
            placed.general.append(f)
    return placed


def cell_width(page_count: int, width: int = 1100) -> int:
    """Pixels per page cell: a short book fills one row, a long one wraps (4 px minimum)."""
    return max(4, min(18, width // max(page_count, 1) - 1))


# the pipeline's stages as the progress bar shows them; a repair counts as analysing
STAGE_BAR = (
    "parsing",
    "scoring",
    "topic_review",
    "planning",
    "writing",
    "verifying",
    "analysing",
    "indexing",
)
_SHOWN_AS = {"awaiting_decision": "planning", "repairing": "analysing"}


def stage_marks(state: str) -> list[tuple[str, str]]:
    """(stage, "done" | "now" | "") for each stage of the bar."""
    if state == "complete":
        return [(s, "done") for s in STAGE_BAR]
    current = _SHOWN_AS.get(state, state)
    if current not in STAGE_BAR:  # queued, failed
        return [(s, "") for s in STAGE_BAR]
    at = STAGE_BAR.index(current)
    return [(s, "done" if i < at else "now" if i == at else "") for i, s in enumerate(STAGE_BAR)]


def list_url(path: str, **params: str | None) -> str:
    """A list page's address with its filters and cursor (empty ones left out)."""
    kept = {k: v for k, v in params.items() if v}
    return f"{path}?{urlencode(kept)}" if kept else path


def state_options(counts: dict[str, int]) -> list[tuple[str, str, int]]:
    """The state filter's choices (value, label, documents) from the listing's counts;
    "running" counts every working state."""

    def count(value: str) -> int:
        states = WORKING if value == "running" else (value,)
        return sum(counts.get(s, 0) for s in states)

    return [("", "all states", sum(counts.values()))] + [
        (value, label, count(value)) for value, label in STATE_FILTERS.items()
    ]
