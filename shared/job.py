"""A document's processing job: its state-machine position, committed as immutable revisions.

A job is the processing of one document; a session is what a student studies (a chunk of
the plan). The job's revisions live under `session/`, their name from before the two were
told apart: renaming the key would leave existing stores unreadable.

Commit protocol (DESIGN.md §2, made crash-safe):
1. the committer read revision n and built revision n+1;
2. it creates `docs/{id}/session/rev-{n+1}.json` with a create-only write (`put_if_absent`):
   of two racing committers exactly one wins, the other gets a ConflictError and nothing
   it wrote is visible;
3. it advances the revision store from n to n+1 (atomic compare-and-set).

The object store is the source of truth; the revision store (Redis or SQLite) is a fast
index of it. If Redis loses its data, the next reader rebuilds the index from the objects;
if a committer dies between 2 and 3, readers lag one revision until the next commit, whose
create-only write fails, rolls the index forward and retries. No commit is ever lost or
duplicated, and a read costs one index lookup and one object read.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from quire.shared import keys
from quire.shared.config import RunSettings
from quire.shared.errors import ConflictError, QuireError
from quire.shared.revisions.base import RevisionStore
from quire.shared.revisions.listing import DocEntry, OutputFacts, output_facts
from quire.shared.store.base import NotFound, ObjectStore

READ_CACHE = 256  # revisions whose bytes a repo keeps (a few KB each)

DocState = Literal[
    "queued",
    "parsing",
    "scoring",
    "topic_review",
    "planning",
    "awaiting_decision",
    "writing",
    "verifying",
    "analysing",
    "repairing",
    "indexing",
    "complete",
    "failed",
]
TERMINAL_STATES: frozenset[str] = frozenset({"complete", "failed"})
# States in which nothing runs by itself: finished, or waiting for an external agent.
STOPPED: frozenset[str] = TERMINAL_STATES | {"awaiting_decision"}


class Job(BaseModel):
    model_config = ConfigDict(extra="forbid")

    doc_id: str
    revision: int = 0
    state: DocState = "queued"
    source_name: str
    source_format: Literal["pdf", "docx", "epub", "html"]
    source_key: str
    page_count: int = 0
    settings: RunSettings = Field(default_factory=RunSettings)
    # the Quire version that admitted this run: `quire run` and `quire.split` run a finished
    # document again after an upgrade ("" for runs recorded before it was kept)
    made_by: str = ""
    # fan-out of the current state: its parts, which are done (part -> output key), and at
    # which revision each was dispatched (so advancing twice never enqueues twice)
    parts: list[str] | None = None
    done: dict[str, str] = {}
    dispatched: dict[str, int] = {}
    attempts: int = 0  # reconciler re-drives of the current state
    goto: DocState | None = None  # set by a FINISH part to leave the usual next state
    # named pointers to immutable objects that outlive a state, e.g. "plan" -> the key of
    # the current plan version; parts read their inputs through these, never overwrite them
    artifacts: dict[str, str] = {}
    state_entered_at: float = 0.0
    error_code: str | None = None
    error: str | None = None
    # seconds workers spent running this run's parts: the document's own processing time,
    # apart from the time its parts waited in a queue behind other documents'
    work_seconds: float = 0.0
    # audit trail of this revision
    actor: str = ""
    why: str = ""
    committed_at: float = 0.0

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL_STATES

    def listed(self) -> dict[str, Any]:
        """What a document list (the listing's entry, the API's summary) takes from the job
        itself; pages, sessions, verification and time come from elsewhere."""
        return {
            **self.model_dump(
                include={"doc_id", "revision", "source_name", "source_format", "state"}
            ),
            "parts_done": len(self.done),
            "parts_total": len(self.parts or []),
            "updated_at": self.committed_at,
            "error_code": self.error_code,
            "error": self.error,
        }

    def enter(self, state: DocState, now: float) -> None:
        """Move to a new state with a fresh fan-out."""
        self.state = state
        self.parts = None
        self.done = {}
        self.dispatched = {}
        self.attempts = 0
        self.goto = None
        self.state_entered_at = now

    def fail(self, code: str, reason: str, now: float) -> None:
        self.enter("failed", now)
        self.error_code = code
        self.error = reason


class JobRepo:
    """Loads and commits jobs over an object store and a revision store."""

    def __init__(self, store: ObjectStore, revisions: RevisionStore) -> None:
        self.store = store
        self.revisions = revisions
        # revision objects are written once and never change: their bytes, by (doc, rev),
        # spare the store a read each time a part or the driver loads the same revision
        self._read: OrderedDict[tuple[str, int], bytes] = OrderedDict()
        self._read_lock = threading.Lock()  # the embedded driver's threads share a repo

    def current_revision(self, doc_id: str) -> int:
        rev = self.revisions.current(doc_id)
        if rev == 0:  # unknown to the index: new, or the index lost its data
            rev = self._highest_in_store(doc_id)
            if rev:
                self.revisions.force(doc_id, rev, self.entry(self.load(doc_id, rev)))
        return rev

    def _roll_forward(self, doc_id: str, rev: int) -> None:
        """Advance the index over commits whose index update was lost (a committer died
        between its object write and its CAS)."""
        start = rev
        while self.store.exists(keys.revision(doc_id, rev + 1)):
            rev += 1
        if rev != start:
            self.revisions.force(doc_id, rev, self.entry(self.load(doc_id, rev)))

    def _highest_in_store(self, doc_id: str) -> int:
        revs = [keys.revision_number(k) or 0 for k in self.store.list(keys.job_revisions(doc_id))]
        return max(revs, default=0)

    def documents_in_store(self) -> list[str]:
        """Every document with a committed job, from a full listing of `docs/` in the
        store (not the index): for rebuilding the index after the revision store lost it."""
        return sorted(
            keys.doc_id_of(k) for k in self.store.list(keys.DOCS) if keys.revision_number(k) == 1
        )

    def exists(self, doc_id: str) -> bool:
        return self.current_revision(doc_id) > 0

    def load(self, doc_id: str, revision: int | None = None) -> Job:
        rev = self.current_revision(doc_id) if revision is None else revision
        if rev == 0:
            raise NotFound(f"no document {doc_id}")
        with self._read_lock:
            data = self._read.get((doc_id, rev))
        if data is None:
            data = self.store.get(keys.revision(doc_id, rev))
            self._remember(doc_id, rev, data)
        return Job.model_validate_json(data)

    def _remember(self, doc_id: str, rev: int, data: bytes) -> None:
        with self._read_lock:
            self._read[(doc_id, rev)] = data
            if len(self._read) > READ_CACHE:
                self._read.popitem(last=False)  # the oldest: a document's early revisions

    def commit(self, job: Job, *, expected: int, actor: str, why: str) -> Job:
        """Commit `job` as revision expected+1, or raise ConflictError."""
        doc_id = job.doc_id
        if self.current_revision(doc_id) != expected:
            raise ConflictError(f"{doc_id}: revision {expected} is stale")
        new = job.model_copy(
            update={
                "revision": expected + 1,
                "actor": actor,
                "why": why,
                "committed_at": time.time(),
            }
        )
        key, data = keys.revision(doc_id, expected + 1), new.model_dump_json(indent=1).encode()
        if not self.store.put_if_absent(key, data) and not self._landed(key, data):
            self._roll_forward(doc_id, expected)
            raise ConflictError(f"{doc_id}: revision {expected + 1} was committed by another")
        # losing this CAS means a reader already rolled the index forward: still committed
        self.revisions.compare_and_set(doc_id, expected, expected + 1, self.entry(new))
        self._remember(doc_id, expected + 1, data)
        return new

    def _landed(self, key: str, data: bytes) -> bool:
        """Whether a create-only write that found its key taken was our own: the store
        retried it after the first attempt's reply was lost. Then the object holds exactly
        our bytes (`committed_at` makes them unique to this commit)."""
        try:
            return self.store.get(key) == data
        except NotFound:
            return False

    def update(
        self,
        doc_id: str,
        change: Callable[[Job], bool],
        *,
        actor: str,
        why: str,
        attempts: int = 50,
    ) -> Job | None:
        """Optimistic read-modify-commit. `change` edits the job in place and returns
        False when there is nothing to commit. Returns the committed job or None."""
        for _ in range(attempts):
            current = self.load(doc_id)
            draft = current.model_copy(deep=True)
            if not change(draft):
                return None
            try:
                return self.commit(draft, expected=current.revision, actor=actor, why=why)
            except ConflictError:
                time.sleep(0.002)
        raise QuireError(f"{doc_id}: could not commit after {attempts} conflicting attempts")

    def history(self, doc_id: str) -> list[Job]:
        return [self.load(doc_id, r) for r in range(1, self.current_revision(doc_id) + 1)]

    # --- the documents listing ----------------------------------------------------------------

    def entry(self, s: Job) -> DocEntry:
        """The job as the documents listing shows it; a stopped document's entry adds
        what its outputs say (two small reads, once per stop)."""
        stopped = s.state in STOPPED
        facts = output_facts(self.store, s.doc_id) if stopped else OutputFacts()
        return DocEntry(
            **s.listed(),
            pages=(s.page_count if s.source_format == "pdf" else 0) or facts.pages,
            seconds=round(self.processing_seconds(s), 2) if stopped else None,
            sessions=facts.sessions,
            verification=facts.verification,
        )

    def processing_seconds(self, s: Job) -> float:
        """The document's own processing time: what its parts took. A job recorded
        before parts were timed falls back to the span from its first advance."""
        if s.work_seconds > 0 or s.revision < 2:
            return s.work_seconds
        return max(0.0, s.committed_at - self.load(s.doc_id, 2).committed_at)

    def relist(self) -> int:
        """List the documents the listing lags behind on (a store from before it, or an
        index rebuilt without it); returns how many were listed."""
        listed = 0
        for doc_id in self.revisions.unlisted():
            listed += self.revisions.put_entry(self.entry(self.load(doc_id)))
        return listed
