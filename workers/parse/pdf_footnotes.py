"""Footnotes in PDFs: the marks in the text, the notes at the foot of the page, and how the
merge step ties each note to the element holding its reference.

On the page (extraction, nothing from other pages):
- a *raised mark* is a span of one to three digits, a note symbol (* † ‡ § ¶ ‖) or one
  lower-case letter, set smaller than its line's text and raised above its baseline (or
  flagged superscript by MuPDF). Its text is wrapped in NOTE_OPEN/NOTE_CLOSE (Unicode
  non-characters, which no text layer holds) so the mark can be found again after lines
  became paragraphs; the merge step turns a wrapped mark into a footnote reference or
  unwraps it (the text is then exactly what it was without this module);
- the *footnote area* is the smaller type below a short rule in the lower part of the page
  (LaTeX, FOP and Word all draw one), in the rule's column, down to the first gap or line
  that is not part of it (a page number, a colophon). Without a rule, the smaller lines
  at the bottom of the column count only if they start with a raised mark that is also
  raised in the text above. A note starts at a line opening with a mark; the lines after
  it, up to the next mark, are its text (a wider gap starts a new paragraph).

In the merge (`NoteSet`): every note finds the first unused raised mark equal to its own
in an element on its page (else the page before) and becomes a footnote element right
after that element; the mark becomes `[^label]`. Where the text layer does not show the
mark raised (dblatex sets it at full size, or as Unicode superscript digits), a link to the
note (hyperref links every mark) names the element, and the mark is the one standing as a
word of its own after punctuation (pdf_links.tie_notes). A note whose reference is not
found stays a paragraph where it stood, its mark in front, as before.
"""

from __future__ import annotations

import bisect
import functools
import re
import statistics
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from quire.shared.links import footnote_def, footnote_ref, note_label
from quire.shared.text import is_cjk
from quire.workers.parse.pdf_types import Row

NOTE_OPEN, NOTE_CLOSE = "\U0001fffe", "\U0001ffff"
_SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹"  # digits a text layer may give for raised ones
_MARK = re.compile(r"\d{1,3}|[۰-۹]{1,3}|[٠-٩]{1,3}|[*∗†‡§¶‖]{1,3}|[a-z]")
_HAS_WRAPPED = re.compile(f"[{NOTE_OPEN}{NOTE_CLOSE}]")
# A note line's opening mark: a raised one, or (only where no mark in the area is raised)
# a plain number or symbol, glued to the text or followed by a space.
_LEAD_RAISED = re.compile(rf"^\s*{NOTE_OPEN}([^{NOTE_CLOSE}]+){NOTE_CLOSE}\s*")
_TRAIL_RAISED = re.compile(rf"\s*{NOTE_OPEN}([^{NOTE_CLOSE}]+){NOTE_CLOSE}\s*$")
_LEAD_PLAIN = re.compile(rf"^\s*([\d{_SUPERSCRIPT}]{{1,3}}|[*∗†‡§¶‖])\s?(?=\S)")
_SMALL = 0.92  # note text is at most this share of the body size
_LOWER = 0.4  # a footnote rule lies below this share of the page height
_FOOT = 0.75  # ... and its notes reach below this share


def wrap_mark(text: str) -> str:
    """`text` with its mark wrapped, surrounding spaces left outside."""
    core = text.strip()
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()) :]
    return f"{lead}{NOTE_OPEN}{core}{NOTE_CLOSE}{trail}"


def unwrap_marks(text: str) -> str:
    """`text` without mark wrappers: the text as extracted."""
    return _HAS_WRAPPED.sub("", text) if NOTE_OPEN in text or NOTE_CLOSE in text else text


def note_marks(spans: Sequence[dict[str, Any]], mixed: bool, prev: Row | None) -> set[int]:
    """Indexes of the spans of one MuPDF line that are note marks: raised ones in a line
    of `mixed` sizes, or the whole line when it is a lone mark (see `lone_mark`)."""
    return raised_marks(spans) if mixed else lone_mark(spans, prev)


