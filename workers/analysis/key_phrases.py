"""Key phrases of a stretch of a book that has no index: what it names that the rest doesn't.

Candidates are the word n-grams (two or three words) inside runs of content words: a stop
word, a generic verb, a number or punctuation ends a run, so a phrase never starts or ends
with one (RAKE's boundaries). A single word is a candidate only when it looks like a name of
the subject's own (LAPACK, BLAS_LIBS, printf(): capitals or digits inside, an underscore) or
a TeX control word (\\section: it stands alone, never inside a phrase), and so is a word the
element sets as inline code (`Element.code`: "cd", "/opt", shown as set; counted again where
it is a candidate anyway). Filler is no content: lorem ipsum's paragraphs, measures
("10pt"), sample letters ("ABCDE"), numbered placeholders ("arg1", "arg2"). Adverbs end a
run: a word in -ly whose base the book also uses ("map immediately terminates", "available
locally"). In a German book a phrase ends in its noun, which is capitalised ("folgendes
enthält", "Makros geschrieben" are none). Chinese is cut by jieba; its words of two or more
characters are candidates, as are two adjacent ones; Japanese hiragana (particles and verb
endings: "作成します", "場合です") end a run like stop words. A stretch's phrases are ranked by
tf-idf against the book's pages: the count in the stretch times log(pages / pages holding
the phrase), longer phrases first on a tie. Stop words are per language (English below;
Russian, Persian and Chinese from stopwordsiso and the scorer's lists), all applied at once:
the scripts cannot collide; those of a Latin-script language only in a book written in it
(quire.shared.languages).
"""

from __future__ import annotations

import bisect
import math
import re
import unicodedata
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from itertools import pairwise

from quire.shared.ir import Element
from quire.shared.languages import book_languages, stop_words_of
from quire.shared.plan import KeyTerm
from quire.shared.text import HAN, HIRAGANA, MARKS
from quire.workers.analysis.terms import ZH_STOP, jieba_words
from quire.workers.boundaries.candidates import plain_text
from quire.workers.boundaries.scoring import STOP_WORDS, stem
from quire.workers.boundaries.tokens import stop_words

