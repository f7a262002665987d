"""One contract for every RevisionStore: SQLite on a temp file, Redis on a real redis-server.
Concurrency is exercised with real threads and processes, never simulated."""

from __future__ import annotations

import multiprocessing
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from services import RedisServer

from quire.shared.errors import TransientError
from quire.shared.revisions import RevisionStore, SqliteRevisionStore, open_revision_store
from quire.shared.revisions.listing import (
    MAX_LIMIT,
    BatchEntry,
    DocEntry,
    DocQuery,
    Unreadable,
)
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


# --- the documents listing ------------------------------------------------------------------


def entry(doc_id: str, rev: int, state: str = "parsing", name: str = "", **more: Any) -> DocEntry:
    return DocEntry(
        doc_id=doc_id,
        revision=rev,
        source_name=name or f"{doc_id}.pdf",
        source_format="pdf",
        state=state,
        updated_at=float(rev),
        **more,
    )


def commit(store: RevisionStore, doc_id: str, state: str, name: str = "", **more: Any) -> int:
    """One commit of `doc_id` with its entry, as JobRepo makes it."""
    rev = store.current(doc_id)
    assert store.compare_and_set(doc_id, rev, rev + 1, entry(doc_id, rev + 1, state, name, **more))
    return rev + 1


def listed(store: RevisionStore, **query: Any) -> list[str]:
    return [e.doc_id for e in store.entries(DocQuery(**query)).entries]


def walk(
    store: RevisionStore, between: Callable[[], None] | None = None, **query: Any
) -> list[str]:
    """Every page of a query, following its cursors to the last page; `between` runs after
    each page. Without it, the walk also goes back to the first page, which must show the
    same pages on the way."""
    pages: list[list[str]] = []
    page = store.entries(DocQuery(**query))
    while True:
        pages.append([e.doc_id for e in page.entries])
        if between:
            between()
        if page.next_after is None:
            break
        page = store.entries(DocQuery(after=page.next_after, **query))
    back = [pages[-1]]
    while between is None and page.prev_before is not None:
        page = store.entries(DocQuery(before=page.prev_before, **query))
        back.insert(0, [e.doc_id for e in page.entries])
    assert between or back == pages
    return [d for p in pages for d in p]


def test_the_listing_follows_every_commit(revs: RevisionStore) -> None:
    commit(revs, "a", "queued", "Algebra.pdf")
    commit(revs, "b", "queued", "Biology.pdf")
    commit(revs, "a", "parsing")
    assert listed(revs) == ["b", "a"]  # newest submission first, not last changed
    page = revs.entries(DocQuery())
    assert [(e.doc_id, e.revision, e.state) for e in page.entries] == [
        ("b", 1, "queued"),
        ("a", 2, "parsing"),
    ]
    assert page.total == 2 and page.counts == {"queued": 1, "parsing": 1} and page.passed == 0
    # a stale commit changes neither the revision nor the entry
    assert not revs.compare_and_set("a", 1, 2, entry("a", 2, "failed"))
    assert revs.entries(DocQuery(states=("parsing",))).entries[0].revision == 2
    commit(revs, "a", "complete", verification="passed", sessions=4, seconds=12.5)
    done = revs.entries(DocQuery(states=("complete",))).entries[0]
    assert (done.sessions, done.verification, done.seconds) == (4, "passed", 12.5)
    assert revs.entries(DocQuery()).passed == 1
    # submitted anew (a re-run goes back to queued): at the top again, its old place left
    commit(revs, "a", "queued")
    assert listed(revs) == ["a", "b"]
    assert revs.entries(DocQuery()).counts == {"queued": 2}
    with pytest.raises(ValueError):  # an entry must describe the revision it is set with
        revs.compare_and_set("b", 1, 2, entry("b", 3))
    with pytest.raises(ValueError):
        revs.force("b", 2, entry("a", 2))
    assert revs.current("b") == 1


