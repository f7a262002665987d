"""Quire: cut long textbooks into verified, study-sized sessions.

    import quire

    result = quire.split("book.pdf", out="out/book")
    for s in result.sessions:
        print(s.number, s.title, f"pp. {s.page_first}-{s.page_last}")

The public surface is what `__all__` lists; everything else (`quire.shared`,
`quire.workers`, `quire.orchestrator`) is the implementation and may change.
"""

from importlib.metadata import PackageNotFoundError, version

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

try:
    __version__ = version("quire")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

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
