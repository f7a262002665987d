"""The corpus's scanned-page and password-protected documents, end to end through the CLI.

freefem-manual-scanned-pages.pdf has three 150-dpi scans (pages 5, 6, 18) among 47 text
pages; liboctave-excerpt-image-only.pdf is six scans; debian-faq-password.pdf needs the user
password `corpus-user` (MANIFEST.md). The scans are read as on a machine where only `pip
install` ran: Debian's trained data are hidden (TESSDATA_PREFIX is an empty folder), and
their text is measured against the pages' original text layer (tests/data/README.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corpus import CORPUS
from scans import quire_without_tessdata as quire
from scans import scan_originals, word_recall

from quire.workers.write.escapes import escape_markup

pytestmark = pytest.mark.corpus

FREEFEM = CORPUS / "freefem-manual-scanned-pages.pdf"
SCANS = {5, 6, 18}
TEXTLESS = "3 pages without text: 5, 6, 18 — scanned, OCR off"


def scan_recall(out: Path, name: str) -> tuple[float, dict[int, float]]:
    """The word recall of the scanned pages' text in the Markdown against their original
    text layer: over all of them, and per page (of the elements on it: a paragraph that goes
    on from the page before counts there too). Every element read from a scan must be in a
    chunk, word for word."""
    ir = json.loads((out / "ir.json").read_text())
    markdown = "\n".join(p.read_text() for p in sorted(out.glob("[0-9]*.md")))
    originals = scan_originals(name)
    on = {
        page: [e for e in ir["elements"] if e["page_first"] <= page <= e["page_last"]]
        for page in originals
    }
    for page, elements in on.items():  # as written: book text that reads as markup escaped
        written = [escape_markup(e["text"], e["type"]) for e in elements]
        assert written and all(t in markdown for t in written), page
    found = {e["text"]: None for elements in on.values() for e in elements}  # once, in order
    pages = {
        page: word_recall(originals[page], "\n".join(e["text"] for e in on[page]))
        for page in originals
    }
    return word_recall("\n".join(originals.values()), "\n".join(found)), pages


def test_scanned_pages_reach_the_markdown_with_ocr_auto(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = quire(tmp_path, "run", "--input", str(FREEFEM), "--out", str(out), "--ocr", "auto")
    assert done.returncode == 0, done.stderr
    assert "verification passed" in done.stderr and "without text" not in done.stderr
    ir = json.loads((out / "ir.json").read_text())
    assert not ir.get("skipped_pages")
    ocr = {o["page"]: o for o in ir["ocr_pages"]}
    assert set(ocr) == SCANS
    assert all(
        o["confidence"] > 80 and o["dpi"] == 150 and o["languages"] == "eng" for o in ocr.values()
    )
    assert {o["engine"].split()[0] for o in ocr.values()} == {"tesseract"}
    recall, pages = scan_recall(out, FREEFEM.name)
    assert recall >= 0.95 and min(pages.values()) >= 0.9, (recall, pages)
    markdown = "\n".join(p.read_text() for p in sorted(out.glob("[0-9]*.md")))
    for phrase in (
        "finite element method",
        "Software and Documentation",
        "difference between a global operator",
    ):
        assert phrase in markdown, phrase
    report = json.loads((out / "verification-report.json").read_text())
    assert report["passed"] and report["checked"]["ocr_pages"] == 3
    assert report["pages_without_text"] == []


def test_with_ocr_off_the_pages_are_listed_everywhere_and_strict_fails(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = quire(tmp_path, "run", "--input", str(FREEFEM), "--out", str(out), "--ocr", "off")
    assert done.returncode == 0, done.stderr
    final = done.stderr.strip().splitlines()[-1]
    assert final.endswith(f"verification passed; {TEXTLESS}"), final
    report = json.loads((out / "verification-report.json").read_text())
    listed = {p["page"]: p for p in report["pages_without_text"]}
    assert set(listed) == SCANS
    assert all(
        p["kind"] == "scanned" and p["ocr"] == "off" and "image-only" in p["reason"]
        for p in listed.values()
    )
    index = (out / "study-index-en.md").read_text()
    assert f"- {TEXTLESS}" in index
    assert TEXTLESS in (out / "study-index-fa.md").read_text()

    strict = quire(
        tmp_path,
        "run",
        "--input",
        str(FREEFEM),
        "--out",
        str(tmp_path / "s"),
        "--ocr",
        "off",
        "--strict",
    )
    assert strict.returncode == 1
    assert "(pages_without_text)" in strict.stderr and f"{TEXTLESS} (--strict)" in strict.stderr

    # --rerun: the same document failed above with other settings (--strict)
    batch = quire(
        tmp_path,
        "batch",
        str(FREEFEM),
        "--out",
        str(tmp_path / "b"),
        "--ocr",
        "off",
        "--rerun",
        "--processes",
        "1",
    )
    assert batch.returncode == 0, batch.stdout + batch.stderr
    assert f"{FREEFEM.name}: {TEXTLESS}" in batch.stderr
    doc = json.loads((tmp_path / "b" / "batch-report.json").read_text())["documents"][0]
    assert {p["page"] for p in doc["pages_without_text"]} == SCANS


def test_an_image_only_document_is_read_whole(tmp_path: Path) -> None:
    out = tmp_path / "out"
    path = CORPUS / "liboctave-excerpt-image-only.pdf"
    done = quire(tmp_path, "run", "--input", str(path), "--out", str(out))  # auto by default
    assert done.returncode == 0, done.stderr
    ir = json.loads((out / "ir.json").read_text())
    assert [o["page"] for o in ir["ocr_pages"]] == [1, 2, 3, 4, 5, 6]
    assert sum(e["word_count"] for e in ir["elements"]) > 1000
    recall, pages = scan_recall(out, path.name)
    assert recall >= 0.95 and min(pages.values()) >= 0.9, (recall, pages)
    off = quire(
        tmp_path, "run", "--input", str(path), "--out", str(tmp_path / "off"), "--ocr", "off"
    )
    assert off.returncode == 1 and "(empty)" in off.stderr
    assert "6 pages without text: 1–6 — scanned, OCR off" in off.stderr


def test_the_password_protected_corpus_pdf(tmp_path: Path) -> None:
    path = CORPUS / "debian-faq-password.pdf"
    wrong = quire(
        tmp_path,
        "run",
        "--input",
        str(path),
        "--out",
        str(tmp_path / "w"),
        env={"QUIRE_PDF_PASSWORD": "corpus-wrong"},
    )
    assert wrong.returncode == 1 and "(bad_password)" in wrong.stderr
    secret = tmp_path / "pw.txt"
    secret.write_text("corpus-user\n")
    out = tmp_path / "out"
    done = quire(
        tmp_path, "run", "--input", str(path), "--out", str(out), "--password-file", str(secret)
    )
    assert done.returncode == 0, done.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["page_count"] == 73 and manifest["chunk_count"] >= 5
    ir = json.loads((out / "ir.json").read_text())
    # its seven blank pages are named, not dropped silently
    assert {p["page"] for p in ir["skipped_pages"]} == {8, 12, 24, 34, 42, 52, 60}
    assert "7 pages without text: 8, 12, 24, 34, 42, 52, 60 — blank" in done.stderr
