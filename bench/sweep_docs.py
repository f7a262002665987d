"""The sweep's documents: Debian TeX Live documentation packages the corpus does not use,
fetched with `apt-get download` and unpacked with `dpkg-deb -x` (nothing is installed),
cached between runs, and a fixed, deterministic sample of their PDFs.

Cache layout (default `~/.cache/quire-sweep`):
    debs/<package>_<version>_all.deb     what `apt-get download` fetched
    extract/<package>/usr/...            what `dpkg-deb -x` unpacked
    pages.json                           page counts of every PDF found (path -> pages)

The sample: per package, the PDFs of at least `min_pages` pages (and at most `max_pages`,
so one 2,000-page reference does not dominate the batch's time), ordered by a hash of
their path inside the package, the first `quota` of them; file names the corpus has (its
own names and the source names MANIFEST.md gives) and repeated file names or contents are
left out. The packages are then interleaved round-robin, so a `--limit` sample is spread
over all of them too. The same cache gives the same sample on every machine.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

# package -> how many PDFs of the sample come from it (fewer where it has fewer)
QUOTAS: dict[str, int] = {
    "texlive-latex-extra-doc": 70,
    "texlive-publishers-doc": 35,
    "texlive-pictures-doc": 35,
    "texlive-bibtex-extra": 25,
    "texlive-fonts-extra-doc": 20,
    "texlive-plain-generic": 15,
    "texlive-music": 15,
    "texlive-lang-french": 20,
    "texlive-lang-japanese": 20,
    "texlive-lang-german": 15,
    "texlive-lang-chinese": 15,
    "texlive-lang-other": 12,
    "texlive-lang-czechslovak": 8,
    "texlive-lang-spanish": 8,
    "texlive-lang-italian": 8,
    "texlive-lang-polish": 6,
    "texlive-lang-european": 6,
    "texlive-lang-greek": 6,
    "texlive-lang-portuguese": 5,
    "texlive-lang-korean": 5,
}
# `--fresh`: TeX Live documentation packages neither the sample nor `--beyond` takes from
# (the corpus has a document or two of some, left out by name)
FRESH_QUOTAS: dict[str, int] = {
    "texlive-pstricks-doc": 25,
    "texlive-science-doc": 25,
    "texlive-latex-recommended-doc": 25,
    "texlive-humanities-doc": 20,
    "texlive-luatex": 20,
    "texlive-metapost-doc": 15,
    "texlive-games": 12,
    "texlive-lang-cyrillic": 12,
    "texlive-lang-english": 12,
    "texlive-xetex": 10,
    "texlive-formats-extra": 8,
    "texlive-fonts-recommended-doc": 8,
    "texlive-lang-arabic": 8,
}
DEFAULT_CACHE = Path("~/.cache/quire-sweep").expanduser()


@dataclass(frozen=True)
class SweepDoc:
    package: str
    path: Path
    pages: int

    @property
    def name(self) -> str:
        return self.path.name


def ensure_package(cache: Path, package: str) -> Path:
    """`extract/<package>`, downloading the .deb and unpacking it only when missing."""
    target = cache / "extract" / package
    if target.is_dir():
        return target
    debs = cache / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    found = sorted(debs.glob(f"{package}_*.deb"))
    if not found:
        subprocess.run(["apt-get", "download", package], cwd=debs, check=True)
        found = sorted(debs.glob(f"{package}_*.deb"))
    partial = target.with_name(package + ".partial")
    partial.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["rm", "-rf", str(partial)], check=True)
    subprocess.run(["dpkg-deb", "-x", str(found[-1]), str(partial)], check=True)
    partial.rename(target)
    return target


def corpus_names(corpus: Path) -> set[str]:
    """File names the corpus has: its own, and the source files MANIFEST.md names."""
    names = {p.name for p in corpus.iterdir()} if corpus.is_dir() else set()
    manifest = corpus / "MANIFEST.md"
    if manifest.is_file():
        names |= {Path(m).name for m in re.findall(r"usr/share/\S+?\.pdf", manifest.read_text())}
    return names


def page_counts(cache: Path, paths: list[Path]) -> dict[str, int]:
    """Page count of every path (-1: does not open), cached in `pages.json` by path and size."""
    index_path = cache / "pages.json"
    known: dict[str, list[int]] = {}
    if index_path.is_file():
        known = json.loads(index_path.read_text())
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    changed = False
    out: dict[str, int] = {}
    for p in paths:
        key, size = str(p.relative_to(cache)), p.stat().st_size
        hit = known.get(key)
        if hit is None or hit[0] != size:
            try:
                with pymupdf.open(p) as doc:
                    hit = [size, doc.page_count]
            except Exception:
                hit = [size, -1]
            known[key] = hit
            changed = True
        out[key] = hit[1]
    if changed:
        index_path.write_text(json.dumps(known, indent=0, sort_keys=True))
    return out


def _order(package: str, path: Path, root: Path) -> str:
    return hashlib.sha1(f"{package}/{path.relative_to(root)}".encode()).hexdigest()


def select(
    cache: Path,
    corpus: Path,
    *,
    min_pages: int = 15,
    max_pages: int = 1000,
    packages: dict[str, int] | None = None,
) -> list[SweepDoc]:
    """The fixed sample (see the module docstring), packages interleaved."""
    return _pick(cache, packages or QUOTAS, (min_pages, max_pages), corpus_names(corpus), set())


def select_beyond(
    cache: Path, corpus: Path, *, min_pages: int = 15, max_pages: int = 400
) -> list[SweepDoc]:
    """The next PDFs of the same packages, in the same order, that the sample left out
    (two thirds of each package's quota, at least four; names and contents not in the
    sample or the corpus): documents no session has tuned on, for `--beyond`."""
    quotas = {package: max(4, quota * 2 // 3) for package, quota in QUOTAS.items()}
    return _after_sample(cache, corpus, quotas, (min_pages, max_pages))


def select_fresh(
    cache: Path, corpus: Path, *, min_pages: int = 15, max_pages: int = 400
) -> list[SweepDoc]:
    """PDFs of the TeX Live packages no other sample takes from (`FRESH_QUOTAS`; names
    and contents not in the sample or the corpus), picked as the sample is: for `--fresh`."""
    return _after_sample(cache, corpus, FRESH_QUOTAS, (min_pages, max_pages))


def _after_sample(
    cache: Path, corpus: Path, quotas: dict[str, int], pages_range: tuple[int, int]
) -> list[SweepDoc]:
    """`_pick` of `quotas` among what the sample (taken first) and the corpus leave."""
    names, contents = corpus_names(corpus), set[str]()
    _pick(cache, QUOTAS, (pages_range[0], 1000), names, contents)
    return _pick(cache, quotas, pages_range, names, contents)


def _pick(
    cache: Path,
    quotas: dict[str, int],
    pages_range: tuple[int, int],
    names: set[str],
    contents: set[str],
) -> list[SweepDoc]:
    """Per package, the first `quota` PDFs in hash order within `pages_range` whose file
    name and content (sha256) are not in `names` and `contents` yet (both grow with what
    is taken), packages interleaved."""
    per_package: list[list[SweepDoc]] = []
    for package, quota in quotas.items():
        root = ensure_package(cache, package)
        pdfs = sorted(p for p in root.rglob("*.pdf") if p.is_file() and not p.is_symlink())
        counts = page_counts(cache, pdfs)
        chosen: list[SweepDoc] = []
        for p in sorted(pdfs, key=lambda p: _order(package, p, root)):
            if len(chosen) >= quota:
                break
            pages = counts[str(p.relative_to(cache))]
            if not pages_range[0] <= pages <= pages_range[1] or p.name in names:
                continue
            digest = hashlib.sha256(p.read_bytes()).hexdigest()
            if digest in contents:
                continue
            names.add(p.name)
            contents.add(digest)
            chosen.append(SweepDoc(package, p, pages))
        per_package.append(chosen)
    return [d for group in itertools.zip_longest(*per_package) for d in group if d is not None]