def raised_marks(spans: Sequence[dict[str, Any]]) -> set[int]:
    """Indexes of the spans of one MuPDF line that are raised note marks. (Called for every
    line: most lines have no span that could be one, and leave at the first test.)"""
    if len(spans) < 2:
        return set()
    top = max(s["size"] for s in spans)
    maybe = [
        i
        for i, s in enumerate(spans)
        if s["size"] <= top * 0.9 and len(s["text"]) <= 5 and _MARK.fullmatch(s["text"].strip())
    ]
    if not maybe:
        return set()
    sizes: dict[float, int] = {}
    for s in spans:
        size = round(s["size"], 1)
        sizes[size] = sizes.get(size, 0) + len(s["text"].strip())
    body = max(sizes.items(), key=lambda kv: kv[1])[0]
    baseline = statistics.median(s["origin"][1] for s in spans if round(s["size"], 1) == body)
    return {
        i
        for i in maybe
        if spans[i]["size"] <= body * 0.9
        and (spans[i]["flags"] & 1 or baseline - spans[i]["origin"][1] >= 0.1 * body)
    }


def lone_mark(spans: Sequence[dict[str, Any]], prev: Row | None) -> set[int]:
    """{0} when a line is nothing but a mark, smaller than the line before it and level
    with it (a mark pushed to the start of the next line, or set as a line of its own)."""
    if len(spans) != 1 or prev is None:
        return set()
    s = spans[0]
    core = s["text"].strip()
    y0, y1 = s["bbox"][1], s["bbox"][3]
    if _MARK.fullmatch(core) and s["size"] <= prev.size * 0.9 and y0 < prev.y1 and y1 > prev.y0:
        return {0}
    return set()


def joins_mark(prev: Row, row: Row) -> bool:
    """Does `row`, a lone mark, belong at the end of `prev` (level with it, at its end or
    at the start of its column)?"""
    if not (row.text.startswith(NOTE_OPEN) and row.text.endswith(NOTE_CLOSE)):
        return False
    if not (row.y0 < prev.y1 and row.y1 > prev.y0):
        return False
    return row.x0 >= prev.x1 - 1 or abs(row.x0 - prev.x0) <= 3


# --- the footnote area of one page -----------------------------------------------------------


@dataclass
class NoteRows:
    """The lines of one note (or of a later paragraph of one: `mark` None)."""

    mark: str | None
    rows: list[Any]  # the lines, the first without its mark
    source: list[Any] = field(default_factory=list)  # the page's lines they came from


Rule = tuple[float, float, float]  # y, x0, x1


def short_rules(drawings: Iterable[dict[str, Any]], width: float, height: float) -> list[Rule]:
    """Thin horizontal rules in the lower part of the page, shorter than most of its
    width: footnote separators (stroked lines or filled hairline rectangles), top first.
    Touching pieces on one line are joined first (a table's rulings come cell by cell)."""
    pieces: list[Rule] = []
    for path in drawings:
        for item in path["items"]:
            if item[0] == "l":
                (ax, ay), (bx, by) = item[1], item[2]
                if abs(ay - by) > 1:
                    continue
                y, x0, x1 = (ay + by) / 2, min(ax, bx), max(ax, bx)
            elif item[0] == "re":
                rx0, ry0, rx1, ry1 = item[1]
                if abs(ry1 - ry0) > 1.5:
                    continue
                y, x0, x1 = (ry0 + ry1) / 2, min(rx0, rx1), max(rx0, rx1)
            else:
                continue
            if y > height * _LOWER:
                pieces.append((round(y, 1), x0, x1))
    joined: list[list[float]] = []
    for y, x0, x1 in sorted(pieces):
        if joined and joined[-1][0] == y and x0 <= joined[-1][2] + 2:
            joined[-1][2] = max(joined[-1][2], x1)
        else:
            joined.append([y, x0, x1])
    return [(y, x0, x1) for y, x0, x1 in joined if 0.08 * width <= x1 - x0 <= 0.6 * width]


def _body_size(rows: Sequence[Row]) -> float:
    sizes: dict[float, int] = {}
    for r in rows:
        sizes[r.size] = sizes.get(r.size, 0) + len(r.text)
    return max(sizes.items(), key=lambda kv: kv[1])[0]


