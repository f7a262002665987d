"""Sweep: hundreds of real documents Quire was never tuned on, through one `quire batch`.

    python3 bench/bench_sweep.py [--limit N] [--cache DIR] [--work DIR] [--table FILE]
                                 [--max-doc-pages 1000] [--run-sample K]
                                 [--other | --converted | --sites | --manuals | --languages |
                                  --debian | --beyond | --fresh | --folder DIR]
                                 [--plan-only --work DIR [--docs NAME ...]]

Documents: a fixed sample of at least 300 PDFs of 15 pages or more from Debian TeX Live
documentation packages the corpus does not use (bench/sweep_docs.py: fetched with
`apt-get download` + `dpkg-deb -x` into the cache when missing, nothing installed).
Documents over --max-doc-pages are left out of the sample (default 1,000 pages: the five
longer ones would take a third of the batch's time on their own). --limit N takes the
first N of the sample, which interleaves the packages.

They go through Quire in the default offline configuration as ONE `quire batch`
subprocess (Markdown output, heuristic backend, its own QUIRE_STATE_DIR and
QUIRE_STORE_URL under the work folder, JSON logs), while the process tree's resident
memory is sampled. --run-sample K also runs the first K documents one by one through
`quire run`. Then, per document (bench/sweep_metrics.py): completed and verified, or the
failure code; the plan invariants beside the naive outline splitter; study sessions
holding no heading (titled by their text: what a document without an outline, whose
chapter starts are not counted, shows of its headings); running-header lines left in the
Markdown, and page numbers (a page's own number on its lowest line or top row,
where five pages agree on the numbering) left as a line of that page; line-break hyphens
left against how many there were. The table goes
to --table (TSV; default WORK/sweep.tsv); the summary, failures by code, tracebacks and
the worst ten documents on each metric are printed at the end.

--other sweeps the second sample instead (bench/sweep_other.py: 30 books made by DocBook,
Publican, Sphinx, doxygen, Texinfo and others, as PDF, EPUB and HTML folders, up to 2,000
pages): the same batch and figures, the source-line figures (headers, page numbers,
hyphens, accents) for its PDFs only.

--converted sweeps the third sample (bench/sweep_converted.py: 13 Word documents that pandoc
makes of Debian's HTML and reStructuredText manuals in six languages; needs pandoc).

--sites sweeps the fourth sample (bench/sweep_sites.py: 25 documentation sites, the HTML
folders Sphinx makes in its themes, in four languages).

--manuals sweeps the fifth sample (bench/sweep_manuals.py: 21 GNU and DocBook manuals as
Texinfo and DocBook PDFs, single HTML files and HTML folders, up to 1,169 pages a folder).

--languages sweeps the sixth sample (bench/sweep_languages.py: 12 manuals of programming
languages and mathematical systems: Haskell, PARI/GP, GAP, gnuplot, Bash, KiCad; PDFs with
and without an outline, HTML folders and files).

--debian sweeps the seventh sample (bench/sweep_debian.py: 37 PDFs of 18 Debian documentation
packages outside TeX Live, made by Texinfo, ReportLab, Prawn, Ghostscript, doxygen, Sphinx
and xdvipdfmx, up to 1,151 pages).

--beyond sweeps the PDFs of the same TeX Live packages that the sample leaves out, next in
its order (190 documents, 9,318 pages; `sweep_docs.select_beyond`): books no change was
tuned on, to meet before they join the sample.

--fresh sweeps 195 PDFs (9,935 pages) of 13 TeX Live packages no other sample takes from
(`sweep_docs.select_fresh`: PSTricks, science, humanities, LuaTeX, MetaPost, games,
Cyrillic, Arabic...): a sample no change had been tuned on when it joined.

--folder DIR sweeps the books in a folder of one's own instead (PDF, EPUB, DOCX, HTML files
and HTML folders; "<package>--<name>" names the package), for a new sample before it joins
sweep_other.py.

--plan-only runs no batch: it plans the documents again from their IRs (a previous run's
WORK/out, else one parse cached in WORK/ir) and prints the plan figures per document and
in total, in seconds (bench/sweep_replan.py); --docs keeps the documents whose file name
contains one of the given strings. The loop for a planning change.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]

from corpus import CORPUS  # noqa: E402  (tests/corpus.py: the one definition)
from fault_stack import descendants, rss_kib  # noqa: E402
from sweep_converted import select_converted  # noqa: E402
from sweep_debian import select_debian  # noqa: E402
from sweep_docs import DEFAULT_CACHE, SweepDoc, select, select_beyond, select_fresh  # noqa: E402
from sweep_languages import select_languages  # noqa: E402
from sweep_manuals import select_manuals  # noqa: E402
from sweep_metrics import (  # noqa: E402
    accents_apart,
    body_elements,
    body_segments,
    folios,
    folios_left,
    header_keys,
    header_lines_left,
    hyphen_breaks,
    hyphens_left,
    index_terms_misread,
    plan_figures,
    print_plan_totals,
    read_source,
)
from sweep_other import select_other  # noqa: E402
from sweep_sites import select_sites  # noqa: E402

from quire.shared.ir import load_ir  # noqa: E402
from quire.shared.manifest import load_manifest  # noqa: E402
from quire.workers.parse.compressed import inner_name, unpacked  # noqa: E402

UNPACK_LIMIT = 2**31  # a sweep book's inside, read back for the source-line figures

ACCEPTED_FAILURES = {"encrypted", "corrupt", "empty", "too_large"}


@dataclass
class Row:
    """One document's line of the table."""

    package: str
    name: str
    pages: int
    state: str = "missing"
    error_code: str = ""
    verified: bool = False
    seconds: float = 0.0
    study: int = 0
    reference: int = 0
    share_5_13: float | None = None
    under_5: int = 0
    largest: float = 0
    chapters: int = 0
    honoured: int = 0
    naive_honoured: int = 0
    oracle_honoured: int = 0
    held: int = 0
    headless: int = 0  # study sessions holding no heading: titled by their text
    outline: bool = False  # the document has an outline (chapter starts are counted)
    header_keys: int = 0
    header_left: int = 0
    folios: int = 0  # pages whose number the source prints on its own line
    folios_left: int = 0  # ... still a line of the Markdown
    hyphen_breaks: int = 0
    hyphens_left: int = 0
    accents_source: int = 0
    accents_left: int = 0
    index_terms: int = 0  # sessions' key terms read from the author's index
    index_terms_misread: int = 0
    examples: list[str] = field(default_factory=list)  # header lines left, a few
    read_seconds: float = 0.0  # bare get_text("dict") over the source (the baseline)


