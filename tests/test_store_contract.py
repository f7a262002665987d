"""One contract for every ObjectStore: LocalStore on a temp folder, S3Store on a real moto
server process. Plus S3-specific behaviour: pagination, error mapping, no leaked secrets."""

from __future__ import annotations

import http.server
import multiprocessing
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from quire.shared.errors import QuireError, TransientError
from quire.shared.store import LocalStore, NotFound, ObjectStore, StoreError, open_store
from quire.shared.store.s3 import S3Store

pytestmark = pytest.mark.services


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ObjectStore:
    if request.param == "local":
        return LocalStore(tmp_path / "store")
    s3: S3Store = request.getfixturevalue("s3_store")
    return s3


def _endpoint(store: ObjectStore) -> str | None:
    """Where an S3 store's client points (None for a folder): to open the same store again."""
    return store._client.meta.endpoint_url if isinstance(store, S3Store) else None


# --- the contract -------------------------------------------------------------------------


def test_put_get_overwrite_and_binary(store: ObjectStore) -> None:
    store.put("docs/d1/ir.json", b'{"a": 1}')
    assert store.get("docs/d1/ir.json") == b'{"a": 1}'
    store.put("docs/d1/ir.json", b"second")
    assert store.get("docs/d1/ir.json") == b"second"
    blob = bytes(range(256)) * 3
    store.put("bin", blob)
    assert store.get("bin") == blob
    store.put("empty", b"")
    assert store.get("empty") == b""
    assert store.exists("empty")


def test_missing_key_raises_not_found(store: ObjectStore) -> None:
    with pytest.raises(NotFound) as info:
        store.get("docs/nope/ir.json")
    assert isinstance(info.value, KeyError)
    assert isinstance(info.value, QuireError)
    assert info.value.code == "not_found"
    assert "docs/nope/ir.json" in str(info.value)
    # a "folder" that only holds other keys is not an object either
    store.put("dir/child", b"x")
    with pytest.raises(NotFound):
        store.get("dir")
    assert not store.exists("dir")


def test_exists(store: ObjectStore) -> None:
    assert not store.exists("a/b")
    store.put("a/b", b"1")
    assert store.exists("a/b")
    assert not store.exists("a/b2")


def test_list_is_sorted_recursive_and_prefix_filtered(store: ObjectStore) -> None:
    keys = ["docs/b/x.json", "docs/a/session/rev-00000002.json", "docs/a/ir.json",
            "docs/a/session/rev-00000001.json", "docs/ab/ir.json", "batches/1.json",
            "docs/ä/ü.md"]  # fmt: skip
    for i, key in enumerate(keys):
        store.put(key, str(i).encode())
    assert store.list("") == sorted(keys)
    assert store.list() == sorted(keys)
    assert store.list("docs/a/") == [
        "docs/a/ir.json",
        "docs/a/session/rev-00000001.json",
        "docs/a/session/rev-00000002.json",
    ]
    # plain string prefix, as on S3: "docs/a" also matches "docs/ab/..."
    assert store.list("docs/a") == sorted(k for k in keys if k.startswith("docs/a"))
    assert store.list("docs/a/session/rev-") == [
        "docs/a/session/rev-00000001.json",
        "docs/a/session/rev-00000002.json",
    ]
    assert store.list("docs/ä/") == ["docs/ä/ü.md"]
    assert store.list("nothing/") == []
    assert store.list("docs/zz") == []


def test_delete_is_idempotent(store: ObjectStore) -> None:
    store.put("docs/d/x", b"1")
    store.put("docs/d/y", b"2")
    store.delete("docs/d/x")
    assert not store.exists("docs/d/x")
    with pytest.raises(NotFound):
        store.get("docs/d/x")
    store.delete("docs/d/x")  # again: no error
    store.delete("never/existed")
    assert store.list("docs/") == ["docs/d/y"]


def test_put_if_absent_creates_once(store: ObjectStore) -> None:
    assert store.put_if_absent("docs/d/session/rev-00000001.json", b"first") is True
    assert store.put_if_absent("docs/d/session/rev-00000001.json", b"second") is False
    assert store.get("docs/d/session/rev-00000001.json") == b"first"
    store.delete("docs/d/session/rev-00000001.json")
    assert store.put_if_absent("docs/d/session/rev-00000001.json", b"third") is True
    assert store.get("docs/d/session/rev-00000001.json") == b"third"
    assert store.list("docs/") == ["docs/d/session/rev-00000001.json"]  # no temp files


