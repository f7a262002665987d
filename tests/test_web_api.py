"""The HTTP API against a running `quire serve` (embedded): auth, uploads, limits, every route
and every error as a JSON body with a code and a message."""

from __future__ import annotations

import contextlib
import itertools
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from corpus import CORPUS
from gen_docs import entity_docx, textbook_docx
from pipeline_utils import ROOT, SAMPLE_DOCX, SAMPLE_PDF
from web_server import TOKEN, WebServer, upload, wait_stopped

from quire.orchestrator.web.redact import hide_paths, server_roots
from quire.orchestrator.web.views import reason_alone
from quire.shared import keys
from quire.shared.config import Environment
from quire.shared.manifest import Finding, VerificationReport
from quire.shared.plan import Plan
from quire.workers.runtime import Runtime

pytestmark = pytest.mark.xdist_group("web_api")  # one server, one processed book

MAX_UPLOAD = 2_000_000
MAX_PAGES = 100
STALL = 3  # seconds the server waits for headers, or for a stalled body


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("web-api")


@pytest.fixture(scope="module")
def server(state: Path) -> Iterator[WebServer]:
    env = {
        "QUIRE_STORE_URL": str(state / "store"),
        "QUIRE_STATE_DIR": str(state / "state"),
        "QUIRE_API_TOKEN": TOKEN,
        "QUIRE_MAX_UPLOAD_BYTES": str(MAX_UPLOAD),
        "QUIRE_MAX_DOC_PAGES": str(MAX_PAGES),
        "QUIRE_REQUEST_HEADER_TIMEOUT": str(STALL),
        "QUIRE_REQUEST_BODY_TIMEOUT": str(STALL),
    }
    with WebServer(env) as srv:
        yield srv


@pytest.fixture(scope="module")
def api(server: WebServer) -> Iterator[httpx.Client]:
    with server.client() as client:
        yield client


@pytest.fixture(scope="module")
def book(api: httpx.Client) -> dict[str, Any]:
    """The sample book, uploaded (Markdown and PDF) and processed to the end."""
    r = upload(api, SAMPLE_PDF, output_format="both")
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["created"] is True and body["document"]["source_name"] == SAMPLE_PDF.name
    doc = wait_stopped(api, body["document"]["doc_id"])
    assert doc["state"] == "complete", doc
    return doc


@pytest.fixture(scope="module")
def runtime(state: Path) -> Runtime:
    """The server's store and revision store, for checks behind the API."""
    return Runtime.from_env(Environment(store_url=str(state / "store"), state_dir=state / "state"))


