"""Tesseract OCR of one page image: paragraphs of text lines with positions and confidences.

The engine is libtesseract in-process through tesserocr, with the trained data of Debian's
`tesseract-ocr-<lang>` packages. We chose it over PyMuPDF's `get_textpage_ocr` (MuPDF's
built-in Tesseract) because it gives what the IR records and the parser needs: a confidence
per word, Tesseract's own paragraph and line layout, row heights (for heading sizes), and
an engine that stays loaded between pages (PyMuPDF loads the trained data for every page).

`recognize` is pure apart from the engine: grey pixels in, `OcrText` out (pixel
coordinates). Where Tesseract or a language is missing, `require_ocr` names the package.
"""

from __future__ import annotations

import os
import re
import statistics
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from quire.shared.errors import OcrUnavailableError

# Quire runs one page per process at a time and scales over processes; Tesseract's OpenMP
# threads would only compete with them (and OpenMP thread pools do not survive fork).
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

# Where Debian (and most distributions) put the trained data; TESSDATA_PREFIX overrides.
TESSDATA_DIRS = (
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
)
INSTALL_HINT = "apt-get install tesseract-ocr tesseract-ocr-eng"
# A line whose words all score below this is speckle or a figure's texture, not text.
MIN_LINE_CONFIDENCE = 40.0


def tessdata_dir() -> Path | None:
    """The folder of Tesseract's `*.traineddata` files, or None when there is none."""
    env = os.environ.get("TESSDATA_PREFIX")
    candidates = [env] if env else list(TESSDATA_DIRS)
    for c in candidates:
        path = Path(c)
        if path.is_dir() and any(path.glob("*.traineddata")):
            return path
    return None


def package_for(lang: str) -> str:
    """The Debian package holding a language's trained data: chi_sim -> tesseract-ocr-chi-sim."""
    return "tesseract-ocr-" + lang.replace("_", "-")


def require_ocr(lang: str) -> Path:
    """The tessdata folder, after checking that the engine and every language of `lang`
    ("eng+fas") are installed; OcrUnavailableError naming what to install otherwise."""
    try:
        import tesserocr  # noqa: F401
    except ImportError:
        raise OcrUnavailableError(
            "OCR needs the tesserocr package: pip install tesserocr (or run with --ocr off)"
        ) from None
    folder = tessdata_dir()
    if folder is None:
        where = os.environ.get("TESSDATA_PREFIX") or " or ".join(TESSDATA_DIRS[:1])
        raise OcrUnavailableError(
            f"Tesseract is not installed (no trained data in {where}): {INSTALL_HINT} "
            "(or run with --ocr off)"
        )
    missing = [code for code in lang.split("+") if not (folder / f"{code}.traineddata").exists()]
    if missing:
        raise OcrUnavailableError(
            f"Tesseract language data for {'+'.join(missing)} is not installed in {folder}: "
            f"apt-get install {' '.join(package_for(m) for m in missing)}"
        )
    return folder


# Chinese and Japanese characters and punctuation (not Hangul: Korean spaces its words)
_CJK = "\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_SPACE = re.compile(f"(?<=[{_CJK}]) (?=[{_CJK}])")


def line_text(raw: str) -> str:
    """One OCR'd line: whitespace collapsed, and none between two Chinese or Japanese
    characters (Tesseract puts a space between every two)."""
    return _CJK_SPACE.sub("", " ".join(raw.split()))


def engine_version() -> str:
    import tesserocr

    return f"tesseract {tesserocr.tesseract_version().split()[1]}"


class OcrLine(BaseModel):
    text: str
    bbox: tuple[int, int, int, int]  # pixels: x0, y0, x1, y1
    row_height: float  # pixels: the text size, estimated from the line's box
    confidences: list[float]  # one per word


class OcrText(BaseModel):
    """What Tesseract read on one image: paragraphs of lines, in reading order."""

    paragraphs: list[list[OcrLine]] = []

    @property
    def confidences(self) -> list[float]:
        return [c for para in self.paragraphs for ln in para for c in ln.confidences]

    @property
    def mean_confidence(self) -> float:
        conf = self.confidences
        return round(statistics.fmean(conf), 1) if conf else 0.0


# One loaded engine per language set, per process (loading takes 0.05-0.5 s). A forked
# child builds its own rather than share the parent's.
_engines: dict[tuple[str, str], Any] = {}
os.register_at_fork(after_in_child=_engines.clear)


def _engine(lang: str) -> Any:
    folder = require_ocr(lang)
    key = (str(folder), lang)
    api = _engines.get(key)
    if api is None:
        from tesserocr import PSM, PyTessBaseAPI

        # tesserocr's path argument wants a trailing separator
        api = _engines[key] = PyTessBaseAPI(path=f"{folder}/", lang=lang, psm=PSM.AUTO)
    return api


# A line's box spans ascenders to descenders: about 1.15 em in common text faces.
LINE_TO_FONT = 1.15


def recognize(samples: bytes, width: int, height: int, stride: int, dpi: int, lang: str) -> OcrText:
    """OCR one 8-bit grey image (`stride` bytes per row) rendered at `dpi`.

    Read from Tesseract's TSV output (one row per page, block, paragraph, line and word,
    words in logical order): tesserocr's result iterator returns right-to-left lines
    reversed, word by word."""
    api = _engine(lang)
    api.SetImageBytes(samples, width, height, 1, stride)
    api.SetSourceResolution(dpi)
    api.Recognize()
    paragraphs: dict[tuple[int, int], list[OcrLine]] = {}
    lines: dict[tuple[int, int, int], OcrLine] = {}
    words: dict[tuple[int, int, int], list[str]] = {}
    for row in api.GetTSVText(0).splitlines():
        cols = row.split("\t")
        if len(cols) < 12:
            continue
        level, block, par, line = (int(c) for c in (cols[0], cols[2], cols[3], cols[4]))
        x, y, w, h = (int(c) for c in cols[6:10])
        key = (block, par, line)
        if level == 4:
            lines[key] = OcrLine(
                text="", bbox=(x, y, x + w, y + h), row_height=h / LINE_TO_FONT, confidences=[]
            )
            paragraphs.setdefault((block, par), []).append(lines[key])
        elif level == 5 and key in lines and cols[11].strip():
            words.setdefault(key, []).append(cols[11].strip())
            lines[key].confidences.append(float(cols[10]))
    for key, ln in lines.items():
        ln.text = line_text(" ".join(words.get(key, [])))
    return OcrText(
        paragraphs=[
            kept
            for para in paragraphs.values()
            if (
                kept := [
                    ln for ln in para if ln.text and max(ln.confidences) >= MIN_LINE_CONFIDENCE
                ]
            )
        ]
    )
