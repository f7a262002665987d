"""What every parser returns: the IR plus the bytes of the images it extracted."""

from __future__ import annotations

from dataclasses import dataclass, field

from quire.shared.ir import Document


@dataclass
class ParsedDocument:
    document: Document
    # relative file name (as in ImageRef.file, e.g. "images/<sha256>.png") -> bytes
    images: dict[str, bytes] = field(default_factory=dict)
