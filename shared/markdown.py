"""Canonical Markdown rendering of element content, and book text quoted in our own files.

Parsers build each element's `text` with these functions, so the same content always has
the same Markdown (and therefore the same hash), whichever parser found it. `inline` is for
the other direction: text taken from a book (a title, a heading, a quoted line in a reason)
and written into Markdown that Quire composes (the study indexes and map), where it must
read as plain text and never become a link, emphasis, code or a table cell break.
"""

from __future__ import annotations

import re
from collections.abc import Sequence


def heading(title: str, level: int) -> str:
    return f"{'#' * max(1, min(level, 6))} {_one_line(title)}"


def bullet_list(items: Sequence[str], ordered: bool, start: int = 1) -> str:
    lines = []
    for n, item in enumerate(items, start):
        marker = f"{n}." if ordered else "-"
        body = item.strip().replace("\n", "\n   " if ordered else "\n  ")
        lines.append(f"{marker} {body}")
    return "\n".join(lines)


def table(rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-style table; the first row is the header. Pipes and newlines are escaped."""
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    cells = [[_cell(c) for c in r] + [""] * (width - len(r)) for r in rows]
    out = [_row(cells[0]), _row(["---"] * width)]
    out += [_row(r) for r in cells[1:]]
    return "\n".join(out)


def table_row(row: Sequence[str], width: int | None = None) -> str:
    """One rendered table row, as it appears in `table()` output (used by the verifier)."""
    cells = [_cell(c) for c in row]
    if width is not None:
        cells += [""] * (width - len(cells))
    return _row(cells)


def code(body: str, language: str | None = None) -> str:
    fence = "```"
    while fence in body:
        fence += "`"
    return f"{fence}{language or ''}\n{body.rstrip()}\n{fence}"


def image(file: str, alt: str = "") -> str:
    return f"![{_one_line(alt).replace(']', '')}]({file})"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _one_line(text: str) -> str:
    return " ".join(text.split())


# CommonMark escapes any ASCII punctuation with a backslash. These are the characters that
# can begin markup inside a line: links and images ([ ]), emphasis (* _ ~), code (`), raw
# HTML and autolinks (< >), entities (&), table cells (|), math on GitHub ($), a heading
# or its closing sequence (#), and the backslash itself. "_" between two letters or digits
# cannot open or close emphasis ("texmf_dist"), so it stays as it is.
_INLINE_SPECIAL = re.compile(r"[\\`*\[\]<>#|~&$]|(?<![^\W_])_|_(?![^\W_])")
# At the start of a line: a list item ("- ", "+ ", "3. ", "3) ") or a setext underline.
_LINE_START = re.compile(r"^(?:([-+=])|(\d{1,9})([.)]))")


def inline(text: str) -> str:
    """`text` on one line, as plain text anywhere in a line of Markdown: every character
    that could begin markup or a link is escaped."""
    out = _INLINE_SPECIAL.sub(lambda m: "\\" + m.group(0), _one_line(text))
    return _LINE_START.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\{m[3]}", out)
