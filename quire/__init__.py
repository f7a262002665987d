"""Quire: cut long textbooks into verified, study-sized sessions.

    import quire

    result = quire.split("book.pdf", out="out/book")
    for s in result.sessions:
        print(s.number, s.title, f"pp. {s.page_first}-{s.page_last}")

The public surface is what `__all__` lists; everything else (`quire.shared`,
`quire.workers`, `quire.orchestrator`) is the implementation and may change. The names are
imported on first use, so that importing one internal module (`quire.shared.keys`) does not
load the whole pipeline.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

    __version__: str

# public name -> the module that defines it
_HOMES = {
    "Document": "quire.shared.ir",
    "DocumentFailedError": "quire.shared.errors",
    "Element": "quire.shared.ir",
    "Finding": "quire.shared.manifest",
    "QuireError": "quire.shared.errors",
    "RagChunk": "quire.shared.rag",
    "SplitResult": "quire.api",
    "StudySession": "quire.api",
    "VerificationReport": "quire.shared.manifest",
    "parse": "quire.api",
    "retrieval_chunks": "quire.api",
    "split": "quire.api",
    "verify": "quire.api",
}

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


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from quire.shared.version import package_version

        value: Any = package_version()
    elif name in _HOMES:
        value = getattr(import_module(_HOMES[name]), name)
    else:
        raise AttributeError(f"module 'quire' has no attribute {name!r}")
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