# --- running the batch -------------------------------------------------------------------


class TreeMemory(threading.Thread):
    """Samples the summed RSS of a process and its descendants every 0.5 s."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak_kib, self.done = pid, 0, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.5):
            total = sum(rss_kib(p) for p in [self.pid, *descendants(self.pid)])
            self.peak_kib = max(self.peak_kib, total)


def run_batch(docs: list[SweepDoc], work: Path) -> tuple[float, float, Path]:
    """Run one `quire batch` over `docs`; (seconds, peak tree RSS MB, report path)."""
    env = {
        **os.environ,
        "QUIRE_STATE_DIR": str(work / "state"),
        "QUIRE_STORE_URL": str(work / "store"),
        "QUIRE_LOG_FORMAT": "json",
        "QUIRE_REVIEW_BACKEND": "heuristic",
        "PYTHONPATH": str(ROOT),
    }
    report = work / "batch-report.json"
    cmd = [sys.executable, "-m", "quire.orchestrator.cli", "batch"]
    cmd += [str(d.path) for d in docs]
    cmd += ["--out", str(work / "out"), "--report", str(report), "--output-format", "markdown"]
    with (work / "batch.stdout").open("wb") as out, (work / "batch.stderr").open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err, cwd=work)
        mem = TreeMemory(proc.pid)
        mem.start()
        proc.wait()
        seconds = time.perf_counter() - start
        mem.done.set()
        mem.join()
    return seconds, mem.peak_kib / 1024, report


def run_one_by_one(docs: list[SweepDoc], work: Path) -> list[tuple[str, int, float]]:
    """`quire run` on each document in its own process: (name, exit code, seconds)."""
    out: list[tuple[str, int, float]] = []
    for d in docs:
        folder = work / "runs" / d.path.stem
        env = {
            **os.environ,
            "QUIRE_STATE_DIR": str(folder / "state"),
            "QUIRE_STORE_URL": str(folder / "store"),
            "PYTHONPATH": str(ROOT),
        }
        cmd = [sys.executable, "-m", "quire.orchestrator.cli", "run", "--input", str(d.path)]
        cmd += ["--out", str(folder / "out")]
        start = time.perf_counter()
        rc = subprocess.run(cmd, env=env, capture_output=True, cwd=work).returncode
        out.append((d.name, rc, time.perf_counter() - start))
    return out


def tracebacks(stderr: Path) -> list[str]:
    """Exceptions the batch logged (JSON log lines with an `exception` field)."""
    found: list[str] = []
    for line in stderr.read_text(errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            if line.startswith("Traceback"):
                found.append(line)
            continue
        if isinstance(rec, dict) and rec.get("exception"):
            found.append(f"{rec.get('message', '')}\n{rec['exception']}")
    return found


# --- measuring ---------------------------------------------------------------------------


def measure_document(row: Row, doc: SweepDoc, out: Path) -> None:
    """Fill the plan, header and hyphen figures of a completed document's row."""
    ir = load_ir((out / "ir.json").read_bytes())
    manifest = load_manifest((out / "manifest.json").read_bytes())
    if any(c.kind == "study" for c in manifest.chunks):
        p = plan_figures(ir, manifest)
        row.study, row.reference, row.share_5_13 = p.study, p.reference, p.share_5_13
        row.under_5, row.largest = p.under_5, p.largest
        row.chapters, row.honoured, row.naive_honoured = p.chapters, p.honoured, p.naive_honoured
        row.oracle_honoured, row.held = p.oracle_honoured, p.held
    heads = {e.id for e in ir.elements if e.type == "heading"}
    row.headless = sum(
        1 for c in manifest.chunks if c.kind == "study" and not heads.intersection(c.element_ids)
    )
    row.outline = bool(ir.outline)
    plan = json.loads((out / "plan.json").read_bytes())
    terms = [t["term"] for c in plan["chunks"] for t in c["key_terms"] if t["source"] == "index"]
    row.index_terms, row.index_terms_misread = len(terms), index_terms_misread(terms)
    row.pages = row.pages or ir.page_count  # an HTML or EPUB book's, once parsed
    if Path(own_name(doc.path)).suffix.lower() != ".pdf":
        return  # the figures below read the source PDF's lines
    start = time.perf_counter()
    if inner_name(doc.path.name):  # "manual.pdf.gz"
        with unpacked(doc.path, UNPACK_LIMIT) as inside:
            source = read_source(inside)
    else:
        source = read_source(doc.path)
    row.read_seconds = round(time.perf_counter() - start, 3)
    keys = header_keys(source.tops)
    pages = {e.id: range(e.page_first, e.page_last + 1) for e in ir.elements}
    study_lines = [
        (ln, pages.get(eid, range(1, ir.page_count + 1)))
        for eid, t in body_elements(out, manifest, study_only=True)
        for ln in t.split("\n")
    ]
    left = header_lines_left(study_lines, keys)
    row.header_keys, row.header_left, row.examples = len(keys), len(left), left[:3]
    numbers = folios(source.tops, source.bottoms)
    row.folios, row.folios_left = len(numbers), folios_left(study_lines, numbers)
    h = hyphen_breaks(source.blocks)
    row.hyphen_breaks = sum(h.breaks.values())
    body = "\n".join(body_segments(out, manifest, False))
    row.hyphens_left = hyphens_left(h, body)
    row.accents_source = sum(accents_apart(ln) for lines in source.blocks for ln in lines)
    row.accents_left = accents_apart(body)


