"""The documents and batches lists against a running `quire serve` (embedded, SQLite listing)
over a store of synthetic documents (`library.py`): pages and cursors, also while another
process commits, filters and counts, refusals, and the list pages' HTML without JavaScript.
The distributed stack runs the same API checks (test_web_distributed.py)."""

from __future__ import annotations

import itertools
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from library import UNREADABLE, Made, add, populate
from list_checks import (
    check_batches,
    check_document_pages,
    check_filters,
    check_refusals,
    page,
)
from web_server import WebServer

from quire.shared.config import Environment
from quire.shared.revisions import SqliteRevisionStore
from quire.workers.runtime import Runtime

pytestmark = pytest.mark.xdist_group("web_lists")
HTML = {"accept": "text/html"}


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Runtime:
    state = tmp_path_factory.mktemp("web-lists")
    return Runtime.from_env(Environment(store_url=str(state / "store"), state_dir=state / "state"))


@pytest.fixture(scope="module")
def made(runtime: Runtime) -> Made:
    return populate(runtime, 330, batch_size=120)


@pytest.fixture(scope="module")
def api(runtime: Runtime, made: Made) -> Iterator[httpx.Client]:
    env = {"QUIRE_STORE_URL": runtime.store.url, "QUIRE_STATE_DIR": str(runtime.env.state_dir)}
    with WebServer(env) as server, server.client(token=None) as client:
        yield client


def test_pages_follow_their_cursors_while_others_commit(
    api: httpx.Client, made: Made, runtime: Runtime
) -> None:
    numbers = itertools.count(5000)

    def arrive() -> str:  # committed by this process, read by the server's
        return add(runtime, made, next(numbers), seed="late")

    check_document_pages(api, made, arrive)
    check_refusals(api)


def test_filters_and_counts(api: httpx.Client, made: Made) -> None:
    check_filters(api, made)


def test_batches(api: httpx.Client, made: Made) -> None:
    check_batches(api, made)


def rows(html: str) -> list[str]:
    return re.findall(r'<tr class="state-[a-z_]+" data-doc="([0-9a-f]{64})">', html)


def test_the_documents_page_searches_filters_and_pages_without_javascript(
    api: httpx.Client, made: Made
) -> None:
    home = api.get("/", headers=HTML)
    assert home.status_code == 200
    assert (
        len(rows(home.text)) == 50 and 'rel="next"' in home.text and 'rel="prev"' not in home.text
    )
    assert re.search(r"[\d,]+ documents · newest first", home.text)
    assert len(home.content) < 120_000  # one page, however large the library
    # the upload form's file picker offers every format admission takes
    picker = re.search(r'<input type="file" name="file" accept="([^"]+)"', home.text)
    offered = {".pdf", ".docx", ".epub", ".html", ".gz"}  # a .pdf.gz ends in .gz
    assert picker and set(picker.group(1).split(",")) >= offered
    failed = {d for d, s in made.states.items() if s == "failed"}
    shown = api.get("/", params={"state": "failed", "q": "ALGEBRA"}, headers=HTML).text
    expected = {d for d in failed if "algebra" in made.names[d].casefold()}
    assert set(rows(shown)) == expected and expected
    assert 'value="ALGEBRA"' in shown and re.search(r'<option value="failed"[^>]* selected>', shown)
    # the next page carries the filters and its cursor; the live rows read the same page
    second_url = re.search(r'href="(/\?[^"]+)" rel="next"', home.text)
    assert second_url
    second = api.get(second_url.group(1).replace("&amp;", "&"), headers=HTML).text
    assert len(rows(second)) == 50 and not set(rows(second)) & set(rows(home.text))
    poll = re.search(r'data-poll="([^"]+)"', second)
    assert poll and "cursor=" in poll.group(1)
    assert rows(api.get(poll.group(1).replace("&amp;", "&")).text) == rows(second)
    back = re.search(r'href="(/\?[^"]+)" rel="prev"', second)
    assert back and rows(api.get(back.group(1).replace("&amp;", "&"), headers=HTML).text) == rows(
        home.text
    )
    nothing = api.get("/", params={"q": "no such book"}, headers=HTML).text
    assert rows(nothing) == [] and "No documents match." in nothing
    refused = api.get("/", params={"state": "bogus"}, headers=HTML)
    assert refused.status_code == 422 and "no state" in refused.text


def test_batch_pages_show_failures_first_with_their_reasons(api: httpx.Client, made: Made) -> None:
    listing = api.get("/batches", headers=HTML).text
    for batch_id in made.batches:
        assert f'href="/batches/{batch_id}"' in listing
    batch_id, members = next(iter(made.batches.items()))  # the one with an unreadable source
    html = api.get(f"/batches/{batch_id}", headers=HTML).text
    failures, others = html.split('id="documents"', 1)
    failed = [d for d in members if made.states[d] == "failed"]
    assert set(rows(failures)) == set(failed) and failed
    assert set(rows(others)) <= {d for d in members if made.states[d] != "failed"}
    assert UNREADABLE.name in failures and "No such file or directory" in failures
    for d in failed[:3]:
        reason = page(api, batch=batch_id, state="failed", limit=200)
        error = next(x["error"] for x in reason["documents"] if x["doc_id"] == d)
        assert error.removeprefix(made.names[d] + ": ") in failures
    assert "data-poll" not in html  # a finished batch changes no more: nothing to refresh
    missing = api.get("/batches/batch-000000000000", headers=HTML)
    assert missing.status_code == 404 and "no batch" in missing.text


def test_a_listing_made_before_is_rebuilt_when_the_server_starts(tmp_path: Path) -> None:
    """A store whose revision index has no listing (written before it existed) is listed
    by the next server before it answers."""
    rt = Runtime.from_env(Environment(store_url=str(tmp_path / "store"), state_dir=tmp_path / "s"))
    made = populate(rt, 40, batch_size=25)
    assert isinstance(rt.revisions, SqliteRevisionStore)
    with sqlite3.connect(rt.revisions.path) as conn:  # what a database from before looks like
        for table in ("listing", "listing_entries", "batches", "batch_docs"):
            conn.execute(f"DELETE FROM {table}")
    assert rt.revisions.unlisted() == sorted(made.states)
    env = {"QUIRE_STORE_URL": rt.store.url, "QUIRE_STATE_DIR": str(rt.env.state_dir)}
    with WebServer(env) as server, server.client(token=None) as client:
        assert page(client, limit=100)["total"] == 40
        assert len(page(client, "/v1/batches")["batches"]) == 2
