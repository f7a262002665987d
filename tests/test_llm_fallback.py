"""Whole documents on the openai backend against servers and models as they come (embedded
runner, the real OpenAI SDK over loopback to `llm_smart.SmartProvider`):

- a server without the json_schema response format (llama.cpp's), or without any, still
  completes the document; the review report says which mode answered;
- a model that answers schema-valid nonsense is re-asked, then the heuristic answers that
  item, marked `backend_fallback` in the manifest and reports, and the document completes;
  `strict_backend` fails the document instead;
- a server that is down still fails the document after its retries, as before.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from gen_docs import textbook_pdf
from llm_servers import answer, status
from llm_smart import SmartProvider
from pipeline_utils import local_runtime, run_embedded

from quire.shared.config import RunSettings
from quire.shared.job import Job
from quire.shared.manifest import load_manifest
from quire.workers.llm.structured import forget_modes
from quire.workers.runtime import Runtime

MAX_ATTEMPTS = 2  # transport attempts per ask
REASKS = 2  # re-asks after invalid answers, in the backend and per role
NONSENSE = {  # fits each schema, says nothing
    "ReviewAnswer": {
        "verdict": "new_topic",
        "confidence": 0.9,
        "evidence_left": [],
        "evidence_right": [],
        "reason": "ok",
    },
    "DecisionAnswer": {"action": "cut", "element_id": "el-999999", "reason": "ok"},
    "AnalysisAnswer": {  # what Gemma 3 270M answered on llama.cpp's server
        "topic_en": "2017-08-31T10:54:00.163Z",
        "topic_fa": "",
        "study_focus_en": "",
        "study_focus_fa": "",
        "coherence": "needs_review",
        "reason": "",
    },
    "IndexAnswer": {
        "overview_en": "",
        "overview_fa": "",
        "lines": [],
        "groups": [],
        "order": [],
        "dependencies": [],
    },
}


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """9 pages, 5 chapters: 3 reviewed transitions, 3 decisions, 4 chunks."""
    return textbook_pdf(
        tmp_path_factory.mktemp("fallback") / "book.pdf", 5, chapter_count=5, paragraphs=12
    )


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    forget_modes()
    for key, value in {
        "OPENAI_API_KEY": "sk-fallback-test-key",
        "QUIRE_OPENAI_MODEL": "fake-model",
        "QUIRE_BACKEND_BACKOFF": "0.001",
        "QUIRE_BACKEND_TIMEOUT": "2",
        "QUIRE_BACKEND_MAX_ATTEMPTS": str(MAX_ATTEMPTS),
        "QUIRE_BACKEND_REASKS": str(REASKS),
    }.items():
        monkeypatch.setenv(key, value)
    yield monkeypatch


def run(
    env: pytest.MonkeyPatch, server: SmartProvider | str, tmp: Path, path: Path, **settings: bool
) -> tuple[Runtime, Job]:
    url = server if isinstance(server, str) else server.base_url
    env.setenv("OPENAI_BASE_URL", url)
    rt = local_runtime(tmp)
    run_settings = RunSettings(output_format="markdown", backend="openai", **settings)
    return rt, run_embedded(rt, path, run_settings)


def out_json(rt: Runtime, s: Job, name: str) -> dict:
    return json.loads(rt.store.get(f"docs/{s.doc_id}/out/{name}"))


def analyses(rt: Runtime, s: Job) -> list[dict]:
    prefix = f"docs/{s.doc_id}/out/analysis/"
    return [json.loads(rt.store.get(k)) for k in sorted(rt.store.list(prefix))]


@pytest.mark.parametrize(
    "refuse,chatty,mode",
    [(("json_schema",), False, "json_object"), (("json_schema", "json_object"), True, "text")],
)
def test_a_server_without_json_schema_completes_the_document(
    env: pytest.MonkeyPatch,
    book: Path,
    tmp_path: Path,
    refuse: tuple[str, ...],
    chatty: bool,
    mode: str,
) -> None:
    with SmartProvider(refuse=refuse, chatty=chatty) as llm:
        rt, s = run(env, llm, tmp_path, book)
    assert s.state == "complete", s.error
    # each refused mode was tried once: the mode that worked is remembered for the run
    assert [r.mode for r in llm.requests].count("json_schema") == 1
    assert {r.mode for r in llm.requests[len(refuse) :]} == {mode}
    usage = out_json(rt, s, "semantic-review-report.json")["backend_usage"]
    assert (usage["modes"], usage["refused_modes"]) == ([mode], list(refuse))
    assert usage["model"] == "fake-model" and usage["endpoint"].startswith("http://127.0.0.1:")
    assert usage["fallbacks"] == [] and out_json(rt, s, "manifest.json")["backend_fallbacks"] == []
    roles = usage["roles"]
    assert {r: roles[r]["items"] for r in roles} == {
        "review": 9,
        "decide": 3,
        "analysis": 4,
        "index": 1,
    }
    assert all(roles[r]["valid_first_time"] == roles[r]["items"] for r in roles)
    assert roles["review"]["modes"] == {mode: 9}
    assert sum(r["calls"] for r in roles.values()) == len(llm.requests)


def test_schema_valid_nonsense_is_reasked_then_the_heuristic_answers_it(
    env: pytest.MonkeyPatch, book: Path, tmp_path: Path
) -> None:
    with SmartProvider() as llm:
        for task in ("DecisionAnswer", "AnalysisAnswer", "IndexAnswer"):
            llm.always[task] = answer(NONSENSE[task])
        rt, s = run(env, llm, tmp_path, book)
    assert s.state == "complete", s.error  # written and verified, nothing lost
    # every item asked 1 + REASKS times with the broken rules, never more
    assert llm.count("DecisionAnswer") == 3 * (1 + REASKS)
    assert llm.count("AnalysisAnswer") == 4 * (1 + REASKS)
    assert llm.count("IndexAnswer") == 1 + REASKS
    asked = [r.user for r in llm.requests if r.task == "AnalysisAnswer"]
    assert "names nothing specific" in asked[1] and "study_focus_en is empty" in asked[1]
    plan = out_json(rt, s, "plan.json")
    assert len(plan["boundaries"]) == 3
    assert all(
        b["backend_fallback"] == "openai: reason 'ok' is too short: say what ends and what "
        "begins here"
        for b in plan["boundaries"]
    )
    assert all(c["end_decider"] == "global" for c in plan["chunks"][:-1])
    assert all(
        a["heuristic"] and "names nothing specific" in a["backend_fallback"]
        for a in analyses(rt, s)
    )
    fallbacks = load_manifest(rt.store.get(f"docs/{s.doc_id}/out/manifest.json")).backend_fallbacks
    assert [(f.role, f.item) for f in fallbacks] == [
        *[
            ("decide", f"chunk {n} from {c['first_id']}")
            for n, c in enumerate(plan["chunks"][:3], 1)
        ],
        *[("analysis", f"chunk {n}") for n in range(1, 5)],
        ("index", "study index"),
    ]
    assert all(f.backend == "openai" and f.reason for f in fallbacks)
    usage = out_json(rt, s, "semantic-review-report.json")["backend_usage"]
    assert [f["item"] for f in usage["fallbacks"]] == [f.item for f in fallbacks]
    analysis = usage["roles"]["analysis"]
    assert (analysis["items"], analysis["valid_first_time"]) == (4, 0)
    assert (analysis["reasks"], analysis["fallbacks"], analysis["failed"]) == (4 * REASKS, 4, 0)
    assert usage["roles"]["review"]["fallbacks"] == 0


def test_nonsense_votes_are_replaced_by_the_heuristic_votes(
    env: pytest.MonkeyPatch, book: Path, tmp_path: Path
) -> None:
    with SmartProvider() as llm:
        llm.always["ReviewAnswer"] = answer(NONSENSE["ReviewAnswer"])
        rt, s = run(env, llm, tmp_path, book)
    assert s.state == "complete", s.error
    assert llm.count("ReviewAnswer") == 9 * (1 + REASKS)
    report = out_json(rt, s, "semantic-review-report.json")
    assert report["failed"] == 0
    votes = [v for o in report["outcomes"] for v in o["votes"]]
    assert len(votes) == 9 and all(v["backend"] == "heuristic" for v in votes)
    assert all(v["backend_fallback"].startswith("openai: invalid vote") for v in votes)
    assert all("evidence_left is empty" in v["backend_fallback"] for v in votes)
    fallbacks = out_json(rt, s, "manifest.json")["backend_fallbacks"]
    assert [f["role"] for f in fallbacks] == ["review"] * 9


@pytest.mark.parametrize(
    "task,code,says",
    [
        ("ReviewAnswer", "backend", "no valid transition vote"),
        ("AnalysisAnswer", "error", "invalid analysis after 3 attempts"),
        ("IndexAnswer", "backend", "no valid study index"),
    ],
)
def test_strict_backend_fails_the_document_instead(
    env: pytest.MonkeyPatch, book: Path, tmp_path: Path, task: str, code: str, says: str
) -> None:
    with SmartProvider() as llm:
        llm.always[task] = answer(NONSENSE[task])
        _, s = run(env, llm, tmp_path, book, strict_backend=True)
    assert (s.state, s.error_code) == ("failed", code), (s.state, s.error)
    assert s.error and says in s.error and "book.pdf" in s.error


def test_a_server_that_fails_keeps_failing_the_document_after_its_retries(
    env: pytest.MonkeyPatch, book: Path, tmp_path: Path
) -> None:
    with SmartProvider() as llm:
        llm.always["AnalysisAnswer"] = status(503)
        rt, s = run(env, llm, tmp_path, book)
    assert (s.state, s.error_code) == ("failed", "error"), (s.state, s.error)
    assert s.error and "analysis of chunk 1 failed" in s.error and "HTTP 503" in s.error
    assert llm.count("AnalysisAnswer") == 4 * MAX_ATTEMPTS  # no fallback, no extra asks
    assert not any(a.get("backend_fallback") for a in analyses(rt, s))


def test_a_server_that_is_down_fails_the_document_as_before(
    env: pytest.MonkeyPatch, book: Path, tmp_path: Path
) -> None:
    with socket.socket() as sock:  # a loopback port with nothing listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    rt, s = run(env, f"http://127.0.0.1:{port}/v1", tmp_path, book)
    assert (s.state, s.error_code) == ("failed", "error"), (s.state, s.error)
    assert s.error and "no valid answer after retries" in s.error and "Connection" in s.error
    report = out_json(rt, s, "semantic-review-report.json")
    assert report["failed"] == 3  # reviews that got no answer are failures, not fallbacks
    assert report["backend_usage"]["fallbacks"] == []
