"""Which OCR engine reads which languages, and what happens where none can.

The choice is a pure function of the languages and of what the machine has (`Installed`),
tested on made-up machines. The rest runs the real engines: Debian's trained data are hidden
by pointing TESSDATA_PREFIX at an empty folder, as on a machine where only `pip install` ran.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gen_docs import textbook_pdf
from scans import quire_without_tessdata as quire
from scans import rasterize_pages, word_recall

from quire.shared.errors import OcrUnavailableError, PagesWithoutTextError
from quire.shared.ir import describe_textless
from quire.workers.parse import OcrSettings, ocr_rapid, parse_document
from quire.workers.parse.ocr import OcrLine, package_for
from quire.workers.parse.ocr_engines import EngineChoice, Installed, choose_engine, installed
from quire.workers.parse.ocr_rapid import paragraphs
from quire.workers.parse.pdf_open import pymupdf_module

DEBIAN = "/usr/share/tesseract-ocr/5/tessdata"
PIP = "/venv/share/tessdata"
FULL = Installed(
    tessdata={DEBIAN: ["chi_sim", "eng", "fas"], PIP: ["eng"]},
    system_tessdata=DEBIAN,
    rapidocr=None,
)
PIP_ONLY = Installed(tessdata={"/empty": [], PIP: ["eng"]}, system_tessdata="/empty", rapidocr=None)
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")  # Debian fonts-dejavu-core
PERSIAN = (
    "این کتاب برای آموزش مدیریت سامانه‌های دبیان نوشته شده است و در هر فصل یک موضوع را "
    "با مثال‌های کامل شرح می‌دهد. خواننده پس از هر فصل می‌تواند تمرین‌ها را انجام دهد."
)


@pytest.mark.parametrize(
    ("lang", "have", "chosen"),
    [
        ("eng", FULL, EngineChoice(engine="tesseract", tessdata=DEBIAN)),
        ("eng", PIP_ONLY, EngineChoice(engine="tesseract", tessdata=PIP)),
        ("chi_sim", FULL, EngineChoice(engine="rapidocr")),
        ("chi_sim+eng", PIP_ONLY, EngineChoice(engine="rapidocr")),
        ("fas", FULL, EngineChoice(engine="tesseract", tessdata=DEBIAN)),
        ("eng+fas", FULL, EngineChoice(engine="tesseract", tessdata=DEBIAN)),
        ("chi_sim+fas", FULL, EngineChoice(engine="tesseract", tessdata=DEBIAN)),
        # RapidOCR cannot load (no libGL for OpenCV, say): Debian's Chinese data read it
        (
            "chi_sim",
            FULL.model_copy(update={"rapidocr": "RapidOCR cannot load (libGL.so.1)"}),
            EngineChoice(engine="tesseract", tessdata=DEBIAN),
        ),
    ],
)
def test_the_engine_is_chosen_per_language(
    lang: str, have: Installed, chosen: EngineChoice
) -> None:
    assert choose_engine(lang, have) == chosen


@pytest.mark.parametrize(
    ("lang", "have", "needs"),
    [
        ("fas", PIP_ONLY, "apt-get install tesseract-ocr-fas"),
        # every language the system folder lacks, as one Tesseract call reads one folder
        ("eng+fas", PIP_ONLY, "apt-get install tesseract-ocr-eng tesseract-ocr-fas"),
        ("chi_tra", FULL, "apt-get install tesseract-ocr-chi-tra"),
        (
            "chi_sim",
            PIP_ONLY.model_copy(update={"rapidocr": "RapidOCR cannot load (libGL.so.1)"}),
            "apt-get install tesseract-ocr-chi-sim; RapidOCR cannot load (libGL.so.1)",
        ),
        (
            "eng",
            FULL.model_copy(update={"tesserocr": False}),
            "pip install tesserocr",
        ),
    ],
)
def test_without_an_engine_the_choice_says_what_would_read_the_pages(
    lang: str, have: Installed, needs: str
) -> None:
    assert choose_engine(lang, have) == EngineChoice(engine=None, needs=needs)
    assert package_for("chi_sim") == "tesseract-ocr-chi-sim"


def test_this_machine_with_debian_data_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))  # an empty folder
    have = installed("eng")
    assert have.system_tessdata == str(tmp_path) and have.tessdata[str(tmp_path)] == []
    assert choose_engine("eng", have).tessdata != str(tmp_path)  # the tessdata package's
    assert choose_engine("fas", installed("fas")).needs == "apt-get install tesseract-ocr-fas"


def _line(x0: int, y0: int, x1: int, y1: int) -> OcrLine:
    return OcrLine(text="x", bbox=(x0, y0, x1, y1), row_height=y1 - y0, confidences=[99.0])


def test_rapidocr_lines_are_grouped_into_paragraphs() -> None:
    heading = _line(100, 100, 600, 160)  # taller: another size
    first = _line(150, 240, 1200, 290)  # indented first line, after a gap
    second = _line(100, 300, 1200, 350)
    third = _line(100, 360, 800, 410)
    indented = _line(150, 420, 1200, 470)  # the next paragraph's first line
    other_column = _line(1300, 480, 2000, 530)
    lines = [heading, first, second, third, indented, other_column]
    assert paragraphs(lines) == [[heading], [first, second, third], [indented], [other_column]]


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[int, str]]:
    tmp = tmp_path_factory.mktemp("scans")
    born = textbook_pdf(tmp / "born.pdf", 43, chapter_count=3, paragraphs=14)
    path = tmp / "scanned.pdf"
    return path, rasterize_pages(born, path, {2, 5}, dpi=200)


def test_english_scans_are_read_with_debian_data_hidden(
    scanned: tuple[Path, dict[int, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, known = scanned
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))
    doc = parse_document(path, ocr=OcrSettings(mode="auto", lang="eng"), strict=True).document
    assert [o.page for o in doc.ocr_pages] == [2, 5] and not doc.skipped_pages
    for o in doc.ocr_pages:
        assert o.engine.startswith("tesseract 5.") and o.languages == "eng"
        text = " ".join(e.text for e in doc.elements if e.page_first <= o.page <= e.page_last)
        assert word_recall(known[o.page], text) >= 0.95


def test_a_language_no_engine_reads_lists_the_pages_and_force_fails(
    scanned: tuple[Path, dict[int, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _ = scanned
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))
    doc = parse_document(path, ocr=OcrSettings(mode="auto", lang="eng+fas")).document
    assert not doc.ocr_pages
    assert [(s.page, s.kind, s.ocr, s.needs) for s in doc.skipped_pages] == [
        (n, "scanned", "no_engine", "apt-get install tesseract-ocr-eng tesseract-ocr-fas")
        for n in (2, 5)
    ]
    assert "no_ocr_engine: apt-get install tesseract-ocr-eng tesseract-ocr-fas" in (
        doc.skipped_pages[0].reason
    )
    assert describe_textless(doc.skipped_pages) == (
        "2 pages without text: 2, 5 — scanned, no OCR engine: "
        "apt-get install tesseract-ocr-eng tesseract-ocr-fas"
    )
    with pytest.raises(PagesWithoutTextError):
        parse_document(path, ocr=OcrSettings(mode="auto", lang="eng+fas"), strict=True)
    with pytest.raises(OcrUnavailableError, match=r"no OCR engine reads eng\+fas: apt-get"):
        parse_document(path, ocr=OcrSettings(mode="force", lang="eng+fas"))


# --- end to end: a book with one Persian scan ------------------------------------------


@pytest.fixture(scope="module")
def persian_scan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated English textbook whose page 3 is a scan of a Persian page."""
    tmp = tmp_path_factory.mktemp("fa")
    p = pymupdf_module()
    born = textbook_pdf(tmp / "born.pdf", 44, chapter_count=3, paragraphs=14)
    css = f"@font-face {{font-family: dv; src: url({FONT});}} body {{font-family: dv; "
    css += "font-size: 13pt; direction: rtl;}"
    mixed = tmp / "mixed.pdf"
    with p.open(born) as doc:
        page = doc[2]
        page.add_redact_annot(page.rect)
        page.apply_redactions()
        page.insert_htmlbox(p.Rect(60, 80, 540, 700), f"<p>{PERSIAN}</p>" * 4, css=css)
        doc.save(mixed)
    path = tmp / "persian-scan.pdf"
    rasterize_pages(mixed, path, {3}, dpi=300)
    return path