def own_name(path: Path) -> str:
    """The document's file name, inside a compressed file ("manual.pdf.gz" -> "manual.pdf")."""
    return inner_name(path.name) or path.name


def collect(docs: list[SweepDoc], report_path: Path, work: Path) -> list[Row]:
    report = json.loads(report_path.read_text()) if report_path.exists() else {"documents": []}
    by_origin = {str(Path(d["origin"]).resolve()): d for d in report["documents"]}
    rows: list[Row] = []
    for doc in docs:
        row = Row(doc.package, doc.name, doc.pages)
        got = by_origin.get(str(doc.path.resolve()))
        if got is not None:
            row.state = got["state"]
            row.error_code = got.get("error_code") or ""
            row.verified = got.get("verification") == "passed"
            row.seconds = got.get("seconds") or 0.0
            # named as the document (inside a compressed file); the sample's names are unique
            folder = work / "out" / Path(own_name(doc.path)).stem
            if row.state == "complete" and folder.is_dir():
                try:
                    measure_document(row, doc, folder)
                except Exception as exc:  # a metric bug must not hide the other documents
                    row.examples = [f"metrics failed: {type(exc).__name__}: {exc}"]
        rows.append(row)
    return rows


# --- printing ----------------------------------------------------------------------------


def from_folder(folder: Path) -> list[SweepDoc]:
    """The books in `folder`, by name: a PDF with its page count (0 for the other formats,
    known once parsed); "<package>--<name>" names the package."""
    import pymupdf

    docs = []
    for path in sorted(folder.iterdir()):
        pages = 0
        if path.suffix.lower() == ".pdf":
            with pymupdf.open(path) as pdf:
                pages = pdf.page_count
        elif Path(own_name(path)).suffix.lower() == ".pdf":
            with unpacked(path, UNPACK_LIMIT) as inside, pymupdf.open(inside) as pdf:
                pages = pdf.page_count
        package = path.name.split("--", 1)[0] if "--" in path.name else folder.name
        docs.append(SweepDoc(package, path, pages))
    return docs


