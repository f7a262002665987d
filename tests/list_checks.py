"""What the list endpoints promise, checked over HTTP against a server whose store holds a
synthetic library (`library.populate`) and nothing else: the same checks for the embedded
server (SQLite listing) and the distributed one (Redis listing)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx
from library import UNREADABLE, Made


def page(api: httpx.Client, path: str = "/v1/documents", **params: Any) -> dict[str, Any]:
    r = api.get(path, params=params)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def walk(
    api: httpx.Client, between: Callable[[], None] | None = None, **params: Any
) -> list[dict[str, Any]]:
    """Every document a query lists, following `next_cursor` to the last page; `between`
    runs after each page. Without it, the walk also follows `prev_cursor` back to the first
    page, which must show the same pages on the way."""
    pages = [page(api, **params)]
    while True:
        if between:
            between()
        if pages[-1]["next_cursor"] is None:
            break
        pages.append(page(api, **params, cursor=pages[-1]["next_cursor"]))
    back = [pages[-1]]
    while between is None and back[0]["prev_cursor"] is not None:
        back.insert(0, page(api, **params, cursor=back[0]["prev_cursor"]))
    if between is None:
        assert [ids(p["documents"]) for p in back] == [ids(p["documents"]) for p in pages]
    return [d for p in pages for d in p["documents"]]


def ids(docs: list[dict[str, Any]]) -> list[str]:
    return [d["doc_id"] for d in docs]


def check_document_pages(api: httpx.Client, made: Made, arrive: Callable[[], str]) -> None:
    """Paging with cursors, also while documents arrive (`arrive` commits one from another
    process than the server's, adds it to `made` and returns its id); each document with
    its own processing time."""
    before = dict(made.states)
    arrived: list[str] = []
    docs = walk(api, lambda: arrived.append(arrive()), limit=37)
    assert sorted(ids(docs)) == sorted(before)  # each once; none that arrived meanwhile
    assert ids(walk(api, limit=37)) == arrived[::-1] + ids(docs)  # and back again
    for d in docs:
        assert d["state"] == made.states[d["doc_id"]]
        assert d["source_name"] == made.names[d["doc_id"]]
        assert d["seconds"] == made.seconds[d["doc_id"]]  # its own time, not its batch's
        if d["state"] == "failed":
            assert d["error_code"] and d["error"].startswith(d["source_name"])
        if d["state"] == "complete":
            assert d["verification"] == "passed" and d["sessions"] >= 2 and d["progress"] == 1
    first = page(api, limit=len(arrived))
    assert ids(first["documents"]) == arrived[::-1]  # the newest first
    assert first["total"] == len(made.states) and first["prev_cursor"] is None
    assert first["counts"] == dict(Counter(made.states.values()))


def check_filters(api: httpx.Client, made: Made) -> None:
    by_state = Counter(made.states.values())
    failed = walk(api, state="failed", limit=50)
    assert sorted(ids(failed)) == sorted(d for d, s in made.states.items() if s == "failed")
    stopped = walk(api, state="complete,awaiting_decision", limit=200)
    assert len(stopped) == by_state["complete"] + by_state["awaiting_decision"]
    assert page(api, state="running")["documents"] == []
    for needle in ("ALGEBRA", "ünïcode typo", "reader 001", "(", "%"):
        named = walk(api, name=needle, limit=40)
        expected = {d for d, n in made.names.items() if needle.casefold() in n.casefold()}
        assert set(ids(named)) == expected and len(named) == len(expected), needle
    batch_id, members = next(iter(made.batches.items()))
    in_batch = walk(api, batch=batch_id, limit=25)
    assert sorted(ids(in_batch)) == sorted(members)
    both = page(api, batch=batch_id, state="failed", name="chemistry", limit=200)
    expected = {
        d for d in members if made.states[d] == "failed" and "chemistry" in made.names[d].casefold()
    }
    assert set(ids(both["documents"])) == expected and both["total"] == len(expected)
    assert both["counts"] == dict(
        Counter(made.states[d] for d in members if "chemistry" in made.names[d].casefold())
    )


def error(r: httpx.Response, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    body = r.json()["error"]
    assert body["code"] == code, body
    return str(body["message"])


def check_refusals(api: httpx.Client) -> None:
    assert "no state 'bogus'" in error(
        api.get("/v1/documents", params={"state": "bogus"}), 422, "invalid_request"
    )
    error(api.get("/v1/documents", params={"cursor": "not-a-cursor"}), 422, "bad_cursor")
    batches_cursor = page(api, "/v1/batches", limit=1)["next_cursor"]
    assert batches_cursor  # a batches cursor does not page documents
    error(api.get("/v1/documents", params={"cursor": batches_cursor}), 422, "bad_cursor")
    for limit in (0, 201):
        error(api.get("/v1/documents", params={"limit": limit}), 422, "invalid_request")
    error(api.get("/v1/documents", params={"batch": "batch-none"}), 404, "unknown_batch")


def check_batches(api: httpx.Client, made: Made) -> None:
    listed: list[dict[str, Any]] = []
    cursor = None
    while True:
        got = page(api, "/v1/batches", limit=2, **({"cursor": cursor} if cursor else {}))
        listed += got["batches"]
        cursor = got["next_cursor"]
        if cursor is None:
            break
    assert sorted(b["batch_id"] for b in listed) == sorted(made.batches)
    assert [b["created_at"] for b in listed] == sorted(
        (b["created_at"] for b in listed), reverse=True
    )
    for i, b in enumerate(sorted(listed, key=lambda b: b["created_at"])):
        members = made.batches[b["batch_id"]]
        counts = Counter(made.states[d] for d in members)
        if i == 0:  # the first batch also has a source that could not be read
            counts["failed"] += 1
        assert b["documents"] == sum(counts.values()) and b["counts"] == dict(counts)
        assert b["finished"] is True and b["ok"] is (set(counts) == {"complete"})
    first = sorted(listed, key=lambda b: b["created_at"])[0]["batch_id"]
    report = page(api, f"/v1/batches/{first}")  # the whole report, as before
    assert any(d["name"] == UNREADABLE.name and d["state"] == "failed" for d in report["documents"])