def error_of(r: httpx.Response, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    assert body["error"]["message"]
    return str(body["error"]["message"])


# --- auth -------------------------------------------------------------------------------------


def test_every_route_but_health_needs_the_token(server: WebServer, book: dict[str, Any]) -> None:
    doc = book["doc_id"]
    with server.client(token=None) as anon, server.client(token="wrong-" + TOKEN) as wrong:
        assert anon.get("/v1/health").json()["mode"] == "embedded"
        for path in (
            "/v1/documents",
            f"/v1/documents/{doc}",
            f"/v1/documents/{doc}/plan",
            f"/v1/documents/{doc}/pages/1.png",
            "/v1/batches",
            f"/v1/documents/{doc}/sessions/1/markdown",
        ):
            for client in (anon, wrong):
                r = client.get(path)
                error_of(r, 401, "unauthorized")
                assert r.headers["www-authenticate"] == "Bearer"
        error_of(upload(anon, SAMPLE_PDF), 401, "unauthorized")
        # a person's browser: the sign-in page, then a cookie that is not the token
        page = anon.get("/", headers={"accept": "text/html"})
        assert page.status_code == 401 and 'name="token"' in page.text
        refused = anon.post("/login", data={"token": "nope", "next": "/"})
        assert refused.status_code == 401 and "not this server" in refused.text
        signed = anon.post("/login", data={"token": TOKEN, "next": "//elsewhere.example/"})
        assert signed.status_code == 303 and signed.headers["location"] == "/"
        cookie = signed.cookies["quire_session"]
        assert TOKEN not in cookie and "httponly" in signed.headers["set-cookie"].lower()
        assert "samesite=strict" in signed.headers["set-cookie"].lower()
        assert anon.get("/v1/documents").status_code == 200  # the cookie is kept
        assert anon.get(f"/documents/{doc}").status_code == 200


def test_the_server_refuses_an_open_bind_beyond_loopback(tmp_path: Path) -> None:
    env = {
        "QUIRE_STORE_URL": str(tmp_path / "store"),
        "QUIRE_STATE_DIR": str(tmp_path / "st"),
        "PYTHONPATH": str(ROOT),
    }
    base = [sys.executable, "-m", "quire.orchestrator.cli", "serve", "--port", "9"]
    for host, token, says in (
        ("0.0.0.0", None, "refusing to serve on 0.0.0.0 without QUIRE_API_TOKEN"),
        ("::", None, "refusing to serve on :: without QUIRE_API_TOKEN"),
        ("127.0.0.1", "short", "QUIRE_API_TOKEN is too short"),
    ):
        run = subprocess.run(
            [*base, "--host", host],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env={**env, **({"QUIRE_API_TOKEN": token} if token else {}), "PATH": "/usr/bin:/bin"},
        )
        assert run.returncode == 2, run.stderr
        assert says in run.stderr and "Traceback" not in run.stderr
    from quire.orchestrator.web.auth import check_bind

    for host in ("127.0.0.1", "127.0.0.2", "::1", "localhost"):
        check_bind(host, None)
    check_bind("0.0.0.0", TOKEN)


def test_serve_names_the_extra_it_needs(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['fastapi'] = None; sys.argv = ['quire', 'serve'];"
        "from quire.orchestrator.cli import main; main()"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT)},
    )
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert lines == [
        "quire: error (not_installed): the web workspace needs the web extra: "
        "pip install 'quire[web]'"
    ]


# --- submitting -----------------------------------------------------------------------------


def test_the_same_bytes_twice_are_one_document(api: httpx.Client, book: dict[str, Any]) -> None:
    again = upload(api, SAMPLE_PDF, output_format="both")
    assert again.status_code == 200, again.text
    assert again.json()["created"] is False
    assert again.json()["document"]["doc_id"] == book["doc_id"]
    listed = api.get("/v1/documents").json()["documents"]
    assert [d["doc_id"] for d in listed].count(book["doc_id"]) == 1


def test_limits_and_bad_uploads_are_refused_with_reasons(api: httpx.Client, tmp_path: Path) -> None:
    big = tmp_path / "big.pdf"
    big.write_bytes(b"%PDF-1.4\n" + b"0" * MAX_UPLOAD)
    msg = error_of(upload(api, big), 413, "too_large")
    assert "QUIRE_MAX_UPLOAD_BYTES" in msg
    # the same refusal when the client sends no Content-Length (a chunked body)
    head = (
        b'--b\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n'
        b"Content-Type: application/pdf\r\n\r\n%PDF-1.4\n"
    )
    chunks = iter([head, *[b"0" * 500_000] * 6, b"\r\n--b--\r\n"])
    r = api.post(
        "/v1/documents", content=chunks, headers={"content-type": "multipart/form-data; boundary=b"}
    )
    assert "content-length" not in r.request.headers
    error_of(r, 413, "too_large")

    pages = CORPUS / "r-intro.pdf"  # 113 pages, over the server's 100
    r = upload(api, pages)
    msg = error_of(r, 413, "too_large")
    assert "113 pages, over the limit of 100" in msg and r.json()["error"]["doc_id"]

    text = tmp_path / "notes.txt"
    text.write_text("not a book")
    error_of(upload(api, text), 422, "unsupported_format")
    fake = tmp_path / "fake.pdf"
    fake.write_bytes(b"<html>not a pdf</html>")
    assert "not a PDF file" in error_of(upload(api, fake), 422, "corrupt")

    assert "either a file or an s3:// source" in error_of(
        api.post("/v1/documents", data={"output_format": "markdown"}, files={"unused": ("x", b"")}),
        422,
        "invalid_request",
    )
    assert "no local paths" in error_of(
        api.post("/v1/documents", data={"source": "/etc/passwd"}, files={"unused": ("x", b"")}),
        422,
        "bad_source",
    )
    msg = error_of(upload(api, SAMPLE_PDF, min_pages=9, max_pages=6), 422, "invalid_request")
    assert "max_pages" in msg
    msg = error_of(upload(api, SAMPLE_PDF, output_format="epub"), 422, "invalid_request")
    assert "output_format" in msg


