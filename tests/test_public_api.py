"""Quire as a library: the public surface (a change to it must be deliberate), what `split`
returns, and the built wheel installed into a fresh virtual environment next to another
distribution's top-level `shared` package. The README's example, run from every entry point,
is in test_entry_points.py."""

from __future__ import annotations

import inspect
import os
import re
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from pipeline_utils import ROOT, SAMPLE_PDF

import quire

PUBLIC = [
    "Document",
    "DocumentFailedError",
    "Element",
    "Finding",
    "QuireError",
    "RagChunk",
    "SplitResult",
    "StudySession",
    "VerificationReport",
    "__version__",
    "parse",
    "retrieval_chunks",
    "split",
    "verify",
]
SIGNATURES = {
    "split": "(path: 'str | Path', out: 'str | Path', *, output_format: 'OutputFormat' = "
    "'markdown', backend: 'Backend | None' = None, min_pages: 'float' = 5, "
    "max_pages: 'float' = 12, overlap_pages: 'int' = 1, ocr: 'OcrMode | None' = None, "
    "ocr_lang: 'str | None' = None, strict: 'bool' = False, "
    "strict_backend: 'bool | None' = None, decider: 'Decider' = 'backend', "
    "force: 'bool' = False, processes: 'int | None' = None, "
    "on_progress: 'Progress | None' = None) -> 'SplitResult'",
    "parse": "(path: 'str | Path', *, ocr: 'OcrMode | None' = None, ocr_lang: 'str | None' = "
    "None, strict: 'bool' = False) -> 'Document'",
    "verify": "(out: 'str | Path', *, source: 'str | Path | None' = None) -> 'VerificationReport'",
    "retrieval_chunks": "(out: 'str | Path', *, max_chars: 'int' = 2000, algorithm: "
    "\"Literal['hierarchical', 'linear']\" = 'hierarchical') -> "
    "'list[RagChunk]'",
}
RESULT_FIELDS = {
    "SplitResult": ["doc_id", "source", "out", "state", "page_count", "sessions", "verification"],
    "StudySession": [
        "number",
        "title",
        "page_first",
        "page_last",
        "pages",
        "words",
        "kind",
        "markdown",
        "pdf",
        "end_reason",
        "end_alternative",
    ],
}


def test_the_public_surface_changes_only_on_purpose() -> None:
    assert sorted(quire.__all__) == sorted(PUBLIC)
    for name in quire.__all__:
        assert hasattr(quire, name), name
    for name, signature in SIGNATURES.items():
        assert str(inspect.signature(getattr(quire, name))) == signature, name
    for model, fields in RESULT_FIELDS.items():
        assert list(getattr(quire, model).model_fields) == fields, model
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", quire.__version__)


def test_importing_quire_loads_no_heavy_machinery() -> None:
    code = (
        "import sys, quire; print(sorted(m for m in ('celery', 'pymupdf', 'boto3', 'docx',"
        " 'openai', 'anthropic') if m in sys.modules))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert run.stdout.strip() == "[]"


def test_split_returns_what_was_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    seen: list[str] = []
    result = quire.split(
        SAMPLE_PDF,
        tmp_path / "out",
        output_format="both",
        on_progress=lambda s: seen.append(s.state),
    )
    assert result.state == "complete" and result.verification is not None
    assert result.verification.passed and result.page_count == 50
    assert "parsing" in seen and seen[-1] == "complete"
    assert [s.number for s in result.sessions] == list(range(1, len(result.sessions) + 1))
    for s in result.sessions:
        assert s.markdown is not None and s.markdown.is_file()
        assert s.pdf is not None and s.pdf.is_file()
        assert s.page_first <= s.page_last and s.title and s.end_reason
    assert result.sessions[0].page_first == 1 and result.sessions[-1].page_last == 50
    doc = quire.parse(SAMPLE_PDF)
    assert doc.doc_id == result.doc_id and doc.elements
    assert quire.verify(tmp_path / "out", source=SAMPLE_PDF).passed
    chunks = quire.retrieval_chunks(tmp_path / "out", max_chars=1500)
    assert chunks and all(c.chars <= 1500 for c in chunks)
    with pytest.raises(quire.DocumentFailedError) as failed:
        truncated = tmp_path / "cut.pdf"
        truncated.write_bytes(SAMPLE_PDF.read_bytes()[:40_000])
        quire.split(truncated, tmp_path / "cut")
    assert failed.value.code == "corrupt"


def test_the_wheel_installs_beside_another_top_level_shared(tmp_path: Path) -> None:
    """The wheel holds `quire` and nothing else at the top level, so it cannot overwrite
    (or be shadowed by) distributions named shared, workers or orchestrator."""
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = wheels.glob("quire-*.whl")
    tops = {n.split("/")[0] for n in zipfile.ZipFile(wheel).namelist()}
    assert tops == {"quire", wheel.name.split("-py3")[0] + ".dist-info"}

    other = tmp_path / "other"
    (other / "shared").mkdir(parents=True)
    (other / "shared" / "__init__.py").write_text("MARKER = 'another distribution'\n")
    (other / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = '
        '"setuptools.build_meta"\n[project]\nname = "shared"\nversion = "1.0"\n'
    )
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    # the dependencies come from this environment's site-packages (a venv's, as the README's
    # set-up makes, or the system's: `--system-site-packages` would see the base
    # interpreter's only); quire and the other `shared` are installed into the venv itself
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()
    (Path(purelib) / "outer-environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    for target in (str(other), str(wheel)):
        # --ignore-installed: the outer environment's quire (seen through the system
        # site-packages) must not stand in for the wheel
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                "--no-deps",
                "--ignore-installed",
                "--disable-pip-version-check",
                target,
            ],
            check=True,
            capture_output=True,
            timeout=600,
        )
    work = tmp_path / "work"
    work.mkdir()
    code = f"""
import shared, quire, quire.shared.ir
assert shared.MARKER == 'another distribution', shared.__file__
assert quire.__file__.startswith({str(venv)!r}), quire.__file__
result = quire.split({str(SAMPLE_PDF)!r}, out='out')
assert result.verification.passed and result.sessions
print(len(result.sessions), 'sessions')
"""
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # only the venv's own
    run = subprocess.run(
        [str(python), "-c", code], cwd=work, capture_output=True, text=True, timeout=600, env=clean
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().endswith("sessions")
