"""The distributed stack for fault tests: its parts can be killed, restarted and disturbed.

`Stack` runs a private redis-server (broker on db 0, revisions on db 1), an S3 bucket on a
moto server reached through an `S3FaultProxy`, Celery worker processes and, optionally, the
reconciler (`quire orchestrator --interval ...`) as its own process. Workers see S3 through
the proxy; the test's own `runtime` talks to moto directly, so its checks are undisturbed.

Helpers here check what every fault test promises: the document finished, its outputs are
byte-identical to an undisturbed (embedded) run, and no part was recorded twice.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pipeline_utils import ROOT, outputs
from s3_fault_proxy import S3FaultProxy
from services import (
    S3_TEST_ENV,
    CeleryWorker,
    MotoServer,
    RedisServer,
    ServiceError,
    _die_with_parent,
    _tail,
)

from quire.shared.config import Environment, RunSettings
from quire.shared.errors import TransientError
from quire.shared.job import Job, JobRepo
from quire.shared.revisions.base import RevisionStore
from quire.shared.revisions.listing import (
    BatchEntry,
    BatchInfo,
    BatchPage,
    DocEntry,
    DocPage,
    DocQuery,
)
from quire.shared.revisions.redis import RedisRevisionStore
from quire.shared.store.s3 import S3Store
from quire.workers.execute import submit
from quire.workers.runtime import Runtime

# Which worker consumes which queues: every queue has exactly one consumer, so a test knows
# which process is running a part.
QUEUES_A = "orchestrate,parse,review"
QUEUES_B = "write,render,analysis"


class NoIndex(RevisionStore):
    """A revision "index" that knows nothing: every read finds the highest revision object
    in the store itself. For observers that must not touch (or repair) the real index."""

    def current(self, doc_id: str) -> int:
        return 0

    def compare_and_set(
        self, doc_id: str, expected: int, new: int, entry: DocEntry | None = None
    ) -> bool:
        raise AssertionError("the observer never commits")

    def force(self, doc_id: str, value: int, entry: DocEntry | None = None) -> None:
        pass

    def list_docs(self) -> list[str]:
        return []

    def claim_lease(
        self, doc_id: str, owner: str, ttl: float, *, replacing: str | None = None
    ) -> str | None:
        raise AssertionError("the observer never drives")

    def release_lease(self, doc_id: str, owner: str) -> None:
        pass

    def lease_holder(self, doc_id: str) -> str | None:
        return None

    def put_entry(self, entry: DocEntry) -> bool:
        return False

    def unlisted(self) -> list[str]:
        return []

    def entries(self, query: DocQuery) -> DocPage:
        return DocPage(entries=[], next_after=None, total=0, counts={}, passed=0)

    def index_batch(self, batch: BatchEntry) -> None:
        pass

    def batches(self, after: int | None = None, limit: int = 50) -> BatchPage:
        return BatchPage(batches=[], next_after=None)

    def batch(self, batch_id: str) -> BatchInfo | None:
        return None


def direct_client(endpoint_url: str) -> object:
    """A boto3 S3 client for moto with explicit dummy credentials (no environment)."""
    import boto3
    from botocore.config import Config

    return boto3.client(
        "s3",
        endpoint_url=endpoint_url,
        aws_access_key_id=S3_TEST_ENV["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=S3_TEST_ENV["AWS_SECRET_ACCESS_KEY"],
        region_name=S3_TEST_ENV["AWS_DEFAULT_REGION"],
        config=Config(s3={"addressing_style": "path"}, retries={"total_max_attempts": 5}),
    )


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (children, grandchildren...), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def rss_kib(pid: int) -> int:
    """Resident set size of one process in KiB (0 if it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class Worker(CeleryWorker):
    """A CeleryWorker that can be killed like a lost machine (parent and pool children)
    or lose just the pool child running a task."""

    def pool_children(self) -> list[int]:
        assert self.proc is not None
        return descendants(self.proc.pid)

    def kill_all(self) -> None:
        """SIGKILL the worker and all its pool processes at once: nothing is acknowledged,
        rejected or cleaned up."""
        if self.proc is None or self.proc.poll() is not None:
            return
        victims = [self.proc.pid, *self.pool_children()]
        for pid in victims:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.proc.wait(10)

    def kill_children(self) -> list[int]:
        """SIGKILL the pool children only (the parent sees the task's worker lost)."""
        victims = self.pool_children()
        for pid in victims:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return victims

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@dataclass
class Stack:
    tmp: Path
    moto: MotoServer
    visibility_timeout: float | None = 6.0
    deadline_scale: float | None = None
    reconciler_interval: float | None = None
    extra_env: dict[str, str] = field(default_factory=dict)
    redis: RedisServer = field(init=False)
    proxy: S3FaultProxy = field(init=False)
    env: dict[str, str] = field(init=False)
    runtime: Runtime = field(init=False)
    observer: JobRepo = field(init=False)
    workers: dict[str, Worker] = field(default_factory=dict, init=False)
    reconciler: subprocess.Popen[bytes] | None = field(default=None, init=False)
    reconciler_log: Path = field(init=False)
    retired_logs: list[str] = field(default_factory=list, init=False)

    def start(
        self,
        workers: Iterable[tuple[str, str]] = (("a", QUEUES_A), ("b", QUEUES_B)),
    ) -> Stack:
        self.redis = RedisServer().start()
        self.proxy = S3FaultProxy(self.moto.endpoint_url).__enter__()
        bucket = f"quire-faults-{uuid.uuid4().hex[:12]}"
        base = self.redis.url.rsplit("/", 1)[0]
        self.env = {
            **S3_TEST_ENV,
            "AWS_CONFIG_FILE": str(self.tmp / "no-aws-config"),
            "AWS_SHARED_CREDENTIALS_FILE": str(self.tmp / "no-aws-credentials"),
            "QUIRE_BROKER_URL": f"{base}/0",
            "QUIRE_REDIS_URL": f"{base}/1",
            "QUIRE_STORE_URL": f"s3://{bucket}/q",
            "QUIRE_STATE_DIR": str(self.tmp / "state"),
            "QUIRE_S3_ENDPOINT_URL": self.proxy.endpoint_url,
            **self.extra_env,
        }
        if self.visibility_timeout is not None:
            self.env["QUIRE_VISIBILITY_TIMEOUT"] = str(self.visibility_timeout)
        if self.deadline_scale is not None:
            self.env["QUIRE_DEADLINE_SCALE"] = str(self.deadline_scale)
        store = S3Store(bucket, "q", client=direct_client(self.moto.endpoint_url))
        store.ensure_bucket()
        revisions = RedisRevisionStore(f"{base}/1")
        self.runtime = Runtime(
            env=Environment(
                broker_url=self.env["QUIRE_BROKER_URL"],
                redis_url=self.env["QUIRE_REDIS_URL"],
                store_url=self.env["QUIRE_STORE_URL"],
                state_dir=self.tmp / "state",
            ),
            store=store,
            revisions=revisions,
            repo=JobRepo(store, revisions),
        )
        # the test watches documents through its own index, never touching Redis: the
        # system must recover by itself, not because a test read the sessions back
        self.observer = JobRepo(store, NoIndex())
        self.reconciler_log = Path(tempfile.mkstemp(prefix="quire-reconciler-", suffix=".log")[1])
        for name, queues in workers:
            self.start_worker(name, queues)
        if self.reconciler_interval is not None:
            self.start_reconciler()
        return self

    # --- processes -------------------------------------------------------------------------

    def worker_env(self) -> dict[str, str]:
        inherited = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "QUIRE_"))}
        return {**inherited, **self.env}

    def start_worker(self, name: str, queues: str, concurrency: int = 1) -> Worker:
        old = self.workers.get(name)
        if old is not None:
            old.stop()
            self.retired_logs.append(_tail(old.log, 4000))
            old.log.unlink(missing_ok=True)
        worker = Worker(
            f"{name}{uuid.uuid4().hex[:6]}", queues, self.worker_env(), concurrency=concurrency
        )
        worker.start()
        self.workers[name] = worker
        return worker

    def start_reconciler(self) -> None:
        assert self.reconciler_interval is not None
        with open(self.reconciler_log, "ab") as out:
            self.reconciler = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "quire.orchestrator.cli",
                    "-v",
                    "orchestrator",
                    "--interval",
                    str(self.reconciler_interval),
                ],
                stdout=out,
                stderr=out,
                stdin=subprocess.DEVNULL,
                cwd=ROOT,
                env=self.worker_env(),
                preexec_fn=_die_with_parent,
            )

    def kill_reconciler(self) -> None:
        if self.reconciler is not None and self.reconciler.poll() is None:
            self.reconciler.send_signal(signal.SIGKILL)
            self.reconciler.wait(10)

    def stop(self) -> None:
        for worker in self.workers.values():
            worker.stop()
            worker.log.unlink(missing_ok=True)
        if self.reconciler is not None and self.reconciler.poll() is None:
            self.reconciler.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.reconciler.wait(10)
        self.kill_reconciler()
        self.reconciler_log.unlink(missing_ok=True)
        self.proxy.__exit__(None, None, None)
        self.runtime.revisions.close()
        self.observer.revisions.close()
        self.redis.close()

    def logs(self) -> str:
        """Every worker's and the reconciler's log, for failure messages and log scans."""
        parts = [*self.retired_logs]
        parts += [f"--- worker {n} ---\n{w.log_text()}" for n, w in self.workers.items()]
        with contextlib.suppress(OSError):
            parts.append(f"--- reconciler ---\n{self.reconciler_log.read_text(errors='replace')}")
        return "\n".join(parts)

    # --- documents -------------------------------------------------------------------------

    def submit(self, path: Path, settings: RunSettings, password: str | None = None) -> str:
        return submit(self.runtime, path, settings, password=password).doc_id

    def poke(self, doc_ids: list[str]) -> None:
        from quire.workers.app import use_broker
        from quire.workers.tasks import poke

        use_broker(self.env["QUIRE_BROKER_URL"])
        for d in doc_ids:
            poke(d)

    def load(self, doc_id: str, *, indexed: bool = False) -> Job:
        """The job, waiting out a Redis restart. By default read through the observer
        (the store alone); `indexed` reads through the Redis index (cheaper)."""
        repo = self.runtime.repo if indexed else self.observer
        deadline = time.monotonic() + 30
        while True:
            try:
                return repo.load(doc_id)
            except TransientError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def wait_until(self, doc_id: str, predicate: object, timeout: float) -> Job:
        """Poll until `predicate(job)` holds (a callable) or the state is reached."""
        deadline = time.monotonic() + timeout
        while True:
            s = self.load(doc_id)
            ok = predicate(s) if callable(predicate) else s.state == predicate
            if ok:
                return s
            if s.terminal or time.monotonic() > deadline:
                raise AssertionError(
                    f"{s.source_name}: state {s.state} ({s.error}) is not what was waited "
                    f"for after {timeout}s\n{self.logs()[-6000:]}"
                )
            time.sleep(0.1)

    def wait_terminal(
        self, doc_ids: list[str], timeout: float, *, poll: float = 0.2, indexed: bool = False
    ) -> dict[str, Job]:
        deadline = time.monotonic() + timeout
        while True:
            sessions = {d: self.load(d, indexed=indexed) for d in doc_ids}
            if all(s.terminal for s in sessions.values()):
                return sessions
            if time.monotonic() > deadline:
                states = {s.source_name: (s.state, s.error) for s in sessions.values()}
                raise AssertionError(
                    f"not finished after {timeout}s: {states}\n{self.logs()[-8000:]}"
                )
            time.sleep(poll)

    def run(self, path: Path, settings: RunSettings, timeout: float = 90) -> Job:
        doc_id = self.submit(path, settings)
        self.poke([doc_id])
        return self.wait_terminal([doc_id], timeout)[doc_id]