KEY_PHRASES = 8
MAX_WORDS = 3
VERB_SHARE = 0.2  # of a word's uses followed by an article: then it is a verb
BOILERPLATE_USES, BOILERPLATE_SHARE = 5, 0.8  # elements, share opened: see `_boilerplate`
_DETERMINERS = frozenset(
    ["the", "a", "an", "its", "their", "this", "these", "those", "his", "her", "our", "your"]
)
# a word after a subject pronoun is a verb ("it refers to", "if it exists")
_SUBJECTS = frozenset(["it", "he", "she", "they", "we", "who"])
# The same cues in the book's other languages (quire.shared.languages), articles and then
# subject or reflexive pronouns: "le paramètre spécifie la taille", "se utiliza", "si usa".
# Not "des", "du", "del": they follow nouns ("liste des commandes").
_VERB_CUES = {
    "fr": ("le la les un une", "il elle on ils elles se"),
    "es": ("el la los las un una", "se"),
    "it": ("il lo la gli le un una uno", "si"),
}
# a phrase does not end in a past participle ("last command executed", "list printed"); a
# participle before its noun stays ("shared library"), as do "speed" and "seed"
_PARTICIPLE = re.compile(r"^[^\W\d_]{3,}(?<!e)ed$")
_PROSE = frozenset({"heading", "paragraph", "list", "table", "caption"})
# Words that say nothing of a subject in any technical book: verbs of doing and saying,
# and the furniture of books and manuals.
_GENERIC = """
be is are was were been being have has had having do does did done doing make makes made
making use uses used using get gets got getting go goes went gone run runs ran running need
needs needed take takes took taken give gives gave given show shows shown showed see sees
seen find finds found allow allows allowed provide provides provided include includes
included including contain contains contained call calls called try tries tried want wants
wanted work works worked look looks looked change changes changed add adds added create
creates created keep keeps kept put puts let lets say says said know knows known mean means
meant follow follows followed describe describes described explain explains explained
require requires required consider considers considered note notes noted set sets setting
return returns returned specify specifies specified apply applies applied start starts
started try become becomes became seem seems seemed appear appears appeared possible
example examples figure figures table tables section sections chapter chapters page pages
following shown way ways case cases first second third new like just many much number
numbers value values part parts one two three four five etc also
e.g i.e eg ie thing things lot lots kind kinds sort sorts type types instead rather
already always never simply directly usually generally especially particularly actually
really quite fully easily currently typically normally otherwise still again true false
later earlier
"""
# Filler manuals set to show a layout (lorem ipsum, the lipsum package's paragraphs), never
# a subject: an element saying three of these words or more holds no candidates. Real
# Latin says none of them ("dolor", "sed" and "ut" are left out).
_LOREM_WORDS = """
lorem ipsum amet consectetuer consectetur adipiscing adipisicing elit nonummy nibh euismod
tincidunt laoreet volutpat pellentesque vestibulum curabitur mauris phasellus maecenas
aenean fusce quisque morbi proin cras vivamus suspendisse nullam donec etiam nunc
sociis natoque penatibus parturient nascetur ridiculus viverra rhoncus posuere pede gravida
luctus dignissim tortor orci urna auctor ullamcorper lobortis hendrerit vulputate molestie
feugiat facilisis accumsan blandit luptatum zzril delenit feugait facilisi commodo
"""
_LOREM = frozenset(_LOREM_WORDS.split())
# as printed (looked up among an element's tokens without folding each of them)
_LOREM_SPELLED = frozenset(f(w) for w in _LOREM for f in (str.lower, str.capitalize, str.upper))
# Control words that say nothing of a session: environment brackets, a conditional's
# branches, the placeholders manuals name their examples' macros by
_CONTROL = r"\begin \end \fi \else \or \foo \baz \foobar"
_EN_STOP = frozenset(_GENERIC.split()) | frozenset(_CONTROL.split()) | STOP_WORDS
_NO_NAMES: Mapping[str, str] = {}
_SIGILS = frozenset("$-/.@%~()")  # around a code name: "$HOME", "--help", "/usr/", "f()"
# the names examples give to anything ("foo", "bar"): set as code, still no term
_PLACEHOLDERS = frozenset(["foo", "bar", "baz", "qux", "quux", "foobar", "xyz"])
# An elided article or preposition is a word of its own (French "d’une commande", Italian
# "dell’input": "une commande", "input"); a zero-width non-joiner is inside a Persian word.
_ELIDED = r"(?i:dell|all|dall|nell|sull|quell|qu|[dlnsjcmt])['’](?=[^\W\d_])"
# A TeX control word ("\\section") is a token: a manual's commands are what it teaches;
# a word's leading underscores are part of it ("__init__", "_exit")
_CONTROL_WORD = r"\\[A-Za-z@]{2,}"
_TOKEN = re.compile(
    _CONTROL_WORD
    + "|"
    + _ELIDED
    + rf"|_*[^\W\d_][\w{MARKS}'’\u200c\u200d-]*[\w{MARKS}]|[^\W\d_]|\d[\w.]*|[^\w\s]"
)
_HAN_RUN = re.compile(f"[{HAN}]+")
# a text's Han runs (cut by jieba) and hiragana runs (a token each, never content)
_CJK_RUN = re.compile(f"[{HAN}]+|[{HIRAGANA}]+")
_HIRAGANA_ONLY = re.compile(f"[{HIRAGANA}]+")
# an adverb's ending and the endings of its base: "locally" local, "easily" easy,
# "possibly" possible, "automatically" automatic
_ADVERB = re.compile(r"^([^\W\d_]{3,}?)(ically|ily|bly|ly)$")
_ADVERB_BASES = {"ically": ("ic", "ical"), "ily": ("y",), "bly": ("ble",), "ly": ("", "le")}
_NOT_ADVERBS = frozenset(["assembly", "apply", "reply", "supply", "early", "only"])
_TECHNICAL = re.compile(r"^(?:[A-Z]{2,}[A-Za-z0-9_]*|\w*[a-z][A-Z]\w*|\w*_\w+|[A-Za-z]+\d\w*)$")
_LATIN = re.compile(r"[A-Za-z]")
_CJK_ONLY = re.compile(f"^[{HAN}]+$")
# A measure ("10pt", "1.5em", "3cm") or a number is no term; "2D", "3D" are
_MEASURE = re.compile(r"^\d(?![dD]$)")
# A character code is no term: "xAA", "x9B", "0x1F", "U+00E9", a glyph's "C26A" (a font's
# encoding table); "x86" may be the processor
_CHAR_CODE = re.compile(
    r"^(?:(?:0x|U\+)[0-9A-Fa-f]{2,6}|x(?=\d*[A-F])[0-9A-F]{2,4}"
    r"|(?=[A-F]*\d)(?=\d*[A-F])[0-9A-F]{4,6})$"
)
# A numbered placeholder ("arg1", "arg2", "file1"): a word and a digit, the book using the
# word with two digits or more
_NUMBERED = re.compile(r"^([^\W\d_]+)(\d)$")


