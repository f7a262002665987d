"""Shared fixtures. Service fixtures start real processes (see services.py); a missing
binary fails the test that needs it."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from corpus import CORPUS, run_cache
from services import S3_SCRUB_ENV, S3_TEST_ENV, MotoServer, RedisServer
from tiers import needs_corpus

from quire.workers.parse.pdf_open import pymupdf_module
from tests.llm_servers import KEYS, FakeProvider, Reply, quick_llm_env, serving

if TYPE_CHECKING:
    from quire.shared.store.s3 import S3Store

# Import PyMuPDF as Quire does (without its layout model, which changes find_tables) before
# any test module's bare `import pymupdf` can: results must not depend on collection order.
pymupdf_module()

# Commands the tests start run in a process of their own: a warm process (orchestrator/warm.py)
# would outlive the suite. tests/test_warm.py turns it on for itself.
os.environ["QUIRE_WARM"] = "0"


def pytest_configure(config: pytest.Config) -> None:
    """On the xdist controller, name the run so that its workers share one parsed-corpus
    folder (corpus.parsed) and the controller knows which folder to remove."""
    if not hasattr(config, "workerinput") and getattr(config.option, "testrunuid", "") is None:
        config.option.testrunuid = uuid.uuid4().hex


def pytest_sessionfinish(session: pytest.Session) -> None:
    run = getattr(session.config.option, "testrunuid", None)
    if run and not hasattr(session.config, "workerinput"):
        shutil.rmtree(run_cache(run), ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tier the tests (see tiers.py); without ../shared/corpus deselect the corpus tier."""
    corpus: list[pytest.Item] = []
    for item in items:
        fn = getattr(item, "function", None)
        if item.get_closest_marker("corpus") or (
            fn is not None
            and needs_corpus(
                Path(str(item.fspath)), fn.__name__, list(getattr(item, "fixturenames", []))
            )
        ):
            item.add_marker(pytest.mark.corpus)
            corpus.append(item)
    if not CORPUS.is_dir() and corpus:
        config.hook.pytest_deselected(items=corpus)
        chosen = set(map(id, corpus))
        items[:] = [i for i in items if id(i) not in chosen]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say which tiers ran (the reports carry the marker, also from xdist workers)."""
    ran = sum(
        1
        for r in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", [])
        if getattr(r, "when", "") == "call" and "corpus" in getattr(r, "keywords", {})
    )
    if CORPUS.is_dir():
        terminalreporter.write_line(
            f"test tiers: unit and services ran; corpus tier ran ({ran} tests over {CORPUS})"
        )
    else:
        terminalreporter.write_line(
            f"test tiers: unit and services ran; corpus tier NOT RUN "
            f"({CORPUS} is absent: its tests were deselected)"
        )


@pytest.fixture
def fast_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    """No LLM provider configured from outside the test; retries and timeouts short."""
    quick_llm_env(monkeypatch)


@pytest.fixture
def llm_default_reply() -> Reply | None:
    """What the fake provider answers when nothing was queued (a module may override)."""
    return None


@pytest.fixture(params=["openai", "anthropic"])
def provider(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, llm_default_reply: Reply | None
) -> Iterator[FakeProvider]:
    """A fake OpenAI or Anthropic server, the official SDK pointed at it by the environment."""
    kind = request.param
    quick_llm_env(monkeypatch)
    with serving(kind, KEYS[kind], monkeypatch, default=llm_default_reply) as server:
        monkeypatch.setenv(f"QUIRE_{kind.upper()}_MODEL", f"fake-{kind}-model")
        yield server


@pytest.fixture(scope="session")
def redis_service() -> Iterator[RedisServer]:
    """One redis-server for the whole session. Share it by using unique key prefixes."""
    with RedisServer() as server:
        yield server


@pytest.fixture(scope="session")
def redis_url(redis_service: RedisServer) -> str:
    return redis_service.url


@pytest.fixture
def private_redis() -> Iterator[RedisServer]:
    """A redis-server for this test alone, free to restart, kill, pause or flush."""
    with RedisServer() as server:
        yield server


@pytest.fixture(scope="session")
def moto_service() -> Iterator[MotoServer]:
    with MotoServer() as server:
        yield server


@pytest.fixture(scope="session")
def s3_endpoint(moto_service: MotoServer) -> str:
    return moto_service.endpoint_url


@pytest.fixture
def s3_env(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """Dummy AWS credentials and QUIRE_S3_ENDPOINT_URL for this test; returns the endpoint."""
    for name in S3_SCRUB_ENV:
        monkeypatch.delenv(name, raising=False)
    for name, value in S3_TEST_ENV.items():
        monkeypatch.setenv(name, value)
    # Keep any ~/.aws config of the machine out of the test.
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("QUIRE_S3_ENDPOINT_URL", s3_endpoint)
    return s3_endpoint


@pytest.fixture
def s3_store(s3_env: str) -> S3Store:
    """An S3Store on moto with a fresh bucket (and a prefix) for this test."""
    from quire.shared.store.s3 import S3Store  # boto3 is loaded only by tests that need it

    store = S3Store(f"quire-test-{uuid.uuid4().hex[:16]}", "t", endpoint_url=s3_env)
    store.ensure_bucket()
    return store
