"""What the sweep measures on one finished document, each in a small pure-ish function.

- plan invariants: study session sizes from the manifest, chapter starts honoured beside the
  naive outline splitter (bench_plan.py's `measure` and `naive`, tests/plan_metrics.py);
- running-header lines left: a line at the top of 5 or more source pages (digits aside; in
  the top 15 % of the page, set apart from the text below, each such page with another
  within two) that survives in the Markdown body, alone or glued into a longer line, in an
  element of one of the pages it heads (bib2gls's "Glossary" heads its glossary's pages;
  the same word titling a sample page drawn in a figure 300 pages on is no header);
- line-break hyphens left: a hyphen at a source line end ("num-" / "ber") whose joined word
  ("number") occurs elsewhere in the document, still hyphenated ("num-ber") in the Markdown;
- accents drawn apart: a spacing accent (one whose compatibility form is a space and a
  combining mark: ´ ¨ ˜ ¸ ˛ ...) or a space with a combining mark, right before a letter
  that Unicode has with that accent as one character ("d´efinitions"), in the source lines
  and left in the Markdown.
- index key terms misread: a session's key term from the author's index that kept page
  numbers or dot leaders ("préprocesseur 10", "\\output, 70, 71, 73–", ". . .") or an accent
  drawn apart ("mode math ́ematique").

Source lines come from PyMuPDF's `get_text("dict")`, independent of Quire's parser; the
Markdown is read back with the verifier's own reader.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from bench_plan import RULES, Sessions, measure, naive
from plan_metrics import oracle_honoured

from quire.shared.ir import Document
from quire.shared.manifest import Manifest
from quire.workers.verify.markdown import parse_chunk_markdown

HEADER_PAGES = 5  # a top line repeated on this many pages is a running header
TOP_BAND = 0.15  # ... when it starts in this top share of the page (a header's margin)
_DIGITS = re.compile(r"\d+")
_LETTER = re.compile(r"[^\W\d_]")
WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_BREAK_END = re.compile(r"([^\W\d_]+(?:-[^\W\d_]+)*)-$")
_BREAK_START = re.compile(r"^([^\W\d_]+)")


# --- source pages ------------------------------------------------------------------------


@dataclass
class SourceText:
    """What the metrics need from the source PDF: per page its top row and its lowest
    line, and its text lines (per block, in order)."""

    tops: list[str]
    bottoms: list[str]
    blocks: list[list[str]]


def read_source(path: Path) -> SourceText:
    import pymupdf

    tops: list[str] = []
    bottoms: list[str] = []
    blocks: list[list[str]] = []
    with pymupdf.open(path) as pdf:
        for page in pdf:
            data = page.get_text("dict", flags=0)
            rows = [
                (line["bbox"][1], line["bbox"][3], line["bbox"][0], _line_text(line))
                for b in data["blocks"]
                if b["type"] == 0
                for line in b["lines"]
            ]
            rows = [r for r in rows if r[3].strip()]
            top = _top_row(rows)
            tops.append(
                top if rows and min(r[0] for r in rows) <= TOP_BAND * page.rect.height else ""
            )
            bottoms.append(max(rows, key=lambda r: r[1])[3].strip() if rows else "")
            for b in data["blocks"]:
                if b["type"] == 0:
                    lines = [nfc(_line_text(ln).strip()) for ln in b["lines"]]
                    blocks.append([ln for ln in lines if ln])
    return SourceText(tops, bottoms, blocks)


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _line_text(line: dict[str, Any]) -> str:
    return "".join(s["text"] for s in line["spans"])


def _top_row(rows: list[tuple[float, float, float, str]]) -> str:
    """The page's topmost row: every line whose middle lies within the first line's height,
    left to right (a header's title and its page number are often separate lines); "" when
    the next row follows at body spacing (a header stands apart: the first line of a code
    listing at the top of a page does not)."""
    if not rows:
        return ""
    first = min(rows, key=lambda r: r[0])
    height = max(first[1] - first[0], 1.0)
    row = [r for r in rows if first[0] <= (r[0] + r[1]) / 2 <= first[1]]
    below = [r[0] for r in rows if (r[0] + r[1]) / 2 > first[1]]
    if below and min(below) - first[0] < 1.6 * height:
        return ""
    return " ".join(r[3].strip() for r in sorted(row, key=lambda r: r[2]))


# --- running headers ---------------------------------------------------------------------


def header_key(text: str) -> str:
    """Digits aside, case and spacing ignored."""
    return " ".join(_DIGITS.sub("#", text.casefold()).split())


def header_keys(tops: list[str]) -> dict[str, set[int]]:
    """Top lines repeated (digits aside) on HEADER_PAGES pages or more that each have one
    within two pages (running text recurs page after page; "Chapter 3" at the top of each
    chapter's first page does not), with letters: key -> the pages (1-based) it heads."""
    pages: dict[str, set[int]] = {}
    for n, t in enumerate(tops, 1):
        if len(_LETTER.findall(t)) >= 2:
            pages.setdefault(header_key(t), set()).add(n)
    return {
        k: ps
        for k, ps in pages.items()
        if sum(1 for p in ps if ps & {p - 2, p - 1, p + 1, p + 2}) >= HEADER_PAGES
    }


def _glueable(key: str) -> bool:
    """A key distinctive enough to be looked for inside a longer line: it carries a
    number (the page number that changes) and two words or more besides ("hakemisto #",
    an index's header, is also an entry of that index)."""
    words = [w for w in key.split() if _LETTER.search(w)]
    return "#" in key and len(words) >= 2 and len(_LETTER.findall(key)) >= 6


def header_lines_left(
    lines: Sequence[tuple[str, Collection[int]]], keys: Mapping[str, set[int]]
) -> list[str]:
    """Body lines (each with the pages of its element) that are a running header, or
    carry one glued inside, on one of the pages that header heads."""
    glued = [k for k in keys if _glueable(k)]
    left: list[str] = []
    for line, pages in lines:
        k = header_key(line)
        found = [k] if k in keys else [g for g in glued if g in k]
        if any(not keys[f].isdisjoint(pages) for f in found):
            left.append(line)
    return left


# --- page numbers ------------------------------------------------------------------------


def folios(tops: Sequence[str], bottoms: Sequence[str]) -> dict[int, str]:
    """Page (1-based) -> its printed number, where the page's lowest line or top row is a
    bare number and HEADER_PAGES pages or more agree on printed - physical (the numbering;
    a figure's last tick label or a listing's line number does not keep pace)."""
    found: dict[int, str] = {}
    for n, (top, bottom) in enumerate(zip(tops, bottoms, strict=True), 1):
        bare = [t for t in (bottom, top.strip()) if t.isdecimal() and len(t) <= 4]
        if bare:
            found[n] = bare[0]
    common = Counter(n - int(t) for n, t in found.items()).most_common(1)
    if not common or common[0][1] < HEADER_PAGES:
        return {}
    off = common[0][0]
    return {n: t for n, t in found.items() if n - int(t) == off}


def folios_left(lines: Sequence[tuple[str, Collection[int]]], pages: Mapping[int, str]) -> int:
    """Pages whose number is still a body line of theirs (each line with its element's
    pages)."""
    return len({p for line, on in lines for p in on if pages.get(p) == line.strip()})


# --- line-break hyphens ------------------------------------------------------------------


@dataclass
class Hyphens:
    breaks: Counter[str]  # "num-ber" -> line-end breaks of that form (joined word elsewhere)
    midline: Counter[str]  # hyphenated words written so inside a line in the source


def hyphen_breaks(blocks: list[list[str]]) -> Hyphens:
    """Line-end hyphens inside a text block whose joined word occurs elsewhere in the
    document (fragments of breaks themselves never count as that word)."""
    found: list[tuple[str, str]] = []
    words: Counter[str] = Counter()
    midline: Counter[str] = Counter()
    for lines in blocks:
        broken_start = False
        for i, line in enumerate(lines):
            tokens = WORD.findall(line)
            end = _BREAK_END.search(line)
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            start = _BREAK_START.match(nxt)
            is_break = end is not None and start is not None and nxt[:1].islower()
            inner = tokens[int(broken_start) : len(tokens) - int(is_break)]
            words.update(t.casefold() for t in inner)
            midline.update(t.casefold() for t in inner if "-" in t)
            if is_break and end is not None and start is not None:
                found.append((end.group(1), start.group(1)))
            broken_start = is_break
    breaks: Counter[str] = Counter(
        f"{a}-{b}".casefold() for a, b in found if words[(a + b).casefold()] > 0
    )
    return Hyphens(breaks, midline)


def hyphens_left(h: Hyphens, body: str) -> int:
    """Breaks still hyphenated in the Markdown body: occurrences of the hyphenated form
    beyond those the source writes so inside a line."""
    written = Counter(t.casefold() for t in WORD.findall(body) if "-" in t)
    return sum(min(n, max(0, written[form] - h.midline[form])) for form, n in h.breaks.items())


# --- accents drawn apart from their letters ------------------------------------------------


def _accent_mark(c: str) -> str | None:
    """The combining mark a spacing accent stands for ("´" -> U+0301), or None."""
    form = unicodedata.normalize("NFKD", c)
    return form[1] if len(form) == 2 and form[0] == " " and unicodedata.combining(form[1]) else None


def accents_apart(text: str) -> int:
    """Accents drawn before their letter (see the module docstring) in `text`."""
    found = 0
    for i, c in enumerate(text[:-1]):
        if c.isascii():  # no ASCII character is a spacing accent or a combining mark
            continue
        mark = _accent_mark(c) or (
            c if unicodedata.combining(c) and text[i - 1 : i] == " " else None
        )
        letter = {"ı": "i", "ȷ": "j"}.get(text[i + 1], text[i + 1])
        if mark and letter.isalpha() and len(unicodedata.normalize("NFC", letter + mark)) == 1:
            found += 1
    return found


# --- the Markdown ------------------------------------------------------------------------


def body_segments(out: Path, manifest: Manifest, study_only: bool) -> list[str]:
    """Element texts as written in the chunk files (headings and code left out); only the
    study sessions' with `study_only` (contents pages list titles with page numbers)."""
    return [t for _, t in body_elements(out, manifest, study_only)]


def body_elements(out: Path, manifest: Manifest, study_only: bool) -> list[tuple[str, str]]:
    """(element id, text) of `body_segments`."""
    found: list[tuple[str, str]] = []
    for c in manifest.chunks:
        if not c.markdown_file or (study_only and c.kind != "study"):
            continue
        parsed = parse_chunk_markdown((out / c.markdown_file).read_text(encoding="utf-8"))
        found += [(e, t) for e, t in parsed.segments if not t.startswith(("#", "```"))]
    return found


# --- the plan ----------------------------------------------------------------------------


@dataclass
class PlanFigures:
    study: int
    reference: int
    share_5_13: float | None  # share of study sessions of 5-13 pages (None: one session)
    under_5: int  # study sessions under 5 pages, the last left out
    largest: float
    honoured: int
    chapters: int
    naive_honoured: int
    oracle_honoured: int  # the most any plan of the size rules could honour (page-level)
    held: int  # chapters the outline places after the contents that reference sessions hold


def plan_figures(doc: Document, manifest: Manifest) -> PlanFigures:
    """The plan figures of a written document (its manifest's chunks)."""
    chunks = manifest.chunks
    return range_figures(
        doc, [(c.page_first, c.page_last) for c in chunks], [c.kind == "study" for c in chunks]
    )


def range_figures(doc: Document, ranges: list[tuple[int, int]], study: list[bool]) -> PlanFigures:
    """The plan figures of sessions given as page ranges and whether each is study text
    (a manifest's chunks, or a plan's when only planning is run again)."""
    row = measure(doc, Sessions(ranges, study, (0, 0)))
    base = measure(doc, naive(doc))
    sizes = [b - a + 1 for (a, b), st in zip(ranges, study, strict=True) if st]
    return PlanFigures(
        study=row.sessions,
        reference=row.reference,
        share_5_13=row.share,
        under_5=sum(1 for n in sizes[:-1] if n < 5),
        largest=row.largest,
        honoured=row.honoured,
        chapters=row.chapters,
        naive_honoured=base.honoured,
        oracle_honoured=oracle_honoured(doc, RULES)[0],
        held=row.held,
    )


class PlanTotals(Protocol):
    """What the plan totals read of a document's row (PlanFigures, bench_sweep's Row)."""

    chapters: int
    honoured: int
    naive_honoured: int
    oracle_honoured: int
    held: int
    share_5_13: float | None
    under_5: int


def print_plan_totals(rows: Sequence[PlanTotals]) -> None:
    """Chapter starts beside the naive splitter's, and session sizes, over the documents."""
    planned = [r for r in rows if r.chapters]
    ch, hon, nai, ora = (
        sum(getattr(r, k) for r in planned)
        for k in ("chapters", "honoured", "naive_honoured", "oracle_honoured")
    )
    print(
        f"chapter starts honoured {hon}/{ch} ({hon / max(ch, 1):.1%}); page-level oracle "
        f"{ora}/{ch} ({ora / max(ch, 1):.1%}); naive splitter "
        f"{nai}/{ch} ({nai / max(ch, 1):.1%}); documents at least the naive figure "
        f"{sum(r.honoured >= r.naive_honoured for r in planned)}/{len(planned)}"
    )
    print(
        f"chapters after the contents held by front or back matter: "
        f"{sum(r.held for r in rows)} in {sum(r.held > 0 for r in rows)} docs"
    )
    shares = [r.share_5_13 for r in rows if r.share_5_13 is not None]
    print(
        f"documents with >= 90% of study sessions 5-13 pages: "
        f"{sum(s >= 0.9 for s in shares)}/{len(shares)}; study sessions under 5 pages (not "
        f"the last): {sum(r.under_5 for r in rows)} in {sum(r.under_5 > 0 for r in rows)} docs"
    )


# --- key terms from the author's index ---------------------------------------------------

# page numbers or leaders left in a term: "préprocesseur 10", "top page 29", "\output, 70,
# 71, 73–", "LibreOffice, 2, 94 \max, 54" (a term ending in a number, "Windows 10", counts
# too: rare in the sweep's indexes)
_LOCATORS_LEFT = re.compile(r"\d+,\s*\d+|\s\d{2,}$|(?:\s*\.){2,}\s*$|\. \. ")


def index_terms_misread(terms: Sequence[str]) -> int:
    """Key terms, read from the author's index, with page numbers, leaders or an accent
    drawn apart left in them."""
    return sum(1 for t in terms if _LOCATORS_LEFT.search(t) or accents_apart(t))