@cache
def _stop() -> frozenset[str]:
    words = set(_EN_STOP) | stop_words(None) | ZH_STOP
    try:
        import stopwordsiso  # per-language lists for Russian, Persian and Chinese

        for language in ("ru", "fa", "zh"):
            words |= {w.casefold() for w in stopwordsiso.stopwords(language)}
    except ImportError:  # pragma: no cover - a dependency of the package
        pass
    return frozenset(words)


@lru_cache(maxsize=1 << 16)  # a book says the same words over and over
def _is_content(
    word: str, verbs: frozenset[str] = frozenset(), stop: frozenset[str] = frozenset()
) -> bool:
    folded = word.casefold()
    if folded in _stop() or folded in verbs or folded in stop or not any(c.isalpha() for c in word):
        return False
    if folded.endswith(("'", "’")):
        return False  # an elided article: "d’", "dell’"
    if _HIRAGANA_ONLY.fullmatch(word):
        return False  # Japanese particles and verb endings
    if _MEASURE.match(word) or _CHAR_CODE.match(word) or _sample_letters(folded):
        return False
    return not (len(folded) < 2 or (_LATIN.match(word) and len(folded) < 3))


def _lorem(tokens: list[str]) -> bool:
    return len({t.casefold() for t in _LOREM_SPELLED.intersection(tokens)}) >= 3


def _sample_letters(folded: str) -> bool:
    """Runs of the alphabet or of digits, each of three or more ("abcd", "abcdeabcde1234"),
    or one letter repeated ("aaa")."""
    if len(folded) >= 3 and folded == folded[0] * len(folded) and folded[0].isalpha():
        return True
    runs = [1]
    for a, b in pairwise(folded):
        if ord(b) == ord(a) + 1 and (a + b).isascii() and (a + b).isalnum():
            runs[-1] += 1
        else:
            runs.append(1)
    return len(folded) >= 4 and min(runs) >= 3


def _adverbs(counts: Counter[str]) -> frozenset[str]:
    """The book's adverbs: folded words in -ly whose base it also uses ("immediately":
    "immediate"); "family", "assembly", "supply" have none."""
    found = set()
    for word in counts:
        m = _ADVERB.match(word) if word.endswith("ly") and word not in _NOT_ADVERBS else None
        if m and any(m.group(1) + end in counts for end in _ADVERB_BASES[m.group(2)]):
            found.add(word)
    return frozenset(found)


def _placeholders(token_lists: Iterable[list[str]]) -> frozenset[str]:
    """The book's numbered placeholders (`_NUMBERED`), case-folded."""
    digits: dict[str, set[str]] = {}
    for tokens in token_lists:
        for t in tokens:
            m = _NUMBERED.match(t) if t[-1].isdigit() else None
            if m:
                digits.setdefault(m.group(1).casefold(), set()).add(m.group(2))
    return frozenset(f"{w}{d}" for w, ds in digits.items() if len(ds) >= 2 for d in ds)


