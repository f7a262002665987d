"""Content tokens for the change scorer, in any of the corpus's scripts.

- Alphabetic words (Latin, Cyrillic, Greek, Arabic script...) of two letters or more,
  lower-cased, minus the stop words of their language, English ones crudely stemmed.
- Chinese and Japanese have no spaces between words: a run of Han/kana characters is split
  at common function characters (的, 了, 是...) and each piece gives its overlapping
  character bigrams ("变量名称" -> 变量, 量名, 名称), the usual index terms for Chinese
  without a segmenter: a topic's words share bigrams, another topic's do not.
- Arabic presentation forms (PDFs that extract Persian as U+FExx glyphs) are folded to
  letters by NFKC, so the same word is one token however it was drawn.

Stop words are per language; they are all applied at once, since the lists of different
scripts cannot collide and mixed documents (English inside Persian) are common.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from itertools import pairwise

from quire.shared.text import MARKS

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# A CJK run, or an alphabetic word of 2+ letters (no digits, no underscore, no CJK; with
# its vowel signs and viramas).
_TOKEN = re.compile(rf"[{_CJK}]+|(?:[^\W\d_{_CJK}]|[{MARKS}]){{2,}}")
_CJK_START = re.compile(f"[{_CJK}]")
_PRESENTATION_FORMS = re.compile("[\ufb50-\ufdff\ufe70-\ufeff]")

_STOP = {
    "en": """a about above after again against all also am an and any are as at be because
    been before being below between both but by can could did do does doing done down during
    each either else etc even ever every few for from further get gets got had has have
    having he her here hers herself him himself his how however i if in into is it its
    itself just least less let like may me might more most much must my myself need no nor
    not now of off often on once one only or other others otherwise our ours ourselves out
    over own per rather same see several shall she should since so some such than that the
    their theirs them themselves then there therefore these they this those though through
    thus to too two under until up upon us use used uses using very via was we well were
    what when where whether which while who whom whose why will with within without would
    yet you your yours yourself yourselves""",
    "fa": """و در به از که این را با است برای آن یک تا می ها های شود بر هم کند نیز شده
    کرد باید اگر یا ما او خود دارد بود هر بین پس همه چه وجود ای دیگر کنید کنیم شما اما
    توان آنها همین بوده چند باشد نمی دو""",
    "ru": """и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по
    только ее мне было вот от меня еще нет о из ему теперь когда даже ну вдруг ли если уже
    или ни быть был него до вас нибудь опять уж вам ведь там потом себя ничего ей может они
    тут где есть надо ней для мы тебя их чем была сам чтобы без будто чего раз тоже себе под
    будет ж тогда кто этот того потому этого какой совсем ним здесь этом один почти мой тем
    чтобы нее сейчас были куда зачем всех никогда можно при наконец два об другой хоть после
    над больше тот через эти нас про всего них какая много разве три эту моя впрочем хорошо
    свою этой перед иногда лучше чуть том нельзя такой им более всегда конечно всю между""",
}
# Chinese function characters: a CJK run is split at them (they join, they do not mean).
_ZH_STOP_CHARS = frozenset(
    "的了是在和与或及也都就而且但被把这那个之其为以于从对等我你他她它们一可能会要将所如则即"
    "该此并又还很更最已着过得地到吗呢吧啊"
)
_SUFFIXES = (
    ("ations", 4),
    ("ation", 4),
    ("ings", 4),
    ("ing", 4),
    ("ies", 3),
    ("ed", 4),
    ("es", 4),
    ("ly", 4),
    ("s", 3),
)


@cache
def stop_words(language: str | None = None) -> frozenset[str]:
    """The stop words of one language ("en", "fa", "ru"), or of all of them (None)."""
    if language is None:
        return frozenset(w for text in _STOP.values() for w in text.split())
    return frozenset(_STOP[language].split())


def stem(word: str) -> str:
    """Crude English suffix stripping: enough to make 'vectors'/'vector', 'fitted'/'fit'
    agree. Other words are left alone."""
    if not word.isascii():
        return word
    for suffix, keep in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= keep:
            if suffix == "s" and word.endswith("ss"):
                return word
            base = word[: -len(suffix)]
            return base + "y" if suffix == "ies" else base
    return word


def _cjk_terms(run: str) -> list[str]:
    terms: list[str] = []
    piece: list[str] = []
    for ch in [*run, "的"]:  # a final stop character flushes the last piece
        if ch in _ZH_STOP_CHARS:
            terms.extend(a + b for a, b in pairwise(piece))
            piece = []
        else:
            piece.append(ch)
    return terms


class Vocabulary:
    """Token -> small int id (None for a stop word), memoised: tokenising is the scorer's
    hot loop, and most words recur."""

    def __init__(self) -> None:
        self.ids: dict[str, int | None] = {}
        self.terms: dict[str, int] = {}
        self._stop = stop_words()

    def __len__(self) -> int:
        return len(self.terms)

    def _id(self, term: str) -> int:
        return self.terms.setdefault(term, len(self.terms))

    def token_ids(self, text: str) -> list[int]:
        if _PRESENTATION_FORMS.search(text):
            text = unicodedata.normalize("NFKC", text)
        out: list[int] = []
        ids = self.ids
        for raw in _TOKEN.findall(text.lower()):
            tid = ids.get(raw, -1)
            if tid == -1:
                if _CJK_START.match(raw):  # a CJK run: its bigrams, not memoised
                    out.extend(self._id(t) for t in _cjk_terms(raw))
                    continue
                tid = None if raw in self._stop else self._id(stem(raw))
                ids[raw] = tid
            if tid is not None:
                out.append(tid)
        return out
