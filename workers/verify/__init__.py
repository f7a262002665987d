"""Verifier: checks an output folder against the IR and the source, content first."""

from quire.workers.verify.plan import check_plan
from quire.workers.verify.render import (
    RenderBatch,
    plan_render_batches,
    render_compare_batch,
    run_render_batch,
)
from quire.workers.verify.report import add_render_findings, verify_output, write_report

__all__ = [
    "RenderBatch",
    "add_render_findings",
    "check_plan",
    "plan_render_batches",
    "render_compare_batch",
    "run_render_batch",
    "verify_output",
    "write_report",
]
