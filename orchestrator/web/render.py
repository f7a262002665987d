"""The Jinja2 templates of the pages (autoescaped) and the small formatting helpers they use."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi.templating import Jinja2Templates

from quire.orchestrator.batch import spell_duration
from quire.orchestrator.web.views import reason_alone, size_class, stage_marks

templates = Jinja2Templates(directory=Path(__file__).parent / "templates")


def duration(seconds: float | None) -> str:
    if not seconds:  # not stopped yet, or refused before any work
        return ""
    return spell_duration(seconds, (" s", " min", " h"), " ")


def megabytes(n: int) -> str:
    return f"{n / 1e6:,.0f} MB" if n >= 10e6 else f"{n / 1e6:.1f} MB"


def when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts)) if ts else ""


templates.env.filters["duration"] = duration
templates.env.filters["when"] = when
templates.env.filters["megabytes"] = megabytes
templates.env.globals["size_class"] = size_class
templates.env.globals["reason_alone"] = reason_alone
templates.env.globals["stage_marks"] = stage_marks
