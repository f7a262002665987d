"""The `quire` command line as a user runs it: a subprocess in a fresh working folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pipeline_utils import CORPUS, SAMPLE_DOCX, SAMPLE_PDF


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
    result = quire(
        tmp_path, "parse", "--input", str(CORPUS / name), "--out", str(tmp_path), "--ocr", "off"
    )
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
        str(SAMPLE_DOCX),
        "--out",
        str(tmp_path / "p"),
    )
    assert result.returncode == 0, result.stderr
    ir = json.loads((tmp_path / "p" / "ir.json").read_text())
    images = [e for e in ir["elements"] if e["type"] == "image"]
    assert len(images) == 1 and (tmp_path / "p" / images[0]["image"]["file"]).is_file()


def test_a_second_run_owns_the_folder_and_a_foreign_folder_is_refused(tmp_path: Path) -> None:
    """A run into a folder of an earlier run with other settings leaves exactly the new
    manifest's files (plus a person's own file) and verifies; a foreign folder is refused
    before any work, in one line, unless --force."""
    out = tmp_path / "out"
    first = quire(
        tmp_path, "run", "--input", str(SAMPLE_PDF), "--out", str(out), "--output-format", "both"
    )
    assert first.returncode == 0, first.stderr
    (out / "my-notes.txt").write_text("mine")
    second = quire(
        tmp_path, "run", "--input", str(SAMPLE_PDF), "--out", str(out), "--max-pages", "8"
    )
    assert second.returncode == 0, second.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["formats"] == ["markdown"]
    listed = {name for c in manifest["chunks"] for name in c["files"]}
    chunk_files = {
        p.name for p in out.iterdir() if p.suffix in (".md", ".pdf") and p.name[:2].isdigit()
    }
    assert chunk_files == {n for n in listed if "/" not in n}
    assert (out / "my-notes.txt").read_text() == "mine"
    assert quire(tmp_path, "verify", "--out", str(out)).returncode == 0

    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("x")
    refused = quire(tmp_path, "run", "--input", str(SAMPLE_PDF), "--out", str(foreign))
    assert refused.returncode == 2
    assert refused.stderr.strip().count("\n") == 0 and "output_folder" in refused.stderr
    assert "parsing" not in refused.stderr  # refused before any work
    forced = quire(
        tmp_path,
        "run",
        "--input",
        str(SAMPLE_PDF),
        "--out",
        str(foreign),
        "--max-pages",
        "8",
        "--force",
    )
    assert forced.returncode == 0, forced.stderr
    assert (foreign / "thesis.tex").exists() and (foreign / "manifest.json").exists()


def test_a_stray_chunk_file_fails_the_run_that_exports_beside_it(tmp_path: Path) -> None:
    """The verification that decides the exit code runs on the folder as written."""
    out = tmp_path / "out"
    assert quire(tmp_path, "run", "--input", str(SAMPLE_PDF), "--out", str(out)).returncode == 0
    (out / "99-left-over-session.md").write_text("an old chunk a person copied in\n")
    again = quire(tmp_path, "run", "--input", str(SAMPLE_PDF), "--out", str(out))
    assert again.returncode == 1, again.stderr
    assert "verification FAILED" in again.stderr
    report = json.loads((out / "verification-report.json").read_text())
    assert any(f["file"] == "99-left-over-session.md" for f in report["findings"])


def test_progress_lines_without_a_terminal_and_json_logs(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "quire.orchestrator.cli",
            "-v",
            "run",
            "--input",
            str(SAMPLE_PDF),
            "--out",
            str(tmp_path / "out"),
            "--processes",
            "2",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "QUIRE_LOG_FORMAT": "json"},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    stages = [ln for ln in lines if ln.startswith("fhs-3.0.pdf: ") and " done (" in ln]
    assert stages[0].startswith("fhs-3.0.pdf: parsing done (50 pages, ")
    assert any(ln.startswith("fhs-3.0.pdf: writing done (") and " chunks, " in ln for ln in stages)
    # an offline run analyses while planning: the stage says so rather than "0 chunks"
    analysing = [ln for ln in stages if ln.startswith("fhs-3.0.pdf: analysing done (")]
    assert analysing and all(" 0 chunks" not in ln for ln in analysing)
    logs = [json.loads(ln) for ln in lines if ln.startswith("{")]
    parts = [r for r in logs if r.get("state") == "parsing" and r["level"] == "info"]
    assert parts, "the -v log of a pool worker process reaches stderr"
    assert {"time", "logger", "message", "doc_id", "part", "revision"} <= set(parts[0])
    assert len(parts[0]["doc_id"]) == 64


def test_a_file_name_is_printed_as_it_is(tmp_path: Path) -> None:
    """Names are the user's text, not console markup: ":fire:" is no emoji, "[bold]" no style."""
    import pymupdf

    name = "notes:fire: [bold]week 1.pdf"
    with pymupdf.open() as doc:
        doc.new_page().insert_text((72, 72), "A single page of notes about sorting.")
        doc.save(tmp_path / name)
    done = quire(tmp_path, "run", "--input", name, "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert f"{name}: 1 chunks, verification passed" in done.stderr
    batch = quire(tmp_path, "batch", name, "--out", str(tmp_path / "many"))
    assert batch.returncode == 0, batch.stderr
    assert "\U0001f525" not in batch.stdout + batch.stderr
    assert name in batch.stdout + batch.stderr


def test_status_export_and_version_manners(tmp_path: Path) -> None:
    version = quire(tmp_path, "--version")
    assert version.returncode == 0 and version.stdout.startswith("quire, version ")
    # `python -m quire` is the same command (pip's scripts folder may not be on PATH)
    as_module = subprocess.run(
        [sys.executable, "-m", "quire", "--version"], cwd=tmp_path, capture_output=True, text=True
    )
    assert as_module.returncode == 0 and as_module.stdout == version.stdout
    assert (
        quire(
            tmp_path, "run", "--input", str(SAMPLE_PDF), "--out", str(tmp_path / "out")
        ).returncode
        == 0
    )
    listing = json.loads(quire(tmp_path, "status", "--json").stdout)
    assert [d["source_name"] for d in listing] == ["fhs-3.0.pdf"]
    one = json.loads(quire(tmp_path, "status", "fhs-3.0.pdf", "--json").stdout)
    assert one["state"] == "complete" and one["history"][0]["revision"] == 1
    by_path = json.loads(quire(tmp_path, "status", str(SAMPLE_PDF), "--json").stdout)
    assert by_path["doc_id"] == one["doc_id"]
    exported = quire(tmp_path, "export", "fhs-3.0.pdf", "--out", str(tmp_path / "again"))
    assert exported.returncode == 0 and "verification passed" in exported.stderr

    truncated = tmp_path / "r-data-truncated.pdf"
    truncated.write_bytes((CORPUS / "r-data-truncated.pdf").read_bytes())
    bad = quire(tmp_path, "run", "--input", str(truncated), "--out", str(tmp_path / "bad"))
    assert bad.returncode == 1
    assert bad.stderr.startswith("quire: failed (corrupt): r-data-truncated.pdf: damaged")
    failed = quire(tmp_path, "export", "r-data-truncated.pdf", "--out", str(tmp_path / "x"))
    assert failed.returncode == 2
    assert "not_complete" in failed.stderr and "corrupt" in failed.stderr
    assert not (tmp_path / "x").exists()
    unknown = quire(tmp_path, "status", "no-such-book.pdf")
    assert unknown.returncode == 2 and "not_found" in unknown.stderr


def test_services_refuse_unsafe_defaults(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("QUIRE_BROKER_URL", "FLOWER_BASIC_AUTH", "FLOWER_AUTH")
    }
    worker = subprocess.run(
        [sys.executable, "-m", "quire.orchestrator.cli", "worker"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert worker.returncode == 2 and "QUIRE_BROKER_URL is not set" in worker.stderr
    flower = subprocess.run(
        [sys.executable, "-m", "quire.orchestrator.cli", "flower"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "QUIRE_BROKER_URL": "redis://127.0.0.1:1/0"},
    )
    assert flower.returncode == 2 and "FLOWER_BASIC_AUTH" in flower.stderr
    assert worker.stderr.count("\n") == 1 and flower.stderr.count("\n") == 1
