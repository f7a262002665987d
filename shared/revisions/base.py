"""The revision-store contract: one integer per document, advanced by compare-and-set,
and beside it the documents listing (`listing.py`), written in the same atomic step, and a
lease per document that says which embedded run drives it.

The job commit protocol (write the immutable `rev-{n+1}` object, then CAS n → n+1) lives
in `shared/job.py`; the lease protocol (who may hold one, when a holder is gone) in
`orchestrator/leases.py`. This layer only provides primitives that are atomic under threads
and processes.
"""

from __future__ import annotations

import abc

import quire.shared.revisions.listing as listing
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
    def compare_and_set(
        self, doc_id: str, expected: int, new: int, entry: listing.DocEntry | None = None
    ) -> bool:
        """Atomically set `new` if the current revision is `expected`; True if it was set.
        `entry` (the document at `new`) is listed in the same atomic step."""

    @abc.abstractmethod
    def force(self, doc_id: str, value: int, entry: listing.DocEntry | None = None) -> None:
        """Set unconditionally (rebuilding from the object store after the store was lost),
        listing `entry` (the document at `value`) with it."""

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

    # --- the documents listing --------------------------------------------------------------

    @abc.abstractmethod
    def put_entry(self, entry: listing.DocEntry) -> bool:
        """List `entry` if its revision is the document's current one (repairing a listing
        that lags); True if it was written."""

    @abc.abstractmethod
    def unlisted(self) -> list[str]:
        """Documents whose current revision is not what the listing shows (a store from
        before the listing, or revisions set without an entry), sorted."""

    @abc.abstractmethod
    def entries(self, query: listing.DocQuery) -> listing.DocPage:
        """A page of listed documents, newest first, with the counts of the whole query."""

    @abc.abstractmethod
    def index_batch(self, batch: listing.BatchEntry) -> None:
        """Record a batch and its documents (idempotent: the same batch again keeps its
        place in the batches' order)."""

    @abc.abstractmethod
    def batches(self, after: int | None = None, limit: int = 50) -> listing.BatchPage:
        """A page of batches, newest first."""

    @abc.abstractmethod
    def batch(self, batch_id: str) -> listing.BatchInfo | None:
        """One indexed batch, or None."""

    def close(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Release connections; the store must not be used afterwards."""

    def __enter__(self) -> RevisionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
