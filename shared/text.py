"""Canonical text helpers shared by parsers, writers and the verifier.

Every hash and word count in Quire goes through these functions, so the parser and the
verifier can never disagree about what "the same text" means.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

_WORD = re.compile(r"\w+", re.UNICODE)


_SURROGATE = re.compile("[\ud800-\udfff]")


def normalize(text: str) -> str:
    """NFC, no trailing spaces on lines, no surrounding blank lines. Refuses lone
    surrogates (ValueError): no UTF-8 file can hold them, so no output could."""
    if _SURROGATE.search(text):
        raise ValueError("text holds a lone surrogate code point, which UTF-8 cannot encode")
    text = unicodedata.normalize("NFC", text)
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n")).strip("\n")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_hash(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def count_words(text: str) -> int:
    return len(_WORD.findall(text))
