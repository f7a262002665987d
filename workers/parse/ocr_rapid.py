"""RapidOCR: the PP-OCRv4 detection and recognition models (Chinese and English) that ship
inside the `rapidocr-onnxruntime` wheel, run by ONNX Runtime. Quire reads simplified Chinese
with it when Debian's Tesseract data are not needed (see `ocr_engines`).

Settings, measured with bench/bench_ocr.py: the text-direction classifier is off (on upright
scans it turned whole lines upside down: 0.905 -> 0.989 character accuracy without it), and
ONNX Runtime uses one thread (Quire scales over processes). The models are loaded once per
process, at the first page that needs them, never when quire is imported.

RapidOCR returns text lines (box, text, score) in reading order; `paragraphs` groups them
the way Tesseract reports its paragraphs, so both engines feed the same page blocks.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import re
from typing import Any

from quire.workers.parse.ocr import OcrLine, OcrText, line_text

# A RapidOCR box spans a little more than the text's em (measured against the fonts of
# born-digital pages: boxes of 10-11 pt text are 11.2-12.4 pt high).
BOX_TO_FONT = 1.13
# What the recognition model scores below this (0-1) is dropped, as RapidOCR's default.
MIN_SCORE = 0.5
# Chinese and Japanese characters count as one word each (as Tesseract reports them).
_TOKEN = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]|[^\s]+")


@functools.cache
def problem() -> str | None:
    """Why RapidOCR cannot run here (one line), or None when it can. Imports it (and OpenCV,
    which needs libGL on Linux) once per process."""
    try:
        import rapidocr_onnxruntime  # noqa: F401
    except ModuleNotFoundError as exc:
        if exc.name == "rapidocr_onnxruntime":
            return "RapidOCR is not installed: pip install rapidocr-onnxruntime"
        return f"RapidOCR cannot load: {exc}"
    except ImportError as exc:  # e.g. OpenCV without libGL.so.1 (a Linux without a desktop)
        why = " ".join(str(exc).split())
        debs = sorted({deb for lib, deb in _LIBRARY_PACKAGES.items() if lib in why})
        fix = f": apt-get install {' '.join(debs)}" if debs else ""
        return f"RapidOCR cannot load ({why[:120]}){fix}"
    return None


# System libraries that OpenCV's wheel (a RapidOCR dependency) loads, and their Debian packages
_LIBRARY_PACKAGES = {
    "libGL.so": "libgl1",
    "libglib-2.0.so": "libglib2.0-0",
    "libgthread-2.0.so": "libglib2.0-0",
}


def engine_version() -> str:
    return f"rapidocr-onnxruntime {importlib.metadata.version('rapidocr-onnxruntime')}"


# The loaded models, one set per process. A forked child must not use (nor free: see
# BASELINES.md, ONNX sessions freed in a forked child can hang) its parent's sessions, so
# they move to `_inherited` and stay referenced there.
_engine: list[Any] = []
_inherited: list[Any] = []


def _forget_after_fork() -> None:
    _inherited.extend(_engine)
    _engine.clear()


os.register_at_fork(after_in_child=_forget_after_fork)


def _load() -> Any:
    if not _engine:
        from rapidocr_onnxruntime import RapidOCR

        _engine.append(
            RapidOCR(
                use_cls=False,
                text_score=MIN_SCORE,
                intra_op_num_threads=1,
                inter_op_num_threads=1,
            )
        )
    return _engine[0]


def _ocr_line(box: list[list[float]], text: str, score: float) -> OcrLine:
    xs, ys = [p[0] for p in box], [p[1] for p in box]
    x0, y0, x1, y1 = round(min(xs)), round(min(ys)), round(max(xs)), round(max(ys))
    confidence = round(float(score) * 100, 1)
    return OcrLine(
        text=text,
        bbox=(x0, y0, x1, y1),
        row_height=(y1 - y0) / BOX_TO_FONT,
        confidences=[confidence] * max(1, len(_TOKEN.findall(text))),
    )


def _starts_paragraph(prev: OcrLine, line: OcrLine) -> bool:
    """Whether `line`, read after `prev`, begins another paragraph: a gap of more than half
    a line, another text size, an indented first line, or no horizontal overlap (another
    column)."""
    h0, h1 = prev.bbox[3] - prev.bbox[1], line.bbox[3] - line.bbox[1]
    height = min(h0, h1) or 1
    overlap = min(prev.bbox[2], line.bbox[2]) - max(prev.bbox[0], line.bbox[0])
    return (
        line.bbox[1] - prev.bbox[3] > 0.5 * height
        or max(h0, h1) > 1.3 * height
        or line.bbox[0] - prev.bbox[0] > 0.8 * height
        or overlap <= 0
    )


def paragraphs(lines: list[OcrLine]) -> list[list[OcrLine]]:
    """Lines in reading order grouped into paragraphs (see `_starts_paragraph`)."""
    out: list[list[OcrLine]] = []
    for line in lines:
        if out and not _starts_paragraph(out[-1][-1], line):
            out[-1].append(line)
        else:
            out.append([line])
    return out


def recognize(samples: bytes, width: int, height: int, stride: int) -> OcrText:
    """OCR one 8-bit grey image (`stride` bytes per row)."""
    import numpy as np

    grey = np.frombuffer(samples, np.uint8).reshape(height, stride)[:, :width]
    found, _ = _load()(np.ascontiguousarray(grey))
    lines = [
        _ocr_line(box, text, score)
        for box, raw, score in found or []
        if (text := line_text(raw)) and score >= MIN_SCORE
    ]
    return OcrText(paragraphs=paragraphs(lines))
