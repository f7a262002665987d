"""Footnotes and cross-references in element text: one spelling for parsers, writers,
the verifier and the web workspace.

- A footnote's reference is `[^label]` in the text of the element that holds it; the
  footnote is an element of its own whose text is `[^label]: body` (Markdown footnotes).
  Labels are unique within a document (`note_label`), so any session may hold any notes.
- A cross-reference is a Markdown link whose destination names its target element:
  `[Section 3.2](#el-000123)` in the IR. Writers turn the destination into the session
  file holding the target (`03-the-usr-hierarchy.md#32-the-usr-hierarchy`); the link text
  is content, the destination is rendering, so word counts leave destinations out.
- Headings are link targets by their GitHub-style slug (`heading_slug`, deduplicated
  within a file by `Slugger`), other elements by their id.
"""

from __future__ import annotations

import re
import unicodedata

# An IR link destination: "](#el-000123)"
IR_DEST = re.compile(r"\]\(#(el-\d{6,})\)")
# Any link destination a writer makes of one: "](#anchor)", "](03-x.md#anchor)", "](03-x.md)"
INTERNAL_DEST = re.compile(r"\]\((?:[^()\s]*\.md)?(?:#[^()\s]*)?\)")
FOOTNOTE_REF = re.compile(r"\[\^([^\]\s]+)\](?!:)")
FOOTNOTE_DEF = re.compile(r"\[\^([^\]\s]+)\]: ")
NOTE_INDENT = "    "  # a footnote's later paragraphs are indented under its first

# Marks that are not letters or digits get a name in the label ("[^dagger]"); some
# Markdown readers stumble over punctuation in footnote labels.
_MARK_NAMES = {
    "*": "star",
    "∗": "star",
    "†": "dagger",
    "‡": "ddagger",
    "§": "section",
    "¶": "para",
    "‖": "parallel",
    "#": "hash",
}


def drop_internal_destinations(text: str) -> str:
    """`text` with the destinations of internal links left out ("[3.2](#el-1)" ->
    "[3.2]"), as word counts see it."""
    return INTERNAL_DEST.sub("]", text) if "](" in text else text


# An IR link, its text the group: "[Section 3.2](#el-000123)"
IR_LINK = re.compile(r"\[((?:\\.|[^\]\\])*)\]\(#el-\d{6,}\)")
_UNESCAPE = re.compile(r"\\([\[\]])")


def plain(text: str) -> str:
    """`text` as a reader reads it: element links as their text, footnote references and
    a footnote's own label left out."""
    if "](#el-" in text:
        text = IR_LINK.sub(lambda m: _UNESCAPE.sub(r"\1", m.group(1)), text)
    if "[^" in text:
        text = FOOTNOTE_REF.sub("", FOOTNOTE_DEF.sub("", text))
    return text


def ir_link(text: str, target_id: str) -> str:
    """`text` as a link to element `target_id` (brackets in the text escaped)."""
    return f"[{_escape(text)}](#{target_id})"


def _escape(text: str) -> str:
    return re.sub(r"(?<!\\)([\[\]])", r"\\\1", text)


def link_targets(text: str) -> list[str]:
    """The element ids that `text` links to, in order."""
    return IR_DEST.findall(text) if "](#el-" in text else []


def note_label(mark: str, used: set[str]) -> str:
    """A document-unique label for a footnote with `mark`: the mark itself ("5", "a"),
    a name for a symbol ("dagger"), with "-2", "-3" ... on repeats; added to `used`."""
    mark = unicodedata.normalize("NFKC", "".join(mark.split()))  # "⁵" -> "5"
    base = _MARK_NAMES.get(mark) or ("".join(c for c in mark if c.isalnum()) or "note")
    label, n = base, 1
    while label in used:
        n += 1
        label = f"{base}-{n}"
    used.add(label)
    return label


def label_mark(label: str) -> str:
    """What a reader is shown for a label: its mark ("dagger-2" -> "†")."""
    base = label.rsplit("-", 1)[0] if re.search(r"-\d+$", label) else label
    names = {v: k for k, v in _MARK_NAMES.items() if k != "∗"}
    return names.get(base, base)


def footnote_ref(label: str) -> str:
    return f"[^{label}]"


def footnote_def(label: str, paragraphs: list[str]) -> str:
    """`[^label]: first paragraph`, later paragraphs indented under it."""
    body = f"\n\n{NOTE_INDENT}".join(" ".join(p.split()) for p in paragraphs if p.strip())
    return f"[^{label}]: {body}"


def heading_title(text: str) -> str:
    """A Markdown ATX heading's text, as a reader renders it ("## 3.2. Usr ##" -> "3.2.
    Usr")."""
    title = text.strip().lstrip("#").strip()
    return re.sub(r"(?:^|\s+)#+\s*$", "", title).strip()


def heading_slug(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation and symbols dropped, spaces
    to hyphens ("3.2. The /usr hierarchy" -> "32-the-usr-hierarchy")."""
    kept = (c for c in title.lower() if c in " -_" or unicodedata.category(c)[0] in "LNM")
    # composed: dropping "A:\u0301"'s colon leaves "a" + a combining accent, which the
    # text it is written into (NFC) would compose, and the link would no longer match
    return unicodedata.normalize("NFC", "".join(kept).replace(" ", "-"))


class Slugger:
    """Slugs unique within one file, as GitHub makes them (github-slugger): "intro",
    "intro-1", "intro-2", ..."""

    def __init__(self) -> None:
        self.occurrences: dict[str, int] = {}

    def slug(self, title: str) -> str:
        base = result = heading_slug(title)
        while result in self.occurrences:
            self.occurrences[base] += 1
            result = f"{base}-{self.occurrences[base]}"
        self.occurrences[result] = 0
        return result