NEEDS_FAS = "1 page without text: 3 — scanned, no OCR engine: apt-get install tesseract-ocr-fas"


def test_a_persian_scan_without_its_data_completes_and_names_the_package(
    persian_scan: Path, tmp_path: Path
) -> None:
    fas = quire(
        tmp_path, "run", "--input", str(persian_scan), "--out", str(tmp_path / "fa"),
        "--ocr-lang", "fas",
    )  # fmt: skip
    assert fas.returncode == 0, fas.stderr
    assert "warning: no OCR engine reads fas (apt-get install tesseract-ocr-fas)" in fas.stderr
    final = fas.stderr.strip().splitlines()[-1]
    assert final.endswith(f"verification passed; {NEEDS_FAS}"), final
    report = json.loads((tmp_path / "fa" / "verification-report.json").read_text())
    assert [(p["page"], p["ocr"], p["needs"]) for p in report["pages_without_text"]] == [
        (3, "no_engine", "apt-get install tesseract-ocr-fas")
    ]
    assert f"- {NEEDS_FAS}" in (tmp_path / "fa" / "study-index-en.md").read_text()

    strict = quire(
        tmp_path, "run", "--input", str(persian_scan), "--out", str(tmp_path / "s"),
        "--ocr-lang", "fas", "--strict",
    )  # fmt: skip
    assert strict.returncode == 1
    assert "(pages_without_text)" in strict.stderr and f"{NEEDS_FAS} (--strict)" in strict.stderr

    batch = quire(
        tmp_path, "batch", str(persian_scan), "--out", str(tmp_path / "b"),
        "--ocr-lang", "fas", "--rerun", "--processes", "1",
    )  # fmt: skip
    assert batch.returncode == 0, batch.stdout + batch.stderr
    assert f"{persian_scan.name}: {NEEDS_FAS}" in batch.stderr
    doc = json.loads((tmp_path / "b" / "batch-report.json").read_text())["documents"][0]
    assert [p["needs"] for p in doc["pages_without_text"]] == ["apt-get install tesseract-ocr-fas"]


