"""Inline code: what a text sets in a monospace font inside its prose ("cd", "$HOME").

A manual names its commands, variables and options so, and its index names them too
("cd", "set", "PATH"): as words, "cd" is too short and "set" too common to be a key term.
The PDF extractor keeps each page's monospace runs of prose lines (`PdfPage.code`); an
element is given those of its pages that its text holds, once each, in order. The HTML
and EPUB reader takes an element's code, kbd, samp, tt and var, the DOCX reader a
paragraph's runs in a monospace font. It is metadata beside the text: the text, and so
verification, is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from quire.shared.ir import Element

PROSE = frozenset({"paragraph", "list", "heading", "caption", "footnote"})
MAX_CODE_CHARS = 60  # a longer run is a command line or a listing's line, not a name


def kept_code(runs: Iterable[str]) -> list[str]:
    """Code runs as an element keeps them: once each, in order, none empty or over
    MAX_CODE_CHARS."""
    return [c for c in dict.fromkeys(runs) if 0 < len(c) <= MAX_CODE_CHARS]


def with_inline_code(
    elements: Sequence[Element], page_code: Mapping[int, Sequence[str]]
) -> list[Element]:
    """`elements` with the code runs of their pages (`page_code`) that their text holds."""
    out = []
    for e in elements:
        if e.type in PROSE:
            pages = range(e.page_first, e.page_last + 1)
            runs = (" ".join(c.split()) for p in pages for c in page_code.get(p, ()))
            text = " ".join(e.text.split())
            found = [c for c in kept_code(runs) if c in text]
            if found:
                e = e.model_copy(update={"code": found})
        out.append(e)
    return out
