"""Offline, deterministic chunk analysis from visible signals: headings, key terms, scores.

- topic_en: the session's title, made of the author's headings (`session_titles`); key
  terms are never glued onto it.
- study_focus_en: the key terms to learn (the author's index terms, else key phrases), the
  sections, what kind of material it holds.
- coherence: needs_review only when a strong change point lies inside the chunk with a
  sizeable part on both sides (a split there would leave two real study sessions).
- Persian: never invented. The fa fields stay empty and `fa_missing_reason` says that an
  LLM backend is needed. English fields that cannot be derived (a chunk with no
  Latin-script headings or terms, or one whose prose is in another script such as Chinese
  or Persian, whose Latin words are only commands and names) likewise stay empty with
  `en_missing_reason`; such a chunk keeps its own heading as its title.

Output is a pure function of the context (and the other chunks' committed focuses, only to
stay distinct from them), so the same input always gives byte-identical JSON.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from quire.shared.analysis import ChunkAnalysis, Coherence
from quire.shared.text import HAN, KANA, cjk_units, is_cjk
from quire.workers.analysis.context import AnalysisContext, InternalCut
from quire.workers.analysis.distinct import distinct_focus
from quire.workers.analysis.validate import (
    InvalidAnalysis,
    check_analysis,
    english_problem,
    generic_problem,
    is_arabic,
    repeats_topic,
    same_focus,
)
from quire.workers.boundaries.evidence import STRONG_CHANGE
from quire.workers.boundaries.session_titles import LEADING_NUMBER

NAME = "heuristic"
# Chapter starts (level-1 headings with a number) score 0.85-0.95 and section starts up to
# about 0.85 (r-intro.pdf). The planner joins short chapters on purpose (minimum size), so a
# strong change inside a chunk only asks for repair when both sides would be full sessions.
# The global planner values a cut at such a change by the same threshold.
MIN_SIDE_SHARE = 1.0  # of min_pages, on both sides of the strong change
TOPIC_CHARS = 90
FOCUS_CHARS = 700
FA_MISSING = (
    "the heuristic backend does not write Persian; an LLM backend (openai, "
    "anthropic or command) is needed for topic_fa and study_focus_fa"
)
EN_MISSING = (
    "the chunk has no specific Latin-script headings or key terms to derive an English "
    "topic from; an LLM backend is needed for topic_en and study_focus_en"
)

EN_OTHER_SCRIPT = (
    "the chunk is written in a script other than Latin (its Latin words are commands, "
    "code and names, not its subject); the heuristic backend does not translate, so an "
    "LLM backend is needed for topic_en and study_focus_en"
)

SAME_MISSING = (
    "the chunk's key terms, headings and words are those of another chunk's study focus, "
    "so the heuristic backend cannot say what is specific to it; an LLM backend is needed "
    "for study_focus_en"
)
RULES_MISSING = (
    "the English topic and study focus the heuristic backend derives from the chunk's "
    "headings and key terms break the analysis rules; an LLM backend is needed for "
    "topic_en and study_focus_en"
)
RULES_REASON = (
    "by the change scores inside the chunk; the text the reason would quote reads as a "
    "template to the analysis rules, so it is left out"
)

FOCUS_MISSING = (
    "the chunk has no key terms or material beyond its title to derive an "
    "English study focus from; an LLM backend is needed for study_focus_en"
)

_TYPE_NOUNS = {
    "code": ("code example", "code examples"),
    "table": ("table", "tables"),
    "image": ("figure", "figures"),
    "list": ("list", "lists"),
    "formula": ("formula", "formulas"),
}


_FENCED = re.compile(r"^```.*?^```", re.S | re.M)
_LETTERS = re.compile(r"[^\W\d_]+")
_CJK_LETTERS = re.compile(f"[{HAN}{KANA}]")


def clean_heading(text: str) -> str:
    """A heading as a title: one line, section numbering and trailing punctuation removed."""
    text = " ".join(text.replace("*", "").replace("`", "").split())
    stripped = LEADING_NUMBER.sub("", text).strip(" .:-–—")
    return stripped or text


def _latin(text: str) -> bool:
    """Usable in an English field: Latin script, and nothing at all in Arabic script or
    CJK (a mixed heading such as "\\strut و rule ۷ . ۶" or "mbox 和fbox" is not English)."""
    return (
        bool(text)
        and english_problem(text) is None
        and not any(is_arabic(c) or is_cjk(c) for c in text)
    )


def latin_chunk(context: AnalysisContext) -> bool:
    """Is the chunk written in Latin script: its prose mostly Latin words and its
    headings too? A Chinese or Persian chunk is not, however many LaTeX commands its
    examples name; it keeps its own heading as its title, not one made of those words."""
    titled = [clean_heading(h.text) for h in context.headings]
    titled = [t for t in titled if any(c.isalpha() for c in t)]
    latin_titles = sum(1 for t in titled if _latin(t))
    return latin_titles * 2 >= len(titled) and latin_prose(context.content)


def latin_prose(content: str) -> bool:
    """Are the words of `content` (code blocks left out) mostly Latin-script ones? CJK
    characters count at their word rates."""
    prose = _FENCED.sub(" ", content)
    latin = other = 0.0
    for run in _LETTERS.findall(_CJK_LETTERS.sub(" ", prose)):
        if unicodedata.name(run[0], "").startswith(("LATIN", "GREEK")):
            latin += 1
        else:
            other += 1
    return latin >= other + cjk_units(prose)


def _join(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _shorten(text: str, limit: int = TOPIC_CHARS) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(" ,;:-")
    return cut + "…"


def _terms(context: AnalysisContext) -> list[str]:
    """Latin-script key terms, best first; "(defined here)" where the index says so."""
    return [
        f"{t.term} (defined here)" if t.defining else t.term
        for t in context.key_terms
        if _latin(t.term)
    ]


def heuristic_topic(context: AnalysisContext) -> str:
    """The English topic: the session's title, made of the author's headings
    (`session_titles`), when it is in Latin script; "" otherwise. Key terms are never
    glued onto it: they have a field of their own."""
    return context.title if _latin(context.title) else ""


def _material(context: AnalysisContext) -> str:
    bits = []
    for kind, (one, many) in _TYPE_NOUNS.items():
        n = context.element_types.get(kind, 0)
        if n:
            bits.append(f"{n} {one if n == 1 else many}")
    return f"Includes {_join(bits)}." if bits else ""


def opening_words(context: AnalysisContext, n: int = 12) -> str:
    """The first words of the chunk's first Latin-script text block (not a heading)."""
    for block in context.content.split("\n\n"):
        if block.lstrip().startswith(("#", "```", "|", "![")):
            continue
        words = [w for w in block.split() if _latin(w)]
        if len(words) >= 3:
            return " ".join(words[:n]) + ("…" if len(words) > n else "")
    return ""


