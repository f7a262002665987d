"""One analysis per chunk content: `settle` analyses each element range once, a repair
analyses only the pieces it made, reference sessions are never analysed; and a whole
offline run writes its chunks once."""

from __future__ import annotations

from pathlib import Path

import pytest
from analysisfix import sample_candidates, sample_doc, sample_plan
from pipeline_utils import CORPUS, local_runtime, outputs, run_embedded

from quire.shared.analysis import AnalysisFailure, ChunkAnalysis
from quire.shared.config import RunSettings
from quire.shared.manifest import load_manifest
from quire.shared.plan import PlanSettings
from quire.workers.analysis import analyse_chunk, build_contexts
from quire.workers.analysis.settle import settle

RULES = PlanSettings(min_pages=3, max_pages=8, soft_max_pages=9, hard_max_pages=14)
SCORES = {"el-000009": 0.92}  # a strong change inside chunk 2, with 4 pages on each side


def ranges(plan) -> list[tuple[str, str]]:
    return [(c.first_id, c.last_id) for c in plan.chunks]


def test_each_range_is_analysed_once_and_a_repair_analyses_only_its_pieces() -> None:
    doc = sample_doc()
    plan = sample_plan(doc, ("el-000006", "el-000013"), RULES)
    cands = sample_candidates(doc, SCORES)
    first = settle(doc, plan, cands, "heuristic")
    pieces = [("el-000007", "el-000009"), ("el-000010", "el-000013")]
    assert ranges(first.plan) == [("el-000001", "el-000006"), *pieces, ("el-000014", "el-000014")]
    assert [(r.chunk, r.split_after) for r in first.repairs] == [(2, "el-000009")]
    assert first.analysed == [*ranges(plan), *pieces]  # the three chunks, then the pieces
    assert set(first.analyses) == set(ranges(first.plan))
    assert all(isinstance(a, ChunkAnalysis) for a in first.analyses.values())
    # titled by the analyses
    for c in first.plan.chunks:
        analysis = first.analyses[(c.first_id, c.last_id)]
        assert isinstance(analysis, ChunkAnalysis)
        assert c.title == (analysis.topic_en or c.title)
    # settling the settled plan again analyses nothing and changes nothing
    again = settle(
        doc,
        first.plan,
        cands,
        "heuristic",
        known=first.analyses,
        repaired=[("el-000007", "el-000013")],
    )
    assert again.analysed == [] and again.repairs == [] and again.plan == first.plan


def test_known_analyses_are_kept_and_only_the_pieces_are_analysed() -> None:
    # what the analysing state holds when it sends chunk 2 to repair (an LLM backend)
    doc = sample_doc()
    plan = sample_plan(doc, ("el-000006", "el-000013"), RULES)
    cands = sample_candidates(doc, SCORES)
    known: dict[tuple[str, str], ChunkAnalysis | AnalysisFailure] = {}
    for context in build_contexts(doc, plan, cands):
        known[(context.first_id, context.last_id)] = analyse_chunk(context, "heuristic")
    result = settle(doc, plan, cands, "heuristic", known=known)
    assert result.analysed == [("el-000007", "el-000009"), ("el-000010", "el-000013")]
    assert result.analyses[("el-000001", "el-000006")] is known[("el-000001", "el-000006")]
    assert ("el-000007", "el-000013") not in result.analyses  # the repaired range is gone


def test_reference_sessions_are_not_analysed() -> None:
    doc = sample_doc()
    plan = sample_plan(doc, ("el-000006", "el-000009"))
    plan = plan.model_copy(
        update={
            "chunks": [
                plan.chunks[0].model_copy(update={"kind": "front_matter"}),
                *plan.chunks[1:],
            ]
        }
    )
    result = settle(doc, plan, sample_candidates(doc), "heuristic")
    assert ("el-000001", "el-000006") not in result.analyses
    assert result.plan.chunks[0].title == plan.chunks[0].title  # not retitled
    assert len(result.analyses) == 2


@pytest.mark.corpus
def test_an_offline_run_writes_its_chunks_once(tmp_path: Path) -> None:
    rt = local_runtime(tmp_path)
    s = run_embedded(rt, CORPUS / "r-intro.pdf", RunSettings(output_format="markdown"))
    assert s.state == "complete", s.error
    states = [h.state for h in rt.repo.history(s.doc_id)]
    visited = [x for i, x in enumerate(states) if i == 0 or states[i - 1] != x]
    assert visited[-6:] == ["planning", "writing", "verifying", "analysing", "indexing", "complete"]
    manifest = load_manifest(rt.store.get(f"docs/{s.doc_id}/out/manifest.json"))
    study = [c for c in manifest.chunks if c.kind == "study"]
    reference = [c for c in manifest.chunks if c.kind != "study"]
    assert reference and {c.kind for c in reference} == {"front_matter", "back_matter"}
    # one stored analysis per study chunk range, none for the reference sessions
    stored = rt.store.list(f"docs/{s.doc_id}/work/analysis/")
    assert sorted(k.rsplit("/", 1)[-1] for k in stored) == sorted(
        f"{c.first_id}-{c.last_id}.json" for c in study
    )
    published = [k for k in outputs(rt, s.doc_id) if k.startswith("analysis/")]
    assert len(published) == len(study)
    for c in manifest.chunks[:-1]:  # every cut says why it is there
        assert c.end_reason.startswith("cut before ") or c.end_decider != "global"