def start_stack(tmp: Path, moto: MotoServer, **kwargs: object) -> Stack:
    stack = Stack(tmp, moto, **kwargs)  # type: ignore[arg-type]
    try:
        return stack.start()
    except (ServiceError, OSError):
        with contextlib.suppress(Exception):
            stack.stop()
        raise


# --- what every fault test checks ----------------------------------------------------------


def part_commits(history: list[Job]) -> Counter[tuple[str, float, str]]:
    """How many times each part was recorded done, per visit of a state (a state can be
    visited again, e.g. writing after a retitle, and then its parts run again)."""
    counts: Counter[tuple[str, float, str]] = Counter()
    for prev, cur in itertools.pairwise(history):
        if cur.state != prev.state or cur.state_entered_at != prev.state_entered_at:
            continue
        for part in set(cur.done) - set(prev.done):
            counts[(cur.state, cur.state_entered_at, part)] += 1
        assert set(prev.done) <= set(cur.done), (prev.revision, cur.revision)
    return counts


def assert_exactly_once(repo: JobRepo, doc_id: str) -> list[Job]:
    """Revisions 1..n with no gap, no extra object, and every part recorded done once."""
    history = repo.history(doc_id)
    n = len(history)
    assert [h.revision for h in history] == list(range(1, n + 1))
    keys = repo.store.list(f"docs/{doc_id}/session/")
    assert keys == [f"docs/{doc_id}/session/rev-{r:08d}.json" for r in range(1, n + 1)], keys
    twice = {k: c for k, c in part_commits(history).items() if c != 1}
    assert not twice, f"parts recorded more than once: {twice}"
    return history


def assert_same_outputs(rt: Runtime, doc_id: str, expected: dict[str, bytes]) -> None:
    got = outputs(rt, doc_id)
    assert sorted(got) == sorted(expected)
    for name, data in expected.items():
        assert got[name] == data, f"{name} differs from the undisturbed run"
    chunk_keys = rt.store.list(f"docs/{doc_id}/work/chunks/")
    numbers = [k.rsplit("/", 1)[1] for k in chunk_keys]
    assert len(numbers) == len(set(numbers))
