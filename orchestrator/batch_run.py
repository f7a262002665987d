"""Running a batch to its end and showing it: the live progress view, the final summary,
documents exported as they complete, the report written, `quire status BATCH`.

What a batch is and how far it got (records, `ProgressReader`) is `batch.py`'s; this module
drives it through the dispatcher and puts it on a console.
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from quire.orchestrator.batch import (
    BatchRecord,
    BatchReport,
    DocProgress,
    ProgressReader,
    load_batch,
    spell_duration,
)
from quire.orchestrator.consoles import text_console
from quire.orchestrator.dispatch import dispatcher_for
from quire.shared.errors import QuireError
from quire.shared.ir import describe_textless
from quire.workers.runtime import Runtime

# --- rendering -----------------------------------------------------------------------------


def _bar(fraction: float, width: int = 12) -> str:
    full = round(fraction * width)
    return "█" * full + "░" * (width - full) + f" {fraction * 100:3.0f}%"


def _duration(seconds: float | None) -> str:
    return "-" if seconds is None else spell_duration(seconds)


def _reason(d: DocProgress) -> str:
    """The failure reason without the file name our errors start with."""
    if not d.error:
        return ""
    return f"{d.error_code}: {d.error.removeprefix(f'{d.name}: ')}"


def progress_view(
    report: BatchReport, *, elapsed: float | None = None, eta: float | None = None
) -> Group:
    """Per-document state and progress, then overall pages done / total and ETA."""
    table = Table(
        "document",
        "state",
        "pages",
        "progress",
        "note",
        title=report.batch_id,
        title_justify="left",
    )
    for d in report.documents:
        style = {"complete": "green", "failed": "red"}.get(d.state, "")
        table.add_row(
            d.name,
            Text(d.state, style=style),
            str(d.pages or "?"),
            _bar(d.fraction),
            Text(_reason(d), style="red", no_wrap=True, overflow="ellipsis"),
        )
    counts = ", ".join(f"{n} {s}" for s, n in sorted(report.counts.items()))
    line = f"pages {report.pages_done:.0f}/{report.pages_total} · {counts}"
    if elapsed is not None:
        line += f" · elapsed {_duration(elapsed)}"
    if not report.finished:
        line += f" · ETA {_duration(eta) if eta is not None else '--'}"
    return Group(table, Text(line))


def summary_table(report: BatchReport) -> Table:
    """The final table: document, pages, chunks, verification, time, failure reason."""
    table = Table(
        "document",
        "state",
        "pages",
        "chunks",
        "verification",
        "time",
        "failure reason",
        title=f"batch {report.batch_id}",
        title_justify="left",
    )
    for d in report.documents:
        ver = d.verification or "-"
        table.add_row(
            d.name,
            Text(d.state, style={"complete": "green", "failed": "red"}.get(d.state, "")),
            str(d.pages or "-"),
            str(d.chunks if d.chunks is not None else "-"),
            Text(ver, style="green" if ver == "passed" else "red"),
            _duration(d.seconds),
            _reason(d),
        )
    return table


# --- running -------------------------------------------------------------------------------


class _Follower:
    """Refreshes the live view at most every `interval` seconds and exports documents'
    output folders as they complete."""

    def __init__(
        self,
        rt: Runtime,
        record: BatchRecord,
        live: Live | None,
        out_dir: Path | None,
        interval: float = 0.5,
    ) -> None:
        self.rt, self.record, self.live = rt, record, live
        self.out_dir = out_dir
        self.reader = ProgressReader(rt)
        self.exported: set[str] = set()
        self.folder_failures: dict[str, str] = {}  # out_name -> why its folder failed
        self.interval = self.wait = interval
        self.started = time.monotonic()
        self.last = 0.0
        self.report = self.reader.report(record)
        self.initial_done = self.report.pages_done

    def tick(self, force: bool = False) -> BatchReport:
        now = time.monotonic()
        if not force and now - self.last < self.wait:
            return self.report
        self.last = now
        self.report = self.reader.report(self.record)
        # a report reads every unfinished document: in a batch of thousands that takes a
        # good part of a second, so the driver waits ten times as long before the next one
        # instead of spending its time on progress
        self.wait = max(self.interval, 10 * (time.monotonic() - now))
        self._export()
        if self.live is not None:
            self.live.update(self.view())
        return self.report

    def view(self) -> Group:
        elapsed = time.monotonic() - self.started
        gained = self.report.pages_done - self.initial_done
        eta = None
        if gained > 0 and elapsed > 1:
            eta = (self.report.pages_total - self.report.pages_done) * elapsed / gained
        return progress_view(self.report, elapsed=elapsed, eta=eta)

    def _export(self) -> None:
        """Export documents as they complete; each folder is verified as written, and a
        folder that fails (or may not be written) fails its document in the report."""
        if self.out_dir is None:
            return
        from quire.orchestrator.outputs import export_document, verify_exported

        for item, d in zip(self.record.items, self.report.documents, strict=True):
            if d.state == "complete" and item.doc_id and item.out_name not in self.exported:
                folder = self.out_dir / item.out_name
                try:
                    export_document(self.rt, item.doc_id, folder)
                    report = verify_exported(folder)
                    if not report.passed:
                        self.folder_failures[item.out_name] = (
                            f"the exported folder {folder} failed verification: "
                            f"{len(report.findings)} findings"
                        )
                except QuireError as exc:
                    self.folder_failures[item.out_name] = str(exc)
                self.exported.add(item.out_name)
        if self.folder_failures:
            docs = [
                d.model_copy(
                    update={
                        "verification": "failed",
                        "error_code": "output_folder",
                        "error": self.folder_failures[i.out_name],
                    }
                )
                if i.out_name in self.folder_failures
                else d
                for i, d in zip(self.record.items, self.report.documents, strict=True)
            ]
            self.report = self.report.model_copy(update={"documents": docs, "ok": False})


def run_batch(
    rt: Runtime,
    record: BatchRecord,
    *,
    processes: int | None = None,
    console: Console | None = None,
    live: bool = True,
    poll: float = 0.5,
    timeout: float | None = None,
) -> BatchReport:
    """Drive the batch's documents until each has stopped (embedded), or poke the
    orchestrator and follow them (distributed); export as they complete; return the
    final report."""
    console = console or text_console(stderr=True)
    out_dir = Path(record.out_dir) if record.out_dir else None
    display = Live(console=console, refresh_per_second=4) if live else contextlib.nullcontext()
    with display as view:
        follower = _Follower(rt, record, view, out_dir)
        follower.tick(force=True)
        dispatcher_for(rt, processes=processes, poll=poll).drive(
            record.doc_ids(), tick=follower.tick, timeout=timeout
        )
        report = follower.tick(force=True)
    if live and not console.is_terminal:
        console.line()  # the last frame ends without a newline
    return report


def start_detached(rt: Runtime, record: BatchRecord, *, processes: int | None = None) -> str:
    """Let the batch run without this process. Distributed: poke the orchestrator. Embedded:
    start `quire batch-resume` in a new session, logging to the state folder."""
    argv = [
        sys.executable,
        "-m",
        "quire.orchestrator.cli",
        "batch-resume",
        record.batch_id,
        "--quiet",
    ]
    if processes:
        argv += ["--processes", str(processes)]
    log = rt.env.state_dir / "batches" / f"{record.batch_id}.log"
    return dispatcher_for(rt, processes=processes).run_in_background(record.doc_ids(), argv, log)


def write_report(report: BatchReport, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.model_dump_json(indent=1) + "\n", encoding="utf-8")
    return path


def finish_batch(
    rt: Runtime,
    record: BatchRecord,
    *,
    processes: int | None = None,
    report_path: Path | None = None,
    live: bool = True,
    out: Console | None = None,
    err: Console | None = None,
    timeout: float | None = None,
) -> int:
    """Run or follow the batch to its end, print the summary, write `batch-report.json`
    (to `report_path`, else into the output folder, else the working folder). Returns the
    exit code: 0 only when every document completed with verification passed."""
    out = out or text_console()
    err = err or text_console(stderr=True)
    report = run_batch(rt, record, processes=processes, console=err, live=live, timeout=timeout)
    _wide(out).print(summary_table(report))
    if report_path is None:
        report_path = (Path(record.out_dir) if record.out_dir else Path.cwd()) / "batch-report.json"
    write_report(report, report_path)
    for d in report.documents:
        if d.pages_without_text:
            err.print(f"{d.name}: {describe_textless(d.pages_without_text)}", highlight=False)
    failed = [d for d in report.documents if d.state != "complete" or d.verification != "passed"]
    err.print(
        f"batch {record.batch_id}: {len(report.documents) - len(failed)} of "
        f"{len(report.documents)} documents complete; report {report_path}",
        highlight=False,
    )
    return 0 if report.ok else 1


def show_status(rt: Runtime, batch_id: str, out: Console) -> None:
    """`quire status BATCH`: progress while it runs, the summary once it has finished."""
    record = load_batch(rt, batch_id)
    report = ProgressReader(rt).report(record)
    if report.finished:
        _wide(out).print(summary_table(report))
    else:
        _wide(out).print(progress_view(report, elapsed=time.time() - record.created_at))


def status_json(rt: Runtime, batch_id: str) -> str:
    """`quire status BATCH --json`: the batch report as it stands."""
    return ProgressReader(rt).report(load_batch(rt, batch_id)).model_dump_json(indent=1)


def _wide(console: Console) -> Console:
    """Logs and pipes get full lines: wrapped names and reasons help nobody there."""
    if console.is_terminal:
        return console
    return text_console(file=console.file, width=max(console.width, 200))