def write_table(rows: list[Row], path: Path) -> None:
    cols = [k for k in asdict(rows[0]) if k != "examples"] + ["examples"]
    lines = ["\t".join(cols)]
    for r in rows:
        d = asdict(r)
        d["examples"] = " | ".join(" ".join(x.split())[:100] for x in r.examples)
        lines.append("\t".join("" if d[c] is None else str(d[c]) for c in cols))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _worst(
    rows: list[Row], label: str, key: Callable[[Row], Any], show: Callable[[Row], object]
) -> None:
    print(f"\nworst ten: {label}")
    for r in sorted(rows, key=key)[:10]:
        print(f"  {r.package.removeprefix('texlive-'):<16} {r.name[:44]:<46}{show(r)}")


def summary(rows: list[Row], seconds: float, peak_mb: float, traces: list[str]) -> None:
    done = [r for r in rows if r.state == "complete"]
    verified = [r for r in done if r.verified]
    failed = Counter(r.error_code or r.state for r in rows if r.state != "complete")
    pages = sum(r.pages for r in rows)
    print(f"\ndocuments {len(rows)}, pages {pages}")
    print(f"completed {len(done)}, verified {len(verified)}")
    bad = sum(n for c, n in failed.items() if c not in ACCEPTED_FAILURES)
    print(f"failed by code: {dict(failed) or 'none'} (not input-caused: {bad})")
    print(f"tracebacks logged: {len(traces)}")
    unmeasured = [r for r in done if r.examples[:1] and r.examples[0].startswith("metrics failed")]
    if unmeasured:
        print(f"metrics failed on {len(unmeasured)} documents: {unmeasured[0].examples[0]}")
    for t in Counter(t.strip().splitlines()[-1] for t in traces).most_common(10):
        print(f"  {t[1]}x {t[0][:150]}")
    print_plan_totals(done)
    bare = [r for r in done if not r.outline]
    print(
        f"study sessions holding no heading (titled by their text): "
        f"{sum(r.headless for r in done)} of {sum(r.study for r in done)} in "
        f"{sum(r.headless > 0 for r in done)} documents; without an outline "
        f"{sum(r.headless for r in bare)} of {sum(r.study for r in bare)} ({len(bare)} documents)"
    )
    print(
        f"running-header lines left: {sum(r.header_left for r in done)} in "
        f"{sum(r.header_left > 0 for r in done)} documents"
    )
    fl = sum(r.folios_left for r in done)
    print(
        f"page-number lines left: {fl} of {sum(r.folios for r in done)} printed on their own "
        f"line ({sum(r.folios_left > 0 for r in done)} documents)"
    )
    hb, hl = sum(r.hyphen_breaks for r in done), sum(r.hyphens_left for r in done)
    print(
        f"line-break hyphens (joined word elsewhere in the document): {hb}, left hyphenated "
        f"{hl} ({hl / max(hb, 1):.1%}; cut by {1 - hl / max(hb, 1):.1%}) in "
        f"{sum(r.hyphens_left > 0 for r in done)} documents"
    )
    aa, al = sum(r.accents_source for r in done), sum(r.accents_left for r in done)
    print(
        f"accents drawn apart from their letter: {aa} in the source lines "
        f"({sum(r.accents_source > 0 for r in done)} documents), {al} left in the Markdown "
        f"({sum(r.accents_left > 0 for r in done)} documents)"
    )
    it, im = sum(r.index_terms for r in done), sum(r.index_terms_misread for r in done)
    print(
        f"key terms from the author's index: {it} in {sum(r.index_terms > 0 for r in done)} "
        f"documents; misread (page numbers, leaders or accents left in them) {im} "
        f"({im / max(it, 1):.1%}) in {sum(r.index_terms_misread > 0 for r in done)} documents"
    )
    print(
        f"batch: {seconds:.0f} s, {pages / max(seconds, 1e-9):.1f} pages/s, "
        f"peak RSS of the process tree {peak_mb:.0f} MB"
    )
    read = sum(r.read_seconds for r in done)
    read_pages = sum(r.pages for r in done if r.read_seconds)
    print(
        f"baseline, same run: bare PyMuPDF get_text('dict') over the completed documents, "
        f"one process: {read_pages / max(read, 1e-9):.1f} pages/s"
    )


