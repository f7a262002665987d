"""Writer and verifier throughput on real documents.

    python3 bench/bench_write_verify.py [--dpi 36] [--docs r-exts.pdf r-intro.pdf]

For each document (simple IR: one element per PyMuPDF text block; a plan cutting every ~8
pages) it reports:
- writer chunks/s for Markdown and for PDF (overlap 1, cold source cache);
- render-compare pages/s (output pages checked) at the chosen DPI, next to bare PyMuPDF
  rendering of the same two page sets (every output page, every distinct source page) in
  the same run, and their ratio (target: render-compare within 1.3x of bare rendering);
- the whole `verify_output` (content checks + render-compare) wall time.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pymupdf

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from corpus import CORPUS  # noqa: E402  (tests/corpus.py: the one definition)
from writefix import outline_titles, plan_every, simple_pdf_ir  # noqa: E402

from quire.shared.ir import dump_ir  # noqa: E402
from quire.shared.manifest import OutputFormat, load_manifest  # noqa: E402
from quire.workers.verify import plan_render_batches, run_render_batch, verify_output  # noqa: E402
from quire.workers.verify.render import DEFAULT_BATCH, render_page  # noqa: E402
from quire.workers.write import save_files, write_all  # noqa: E402
from quire.workers.write.pdf import clear_source_cache  # noqa: E402

T = TypeVar("T")


def _timed(fn: Callable[[], T], repeat: int = 1) -> tuple[float, T]:
    """Best wall time of `repeat` runs, and the last result."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def bench(name: str, dpi: int, batch_size: int, repeat: int) -> None:
    source = CORPUS / name
    doc = simple_pdf_ir(source)
    plan = plan_every(doc, 8, outline_titles(source))
    n = len(plan.chunks)

    def write(formats: set[OutputFormat]) -> dict[str, bytes]:
        clear_source_cache()
        return write_all(doc, plan, formats=formats, source_pdf=source, images={}, overlap_pages=1)

    t_md, _ = _timed(lambda: write({"markdown"}), repeat)
    t_pdf, pdf_files = _timed(lambda: write({"pdf"}), repeat)
    pdf_bytes = sum(len(v) for k, v in pdf_files.items() if k.endswith(".pdf"))

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        files = write({"markdown", "pdf"})
        files["ir.json"] = dump_ir(doc)
        save_files(out, files)
        manifest = load_manifest(files["manifest.json"])
        batches = plan_render_batches(manifest, batch_size)
        pages = sum(len(b.pages) for b in batches)

        def compare() -> int:
            return sum(len(run_render_batch(out, source, b, dpi=dpi)) for b in batches)

        def bare() -> None:  # the same renders, without comparing: the floor
            with pymupdf.open(source) as src:
                for b in batches:
                    opened = {c: pymupdf.open(out / f) for c, f in b.chunk_pdfs.items()}
                    for p in sorted({p for _, _, p in b.pages}):
                        render_page(src[p - 1], dpi)
                    for c, i, _ in b.pages:
                        render_page(opened[c][i], dpi)
                    for d in opened.values():
                        d.close()

        # interleaved, best of `repeat` each: other load on the machine hits both alike
        t_bare = t_cmp = float("inf")
        bad = 0
        for _ in range(max(1, repeat)):
            t_bare = min(t_bare, _timed(bare)[0])
            t, bad = _timed(compare)
            t_cmp = min(t_cmp, t)
        t_all, report = _timed(
            lambda: verify_output(out, source_pdf=source, dpi=dpi, batch_size=batch_size), 1
        )
        source_renders = sum(len({p for _, _, p in b.pages}) for b in batches)

    print(f"\n{name}: {doc.page_count} pages, {len(doc.elements)} elements, {n} chunks")
    print(f"  write markdown : {n / t_md:8.1f} chunks/s ({t_md:.2f} s)")
    print(
        f"  write pdf      : {n / t_pdf:8.1f} chunks/s ({t_pdf:.2f} s; {pdf_bytes / 1e6:.1f} MB "
        f"of chunk PDFs vs {source.stat().st_size / 1e6:.1f} MB source)"
    )
    print(
        f"  bare rendering : {pages / t_bare:8.1f} output pages/s ({t_bare:.2f} s for "
        f"{pages} output + {source_renders} source renders at {dpi} dpi)"
    )
    print(
        f"  render-compare : {pages / t_cmp:8.1f} output pages/s ({t_cmp:.2f} s, "
        f"{bad} mismatches) = {t_cmp / t_bare:.2f}x bare rendering"
    )
    print(
        f"  verify_output  : {t_all:.2f} s in all, passed={report.passed}, checked={report.checked}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dpi", type=int, default=36)
    ap.add_argument("--batch-size", type=int, default=DEFAULT_BATCH)
    ap.add_argument("--repeat", type=int, default=5, help="best of N timings")
    ap.add_argument("--docs", nargs="+", default=["r-exts.pdf", "r-intro.pdf"])
    args = ap.parse_args()
    print(f"PyMuPDF {pymupdf.VersionBind}, dpi {args.dpi}, batch {args.batch_size}")
    for name in args.docs:
        bench(name, args.dpi, args.batch_size, args.repeat)


if __name__ == "__main__":
    main()
