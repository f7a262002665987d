"""Which embedded run drives a document: a lease in the revision store, kept alive by a
heartbeat, so a run that stops in any way leaves its documents to the next one.

Embedded, a document moves only while some process drives it (`quire run`, `batch`, `serve`,
`quire.split`...). That process holds the document's lease and renews it every few seconds.
It frees the lease when the document stops or the run ends, however it ends (an exception,
Ctrl-C); if the process dies (kill -9, a crash) the lease is found gone at once on this
machine (its holder's process no longer exists) and after `TTL` seconds elsewhere.

The next run that takes a lease over sends the parts its predecessor had dispatched but not
finished again (`engine.resume`); a document held by a live run is followed, not driven
twice. Distributed runs need none of this: the reconciler re-drives by deadlines.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import uuid
from pathlib import Path

from pydantic import BaseModel, ValidationError

from quire.shared.engine import resume
from quire.shared.job import Job
from quire.workers.runtime import Runtime

log = logging.getLogger("quire.leases")
TTL = 30.0  # seconds a lease lasts without a heartbeat (a holder on another machine)
HEARTBEAT = 5.0


def _machine() -> str:
    """This host and PID namespace: where a process id means the same process."""
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = ""
    return f"{socket.gethostname()}/{namespace}"


def _started(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot; 0 where /proc is missing), or
    None when there is no such live process. Tells a reused pid from the holder's."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    except OSError:  # no /proc (macOS...): alive or not, without a start time
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return 0
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] in ("Z", "X"):  # killed, not yet reaped by its parent
        return None
    return int(fields[19])


class Holder(BaseModel):
    """A driving run: its process (where, which, since when) and a token of its own."""

    machine: str
    pid: int
    started: int
    run: str

    @classmethod
    def this_run(cls) -> Holder:
        pid = os.getpid()
        return cls(machine=_machine(), pid=pid, started=_started(pid) or 0, run=uuid.uuid4().hex)

    @classmethod
    def parse(cls, owner: str) -> Holder | None:
        try:
            return cls.model_validate_json(owner)
        except ValidationError:
            return None

    def gone(self) -> bool:
        """Whether the holder's process has ended (known only on its own machine; elsewhere
        its lease runs out)."""
        if self.machine != _machine():
            return False
        started = _started(self.pid)
        return started is None or (started != self.started and 0 not in (started, self.started))

    def describe(self) -> str:
        return f"process {self.pid} on {self.machine.split('/')[0]}"


def running(rt: Runtime, s: Job) -> Holder | None:
    """The live run driving `s`, if any (embedded documents only)."""
    owner = rt.revisions.lease_holder(s.doc_id)
    holder = Holder.parse(owner) if owner else None
    return holder if holder is not None and not holder.gone() else None


class Leases:
    """The leases one run holds, renewed by a heartbeat thread until `close`."""

    def __init__(self, rt: Runtime, *, ttl: float = TTL, heartbeat: float = HEARTBEAT) -> None:
        self.rt, self.ttl, self.heartbeat = rt, ttl, heartbeat
        self.owner = Holder.this_run().model_dump_json()
        self._held: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    def holds(self, doc_id: str) -> bool:
        with self._lock:
            return doc_id in self._held

    def take(self, doc_id: str) -> bool:
        """Hold `doc_id` if no live run does; a document taken from a stopped run is
        resumed. False: another live run drives it."""
        revs = self.rt.revisions
        current = revs.claim_lease(doc_id, self.owner, self.ttl)
        gone = False
        if current is not None:
            holder = Holder.parse(current)
            if holder is None or not holder.gone():
                return False
            if revs.claim_lease(doc_id, self.owner, self.ttl, replacing=current) is not None:
                return False  # someone else was quicker
            gone = True
            log.warning("%s: its run (%s) has ended; resuming it", doc_id[:12], holder.describe())
        with self._lock:
            self._held.add(doc_id)
            if self._beat is None:
                self._beat = threading.Thread(target=self._renew, name="quire-lease", daemon=True)
                self._beat.start()
        resume(self.rt.repo, doc_id, holder_died=gone, actor="embedded")
        return True

    def release(self, doc_id: str) -> None:
        with self._lock:
            self._held.discard(doc_id)
        self.rt.revisions.release_lease(doc_id, self.owner)

    def close(self) -> None:
        self._stop.set()
        if self._beat is not None:
            # never started when a Ctrl-C cut its start short (see `pool.PartPool.close`)
            with contextlib.suppress(RuntimeError):
                self._beat.join()
        with self._lock:
            held, self._held = sorted(self._held), set()
        for doc_id in held:
            with contextlib.suppress(Exception):  # it runs out by itself if this fails
                self.rt.revisions.release_lease(doc_id, self.owner)

    def __enter__(self) -> Leases:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _renew(self) -> None:
        while not self._stop.wait(self.heartbeat):
            with self._lock:
                held = sorted(self._held)
            for doc_id in held:
                try:
                    other = self.rt.revisions.claim_lease(doc_id, self.owner, self.ttl)
                except Exception:  # the revision store away for a moment: try next beat
                    log.exception("renewing the lease of %s failed", doc_id[:12])
                    continue
                if other is not None:  # we stalled past the TTL and another run took over
                    log.warning("%s: another run took it over", doc_id[:12])
                    with self._lock:
                        self._held.discard(doc_id)
