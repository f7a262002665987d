"""Front and back matter as the planner keeps it apart: the regions `matter.find_matter`
finds, grown over slivers of study text a confirmed change would leave alone and over a
stretch of study text after back matter too short for a session, and only where the plan
can cut at both edges (a session is of one kind throughout)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from quire.shared.ir import WORDS_PER_PAGE, Document, layout_words
from quire.shared.plan import ESTIMATE_SLACK, MIN_PAGES, Candidate, ReviewOutcome
from quire.workers.boundaries.matter import (
    TINY_WORDS,
    MatterRegion,
    chapters_after_contents,
    find_matter,
    running_words,
)

CHAPTER_TEXT_WORDS = 50  # text under a chapter's heading that makes it no sliver (see above)


def absorb_slivers(
    doc: Document, regions: Sequence[MatterRegion], mandatory: Collection[int]
) -> list[MatterRegion]:
    """`regions`, each grown over a sliver of study text between it and a mandatory cut
    (a confirmed topic change after element index `m` for m in `mandatory`), another
    region or the document's edge: under half a page of words ("Chapter 1" alone before
    the chapter's heading, a blank-page remark) cannot be a session, and the cuts on both
    of its sides must stay. A chapter the outline places after the contents is no sliver
    however few its words when it has pages of its own (its heading and three pages or
    more: slides) or text of its own (CHAPTER_TEXT_WORDS of running text under its
    heading, `matter.running_words`: l2tabuen's one-page "A An example illustrating the
    effect of the \\sloppy command" between the references and the licence): matter never
    holds a chapter. (A part title alone on its page before the glossary, "IV Annexes",
    still is, also over the references and index lines dun19expl3 sets under it as text.)"""
    els = doc.elements
    pos = {e.id: i for i, e in enumerate(els)}
    spans = [[pos[r.first_id], pos[r.last_id]] for r in regions]
    stops = sorted(set(mandatory))
    chapters = {page for page, _ in chapters_after_contents(doc)}

    def sliver(a: int, b: int) -> bool:
        part = els[a : b + 1]
        if sum(e.word_count for e in part) >= TINY_WORDS:
            return False
        heads = [k for k, e in enumerate(part) if e.type == "heading" and e.page_first in chapters]
        if not heads:
            return True
        pages = part[-1].page_last - part[0].page_first + 1
        return pages < 3 and running_words(part[heads[0] + 1 :]) < CHAPTER_TEXT_WORDS

    for k, span in enumerate(spans):
        limit = spans[k + 1][0] - 1 if k + 1 < len(spans) else len(els) - 1
        after = next((m for m in stops if m > span[1]), limit)
        end = min(after, limit)
        if end > span[1] and sliver(span[1] + 1, end):
            span[1] = end
        floor = spans[k - 1][1] + 1 if k else 0
        before = max((m + 1 for m in stops if m + 1 < span[0]), default=floor)
        start = max(before, floor)
        if start < span[0] and sliver(start, span[0] - 1):
            span[0] = start
    return [
        r.model_copy(update=_region_update(doc, a, b))
        for r, (a, b) in zip(regions, spans, strict=True)
    ]


def _region_update(doc: Document, a: int, b: int) -> dict[str, object]:
    part = doc.elements[a : b + 1]
    return {
        "first_id": part[0].id,
        "last_id": part[-1].id,
        "page_first": min(e.page_first for e in part),
        "page_last": max(e.page_last for e in part),
    }


def close_back_stretches(
    doc: Document, regions: Sequence[MatterRegion], cuts: Collection[int], min_pages: float
) -> list[MatterRegion]:
    """`regions`, each back-matter region grown over the study text after it when that
    text runs to the next back-matter region or the document's end and spans fewer than
    `min_pages` pages (a membership form after the bibliography and index: no study session
    can hold it, as its only neighbours are reference matter). Grown only to a cut the plan
    can make (`cuts`: element indexes a session may end after), and never over a chapter
    the outline places after the contents (an appendix after the bibliography): that is a
    short study session of its own, as back matter never holds a chapter."""
    els = doc.elements
    pos = {e.id: i for i, e in enumerate(els)}
    chapters = {page for page, _ in chapters_after_contents(doc)}
    out = list(regions)
    for k, r in enumerate(out):
        if r.kind != "back_matter":
            continue
        nxt = out[k + 1] if k + 1 < len(out) else None
        if nxt is not None and nxt.kind != "back_matter":
            continue
        a, b = pos[r.last_id] + 1, (pos[nxt.first_id] - 1 if nxt else len(els) - 1)
        if a > b or (nxt is not None and b not in cuts):
            continue
        stretch = els[a : b + 1]
        if any(stretch[0].page_first <= p <= stretch[-1].page_last for p in chapters):
            continue
        least = min_pages
        if doc.page_basis == "words":
            pages = sum(layout_words(e) for e in stretch) / WORDS_PER_PAGE
            least -= ESTIMATE_SLACK
        else:
            pages = max(e.page_last for e in stretch) - min(e.page_first for e in stretch) + 1
        if pages < least:
            why = f"{pages:g} pages of study text after it, too few for a session"
            update = _region_update(doc, pos[r.first_id], b)
            out[k] = r.model_copy(update={**update, "evidence": [*r.evidence, why]})
    return out


def reference_matter(
    doc: Document,
    candidates: Sequence[Candidate],
    outcomes: Mapping[str, ReviewOutcome],
    matter: Sequence[MatterRegion] | None = None,
    min_pages: float = MIN_PAGES,
) -> list[MatterRegion]:
    """The front and back matter the plan keeps apart (found in `doc` unless given), grown
    over slivers of study text that a confirmed change would otherwise leave alone and
    over study text after back matter too short for a session (`close_back_stretches`). A
    region whose edge is not one of `candidates` cannot be cut from its neighbours, so it
    is left out: a session is then of one kind throughout."""
    pos = {e.id: i for i, e in enumerate(doc.elements)}
    cuts = {pos[c.after_id] for c in candidates if c.after_id in pos}
    confirmed = [
        pos[c.after_id]
        for c in candidates
        if c.after_id in pos
        and (o := outcomes.get(c.after_id)) is not None
        and o.decision == "confirmed_change"
    ]
    grown = absorb_slivers(doc, find_matter(doc) if matter is None else matter, confirmed)
    grown = close_back_stretches(doc, grown, cuts, min_pages)
    last = len(doc.elements) - 1
    return [
        r
        for r in grown
        if (pos[r.first_id] == 0 or pos[r.first_id] - 1 in cuts)
        and (pos[r.last_id] == last or pos[r.last_id] in cuts)
    ]


def matter_edges(doc: Document, regions: Sequence[MatterRegion]) -> set[int]:
    """Element indexes after which front or back matter begins or ends."""
    pos = {e.id: i for i, e in enumerate(doc.elements)}
    edges = {pos[r.first_id] - 1 for r in regions} | {pos[r.last_id] for r in regions}
    return {i for i in edges if 0 <= i < len(doc.elements) - 1}
