"""One settings model for every QUIRE_* variable: documented, the only reader of the
environment, validated at start in one line, and shown by `quire config` with secrets
redacted."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pipeline_utils import ROOT, SAMPLE_PDF

from quire.shared.settings import ENV_NAMES, markdown_table

CODE = [p for d in ("shared", "workers", "orchestrator") for p in sorted((ROOT / d).rglob("*.py"))]
CODE += sorted((ROOT / "quire").glob("*.py"))
NAME = re.compile(r"QUIRE_[A-Z0-9_]*[A-Z0-9]\b")  # a family such as QUIRE_BACKEND_* is not one
DOCS = (ROOT / "README.md").read_text() + (ROOT / "deploy" / "OPERATIONS.md").read_text()


def test_every_setting_is_documented_and_the_readme_table_is_the_model() -> None:
    assert markdown_table() in (ROOT / "README.md").read_text()
    for name in ENV_NAMES:
        assert f"`{name}`" in DOCS, name


def test_code_names_no_variable_the_model_does_not_define() -> None:
    named = {m.group(0): p for p in CODE for m in NAME.finditer(p.read_text())}
    unknown = sorted(f"{n} ({p.relative_to(ROOT)})" for n, p in named.items() if n not in ENV_NAMES)
    assert unknown == []


def test_only_the_settings_model_reads_quire_variables() -> None:
    reads = re.compile(
        r"(environ\.get\(|getenv\()\s*[\"']QUIRE_|"
        r"environ\[[\"']QUIRE_[A-Z0-9_]+[\"']\](?!\s*=[^=])"
    )
    readers = sorted(
        str(p.relative_to(ROOT))
        for p in CODE
        if p.name != "settings.py" and reads.search(p.read_text())
    )
    assert readers == []
    assert not any("envvar=" in p.read_text() for p in (ROOT / "orchestrator" / "cli").glob("*.py"))


def quire(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(
        [sys.executable, "-m", "quire.orchestrator.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )


@pytest.mark.parametrize(
    ("env", "args", "says"),
    [
        (
            {"QUIRE_REVIEW_BACKEND": "bogus"},
            ["status"],
            "QUIRE_REVIEW_BACKEND='bogus': Input should",
        ),
        (
            {"QUIRE_DEADLINE_SCALE": "0"},
            ["status"],
            "QUIRE_DEADLINE_SCALE='0': Input should be greater than 0",
        ),
        ({"QUIRE_LOG_FORMAT": "xml"}, ["status"], "QUIRE_LOG_FORMAT='xml'"),
        ({"QUIRE_BACKEND_CONCURRENCY": "many"}, ["status"], "QUIRE_BACKEND_CONCURRENCY='many'"),
        (
            {"QUIRE_TRIGGER_OUTPUT_PREFIX": "inbox/done/"},
            ["status"],
            "overlaps QUIRE_TRIGGER_PREFIX",
        ),
        (
            {},
            ["run", "--input", str(SAMPLE_PDF), "--out", "o", "--overlap-pages", "-3"],
            "--overlap-pages=-3: Input should be greater than or equal to 0",
        ),
        (
            {},
            [
                "run",
                "--input",
                str(SAMPLE_PDF),
                "--out",
                "o",
                "--min-pages",
                "12",
                "--max-pages",
                "5",
            ],
            "--min-pages/--max-pages: session sizes must satisfy minimum <= maximum",
        ),
        (
            {},
            ["run", "--input", str(SAMPLE_PDF), "--out", "o", "--min-pages", "0"],
            "--min-pages=0.0: Input should be greater than 0",
        ),
        ({}, ["batch", str(SAMPLE_PDF), "--max-doc-pages", "0"], "--max-doc-pages=0"),
    ],
)
def test_a_bad_setting_fails_in_one_line(
    tmp_path: Path, env: dict[str, str], args: list[str], says: str
) -> None:
    run = quire(tmp_path, *args, **env)
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr, run.stderr
    assert "bad_setting" in run.stderr and says in run.stderr, run.stderr
    assert not (tmp_path / "o").exists() and not (tmp_path / ".quire").exists()


def test_config_shows_the_effective_settings_with_secrets_redacted(tmp_path: Path) -> None:
    run = quire(
        tmp_path,
        "config",
        "--json",
        QUIRE_WEBHOOK_TOKEN="s3cret-token",
        QUIRE_PDF_PASSWORD="pdf-pass",
        QUIRE_REVIEW_BACKEND="anthropic",
    )
    assert run.returncode == 0, run.stderr
    shown = json.loads(run.stdout)
    assert list(shown) == list(ENV_NAMES)
    assert shown["QUIRE_REVIEW_BACKEND"] == "anthropic"
    assert shown["QUIRE_WEBHOOK_TOKEN"] == shown["QUIRE_PDF_PASSWORD"] == "**********"
    assert "s3cret-token" not in run.stdout and "pdf-pass" not in run.stdout
    table = quire(tmp_path, "config", QUIRE_WEBHOOK_TOKEN="s3cret-token")
    assert "QUIRE_WEBHOOK_TOKEN" in table.stdout and "s3cret-token" not in table.stdout
