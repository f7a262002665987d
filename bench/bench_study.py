"""Study-material benchmark: are the offline key terms the author's, and where they belong?

    python3 bench/bench_study.py [--docs NAME ...] [--pdf PATH ...] [--big] [--phrases N]

Runs every document end to end with the offline backend (`quire.split`, Markdown only,
into a temporary folder), then measures against the book's own back-of-book index:

- index share: of the key terms attached to study sessions, how many are index terms
  (by their folded text); `top6` counts only the six a study focus names. Beside it, in
  the same run, the baseline: the tf-idf words the analysis gave before (12 per session).
- locators: of the index's page locators that resolve to a page some session holds, how
  many have their term among the key terms of a session holding that page.
- unresolved: locators whose printed label no page carries.
- seconds: reading and parsing the index (PDF lines, page labels); pages/s for the run.

Documents without an index get their sessions' key phrases printed, for reading. Default
documents: every corpus PDF with an index (r-fullrefman only with --big) and three
without (fhs-3.0, maint-guide, latex-notes-zh-cn). Peak memory at the end.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from corpus import CORPUS  # noqa: E402  (tests/corpus.py: the one definition)

import quire  # noqa: E402
from quire.shared.ir import Document, load_ir  # noqa: E402
from quire.shared.manifest import Manifest, load_manifest  # noqa: E402
from quire.workers.analysis.book_terms import (  # noqa: E402
    BookIndexData,
    index_spans,
    read_book_index,
)
from quire.workers.analysis.page_labels import page_labels  # noqa: E402
from quire.workers.analysis.session_terms import fold, shown, shown_entry  # noqa: E402
from quire.workers.analysis.terms import words  # noqa: E402
from quire.workers.boundaries.candidates import plain_text  # noqa: E402
from quire.workers.boundaries.scoring import STOP_WORDS, stem  # noqa: E402

WITH_INDEX = (
    "amsmath-user-guide.pdf",
    "beamer-user-guide.pdf",
    "gnuplot-manual.pdf",
    "siunitx-manual.pdf",
    "lshort-zh-cn.pdf",
    "lshort-persian.pdf",
    "lshort-russian.pdf",
    "r-exts.pdf",
    "r-intro.pdf",
)
BIG = "r-fullrefman.pdf"
WITHOUT_INDEX = ("fhs-3.0.pdf", "maint-guide-permissions-restricted.pdf", "latex-notes-zh-cn.pdf")
SHOWN = 6  # key terms a heuristic study focus names


@dataclass
class Row:
    name: str
    pages: int
    sessions: int
    entries: int
    terms: int  # key terms on study sessions
    in_index: int
    top: int
    top_in_index: int
    baseline: int  # tf-idf words before
    baseline_in_index: int
    locators: int  # resolvable to a page some session holds
    attached: int
    unresolved: int
    index_seconds: float
    run_seconds: float


def _baseline_terms(doc: Document, lo: int, hi: int, df: Counter[str], k: int = 12) -> list[str]:
    """The key terms the analysis gave before: tf-idf words against the elements."""
    tf: Counter[str] = Counter()
    spelling: dict[str, Counter[str]] = {}
    prose = ("heading", "paragraph", "list", "table", "caption")
    for e in doc.elements[lo : hi + 1]:
        if e.type not in prose:
            continue
        for w in words(plain_text(e)):
            if w not in STOP_WORDS:
                tf[stem(w)] += 1
                spelling.setdefault(stem(w), Counter())[w] += 1
    floor = 2 if sum(tf.values()) >= 150 else 1
    n = len(doc.elements)
    scored = [(c * (math.log((1 + n) / (1 + df[s])) + 1.0), s) for s, c in tf.items() if c >= floor]
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [spelling[s].most_common(1)[0][0] for _, s in scored[:k]]


def _index_keys(book: BookIndexData) -> set[str]:
    keys = set()
    for e in book.entries:
        for text in (e.term, e.display, e.parent or "", shown_entry(e)):
            for variant in (text, shown(text)):
                if fold(variant):
                    keys.add(fold(variant))
    return keys


def _locators(doc: Document, book: BookIndexData, manifest: Manifest) -> tuple[int, int, int]:
    """(resolvable locators, attached to a session holding the page, unresolved)."""
    labels = page_labels(doc.page_count, book.labels, doc.removed)
    terms = {c.number: {t.term for t in c.key_terms} for c in manifest.chunks}
    index_pages = set(book.pages)
    total = attached = unresolved = 0
    for e in book.entries:
        for loc in e.locators:
            pages = labels.span(loc.first, loc.last)
            if not pages:
                unresolved += 1
                continue
            holders = [
                c.number
                for c in manifest.chunks
                if any(c.page_first <= p <= c.page_last and p not in index_pages for p in pages)
            ]
            if not holders:
                continue
            total += 1
            attached += any(shown_entry(e) in terms[n] for n in holders)
    return total, attached, unresolved


def measure(path: Path, work: Path, phrases: int) -> Row | None:
    out = work / path.stem
    started = time.perf_counter()
    quire.split(path, out, output_format="markdown", backend="heuristic", force=True)
    run_seconds = time.perf_counter() - started
    doc = load_ir((out / "ir.json").read_bytes())
    manifest = load_manifest((out / "manifest.json").read_bytes())
    started = time.perf_counter()
    book = read_book_index(doc, path)
    index_seconds = time.perf_counter() - started
    study = [c for c in manifest.chunks if c.kind == "study"]
    if not book.entries:
        print(f"\n{path.name}: no index; key phrases of its study sessions")
        for c in study[:phrases]:
            print(f"  {c.number:3} {c.title[:60]!r}: {', '.join(t.term for t in c.key_terms)}")
        return None
    keys = _index_keys(book)
    pos = {e.id: i for i, e in enumerate(doc.elements)}
    df: Counter[str] = Counter()
    for e in doc.elements:
        df.update({stem(w) for w in words(plain_text(e)) if w not in STOP_WORDS})
    skip = index_spans(doc)
    row = Row(path.name, doc.page_count, len(study), len(book.entries), *([0] * 11))
    for c in study:
        row.terms += len(c.key_terms)
        row.in_index += sum(fold(t.term) in keys for t in c.key_terms)
        row.top += len(c.key_terms[:SHOWN])
        row.top_in_index += sum(fold(t.term) in keys for t in c.key_terms[:SHOWN])
        lo, hi = pos[c.first_id], pos[c.last_id]
        if any(a <= lo <= b for a, b in skip):
            continue
        base = _baseline_terms(doc, lo, hi, df)
        row.baseline += len(base)
        row.baseline_in_index += sum(fold(t) in keys for t in base)
    row.locators, row.attached, row.unresolved = _locators(doc, book, manifest)
    row.index_seconds, row.run_seconds = index_seconds, run_seconds
    return row


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:5.1f} %" if b else "    —"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", nargs="*", help="corpus file names (default: see above)")
    ap.add_argument("--pdf", nargs="*", default=[], help="more PDFs, by path")
    ap.add_argument("--big", action="store_true", help=f"also {BIG}")
    ap.add_argument("--phrases", type=int, default=8, help="sessions to print per book")
    args = ap.parse_args()
    names = args.docs or [*WITH_INDEX, *([BIG] if args.big else []), *WITHOUT_INDEX]
    paths = [CORPUS / n for n in names] + [Path(p) for p in args.pdf]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["QUIRE_STATE_DIR"] = str(Path(tmp) / "state")
        os.environ["QUIRE_STORE_URL"] = str(Path(tmp) / "store")
        for path in paths:
            row = measure(path, Path(tmp), args.phrases)
            if row:
                rows.append(row)
    print(
        f"\n{'document':38} {'pages':>5} {'sess':>4} {'entries':>7} {'terms':>6} "
        f"{'index':>8} {'top6':>8} {'before':>8} {'locators':>8} {'attached':>8} "
        f"{'unres':>5} {'idx s':>6} {'pages/s':>7}"
    )
    for r in rows:
        print(
            f"{r.name:38} {r.pages:5} {r.sessions:4} {r.entries:7} {r.terms:6} "
            f"{_pct(r.in_index, r.terms):>8} {_pct(r.top_in_index, r.top):>8} "
            f"{_pct(r.baseline_in_index, r.baseline):>8} {r.locators:8} "
            f"{_pct(r.attached, r.locators):>8} {r.unresolved:5} {r.index_seconds:6.2f} "
            f"{r.pages / r.run_seconds:7.1f}"
        )
    if rows:
        sums = {
            f: sum(getattr(r, f) for r in rows) for f in Row.__dataclass_fields__ if f != "name"
        }
        total = Row(name="all", **sums)
        print(
            f"{'all':38} {total.pages:5} {total.sessions:4} {total.entries:7} {total.terms:6} "
            f"{_pct(total.in_index, total.terms):>8} {_pct(total.top_in_index, total.top):>8} "
            f"{_pct(total.baseline_in_index, total.baseline):>8} {total.locators:8} "
            f"{_pct(total.attached, total.locators):>8} {total.unresolved:5}"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