def test_put_if_absent_thread_race_has_one_winner(store: ObjectStore) -> None:
    for round_ in range(3):
        key = f"race/{round_}"
        barrier = threading.Barrier(8)
        results: dict[int, bool] = {}

        def contender(
            i: int,
            key: str = key,
            barrier: threading.Barrier = barrier,
            results: dict[int, bool] = results,
        ) -> None:
            barrier.wait()
            results[i] = store.put_if_absent(key, f"writer-{i}".encode())

        threads = [threading.Thread(target=contender, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        winners = [i for i, won in results.items() if won]
        assert len(results) == 8
        assert len(winners) == 1, results
        assert store.get(key) == f"writer-{winners[0]}".encode()


def _race_in_process(
    url: str,
    endpoint: str | None,
    key: str,
    ident: int,
    start: float,
    out: multiprocessing.Queue[tuple[int, bool]],
) -> None:
    child = open_store(url, endpoint_url=endpoint)  # a fresh store/client in this process
    time.sleep(max(0.0, start - time.time()))
    out.put((ident, child.put_if_absent(key, f"proc-{ident}".encode())))


def test_put_if_absent_process_race_has_one_winner(store: ObjectStore) -> None:
    ctx = multiprocessing.get_context("fork")
    out: multiprocessing.Queue[tuple[int, bool]] = ctx.Queue()
    start = time.time() + 0.3
    procs = [
        ctx.Process(
            target=_race_in_process, args=(store.url, _endpoint(store), "race/p", i, start, out)
        )
        for i in range(4)
    ]
    for p in procs:
        p.start()
    results = dict(out.get(timeout=30) for _ in procs)
    for p in procs:
        p.join(10)
        assert p.exitcode == 0
    winners = [i for i, won in results.items() if won]
    assert len(winners) == 1, results
    assert store.get("race/p") == f"proc-{winners[0]}".encode()


def test_readers_never_see_partial_objects(store: ObjectStore) -> None:
    size = 256 * 1024
    versions = [b"A" * size, b"B" * size]
    store.put("big", versions[0])
    stop = threading.Event()
    errors: list[str] = []

    def writer() -> None:
        i = 0
        while not stop.is_set():
            i += 1
            store.put("big", versions[i % 2])

    t = threading.Thread(target=writer)
    t.start()
    try:
        for _ in range(30):
            data = store.get("big")
            if data not in versions:
                errors.append(f"torn read: {len(data)} bytes")
    finally:
        stop.set()
        t.join()
    assert errors == []


@pytest.mark.parametrize(
    "key",
    ["", "/abs", "a//b", "a/", "../x", "a/../b", "a/./b", ".", "..", "a\x00b",
     ".quire-tmp-x", "a/.quire-tmp-y", "k" * 1025],
)  # fmt: skip
def test_bad_keys_are_rejected(store: ObjectStore, key: str) -> None:
    for call in (
        lambda: store.put(key, b"x"),
        lambda: store.put_if_absent(key, b"x"),
        lambda: store.get(key),
        lambda: store.exists(key),
        lambda: store.delete(key),
    ):
        with pytest.raises(ValueError):
            call()
    assert store.list() == []


def test_bad_list_prefixes_are_rejected(store: ObjectStore) -> None:
    for prefix in ("/", "/docs", "../", "a//"):
        with pytest.raises(ValueError):
            store.list(prefix)


def test_url_reopens_the_same_store(store: ObjectStore) -> None:
    store.put("docs/x/manifest.json", b"{}")
    again = open_store(store.url, endpoint_url=_endpoint(store))
    assert type(again) is type(store)
    assert again.url == store.url
    assert again.get("docs/x/manifest.json") == b"{}"
    assert again.list() == ["docs/x/manifest.json"]


# --- LocalStore specifics ------------------------------------------------------------------


def test_open_store_defaults_and_schemes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    default = open_store(None)
    assert isinstance(default, LocalStore)
    assert default.root == (tmp_path / ".quire" / "store").resolve()
    assert default.url.startswith("file://")
    folder = open_store(str(tmp_path / "elsewhere"))
    assert isinstance(folder, LocalStore) and folder.root == (tmp_path / "elsewhere").resolve()
    assert isinstance(open_store(folder.url), LocalStore)
    with pytest.raises(ValueError):
        open_store("ftp://host/x")
    s3 = open_store("s3://my-bucket/some/prefix/")
    assert isinstance(s3, S3Store)
    assert (s3.bucket, s3.prefix, s3.url) == (
        "my-bucket",
        "some/prefix",
        "s3://my-bucket/some/prefix",
    )


def test_local_key_conflicting_with_prefix_is_a_store_error(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    store.put("a", b"1")
    with pytest.raises(StoreError):
        store.put("a/b", b"2")
    store.put("c/d", b"1")
    with pytest.raises(StoreError):
        store.put("c", b"2")


# --- S3Store specifics ---------------------------------------------------------------------


def test_s3_list_paginates(s3_env: str) -> None:
    store = S3Store(f"quire-page-{uuid.uuid4().hex[:12]}", "p", endpoint_url=s3_env, page_size=7)
    store.ensure_bucket()
    calls: list[str] = []
    store._client.meta.events.register(
        "after-call.s3.ListObjectsV2", lambda **kw: calls.append("list")
    )
    keys = sorted(f"k/{i:03d}" for i in range(25))
    for key in keys:
        store.put(key, b"v")
    store.put("other", b"v")
    assert store.list("k/") == keys
    assert len(calls) == 4  # 25 keys in pages of 7
    assert store.list() == [*keys, "other"]


def test_s3_prefixes_isolate_stores(s3_store: S3Store, s3_env: str) -> None:
    sibling = S3Store(s3_store.bucket, "other", endpoint_url=s3_env)
    s3_store.put("x", b"1")
    sibling.put("x", b"2")
    assert s3_store.get("x") == b"1"
    assert sibling.list() == ["x"]
    rootless = S3Store(s3_store.bucket, endpoint_url=s3_env)
    assert rootless.list() == ["other/x", "t/x"]


def test_s3_missing_bucket_is_not_created(s3_env: str) -> None:
    store = S3Store(f"quire-absent-{uuid.uuid4().hex[:12]}", endpoint_url=s3_env)
    with pytest.raises(StoreError) as info:
        store.put("x", b"1")
    assert "NoSuchBucket" in str(info.value)
    with pytest.raises(StoreError):
        store.get("x")
    with pytest.raises(StoreError):
        store.list()
    with pytest.raises(StoreError):  # still absent: nothing was created implicitly
        store.put_if_absent("x", b"1")
    store.ensure_bucket()
    store.ensure_bucket()  # idempotent
    store.put("x", b"1")
    assert store.get("x") == b"1"


class _Always500(http.server.BaseHTTPRequestHandler):
    hits = 0

    def _fail(self) -> None:
        type(self).hits += 1
        body = b"<Error><Code>InternalError</Code><Message>boom</Message></Error>"
        self.send_response(500)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_PUT = do_HEAD = do_DELETE = _fail

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def failing_endpoint() -> Iterator[tuple[str, type[_Always500]]]:
    handler = type("Handler", (_Always500,), {"hits": 0})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()


def test_s3_5xx_is_retried_then_transient(
    s3_env: str, failing_endpoint: tuple[str, type[_Always500]]
) -> None:
    url, handler = failing_endpoint
    store = S3Store("bucket", endpoint_url=url, max_attempts=2)
    with pytest.raises(TransientError) as info:
        store.get("x")
    assert handler.hits == 2  # botocore's retry config did the retrying
    assert "InternalError" in str(info.value) and "500" in str(info.value)


def test_s3_unreachable_endpoint_is_transient(s3_env: str) -> None:
    with socket.socket() as sock:  # a port with nobody listening
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    store = S3Store("bucket", endpoint_url=dead, max_attempts=1, connect_timeout=1)
    with pytest.raises(TransientError):
        store.put("x", b"1")
    with pytest.raises(TransientError):
        store.exists("x")


def test_s3_secrets_never_appear_in_repr_or_errors(
    s3_env: str, monkeypatch: pytest.MonkeyPatch, failing_endpoint: tuple[str, type[_Always500]]
) -> None:
    secret = "SeCrEt-" + uuid.uuid4().hex
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    store = S3Store(f"quire-secret-{uuid.uuid4().hex[:12]}", "p", endpoint_url=s3_env)
    texts = [repr(store), str(store), store.url, repr(vars(store))]
    store.ensure_bucket()
    failing = S3Store("b", endpoint_url=failing_endpoint[0], max_attempts=1)
    texts += [repr(failing), str(failing)]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = S3Store(
            "b", endpoint_url=f"http://127.0.0.1:{sock.getsockname()[1]}", max_attempts=1
        )
    absent_bucket = S3Store(f"quire-none-{uuid.uuid4().hex[:12]}", endpoint_url=s3_env)
    for call in (
        lambda: store.get("missing"),
        lambda: failing.get("x"),
        lambda: dead.put("x", b"1"),
        lambda: absent_bucket.put("x", b"1"),
    ):
        with pytest.raises(QuireError) as info:
            call()
        err: BaseException | None = info.value
        while err is not None:  # the whole chain, including botocore's own exceptions
            texts += [str(err), repr(err)]
            err = err.__cause__ or err.__context__
    assert texts
    for text in texts:
        assert secret not in text