def heuristic_focus(context: AnalysisContext, terms_shown: int = 6, opening: bool = False) -> str:
    """Key terms, section titles, material and source pages; with `opening`, also the
    chunk's first words (used only to tell apart chunks whose terms and sections agree)."""
    terms = _terms(context)
    sentences = []
    if terms:
        sentences.append(f"Key terms to learn: {', '.join(terms[:terms_shown])}.")
    sections = [clean_heading(h.text) for h in context.headings if _latin(clean_heading(h.text))]
    unique = list(dict.fromkeys(sections))
    if unique:
        shown = [_shorten(t, 60) for t in unique[:6]]
        more = f" and {len(unique) - 6} more" if len(unique) > 6 else ""
        sentences.append(f"Sections: {'; '.join(shown)}{more}.")
    if not sentences:
        return ""
    material = _material(context)
    if material:
        sentences.append(material)
    span = (
        f"page {context.page_first}"
        if context.page_first == context.page_last
        else f"pages {context.pages_label}"
    )
    sentences.append(f"Source {span}.")
    first = opening_words(context) if opening else ""
    if first:
        sentences.append(f"It opens with: {first}")
    return _shorten(" ".join(sentences), FOCUS_CHARS)


def strongest_cut(context: AnalysisContext) -> InternalCut | None:
    """The highest-scoring internal cut leaving at least MIN_SIDE_SHARE·min_pages on each
    side (ties: the earlier one)."""
    need = MIN_SIDE_SHARE * context.min_pages
    best: InternalCut | None = None
    for cut in context.internal_cuts:
        if min(cut.pages_before, cut.pages_after) < need:
            continue
        if best is None or cut.score > best.score:
            best = cut
    return best


