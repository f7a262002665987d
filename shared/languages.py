"""Which Latin-script languages a book is written in, told by its function words, and
their stop words.

Two readers: the key-phrase finder (stop words, `book_languages`) and the naming of
reference sessions (`sole_language`, read by `matter_titles.book_language`:
"Bibliographie" in a French book).

The key-phrase finder's stop words are English, Russian, Persian and Chinese, applied to
every book at once (those scripts cannot collide). Latin-script languages do collide
("die", "hat", "sin", "come" are words of English technical text), so their stop words
apply only to a book written in one: where the language's commonest function words (a
short signature, none of them English) make LANGUAGE_SHARE of its words. Without them a
German manual's key terms were "für die, der Titelseite, auf der, über die".
"""

from __future__ import annotations

from collections import Counter
from functools import cache

LANGUAGE_SHARE = 0.018  # of a book's words (RIVAL_SHARE: of the top language's share)
RIVAL_SHARE = 0.5  # a second language as common as that (a bilingual manual) counts too
# Each language's commonest function words that are no English or TeX word ("do", "per",
# "en", "mit", "pro", "care", "fi" for \fi, "din" for DIN paper sizes are left out): an
# English manual scores at most 1.5 % on any of them, the sweep's German, French... ones
# 1.9-15 % (a French manual of mostly code and commands: 2.8 %).
_SIGNATURES = {
    "de": "der die das und ist nicht für auf dem des ein eine einer wird werden sich auch "
    "oder wenn bei",
    "fr": "le la les des est pour dans une que qui sur avec pas sont du au aux ce cette peut être",
    "es": "el los las del que por para con una como es se al sus este esta puede más",
    "it": "il della che con una sono del gli nel alla delle questo questa può essere anche",
    "pt": "os da das dos que para uma não ao pelo pela você este esta pode",
    "nl": "het een niet voor met zijn wordt ook door naar worden deze kan",
    "pl": "się nie jest oraz jak dla przez lub być może jego tym które który",
    "cs": "je se že jako nebo být jsou také které který tak při",
    # Slovak, so that a Slovak book is not read as Czech (no titles of its own: English)
    "sk": "sa je že ako alebo byť sú tiež ktoré ktorý ktorá pre aj",
    "ro": "și este pentru sau sunt prin această într poate",
    "hu": "az és hogy nem egy ez meg van csak vagy",
    # Swedish and Danish apart: the words they share ("det som med på har") are in neither
    "sv": "och att för är inte av till ett också vid",
    "da": "og af ikke er hvis skal være også kun bliver",
    "vi": "và của là có được cho các trong không những này với",
}
SIGNATURES = {lang: frozenset(words.split()) for lang, words in _SIGNATURES.items()}
# English's commonest function words, none of them a word of the languages above: a rival
# to tell an English manual with long samples of another language (a lorem-ipsum package's
# Italian, a carol book's French verses) from a book in that language ("to" and "by" are
# Polish and Czech, "are" Romanian); no stop words (the key phrases have English ones)
ENGLISH = frozenset(["the", "of", "and", "that", "with", "this", "which", "from"])


def book_languages(counts: Counter[str]) -> list[str]:
    """The signature languages whose function words make LANGUAGE_SHARE of the book's
    (case-folded) word counts, and RIVAL_SHARE of the commonest one's (Spanish, Italian
    and Portuguese share a few: one of them only, unless the book holds two)."""
    total = sum(counts.values())
    shares = {lang: sum(counts[w] for w in words) for lang, words in SIGNATURES.items()}
    top = max(shares.values(), default=0)
    return [
        lang
        for lang, share in shares.items()
        if total and share >= LANGUAGE_SHARE * total and share >= RIVAL_SHARE * top
    ]


def sole_language(counts: Counter[str]) -> str | None:
    """The one signature language a book is written in; None for an English book, a
    bilingual one, or one where ENGLISH's words make RIVAL_SHARE of that language's (an
    English manual of Italian lorem ipsum)."""
    found = book_languages(counts)
    if len(found) != 1:
        return None
    own = sum(counts[w] for w in SIGNATURES[found[0]])
    return None if sum(counts[w] for w in ENGLISH) >= RIVAL_SHARE * own else found[0]


@cache
def stop_words_of(lang: str) -> frozenset[str]:
    """A signature language's stop words (stopwordsiso's list, case-folded)."""
    import stopwordsiso

    return frozenset(w.casefold() for w in stopwordsiso.stopwords(lang)) | SIGNATURES[lang]
