"""The external-agent loop on the embedded default: boundaries, analyses, repair, index —
and its error paths (invalid candidate, generic reason, stale revision, unread chunks)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pipeline_utils import CORPUS, local_runtime

from quire.orchestrator import agent
from quire.orchestrator.local import run_documents
from quire.shared.config import RunSettings
from quire.shared.errors import ConflictError, ValidationFailedError
from quire.shared.plan import PlanSettings
from quire.workers import steps
from quire.workers.boundaries.decisions import BoundaryContext, HeuristicDecider
from quire.workers.boundaries.planner import plan_globally
from quire.workers.execute import submit
from quire.workers.runtime import Runtime

DOC = CORPUS / "python-logging-howto-cookbook.docx"


def start(tmp_path: Path) -> tuple[Runtime, str]:
    rt = local_runtime(tmp_path)
    s = submit(rt, DOC, RunSettings(decider="agent"))
    run_documents(rt, [s.doc_id])
    assert rt.repo.load(s.doc_id).state == "awaiting_decision"
    return rt, s.doc_id


def plan_as_agent(rt: Runtime, doc_id: str) -> int:
    decider, decisions = HeuristicDecider(), 0
    snap = agent.boundary_context(rt, doc_id)
    while snap.context is not None:
        d = decider.decide(BoundaryContext.model_validate(snap.context))
        snap = agent.commit_boundary(
            rt,
            doc_id,
            revision=snap.revision,
            action=d.action,
            element_id=d.element_id,
            reason=d.reason,
            evidence=d.evidence,
        )
        decisions += 1
    return decisions


def test_boundary_errors_are_refused_and_change_nothing(tmp_path: Path) -> None:
    rt, doc_id = start(tmp_path)
    snap = agent.boundary_context(rt, doc_id)
    assert snap.context is not None
    listed = {c["after_id"] for c in snap.context["candidates"]}
    invented = next(f"el-{i:06d}" for i in range(2, 99999) if f"el-{i:06d}" not in listed)
    with pytest.raises(ValidationFailedError, match="not a listed safe candidate"):
        agent.commit_boundary(
            rt,
            doc_id,
            revision=snap.revision,
            action="cut",
            element_id=invented,
            reason="the logging basics end and the handlers section begins",
            evidence=[],
        )
    good = snap.context["candidates"][0]["after_id"]
    with pytest.raises(ValidationFailedError, match="reason"):
        agent.commit_boundary(
            rt,
            doc_id,
            revision=snap.revision,
            action="cut",
            element_id=good,
            reason="auto-cut",
            evidence=[],
        )
    with pytest.raises(ConflictError):
        agent.commit_boundary(
            rt,
            doc_id,
            revision=snap.revision - 1,
            action="cut",
            element_id=good,
            reason="the tutorial's introduction ends and the basic tutorial begins",
            evidence=[],
        )
    assert rt.repo.load(doc_id).revision == snap.revision  # nothing was committed


def test_agent_drives_a_document_to_complete(tmp_path: Path) -> None:
    rt, doc_id = start(tmp_path)
    assert plan_as_agent(rt, doc_id) >= 2
    run_documents(rt, [doc_id])
    s = rt.repo.load(doc_id)
    assert s.state == "complete", s.error
    plan = json.loads(rt.store.get(f"docs/{doc_id}/out/plan.json"))
    assert len(plan["chunks"]) >= 2 and agent.get_chunk(rt, doc_id, 1)["content"]
    assert all(b["decider"] in ("agent", "forced") for b in plan["boundaries"])

    # the index is refused until every chunk's context was read
    ictx = agent.index_context(rt, doc_id)
    assert ictx.context is not None and ictx.context["unread"]
    with pytest.raises(ValidationFailedError, match="never read"):
        agent.commit_index(rt, doc_id, revision=ictx.revision, en="x", fa="x", study_map="x")

    ctx = agent.analysis_context(rt, doc_id, 1)
    answer = {
        "topic_en": "Logging module basics and when to use it",
        "topic_fa": "مبانی ماژول لاگ‌گیری و زمان استفاده از آن",
        "study_focus_en": "Choose between print, logging.info and warnings for a given "
        "situation and configure basicConfig for a script.",
        "study_focus_fa": "انتخاب میان چاپ، ثبت اطلاعات و هشدارها و پیکربندی پایه برای یک اسکریپت.",
        "coherence": "confident",
        "reason": "Logging levels, basicConfig and the first tutorial examples form one unit.",
    }
    bad = {**answer, "topic_fa": "Logging basics in Latin letters"}
    with pytest.raises(ValidationFailedError):
        agent.commit_analysis(rt, doc_id, 1, bad, revision=ctx.revision)
    agent.commit_analysis(rt, doc_id, 1, answer, revision=ctx.revision)
    run_documents(rt, [doc_id])
    s = rt.repo.load(doc_id)
    assert s.state == "complete", s.error
    names = [k.rsplit("/", 1)[-1] for k in rt.store.list(f"docs/{doc_id}/out/")]
    assert any(n.startswith("01-logging-module-basics") for n in names), names


def test_cli_speaks_json_and_fails_cleanly(tmp_path: Path) -> None:
    env_dir = tmp_path / "cli"
    env_dir.mkdir()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "quire.orchestrator.cli",
            "run",
            "--input",
            str(DOC),
            "--out",
            str(env_dir / "out"),
            "--decider",
            "agent",
        ],
        cwd=env_dir,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 3, run.stderr
    ctx = subprocess.run(
        [sys.executable, "-m", "quire.orchestrator.cli", "boundary-context", _doc_prefix(env_dir)],
        cwd=env_dir,
        capture_output=True,
        text=True,
        timeout=120,
    )
    snap = json.loads(ctx.stdout)
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "quire.orchestrator.cli",
            "commit-boundary",
            snap["doc_id"],
            "--revision",
            str(snap["revision"]),
            "--action",
            "cut",
            "--element-id",
            "el-999999",
            "--reason",
            "an element id nobody listed as a candidate",
        ],
        cwd=env_dir,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2
    assert "not a listed safe candidate" in bad.stderr
    assert "Traceback" not in bad.stderr and bad.stderr.count("\n") == 1


def _doc_prefix(cwd: Path) -> str:
    status = subprocess.run(
        [sys.executable, "-m", "quire.orchestrator.cli", "status"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return next(w for w in status.stdout.split() if len(w) == 16 and w.isalnum())


def _files(rt: Runtime, doc_id: str) -> dict[str, bytes]:
    manifest = json.loads(rt.store.get(f"docs/{doc_id}/out/manifest.json"))
    return {
        c["first_id"]: rt.store.get(f"docs/{doc_id}/out/{c['markdown_file']}")
        for c in manifest["chunks"]
    }


def _body(md: bytes) -> bytes:
    """Without the front block (it names the chunk number) and the number in links to other
    chunks' files (a split renumbers the files after it)."""
    return re.sub(rb"\]\(\d+-", b"](N-", md.split(b"-->\n", 1)[1])