def heuristic_coherence(context: AnalysisContext) -> tuple[Coherence, str]:
    best = strongest_cut(context)
    overall = max((c.score for c in context.internal_cuts), default=None)
    if best is not None and best.score >= STRONG_CHANGE:
        where = (
            f"level-{best.heading_level} heading"
            if best.heading_level
            else f"{best.right_snippet[:50]!r}"
        )
        return "needs_review", (
            f"heuristic: strong change point inside the chunk after {best.after_id} "
            f"(score {best.score:.2f} >= {STRONG_CHANGE}, {where} "
            f"'{best.right_snippet[:60]}'), with {best.pages_before:g} and "
            f"{best.pages_after:g} pages on either side"
        )
    size = f"{len(context.headings)} headings, {context.words} words"
    if overall is None:
        detail = "no safe cut inside the chunk"
    elif best is None:
        detail = (
            f"no cut inside leaves {context.min_pages:g}+ pages on both sides "
            f"(strongest change score {overall:.2f} would leave a short piece)"
        )
    else:
        detail = (
            f"strongest change where both sides have {context.min_pages:g}+ pages is "
            f"{best.score:.2f} after {best.after_id}, below {STRONG_CHANGE}"
        )
    return "confident", f"heuristic: {detail}; {size}"


def heuristic_analysis(
    context: AnalysisContext, others: Iterable[ChunkAnalysis] = ()
) -> ChunkAnalysis:
    """The heuristic analysis of one chunk, validated like any other. Never refused: an
    English topic or focus that breaks a rule (the same focus as another chunk's, when the
    chunk's own words cannot tell them apart) is left empty with the reason."""
    others = list(others)
    topic = heuristic_topic(context)
    # Stay distinct from committed focuses: more key terms, then the opening words.
    rivals = [o.study_focus_en for o in others if o.chunk != context.chunk]
    focus, same = "", False
    for shown, opening in ((6, False), (9, False), (12, False), (12, True)):
        focus = heuristic_focus(context, shown, opening)
        if not any(same_focus(focus, rival) for rival in rivals):
            break
    else:  # then the chunk's own words that the clashing focuses lack, or nothing
        focus = distinct_focus(focus, context.content, rivals, _terms(context), FOCUS_CHARS)
        same = not focus
    # A heading such as "Overview" with no key terms to add is no topic: say so instead.
    if topic and generic_problem(topic, "topic", "en"):
        topic = ""
    en_missing = None
    if not latin_chunk(context):
        topic, focus, en_missing = "", "", EN_OTHER_SCRIPT
    elif not topic:
        focus, en_missing = "", EN_MISSING  # nothing to anchor a focus: say so instead
    elif same:
        en_missing = SAME_MISSING
    elif not focus or repeats_topic(focus, topic) or generic_problem(focus, "focus", "en"):
        focus, en_missing = "", FOCUS_MISSING
    coherence, reason = heuristic_coherence(context)
    analysis = ChunkAnalysis(
        **context.chunk_ids(),
        topic_en=topic,
        topic_fa="",
        study_focus_en=focus,
        study_focus_fa="",
        coherence=coherence,
        reason=reason,
        backend=NAME,
        heuristic=True,
        fa_missing_reason=FA_MISSING,
        en_missing_reason=en_missing,
    )
    try:
        return check_analysis(analysis, context, others)
    except InvalidAnalysis:  # the offline backend never loses a document to its own rules
        blank = {"topic_en": "", "study_focus_en": "", "en_missing_reason": RULES_MISSING}
        if generic_problem(reason, "reason", "en"):  # book text quoted in it ("%s", "TODO")
            blank["reason"] = f"heuristic: {coherence} {RULES_REASON}"
        return check_analysis(analysis.model_copy(update=blank), context, others)


class HeuristicAnalyser:
    name = NAME

    def analyse(
        self, context: AnalysisContext, others: Iterable[ChunkAnalysis] = ()
    ) -> ChunkAnalysis:
        return heuristic_analysis(context, others)