def worst_lists(rows: list[Row]) -> None:
    done = [r for r in rows if r.state == "complete"]
    _worst(
        done,
        "running-header lines left",
        lambda r: -r.header_left,
        lambda r: f"{r.header_left}  {(r.examples or [''])[0][:60]}",
    )
    _worst(
        done,
        "page-number lines left",
        lambda r: -r.folios_left,
        lambda r: f"{r.folios_left}/{r.folios}",
    )
    _worst(
        done,
        "line-break hyphens left",
        lambda r: -r.hyphens_left,
        lambda r: f"{r.hyphens_left}/{r.hyphen_breaks}",
    )
    _worst(
        done,
        "index key terms misread",
        lambda r: -r.index_terms_misread,
        lambda r: f"{r.index_terms_misread}/{r.index_terms}",
    )
    shared = [r for r in done if r.share_5_13 is not None]
    _worst(
        shared,
        "share of study sessions 5-13 pages",
        lambda r: r.share_5_13,
        lambda r: f"{r.share_5_13:.0%} of {r.study}",
    )
    _worst(done, "study sessions under 5 pages", lambda r: -r.under_5, lambda r: r.under_5)
    _worst(
        done,
        "study sessions holding no heading",
        lambda r: -r.headless,
        lambda r: f"{r.headless}/{r.study}{'' if r.outline else ' (no outline)'}",
    )
    _worst(done, "largest study session", lambda r: -r.largest, lambda r: f"{r.largest:g} pp")
    _worst(
        [r for r in done if r.chapters],
        "chapter starts, against the naive splitter",
        lambda r: (r.honoured - r.naive_honoured, r.honoured / r.chapters),
        lambda r: f"{r.honoured}/{r.chapters} (naive {r.naive_honoured})",
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--work", type=Path, help="batch folder (default: a temporary one)")
    ap.add_argument("--table", type=Path, help="per-document TSV (default WORK/sweep.tsv)")
    ap.add_argument("--limit", type=int, help="only the first N documents of the sample")
    ap.add_argument("--max-doc-pages", type=int, default=1000)
    ap.add_argument("--run-sample", type=int, default=0, help="also `quire run` K documents")
    ap.add_argument("--plan-only", action="store_true", help="plan again from IRs, no batch")
    ap.add_argument("--docs", nargs="*", help="only documents whose file name contains one")
    ap.add_argument("--other", action="store_true", help="the second sample (sweep_other.py)")
    ap.add_argument("--converted", action="store_true", help="the third sample (pandoc DOCX)")
    ap.add_argument("--sites", action="store_true", help="the fourth sample (Sphinx sites)")
    ap.add_argument("--manuals", action="store_true", help="the fifth sample (GNU, DocBook)")
    ap.add_argument("--languages", action="store_true", help="the sixth sample (languages)")
    ap.add_argument("--debian", action="store_true", help="the seventh sample (Debian's PDFs)")
    ap.add_argument("--beyond", action="store_true", help="the sample's packages' next PDFs")
    ap.add_argument("--fresh", action="store_true", help="PDFs of packages no sample uses")
    ap.add_argument("--folder", type=Path, help="the books in this folder instead")
    args = ap.parse_args()
    if args.folder:
        docs = from_folder(args.folder)
    elif args.other:
        docs = select_other(args.cache.expanduser())
    elif args.converted:
        docs = select_converted(args.cache.expanduser())
    elif args.sites:
        docs = select_sites(args.cache.expanduser())
    elif args.manuals:
        docs = select_manuals(args.cache.expanduser())
    elif args.languages:
        docs = select_languages(args.cache.expanduser())
    elif args.debian:
        docs = select_debian(args.cache.expanduser())
    else:
        if not (CORPUS / "MANIFEST.md").is_file():
            # the sample leaves out the corpus's documents: without it, it is another one
            sys.exit(f"no corpus at {CORPUS}: the sample excludes its documents (see README)")
        if args.beyond:
            docs = select_beyond(args.cache.expanduser(), CORPUS)
        elif args.fresh:
            docs = select_fresh(args.cache.expanduser(), CORPUS)
        else:
            docs = select(args.cache.expanduser(), CORPUS, max_pages=args.max_doc_pages)
    docs = docs[: args.limit] if args.limit else docs
    if args.docs:
        docs = [d for d in docs if any(n in d.name for n in args.docs)]
    work = args.work or Path(tempfile.mkdtemp(prefix="quire-sweep-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.plan_only:
        from sweep_replan import replan_all
        from sweep_replan import report as print_replanned

        print_replanned(replan_all(docs, work))
        return
    print(f"{len(docs)} documents, {sum(d.pages for d in docs)} pages; work folder {work}")
    seconds, peak, report = run_batch(docs, work)
    rows = collect(docs, report, work)
    table = args.table or work / "sweep.tsv"
    write_table(rows, table)
    traces = tracebacks(work / "batch.stderr")
    worst_lists(rows)
    if args.run_sample:
        print("\nquire run, one by one:")
        for name, rc, secs in run_one_by_one(docs[: args.run_sample], work):
            print(f"  {name:<46} exit {rc}  {secs:.1f} s")
    summary(rows, seconds, peak, traces)
    print(f"per-document table: {table}")


if __name__ == "__main__":
    main()
