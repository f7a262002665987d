"""Checking study index files (an agent's, or rendered ones) against their context: every
session linked to a file that exists, its study time and the total stated, Persian in
Persian, unread sessions refused."""

from __future__ import annotations

import re
from urllib.parse import unquote

from markdown_it import MarkdownIt

from quire.shared.analysis import (
    INDEX_FILES,
)
from quire.shared.errors import ValidationFailedError
from quire.workers.analysis.index_inputs import IndexContext
from quire.workers.analysis.validate import persian_problem

_TO_ASCII = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")
_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# The files are read as CommonMark (what Quire writes, and what the web workspace renders),
# so an escaped "\[…\](…)" quoted from a book is text, and a reference link is a link.
_MD = MarkdownIt("commonmark", {"html": False}).enable("table")


def _links(text: str) -> list[tuple[range, str]]:
    """(lines of the block holding it, target) of every link and image."""
    out = []
    for token in _MD.parse(text):
        lines = range(*token.map) if token.map else range(0)
        for child in token.children or []:
            target = child.attrGet("href") if child.type == "link_open" else None
            target = child.attrGet("src") if child.type == "image" else target
            if target is not None:
                out.append((lines, unquote(str(target))))
    return out


def _minutes_in(line: str, minutes: int) -> bool:
    ascii_line = line.translate(_TO_ASCII).replace("**", "")
    return re.search(rf"(?<![\d.]){minutes}\s*(?:min\b|minutes?\b|دقیقه)", ascii_line) is not None


def validate_index(context: IndexContext, *, en: str, fa: str, map: str) -> None:
    """Check index files (an agent's, or rendered ones); ValidationFailedError listing every
    problem: unread chunks, a file without links, a link to a file that does not exist, a
    chunk not linked, a chunk's or the total study time missing, fa not in Persian."""
    problems: list[str] = []
    if context.unread:
        problems.append(f"chunks not read yet: {context.unread}")
    every: dict[int, list[str]] = {c.chunk: c.files for c in context.chunks}
    every |= {r.chunk: r.files for r in context.reference}
    allowed = {f for files in every.values() for f in files} | set(INDEX_FILES.values())
    owner = {f: n for n, files in every.items() for f in files}
    for key, text in (("en", en), ("fa", fa), ("map", map)):
        name = INDEX_FILES[key]
        links = _links(text)
        if not links:
            problems.append(f"{name} links nowhere")
            continue
        linked: dict[int, list[range]] = {}
        lines = text.splitlines()
        for block, target in links:
            path = target.split("#", 1)[0].removeprefix("./")
            if not path:
                continue  # an anchor within the file
            if path not in allowed:
                problems.append(f"{name} links {target!r}, which is not a file of this output")
                continue
            if path in owner:
                linked.setdefault(owner[path], []).append(block)
        unlinked = sorted(n for n in every if n not in linked)
        if unlinked:
            problems.append(f"{name} does not link chunks {unlinked}")
        if key == "map":
            continue
        for c in context.chunks:
            blocks = linked.get(c.chunk, [])
            if blocks and not any(
                _minutes_in("\n".join(lines[b.start : b.stop]), c.minutes) for b in blocks
            ):
                problems.append(
                    f"{name}: the line linking chunk {c.chunk} does not state its {c.minutes} min"
                )
        if not _minutes_in(text, context.total_minutes):
            problems.append(
                f"{name} does not state the total study time "
                f"{context.total_minutes} min (the sum of the sessions)"
            )
    if context.pages_without_text and context.pages_without_text not in en:
        problems.append(
            f"{INDEX_FILES['en']} does not state the pages without text: "
            f"{context.pages_without_text!r}"
        )
    body = _LINK.sub(" ", fa)
    # Without Persian analyses (heuristic), a notice that an LLM backend is needed will do.
    if persian_problem(body) and (context.persian_available or "LLM" not in fa):
        problems.append(
            f"{INDEX_FILES['fa']} is not written in Persian"
            + (
                ""
                if context.persian_available
                else " (and does not say that an LLM backend is needed for it)"
            )
        )
    if problems:
        raise ValidationFailedError("; ".join(problems[:30]))