# --- a careful way in ---------------------------------------------------------------------


def test_s3_sources_that_climb_out_are_refused_not_crashed(api: httpx.Client) -> None:
    unused = {"unused": ("x", b"")}
    for source in (
        "s3://bucket/../../etc/passwd",
        "s3://bucket/books/../../../etc/passwd",
        "s3://../etc/passwd",
        "s3://bucket/a\x01b.pdf",
    ):
        r = api.post("/v1/documents", data={"source": source}, files=unused)
        error_of(r, 422, "bad_source")
        assert r.headers.get("connection") != "close"  # answered, the connection kept
        r = api.post("/v1/batches", data={"sources": [source]}, files=unused)
        error_of(r, 422, "bad_source")
    assert "'..' segment" in error_of(
        api.post("/v1/batches", data={"sources": ["s3://bucket/../x"]}, files=unused),
        422,
        "bad_source",
    )


def test_one_of_ten_identical_uploads_creates_the_document(
    server: WebServer, tmp_path: Path
) -> None:
    path = textbook_docx(tmp_path / "race.docx", 2323)  # bytes this server has not seen
    start = threading.Barrier(10)

    def send(_: int) -> httpx.Response:
        with server.client() as client:
            start.wait()
            return upload(client, path)

    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(send, range(10)))
    assert sorted(r.status_code for r in answers) == [200] * 9 + [201], [r.text for r in answers]
    assert [r.json()["created"] for r in answers].count(True) == 1
    assert len({r.json()["document"]["doc_id"] for r in answers}) == 1


