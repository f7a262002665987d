"""Chunk analysis, split-only repair and study indexes (DESIGN §1: analyse, index).

Pure logic: no Celery, no storage. `build_context` -> `analyse_chunk` (heuristic or any
JsonBackend, validated by `validate_answer`) -> `retitle_plan`; `needs_review` chunks go
through `repair_context` -> a repair decider -> `split_chunk`; once every chunk has an
analysis, `index_context` -> `author_index` -> `render_index` / `validate_index`.
"""

from __future__ import annotations

from quire.workers.analysis.context import (
    AnalysisContext,
    DocumentStats,
    InternalCut,
    build_context,
    build_contexts,
)
from quire.workers.analysis.heuristic import HeuristicAnalyser, heuristic_analysis
from quire.workers.analysis.index import (
    IndexAnswer,
    author_index,
    heuristic_index,
    validate_index_answer,
)
from quire.workers.analysis.index_check import validate_index
from quire.workers.analysis.index_inputs import IndexContext, index_context, reading_minutes
from quire.workers.analysis.index_render import render_index
from quire.workers.analysis.repair import (
    HeuristicRepairDecider,
    LLMRepairDecider,
    RepairChoice,
    RepairContext,
    carry_analyses,
    make_repair_decider,
    repair_context,
    retitle_plan,
    split_chunk,
    unaffected_chunks,
    validate_repair_choice,
)
from quire.workers.analysis.run import analyse_chunk, analyse_with
from quire.workers.analysis.validate import (
    AnalysisAnswer,
    InvalidAnalysis,
    check_analysis,
    english_problem,
    persian_problem,
    validate_answer,
)

__all__ = [
    "AnalysisAnswer",
    "AnalysisContext",
    "DocumentStats",
    "HeuristicAnalyser",
    "HeuristicRepairDecider",
    "IndexAnswer",
    "IndexContext",
    "InternalCut",
    "InvalidAnalysis",
    "LLMRepairDecider",
    "RepairChoice",
    "RepairContext",
    "analyse_chunk",
    "analyse_with",
    "author_index",
    "build_context",
    "build_contexts",
    "carry_analyses",
    "check_analysis",
    "english_problem",
    "heuristic_analysis",
    "heuristic_index",
    "index_context",
    "make_repair_decider",
    "persian_problem",
    "reading_minutes",
    "render_index",
    "repair_context",
    "retitle_plan",
    "split_chunk",
    "unaffected_chunks",
    "validate_answer",
    "validate_index",
    "validate_index_answer",
    "validate_repair_choice",
]