def _unlinked(md: bytes) -> bytes:
    """With the file names in links to other chunks left out (their anchors kept): the split
    chunk is retitled by what it keeps, and the files after it renumbered."""
    return re.sub(rb"\]\(\d+-[^)#]*\.md", b"](FILE", md)


def test_split_only_repair_keeps_unaffected_chunks(tmp_path: Path) -> None:
    rt = local_runtime(tmp_path)
    # sessions of up to 16 pages, so that some are long enough to split in two
    wide = PlanSettings(max_pages=16, soft_max_pages=17)
    s = submit(rt, CORPUS / "python-logging-howto-cookbook.docx", RunSettings(plan=wide))
    run_documents(rt, [s.doc_id])
    before = _files(rt, s.doc_id)
    analyses_before = {k: rt.store.get(k) for k in rt.store.list(f"docs/{s.doc_id}/work/analysis/")}
    # a split must leave the minimum on both sides: chunks under twice the minimum stay whole
    snaps = {n: agent.repair_context(rt, s.doc_id, n) for n in range(1, len(before) + 1)}
    for n, snap in snaps.items():
        assert snap.context is not None
        if snap.context["pages"] < 2 * snap.context["min_pages"]:
            assert snap.context["candidates"] == [], n
    target = next(n for n, snap in snaps.items() if snap.context and snap.context["candidates"])
    small = next(n for n, snap in snaps.items() if snap.context and not snap.context["candidates"])
    with pytest.raises(ValidationFailedError, match="stays whole"):
        agent.repair_boundary(
            rt,
            s.doc_id,
            small,
            revision=snaps[small].revision,
            element_id=snaps[small].context["first_id"],  # type: ignore[index]
            reason="the chunk's opening section ends and a separate recipe begins",
        )
    snap = snaps[target]
    assert snap.context is not None and snap.context["candidates"]
    inside = snap.context["candidates"][len(snap.context["candidates"]) // 2]["after_id"]
    outside = snap.context["first_id"]  # not strictly inside: refused
    with pytest.raises(ValidationFailedError):
        agent.repair_boundary(
            rt,
            s.doc_id,
            target,
            revision=snap.revision,
            element_id=outside,
            reason="the chunk's opening section ends and a separate recipe begins",
        )
    agent.repair_boundary(
        rt,
        s.doc_id,
        target,
        revision=snap.revision,
        element_id=inside,
        reason="the handler configuration recipes end and the filter recipes begin",
    )
    run_documents(rt, [s.doc_id])
    assert rt.repo.load(s.doc_id).state == "complete"
    after = _files(rt, s.doc_id)
    assert len(after) == len(before) + 1
    split_first = snap.context["first_id"]
    for first_id, data in before.items():
        if first_id == split_first:
            continue
        assert first_id in after  # no boundary moved, nothing merged
        if first_id < split_first:
            # earlier chunks: the same bytes, but for the files their links point to
            assert _unlinked(after[first_id]) == _unlinked(data)
        else:
            assert _body(after[first_id]) == _body(data)  # later: renumbered, same content
    analyses_after = {k: rt.store.get(k) for k in rt.store.list(f"docs/{s.doc_id}/work/analysis/")}
    kept = {k for k in analyses_before if split_first not in k}
    assert all(analyses_after[k] == analyses_before[k] for k in kept)


def test_an_agent_following_the_recommendations_gets_the_global_plan(tmp_path: Path) -> None:
    rt, doc_id = start(tmp_path)
    snap = agent.boundary_context(rt, doc_id)
    decisions = 0
    while snap.context is not None:
        ctx = BoundaryContext.model_validate(snap.context)
        rec = ctx.recommendation
        assert rec is not None and ctx.candidate(rec.after_id) is not None
        assert rec.reason.startswith("cut before ")
        snap = agent.commit_boundary(
            rt,
            doc_id,
            revision=snap.revision,
            action="cut",
            element_id=rec.after_id,
            reason=rec.reason,
            evidence=rec.evidence,
        )
        decisions += 1
    assert decisions >= 2
    s = rt.repo.load(doc_id)
    plan = json.loads(rt.store.get(f"docs/{doc_id}/out/plan.json"))
    outcomes = {o.after_id: o for o in steps.load_outcomes(rt, s)}
    best = plan_globally(
        steps.load_doc(rt, s), steps.load_candidates(rt, s), outcomes, s.settings.plan
    )
    assert [b["after_id"] for b in plan["boundaries"]] == [b.after_id for b in best.boundaries][
        : len(plan["boundaries"])
    ]
    assert all(b["decider"] == "agent" for b in plan["boundaries"])
