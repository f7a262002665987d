"""The job commit protocol and the orchestrator's fan-out/fan-in bookkeeping, on real
stores: LocalStore + SQLite, and S3 (moto over HTTP) + a real redis-server."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from quire.shared.engine import (
    TaskMessage,
    advance,
    mark_done,
    mark_failed,
    reconcile,
    superseded,
)
from quire.shared.errors import ConflictError
from quire.shared.job import Job, JobRepo
from quire.shared.plan import Plan, PlanSettings
from quire.shared.revisions import SqliteRevisionStore
from quire.shared.revisions.listing import DocEntry, DocQuery
from quire.shared.revisions.redis import RedisRevisionStore
from quire.shared.settings import load_settings
from quire.shared.states import FINISH, MAX_REDRIVES, QUEUED_DEADLINE_S
from quire.shared.store import LocalStore
from quire.workers.job_files import load_plan
from quire.workers.runtime import Runtime


@pytest.fixture(params=["local", "distributed"])
def repo(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[JobRepo]:
    if request.param == "local":
        yield JobRepo(LocalStore(tmp_path / "store"), SqliteRevisionStore(tmp_path / "r.db"))
    else:
        store = request.getfixturevalue("s3_store")
        url = request.getfixturevalue("redis_url")
        revisions = RedisRevisionStore(url, prefix=f"test:{uuid.uuid4().hex}:")
        yield JobRepo(store, revisions)
        revisions.close()


def new_job(repo: JobRepo, doc_id: str = "d1") -> Job:
    s = Job(
        doc_id=doc_id,
        source_name="a.pdf",
        source_format="pdf",
        source_key=f"docs/{doc_id}/source.pdf",
        page_count=250,
    )
    return repo.commit(s, expected=0, actor="test", why="create")


def test_commit_advances_and_stale_commit_is_rejected(repo: JobRepo) -> None:
    s1 = new_job(repo)
    assert s1.revision == 1 and repo.load("d1").revision == 1
    s1.state = "parsing"
    s2 = repo.commit(s1, expected=1, actor="a", why="first")
    with pytest.raises(ConflictError):
        repo.commit(s1, expected=1, actor="b", why="stale")
    assert repo.load("d1") == s2
    assert [s.why for s in repo.history("d1")] == ["create", "first"]


def test_concurrent_commits_lose_no_update(repo: JobRepo) -> None:
    new_job(repo)
    parts = [f"p{i:03d}" for i in range(24)]

    def work(part: str) -> None:
        def change(s: Job) -> bool:
            s.done[part] = f"key-{part}"
            return True

        repo.update("d1", change, actor=f"worker-{part}", why=f"{part} done")

    threads = [threading.Thread(target=work, args=(p,)) for p in parts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = repo.load("d1")
    assert sorted(final.done) == parts
    history = repo.history("d1")
    assert [s.revision for s in history] == list(range(1, len(parts) + 2))  # gapless


def test_index_loss_is_rebuilt_from_the_store(repo: JobRepo) -> None:
    s = new_job(repo)
    for i in range(3):
        s = repo.commit(s, expected=s.revision, actor="t", why=f"step {i}")
    repo.revisions.force("d1", 0)  # what a Redis flush looks like
    assert repo.current_revision("d1") == 4
    assert repo.revisions.current("d1") == 4
    # a committer that died after writing its object but before the CAS: the next commit
    # finds revision 4 taken, rolls the index forward and commits on top of it
    repo.revisions.force("d1", 3)
    after = repo.update("d1", lambda s: True, actor="t", why="after the crash")
    assert after is not None and after.revision == 5
    assert [s.revision for s in repo.history("d1")] == [1, 2, 3, 4, 5]


def _parts(s: Job) -> list[str]:
    return {"parsing": ["00001-00100", "00101-00200", "00201-00250"], "scoring": ["scoring"]}.get(
        s.state, []
    )


def test_advance_is_idempotent_and_fans_in(repo: JobRepo) -> None:
    new_job(repo)
    sent = advance(repo, "d1", _parts)
    assert [m.part for m in sent] == ["00001-00100", "00101-00200", "00201-00250"]
    assert advance(repo, "d1", _parts) == []  # nothing enqueued twice
    for m in sent:
        assert mark_done(repo, m, f"k/{m.part}", actor="w")
        assert not mark_done(repo, m, f"k/{m.part}", actor="w")  # duplicate delivery
    finish = advance(repo, "d1", _parts)
    assert [m.part for m in finish] == [FINISH]
    mark_done(repo, finish[0], "k/ir", actor="w")
    nxt = advance(repo, "d1", _parts)
    assert [(m.state, m.part) for m in nxt] == [("scoring", "scoring")]
    stale = TaskMessage(doc_id="d1", state="parsing", part="00001-00100", revision=1)
    assert not mark_done(repo, stale, "k", actor="late worker")


def test_a_slow_part_from_a_superseded_dispatch_changes_nothing(repo: JobRepo) -> None:
    """The reconciler re-drives a state while one of its parts is still running somewhere:
    the part goes out again at a later revision, and the slow one's late commit is refused."""
    new_job(repo)
    slow = advance(repo, "d1", _parts)[0]
    far = repo.load("d1").committed_at + 10_000
    assert reconcile(repo, ["d1"], scale=1, now=far) == ["d1"]
    again = {m.part: m for m in advance(repo, "d1", _parts)}
    assert again[slow.part].revision > slow.revision
    assert superseded(repo.load("d1"), slow)
    assert not mark_done(repo, slow, "k/slow", actor="slow worker")
    assert slow.part not in repo.load("d1").done
    assert mark_done(repo, again[slow.part], "k/current", actor="worker")
    assert repo.load("d1").done[slow.part] == "k/current"


