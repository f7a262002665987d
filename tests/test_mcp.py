"""The MCP server, driven as a host drives it: a subprocess on stdio, the `mcp` SDK's client.

A scripted host (HeuristicDecider boundary decisions, votes and analyses of its own) takes a
real corpus document through reviews, boundaries, writing, verification, analyses, a repair
and the study index, and through the error paths: invalid vote, invalid candidate, generic
reason, stale revision, unread chunks, bad arguments. No mocks: the server runs the real
pipeline on an embedded store under tmp_path.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import sys
import tomllib
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from pipeline_utils import CORPUS, ROOT, SAMPLE_DOCX
from services import CeleryWorker, RedisServer

from quire.orchestrator.mcp.server import TOOLS as REGISTRY
from quire.shared.store.s3 import S3Store
from quire.workers.boundaries.decisions import BoundaryContext, HeuristicDecider

DOC = CORPUS / "python-logging-howto-cookbook.docx"
SMALL = SAMPLE_DOCX
ROLES = ("transition", "continuity", "adjudicator")
TOOLS = {
    "split_document",
    "get_topic_change_review_batch",
    "commit_topic_change_reviews",
    "run_parallel_topic_reviews",
    "get_boundary_context",
    "commit_boundary",
    "write_chunks",
    "verify_integrity",
    "get_chunk",
    "get_chunk_analysis_context",
    "commit_chunk_analysis",
    "get_boundary_repair_context",
    "repair_chunk_boundaries",
    "get_study_index_context",
    "commit_study_index",
    "get_status",
}
READ_ONLY = {
    "get_topic_change_review_batch",
    "get_boundary_context",
    "get_chunk",
    "get_boundary_repair_context",
    "get_study_index_context",
    "get_status",
}
SECRETISH = re.compile(r"key|secret|token|password|credential", re.IGNORECASE)
ANSWER = {
    "topic_en": "Logging module basics and when to use it",
    "topic_fa": "مبانی ماژول لاگ‌گیری و زمان استفاده از آن",
    "study_focus_en": "Choose between print, logging.info and warnings for a given "
    "situation and configure basicConfig for a script.",
    "study_focus_fa": "انتخاب میان چاپ، ثبت اطلاعات و هشدارها و پیکربندی پایه برای یک اسکریپت.",
    "coherence": "confident",
    "reason": "Logging levels, basicConfig and the first tutorial examples form one unit.",
}


class Host:
    """A thin MCP host: calls tools and checks structured results and errors."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def ok(self, name: str, **args: Any) -> dict[str, Any]:
        res = await self.session.call_tool(name, args)
        assert not res.is_error, f"{name}: {res.content[0].text}"  # type: ignore[union-attr]
        assert isinstance(res.structured_content, dict)
        return res.structured_content

    async def fails(self, name: str, code: str, **args: Any) -> dict[str, Any]:
        res = await self.session.call_tool(name, args)
        assert res.is_error, f"{name} should have failed: {res.structured_content}"
        assert isinstance(res.structured_content, dict)
        error: dict[str, Any] = res.structured_content["error"]
        assert error["code"] == code, error
        assert error["recover"] and error["message"]
        assert json.loads(res.content[0].text) == res.structured_content  # type: ignore[union-attr]
        return error


def server_env(tmp: Path) -> dict[str, str]:
    return {
        "QUIRE_STORE_URL": str(tmp / "store"),
        "QUIRE_STATE_DIR": str(tmp / "state"),
        "QUIRE_MCP_PROCESSES": "1",
    }


