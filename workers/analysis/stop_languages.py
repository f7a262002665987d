"""Which Latin-script languages a book is written in, told by its function words, and
their stop words.

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

LANGUAGE_SHARE = 0.03  # English manuals stay under 0.026; the sweep's French, German... over 0.035
_SIGNATURES = {
    "de": "der die das und ist nicht mit für auf den dem des ein eine einer wird werden sich "
    "auch oder wenn bei",
    "fr": "le la les des est pour dans une que qui sur avec pas sont du au aux ce cette peut être",
    "es": "el los las del que por para con una como es se al sus este esta puede más",
    "it": "il della che per con una sono del gli nel alla delle questo questa può essere anche",
    "pt": "os da das do dos que para com uma não em ao pelo pela você este esta pode",
    "nl": "het een van en niet voor met zijn wordt ook door naar worden deze kan",
    "pl": "się nie jest oraz jak dla przez lub być może jego tym które który",
    "cs": "je se na pro že jako nebo být jsou také které který tak při",
    "ro": "și este care pentru sau sunt prin această din într poate fi",
    "hu": "az és hogy nem egy ez meg van csak vagy mint",
    "sv": "och att det som för med är på inte av till den har kan",
}
SIGNATURES = {lang: frozenset(words.split()) for lang, words in _SIGNATURES.items()}


def book_languages(counts: Counter[str]) -> list[str]:
    """The signature languages whose function words make LANGUAGE_SHARE of the book's
    (case-folded) word counts."""
    total = sum(counts.values())
    return [
        lang
        for lang, words in SIGNATURES.items()
        if total and sum(counts[w] for w in words) >= LANGUAGE_SHARE * total
    ]


@cache
def stop_words_of(lang: str) -> frozenset[str]:
    """A signature language's stop words (stopwordsiso's list, case-folded)."""
    import stopwordsiso

    return frozenset(w.casefold() for w in stopwordsiso.stopwords(lang)) | SIGNATURES[lang]
