"""The run's LLM backend, one instance per part, and what its calls cost, kept in the store.

Each part that calls a backend stores its meter's snapshot under `work/llm-usage/`; the
review report (`semantic-review-report.json`, `backend_usage`) and the manifest
(`backend_fallbacks`) add the parts up as the run goes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from quire.shared import keys
from quire.shared.backend_usage import BackendFallback, BackendUsage, merge_usage
from quire.shared.job import Job
from quire.shared.layout import Layout
from quire.workers.runtime import Runtime

if TYPE_CHECKING:
    from quire.workers.llm import RetryingBackend

OFFLINE = ("heuristic",)
_USAGE_ORDER = ("topic_review", "planning", "analysing", "repairing", "indexing")
REPORT = Layout.REVIEW


def llm_backend(rt: Runtime, s: Job) -> RetryingBackend | None:
    """The run's LLM backend for one part (None: the offline heuristic), configured by the
    runtime's settings. One instance per part, so its usage meter holds just that part's
    calls."""
    if s.settings.backend in OFFLINE:
        return None
    from quire.workers.llm import make_backend

    return make_backend(s.settings.backend, env=rt.env, strict=s.settings.strict_backend)


def keep_usage(rt: Runtime, s: Job, name: str, backend: RetryingBackend | None) -> None:
    """Store what a part's backend calls cost and how they went (modes, re-asks,
    fallbacks), keyed by state, plan version and part: a redelivered part rewrites its
    own record, and a part that made no call leaves the one it had."""
    if backend is None or backend.usage.empty:
        return
    version = Layout.version_of(s.artifacts.get("plan", ""))
    key = keys.work(s.doc_id, Layout.usage(s.state, version, name))
    rt.store.put(key, backend.usage.snapshot().model_dump_json().encode())


def run_usage(rt: Runtime, s: Job) -> BackendUsage | None:
    """The run's backend usage so far, every part's added up in pipeline order (None: no
    LLM call)."""

    def order(key: str) -> tuple[int, str]:
        state = key.rsplit("/", 1)[-1].split("-", 1)[0]
        return (_USAGE_ORDER.index(state) if state in _USAGE_ORDER else 99, key)

    return merge_usage(
        BackendUsage.model_validate_json(rt.store.get(k))
        for k in sorted(rt.store.list(keys.work(s.doc_id, Layout.USAGE)), key=order)
    )


def fallbacks_so_far(rt: Runtime, s: Job) -> list[BackendFallback]:
    """Every item of the run the heuristic answered in the backend's place, so far."""
    usage = run_usage(rt, s)
    return usage.fallbacks if usage else []


def write_review_report(rt: Runtime, s: Job, report: dict[str, object] | None = None) -> None:
    """`semantic-review-report.json` with the run's backend usage so far (`backend_usage`:
    structured-output modes, calls, re-asks, fallbacks); without `report`, only the usage
    of the report already written is brought up to date."""
    if report is None:
        report = json.loads(rt.store.get(keys.out(s.doc_id, REPORT)))
    usage = run_usage(rt, s)
    report["backend_usage"] = usage.model_dump(mode="json") if usage else None
    data = json.dumps(report, ensure_ascii=False, sort_keys=True).encode()
    rt.store.put(keys.out(s.doc_id, REPORT), data)