def verb_like(texts: Iterable[str]) -> frozenset[str]:
    """English words the book uses as verbs: those often followed by an article or a
    possessive ("selects the rows", "returns a list"), which a noun rarely is, or often
    after a subject pronoun ("it refers to"), which a noun never is. No tagger needed, and
    no phrase then runs across a verb ("subscripts selects rows", "name refers")."""
    return _verbs_of(_TOKEN.findall(text) for text in texts)


def _verbs_of(token_lists: Iterable[list[str]], languages: Sequence[str] = ()) -> frozenset[str]:
    """`verb_like` of texts already split by `_TOKEN`, also by the cues of `languages`."""
    cues = [_VERB_CUES[lang] for lang in languages if lang in _VERB_CUES]
    articles = _DETERMINERS.union(*(a.split() for a, _ in cues))
    subjects = _SUBJECTS.union(*(p.split() for _, p in cues))
    seen: Counter[str] = Counter()
    before: Counter[str] = Counter()
    for tokens in token_lists:
        folded = [t.casefold() for t in tokens]
        seen.update(folded[:-1])  # every word followed by another
        before.update(a for a, b in pairwise(folded) if b in articles)
        before.update(b for a, b in pairwise(folded) if a in subjects)
    return frozenset(
        w for w, n in before.items() if n >= 2 and n >= VERB_SHARE * seen[w] and w.isalpha()
    )


# A word as a run sees it: (spelling, case-folded, all Han, a candidate on its own)
_Word = tuple[str, str, bool, bool]


@dataclass
class _Words:
    """What a document's words are (content or boundary, folded, Han, technical), each
    word decided once: a book says the same words over and over."""

    verbs: frozenset[str] = frozenset()
    # the book's own language's stop words (Latin script), numbered placeholders, adverbs
    stop: frozenset[str] = frozenset()
    nouns_capitalised: bool = False  # a German book: a phrase ends in a capitalised word
    facts: dict[str, _Word | None] = field(default_factory=dict)  # None: a boundary

    def runs(
        self, tokens: Iterable[str], names: Mapping[str, str] = _NO_NAMES
    ) -> Iterator[list[_Word]]:
        """Runs of content words between boundaries (stop words, verbs, numbers,
        punctuation); each word of `names` (the element's inline code) is also a candidate
        alone, as the author set it (see the loop)."""
        facts = self.facts
        run: list[_Word] = []
        for token in tokens:
            if token in facts:
                fact = facts[token]
            else:
                fact = facts[token] = self._fact(token)
            if token in names:
                # a name the author sets as code: a candidate however short or common
                # ("cd", "/opt"), and counted again where it is one anyway ("\\section");
                # the word still reads on in phrases ("date" and "date field")
                shown = names[token]
                yield [(shown, shown.casefold(), False, True)]
            if fact is not None and token[0] != "\\":
                run.append(fact)
                continue
            if run:
                yield run
                run = []
            if fact is not None:  # a control word is a candidate alone, never in a phrase
                yield [fact]
        if run:
            yield run

    def _fact(self, word: str) -> _Word | None:
        if not _is_content(word, self.verbs, self.stop):
            return None
        cjk = _HAN_RUN.fullmatch(word) is not None
        named = word[0] == "\\" or _TECHNICAL.match(word) is not None
        return (word, word.casefold(), cjk, cjk or named)


def _tokens(text: str) -> Iterable[str]:
    pos = 0
    for m in _CJK_RUN.finditer(text):
        yield from _TOKEN.findall(text[pos : m.start()])
        run = m.group()
        if _HIRAGANA_ONLY.match(run):
            yield run
        else:
            yield from jieba_words(run)
        pos = m.end()
    yield from _TOKEN.findall(text[pos:])