def test_pages_follow_their_cursor_while_documents_arrive(revs: RevisionStore) -> None:
    for i in range(25):
        commit(revs, f"d{i:02d}", "queued")
    newest_first = [f"d{i:02d}" for i in reversed(range(25))]
    arrivals = iter(range(100, 200))

    def arrive() -> None:  # a new document between any two pages
        commit(revs, f"n{next(arrivals)}", "queued")

    assert walk(revs, arrive, limit=10) == newest_first  # nothing twice, nothing left out
    # back to newer documents: those that arrived meanwhile come first
    top = revs.entries(DocQuery(limit=3))
    older = revs.entries(DocQuery(after=top.next_after, limit=10))
    assert older.entries[0].doc_id == "d24" and older.prev_before is not None
    newer = revs.entries(DocQuery(before=older.prev_before, limit=10))
    assert [e.doc_id for e in newer.entries] == ["n102", "n101", "n100"]
    assert newer.prev_before is None and newer.next_after is not None
    everything = listed(revs, limit=MAX_LIMIT)
    assert everything == ["n102", "n101", "n100", *newest_first]
    assert walk(revs, name=".PDF", limit=7) == everything  # the same through the filters
    assert walk(revs, states=("queued", "parsing"), limit=4) == everything
    assert walk(revs, name="n1", limit=2) == ["n102", "n101", "n100"]
    assert listed(revs, limit=3) == ["n102", "n101", "n100"]
    page = revs.entries(DocQuery(limit=10))
    assert len(page.entries) == 10 and page.total == 28 and page.next_after is not None
    last = revs.entries(DocQuery(limit=28))
    assert len(last.entries) == 28 and last.next_after is None  # exactly full: no empty page
    assert revs.entries(DocQuery(limit=0)).entries == [] and page.total == 28
    assert page.prev_before is None  # the first page
    with pytest.raises(ValueError):
        DocQuery(after=3, before=5)


def test_filters_by_state_name_and_batch(revs: RevisionStore) -> None:
    names = {
        "a": "Linear Algebra.pdf",
        "b": "ÜBER algebra (2nd ed.).docx",
        "c": "biology_100%.pdf",
        "d": "Chemistry.pdf",
    }
    for doc_id, name in names.items():
        commit(revs, doc_id, "queued", name)
    commit(revs, "a", "complete", names["a"], verification="passed")
    commit(revs, "b", "failed", names["b"], error_code="corrupt", error="bad xref")
    commit(revs, "c", "complete", names["c"], verification="failed")
    assert listed(revs, name="ALGEBRA") == ["b", "a"]  # any case
    assert listed(revs, name="über") == ["b"]  # beyond ASCII
    assert listed(revs, name="(2nd ed.)") == ["b"]  # a plain substring, not a pattern
    assert listed(revs, name="100%") == ["c"] and listed(revs, name="_1") == ["c"]
    assert listed(revs, name=".*") == []
    assert listed(revs, states=("complete",)) == ["c", "a"]
    assert listed(revs, states=("failed", "queued")) == ["d", "b"]
    page = revs.entries(DocQuery(name="algebra", states=("complete",)))
    assert [e.doc_id for e in page.entries] == ["a"]
    assert page.total == 1 and page.counts == {"complete": 1, "failed": 1} and page.passed == 1

    revs.index_batch(BatchEntry(batch_id="batch-1", created_at=10.0, doc_ids=["a", "c", "zz"]))
    assert listed(revs, batch="batch-1") == ["c", "a"]  # "zz" has no entry: not listed
    page = revs.entries(DocQuery(batch="batch-1", states=("complete",), name="I"))
    assert [e.doc_id for e in page.entries] == ["c", "a"] and page.passed == 1
    assert page.counts == {"complete": 2} and page.total == 2
    assert walk(revs, batch="batch-1", limit=1) == ["c", "a"]
    assert walk(revs, name="L", limit=1) == ["c", "b", "a"]
    assert listed(revs, batch="batch-none") == []
    assert revs.entries(DocQuery(batch="batch-none")).counts == {}
    with pytest.raises(ValueError):
        DocQuery(limit=MAX_LIMIT + 1)


