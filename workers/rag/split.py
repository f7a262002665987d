"""Split one element's text into units that a retrieval chunk may not cut, by element type.

- paragraph, caption: sentences;
- table: the header row and its separator row (one unit), then one unit per row; a chunk
  that starts at a row repeats the header in front of it (see `Unit.header`);
- list: items (an item's indented continuation lines stay with it);
- code, formula: lines (a code fence never ends or starts a chunk alone);
- heading, image: one unit.

A unit longer than the cap allows is split at word boundaries (whitespace runs) and a word
still too long at character boundaries; those units say so (`cut` "word" / "char"). The
invariant every caller relies on: `"".join(u.sep + u.text for u in units) == element.text`
with `units[0].sep == ""`. Splitting never rewrites a character.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from quire.shared.ir import Element
from quire.shared.rag import Cut

# Sentence ends: terminal punctuation, optional closing quotes/brackets, then whitespace.
_SENTENCE_END = re.compile(r"[.!?…؟](?:[\"'”’»)\]]*)(\s+)")
# A '.' after these is not a sentence end ("e.g. the", "Fig. 3", "J. Smith").
_ABBREVIATION_WORDS = """
e.g i.e etc cf vs al fig figs eq eqs sec ch chap no nos vol pp p approx dr mr mrs ms prof
st jr sr resp incl esp viz ca ed eds min max ref refs tab art
"""
_ABBREVIATIONS = frozenset(_ABBREVIATION_WORDS.split())
_ITEM_START = re.compile(r"(?:[-*+•]|\d+[.)])(?:\s|$)")
_WHITESPACE = re.compile(r"\s+")
_TABLE_SEPARATOR = re.compile(r"\|(?:\s*:?-+:?\s*\|)+")
HEADER_SHARE = 3  # a table header is repeated only when it takes at most 1/3 of the cap


@dataclass(frozen=True)
class Unit:
    text: str
    sep: str  # source text between the previous unit of the element and this one
    cut: Cut  # what kind of boundary lies before this unit (ignored for the first)
    glue_next: bool = False  # a chunk may not end after this unit
    glue_prev: bool = False  # a chunk may not start with this unit
    header: str | None = None  # table: repeated in front when a chunk starts here


def sentences(text: str) -> list[tuple[str, str]]:
    """(sentence, separator before it) pairs; the separators are the original whitespace."""
    out: list[tuple[str, str]] = []
    start = 0
    sep = ""
    for m in _SENTENCE_END.finditer(text):
        ws_start, ws_end = m.span(1)
        if ws_end >= len(text):
            break  # trailing whitespace belongs to the last sentence
        if not _is_sentence_end(text, m.start(), ws_end):
            continue
        out.append((text[start:ws_start], sep))
        sep = text[ws_start:ws_end]
        start = ws_end
    out.append((text[start:], sep))
    return out


def _is_sentence_end(text: str, punct: int, next_start: int) -> bool:
    following = text[next_start]
    if following.islower():
        return False  # "e.g. the", "approx. five": the sentence goes on
    if text[punct] != ".":
        return True
    word = text[:punct].rsplit(None, 1)[-1] if text[:punct].strip() else ""
    bare = word.lstrip("([\"'“‘").lower()
    if bare in _ABBREVIATIONS:
        return False
    if len(bare) == 1 and bare.isalpha():
        return False  # an initial: "J. Smith", "A. B. Author"
    return not (bare.isdigit() and punct - len(word) == 0)  # "1. Introduction"


def _lines(text: str, cut: Cut) -> list[Unit]:
    return [Unit(line, "\n" if i else "", cut) for i, line in enumerate(text.split("\n"))]


def _list_items(text: str) -> list[Unit]:
    items: list[list[str]] = []
    for line in text.split("\n"):
        if not items or _ITEM_START.match(line):
            items.append([line])
        else:
            items[-1].append(line)
    return [Unit("\n".join(item), "\n" if i else "", "item") for i, item in enumerate(items)]


def _table(text: str, max_chars: int) -> list[Unit]:
    lines = text.split("\n")
    if len(lines) < 2 or not lines[0].startswith("|") or not _TABLE_SEPARATOR.fullmatch(lines[1]):
        return _lines(text, "row")
    head = f"{lines[0]}\n{lines[1]}"
    header = head + "\n" if len(head) + 1 <= max_chars // HEADER_SHARE else None
    units = [Unit(head, "", "row", glue_next=len(lines) > 2)]
    units += [Unit(row, "\n", "row", header=header) for row in lines[2:]]
    return units


def _code(text: str) -> list[Unit]:
    units = _lines(text, "line")
    lines = text.split("\n")
    fence = re.match(r"`{3,}", lines[0])
    if fence and len(lines) >= 2 and lines[-1] == fence.group(0):
        units[0] = replace(units[0], glue_next=True)
        units[-1] = replace(units[-1], glue_prev=True)
    return units


def element_units(el: Element, max_chars: int) -> list[Unit]:
    """The element's units, each short enough to start a chunk on its own."""
    text = el.text
    if el.type in ("paragraph", "caption"):
        units = [Unit(s, sep, "sentence") for s, sep in sentences(text)]
    elif el.type == "table":
        units = _table(text, max_chars)
    elif el.type == "list":
        units = _list_items(text)
    elif el.type in ("code", "formula"):
        units = _code(text) if el.type == "code" else _lines(text, "line")
    else:
        units = [Unit(text, "", "element", glue_next=el.type == "heading")]
    out: list[Unit] = []
    for u in units:
        cap = max_chars - len(u.header or "")
        out += [u] if len(u.text) <= cap else split_words(u, cap)
    return out


