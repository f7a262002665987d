"""The `quire` command line as a user runs it: a subprocess in a fresh working folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pipeline_utils import CORPUS, SAMPLE_PDF


def quire(cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "quire.orchestrator.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_run_then_verify_then_tamper(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = quire(
        tmp_path, "run", "--input", str(SAMPLE_PDF), "--out", str(out), "--output-format", "both"
    )
    assert done.returncode == 0, done.stderr
    assert "verification passed" in done.stderr
    names = {p.name for p in out.iterdir()}
    assert {
        "ir.json",
        "manifest.json",
        "verification-report.json",
        "plan.json",
        "semantic-review-report.json",
        "study-index-en.md",
        "study-index-fa.md",
        "study-map.md",
    } <= names
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["chunk_count"] >= 4
    assert all(c["pdf_file"] and c["markdown_file"] for c in manifest["chunks"])

    ok = quire(tmp_path, "verify", "--out", str(out))
    assert ok.returncode == 0, ok.stderr
    report = json.loads((out / "verification-report.json").read_text())
    assert report["passed"] and report["checked"]["rendered_pages"] >= 50

    md = out / manifest["chunks"][1]["markdown_file"]
    md.write_text(md.read_text().replace("the", "teh", 1))
    bad = quire(tmp_path, "verify", "--out", str(out))
    assert bad.returncode == 1
    assert "altered" in bad.stderr

    status = quire(tmp_path, "status", manifest["doc_id"][:12])
    assert status.returncode == 0 and "complete" in status.stdout and "advance" in status.stdout


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("debian-faq-password.pdf", "encrypted"),
        ("r-data-truncated.pdf", "corrupt"),
        ("liboctave-excerpt-image-only.pdf", "empty"),
    ],
)
def test_parse_refuses_bad_input_in_one_line(tmp_path: Path, name: str, reason: str) -> None:
    result = quire(tmp_path, "parse", "--input", str(CORPUS / name), "--out", str(tmp_path),
                   "--ocr", "off")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert f"({reason})" in result.stderr and name in result.stderr
    assert not (tmp_path / "ir.json").exists()


def test_parse_unsupported_and_fake_files(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    fake = tmp_path / "fake.pdf"
    fake.write_text("hello, I am not a PDF")
    empty = tmp_path / "empty.docx"
    empty.write_bytes(b"")
    for path, code in ((text, "unsupported_format"), (fake, "corrupt"), (empty, "empty")):
        result = quire(tmp_path, "parse", "--input", str(path), "--out", str(tmp_path))
        assert result.returncode == 2, (path, result.stderr)
        assert f"({code})" in result.stderr and path.name in result.stderr


def test_parse_writes_ir_and_images(tmp_path: Path) -> None:
    result = quire(
        tmp_path,
        "parse",
        "--input",
        str(CORPUS / "python-hashlib.docx"),
        "--out",
        str(tmp_path / "p"),
    )
    assert result.returncode == 0, result.stderr
    ir = json.loads((tmp_path / "p" / "ir.json").read_text())
    images = [e for e in ir["elements"] if e["type"] == "image"]
    assert len(images) == 1 and (tmp_path / "p" / images[0]["image"]["file"]).is_file()