def test_reconciler_redrives_then_fails(repo: JobRepo) -> None:
    new_job(repo)
    advance(repo, "d1", _parts)
    s = repo.load("d1")
    far = s.committed_at + 10_000
    for attempt in range(MAX_REDRIVES):
        assert reconcile(repo, ["d1"], scale=1, now=far + attempt * 10_000) == ["d1"]
        assert len(advance(repo, "d1", _parts)) == 3  # re-sent after the deadline
    reconcile(repo, ["d1"], scale=1, now=far * 10)
    s = repo.load("d1")
    assert s.state == "failed" and s.error_code == "stuck"


def test_reconciler_sends_a_queued_document_again_once_per_deadline_and_never_fails_it(
    repo: JobRepo,
) -> None:
    """A queued document whose advance message was lost (a broker flushed, a worker killed
    holding it) is sent again past QUEUED_DEADLINE_S, however often: a long queue is not
    the document's fault. The re-send is committed, so the next comes a deadline later."""
    s = new_job(repo)
    assert s.state == "queued"
    assert reconcile(repo, ["d1"], scale=1, now=s.committed_at + QUEUED_DEADLINE_S - 1) == []
    for _ in range(MAX_REDRIVES + 2):
        late = repo.load("d1").committed_at + QUEUED_DEADLINE_S
        assert reconcile(repo, ["d1"], scale=1, now=late) == ["d1"]
        again = repo.load("d1")
        assert again.state == "queued" and again.attempts == 0
        assert reconcile(repo, ["d1"], scale=1, now=again.committed_at + 1) == []
    assert len(advance(repo, "d1", _parts)) == 3  # the advance it was sent again for
    assert repo.load("d1").state == "parsing"


def test_reconciler_skips_settled_documents_until_they_commit_again(repo: JobRepo) -> None:
    """A finished document costs the reconciler one revision lookup per pass, not a job
    read; a re-run (a new commit) puts it back under watch."""
    new_job(repo)
    advance(repo, "d1", _parts)
    s = repo.load("d1")
    s.fail("corrupt", "bad input", s.committed_at)
    failed = repo.commit(s, expected=s.revision, actor="test", why="fail")
    settled: dict[str, int] = {}
    far = failed.committed_at + 10_000
    assert reconcile(repo, ["d1"], scale=1, now=far, settled=settled) == []
    assert settled == {"d1": failed.revision}
    # the settled job is not read again: even an unreadable object goes unnoticed
    key = f"docs/d1/session/rev-{failed.revision:08d}.json"
    good = repo.store.get(key)
    repo.store.put(key, b"not json")
    assert reconcile(repo, ["d1"], scale=1, now=far, settled=settled) == []
    repo.store.put(key, good)
    # re-run: the document is watched again, and re-driven once it is stuck
    again = repo.load("d1")
    again.enter("parsing", again.committed_at)
    again.error = again.error_code = None
    rerun = repo.commit(again, expected=again.revision, actor="test", why="re-run")
    assert reconcile(repo, ["d1"], scale=1, now=rerun.committed_at + 10_000, settled=settled) == [
        "d1"
    ]
    assert "d1" not in settled


def _listed(repo: JobRepo) -> DocEntry:
    (only,) = repo.revisions.entries(DocQuery(name="a.pdf")).entries
    return only


