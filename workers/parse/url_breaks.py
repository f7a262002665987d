"""Web addresses broken across lines: TeX's `url` package breaks an address after "/", ".",
"-" and the like without a hyphen, so joining the lines with a space would leave
"https://tug.org/texlive/ acquire.html" in the text, a link no reader can follow.

Pure: `continues_url(before, after)` decides from the two lines' text alone. An address
ending in "/" goes on only when the next line's first word looks like more of one (a path,
a file name, an anchor), since an address at the end of a sentence's line is often followed
by an ordinary word ("…sourceforge.net/" / "to"); after ".", only in lower case (a new
sentence starts with a capital, "…/lppl.txt)." is the sentence's own full stop). A line
ending in a scheme ("https:") goes on with a line opening "//".
"""

from __future__ import annotations

import re

# the last word of the text so far, when it is a web address
_ADDRESS = re.compile(r"(?:https?://|ftp://|www\.)[^\s<>\"'⟨⟩]*$", re.IGNORECASE)
_GLUE = "-_~#?&=%:"  # an address never ends in these: the break is inside it
_PIECE = re.compile(r"[/#?=_]|\.\w")  # a path, anchor, query or file name: "acquire.html"
_SCHEME = re.compile(r"\b(?:https?|ftp):$", re.IGNORECASE)  # "https:" / "//www.ams.org/…"


def ends_in_scheme(text: str) -> bool:
    """Whether `text` ends in a web address's scheme ("… and https:")."""
    return _SCHEME.search(text[-8:]) is not None


def continues_url(before: str, after: str) -> bool:
    """Whether `after` (the next line) goes on with the web address that ends `before`."""
    if after.startswith("//") and ends_in_scheme(before):
        return True
    address = _ADDRESS.search(before[-400:])
    word = after.split(None, 1)[0] if after.strip() else ""
    if address is None or not word or after[:1].isspace():
        return False
    end = address.group()[-1]
    if end in _GLUE:
        return word[:1].isalnum()
    if end == "/":
        return bool(_PIECE.search(word))
    if end == ".":
        return address.group()[-2:-1].isalnum() and (word[:1].islower() or word[:1].isdigit())
    return False