def note_area(
    rows: Sequence[Row], rules: Callable[[], list[Rule]], height: float
) -> list[NoteRows]:
    """The notes at the foot of a page whose text lines are `rows`; `rules` gives the
    page's short rules (asked only when small type sits low on the page)."""
    if len(rows) < 2:
        return []
    body = _body_size(rows)
    low = [r.size for r in rows if r.y0 > height * _LOWER]
    text = [r.size for r in rows if len(r.text) >= 20] or [body]
    if not low or min(low) > max(text) * _SMALL:
        return []  # no smaller type low on the page: no notes (and no drawings read)
    # lines by their tops, for the lines under each rule: a page of coordinates drawn as
    # text has thousands of lines and dozens of short rules (pst-coxcoor's 18 pages took 7 s)
    by_top = sorted(rows, key=lambda r: (r.y0, r.x0))
    tops = [r.y0 for r in by_top]
    reach = 0.8 * max(0.0, *(r.y1 - r.y0 for r in rows))  # how far `_below` looks up
    found = rules()

    @functools.cache
    def sizes() -> dict[float, float]:  # the text the notes are smaller than, per rule
        return _sizes_above(rows, [y for y, _, _ in found], body)

    def size_above(y: float) -> float:
        return sizes()[y]

    for y, x0, x1 in reversed(found):  # the lowest first: boxes above it hold no notes
        start = bisect.bisect_left(tops, y - reach)
        below = (r for r in by_top[start:] if _below(r, y) and r.x0 < x1 and r.x1 > x0)
        area = _under_rule(below, functools.partial(size_above, y), y, x0, x1)
        if not area or area[-1].y1 < height * _FOOT:
            continue
        # unmarked first lines continue a note only when they start at the rule's edge
        edge = abs(area[0].x0 - x0) <= 2 or abs(area[0].x1 - x1) <= 2
        notes = _split(area, continuation=edge)
        if notes:
            return notes
    return _without_rule(rows, body, height)


def _below(r: Row, y: float) -> bool:
    """Is the line below height `y` (its raised mark may reach a little above it)?"""
    return r.y1 > y + 1 and r.y0 >= y - 0.8 * (r.y1 - r.y0)


def _sizes_above(rows: Sequence[Row], heights: Sequence[float], body: float) -> dict[float, float]:
    """For each height y, `_body_size` of the lines above it (`body` when none), in one
    pass down the page: per size its characters so far and its first line in `rows`
    (`_body_size` breaks ties by that order)."""
    out: dict[float, float] = {}
    chars: dict[float, int] = {}
    first: dict[float, int] = {}
    order = sorted(range(len(rows)), key=lambda i: rows[i].y1)
    k = 0
    for y in sorted(set(heights)):
        while k < len(order) and rows[order[k]].y1 <= y:
            r = rows[order[k]]
            chars[r.size] = chars.get(r.size, 0) + len(r.text)
            first[r.size] = min(first.get(r.size, order[k]), order[k])
            k += 1
        out[y] = max(chars, key=lambda size: (chars[size], -first[size])) if chars else body
    return out


def _under_rule(
    below: Iterable[Any], body: Callable[[], float], y: float, x0: float, x1: float
) -> list[Any]:
    """The small lines right below a rule (`below`, top first), down to a wider gap or a
    line that is no part of the notes (larger type than `body()`, asked once and only when
    needed, or reaching well past the rule's column on both sides)."""
    area: list[Any] = []
    small: float | None = None
    for r in below:
        height = max(1.0, r.y1 - r.y0)
        top = area[-1].y1 if area else y
        if (r.x0 < x0 - 20 and r.x1 > x1 + 20) or r.y0 - top > (2.0 if area else 2.5) * height:
            break
        small = body() * _SMALL if small is None else small
        if r.size > small:
            break
        area.append(r)
    return area


def _without_rule(rows: Sequence[Any], body: float, height: float) -> list[NoteRows]:
    """Small lines closing the page (a page number below them aside), the first opening
    with a raised mark that is raised in the text above too."""
    tail: list[Any] = []
    for r in sorted(rows, key=lambda r: (r.y1, r.x0), reverse=True):
        if r.size <= body * _SMALL and r.y0 > height * _LOWER:
            tail.insert(0, r)
        elif tail or len(r.text) > 40:
            break  # text above the notes (or a page without them)
    if not tail:
        return []
    first = _LEAD_RAISED.match(tail[0].text)
    if first is None:
        return []
    wanted = f"{NOTE_OPEN}{first.group(1)}{NOTE_CLOSE}"
    if not any(wanted in r.text for r in rows if r.y1 <= tail[0].y0 and r.size > body * _SMALL):
        return []
    return _split(tail, continuation=False)


def _number(mark: str) -> int | None:
    """The value of a mark of digits (also superscript ones), else None."""
    digits = unicodedata.normalize("NFKC", mark)
    return int(digits) if digits.isdecimal() else None


