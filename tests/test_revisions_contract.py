"""One contract for every RevisionStore: SQLite on a temp file, Redis on a real redis-server.
Concurrency is exercised with real threads and processes, never simulated."""

from __future__ import annotations

import multiprocessing
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from services import RedisServer

from quire.shared.errors import TransientError
from quire.shared.revisions import RevisionStore, SqliteRevisionStore, open_revision_store
from quire.shared.revisions.redis import RedisRevisionStore

pytestmark = pytest.mark.services

Factory = Callable[[], RevisionStore]


@pytest.fixture(params=["sqlite", "redis"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Factory]:
    """A factory of independent store objects over the same backing data."""
    made: list[RevisionStore] = []
    if request.param == "sqlite":
        path = tmp_path / "revs" / "revisions.sqlite3"

        def factory() -> RevisionStore:
            made.append(SqliteRevisionStore(path))
            return made[-1]
    else:
        url = request.getfixturevalue("redis_url")
        prefix = f"quire:test:{uuid.uuid4().hex}:"

        def factory() -> RevisionStore:
            made.append(RedisRevisionStore(url, prefix=prefix))
            return made[-1]

    yield factory
    for store in made:
        store.close()


@pytest.fixture
def revs(make_store: Factory) -> RevisionStore:
    return make_store()


def test_unknown_doc_is_zero(revs: RevisionStore) -> None:
    assert revs.current("doc-unknown") == 0
    assert revs.list_docs() == []


def test_compare_and_set_semantics(revs: RevisionStore) -> None:
    assert revs.compare_and_set("d", 0, 1) is True
    assert revs.current("d") == 1
    assert revs.compare_and_set("d", 0, 1) is False  # stale
    assert revs.compare_and_set("d", 0, 2) is False
    assert revs.current("d") == 1
    assert revs.compare_and_set("d", 1, 2) is True
    assert revs.compare_and_set("d", 2, 3) is True
    assert revs.current("d") == 3
    # a failed CAS on an unknown doc creates nothing
    assert revs.compare_and_set("ghost", 5, 6) is False
    assert revs.current("ghost") == 0
    assert revs.list_docs() == ["d"]


def test_force_and_list_docs(revs: RevisionStore) -> None:
    revs.force("b", 7)
    assert revs.current("b") == 7
    revs.force("b", 3)  # force may go backwards: rebuilding from the store decides
    assert revs.current("b") == 3
    assert revs.compare_and_set("b", 7, 8) is False
    assert revs.compare_and_set("b", 3, 4) is True
    revs.compare_and_set("a", 0, 1)
    revs.force("docs*[weird]?", 1)  # glob characters are data, not patterns
    revs.force("ünï", 2)
    assert revs.list_docs() == sorted(["a", "b", "docs*[weird]?", "ünï"])
    assert revs.current("docs*[weird]?") == 1


def test_invalid_arguments_are_rejected(revs: RevisionStore) -> None:
    for bad_call in (
        lambda: revs.current(""),
        lambda: revs.compare_and_set("d", -1, 0),
        lambda: revs.compare_and_set("d", 0, -1),
        lambda: revs.compare_and_set("d", 0, True),
        lambda: revs.force("d", -3),
        lambda: revs.force("", 1),
    ):
        with pytest.raises(ValueError):
            bad_call()
    assert revs.list_docs() == []


def test_separate_instances_share_state(make_store: Factory) -> None:
    one, two = make_store(), make_store()
    assert one.compare_and_set("d", 0, 1)
    assert two.current("d") == 1
    assert not two.compare_and_set("d", 0, 1)
    assert two.compare_and_set("d", 1, 2)
    assert one.current("d") == 2


THREADS = 8
PER_THREAD = 25


def test_a_lease_has_one_holder_until_freed_replaced_or_run_out(revs: RevisionStore) -> None:
    assert revs.lease_holder("d") is None
    assert revs.claim_lease("d", "a", 30) is None
    assert revs.lease_holder("d") == "a"
    assert revs.claim_lease("d", "b", 30) == "a"  # held: nothing changes
    assert revs.claim_lease("d", "a", 30) is None  # renewed by its holder
    assert revs.claim_lease("d", "b", 30, replacing="c") == "a"  # names another holder
    assert revs.claim_lease("d", "b", 30, replacing="a") is None  # a was found gone
    revs.release_lease("d", "a")  # no longer a's: nothing happens
    assert revs.lease_holder("d") == "b"
    revs.release_lease("d", "b")
    assert revs.lease_holder("d") is None
    assert revs.claim_lease("d", "c", 0.2) is None
    time.sleep(0.4)
    assert revs.lease_holder("d") is None  # ran out without a heartbeat
    assert revs.claim_lease("d", "e", 30) is None
    assert revs.list_docs() == []  # a lease is not a document


def test_racing_claims_grant_one_lease(make_store: Factory) -> None:
    stores = [make_store() for _ in range(THREADS)]
    barrier = threading.Barrier(THREADS)
    answers: list[str | None] = [""] * THREADS

    def claim(i: int) -> None:
        barrier.wait()
        answers[i] = stores[i].claim_lease("doc", f"run-{i}", 30)

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    winners = [i for i, a in enumerate(answers) if a is None]
    assert len(winners) == 1
    assert set(answers) == {None, f"run-{winners[0]}"}  # the losers all saw the winner


def test_concurrent_increments_lose_nothing(make_store: Factory) -> None:
    """8 threads (each its own store object) x 25 CAS increments with retry loops: every
    successful CAS must own a distinct value, and the final value equals the successes."""
    stores = [make_store() for _ in range(THREADS)]
    barrier = threading.Barrier(THREADS)
    won: list[list[int]] = [[] for _ in range(THREADS)]
    conflicts = [0] * THREADS

    def worker(i: int) -> None:
        store = stores[i]
        barrier.wait()
        while len(won[i]) < PER_THREAD:
            cur = store.current("hot")
            if store.compare_and_set("hot", cur, cur + 1):
                won[i].append(cur + 1)
            else:
                conflicts[i] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    total = THREADS * PER_THREAD
    values = sorted(v for w in won for v in w)
    assert values == list(range(1, total + 1))  # no two winners of the same step
    assert stores[0].current("hot") == total
    print(f"\n{THREADS}x{PER_THREAD} CAS increments, {sum(conflicts)} conflicts")


def _increment_in_process(
    kind: str,
    target: str,
    prefix: str,
    n: int,
    start: float,
    out: multiprocessing.Queue[tuple[list[int], int]],
) -> None:
    store: RevisionStore = (
        SqliteRevisionStore(target) if kind == "sqlite" else RedisRevisionStore(target, prefix)
    )
    time.sleep(max(0.0, start - time.time()))
    won: list[int] = []
    conflicts = 0
    while len(won) < n:
        cur = store.current("shared")
        if store.compare_and_set("shared", cur, cur + 1):
            won.append(cur + 1)
        else:
            conflicts += 1
    store.close()
    out.put((won, conflicts))


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_two_processes_increment_without_lost_updates(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if kind == "sqlite":
        target, prefix = str(tmp_path / "rev.sqlite3"), ""
        SqliteRevisionStore(target).close()  # create the schema before the race
    else:
        target, prefix = request.getfixturevalue("redis_url"), f"quire:mp:{uuid.uuid4().hex}:"
    ctx = multiprocessing.get_context("fork")
    out: multiprocessing.Queue[tuple[list[int], int]] = ctx.Queue()
    n = 40
    start = time.time() + 0.3
    procs = [
        ctx.Process(target=_increment_in_process, args=(kind, target, prefix, n, start, out))
        for _ in range(2)
    ]
    for p in procs:
        p.start()
    results = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(10)
        assert p.exitcode == 0
    values = sorted(v for won, _ in results for v in won)
    assert values == list(range(1, 2 * n + 1))
    check = SqliteRevisionStore(target) if kind == "sqlite" else RedisRevisionStore(target, prefix)
    assert check.current("shared") == 2 * n
    check.close()


def test_sqlite_store_survives_reopen_and_fork(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    store = SqliteRevisionStore(path)
    assert store.compare_and_set("d", 0, 1)
    store.close()
    again = SqliteRevisionStore(path)
    assert again.current("d") == 1
    # the same object used in a forked child opens its own connection
    ctx = multiprocessing.get_context("fork")
    child = ctx.Process(target=lambda: again.compare_and_set("d", 1, 2) or exit(3))
    child.start()
    child.join(10)
    assert child.exitcode == 0
    assert again.current("d") == 2
    again.close()


def test_redis_script_survives_restart_and_reports_outage(private_redis: RedisServer) -> None:
    store = RedisRevisionStore(private_redis.url, retries=2, socket_timeout=1.0)
    assert store.compare_and_set("d", 0, 1)
    private_redis.restart()  # data and script cache gone; pooled connections dead
    assert store.current("d") == 0  # retried on a fresh connection
    assert store.compare_and_set("d", 0, 1)  # NOSCRIPT is handled by re-loading the script
    store.force("d", 9)
    private_redis.stop()
    with pytest.raises(TransientError):
        store.current("d")
    with pytest.raises(TransientError):
        store.compare_and_set("d", 9, 10)
    private_redis.start()
    assert store.current("d") == 0
    store.close()


def test_redis_retried_cas_is_not_a_false_conflict(private_redis: RedisServer) -> None:
    """If a CAS applied but its reply was lost, the retry must still report success."""
    store = RedisRevisionStore(private_redis.url, socket_timeout=0.3, retries=5)
    assert store.compare_and_set("d", 0, 1)
    result: list[bool] = []
    private_redis.pause()  # the next CAS is sent, times out, and is retried
    t = threading.Thread(target=lambda: result.append(store.compare_and_set("d", 1, 2)))
    t.start()
    time.sleep(0.5)
    private_redis.resume()
    t.join(30)
    assert result == [True]
    assert store.current("d") == 2
    store.close()


def test_open_revision_store(tmp_path: Path, redis_url: str) -> None:
    local = open_revision_store(None, tmp_path / "state" / "revs.sqlite3")
    assert isinstance(local, SqliteRevisionStore)
    assert local.path == tmp_path / "state" / "revs.sqlite3"
    local.close()
    folder = open_revision_store(None, tmp_path)
    assert isinstance(folder, SqliteRevisionStore) and folder.path == tmp_path / "revisions.sqlite3"
    folder.close()
    remote = open_revision_store(redis_url, tmp_path / "unused.sqlite3")
    assert isinstance(remote, RedisRevisionStore)
    assert remote.prefix == "quire:rev:"
    assert not (tmp_path / "unused.sqlite3").exists()
    remote.close()


def test_redis_repr_hides_password() -> None:
    store = RedisRevisionStore("redis://user:hunter2-secret@127.0.0.1:1/0")
    assert "hunter2-secret" not in repr(store)
    store.close()