@contextlib.asynccontextmanager
async def serving(tmp: Path, argv: list[str], env: dict[str, str]) -> AsyncIterator[Host]:
    params = StdioServerParameters(command=argv[0], args=argv[1:], cwd=str(ROOT), env=env)
    with (tmp / "server-stderr.log").open("a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield Host(session)


def run(tmp: Path, scenario: Callable[[Host], Awaitable[None]]) -> None:
    async def main() -> None:
        argv = [sys.executable, "-m", "quire.orchestrator.cli", "mcp", "serve"]
        async with serving(tmp, argv, server_env(tmp)) as host:
            await scenario(host)

    anyio.run(main)


def _vote(item: dict[str, Any], role: str, verdict: str) -> dict[str, Any]:
    heading = item["after"][0]["text"].lstrip("# ").strip()[:60]
    before = " ".join(item["before"][-1]["text"].split()[:8])
    what = "opens a separate subject" if verdict == "new_topic" else "continues the tutorial"
    return {
        "after_id": item["after_id"],
        "role": role,
        "verdict": verdict,
        "confidence": 0.9,
        "evidence_left": [item["evidence_left_ids"][-1]],
        "evidence_right": [item["evidence_right_ids"][0]],
        "reason": f"The heading '{heading}' {what} after the text ending '{before}'.",
    }


def _index_files(ctx: dict[str, Any]) -> dict[str, str]:
    total = ctx["total_minutes"]
    en = [f"# Study index: {ctx['source_name']}", "", f"Total study time: {total} min", ""]
    fa = ["# فهرست مطالعه", "", f"زمان کل مطالعه: {total} دقیقه", ""]
    study_map = ["# نقشه مطالعه", ""]
    for c in ctx["chunks"]:
        en.append(f"- [{c['title']}]({c['file']}) — {c['minutes']} min")
        fa.append(f"- [بخش {c['chunk']}]({c['file']}) — {c['minutes']} دقیقه")
        study_map.append(f"- [بخش {c['chunk']}]({c['file']})")
    return {
        "en": "\n".join(en) + "\n",
        "fa": "\n".join(fa) + "\n",
        "study_map": "\n".join(study_map) + "\n",
    }


def _schema_names(schema: Any) -> set[str]:
    """Every property name anywhere in a JSON schema (nested models, $defs, arrays)."""
    names: set[str] = set()
    if isinstance(schema, dict):
        names |= set(schema.get("properties", {}))
        for value in schema.values():
            names |= _schema_names(value)
    elif isinstance(schema, list):
        for value in schema:
            names |= _schema_names(value)
    return names


def test_tools_declare_schemas_and_state_changes_and_take_no_secrets(tmp_path: Path) -> None:
    async def scenario(host: Host) -> None:
        tools = {t.name: t for t in (await host.session.list_tools()).tools}
        assert set(tools) == TOOLS
        for name, t in tools.items():
            spec = REGISTRY[name]
            assert t.input_schema == spec.input.model_json_schema()  # from the pydantic models
            assert t.output_schema == spec.output.model_json_schema()
            assert t.input_schema["type"] == "object" and t.output_schema["type"] == "object"
            assert t.annotations is not None and t.annotations.read_only_hint is not None
            assert t.annotations.destructive_hint is not None
            said = "Read-only" if t.annotations.read_only_hint else "Changes state"
            assert said in (t.description or ""), name
            names = _schema_names(t.input_schema)
            assert not {n for n in names if SECRETISH.search(n)}, (name, names)
        hints = {n: t.annotations for n, t in tools.items() if t.annotations is not None}
        assert {n for n, a in hints.items() if a.read_only_hint} == READ_ONLY
        destructive = {n for n, a in hints.items() if a.destructive_hint}
        assert {"commit_study_index", "repair_chunk_boundaries"} <= destructive
        assert not destructive & (READ_ONLY | {"commit_boundary"})

        # bad arguments and unknown tools are structured errors, and the session goes on
        err = await host.fails("commit_boundary", "invalid_arguments", doc_id="abcdef")
        assert "revision" in err["message"] and "reason" in err["message"]
        await host.fails(
            "commit_boundary",
            "invalid_arguments",
            doc_id="abcdef",
            revision=1,
            action="cut",
            reason="x",
            api_key="sk-nope",
        )
        await host.fails("no_such_tool", "unknown_tool")
        await host.fails("get_status", "not_found", doc_id="0123456789")
        # verify_integrity needs a folder; a doc_id given with one must still exist
        err = await host.fails("verify_integrity", "invalid_decision")
        assert "no output folder" in err["message"]
        await host.fails(
            "verify_integrity", "not_found", doc_id="0123456789", output_dir=str(tmp_path)
        )
        assert (await host.ok("get_status"))["documents"] == []

    run(tmp_path, scenario)


def test_host_drives_a_document_through_mcp(tmp_path: Path) -> None:
    async def scenario(host: Host) -> None:
        await host.fails("split_document", "bad_input", path=str(tmp_path / "missing.docx"))
        # two jobs at once: each gets its own run folder
        results: dict[str, dict[str, Any]] = {}

        async def split(name: str, path: Path) -> None:
            results[name] = await host.ok("split_document", path=str(path))

        async with anyio.create_task_group() as tg:
            tg.start_soon(split, "doc", DOC)
            tg.start_soon(split, "small", SMALL)
        split_out, small = results["doc"], results["small"]
        runs = (tmp_path / "state" / "runs").resolve()
        assert Path(split_out["output_dir"]).parent == runs == Path(small["output_dir"]).parent
        assert split_out["output_dir"] != small["output_dir"]
        assert split_out["state"] == small["state"] == "awaiting_decision"
        doc = split_out["doc_id"]
        assert split_out["review_tasks"] >= 10 and not split_out["attached"]

        # the small document fits in one chunk: no decision to make, write_chunks plans it
        assert (await host.ok("get_boundary_context", doc_id=small["doc_id"]))["context"] is None
        written = await host.ok("write_chunks", doc_id=small["doc_id"])
        assert written["state"] == "complete" and written["verification_passed"] is True
        assert len(written["chunks"]) == 1
        assert (Path(small["output_dir"]) / written["chunks"][0]["markdown_file"]).is_file()
        # the other one still has boundaries to decide: write_chunks refuses, nothing changes
        err = await host.fails("write_chunks", "invalid_decision", doc_id=doc)
        assert "boundary decisions are still open" in err["message"]
        listed = {d["doc_id"]: d for d in (await host.ok("get_status"))["documents"]}
        assert listed.keys() == {doc, small["doc_id"]}
        assert listed[doc]["state"] == "awaiting_decision" and listed[doc]["error"] is None
        assert listed[doc]["revision"] == split_out["revision"]
        assert listed[small["doc_id"]]["state"] == "complete"
        assert listed[small["doc_id"]]["source_name"] == SMALL.name

        # --- topic reviews: the host votes, an invalid vote is refused whole
        batch = await host.ok("get_topic_change_review_batch", doc_id=doc[:12], size=3)
        items, rev = batch["batch"]["items"], batch["revision"]
        assert [i["after_id"] for i in items] == ["el-000068", "el-000171", "el-000177"]
        assert all(i["before"] and i["after"] and not i["agent_roles"] for i in items)
        verdicts = {"el-000068": "new_topic", "el-000171": "same_topic", "el-000177": "same_topic"}
        votes = [_vote(i, role, verdicts[i["after_id"]]) for i in items for role in ROLES]
        wrong_side = dict(votes[0], evidence_left=[items[0]["evidence_right_ids"][0]])
        err = await host.fails(
            "commit_topic_change_reviews",
            "invalid_decision",
            doc_id=doc,
            revision=rev,
            votes=[wrong_side, *votes[1:]],
        )
        assert "other side" in err["message"] and "nothing was stored" in err["message"]
        generic = dict(votes[1], reason="A new topic starts here")
        err = await host.fails(
            "commit_topic_change_reviews",
            "invalid_decision",
            doc_id=doc,
            revision=rev,
            votes=[generic],
        )
        assert "generic" in err["message"]
        status = await host.ok("get_status", doc_id=doc)
        assert status["document"]["revision"] == rev  # refused votes committed nothing
        done = await host.ok("commit_topic_change_reviews", doc_id=doc, revision=rev, votes=votes)
        assert done["revision"] == rev + 1 and done["summary"]["agent_reviewed"] == 3
        assert "agent" in done["summary"]["reviewers"]
        # stale: the same revision again is a conflict naming the current one
        err = await host.fails(
            "commit_topic_change_reviews", "conflict", doc_id=doc, revision=rev, votes=votes[:1]
        )
        assert err["current_revision"] == rev + 1 and err["current_state"] == "awaiting_decision"
        # recover by re-reading: the next batch has the next transitions
        batch = await host.ok("get_topic_change_review_batch", doc_id=doc, size=2)
        assert [i["after_id"] for i in batch["batch"]["items"]] == ["el-000179", "el-000196"]
        votes2 = [_vote(i, "adjudicator", "new_topic") for i in batch["batch"]["items"]]
        done = await host.ok(
            "commit_topic_change_reviews", doc_id=doc, revision=batch["revision"], votes=votes2
        )
        assert done["summary"]["agent_reviewed"] == 5
        # the configured backend reviews the rest, in parallel; the host's votes stay
        await host.fails(
            "run_parallel_topic_reviews",
            "invalid_decision",
            doc_id=doc,
            revision=done["revision"],
            after_ids=["el-999999"],
        )
        ran = await host.ok(
            "run_parallel_topic_reviews", doc_id=doc, revision=done["revision"], backend="heuristic"
        )
        assert ran["revision"] == done["revision"] + 1
        assert ran["summary"]["agent_reviewed"] == 5
        assert ran["summary"]["reviewers"] == ["agent", "heuristic"]

        # --- boundaries: the host's confirmed change binds the planner
        ctx = await host.ok("get_boundary_context", doc_id=doc)
        context = ctx["context"]
        assert context["must_cut_by"] == "el-000068"
        cut = next(c for c in context["candidates"] if c["after_id"] == "el-000068")
        assert cut["review"] == "confirmed_change" and sorted(cut["change_roles"]) == sorted(ROLES)
        listed = {c["after_id"] for c in context["candidates"]}
        invented = next(f"el-{i:06d}" for i in range(5, 68) if f"el-{i:06d}" not in listed)
        err = await host.fails(
            "commit_boundary",
            "invalid_decision",
            doc_id=doc,
            revision=ctx["revision"],
            action="cut",
            element_id=invented,
            reason="the basic tutorial ends and the advanced one begins",
        )
        assert "not a listed safe candidate" in err["message"]
        await host.fails(
            "commit_boundary",
            "invalid_decision",
            doc_id=doc,
            revision=ctx["revision"],
            action="cut",
            element_id="el-000068",
            reason="auto-cut",
        )
        await host.fails(
            "commit_boundary",
            "conflict",
            doc_id=doc,
            revision=ctx["revision"] - 1,
            action="cut",
            element_id="el-000068",
            reason="the basic tutorial ends and the advanced one begins",
        )
        decider, decisions = HeuristicDecider(), 0
        while ctx["context"] is not None:
            d = decider.decide(BoundaryContext.model_validate(ctx["context"]))
            ctx = await host.ok(
                "commit_boundary",
                doc_id=doc,
                revision=ctx["revision"],
                action=d.action,
                element_id=d.element_id,
                reason=d.reason,
                evidence=d.evidence,
            )
            if decisions == 0:  # reviews are closed once boundaries are being decided
                err = await host.fails(
                    "commit_topic_change_reviews",
                    "invalid_decision",
                    doc_id=doc,
                    revision=ctx["revision"],
                    votes=votes[:1],
                )
                assert "first boundary" in err["message"]
            decisions += 1
        assert ctx["state"] == "writing" and decisions >= 3

        # --- write and verify
        written = await host.ok("write_chunks", doc_id=doc)
        assert written["state"] == "complete" and written["verification_passed"] is True
        assert written["output_dir"] == split_out["output_dir"]
        out = Path(written["output_dir"])
        chunk_count = len(written["chunks"])
        assert chunk_count == decisions + 1
        first = await host.ok("get_chunk", doc_id=doc, chunk=1)
        assert (
            first["chunk"]["last_id"] == "el-000068"
            and "Basic Logging Tutorial" in first["content"]
        )
        report = json.loads((out / "semantic-review-report.json").read_text())
        by_id = {o["after_id"]: o for o in report["outcomes"]}
        assert by_id["el-000068"]["decision"] == "confirmed_change"
        assert {v["backend"] for v in by_id["el-000068"]["votes"]} == {"agent"}
        assert by_id["el-000171"]["decision"] == "continuity"
        checked = await host.ok("verify_integrity", doc_id=doc)
        assert checked["passed"] and checked["checked"]["chunks"] == chunk_count
        victim = out / written["chunks"][1]["markdown_file"]
        victim.write_text(victim.read_text().replace("logging", "LOGGING", 1))
        checked = await host.ok("verify_integrity", output_dir=str(out))
        assert not checked["passed"] and checked["finding_count"] >= 1
        await host.ok("write_chunks", doc_id=doc)  # re-export restores the folder
        assert (await host.ok("verify_integrity", doc_id=doc))["passed"]

        # --- the index is refused until every chunk was read
        ictx = await host.ok("get_study_index_context", doc_id=doc)
        assert ictx["context"]["unread"] == list(range(1, chunk_count + 1))
        err = await host.fails(
            "commit_study_index",
            "invalid_decision",
            doc_id=doc,
            revision=ictx["revision"],
            **_index_files(ictx["context"]),
        )
        assert "never read" in err["message"]

        # --- analyses
        actx = await host.ok("get_chunk_analysis_context", doc_id=doc, chunk=1)
        assert actx["context"]["content"] and actx["context"]["last_id"] == "el-000068"
        bad = {**ANSWER, "topic_fa": "Logging basics in Latin letters"}
        err = await host.fails(
            "commit_chunk_analysis",
            "invalid_decision",
            doc_id=doc,
            chunk=1,
            revision=actx["revision"],
            analysis=bad,
        )
        assert "topic_fa" in err["message"]
        await host.fails(
            "commit_chunk_analysis",
            "conflict",
            doc_id=doc,
            chunk=1,
            revision=actx["revision"] - 1,
            analysis=ANSWER,
        )
        analysed = await host.ok(
            "commit_chunk_analysis", doc_id=doc, chunk=1, revision=actx["revision"], analysis=ANSWER
        )
        assert analysed["state"] == "analysing" and analysed["analysis"]["backend"] == "agent"

        # --- a split-only repair of the largest chunk, at its most balanced inner cut
        largest = max(written["chunks"], key=lambda c: c["words"])["number"]
        rctx = await host.ok("get_boundary_repair_context", doc_id=doc, chunk=largest)
        cuts = rctx["context"]["candidates"]
        assert cuts
        best = min(cuts, key=lambda c: abs(c["pages_before"] - c["pages_after"]))
        await host.fails(
            "repair_chunk_boundaries",
            "invalid_decision",
            doc_id=doc,
            chunk=largest,
            revision=rctx["revision"],
            element_id="el-999999",
            reason="the two halves of this chunk cover different handlers",
        )
        repaired = await host.ok(
            "repair_chunk_boundaries",
            doc_id=doc,
            chunk=largest,
            revision=rctx["revision"],
            element_id=best["after_id"],
            reason=f"the part before {best['after_id']} and the part "
            f"starting at {best['right_snippet'][:40]!r} are "
            "separate study units",
        )
        assert repaired["state"] == "writing" and len(repaired["chunks"]) == chunk_count + 1
        written = await host.ok("write_chunks", doc_id=doc)
        assert written["state"] == "complete" and written["verification_passed"] is True
        assert len(written["chunks"]) == chunk_count + 1
        assert written["chunks"][0]["markdown_file"].startswith("01-logging-module-basics")
        chunk_files = {p.name for p in out.glob("[0-9][0-9]-*.md")}
        assert chunk_files == {c["markdown_file"] for c in written["chunks"]}  # none stale

        # --- the study index, once every chunk was read
        for n in range(1, chunk_count + 2):
            await host.ok("get_chunk_analysis_context", doc_id=doc, chunk=n)
        ictx = await host.ok("get_study_index_context", doc_id=doc)
        assert ictx["context"]["unread"] == []
        files = _index_files(ictx["context"])
        await host.fails(
            "commit_study_index",
            "invalid_decision",
            doc_id=doc,
            revision=ictx["revision"],
            **{**files, "fa": files["en"]},
        )
        indexed = await host.ok(
            "commit_study_index", doc_id=doc, revision=ictx["revision"], **files
        )
        assert indexed["state"] == "complete" and indexed["output_dir"] == str(out)
        assert (out / "study-index-en.md").read_text(encoding="utf-8") == files["en"]
        assert (out / "study-map.md").read_text(encoding="utf-8") == files["study_map"]
        assert (await host.ok("verify_integrity", doc_id=doc))["passed"]

        status = (await host.ok("get_status", doc_id=doc, history=500))["document"]
        assert status["state"] == "complete" and status["chunks"] == chunk_count + 1
        actors = {h["actor"] for h in status["history"]}
        assert {"agent:agent", "agent"} <= actors
        whys = [h["why"] for h in status["history"]]
        assert any("agent review votes" in w for w in whys)
        assert any(w == "study index committed" for w in whys)

    run(tmp_path, scenario)


def test_install_prints_snippets_and_writes_a_working_mcp_json(tmp_path: Path) -> None:
    import subprocess

    project = tmp_path / "project"
    project.mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIRE_")}
    env |= {
        "QUIRE_STORE_URL": "data/store",
        "QUIRE_REDIS_URL": "redis://:hunter2@db:6379/0",
        "OPENAI_API_KEY": "sk-not-a-real-key",
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "quire.orchestrator.cli",
            "mcp",
            "install",
            "--write",
            "--project",
            str(project),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    printed = done.stdout
    assert "hunter2" not in printed and "sk-not-a-real-key" not in printed
    assert "QUIRE_REDIS_URL carries a password" in printed
    argv = [sys.executable, "-m", "quire.orchestrator.mcp"]
    claude = shlex.split(
        next(line for line in printed.splitlines() if line.startswith("claude mcp add"))
    )
    assert claude[3] == "quire" and claude[claude.index("--") + 1 :] == argv
    assert f"QUIRE_STORE_URL={project / 'data' / 'store'}" in claude
    codex = printed.split("# Codex", 1)[1].split("\n# ", 1)[0].split("\n", 1)[1]
    server = tomllib.loads(codex)["mcp_servers"]["quire"]
    assert [server["command"], *server["args"]] == argv
    assert server["env"]["QUIRE_STATE_DIR"] == str(project / ".quire")
    written = (project / ".mcp.json").read_text()
    assert "hunter2" not in written
    config = json.loads(written)["mcpServers"]
    assert config["other"] == {"command": "x"}  # other servers are kept
    entry = config["quire"]
    assert entry["env"]["QUIRE_STORE_URL"] == str(project / "data" / "store")

    async def main() -> None:  # the written entry starts a working server
        async with serving(tmp_path, [entry["command"], *entry["args"]], entry["env"]) as host:
            tools = (await host.session.list_tools()).tools
            assert {t.name for t in tools} == TOOLS
            assert (await host.ok("get_status"))["documents"] == []

    anyio.run(main)
    assert (project / "data" / "store").is_dir() or (project / ".quire").is_dir()


@pytest.mark.services
def test_the_same_tools_drive_the_distributed_stack(
    private_redis: RedisServer, s3_store: S3Store, s3_env: str, tmp_path: Path
) -> None:
    """Redis broker and revisions, S3 (moto) store, a Celery worker: no special code."""
    base = private_redis.url.rsplit("/", 1)[0]
    env = {
        "QUIRE_BROKER_URL": f"{base}/0",
        "QUIRE_REDIS_URL": f"{base}/1",
        "QUIRE_STORE_URL": s3_store.url,
        "QUIRE_STATE_DIR": str(tmp_path / "state"),
    }
    passed = {k: v for k, v in os.environ.items() if k.startswith(("AWS_", "QUIRE_"))} | env

    async def main() -> None:
        argv = [sys.executable, "-m", "quire.orchestrator.mcp"]
        async with serving(tmp_path, argv, passed) as host:
            split = await host.ok("split_document", path=str(SMALL), timeout_s=120)
            assert split["state"] == "awaiting_decision", split
            doc = split["doc_id"]
            batch = await host.ok("get_topic_change_review_batch", doc_id=doc, size=25)
            items = batch["batch"]["items"]
            votes = [_vote(i, "adjudicator", "same_topic") for i in items]
            done = await host.ok(
                "commit_topic_change_reviews", doc_id=doc, revision=batch["revision"], votes=votes
            )
            assert done["summary"]["agent_reviewed"] == len(items) > 0
            err = await host.fails(
                "commit_topic_change_reviews",
                "conflict",
                doc_id=doc,
                revision=batch["revision"],
                votes=votes,
            )
            assert err["current_revision"] == done["revision"]
            written = await host.ok("write_chunks", doc_id=doc, timeout_s=120)
            assert written["state"] == "complete" and written["verification_passed"] is True
            out = Path(written["output_dir"])
            assert (out / written["chunks"][0]["markdown_file"]).is_file()
            assert (await host.ok("verify_integrity", doc_id=doc))["passed"]
            history = (await host.ok("get_status", doc_id=doc, history=500))["document"]
            actors = {h["actor"] for h in history["history"]}
            assert "agent:agent" in actors and any(a.startswith("worker:") for a in actors)

    with CeleryWorker(
        f"m{uuid.uuid4().hex[:6]}", "orchestrate,parse,review,write,render,analysis", passed
    ):
        anyio.run(main)


def test_mcp_splits_an_epub_and_a_folder_of_html_chapters(tmp_path: Path) -> None:
    data = ROOT / "tests" / "data"

    async def scenario(host: Host) -> None:
        books = ((data / "maint-guide-zh.epub", "epub"), (data / "maint-guide-html", "html"))
        for path, fmt in books:
            split = await host.ok("split_document", path=str(path))
            assert split["state"] == "awaiting_decision", split
            status = await host.ok("get_status", doc_id=split["doc_id"])
            assert status["document"]["source_format"] == fmt, status
            ctx = await host.ok("get_boundary_context", doc_id=split["doc_id"])
            decider = HeuristicDecider()
            while ctx["context"] is not None:
                d = decider.decide(BoundaryContext.model_validate(ctx["context"]))
                ctx = await host.ok(
                    "commit_boundary",
                    doc_id=split["doc_id"],
                    revision=ctx["revision"],
                    action=d.action,
                    element_id=d.element_id,
                    reason=d.reason,
                    evidence=d.evidence,
                )
            written = await host.ok("write_chunks", doc_id=split["doc_id"])
            assert written["state"] == "complete" and written["verification_passed"] is True
            assert len(written["chunks"]) >= 2

    run(tmp_path, scenario)
