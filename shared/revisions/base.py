"""The revision-store contract: one integer per document, advanced by compare-and-set, and
a lease per document that says which embedded run drives it.

The session commit protocol (write the immutable `rev-{n+1}` object, then CAS n → n+1) lives
in `shared/session.py`; the lease protocol (who may hold one, when a holder is gone) in
`orchestrator/leases.py`. This layer only provides primitives that are atomic under threads
and processes.
"""

from __future__ import annotations

import abc

from quire.shared.errors import QuireError


class RevisionStoreError(QuireError):
    """A persistent fault of the revision store itself (not a conflict, not transient)."""

    code = "revision_store"


def check_doc_id(doc_id: str) -> str:
    if not isinstance(doc_id, str) or not doc_id or "\x00" in doc_id:
        raise ValueError(f"invalid doc_id: {doc_id!r}")
    return doc_id


def check_rev(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"revision must be a non-negative int, got {value!r}")
    return value


class RevisionStore(abc.ABC):
    @abc.abstractmethod
    def current(self, doc_id: str) -> int:
        """The document's current revision; 0 for a document never set."""

    @abc.abstractmethod
    def compare_and_set(self, doc_id: str, expected: int, new: int) -> bool:
        """Atomically set `new` if the current revision is `expected`; True if it was set."""

    @abc.abstractmethod
    def force(self, doc_id: str, value: int) -> None:
        """Set unconditionally (rebuilding from the object store after the store was lost)."""

    @abc.abstractmethod
    def list_docs(self) -> list[str]:
        """Every document with a stored revision, sorted."""

    @abc.abstractmethod
    def claim_lease(
        self, doc_id: str, owner: str, ttl: float, *, replacing: str | None = None
    ) -> str | None:
        """Atomically hold `doc_id`'s lease for `owner` until `ttl` seconds from now, when it
        is free, expired, already `owner`'s, or held by `replacing` (a holder found gone).
        Returns None when held, else the current holder (nothing changed)."""

    @abc.abstractmethod
    def release_lease(self, doc_id: str, owner: str) -> None:
        """Free the lease if `owner` holds it (else nothing)."""

    @abc.abstractmethod
    def lease_holder(self, doc_id: str) -> str | None:
        """Who holds the lease now (None: free or expired)."""

    def close(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Release connections; the store must not be used afterwards."""

    def __enter__(self) -> RevisionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
