"""A small hand-written textbook IR for the analysis, repair and study-index tests.

Three chapters on distinct subjects (vectors, matrices, regression), 15 PDF pages, planned
as three chunks at the chapter starts, plus good bilingual analyses for each chunk; and
`offline_run`, the whole offline path from an IR to verified output and study indexes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quire.shared.analysis import INDEX_FILES, ChunkAnalysis
from quire.shared.ir import Document, dump_ir
from quire.shared.manifest import load_manifest
from quire.shared.plan import Boundary, Candidate, Plan, PlanSettings
from quire.workers.analysis import author_index, index_context, render_index, validate_index
from quire.workers.analysis.settle import settle
from quire.workers.boundaries.candidates import safe_candidates
from quire.workers.boundaries.planner import plan_from_boundaries, plan_globally
from quire.workers.boundaries.scoring import score_candidates
from quire.workers.verify import verify_output
from quire.workers.write import save_files, write_all
from quire.workers.write.names import chunk_stem
from tests.irgen import build_doc, code, heading, para

VECTORS = (
    "A vector holds values of one mode. The function c() combines values into a "
    "vector, and assignment with the arrow operator stores the vector under a name. "
    "Vector arithmetic works element by element; shorter vectors are recycled. "
)
MATRICES = (
    "A matrix is a two-dimensional array with rows and columns. The dim attribute "
    "gives the matrix its shape, and indexing with two subscripts selects rows and "
    "columns. Matrix multiplication uses the %*% operator; transpose with t(). "
)
REGRESSION = (
    "A linear regression model relates a response to predictors through a "
    "formula. The lm() function fits the model by least squares; summary() reports "
    "coefficients, residuals and the fitted values of the regression. "
)


def sample_doc() -> Document:
    els = [
        heading("1 Vectors and assignment", 1, page=1),
        para(VECTORS * 6, page=1),
        para(VECTORS * 6, page=2),
        heading("1.1 Vector arithmetic", 2, page=3),
        para(VECTORS * 6, page=3, page_last=4),
        code("x <- c(1, 2, 3)\ny <- x * 2", page=5),
        heading("2 Matrices", 1, page=6),
        para(MATRICES * 6, page=6, page_last=7),
        para(MATRICES * 6, page=8, page_last=9),
        heading("3 Linear regression", 1, page=10),
        para(REGRESSION * 6, page=10, page_last=11),
        heading("3.1 Fitting with lm", 2, page=12),
        para(REGRESSION * 6, page=12, page_last=13),
        para(REGRESSION * 6, page=14, page_last=15),
    ]
    return build_doc(els, doc_id="doc-sample", name="sample.pdf")


def sample_candidates(doc: Document, scores: dict[str, float] | None = None) -> list[Candidate]:
    return safe_candidates(doc, scores or {})


def sample_plan(
    doc: Document,
    cuts: tuple[str, ...] = ("el-000006", "el-000009"),
    settings: PlanSettings | None = None,
) -> Plan:
    return plan_from_boundaries(
        doc,
        settings or PlanSettings(),
        [
            Boundary(after_id=c, reason=f"chapter heading follows {c}", decider="heuristic")
            for c in cuts
        ],
    )


GOOD: dict[int, dict[str, Any]] = {
    1: {
        "topic_en": "Vectors and assignment in R",
        "topic_fa": "بردارها و انتساب در R",
        "study_focus_en": "Build vectors with c(), store them with the assignment arrow and "
        "predict how element-wise arithmetic recycles shorter vectors.",
        "study_focus_fa": "ساختن بردار با تابع c()، ذخیره کردن آن با عملگر انتساب و پیش‌بینی "
        "رفتار محاسبات عنصر به عنصر و بازیافت بردارهای کوتاه‌تر.",
        "coherence": "confident",
        "reason": "Both sections build on the same vector concept: creation, assignment and "
        "element-wise arithmetic.",
    },
    2: {
        "topic_en": "Matrices and two-dimensional indexing",
        "topic_fa": "ماتریس‌ها و اندیس‌گذاری دوبعدی",
        "study_focus_en": "Give an array a shape with dim, select rows and columns with two "
        "subscripts, and multiply matrices with %*% and t().",
        "study_focus_fa": "شکل دادن به آرایه با dim، انتخاب سطرها و ستون‌ها با دو اندیس و ضرب "
        "ماتریس‌ها با عملگر %*% و ترانهاده با t().",
        "coherence": "confident",
        "reason": "The whole chunk explains matrix shape, subscripts and matrix products.",
    },
    3: {
        "topic_en": "Fitting linear regression models",
        "topic_fa": "برازش مدل‌های رگرسیون خطی",
        "study_focus_en": "Write a model formula, fit it by least squares with lm() and read "
        "coefficients and residuals from summary().",
        "study_focus_fa": "نوشتن فرمول مدل، برازش آن با کمترین مربعات به کمک lm() و خواندن "
        "ضریب‌ها و باقی‌مانده‌ها از خروجی summary().",
        "coherence": "confident",
        "reason": "One topic throughout: formulas, least-squares fitting with lm and its "
        "summary output.",
    },
}


def good_analysis(
    number: int, first_id: str, last_id: str, backend: str = "openai"
) -> ChunkAnalysis:
    return ChunkAnalysis(
        chunk=number, first_id=first_id, last_id=last_id, backend=backend, **GOOD[number]
    )


def offline_run(doc: Document, images: dict[str, bytes], out: Path) -> dict[str, str]:
    """The offline path: global plan, settled (heuristic analyses, repairs, titles), then
    writing, verifying and indexing (which must accept the offline backend's own output)."""
    candidates = score_candidates(doc, safe_candidates(doc))
    settled = settle(
        doc, plan_globally(doc, candidates, {}, PlanSettings()), candidates, "heuristic"
    )
    plan = settled.plan
    analyses: dict[int, ChunkAnalysis] = {}
    for c in plan.chunks:
        result = settled.analyses.get((c.first_id, c.last_id))
        assert (result is None) == (c.kind != "study"), c  # reference sessions: none
        if result is not None:
            assert isinstance(result, ChunkAnalysis), result
            analyses[c.number] = result.model_copy(update={"chunk": c.number})
    files = write_all(doc, plan, formats=["markdown"], source_pdf=None, images=images)
    files["ir.json"] = dump_ir(doc)
    files["plan.json"] = plan.model_dump_json(indent=1).encode()
    manifest = load_manifest(files["manifest.json"])
    ctx = index_context(manifest, analyses, doc=doc)
    rendered = render_index(ctx, author_index(ctx, "heuristic"))
    validate_index(
        ctx,
        en=rendered[INDEX_FILES["en"]],
        fa=rendered[INDEX_FILES["fa"]],
        map=rendered[INDEX_FILES["map"]],
    )
    save_files(out, {**files, **{k: v.encode() for k, v in rendered.items()}})
    for entry in manifest.chunks:  # study chunks are named after their English topics
        analysis = analyses.get(entry.number)
        topic = (analysis.topic_en if analysis else "") or plan.chunks[entry.number - 1].title
        assert entry.stem == chunk_stem(entry.number, len(plan.chunks), topic)
        assert f"]({entry.markdown_file})" in rendered[INDEX_FILES["en"]]
        assert entry.kind == plan.chunks[entry.number - 1].kind
    report = verify_output(out, render=False)
    assert report.passed, report.findings[:3]
    return rendered