def test_every_commit_lists_the_document_with_its_own_time(repo: JobRepo) -> None:
    new_job(repo)
    assert (_listed(repo).state, _listed(repo).revision) == ("queued", 1)
    sent = advance(repo, "d1", _parts)
    assert (_listed(repo).state, _listed(repo).parts_total) == ("parsing", 3)
    for seconds, m in zip((1.5, 2.0, 0.25), sent, strict=True):
        assert mark_done(repo, m, f"k/{m.part}", actor="w", seconds=seconds)
        assert not mark_done(repo, m, f"k/{m.part}", actor="w", seconds=9.0)  # a duplicate
    listed = _listed(repo)
    assert listed.parts_done == 3 and listed.seconds is None  # not stopped yet
    # it stops: the entry adds what the outputs say, and the time its parts ran (not the
    # wall time since it started, which in a batch is mostly waiting behind others)
    repo.store.put(
        "docs/d1/out/manifest.json", b'{"page_count": 250, "chunk_count": 31, "chunks": []}'
    )
    repo.store.put("docs/d1/out/verification-report.json", b'{"passed": true, "findings": []}')
    mark_failed(repo, "d1", "corrupt", "a.pdf: bad", actor="w", seconds=0.75)
    listed = _listed(repo)
    assert (listed.state, listed.sessions, listed.verification) == ("failed", 31, "passed")
    assert listed.seconds == 4.5 and listed.error == "a.pdf: bad" and listed.pages == 250
    assert repo.revisions.unlisted() == []


def test_a_rebuilt_index_lists_again(repo: JobRepo) -> None:
    s = new_job(repo)
    s.state = "parsing"
    repo.commit(s, expected=1, actor="t", why="advance")
    repo.revisions.force("d1", 0)  # what a Redis flush looks like (the listing goes too)
    assert repo.current_revision("d1") == 2  # rebuilt from the store, listed again
    assert (_listed(repo).revision, _listed(repo).state) == (2, "parsing")
    repo.revisions.force("d1", 1)  # a committer died between its object and its CAS
    assert repo.update("d1", lambda s: True, actor="t", why="after") is not None
    assert _listed(repo).revision == 3 and repo.revisions.unlisted() == []
    # a commit from before the listing (a revision set without its entry): listed on demand
    old = new_job(repo, "d2").model_copy(update={"revision": 2, "state": "complete"})
    repo.store.put("docs/d2/session/rev-00000002.json", old.model_dump_json().encode())
    assert repo.revisions.compare_and_set("d2", 1, 2)
    assert repo.revisions.unlisted() == ["d2"]
    assert repo.relist() == 1 and repo.revisions.unlisted() == []
    assert repo.revisions.entries(DocQuery(states=("complete",))).entries[0].doc_id == "d2"


class CountingStore(LocalStore):
    """The local store, counting the revision objects and plan versions it reads."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.revision_reads = 0
        self.plan_reads = 0

    def get(self, key: str) -> bytes:
        self.revision_reads += "/session/rev-" in key
        self.plan_reads += "/work/plans/" in key
        return super().get(key)


def test_a_revision_is_read_from_the_store_once(tmp_path: Path) -> None:
    # revision objects never change: a repo reads each once (the S3 GETs of a distributed
    # run's job loads fell from 116 to 18 for one 113-page book), and a committed one not at all
    store = CountingStore(tmp_path / "store")
    repo = JobRepo(store, SqliteRevisionStore(tmp_path / "r.db"))
    s1 = new_job(repo)
    s1.state = "parsing"
    s2 = repo.commit(s1, expected=1, actor="a", why="first")
    for _ in range(3):
        assert repo.load("d1") == s2
        assert [s.why for s in repo.history("d1")] == ["create", "first"]
    assert store.revision_reads == 0
    loaded = repo.load("d1")
    loaded.state = "failed"  # a loaded job is the caller's own: the cache keeps bytes
    assert repo.load("d1").state == "parsing"
    # another process's repo over the same store reads what it has not read yet, once
    other = JobRepo(store, SqliteRevisionStore(tmp_path / "r.db"))
    for _ in range(3):
        assert other.load("d1") == s2
    assert store.revision_reads == 1


def test_a_plan_version_is_read_from_the_store_once(tmp_path: Path) -> None:
    # a plan version's key is content-derived: every write, verify and analysis part of a
    # worker reads the same one (10 GETs of one book's plan in a distributed run, now 1)
    store = CountingStore(tmp_path / "store")
    revisions = SqliteRevisionStore(tmp_path / "r.db")
    rt = Runtime(load_settings(), store, revisions, JobRepo(store, revisions))
    plan = Plan(doc_id="d1", settings=PlanSettings(), boundaries=[], chunks=[])
    key = "docs/d1/work/plans/0123456789abcdef.json"
    store.put(key, plan.model_dump_json().encode())
    s = new_job(rt.repo)
    s.artifacts["plan"] = key
    for _ in range(3):
        assert load_plan(rt, s) == plan
    assert store.plan_reads == 1