def candidates(text: str, verbs: frozenset[str] = frozenset()) -> Iterable[str]:
    """The candidate phrases of `text` (in their spelling there), with repeats; `verbs`:
    words that end a run like stop words (`verb_like`)."""
    tokens = _tokens(unicodedata.normalize("NFKC", text))
    return (phrase for phrase, _ in _phrases(tokens, _Words(verbs)))


def _phrases(
    tokens: Iterable[str], words: _Words, names: Mapping[str, str] = _NO_NAMES
) -> Iterator[tuple[str, str]]:
    """(phrase, its key) of every candidate among `tokens`: single words that name
    something (`names`: set as inline code), and two to `MAX_WORDS` distinct words of a run
    (Han words joined without a space). The key is the phrase case-folded (folding is per
    character, so the folded words joined are the folded phrase)."""
    for run in words.runs(tokens, names):
        for i, (word, folded, _, single) in enumerate(run):
            if single:
                yield word, folded
            keys = {folded}
            for j in range(i + 1, min(i + MAX_WORDS, len(run))):
                if run[j][1] in keys:
                    break  # a repeated word: this gram and every longer one are no phrase
                keys.add(run[j][1])
                if _PARTICIPLE.match(run[j][1]):
                    continue
                gram = run[i : j + 1]
                if words.nouns_capitalised and run[j][0] == run[j][1]:
                    continue  # a German noun phrase ends in its noun, which is capitalised
                joiner = "" if all(w[2] for w in gram) else " "
                yield joiner.join(w[0] for w in gram), joiner.join(w[1] for w in gram)


def _boilerplate(opening: int, holding: int) -> bool:
    """A phrase of two words or more that opens the elements it is in (after any opening
    punctuation), again and again, is a template's words ("(End definition for \\foo.)",
    "Default value: 0"), not a subject."""
    return holding >= BOILERPLATE_USES and opening >= BOILERPLATE_SHARE * holding


def _openings(tokens: list[str]) -> set[str]:
    """The folded two- and three-word openings of an element (after any punctuation)."""
    lead = next((i for i, t in enumerate(tokens) if t[0].isalnum()), 0)
    first = [t.casefold() for t in tokens[lead : lead + MAX_WORDS]]
    return {" ".join(first[:n]) for n in range(2, MAX_WORDS + 1)}


def code_names(code: Sequence[str] | None) -> dict[str, str]:
    """The names an element sets as inline code, each word with its run as set: the runs
    of one word ("cd", "printf()", "$HOME", "/opt", "--help": a sigil around the word), two
    letters or more; no stop or generic word ("if", "in", "true", "value"), placeholder
    ("foo") or character code ("x01", "FB00")."""
    names: dict[str, str] = {}
    for run in code or ():
        tokens = _TOKEN.findall(run)
        words = [t for t in tokens if t[0].isalpha() or t[0] in "\\_"]
        if len(words) == 1 and len(tokens) <= 4 and sum(map(str.isalpha, words[0])) >= 2:
            folded = words[0].casefold()
            if (
                folded not in _stop()
                and folded not in _PLACEHOLDERS
                and not _CHAR_CODE.match(words[0])
            ):
                # shown with its sigils, not with brackets ("<package>" reads as a
                # template's blank to the analysis rules)
                sigils = set(run.replace(words[0], "", 1))
                names.setdefault(words[0], run if sigils <= _SIGILS else words[0])
    return names


def _word_counts(token_lists: Iterable[list[str]]) -> Counter[str]:
    """The book's words, case-folded, counted (the languages and adverbs it has)."""
    return Counter(t.casefold() for tokens in token_lists for t in tokens if t[0].isalpha())


def stemmed(phrase: str) -> str:
    """ "home directories" -> "home directory": plurals compare equal."""
    return " ".join(stem(w) for w in phrase.casefold().split())


