"""Showing documents move: live bars on a terminal, one line per finished stage otherwise
(a log file or CI output gets a readable record instead of nothing until the end)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from rich.console import Console

from quire.shared.job import Job
from quire.shared.states import FINISH

if TYPE_CHECKING:
    from rich.progress import TaskID

Show = Callable[[Job], None]


def stage_amount(state: str, parts: list[str] | None, page_count: int) -> str:
    """What a stage worked through, e.g. "2415 pages", "20 chunks", "3 review batches"."""
    from quire.shared.layout import Layout

    work = [p for p in parts or [] if p != FINISH]
    if state == "parsing":
        return f"{page_count} pages" if page_count else "1 document"
    if state in ("writing", "analysing"):
        n = sum(len(Layout.part_chunks(p)) for p in work)
        if state == "analysing" and n == 0:
            return "every chunk analysed while planning"
        return f"{n} chunk{'s' * (n != 1)}"
    if state == "topic_review":
        return f"{len(work)} review batch{'es' * (len(work) != 1)}"
    if state == "verifying":
        return f"{len(work)} check{'s' * (len(work) != 1)}"
    return ""


class StageLines:
    """Prints `name: stage done (amount, seconds)` each time a document leaves a stage."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.last: dict[str, Job] = {}

    def __call__(self, s: Job) -> None:
        prev = self.last.get(s.doc_id)
        self.last[s.doc_id] = s
        if prev is None or prev.state == s.state or prev.state == "queued":
            return
        amount = stage_amount(prev.state, prev.parts, prev.page_count)
        seconds = max(0.0, s.state_entered_at - prev.state_entered_at)
        detail = ", ".join(x for x in (amount, f"{seconds:.1f} s") if x)
        self.console.print(
            f"{s.source_name}: {prev.state} done ({detail})", highlight=False, soft_wrap=True
        )


@contextlib.contextmanager
def watch(console: Console) -> Iterator[Show]:
    """A callback for jobs as they move: live bars on a terminal, lines otherwise."""
    if not console.is_terminal:
        yield StageLines(console)
        return
    # Imported here: a run writing to a log or a pipe never draws bars, and rich.progress
    # is a twentieth of a one-page `quire run`'s imports.
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[state]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        bars: dict[str, TaskID] = {}

        def show(s: Job) -> None:
            if s.doc_id not in bars:
                bars[s.doc_id] = progress.add_task(s.source_name, total=None, state=s.state)
            progress.update(bars[s.doc_id], state=s.state)

        yield show