def test_a_lagging_listing_is_found_and_repaired(revs: RevisionStore) -> None:
    commit(revs, "a", "queued")
    assert revs.unlisted() == []
    revs.force("b", 3)  # a revision without an entry (an index rebuilt the old way)
    assert revs.compare_and_set("a", 1, 2)  # a commit that listed nothing
    assert revs.unlisted() == ["a", "b"]
    assert not revs.put_entry(entry("b", 2))  # not its current revision: refused
    assert revs.put_entry(entry("b", 3, "complete"))
    assert revs.put_entry(entry("a", 2, "parsing"))
    assert revs.unlisted() == []
    assert [(e.doc_id, e.state) for e in revs.entries(DocQuery()).entries] == [
        ("b", "complete"),  # listed just now
        ("a", "parsing"),
    ]
    revs.force("a", 5, entry("a", 5, "failed"))
    assert revs.unlisted() == [] and listed(revs, states=("failed",)) == ["a"]


def test_batches_are_listed_newest_first(revs: RevisionStore) -> None:
    assert revs.batches().batches == [] and revs.batch("batch-x") is None
    bad = Unreadable(name="gone.pdf", origin="/in/gone.pdf", error="cannot read: gone")
    for i in range(5):
        revs.index_batch(
            BatchEntry(batch_id=f"batch-{i}", created_at=float(i), doc_ids=[f"d{i}", "shared"])
        )
    revs.index_batch(
        BatchEntry(batch_id="batch-1", created_at=1.0, doc_ids=["d1"], unreadable=[bad])
    )
    first = revs.batches(limit=2)
    assert [b.batch_id for b in first.batches] == ["batch-4", "batch-3"]
    rest = revs.batches(after=first.next_after, limit=10)
    assert [b.batch_id for b in rest.batches] == ["batch-2", "batch-1", "batch-0"]
    assert rest.next_after is None
    one = revs.batch("batch-1")
    assert one is not None and one.documents == 3 and one.unreadable == [bad]
    assert one.created_at == 1.0  # the same batch again keeps its place and its documents


def _commit_chain(kind: str, target: str, prefix: str, docs: list[str], start: float) -> None:
    """Commit every document 30 times with its entry, racing another process."""
    store: RevisionStore = (
        SqliteRevisionStore(target) if kind == "sqlite" else RedisRevisionStore(target, prefix)
    )
    time.sleep(max(0.0, start - time.time()))
    for _ in range(30):
        for doc_id in docs:
            while True:
                cur = store.current(doc_id)
                state = "queued" if cur == 0 else "complete" if cur >= 59 else "writing"
                e = entry(doc_id, cur + 1, state, parts_done=cur + 1)
                if store.compare_and_set(doc_id, cur, cur + 1, e):
                    break
    store.close()


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
def test_the_listing_stays_exact_under_two_processes(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if kind == "sqlite":
        target, prefix = str(tmp_path / "rev.sqlite3"), ""
        SqliteRevisionStore(target).close()
    else:
        target, prefix = request.getfixturevalue("redis_url"), f"quire:ls:{uuid.uuid4().hex}:"
    docs = [f"doc{i}" for i in range(6)]
    ctx = multiprocessing.get_context("fork")
    start = time.time() + 0.3
    procs = [
        ctx.Process(target=_commit_chain, args=(kind, target, prefix, docs, start))
        for _ in range(2)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    check = SqliteRevisionStore(target) if kind == "sqlite" else RedisRevisionStore(target, prefix)
    page = check.entries(DocQuery())
    assert sorted(e.doc_id for e in page.entries) == docs and page.total == 6
    for e in page.entries:  # each entry is its document's last commit
        assert e.revision == check.current(e.doc_id) == 60 == e.parts_done
        assert e.state == "complete"
    assert page.counts == {"complete": 6} and check.unlisted() == []
    check.close()
