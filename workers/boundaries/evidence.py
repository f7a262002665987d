"""What speaks for a cut at one safe candidate, how much it is worth, and how to say it.

The global planner adds up the value of its cuts against the size cost of its sessions, so
every weight here is in the planner's cost units (integers, 1000 = one unit; a session
costs `SESSION` = 3 units, so a cut worth more than that earns its own session):

- the heading that begins after the cut, by level (its outline level for PDFs with an
  outline; a level-1 heading starts a chapter or part), and its numbering;
- a major start: a top-level outline entry (without an outline, a top-level heading) at
  least a minimum session after the previous major start — where a run of short chapters
  begins, so that a session holds them whole instead of starting in their middle;
- the change score of the candidate (`Candidate.score`, lexical cohesion + structure), and
  a bonus at a strong change (`STRONG_CHANGE`, the score at which the chunk analysis calls
  a session that holds one, with a full session on both sides, incoherent);
- the vocabulary change on its own (`Candidate.lexical`): where the author gives no
  heading, a clean switch of vocabulary is worth about what a section heading is, so the
  plan spends a session on it rather than cut at the size limit in the middle of a topic;
- the reviewers: a `confirmed_change` must be cut anyway (and says so); a `continuity`
  outcome makes the cut costly; otherwise (uncertain, or reviews that failed) each vote
  counts by its confidence, new_topic for and same_topic against;
- a page break (the two PDF sessions then share no page).

Inside front or back matter only a major start and the page break count: reference matter
is looked up, not studied, so its other headings ("Dedication" two pages after the title,
"Index of functions") earn no session of their own and a long index is split by size alone;
a preface a session or more after the title page still begins one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from quire.shared.ir import WORDS_PER_PAGE, Document
from quire.shared.plan import Candidate, ReviewOutcome, ReviewRole
from quire.workers.boundaries.candidates import numbering_depth, plain_text
from quire.workers.boundaries.matter import fold_title, matter_entries

HEADING_VALUE = {1: 5000, 2: 1200, 3: 600}
DEEP_HEADING_VALUE = 300
NUMBERING_VALUE = {1: 300, 2: 150}
MAJOR_START_VALUE = 12000  # in study text: more than two sections' cuts around it
REFERENCE_MAJOR_VALUE = 6000  # inside front or back matter: under `TINY_REFERENCE`
SCORE_VALUE = 1000  # per unit of change score
LEXICAL_VALUE = 2000  # per unit of the score's lexical part (a clean switch: about 0.7)
STRONG_LEXICAL = 0.5  # a lexical part this high is named in the cut's reason
STRONG_CHANGE = 0.85
STRONG_CHANGE_VALUE = 1000
VOTE_VALUE = 400  # per vote, times its confidence
PAGE_BREAK_VALUE = 200
CONTINUITY_COST = 1000  # reviewers judged the topic to continue across this cut
CONFIRMED_VALUE = 2000
MIN_TITLE_MATCH = 3  # folded characters a title needs to be found inside another
TYPO = 0.85  # similarity (difflib ratio) of two folded titles that differ by a typo
TOP_OF_PAGE_WORDS = WORDS_PER_PAGE // 4  # a heading after fewer words is at the top


_BRACKETS = str.maketrans("{}<>", "()‹›")


def quote(text: str, limit: int = 70) -> str:
    """Document text as quoted in a reason: shortened, and with braces and angle brackets
    (LaTeX's "\\begin{document}", an "<address>") swapped for look-alikes, so that a reason
    never reads as an unfilled template to `decisions.check_reason`."""
    short = text[:limit] + ("…" if len(text) > limit else "")
    return short.translate(_BRACKETS)


@dataclass(frozen=True)
class CutEvidence:
    """The signals at one candidate (the cut falls after `after_id`)."""

    after_id: str
    before_id: str
    snippet: str  # what begins after the cut
    page: int  # the page it begins on
    heading_level: int | None
    numbering: str | None
    score: float
    page_break: bool
    review: str | None  # the review outcome's decision, if reviewed
    change_roles: tuple[ReviewRole, ...] = ()
    continuity_roles: tuple[ReviewRole, ...] = ()
    vote_balance: float = 0.0  # sum of confidences: new_topic minus same_topic
    review_evidence: tuple[str, ...] = ()
    major: bool = False  # begins a major start (see the module docstring)
    lexical: float = 0.0  # the change score's lexical part
    inside_reference: bool = False  # front or back matter on both sides of the cut

    @property
    def confirmed(self) -> bool:
        return self.review == "confirmed_change"

    @property
    def continuity_support(self) -> bool:
        """Two or more reviewer roles judged the text to continue the same topic here."""
        return len(set(self.continuity_roles)) >= 2

    @property
    def value(self) -> int:
        """How good a place to end a session this is, in planner cost units."""
        if self.inside_reference and not self.major:
            return PAGE_BREAK_VALUE if self.page_break else 0
        v = 0
        if self.heading_level:
            v += HEADING_VALUE.get(self.heading_level, DEEP_HEADING_VALUE)
        depth = numbering_depth(self.numbering)
        if depth:
            v += NUMBERING_VALUE.get(depth, 0)
        if self.major:
            v += REFERENCE_MAJOR_VALUE if self.inside_reference else MAJOR_START_VALUE
        v += round(SCORE_VALUE * self.score + LEXICAL_VALUE * self.lexical)
        if self.score >= STRONG_CHANGE:
            v += STRONG_CHANGE_VALUE
        if self.page_break:
            v += PAGE_BREAK_VALUE
        if self.review == "confirmed_change":
            v += CONFIRMED_VALUE
        elif self.review == "continuity":
            v -= CONTINUITY_COST
        else:
            v += round(VOTE_VALUE * self.vote_balance)
        return v

    def what(self) -> str:
        """What the cut falls before, e.g. "level-1 heading '7 Internationalization'"."""
        text = quote(self.snippet)
        if self.heading_level:
            return f"level-{self.heading_level} heading '{text}'"
        if self.numbering:
            return f"numbered part '{text}'"
        return f"'{text}'"

    def signals(self) -> list[str]:
        """The evidence in words, strongest first."""
        if self.inside_reference and not self.major:
            where = "inside front or back matter, where only size counts"
            return [where, "page break"] if self.page_break else [where]
        out = []
        if self.confirmed:
            roles = f" ({', '.join(self.change_roles)})" if self.change_roles else ""
            out.append(f"reviewers confirmed a topic change{roles}")
        if self.major:
            out.append("starts a top-level part a session or more after the previous one")
        elif self.heading_level == 1:
            out.append("starts a chapter")
        elif self.heading_level == 2:
            out.append("starts a section")
        elif self.heading_level:
            out.append(f"starts a level-{self.heading_level} subsection")
        elif self.numbering:
            out.append(f"starts numbered part {self.numbering}")
        out.append(f"change score {self.score:.2f}")
        if self.lexical >= STRONG_LEXICAL:
            out.append(f"the vocabulary changes (lexical part {self.lexical:.2f})")
        if self.review == "continuity":
            roles = ", ".join(self.continuity_roles)
            out.append(f"reviewers ({roles}) judged the topic to continue here")
        elif self.vote_balance and not self.confirmed:
            side = "for" if self.vote_balance > 0 else "against"
            out.append(f"reviewer votes {side} a change ({self.vote_balance:+.1f})")
        if self.page_break:
            out.append("page break")
        return out


def major_starts(doc: Document, min_pages: float) -> set[int]:
    """Indexes of the elements that begin a major start: top-level outline entries (a PDF
    with an outline; not those naming front or back matter, `matter.matter_entries`) or
    top-level headings, each at least `min_pages` after the previous one counted (the first
    counts), as the sweep's chapter-start figure counts a book's chapters. Pages are whole
    pages, estimated ones too: an HTML book's chapter at 33.7 pages' worth of words is five
    pages after one at 28.9, as its outline and that figure count them. (An estimated-page
    book's outline is its headings, nested under one title entry at times: debian-edu's
    manual has 28 chapters at its headings' top level, one entry at its outline's.) There,
    a lone heading above all the others is the book's title, and its chapters are the level
    under it (maxima's HTML manual: "Maxima 5.46.0 Manual" over 96 chapters); a PDF's
    levels, read from font sizes without an outline, are not so sure."""
    els = doc.elements
    starts: list[tuple[float, int]] = []  # (page, element index)
    entries = [o for o in doc.outline if o.page >= 1]
    if doc.page_basis != "words" and entries:
        top = min(o.level for o in entries)
        top_level = min((e.level or 1 for e in els if e.type == "heading"), default=1)
        on_page: dict[int, list[int]] = {}
        for i, e in enumerate(els):
            on_page.setdefault(e.page_first, []).append(i)
        entries = [o for o in entries if o.level == top]
        # a matter entry ("Contents", "List of Tables") is no chapter: counted, it would set
        # the gap's first step off the book's chapters
        for o, matter in zip(entries, matter_entries(entries), strict=True):
            if matter or o.page not in on_page:
                continue
            starts.append((float(o.page), _entry_element(doc, on_page[o.page], o.title, top_level)))
    else:
        headings = [i for i, e in enumerate(els) if e.type == "heading"]
        levels = Counter(els[i].level or 1 for i in headings)
        top_level = min(levels, default=1)
        if doc.page_basis == "words" and levels[top_level] == 1 and len(levels) > 1:
            top_level = min(level for level in levels if level > top_level)  # under the title
        chapters = [i for i in headings if (els[i].level or 1) == top_level]
        starts = [(float(els[i].page_first), i) for i in chapters]
    out: set[int] = set()
    previous: float | None = None
    for page, i in starts:
        if previous is None or page - previous >= min_pages:
            out.add(i)
            previous = page
    return out


def _entry_element(doc: Document, here: Sequence[int], title: str, top_level: int) -> int:
    """The element an outline entry on a page points at: the heading of that title, else
    one whose title holds it or is held in it (the heading "第4节 编译方式" for the entry
    "编译方式", "A few comparisons" for "Few comparisons", a title the outline shortened),
    or one spelt almost alike ("Scotish Cases" for "Scottish Cases"), else a heading of the
    document's top level at the top of the page (a slide's frame title under its section's
    entry, after the running header), else the page's first element. A running header or
    the end of the previous chapter's example at the top of the page is no chapter start:
    the major start's value there would split the chapter's worth over two cuts."""
    els = doc.elements
    key = fold_title(title)
    heads = [(i, fold_title(plain_text(els[i]))) for i in here if els[i].type == "heading"]
    exact = next((i for i, h in heads if h == key), None)
    if exact is not None:
        return exact
    if len(key) >= MIN_TITLE_MATCH:
        near = [i for i, h in heads if len(h) >= MIN_TITLE_MATCH and (key in h or h in key)]
        near = near or [i for i, h in heads if SequenceMatcher(None, key, h).ratio() >= TYPO]
        if near:
            return near[0]
    above = 0  # words on the page before the element
    for i in here:
        if above >= TOP_OF_PAGE_WORDS:
            break
        if els[i].type == "heading" and (els[i].level or 1) == top_level:
            return i
        above += els[i].word_count
    return here[0]


def cut_evidence(
    candidate: Candidate,
    outcome: ReviewOutcome | None,
    page: int,
    page_break: bool,
    major: bool = False,
    inside_reference: bool = False,
) -> CutEvidence:
    change: list[ReviewRole] = []
    same: list[ReviewRole] = []
    balance = 0.0
    cited: list[str] = []
    if outcome is not None:
        for v in outcome.votes:
            if v.verdict == "new_topic":
                change.append(v.role)
                balance += v.confidence
            else:
                same.append(v.role)
                balance -= v.confidence
            cited += v.evidence_left + v.evidence_right
    return CutEvidence(
        after_id=candidate.after_id,
        before_id=candidate.before_id,
        snippet=candidate.right_snippet,
        page=page,
        heading_level=candidate.heading_level,
        numbering=candidate.numbering,
        score=candidate.score,
        page_break=page_break,
        review=outcome.decision if outcome else None,
        change_roles=tuple(sorted(set(change))),
        continuity_roles=tuple(sorted(set(same))),
        vote_balance=round(balance, 3),
        review_evidence=tuple(dict.fromkeys(cited)),
        major=major,
        lexical=candidate.lexical or 0.0,
        inside_reference=inside_reference,
    )