@dataclass
class PhraseIndex:
    """Every candidate phrase occurrence of a document, by element position."""

    pages: int
    positions: array[int] = field(default_factory=lambda: array("i"))  # ascending
    ids: array[int] = field(default_factory=lambda: array("i"))
    keys: list[str] = field(default_factory=list)  # id -> key
    spelling: list[dict[str, int]] = field(default_factory=list)  # id -> spellings
    df: list[int] = field(default_factory=list)  # id -> pages holding it
    boilerplate: set[int] = field(default_factory=set)  # ids of `_boilerplate` phrases

    @classmethod
    def of(cls, elements: Sequence[Element]) -> PhraseIndex:
        pages = {p for e in elements for p in e.page_numbers}
        out = cls(max(len(pages), 1))
        vocab: dict[str, int] = {}
        seen_on: list[set[int]] = []
        texts = {pos: plain_text(e) for pos, e in enumerate(elements) if e.type in _PROSE}
        split = {pos: _TOKEN.findall(text) for pos, text in texts.items()}
        for pos in [pos for pos, tokens in split.items() if _lorem(tokens)]:
            del texts[pos], split[pos]
        counts = _word_counts(split.values())
        languages = book_languages(counts)
        stop = frozenset().union(*map(stop_words_of, languages)) | _placeholders(split.values())
        stop |= _adverbs(counts)
        words = _Words(_verbs_of(split.values(), languages), stop, languages == ["de"])
        opening: Counter[int] = Counter()  # id -> elements it opens
        holding: Counter[int] = Counter()  # id -> elements it is in
        for pos, text in texts.items():
            page = elements[pos].page_first
            if unicodedata.is_normalized("NFKC", text) and not _CJK_RUN.search(text):
                tokens: Iterable[str] = split[pos]  # what `_tokens` would find again
            else:
                tokens = _tokens(unicodedata.normalize("NFKC", text))
            opens = _openings(split[pos])
            here: set[int] = set()
            for phrase, key in _phrases(tokens, words, code_names(elements[pos].code)):
                k = vocab.get(key)
                if k is None:
                    k = vocab[key] = len(out.keys)
                    out.keys.append(key)
                    out.spelling.append({})
                    seen_on.append(set())
                spelled = out.spelling[k]
                spelled[phrase] = spelled.get(phrase, 0) + 1
                seen_on[k].add(page)
                out.positions.append(pos)
                out.ids.append(k)
                here.add(k)
            holding.update(here)
            opening.update(k for k in here if out.keys[k] in opens)
        out.df = [len(s) for s in seen_on]
        out.boilerplate = {
            k for k, n in opening.items() if " " in out.keys[k] and _boilerplate(n, holding[k])
        }
        return out

    def top(self, lo: int, hi: int, k: int = KEY_PHRASES) -> list[KeyTerm]:
        """The k key phrases of elements lo..hi (positions, inclusive)."""
        a = bisect.bisect_left(self.positions, lo)
        b = bisect.bisect_right(self.positions, hi)
        tf = Counter(self.ids[a:b])
        floor = 2 if b - a >= 300 else 1  # in a stretch of some size, once is noise
        scored = []
        for i, count in tf.items():
            if count < floor or i in self.boilerplate:
                continue
            # no smoothing: a phrase on most pages of the book is no key to any of them
            idf = math.log((1 + self.pages) / (1 + self.df[i]))
            key = self.keys[i]
            words = (
                len(key.split())
                if " " in key
                else 1 + (len(key) >= 4 and _CJK_ONLY.match(key) is not None)
            )
            scored.append((round(count * idf * (1 + 0.25 * (words - 1)), 4), i, count))
        scored.sort(key=lambda t: (-t[0], self.keys[t[1]]))
        chosen: list[KeyTerm] = []
        for weight, i, count in scored:
            key = stemmed(self.keys[i])
            if weight <= 0 or any(key in stemmed(c.term) or stemmed(c.term) in key for c in chosen):
                continue  # a part of a phrase already chosen (or a plural of one), or the reverse
            spelling = sorted(self.spelling[i].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
            chosen.append(KeyTerm(term=spelling, count=count, weight=weight, source="phrase"))
            if len(chosen) == k:
                break
        return chosen