def test_messages_name_no_server_path(api: httpx.Client, tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 and then nothing a reader can use")
    r = upload(api, broken)
    msg = error_of(r, 422, "corrupt")
    assert "broken.pdf" in msg and "/" not in msg, msg  # was the upload's temporary copy
    doc = api.get(f"/v1/documents/{r.json()['error']['doc_id']}").json()
    assert doc["error"] and "/" not in doc["error"]


def test_server_paths_are_hidden_but_urls_and_routes_kept() -> None:
    roots = server_roots()
    tmp = tempfile.gettempdir()
    for said, shown in (
        (
            f"cannot open '{tmp}/quire-submit-x1/book.pdf' (damaged)",
            "cannot open 'book.pdf' (damaged)",
        ),
        (f"store file://{tmp}/st/docs/ab/source.pdf: conflict", "store source.pdf: conflict"),
        (f"{Path.home()}/.quire/store/docs/ab/ir.json, then", "ir.json, then"),
        (f"s3://bucket{tmp}/x.pdf and {tmp}x/y", f"s3://bucket{tmp}/x.pdf and {tmp}x/y"),
        (
            "submit the prefix as a batch (POST /v1/batches)",
            "submit the prefix as a batch (POST /v1/batches)",
        ),
    ):
        assert hide_paths(said, roots) == shown


def test_a_docx_declaring_entities_fails_alone_with_unsafe_xml(
    api: httpx.Client, tmp_path: Path
) -> None:
    r = upload(api, entity_docx(tmp_path / "entities.docx"))
    assert r.status_code == 201, r.text
    doc = wait_stopped(api, r.json()["document"]["doc_id"])
    assert doc["state"] == "failed" and doc["error_code"] == "unsafe_xml", doc
    assert "part word/document.xml declares a DTD" in doc["error"]


def _answer_after_stalling(sock: socket.socket, drip: bytes = b"") -> bytes:
    """What the server sends before it closes the connection, sending `drip` every half
    second meanwhile (a client that never finishes)."""
    sock.settimeout(0.5)
    answer = b""
    deadline = time.monotonic() + STALL + 15
    while time.monotonic() < deadline:
        try:
            data = sock.recv(65536)
        except TimeoutError:
            if drip:
                with contextlib.suppress(OSError):
                    sock.sendall(drip)
            continue
        except ConnectionResetError:
            break
        if not data:
            return answer
        answer += data
    raise AssertionError(f"the connection was held open: {answer!r}")


def test_clients_that_stall_are_answered_408_and_cut_off(server: WebServer) -> None:
    host = ("127.0.0.1", server.port)
    auth = f"Authorization: Bearer {TOKEN}\r\n".encode()
    for sent, drip in (
        (b"", b""),  # connects and says nothing
        (b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ", b""),  # headers never end
        (b"GET /v1/health HTTP/1.1\r\nHost: x\r\n", b"X-Drip: 1\r\n"),  # one at a time
    ):
        with socket.create_connection(host, timeout=10) as sock:
            started = time.monotonic()
            sock.sendall(sent)
            answer = _answer_after_stalling(sock, drip)
            assert time.monotonic() - started < STALL + 5
            assert answer.startswith(b"HTTP/1.1 408") and b'"request_timeout"' in answer
    with socket.create_connection(host, timeout=10) as sock:  # a body that stops coming
        sock.sendall(
            b"POST /v1/documents HTTP/1.1\r\nHost: x\r\n" + auth + b"Content-Length: 5000\r\n"
            b"Content-Type: multipart/form-data; boundary=b\r\n\r\n--b\r\nContent-Disposition:"
            b' form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4\n'
        )
        answer = _answer_after_stalling(sock)
        assert answer.startswith(b"HTTP/1.1 408") and b"QUIRE_REQUEST_BODY_TIMEOUT" in answer
    assert httpx.get(f"{server.url}/v1/health").status_code == 200  # and the server is well


# --- reading ----------------------------------------------------------------------------------


def test_state_and_revision_history(api: httpx.Client, book: dict[str, Any]) -> None:
    doc = api.get(f"/v1/documents/{book['doc_id'][:10]}").json()  # a prefix names it too
    assert doc["doc_id"] == book["doc_id"] and doc["state"] == "complete"
    assert doc["progress"] == 1.0 and doc["pages"] == 50 and doc["verification"] == "passed"
    assert doc["settings"]["output_format"] == "both"
    assert doc["stages"][0] == "parsing" and "verifying" in doc["stages"]
    history = doc["history"]
    assert [h["revision"] for h in history] == list(range(1, doc["revision"] + 1))
    assert history[0]["actor"] == "web" and history[0]["why"] == f"submitted {SAMPLE_PDF.name}"
    assert history[-1]["state"] == "complete"
    listed = api.get("/v1/documents").json()["documents"]
    summary = next(d for d in listed if d["doc_id"] == doc["doc_id"])
    assert summary["sessions"] == doc["sessions"] > 1


def test_plan_sessions_and_their_files(api: httpx.Client, book: dict[str, Any]) -> None:
    doc = book["doc_id"]
    plan = api.get(f"/v1/documents/{doc}/plan").json()
    sessions = plan["sessions"]
    assert plan["settings"]["min_pages"] == 5 and plan["settings"]["max_pages"] == 12
    assert sessions[0]["page_first"] == 1 and sessions[-1]["page_last"] == 50
    assert [s["number"] for s in sessions] == list(range(1, len(sessions) + 1))
    for s, after in itertools.pairwise(sessions):
        cut = s["ends_at"]
        assert cut["after_id"] == s["last_id"] and cut["reason"] == s["end_reason"]
        assert after["page_first"] >= s["page_first"]
    assert sessions[-1]["ends_at"] is None
    reviewed = [s["ends_at"]["review"] for s in sessions[:-1] if s["ends_at"]["review"]]
    assert reviewed and all(
        {v["role"] for v in r["votes"]} == {"transition", "continuity", "adjudicator"}
        for r in reviewed
    )

    # the title pages and contents are reference sessions: no analysis, no study time
    assert sessions[0]["kind"] == "front_matter"
    assert api.get(f"/v1/documents/{doc}/sessions/1").json()["analysis"] is None
    k = next(s["number"] for s in sessions if s["kind"] == "study")
    study = api.get(f"/v1/documents/{doc}/sessions/{k}").json()
    assert study["starts_after"] == sessions[k - 2]["ends_at"]
    assert study["previous"] == k - 1 and study["next"] == k + 1
    assert study["title"] == sessions[k - 1]["title"]
    assert study["analysis"]["chunk"] == k and study["analysis"]["topic_en"]
    assert study["verification_findings"] == [] and study["coherence"] == "confident"
    first = api.get(f"/v1/documents/{doc}/sessions/1").json()
    assert first["starts_after"] is None and first["previous"] is None

    md = api.get(f"/v1/documents/{doc}/sessions/{k}/markdown")
    assert md.headers["content-type"].startswith("text/markdown")
    assert md.text.startswith(f"<!-- quire-chunk\nchunk: {k}\n")
    assert f"<!-- {study['first_id']} -->" in md.text
    pdf = api.get(f"/v1/documents/{doc}/sessions/{k}/pdf")
    assert pdf.headers["content-type"] == "application/pdf" and pdf.content[:5] == b"%PDF-"


def test_source_pages_are_rendered_once_and_cached(
    api: httpx.Client, book: dict[str, Any], runtime: Runtime
) -> None:
    doc = book["doc_id"]
    pages = api.get(f"/v1/documents/{doc}/pages").json()
    assert pages["page_count"] == 50 and pages["page_basis"] == "pdf"
    assert isinstance(pages["outline"], list) and isinstance(pages["skipped_pages"], list)

    cached = keys.work(doc, "page-images/110/00012.png")
    assert not runtime.store.exists(cached)
    first = api.get(f"/v1/documents/{doc}/pages/12.png")
    assert first.status_code == 200 and first.headers["content-type"] == "image/png"
    assert first.content[:8] == b"\x89PNG\r\n\x1a\n"
    width = int.from_bytes(first.content[16:20], "big")
    assert 900 <= width <= 950  # US Letter at 110 dpi
    assert runtime.store.get(cached) == first.content  # kept in the store, under the document
    again = api.get(f"/v1/documents/{doc}/pages/12.png")
    assert again.content == first.content and again.headers["etag"] == first.headers["etag"]
    assert "immutable" in again.headers["cache-control"]
    not_modified = api.get(
        f"/v1/documents/{doc}/pages/12.png", headers={"if-none-match": first.headers["etag"]}
    )
    assert not_modified.status_code == 304 and not not_modified.content
    small = api.get(f"/v1/documents/{doc}/pages/12.png", params={"dpi": 36})
    assert int.from_bytes(small.content[16:20], "big") < width / 2

    assert "pages 1-50" in error_of(
        api.get(f"/v1/documents/{doc}/pages/51.png"), 404, "unknown_page"
    )
    error_of(api.get(f"/v1/documents/{doc}/pages/0.png"), 404, "unknown_page")
    assert "dpi" in error_of(
        api.get(f"/v1/documents/{doc}/pages/1.png", params={"dpi": 999}), 422, "invalid_request"
    )


def test_reports_indexes_and_retrieval_chunks(
    api: httpx.Client, book: dict[str, Any], runtime: Runtime, tmp_path: Path
) -> None:
    doc = book["doc_id"]
    report = api.get(f"/v1/documents/{doc}/verification").json()
    assert report["passed"] is True and report["checked"]["rendered_pages"] > 0
    review = api.get(f"/v1/documents/{doc}/review").json()
    assert review["backend"] == "heuristic" and review["reviewed"] == len(review["outcomes"]) > 0
    analyses = api.get(f"/v1/documents/{doc}/analysis").json()
    plan = api.get(f"/v1/documents/{doc}/plan").json()
    studied = [s["number"] for s in plan["sessions"] if s["kind"] == "study"]
    assert [a["chunk"] for a in analyses] == studied and len(studied) < book["sessions"]
    en = api.get(f"/v1/documents/{doc}/study-index/en")
    assert en.headers["content-type"].startswith("text/markdown")
    assert en.text.startswith(f"# Study index — {SAMPLE_PDF.name}")
    assert api.get(f"/v1/documents/{doc}/study-index/fa").text.strip()
    assert api.get(f"/v1/documents/{doc}/study-index/map").text.startswith("# Study map")
    error_of(api.get(f"/v1/documents/{doc}/study-index/de"), 422, "invalid_request")

    # retrieval chunks exist once `quire rag` made them; until then: not ready
    assert "retrieval chunks" in error_of(
        api.get(f"/v1/documents/{doc}/retrieval-chunks"), 404, "not_ready"
    )
    from quire.orchestrator.outputs import export_document
    from quire.workers.rag.cli_support import build_rag

    export_document(runtime, doc, tmp_path / "out")
    built = build_rag(tmp_path / "out", max_chars=1500)
    runtime.store.put(keys.out(doc, "rag-chunks.jsonl"), built.path.read_bytes())
    r = api.get(f"/v1/documents/{doc}/retrieval-chunks")
    assert r.headers["content-type"] == "application/x-ndjson"
    assert len(r.text.splitlines()) == len(built.chunks) > 0


def test_errors_are_json_with_a_code(api: httpx.Client, book: dict[str, Any]) -> None:
    doc = book["doc_id"]
    error_of(api.get("/v1/documents/" + "0" * 64), 404, "not_found")
    error_of(api.get("/v1/documents/fhs-3.0.pdf"), 404, "not_found")
    error_of(api.get("/v1/documents/ab"), 404, "not_found")
    assert "there is no session 99" in error_of(
        api.get(f"/v1/documents/{doc}/sessions/99"), 404, "unknown_session"
    )
    error_of(api.get(f"/v1/documents/{doc}/sessions/two"), 422, "invalid_request")
    error_of(api.get(f"/v1/documents/{doc}/images/{'a' * 64}.png"), 404, "not_ready")
    error_of(api.get(f"/v1/documents/{doc}/images/..%2Fir.json"), 404, "not_found")
    error_of(api.get("/v1/nothing-here"), 404, "not_found")
    error_of(api.delete("/v1/documents"), 405, "method_not_allowed")
    error_of(api.get("/v1/batches/batch-000000000000"), 404, "unknown_batch")


def test_the_openapi_schema_lists_every_route(api: httpx.Client) -> None:
    spec = api.get("/v1/openapi.json").json()
    assert set(spec["paths"]) >= {
        "/v1/health",
        "/v1/documents",
        "/v1/documents/{doc}",
        "/v1/documents/{doc}/plan",
        "/v1/documents/{doc}/pages",
        "/v1/documents/{doc}/pages/{page}.png",
        "/v1/documents/{doc}/sessions/{number}",
        "/v1/documents/{doc}/sessions/{number}/markdown",
        "/v1/documents/{doc}/sessions/{number}/pdf",
        "/v1/documents/{doc}/verification",
        "/v1/documents/{doc}/review",
        "/v1/documents/{doc}/analysis",
        "/v1/documents/{doc}/study-index/{name}",
        "/v1/documents/{doc}/retrieval-chunks",
        "/v1/batches",
        "/v1/batches/{batch_id}",
    }
    plan = spec["components"]["schemas"]["SessionOut"]["properties"]
    assert {"end_reason", "end_decider", "continues", "ends_at", "pages"} <= set(plan)
    assert not any(p.startswith(("/login", "/documents", "/ui")) for p in spec["paths"])


# --- batches ----------------------------------------------------------------------------------


def test_a_batch_keeps_going_past_a_broken_document(api: httpx.Client, tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes((CORPUS / "r-data-truncated.pdf").read_bytes())
    small = CORPUS / "latex-news-22.pdf"
    with open(small, "rb") as a, open(broken, "rb") as b:
        r = api.post(
            "/v1/batches",
            files=[("files", (small.name, a)), ("files", (broken.name, b))],
            data={"output_format": "markdown"},
        )
    assert r.status_code == 201, r.text
    report = r.json()
    batch_id = report["batch_id"]
    assert [d["name"] for d in report["documents"]] == [small.name, broken.name]
    deadline = time.monotonic() + 300
    while not report["finished"]:
        assert time.monotonic() < deadline, report
        time.sleep(0.5)
        report = api.get(f"/v1/batches/{batch_id}").json()
    states = {d["name"]: d for d in report["documents"]}
    assert states[small.name]["state"] == "complete"
    assert states[small.name]["verification"] == "passed"
    assert states[broken.name]["state"] == "failed"
    assert states[broken.name]["error_code"] == "corrupt"
    listed = api.get("/v1/batches").json()["batches"]
    assert any(b["batch_id"] == batch_id and b["documents"] == 2 and b["finished"] for b in listed)
    assert "a batch needs files or s3:// sources" in error_of(
        api.post("/v1/batches", data={"output_format": "markdown"}, files={"unused": ("x", b"")}),
        422,
        "invalid_request",
    )
    failed = api.get("/v1/documents", params={"batch": batch_id, "state": "failed"}).json()
    (reason,) = failed["documents"]
    assert reason["source_name"] == broken.name
    assert reason["state"] == "failed" and reason["error_code"] == "corrupt" and reason["error"]


# --- pages --------------------------------------------------------------------------------------


def test_the_pages_show_the_book(
    server: WebServer, api: httpx.Client, book: dict[str, Any]
) -> None:
    doc = book["doc_id"]
    html = {"accept": "text/html"}
    home = api.get("/", headers=html)
    assert home.status_code == 200 and 'id="upload"' in home.text and SAMPLE_PDF.name in home.text
    rows = api.get("/ui/documents/rows")
    assert f'href="/documents/{doc}"' in rows.text and "state-complete" in rows.text
    page = api.get(f"/documents/{doc}", headers=html).text
    plan = api.get(f"/v1/documents/{doc}/plan").json()
    for s in plan["sessions"]:
        assert f'href="/documents/{doc}/sessions/{s["number"]}"' in page
    assert page.count('class="sess ') == len(plan["sessions"])
    assert "Study index" in page and 'dir="rtl"' in page
    root = next(s for s in plan["sessions"] if "The Root Filesystem" in s["title"])
    k = root["number"]
    session = api.get(f"/documents/{doc}/sessions/{k}", headers=html).text
    for n in range(root["page_first"], root["page_last"] + 1):
        assert f'src="/v1/documents/{doc}/pages/{n}.png"' in session
    assert f'<link rel="next" href="/documents/{doc}/sessions/{k + 1}">' in session
    assert f'id="{root["first_id"]}"' in session
    assert re.search(r"<h2[^>]*>Chapter 3\. The Root Filesystem</h2>", session)  # h1: the title
    shown_reason = reason_alone(root["end_reason"], root["end_alternative"])
    assert shown_reason.replace("'", "&#39;") in session
    assert 'class="badge ref">front matter</span>' in page  # the title pages and contents
    alternative = next(s for s in plan["sessions"] if s["end_alternative"])
    shown = api.get(f"/documents/{doc}/sessions/{alternative['number']}", headers=html).text
    assert 'id="end-alternative"' in shown
    end_reason = re.search(r'id="end-reason">([^<]*)<', shown)
    assert end_reason and "rather than" not in end_reason.group(1)  # said once, below it
    assert alternative["end_alternative"].replace("'", "&#39;") in shown
    assert server.url not in page + session  # links are paths: right behind any proxy
    missing = api.get("/documents/" + "0" * 64, headers=html)
    assert missing.status_code == 404 and "not found" in missing.text.lower()
    assert missing.headers["content-type"].startswith("text/html")
    css = api.get("/static/quire.css")
    assert css.status_code == 200 and "--cell" in css.text
    csp = api.get(f"/documents/{doc}", headers=html).headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp


def test_a_docx_has_sessions_but_no_page_images(api: httpx.Client, runtime: Runtime) -> None:
    r = upload(api, SAMPLE_DOCX)
    assert r.status_code == 201, r.text
    doc = wait_stopped(api, r.json()["document"]["doc_id"])
    assert doc["state"] == "complete" and doc["source_format"] == "docx", doc
    assert doc["pages"] and doc["pages"] > 1  # words / 400
    # a study session of 4.7 estimated pages meets the 5-page minimum (`ESTIMATE_SLACK`)
    plan = Plan.model_validate_json(runtime.store.get(keys.out(doc["doc_id"], "plan.json")))
    short = next(c for c in plan.chunks if c.kind == "study")
    short.pages = 4.7
    runtime.store.put(keys.out(doc["doc_id"], "plan.json"), plan.model_dump_json().encode())
    # a finding in the report is shown beside the element it concerns
    report = runtime.store.get(keys.out(doc["doc_id"], "verification-report.json"))
    first = api.get(f"/v1/documents/{doc['doc_id']}/analysis").json()[0]["first_id"]
    tampered = VerificationReport.model_validate_json(report).model_copy(
        update={
            "passed": False,
            "findings": [
                Finding(kind="altered", message="text differs here", chunk=1, element_id=first)
            ],
        }
    )
    runtime.store.put(
        keys.out(doc["doc_id"], "verification-report.json"), tampered.model_dump_json().encode()
    )
    pages = api.get(f"/v1/documents/{doc['doc_id']}/pages").json()
    assert pages["page_basis"] == "words"
    assert "DOCX" in error_of(
        api.get(f"/v1/documents/{doc['doc_id']}/pages/1.png"), 404, "no_pages"
    )
    session = api.get(f"/documents/{doc['doc_id']}/sessions/1", headers={"accept": "text/html"})
    assert session.status_code == 200 and "/pages/1.png" not in session.text
    assert 'class="split single"' in session.text and 'class="el"' in session.text
    assert re.search(r'text differs here</p>\s*<div class="el" id="' + first, session.text)
    page = api.get(f"/documents/{doc['doc_id']}", headers={"accept": "text/html"})
    assert page.status_code == 200 and "(estimated: 400 words a page)" in page.text
    # the sessions table sizes each session as the page strip does: by estimated pages
    strip = re.findall(r'class="sess s-(\w+)', page.text)
    assert "short" not in strip and re.findall(r'class="pill s-(\w+)', page.text) == strip


def test_an_epub_and_an_html_file_go_through_the_workspace(api: httpx.Client) -> None:
    epub = ROOT / "tests" / "data" / "maint-guide-zh.epub"
    r = upload(api, epub)
    assert r.status_code == 201, r.text
    doc = wait_stopped(api, r.json()["document"]["doc_id"])
    assert doc["state"] == "complete" and doc["source_format"] == "epub", doc
    assert doc["pages"] and doc["pages"] > 5
    assert "EPUB" in error_of(
        api.get(f"/v1/documents/{doc['doc_id']}/pages/1.png"), 404, "no_pages"
    )
    md = api.get(f"/v1/documents/{doc['doc_id']}/sessions/2/markdown")
    assert md.status_code == 200 and "构建软件包" in md.text
    page = ROOT / "tests" / "data" / "maint-guide-html" / "start.en.html"
    r = upload(api, page)
    assert r.status_code == 201, r.text
    doc = wait_stopped(api, r.json()["document"]["doc_id"])
    assert doc["state"] == "complete" and doc["source_format"] == "html", doc
