"""LaTeX for equations read from a document's own markup (Word's OMML, MathML): the
characters LaTeX reads as syntax, the commands for n-ary operators, accents, delimiters
and function names. Symbols stay the Unicode characters the document stored (α, ≤, ∞:
KaTeX and MathJax read them); only what LaTeX needs a command for becomes one."""

from __future__ import annotations

import re

# Characters LaTeX reads as syntax, as text in math mode.
ESCAPES = {
    "\\": r"\backslash ",
    "{": r"\{",
    "}": r"\}",
    "#": r"\#",
    "%": r"\%",
    "&": r"\&",
    "$": r"\$",
    "_": r"\_",
    "^": r"\hat{}",
    "~": r"\sim ",
}
NARY = {
    "∑": r"\sum",
    "∏": r"\prod",
    "∐": r"\coprod",
    "∫": r"\int",
    "∬": r"\iint",
    "∭": r"\iiint",
    "∮": r"\oint",
    "∯": r"\oiint",
    "∰": r"\oiiint",
    "⋃": r"\bigcup",
    "⋂": r"\bigcap",
    "⋁": r"\bigvee",
    "⋀": r"\bigwedge",
    "⨁": r"\bigoplus",
    "⨂": r"\bigotimes",
    "⨀": r"\bigodot",
    "⨄": r"\biguplus",
    "⨆": r"\bigsqcup",
}
ACCENTS = {
    "\u0302": r"\hat",
    "\u030c": r"\check",
    "\u0303": r"\tilde",
    "\u0301": r"\acute",
    "\u0300": r"\grave",
    "\u0306": r"\breve",
    "\u0307": r"\dot",
    "\u0308": r"\ddot",
    "\u20db": r"\dddot",
    "\u0304": r"\bar",
    "\u0305": r"\overline",
    "\u20d7": r"\vec",
    "\u20d6": r"\overleftarrow",
    "\u20e1": r"\overleftrightarrow",
}
DELIMITERS = {
    "{": r"\{",
    "}": r"\}",
    "\u27e8": r"\langle",  # ⟨, and the two older angle brackets Word also uses
    "\u2329": r"\langle",
    "\u3008": r"\langle",
    "\u27e9": r"\rangle",
    "\u232a": r"\rangle",
    "\u3009": r"\rangle",
    "‖": r"\|",
    "⌊": r"\lfloor",
    "⌋": r"\rfloor",
    "⌈": r"\lceil",
    "⌉": r"\rceil",
    "": ".",  # no delimiter on this side
}
ARROWS = {"→": "rightarrow", "←": "leftarrow", "↔": "leftrightarrow"}
# Operator names LaTeX has a command for (\sin, \lim); others become \operatorname{…}.
_FUNCTION_NAMES = """arccos arcsin arctan arg cos cosh cot coth csc deg det dim exp gcd hom
inf ker lg lim liminf limsup ln log max min Pr sec sin sinh sup tan tanh"""
FUNCTIONS = frozenset(_FUNCTION_NAMES.split())
_COMMAND = re.compile(r"\\[A-Za-z]+")


def escape(text: str) -> str:
    return "".join(ESCAPES.get(ch, ch) for ch in text)


def group(text: str) -> str:
    """`text` as one LaTeX argument: braces unless a single character or command."""
    return text if len(text) == 1 or _COMMAND.fullmatch(text) else f"{{{text}}}"


def operator(name: str) -> str:
    """A function's name (`sin`, `lim`, `Res`) as LaTeX's operator for it."""
    if name in FUNCTIONS:
        return "\\" + name
    if name.isalpha() and len(name) > 1:
        return rf"\operatorname{{{name}}}"
    return name


def delimiter(ch: str) -> str:
    """A delimiter for \\left or \\right; a command ends with a space ("\\langle a")."""
    out = DELIMITERS.get(ch, ch)
    return f"{out} " if out[1:].isalpha() else out