def test_the_persian_scan_is_read_where_debian_data_are_installed(
    persian_scan: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    done = quire(
        tmp_path, "run", "--input", str(persian_scan), "--out", str(out), "--ocr-lang", "fas",
        "--strict", hide=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    ir = json.loads((out / "ir.json").read_text())
    assert [(o["page"], o["languages"]) for o in ir["ocr_pages"]] == [(3, "fas")]
    assert "دبیان" in "\n".join(p.read_text() for p in out.glob("[0-9]*.md"))


# --- RapidOCR's models: loaded lazily, once per process, and safe across fork -----------


def test_importing_quire_loads_no_ocr_model() -> None:
    code = (
        "import sys, quire.api, quire.workers.parse, quire.orchestrator.cli; "
        "print(sorted(m for m in ('cv2', 'onnxruntime', 'rapidocr_onnxruntime', 'tesserocr') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


def _grey_chinese_line() -> tuple[bytes, int, int, int]:
    p = pymupdf_module()
    with p.open() as doc:
        page = doc.new_page(width=400, height=80)
        page.insert_text(
            (20, 50), "切分只能发生在结构上安全的位置", fontname="china-s", fontsize=20
        )
        pix = page.get_pixmap(dpi=200, colorspace=p.csGRAY, alpha=False)
        return pix.samples, pix.width, pix.height, pix.stride


def _read_line() -> list[str]:
    return [
        ln.text for para in ocr_rapid.recognize(*_grey_chinese_line()).paragraphs for ln in para
    ]


def _read_in_child(queue: Any) -> None:
    queue.put((_read_line(), len(ocr_rapid._inherited)))


def test_a_forked_child_reads_with_its_own_models() -> None:
    """BASELINES.md: ONNX sessions freed inside a forked child can hang it. The parent's
    sessions stay referenced in the child, which loads its own."""
    import multiprocessing

    line = ["切分只能发生在结构上安全的位置"]
    assert _read_line() == line
    parent = ocr_rapid._load()
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_read_in_child, args=(queue,))
    child.start()
    child.join(timeout=120)
    assert child.exitcode == 0
    assert queue.get(timeout=5) == (line, 1)  # read, with the parent's models set aside
    assert ocr_rapid._load() is parent  # the parent keeps its own
