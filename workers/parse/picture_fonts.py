"""LaTeX's picture-mode fonts (line10, linew10, lcircle10, lcirclew10) and ornament fonts
read as nothing.

Their glyphs are short slanted strokes, arrowheads and quarter circles that LaTeX's
`picture` environment puts together into lines, vectors and circles: pieces of a drawing,
never text. They name no characters, so MuPDF gives their codes, control characters
mostly: the picture chapter of lshort came out as 331 of them in every language it is
translated into, and cryptocode's protocol diagrams as 151. A span in these fonts is
dropped from the text, like the rest of the drawing.

Ornament fonts (Fourier's, Web-O-Mints, ADF's) draw fleurons and vignettes at the codes of
letters, and their maps say so: letgut's headings read "A INTRODUCTION" after a fleuron,
tkz-berge's thanks "M Firstly, I would like to thank…". They are decoration, never text.
"""

from __future__ import annotations

import re

_FAMILY = re.compile(
    r"l(?:ine|circle)w?10|FourierOrns(?:-\w+)?|WebOMints\w*|OrnementsADF\w*", re.IGNORECASE
)

DECODER: dict[int, str | None] = dict.fromkeys(range(256))  # every code: nothing


def is_picture_font(font: str) -> bool:
    """Is `font` (a span's font name) one of LaTeX's picture-mode fonts or an ornament
    font?"""
    return _FAMILY.fullmatch(font.split("+")[-1]) is not None