def _opening_mark(r: Any, plain: bool) -> re.Match[str] | None:
    """The mark a note line opens with: raised, at its start (at its end in right-to-left
    text, as extracted); with `plain`, also an unraised number or symbol at its start."""
    m = _LEAD_RAISED.match(r.text)
    if m is None and getattr(r, "rtl", False):
        m = _TRAIL_RAISED.search(r.text)
    if m is None and plain:
        m = _LEAD_PLAIN.match(r.text)
    return m


def _glue_marks(area: list[Any]) -> list[tuple[Any, list[Any]]]:
    """(line, the page's lines it is made of): a mark set as a line of its own, level with
    the text to its right (abnTeX2 sets "1" then "<http://...>"), joins that text, raised."""
    out: list[tuple[Any, list[Any]]] = []
    k = 0
    while k < len(area):
        r, nxt = area[k], area[k + 1] if k + 1 < len(area) else None
        core = unwrap_marks(r.text).strip()
        if (
            nxt is not None
            and _MARK.fullmatch(core)
            and nxt.y0 < r.y1
            and nxt.y1 > r.y0
            and nxt.x0 >= r.x1 - 1
        ):
            text = f"{NOTE_OPEN}{core}{NOTE_CLOSE}{nxt.text}"
            out.append((replace(nxt, text=text, x0=r.x0, y0=min(r.y0, nxt.y0)), [r, nxt]))
            k += 2
        else:
            out.append((r, [r]))
            k += 1
    return out


def _full(row: Any, right: float) -> bool:
    """Whether `row` runs to the right edge of its notes (`right`): a paragraph goes on
    after it, however wide the gap below (Chinese is set with wide line spacing)."""
    return bool(row.x1 >= right - 2 * row.size)


def _split(area: list[Any], *, continuation: bool) -> list[NoteRows]:
    """The notes of an area. Lines before the first mark continue a note from the page
    before (kept only when `continuation`)."""
    glued = _glue_marks(area)
    plain = not any(_opening_mark(r, False) for r, _ in glued)
    notes: list[NoteRows] = []
    expected = 0  # a plain number must follow the one before
    right = max((r.x1 for r, _ in glued), default=0.0)
    for r, made_of in glued:
        m = _opening_mark(r, plain)
        number = _number(m.group(1)) if m and plain else None
        if number is not None:
            if expected and not expected <= number <= expected + 5:
                m = None
            else:
                expected = number + 1
        if m:
            rest = r.text[: m.start()] + r.text[m.end() :]
            notes.append(NoteRows(m.group(1), [replace(r, text=rest.strip())], made_of))
            continue
        last = notes[-1].rows[-1] if notes else None
        if last is None or (r.y0 - last.y1 > 0.45 * (r.y1 - r.y0) and not _full(last, right)):
            if last is None and not continuation:
                return []
            notes.append(NoteRows(None, [r], made_of))  # a later paragraph
        else:
            notes[-1].rows.append(r)
            notes[-1].source += made_of
    return [n for n in notes if any(r.text.strip() for r in n.rows)]


# --- the merge: notes tied to their references ------------------------------------------------


class Pending(Protocol):
    """What the merge step builds an element from (pdf_assemble.PendingElement)."""

    type: str
    page_first: int
    page_last: int
    text: str
    lines: list[str]
    items: list[str]
    mark: str | None
    ref: Any


@dataclass
class Note:
    page: int
    page_last: int
    mark: str | None
    paragraphs: list[str]
    position: int  # how many elements the merge had built when the note was read
    rtl: bool
    pending: Any = None  # the element it became (footnote or paragraph), once placed
    # (element, text) of links to the note: a mark the text layer does not show raised
    linked: list[tuple[Any, str]] = field(default_factory=list)


# make(type, note, text) -> a pending element of that type for the note
Make = Callable[[str, Note, str], Any]


