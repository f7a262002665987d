"""The shared corpus as the tests see it (`../shared/corpus` beside the project root)."""

from __future__ import annotations

from pathlib import Path

from quire.shared.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    EncryptedDocumentError,
    InputError,
)

# The one definition of where the corpus is: `../shared/corpus` beside the project root.
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
BIG = "r-fullrefman.pdf"  # 2,415 pages: tests that cover it do so on purpose
ALL_DOCS = (
    sorted(p.name for p in CORPUS.iterdir() if p.suffix in (".pdf", ".docx"))
    if CORPUS.is_dir()
    else []
)
DOCS = [n for n in ALL_DOCS if n != BIG]
# Files no IR can be made of (MANIFEST.md): the parser must refuse them with these reasons.
UNUSABLE: dict[str, type[InputError]] = {
    "debian-faq-password.pdf": EncryptedDocumentError,
    "liboctave-excerpt-image-only.pdf": EmptyDocumentError,
    "r-data-truncated.pdf": CorruptDocumentError,
}
