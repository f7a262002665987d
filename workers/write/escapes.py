"""Book text that a Markdown reader would take for markup, escaped as a session file
writes it (the IR keeps the book's characters; `write.markdown.written_text` applies this
for the writer and the verifier alike).

Element text is canonical Markdown, with the book's own characters in it as they are. Most
of them read as themselves, or as harmless structure. These would hide or change text:

- a backslash before ASCII punctuation escapes it: a TeX manual's "\\_", "\\#", "\\{" and
  "\\\\" showed as "_", "#", "{" and "\\", a regular expression's "\\." as ".";
- a "!" right before a link opens an image: an exclamation before a footnote mark's link
  ("errors![33,](#el-000272)") or a book quoting Markdown ("![Photo](photo.jpg)") showed
  a broken image, and the verifier failed the document over a file that does not exist;
- a "<" that opens raw HTML: a viewer drops tags it does not know ("cp <source> <target>"
  reads "cp  "), and "<style>" at a paragraph's start opens an HTML block that runs to
  "</style>", the rest of the session with it;
- "#" or a code fence at the start of a paragraph or a list item: a root prompt
  ("# mount /mnt") becomes a heading, a quoted "```" turns the rest of the session into
  code.

Each gets a backslash, which CommonMark reads as the character itself (in folders of
manifest version 2 on: an older folder is verified as it was written). The IR's own escapes
stay single: brackets in an element link's text ("[\\[33\\]](#el-000272)") and a pipe in a
table cell. Images (only image elements hold them), code and formulas are written as they
are, and so are a code span ("`<x>`"), inline math ("$x<y$") and an autolink
("<https://…>").
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from functools import cache

from quire.shared.ir import ElementType
from quire.shared.links import IR_LINK

_BANG_BEFORE_LINK = re.compile(r"!(?=\[(?:\\.|[^\]\\\n])*\]\()")
# an open or closing tag, a comment, a declaration or a processing instruction
_RAW_HTML = re.compile(r"<(?=[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|/[A-Za-z]|[!?])")
# at a line's start, or a list item's (a list's text is ours: "- " or "3. " before each)
_LINE_MARKUP = re.compile(
    r"^( {0,3}(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)?)(#{1,6}(?=[ \t]|$)|```|~~~)", re.M
)
# a code span (a run of backticks to the next run as long) or inline math: shown as it is
_VERBATIM = re.compile(
    r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)|(?<!\\)\$\$.+?\$\$|(?<!\\)\$[^$\n]+\$", re.S
)

ESCAPED_SINCE = 2  # the manifest_version of the first folders written with these escapes
KEPT: tuple[ElementType, ...] = ("image", "code", "formula")
LINE_STARTS: tuple[ElementType, ...] = ("paragraph", "caption", "list")


def escape_markup(text: str, kind: ElementType) -> str:
    """`text` of an element of type `kind` with the markup above escaped."""
    if kind in KEPT:
        return text
    if "$" in text or "`" in text:
        text = _around(_VERBATIM, 0, text, lambda part: _inline(part, kind))
    else:
        text = _inline(text, kind)
    if kind in LINE_STARTS:
        text = _LINE_MARKUP.sub(lambda m: f"{m[1]}\\{m[2]}", text)
    return text


def _around(
    pattern: re.Pattern[str],
    group: int,
    text: str,
    outside: Callable[[str], str],
    inside: Callable[[str], str] = lambda part: part,
) -> str:
    """`text` with `outside` applied between the matches of `pattern` (their `group`) and
    `inside` to them."""
    out, at = [], 0
    for m in pattern.finditer(text):
        out += [outside(text[at : m.start(group)]), inside(m[group])]
        at = m.end(group)
    return "".join(out) + outside(text[at:])


def _inline(text: str, kind: ElementType) -> str:
    if "\\" in text:
        text = _book_backslashes(text, kind)
    if "![" in text:
        text = _BANG_BEFORE_LINK.sub(r"\\!", text)
    if "<" in text:
        text = _RAW_HTML.sub(r"\\<", text)
    return text


def _book_backslashes(text: str, kind: ElementType) -> str:
    """`text` with the book's backslashes doubled, the IR's own escapes left single."""
    kept = "|" if kind == "table" else ""  # (a cell's pipe: `markdown.table` escaped it)
    pattern = _backslash(kept)

    def double(part: str) -> str:
        return pattern.sub(r"\\\\", part)

    if "](#el-" not in text:
        return double(text)
    in_link = _backslash(kept + "[]")  # (`links.ir_link` escaped the link text's brackets)
    return _around(IR_LINK, 1, text, double, lambda part: in_link.sub(r"\\\\", part))


@cache
def _backslash(kept: str) -> re.Pattern[str]:
    """A backslash before ASCII punctuation (but `kept`), a line's end or the text's."""
    chars = "".join(c for c in string.punctuation if c not in kept)
    return re.compile(rf"\\(?=[{re.escape(chars)}]|\n|$)")
