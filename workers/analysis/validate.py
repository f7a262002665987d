"""What counts as an acceptable chunk analysis: specific, in the right script, not a copy.

One gate for every analyser (LLM backends, the command agent, the CLI `commit-analysis` and
the heuristic itself): `validate_answer` turns an `AnalysisAnswer` into a `ChunkAnalysis` or
raises `InvalidAnalysis` listing every rule the answer breaks, so a re-ask can say exactly
what to fix. Rules:

- no empty, very short, placeholder or generic fields ("auto", "N/A", "This section is
  about X", "Chunk 3");
- the study focus says more than the topic (not the topic again, not "Learn <topic>");
- the study focus differs from every other chunk's committed focus (digits ignored, so
  "Study pages 1-5" / "Study pages 6-10" count as the same);
- Persian fields are written in Persian (Arabic-script letters, mostly; Latin technical
  terms allowed in a small share; Persian rather than Arabic letters in longer text);
- English fields are written in Latin script (Greek letters allowed for symbols).
Only the heuristic backend may leave language fields empty, and then it must say why.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from quire.shared.analysis import ChunkAnalysis, Coherence
from quire.shared.errors import ValidationFailedError
from quire.workers.analysis.context import AnalysisContext


class AnalysisAnswer(BaseModel):
    """The JSON object an analysis backend must return (the schema sent to the model)."""

    model_config = ConfigDict(extra="forbid")

    topic_en: str = Field(
        description="short English title naming the concrete subject "
        "(2-10 words); it becomes the chunk's file name"
    )
    topic_fa: str = Field(description="the same topic in Persian, in Persian script")
    study_focus_en: str = Field(
        description="one or two English sentences: what a student "
        "should understand or be able to do after this chunk, "
        "naming its specific concepts (not the topic again)"
    )
    study_focus_fa: str = Field(description="the study focus in Persian, in Persian script")
    coherence: Coherence = Field(
        description="confident if the chunk is one coherent study "
        "unit; needs_review if it joins unrelated topics"
    )
    reason: str = Field(description="why this coherence, naming the concepts involved")


class InvalidAnalysis(ValidationFailedError):
    """A well-formed analysis that breaks a rule; the message lists every broken rule."""


MAX_TOPIC_CHARS = 120
MAX_FOCUS_CHARS = 800
MIN_TOPIC_CHARS = 3
MIN_FOCUS_CHARS = {"en": 25, "fa": 15}
MIN_FOCUS_WORDS = {"en": 4, "fa": 3}
MIN_REASON_CHARS = 15
MIN_PERSIAN_SHARE = 0.6  # of the letters; the rest may be Latin technical terms
MIN_LATIN_SHARE = 0.85  # of the letters in an English field (Greek counts as Latin here)
SAME_FOCUS_JACCARD = 0.9  # word-set overlap at which two focuses count as the same

Field_ = Literal["topic", "focus", "reason"]
Lang = Literal["en", "fa"]

# --- scripts -----------------------------------------------------------------------------

_ARABIC_RANGES = (
    (0x0600, 0x06FF),
    (0x0750, 0x077F),
    (0x08A0, 0x08FF),
    (0xFB50, 0xFDFF),
    (0xFE70, 0xFEFF),
)
# Letters only Persian uses (after NFKC, which maps presentation forms to these).
_PERSIAN_ONLY = frozenset("پچژگکی")
_ARABIC_ONLY = frozenset("يك")  # Arabic yeh / kaf, written ی / ک in Persian


@cache  # one character: a book has a few thousand distinct ones
def is_arabic(c: str) -> bool:
    o = ord(c)
    return any(lo <= o <= hi for lo, hi in _ARABIC_RANGES)


@dataclass(frozen=True)
class ScriptCounts:
    arabic: int
    latin: int  # Latin and Greek letters
    other: int

    @property
    def letters(self) -> int:
        return self.arabic + self.latin + self.other


@cache
def _script(c: str) -> int:
    """0: not a letter; 1: Arabic script; 2: Latin or Greek; 3: another script."""
    if not c.isalpha():
        return 0
    if is_arabic(c):
        return 1
    return 2 if unicodedata.name(c, "").startswith(("LATIN", "GREEK")) else 3


def script_counts(text: str) -> ScriptCounts:
    scripts = [_script(c) for c in text]
    return ScriptCounts(scripts.count(1), scripts.count(2), scripts.count(3))


def persian_problem(text: str) -> str | None:
    """Why `text` is not Persian-script text, or None."""
    counts = script_counts(text)
    if counts.letters == 0:
        return "has no letters"
    share = counts.arabic / counts.letters
    if share < MIN_PERSIAN_SHARE:
        return (
            f"is not written in Persian script ({share:.0%} Persian letters; at least "
            f"{MIN_PERSIAN_SHARE:.0%} needed, Latin only for technical terms)"
        )
    if counts.other * 20 > counts.letters:
        return "mixes in letters of a script other than Persian or Latin"
    if counts.arabic >= 20:
        folded = set(unicodedata.normalize("NFKC", text))
        if not folded & _PERSIAN_ONLY and folded & _ARABIC_ONLY:
            return "looks like Arabic, not Persian (no Persian letters such as ی, ک, گ, پ)"
    return None


def english_problem(text: str) -> str | None:
    """Why `text` is not Latin-script (English) text, or None."""
    counts = script_counts(text)
    if counts.letters == 0:
        return "has no letters"
    share = counts.latin / counts.letters
    if share < MIN_LATIN_SHARE:
        return f"is not written in Latin script ({share:.0%} Latin letters; write it in English)"
    return None


# --- generic text ------------------------------------------------------------------------

_WORDS = re.compile(r"[^\W_]+", re.UNICODE)
_GENERIC_VALUES = {
    # English
    "auto",
    "automatic",
    "n a",
    "na",
    "none",
    "null",
    "nil",
    "todo",
    "tbd",
    "tba",
    "unknown",
    "untitled",
    "no title",
    "title",
    "topic",
    "topics",
    "the topic",
    "focus",
    "study focus",
    "general",
    "misc",
    "miscellaneous",
    "various",
    "various topics",
    "mixed topics",
    "content",
    "contents",
    "text",
    "chunk",
    "section",
    "chapter",
    "part",
    "session",
    "page",
    "pages",
    "summary",
    "overview",
    "string",
    "example",
    "test",
    "placeholder",
    "same",
    "coherent",
    "confident",
    "needs review",
    "ok",
    "okay",
    "yes",
    "no",
    "reason",
    "see above",
    "see text",
    "not applicable",
    "nothing",
    "empty",
    "default",
    # Persian
    "ندارد",
    "نامشخص",
    "موضوع",
    "بخش",
    "فصل",
    "خودکار",
    "هیچ",
    "متن",
    "عنوان",
    "تمرکز",
    "بدون عنوان",
    "مطالعه",
    "نامعلوم",
    "ناموجود",
}
# "Chunk 3", "Section 4", "Part II", "بخش ۳": a label, not a topic.
_LABEL = re.compile(
    r"^(?:chunk|section|chapter|part|session|page|pages|unit|lesson|topic|بخش|فصل|قسمت"
    r"|جلسه|صفحه)\s*[\divxlc۰-۹٠-٩\-–.]*$",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(
    r"<[A-Za-z_ ]{1,40}>|\{[A-Za-z_ ]{0,40}\}|\[(?:topic|title|focus|reason|x|n)\]|\blorem ipsum\b"
    r"|\bTODO\b|\bTBD\b|\bxxx+\b|%s|\$\{",
    re.IGNORECASE,
)
# "This section is about X", "The chunk covers ...", "In this chapter we ..."
_TEMPLATE_EN = re.compile(
    r"^(?:in\s+)?(?:this|the|that)\s+(?:section|chunk|chapter|part|text|passage|document|"
    r"session|page|pages|unit|lesson|excerpt|material|content)s?\s+(?:is\s+about|is\s+on|"
    r"is\s+mainly\s+about|covers|discusses|describes|talks\s+about|deals\s+with|explains|"
    r"introduces|presents|contains|focuses\s+on|is\s+focused\s+on|is\s+concerned\s+with|"
    r"we\s+(?:learn|discuss|see|look))\b",
    re.IGNORECASE,
)
_TEMPLATE_FA = re.compile(
    r"^(?:در\s+)?(?:این|آن)\s+(?:بخش|فصل|قسمت|متن|جلسه|صفحه|صفحات|درس)(?:\s|$)"
)
# Words that say nothing specific (for "names nothing", and "repeats the topic").
_FILLER_WORDS = """
a an the this that these those it its is are was be been being of to and or in on at by for
with from as about into how what which why when where who you your student students reader
learn learning learns understand understanding understands study studying studied know
knowing master mastering explain explaining explains describe describing cover covers
covering introduce introduction introduces basic basics fundamentals overview main key
important concept concepts idea ideas topic topics subject chunk section chapter part text
page pages session able should will can must need needs use using used work working get
also well all some more most other different various same new whole one two its their
after before read reading focus coherent coherence confident review needs single unit
content contents material this here there term terms sections source sources
include includes including
با و در این آن از به را که برای یک تا هم یا می ها های شود شده است هست بود
یادگیری مطالعه آشنایی درک فهم مفهوم مفاهیم بخش فصل موضوع متن جلسه دانشجو خواننده
"""
_FILLER = frozenset(_FILLER_WORDS.split())


def is_filler(word: str) -> bool:
    """A casefolded word that says nothing specific ("the", "learn", "section", "بخش")."""
    return word in _FILLER


def normal_words(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).casefold()
    return _WORDS.findall(text)


def _is_name(word: str) -> bool:
    """A word, not a number or code: two letters or more, and more letters than digits
    ("IPv6" and "utf8" are names, "31t10" and "163z" of a timestamp are not)."""
    letters = sum(c.isalpha() for c in word)
    return letters >= 2 and letters > sum(c.isdigit() for c in word)


def generic_problem(text: str, field: Field_, lang: Lang) -> str | None:
    """Why `text` is too short, a placeholder, a label or a template, or None."""
    flat = " ".join(text.split())
    words = normal_words(flat)
    minimum = {
        "topic": MIN_TOPIC_CHARS,
        "focus": MIN_FOCUS_CHARS[lang],
        "reason": MIN_REASON_CHARS,
    }[field]
    if len(flat) < minimum:
        return f"is too short ({len(flat)} < {minimum} characters)"
    if field == "focus" and len(words) < MIN_FOCUS_WORDS[lang]:
        return f"is too short ({len(words)} words; say what to learn in a sentence)"
    if " ".join(words) in _GENERIC_VALUES or _LABEL.match(flat):
        return f"{flat!r} is generic"
    if _PLACEHOLDER.search(flat):
        return f"{flat!r} looks like an unfilled template"
    if _TEMPLATE_EN.match(flat) or _TEMPLATE_FA.match(flat):
        return (
            f"{flat[:60]!r} is template text ('this section is about ...'): name what "
            "is learned instead"
        )
    specific = [w for w in words if w not in _FILLER and not w.isdigit()]
    if not specific or not any(_is_name(w) for w in specific):
        # a timestamp, number or code ("2017-08-31T10:54:00.163Z") names no subject
        return f"{flat!r} names nothing specific"
    if field != "topic" and len(set(specific)) < 2:
        return f"{flat!r} names almost nothing specific"
    return None


def repeats_topic(focus: str, topic: str) -> bool:
    """The focus adds no specific word to the topic ("Loops" / "Learn loops.")."""
    topic_words = {w for w in normal_words(topic)}
    extra = {
        w
        for w in normal_words(focus)
        if w not in _FILLER and not w.isdigit() and w not in topic_words
    }
    # Allow plural/singular variants of topic words to count as the topic.
    extra = {w for w in extra if w.rstrip("s") not in {t.rstrip("s") for t in topic_words}}
    return not extra


@lru_cache(maxsize=1 << 14)  # every chunk's focus is compared with every other's
def focus_key(text: str) -> tuple[str, ...]:
    """Comparable form of a focus: casefolded words, digits dropped."""
    return tuple(w for w in normal_words(text) if not any(c.isdigit() for c in w))


def same_focus(a: str, b: str) -> bool:
    ka, kb = focus_key(a), focus_key(b)
    if not ka or not kb:
        return False
    if ka == kb:
        return True
    sa, sb = set(ka), set(kb)
    return len(sa | sb) >= 5 and len(sa & sb) / len(sa | sb) >= SAME_FOCUS_JACCARD


# --- the gate ----------------------------------------------------------------------------


def _flat(text: str) -> str:
    return " ".join(text.split())


def check_analysis(
    analysis: ChunkAnalysis, context: AnalysisContext, others: Iterable[ChunkAnalysis] = ()
) -> ChunkAnalysis:
    """The analysis with whitespace tidied, if it obeys every rule (see module docstring);
    `InvalidAnalysis` listing the broken rules if not."""
    a = analysis.model_copy(
        update={
            "topic_en": _flat(analysis.topic_en),
            "topic_fa": _flat(analysis.topic_fa),
            "study_focus_en": _flat(analysis.study_focus_en),
            "study_focus_fa": _flat(analysis.study_focus_fa),
            "reason": _flat(analysis.reason),
        }
    )
    problems: list[str] = []
    if context.kind != "study":
        problems.append(
            f"chunk {context.chunk} is a reference session ({context.kind.replace('_', ' ')}):"
            " it is not studied, so it gets no topic, study focus or coherence verdict"
        )
    if (a.chunk, a.first_id, a.last_id) != (context.chunk, context.first_id, context.last_id):
        problems.append(
            f"analysis is for chunk {a.chunk} ({a.first_id}..{a.last_id}), the "
            f"context is chunk {context.chunk} ({context.first_id}.."
            f"{context.last_id})"
        )
    if not a.backend.strip():
        problems.append("backend name is empty")
    fields: list[tuple[str, str, Field_, Lang, int]] = [
        ("topic_en", a.topic_en, "topic", "en", MAX_TOPIC_CHARS),
        ("study_focus_en", a.study_focus_en, "focus", "en", MAX_FOCUS_CHARS),
        ("topic_fa", a.topic_fa, "topic", "fa", MAX_TOPIC_CHARS),
        ("study_focus_fa", a.study_focus_fa, "focus", "fa", MAX_FOCUS_CHARS),
    ]
    for name, value, field, lang, limit in fields:
        missing_reason = a.fa_missing_reason if lang == "fa" else a.en_missing_reason
        if not value:
            if not a.heuristic:
                problems.append(f"{name} is empty")
            elif not missing_reason or generic_problem(missing_reason, "reason", "en"):
                problems.append(f"{name} is empty without a specific {lang}_missing_reason")
            continue
        if len(value) > limit:
            problems.append(f"{name} is too long ({len(value)} > {limit} characters)")
        why = generic_problem(value, field, lang)
        if why:
            problems.append(f"{name} {why}")
        script = persian_problem(value) if lang == "fa" else english_problem(value)
        if script:
            problems.append(f"{name} {script}")
    for lang, topic, focus in (
        ("en", a.topic_en, a.study_focus_en),
        ("fa", a.topic_fa, a.study_focus_fa),
    ):
        if topic and focus and repeats_topic(focus, topic):
            problems.append(
                f"study_focus_{lang} only repeats the topic: say what a student "
                "should understand or be able to do"
            )
    why = generic_problem(a.reason, "reason", "en")
    if why:
        problems.append(f"reason {why}")
    for other in others:
        if other.chunk == a.chunk or (other.first_id, other.last_id) == (a.first_id, a.last_id):
            continue
        for lang, mine, theirs in (
            ("en", a.study_focus_en, other.study_focus_en),
            ("fa", a.study_focus_fa, other.study_focus_fa),
        ):
            if mine and theirs and same_focus(mine, theirs):
                problems.append(
                    f"study_focus_{lang} is the same as chunk {other.chunk}'s: "
                    "say what is specific to this chunk"
                )
    if problems:
        raise InvalidAnalysis("; ".join(problems))
    return a


def validate_answer(
    answer: AnalysisAnswer,
    context: AnalysisContext,
    backend: str,
    *,
    others: Iterable[ChunkAnalysis] = (),
) -> ChunkAnalysis:
    """An LLM's or agent's answer as a validated `ChunkAnalysis` (all fields required)."""
    try:
        analysis = ChunkAnalysis(
            **context.chunk_ids(),
            **answer.model_dump(),
            backend=backend,
            heuristic=False,
            # Placeholders so the model accepts empty fields; check_analysis refuses them.
            fa_missing_reason="missing"
            if not (answer.topic_fa and answer.study_focus_fa)
            else None,
            en_missing_reason="missing"
            if not (answer.topic_en and answer.study_focus_en)
            else None,
        )
    except ValueError as exc:  # pydantic ValidationError
        raise InvalidAnalysis(f"answer is not a valid analysis: {exc}") from exc
    checked = check_analysis(analysis, context, others)
    return checked.model_copy(update={"fa_missing_reason": None, "en_missing_reason": None})
