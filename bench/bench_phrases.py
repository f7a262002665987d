"""Offline key phrases against the author's index: would the author have indexed them?

    python3 bench/bench_phrases.py --work W [--misses N]

W is a sweep's work folder (`bench_sweep.py --work W`). A book without an index gets key
phrases (`key_phrases.PhraseIndex`) as its sessions' key terms, and nothing in such a book
tells how good they are. A book with an index can: for every study session of every book
whose index Quire read (the stored `book-index.json`), the session's key phrases are
computed as if the book had none, and a phrase is a hit when the index names it (folded:
case, accents and punctuation ignored, plurals as singulars; "expansion, brace" and
"expansion" > "brace" name "brace expansion"). Beside it, in the same run, the baseline:
the session's top tf-idf single words (the analysis's terms before key phrases,
`bench_study`). An index names far from every term a student should learn, so the figures
are lower bounds; they compare rules, not books.

Prints the share of hits among the six phrases a study focus shows, overall and the median
book's, the same for the baseline, the books with the fewest hits, and the phrases most
often shown that no index names (to read).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from bench_study import SHOWN, _baseline_terms  # noqa: E402

from quire.shared.ir import Document, load_ir  # noqa: E402
from quire.shared.manifest import Manifest, load_manifest  # noqa: E402
from quire.workers.analysis.book_terms import BookIndexData, index_spans  # noqa: E402
from quire.workers.analysis.key_phrases import PhraseIndex, stemmed  # noqa: E402
from quire.workers.analysis.session_terms import fold, shown  # noqa: E402
from quire.workers.analysis.terms import words  # noqa: E402
from quire.workers.boundaries.candidates import plain_text  # noqa: E402
from quire.workers.boundaries.scoring import STOP_WORDS, stem  # noqa: E402


def index_keys(book: BookIndexData) -> set[str]:
    """Every folded way the index names a term, also with its words as singulars."""
    names: set[str] = set()
    for e in book.entries:
        term, parent = shown(e.term), shown(e.parent or "")
        names |= {term, parent}
        if "," in term:  # "expansion, brace"
            head, _, rest = term.partition(",")
            names.add(f"{rest} {head}")
        if parent:  # "expansion" > "brace"
            names |= {f"{term} {parent}", f"{parent} {term}"}
    return {k for n in names for k in (fold(n), fold(stemmed(n))) if k}


def named(term: str, keys: set[str]) -> bool:
    return fold(term) in keys or fold(stemmed(term)) in keys


@dataclass
class Row:
    name: str
    sessions: int = 0
    shown: int = 0
    hits: int = 0
    base_shown: int = 0
    base_hits: int = 0

    @property
    def share(self) -> float:
        return self.hits / self.shown if self.shown else 0.0

    @property
    def base_share(self) -> float:
        return self.base_hits / self.base_shown if self.base_shown else 0.0


def measure(
    doc: Document, name: str, manifest: Manifest, book: BookIndexData, misses: Counter[str]
) -> Row:
    """The book's row; the shown phrases its index does not name are counted in `misses`."""
    keys = index_keys(book)
    skip = index_spans(doc)
    pos = {e.id: i for i, e in enumerate(doc.elements)}
    phrases = PhraseIndex.of(doc.elements)
    df: Counter[str] = Counter()
    for e in doc.elements:
        df.update({stem(w) for w in words(plain_text(e)) if w not in STOP_WORDS})
    row = Row(name)
    for c in manifest.chunks:
        lo, hi = pos[c.first_id], pos[c.last_id]
        if c.kind != "study" or any(a <= lo <= b for a, b in skip):
            continue
        row.sessions += 1
        top = [t.term for t in phrases.top(lo, hi)[:SHOWN]]
        row.shown += len(top)
        row.hits += sum(named(t, keys) for t in top)
        misses.update(t for t in top if not named(t, keys))
        base = _baseline_terms(doc, lo, hi, df, SHOWN)
        row.base_shown += len(base)
        row.base_hits += sum(named(t, keys) for t in base)
    return row


def books(work: Path) -> list[tuple[Path, Manifest, BookIndexData]]:
    """(output folder, manifest, index) of every book of the sweep whose index Quire read."""
    out: dict[str, tuple[Path, Manifest]] = {}
    for folder in sorted((work / "out").iterdir()):
        if (folder / "manifest.json").exists():
            manifest = load_manifest((folder / "manifest.json").read_bytes())
            out[manifest.doc_id] = (folder, manifest)
    found = []
    for stored in sorted((work / "store" / "docs").glob("*/work/book-index/*.json")):
        doc_id = stored.parts[-4]
        data = BookIndexData.model_validate(json.loads(stored.read_bytes()))
        if doc_id in out and len(data.entries) >= 20:
            found.append((*out[doc_id], data))
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, required=True, help="a sweep's work folder")
    ap.add_argument("--misses", type=int, default=40, help="unnamed phrases to print")
    args = ap.parse_args()
    rows = []
    misses: Counter[str] = Counter()
    for folder, manifest, book in books(args.work):
        doc = load_ir((folder / "ir.json").read_bytes())
        rows.append(measure(doc, folder.name, manifest, book, misses))
    rows = [r for r in rows if r.shown]
    shown_total, hits = sum(r.shown for r in rows), sum(r.hits for r in rows)
    base_total, base_hits = sum(r.base_shown for r in rows), sum(r.base_hits for r in rows)
    print(f"books with an index: {len(rows)}, study sessions {sum(r.sessions for r in rows)}")
    if not rows:  # e.g. an HTML sample: Quire reads the indexes of PDFs
        return
    print(
        f"key phrases shown that the index names: {hits}/{shown_total} "
        f"({hits / max(shown_total, 1):.1%}); median book "
        f"{statistics.median(r.share for r in rows):.1%}"
    )
    print(
        f"baseline (tf-idf words), same run: {base_hits}/{base_total} "
        f"({base_hits / max(base_total, 1):.1%}); median book "
        f"{statistics.median(r.base_share for r in rows):.1%}"
    )
    print("fewest hits:")
    for r in sorted(rows, key=lambda r: r.share)[:10]:
        print(f"  {r.share:6.1%} (baseline {r.base_share:6.1%}) {r.name}")
    print("shown most often, named by no index:")
    print("  " + "; ".join(f"{t} ({n})" for t, n in misses.most_common(args.misses)))


if __name__ == "__main__":
    main()