@dataclass
class NoteSet:
    """The notes read so far, and their placement once every page is merged."""

    notes: list[Note] = field(default_factory=list)

    def add(self, page: int, mark: str | None, text: str, position: int, rtl: bool) -> Note:
        """A note's first paragraph, or (`mark` None) a later paragraph of the last note,
        also one running on from the page before."""
        last = self.notes[-1] if self.notes else None
        if mark is None and last is not None and last.page_last in (page, page - 1):
            if last.page_last == page - 1 and not _ENDS.search(last.paragraphs[-1]):
                # a sentence running over the page break (Chinese runs on without a space)
                glue = "" if is_cjk(last.paragraphs[-1][-1:]) or is_cjk(text[:1]) else " "
                last.paragraphs[-1] += glue + text
            else:
                last.paragraphs.append(text)
            last.page_last = page
            return last
        note = Note(page, page, mark, [text], position, rtl)
        self.notes.append(note)
        return note

    def place(self, items: list[Any], make: Make) -> list[Any]:
        """`items` (pending elements in reading order) with every note placed: a footnote
        right after the element holding its reference, else a paragraph where it stood.
        Then no mark is wrapped any more."""
        used: set[str] = set()
        after: dict[int, list[Any]] = {}  # id(referencing item) -> its footnotes
        stay: dict[int, list[Any]] = {}  # position -> notes without a reference
        for note in self.notes:
            found = _find_reference(items, note) if note.mark else None
            ref, wanted = found if found else (None, "")
            if ref is None and note.mark:
                ref, wanted = _linked_reference(note), note.mark
            label = note_label(note.mark or "", set(used))
            if ref is None or not _replace_first(ref, wanted, footnote_ref(label)):
                text = " ".join(note.paragraphs)
                body = f"{note.mark} {text}" if note.mark else text
                note.pending = make("paragraph", note, body)
                stay.setdefault(note.position, []).append(note.pending)
                continue
            used.add(label)
            pend = make("footnote", note, footnote_def(label, note.paragraphs))
            pend.mark, pend.ref = note.mark, ref
            note.pending = pend
            after.setdefault(id(ref), []).append(pend)
        out: list[Any] = []
        for i, item in enumerate(items):
            out += stay.pop(i, [])
            out.append(item)
            out += after.get(id(item), [])
        for rest in stay.values():
            out += rest
        for item in out:
            item.text = unwrap_marks(item.text)
            item.items[:] = [unwrap_marks(t) for t in item.items]
            item.lines[:] = [unwrap_marks(t) for t in item.lines]
        return out


_ENDS = re.compile(r"[.!?:;。！？)\]]$")


def _find_reference(items: list[Any], note: Note) -> tuple[Any, str] | None:
    """The first element before the note, on its page (else the page before), holding an
    unused raised mark equal to the note's (or its superscript digits), and that mark."""
    mark = note.mark or ""
    wanted = [f"{NOTE_OPEN}{mark}{NOTE_CLOSE}"]
    if any(c in _SUPERSCRIPT for c in mark):
        wanted.append(mark)
    patterns = [(w, _mark_pattern(w)) for w in wanted]
    for page in (note.page, note.page - 1):
        for item in items[: note.position]:
            if not item.page_first <= page <= item.page_last:
                continue
            texts = (item.text, *item.items, *item.lines)
            hit = next((w for w, p in patterns if any(p.search(t) for t in texts)), None)
            if hit is not None:
                return item, hit
    return None


def _plain_mark(mark: str) -> re.Pattern[str]:
    """An unraised mark: superscript digits anywhere; else a word of its own right after
    punctuation ("… outdated. 1"), or closing the text."""
    m = re.escape(mark)
    if any(c in _SUPERSCRIPT for c in mark):
        return re.compile(rf"\s*(?<![\d{_SUPERSCRIPT}]){m}(?![\d{_SUPERSCRIPT}])")
    return re.compile(rf"(?<=[.,;:!?)”\"'’])\s*{m}(?![\w\]])|\s+{m}$")


def _linked_reference(note: Note) -> Any | None:
    """The element a link to the note starts from, when it holds the note's mark as a
    word of its own (hyperref links every mark to its note)."""
    for item, text in note.linked:
        if text.strip() == note.mark and any(
            _plain_mark(note.mark).search(t) for t in (item.text, *item.items)
        ):
            return item
    return None


def _mark_pattern(wanted: str) -> re.Pattern[str]:
    """A wrapped mark with the space before it; an unwrapped one as `_plain_mark`."""
    if wanted.startswith(NOTE_OPEN):
        return re.compile(r"\s*" + re.escape(wanted))
    return _plain_mark(wanted)


def _replace_first(item: Pending, wanted: str, ref: str) -> bool:
    """The first `wanted` in each text of the item (its text, list items, code lines)
    becomes `ref`, without the space before the mark (a list's `text` repeats its last
    item: both hold the same first occurrence). False when there was none."""
    pattern = _mark_pattern(wanted)
    done = False
    for texts in (item.items, item.lines):
        for k, t in enumerate(texts):
            if pattern.search(t):
                texts[k], done = pattern.sub(ref, t, count=1), True
                break
    item.text, n = pattern.subn(ref, item.text, count=1)
    return done or n > 0
