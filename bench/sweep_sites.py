"""The sweep's fourth sample (`bench_sweep.py --sites`): documentation sites as projects
publish them, the HTML folders Sphinx makes in its themes (classic, alabaster, Read the
Docs, Furo, guzzle...), from 24 Debian packages the other samples do not use, in English,
Japanese and Brazilian Portuguese. What they met first: docutils footnotes in a
definition list, Furo's sidebar around the main content, a sidebar and a guide's list of
plugins leading the chapter order, 17-page listings, a general index as one table, a
heading quoting `<class '…'>`, image syntax shown in a listing. Fetched like the other
samples (`sweep_docs.ensure_package`); each book is a link under `sites/` in the cache to
its folder (its index.html states the chapter order)."""

from __future__ import annotations

from pathlib import Path

from sweep_docs import SweepDoc, ensure_package

# book -> (package, its HTML folder inside the package)
SITES: dict[str, tuple[str, str]] = {
    "beets": ("beets-doc", "usr/share/doc/beets/html"),
    "borgbackup": ("borgbackup-doc", "usr/share/doc/borgbackup/html"),  # guzzle
    "ceres-solver": ("ceres-solver-doc", "usr/share/doc/ceres-solver-doc/html"),
    "cython": ("cython-doc", "usr/share/doc/cython-doc/html"),  # footnotes in tables
    "debian-policy-ja": ("debian-policy-ja", "usr/share/doc/debian-policy/ja/policy.html"),
    "fish": ("fish-common", "usr/share/doc/fish"),
    "fontforge": ("fontforge-doc", "usr/share/doc/fontforge"),
    "frr": ("frr-doc", "usr/share/doc/frr/html"),
    "gammu": ("gammu-doc", "usr/share/doc/gammu/html"),  # 17-page listings
    "ghostscript": ("ghostscript-doc", "usr/share/doc/ghostscript/html"),
    "hamradio-maintguide": ("hamradio-maintguide", "usr/share/doc/hamradio-maintguide/html"),
    "kea": ("kea-doc", "usr/share/doc/kea/html"),
    "khal": ("khal-doc", "usr/share/doc/khal-doc/html"),
    "kitty": ("kitty-doc", "usr/share/doc/kitty/html"),  # Furo
    "lmod": ("lmod-doc", "usr/share/doc/lmod/html"),
    "mypy": ("mypy-doc", "usr/share/doc/mypy/html"),
    "notmuch": ("notmuch-doc", "usr/share/doc/notmuch/html"),
    "numba": ("numba-doc", "usr/share/doc/numba-doc/html"),
    "pelican": ("pelican-doc", "usr/share/doc/pelican/html"),  # Markdown in listings
    "piuparts": ("piuparts", "usr/share/doc/piuparts/html"),
    "pylint": ("pylint-doc", "usr/share/doc/pylint/html"),
    "python-attr": ("python-attr-doc", "usr/share/doc/python-attr-doc/html"),
    "python-bs4": ("python-bs4-doc", "usr/share/doc/python-bs4-doc/html"),
    "python-bs4-ptbr": ("python-bs4-doc", "usr/share/doc/python-bs4-doc/html.ptbr"),
    "python-coverage": ("python-coverage-doc", "usr/share/doc/python-coverage-doc/html"),
}


def select_sites(cache: Path) -> list[SweepDoc]:
    """The fourth sample, in table order (pages known once parsed: 0 here)."""
    folder = cache / "sites"
    folder.mkdir(parents=True, exist_ok=True)
    docs = []
    for book, (package, path) in SITES.items():
        source = ensure_package(cache, package) / path
        if not (source / "index.html").is_file():
            raise FileNotFoundError(f"{path}/index.html is not in {package}")
        target = folder / f"{package}--{book}"
        if not target.exists():
            target.symlink_to(source.resolve(), target_is_directory=True)
        docs.append(SweepDoc(package, target, 0))
    return docs
