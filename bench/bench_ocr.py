"""OCR accuracy and speed: Quire's OCR (tesserocr) against PyMuPDF's OCR text pages.

    python3 bench/bench_ocr.py [--quick]

Born-digital pages whose text is known are rendered at 300 dpi into image-only pages
(tests/scans.py), then read back:
- English: r-intro.pdf pages (the text layer is right);
- Chinese: lshort-zh-cn.pdf pages (the text layer is right), languages chi_sim+eng;
- Persian: lshort-persian.pdf's text layer is in visual order, so Persian pages are typeset
  here from the corpus's Persian DOCX paragraphs (logical order, DejaVu Sans, shaped by
  MuPDF) and those paragraphs are the known text; languages fas+eng.
Each engine runs in a fresh single-threaded process (OMP_THREAD_LIMIT=1) per language:
- quire     parse_pdf_range with --ocr auto (render, Tesseract via tesserocr, blocks);
- pymupdf   page.get_textpage_ocr(full=True, dpi=300) (MuPDF's built-in Tesseract).
Character accuracy = 1 - Levenshtein distance / reference length, after NFKC and with
whitespace collapsed (English) or removed (Chinese, Persian: their spacing is not text).
Printed per language: accuracy, pages/s on one core and peak RSS, side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from corpus import CORPUS  # noqa: E402  (tests/corpus.py: the one definition)

DPI = 300
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")  # Debian fonts-dejavu-core


def _norm(text: str, lang: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    return "".join(text.split()) if lang != "en" else " ".join(text.split())


def accuracy(found: str, known: str, lang: str) -> float:
    from rapidfuzz.distance import Levenshtein

    ref, got = _norm(known, lang), _norm(found, lang)
    return max(0.0, 1 - Levenshtein.distance(got, ref) / max(1, len(ref)))


# --- the image-only test pages ------------------------------------------------------------


def persian_pdf(path: Path, pages: int) -> dict[int, str]:
    """Pages typeset from the Persian DOCX's paragraphs; {page: its paragraphs}."""
    import docx

    from quire.workers.parse.pdf_open import pymupdf_module

    p = pymupdf_module()
    paras = [
        t.strip()
        for t in (
            par.text
            for par in docx.Document(str(CORPUS / "debian-handbook-fa-ch03-04.docx")).paragraphs
        )
        if len(re.findall(r"[\u0600-\u06ff]", t)) > 40
    ]
    css = (
        f"@font-face {{font-family: dv; src: url({FONT_DIR / 'DejaVuSans.ttf'});}} "
        "body {font-family: dv; font-size: 12pt; direction: rtl;}"
    )
    known: dict[int, str] = {}
    with p.open() as doc:
        for n in range(pages):
            chunk = paras[4 * n : 4 * n + 4]
            page = doc.new_page()
            page.insert_htmlbox(
                p.Rect(60, 60, 540, 780), "".join(f"<p>{t}</p>" for t in chunk), css=css
            )
            known[n + 1] = " ".join(chunk)
        doc.save(path)
    return known


def build(tmp: Path, quick: bool) -> list[dict[str, Any]]:
    from scans import rasterize_pages

    n = 2 if quick else 6
    sets = []
    for lang, tess, name, first in (
        ("en", "eng", "r-intro.pdf", 20),
        ("zh", "chi_sim+eng", "lshort-zh-cn.pdf", 30),
    ):
        src = CORPUS / name
        from quire.workers.parse.pdf_open import pymupdf_module

        with pymupdf_module().open(src) as doc, pymupdf_module().open() as cut:
            cut.insert_pdf(doc, from_page=first - 1, to_page=first + n - 2)
            born = tmp / f"{lang}-born.pdf"
            cut.save(born)
        scan = tmp / f"{lang}-scan.pdf"
        sets.append(
            {
                "lang": lang,
                "tess": tess,
                "source": f"{name} p.{first}-{first + n - 1}",
                "path": str(scan),
                "known": rasterize_pages(born, scan, dpi=DPI),
            }
        )
    born = tmp / "fa-born.pdf"
    known = persian_pdf(born, max(2, n // 2))
    scan = tmp / "fa-scan.pdf"
    rasterize_pages(born, scan, dpi=DPI)
    sets.append(
        {
            "lang": "fa",
            "tess": "fas+eng",
            "source": "debian-handbook-fa paragraphs",
            "path": str(scan),
            "known": known,
        }
    )
    return sets


# --- children: each prints one JSON line --------------------------------------------------


def _child(engine: str, path: str, tess: str) -> dict[str, Any]:
    texts: dict[int, str] = {}
    if engine == "quire":
        from quire.workers.parse import OcrSettings, parse_pdf_range
        from quire.workers.parse.pdf_open import pdf_page_count

        count = pdf_page_count(Path(path))
        parse_pdf_range(Path(path), 1, 1, ocr=OcrSettings(mode="auto", lang=tess))  # warm-up
        start = time.perf_counter()
        result = parse_pdf_range(Path(path), 1, count, ocr=OcrSettings(mode="auto", lang=tess))
        seconds = time.perf_counter() - start
        for page in result.pages:
            texts[page.page] = "\n".join(ln for b in page.blocks for ln in b.lines)
    else:
        from quire.workers.parse.ocr import require_ocr
        from quire.workers.parse.pdf_open import pymupdf_module

        tessdata = str(require_ocr(tess))
        with pymupdf_module().open(path) as doc:
            count = doc.page_count
            doc[0].get_textpage_ocr(language=tess, dpi=DPI, full=True, tessdata=tessdata)
            start = time.perf_counter()
            for page in doc:
                tp = page.get_textpage_ocr(language=tess, dpi=DPI, full=True, tessdata=tessdata)
                texts[page.number + 1] = page.get_text(textpage=tp)
            seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"texts": texts, "seconds": seconds, "pages": count, "rss": rss}


def run_child(engine: str, path: str, tess: str) -> dict[str, Any]:
    env = {**os.environ, "OMP_THREAD_LIMIT": "1", "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, __file__, "--child", engine, path, tess],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    data: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    data["texts"] = {int(k): v for k, v in data["texts"].items()}
    return data


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="two pages per language")
    ap.add_argument("--child", nargs=3, metavar=("ENGINE", "PDF", "LANGS"))
    args = ap.parse_args()
    if args.child:
        print(json.dumps(_child(*args.child)))
        return
    print(f"OCR of image-only pages rendered at {DPI} dpi; one process, OMP_THREAD_LIMIT=1")
    print(
        f"{'lang':4} {'engine':8} {'pages':>5} {'char acc':>9} {'pages/s':>8} "
        f"{'s/page':>7} {'peak RSS':>9}  source"
    )
    with tempfile.TemporaryDirectory(prefix="bench-ocr-") as tmp:
        for s in build(Path(tmp), args.quick):
            for engine in ("quire", "pymupdf"):
                r = run_child(engine, s["path"], s["tess"])
                accs = [
                    accuracy(r["texts"].get(p, ""), t, s["lang"]) for p, t in s["known"].items()
                ]
                # pooled over pages: characters right / characters known
                lengths = [len(_norm(t, s["lang"])) for t in s["known"].values()]
                acc = sum(a * n for a, n in zip(accs, lengths, strict=True)) / sum(lengths)
                print(
                    f"{s['lang']:4} {engine:8} {r['pages']:5d} {acc * 100:8.1f}% "
                    f"{r['pages'] / r['seconds']:8.2f} {r['seconds'] / r['pages']:7.2f} "
                    f"{r['rss']:7.0f}MB  {s['source']} ({s['tess']})",
                    flush=True,
                )


if __name__ == "__main__":
    main()
