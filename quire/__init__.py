"""Quire: cut long textbooks into verified, study-sized sessions.

    import quire

    result = quire.split("book.pdf", out="out/book")
    for s in result.sessions:
        print(s.number, s.title, f"pp. {s.page_first}-{s.page_last}")

The public surface is what `__all__` lists; everything else (`quire.shared`,
`quire.workers`, `quire.orchestrator`) is the implementation and may change.
"""

from __future__ import annotations

from quire.api import (
    SplitResult,
    StudySession,
    parse,
    retrieval_chunks,
    split,
    verify,
)
from quire.shared.errors import DocumentFailedError, QuireError
from quire.shared.ir import Document, Element
from quire.shared.manifest import Finding, VerificationReport
from quire.shared.rag import RagChunk


def __getattr__(name: str) -> str:
    """`__version__`, read from the installed package's metadata when first asked for
    (importlib.metadata costs every command a few hundredths of a second)."""
    if name != "__version__":
        raise AttributeError(f"module 'quire' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("quire")
    except PackageNotFoundError:  # running from a source tree that was never installed
        found = "0+unknown"
    globals()["__version__"] = found
    return found


__all__ = [
    "Document",
    "DocumentFailedError",
    "Element",
    "Finding",
    "QuireError",
    "RagChunk",
    "SplitResult",
    "StudySession",
    "VerificationReport",
    "__version__",
    "parse",
    "retrieval_chunks",
    "split",
    "verify",
]
