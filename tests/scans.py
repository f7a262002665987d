"""Image-only ("scanned") pages with known text, and password-protected PDFs, for the OCR,
"nothing lost silently" and password tests and for bench/bench_ocr.py.

`rasterize_pages` turns chosen pages of a born-digital PDF into pages that hold only a
grey image of themselves (no text layer, as a scanner makes them) and returns each such
page's text layer, which is then the known text OCR must find. The outline is kept.
`scan_originals` gives the text layer of the corpus's real scans before they were scanned
(tests/data/README.md); `word_recall` measures OCR against known text; `quire_without_tessdata`
runs the CLI as on a machine where only `pip install` ran.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from quire.workers.parse.pdf_open import pymupdf_module


def rasterize_pages(
    src: Path, dst: Path, pages: set[int] | None = None, *, dpi: int = 300
) -> dict[int, str]:
    """Copy `src` to `dst` with `pages` (1-based; None: all) replaced by images of
    themselves at `dpi`; returns {page: its text layer before}."""
    p = pymupdf_module()
    texts: dict[int, str] = {}
    with p.open(src) as doc, p.open() as out:
        for page in doc:
            n = page.number + 1
            if pages is not None and n not in pages:
                out.insert_pdf(doc, from_page=page.number, to_page=page.number)
                continue
            texts[n] = page.get_text()
            pix = page.get_pixmap(dpi=dpi, colorspace=p.csGRAY, alpha=False)
            image_page = out.new_page(width=page.rect.width, height=page.rect.height)
            image_page.insert_image(image_page.rect, stream=pix.tobytes("png"))
        out.set_toc(doc.get_toc())
        out.save(dst, garbage=3, deflate=True)
    return texts


SCAN_ORIGINALS_FILE = Path(__file__).parent / "data" / "scan-originals.json"


def scan_originals(name: str) -> dict[int, str]:
    """{page: its original text} of a corpus document's scanned pages."""
    pages: dict[str, str] = json.loads(SCAN_ORIGINALS_FILE.read_text())[name]
    return {int(k): v for k, v in pages.items()}


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]{3,}", text.lower())


def word_recall(known: str, found: str) -> float:
    """Share of the known words (of three letters or more, counted without order) that OCR
    found: words run together or misread are missed."""
    pool: dict[str, int] = {}
    for w in _words(found):
        pool[w] = pool.get(w, 0) + 1
    want, hit = _words(known), 0
    for w in want:
        if pool.get(w, 0):
            pool[w] -= 1
            hit += 1
    return hit / max(1, len(want))


def encrypt_pdf(src: Path, dst: Path, *, user: str, owner: str) -> Path:
    """`src` saved with AES-256 encryption; an empty `user` makes an owner-password-only
    PDF (opens without a password, permissions restricted)."""
    p = pymupdf_module()
    with p.open(src) as doc:
        doc.save(
            dst,
            encryption=p.PDF_ENCRYPT_AES_256,
            user_pw=user,
            owner_pw=owner,
            permissions=0 if not user else -1,
        )
    return dst


def quire_without_tessdata(
    cwd: Path, *args: str, env: dict[str, str] | None = None, hide: bool = True
) -> subprocess.CompletedProcess[str]:
    """The CLI with its store in `cwd` and (`hide`) Debian's trained data hidden: Tesseract
    is pointed at an empty folder, so only what pip installed can read."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("QUIRE_")}
    full |= {
        "QUIRE_STORE_URL": str(cwd / "store"),
        "QUIRE_STATE_DIR": str(cwd / "state"),
        "COLUMNS": "200",
    }
    if hide:
        (cwd / "no-tessdata").mkdir(exist_ok=True)
        full["TESSDATA_PREFIX"] = str(cwd / "no-tessdata")
    return subprocess.run(
        [sys.executable, "-m", "quire.orchestrator.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=full | (env or {}),
    )
