"""Line-end hyphens: undone where they only break a word ("num-" / "ber" -> "number"), kept
where the word is really hyphenated ("sub-" / "line" -> "sub-line", "texmf-dist").

The document's own vocabulary decides: every word as written inside its lines (never the
fragments around a line-end hyphen) is counted, and a break becomes the form the document
uses more often elsewhere, the joined word or the hyphenated one. When it uses neither, the
break is a compound when both parts are words of the document on their own ("sub", "line"),
a suspended hyphen when the next word is one of the document's commonest ("Haupt- und
Nebensatz", "pre- and post-"), else a broken word (TeX breaks words far more often than
it breaks at a compound's hyphen).

Each hyphen taken out is marked in the joined text by `JOIN` (a Unicode noncharacter, meant
for internal use and absent from extracted text) until the element is built; `take_joins`
then removes the marks and returns their offsets, which the IR keeps (`joined_hyphens`)
so the source's form of the text can be restored and checked.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

JOIN = "\ufdd0"
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_TAIL = re.compile(r"([^\W\d_]+(?:-[^\W\d_]+)*)-$")  # the broken word before a line-end "-"
_HEAD = re.compile(r"[^\W\d_]+")
COMMON = 30  # the document's commonest words: function words ("und", "and", "or")


def is_break(before: str, after: str) -> bool:
    """A hyphen at the end of `before` between letters, `after` going on in lower case."""
    return before.endswith("-") and before[-2:-1].isalpha() and after[:1].islower()


class Vocabulary:
    """How often the document writes each word (case-folded) inside a line."""

    def __init__(self, counts: Counter[str]) -> None:
        self.counts = counts
        self.common = {w for w, _ in counts.most_common(COMMON)}

    @classmethod
    def from_lines(cls, blocks: Iterable[list[str]]) -> Vocabulary:
        """Count the words of each block's lines, leaving out the two fragments of every
        line-end break (they are what is being decided)."""
        counts: Counter[str] = Counter()
        for raw in blocks:
            lines = [unicodedata.normalize("NFC", ln) for ln in raw]
            broken = False  # the previous line ended in a break: skip this line's first word
            for i, line in enumerate(lines):
                words = _WORD.findall(line)
                nxt = lines[i + 1] if i + 1 < len(lines) else ""
                ends_in_break = is_break(line, nxt)
                counts.update(w.casefold() for w in words[int(broken) : len(words) - ends_in_break])
                broken = ends_in_break
        return cls(counts)

    def breaks_word(self, before: str, after: str) -> bool:
        """Does the hyphen ending `before` only break a word that `after` finishes?"""
        parts = _parts(before, after)
        if parts is None:
            return False
        first, rest = parts
        joined = self.counts[(first + rest).casefold()]
        hyphenated = self.counts[f"{first}-{rest}".casefold()]
        if joined or hyphenated:
            return joined >= hyphenated
        last_part, rest = first.rsplit("-", 1)[-1].casefold(), rest.casefold()
        if rest in self.common:
            return False
        return not (len(last_part) >= 2 and self.counts[last_part] and self.counts[rest])

    def breaks_address(self, before: str, after: str) -> bool:
        """Does the hyphen ending `before`, inside a web address, break a word? A hyphen
        at a line end inside an address is the address's own unless the document writes
        the joined word ("gnucash") more often than the hyphenated one, and at least once:
        an address is no sentence, so a word's parts prove nothing here."""
        parts = _parts(before, after)
        if parts is None:
            return False
        first, rest = parts
        return self.counts[(first + rest).casefold()] > self.counts[f"{first}-{rest}".casefold()]


def _parts(before: str, after: str) -> tuple[str, str] | None:
    """The word before a line-end break and the start of the next line's ("num", "ber")."""
    if not is_break(before, after):
        return None
    tail = _TAIL.search(before[-80:].replace(JOIN, ""))
    head = _HEAD.match(after)
    return None if tail is None or head is None else (tail.group(1), head.group())


_CELL_BREAK = re.compile(r"(?<=[^\W\d_])- (?=[^\W\d_])")


def join_cell_breaks(text: str, words: Vocabulary) -> str:
    """A table cell's text, whose words the finder joined with spaces ("font specifi- er."),
    with each line-end break the vocabulary calls a broken word joined ("specifier."); a
    compound, a suspended hyphen ("pre- and post-") or a list of prefixes ("jñ- jh-" in a
    transliteration table: the word after ends in a hyphen too) stays as the cell reads."""
    if "- " not in text:
        return text
    out, last = [], 0
    for m in _CELL_BREAK.finditer(text):
        after = text[m.end() :]
        if after.split(maxsplit=1)[0].endswith("-"):
            continue
        if words.breaks_word(text[: m.start() + 1], after):
            out.append(text[last : m.start()])
            last = m.end()
    return "".join(out) + text[last:]


def take_joins(text: str) -> tuple[str, list[int]]:
    """`text` without its JOIN marks, and the offsets where they stood (in the result)."""
    if JOIN not in text:
        return text, []
    parts = text.split(JOIN)
    offsets: list[int] = []
    at = 0
    for part in parts[:-1]:
        at += len(part)
        offsets.append(at)
    return "".join(parts), offsets


def keep_stranded(text: str) -> str:
    """`text` with every JOIN that no longer sits between two letters (link markup was
    written beside it) back to the hyphen it was: the source's text, nothing recorded."""
    if JOIN not in text:
        return text
    n = len(text)
    return "".join(
        "-"
        if c == JOIN and not (0 < i < n - 1 and text[i - 1].isalpha() and text[i + 1].isalpha())
        else c
        for i, c in enumerate(text)
    )


def strip_marks(text: str) -> str:
    return text.replace(JOIN, "")