def split_words(unit: Unit, cap: int) -> list[Unit]:
    """A unit longer than `cap` as word pieces (and character pieces for longer words).

    Leading whitespace stays with the first word. The first piece keeps the unit's `sep`,
    `cut`, `header` and `glue_prev`; the last keeps `glue_next`.
    """
    text = unit.text
    pieces: list[tuple[str, str, Cut]] = []
    start = len(text) - len(text.lstrip())
    word_start, sep = 0, ""
    for m in _WHITESPACE.finditer(text, start):
        if m.end() >= len(text):
            break
        pieces.append((text[word_start : m.start()], sep, "word"))
        sep = m.group(0)
        word_start = m.end()
    pieces.append((text[word_start:], sep, "word"))
    out: list[Unit] = []
    for word, word_sep, cut in pieces:
        for k in range(0, max(len(word), 1), cap):
            out.append(
                Unit(word[k : k + cap], word_sep if k == 0 else "", cut if k == 0 else "char")
            )
    first = out[0]
    out[0] = replace(
        first, sep=unit.sep, cut=unit.cut, header=unit.header, glue_prev=unit.glue_prev
    )
    out[-1] = replace(out[-1], glue_next=unit.glue_next)
    return out


def fit_head(unit: Unit, room: int) -> tuple[Unit, Unit] | None:
    """Cut `unit` so its head fits in `room` characters: at the last word boundary that
    fits, else at `room` characters. None when no non-empty head fits."""
    text = unit.text
    if room < 1 or len(text) <= 1:
        return None
    best: re.Match[str] | None = None
    lead = len(text) - len(text.lstrip())
    for m in _WHITESPACE.finditer(text, lead):
        if m.start() > room:
            break
        if m.start() > 0 and m.end() < len(text):
            best = m
    cut: Cut
    if best is not None:
        head_text, sep, rest_text = text[: best.start()], best.group(0), text[best.end() :]
        cut = "word"
    else:
        head_text, sep, rest_text = text[:room], "", text[room:]
        cut = "char"
    if not head_text or not rest_text:
        return None
    head = replace(unit, text=head_text, glue_next=False)
    rest = Unit(rest_text, sep, cut, glue_next=unit.glue_next)
    return head, rest
