"""Password-protected PDFs: opened at admission with a password given at run time, stored
as a decrypted copy (the document id stays the upload's hash), never stored themselves.

Generated encrypted PDFs (tests/scans.py) through the real CLI, batches and the library; the
corpus's own encrypted files in test_ocr_corpus.py. That no password reaches a session,
log, task message or output on the distributed stack is in test_secrets.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from gen_docs import textbook_pdf
from pipeline_utils import local_runtime
from pydantic import SecretStr
from scans import encrypt_pdf

from quire.orchestrator.local import run_documents
from quire.orchestrator.passwords import PasswordFileError, Passwords
from quire.shared.config import RunSettings
from quire.shared.settings import Settings
from quire.shared.text import sha256_bytes
from quire.workers.execute import submit

PASSWORD = "pässwörd with spaces & ünicode"


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("locked")
    born = textbook_pdf(tmp / "born.pdf", 77, chapter_count=3, paragraphs=14)
    return encrypt_pdf(born, tmp / "locked.pdf", user=PASSWORD, owner="the-owner")


def quire(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    import os

    full = {k: v for k, v in os.environ.items() if not k.startswith("QUIRE_")}
    full |= {"QUIRE_STORE_URL": str(cwd / "store"), "QUIRE_STATE_DIR": str(cwd / "state")}
    return subprocess.run(
        [sys.executable, "-m", "quire.orchestrator.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=full | (env or {}),
    )


def test_run_without_wrong_and_right_password(locked: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    missing = quire(tmp_path, "run", "--input", str(locked), "--out", str(out))
    assert missing.returncode == 1 and "(encrypted)" in missing.stderr
    assert "--password-file" in missing.stderr

    wrong = tmp_path / "wrong.txt"
    wrong.write_text("not it\n")
    bad = quire(
        tmp_path, "run", "--input", str(locked), "--out", str(out), "--password-file", str(wrong)
    )
    assert bad.returncode == 1 and "(bad_password)" in bad.stderr
    assert "not it" not in bad.stderr

    right = tmp_path / "right.txt"
    right.write_text(PASSWORD + "\n")
    ok = quire(
        tmp_path, "run", "--input", str(locked), "--out", str(out), "--password-file", str(right)
    )
    assert ok.returncode == 0, ok.stderr
    assert "verification passed" in ok.stderr
    ir = json.loads((out / "ir.json").read_text())
    assert ir["doc_id"] == sha256_bytes(locked.read_bytes())  # the upload's hash
    assert ir["source_sha256"] != ir["doc_id"]
    assert any("decrypted copy" in n["message"] for n in ir["notes"])
    for path in out.rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path


def test_password_from_the_environment_and_pdf_outputs(locked: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    ok = quire(
        tmp_path,
        "run",
        "--input",
        str(locked),
        "--out",
        str(out),
        "--output-format",
        "both",
        env={"QUIRE_PDF_PASSWORD": PASSWORD},
    )
    assert ok.returncode == 0, ok.stderr
    assert list(out.glob("*.pdf"))
    # `quire verify` render-compares the chunk PDFs with the decrypted copy in the store
    again = quire(tmp_path, "verify", "--out", str(out))
    assert again.returncode == 0, again.stderr
    report = json.loads((out / "verification-report.json").read_text())
    assert report["checked"]["rendered_pages"] > 0
    # the original (encrypted) file cannot be rendered: a clear error, not a crash
    given = quire(tmp_path, "verify", "--out", str(out), "--source", str(locked))
    assert given.returncode == 2 and "(encrypted)" in given.stderr


def test_owner_password_only_pdf_needs_no_password(tmp_path: Path) -> None:
    born = textbook_pdf(tmp_path / "born.pdf", 78, chapter_count=3, paragraphs=14)
    restricted = encrypt_pdf(born, tmp_path / "restricted.pdf", user="", owner="owner-only")
    rt = local_runtime(tmp_path)
    s = submit(rt, restricted, RunSettings(output_format="both"))
    run_documents(rt, [s.doc_id], processes=1)
    assert rt.repo.load(s.doc_id).state == "complete"
    # stored as uploaded: nothing to unlock
    assert rt.store.get(s.source_key) == restricted.read_bytes()


def test_a_refused_document_is_admitted_once_its_password_is_given(
    locked: Path, tmp_path: Path
) -> None:
    rt = local_runtime(tmp_path)
    first = submit(rt, locked, RunSettings())
    assert (first.state, first.error_code) == ("failed", "encrypted")
    wrong = submit(rt, locked, RunSettings(), password="nope")
    assert (wrong.state, wrong.error_code) == ("failed", "bad_password")
    assert "nope" not in (wrong.error or "")
    right = submit(rt, locked, RunSettings(), password=PASSWORD)
    assert right.state == "queued" and right.doc_id == first.doc_id
    stored = rt.store.get(right.source_key)
    assert stored != locked.read_bytes() and b"/Encrypt" not in stored
    again = submit(rt, locked, RunSettings(), password=PASSWORD)  # nothing new to do
    assert again.revision == right.revision


def test_password_map_matches_names_and_origins_in_order(tmp_path: Path) -> None:
    table = tmp_path / "passwords.json"
    table.write_text(
        json.dumps(
            {"faq-*.pdf": "pw-one-9f3", "s3://books/locked/*": "pw-two-7c1", "*": "fallback"}
        )
    )
    pw = Passwords.load(map_file=table, settings=Settings())
    assert pw.for_document("faq-2024.pdf", "/data/faq-2024.pdf") == "pw-one-9f3"
    assert pw.for_document("x.pdf", "s3://books/locked/x.pdf") == "pw-two-7c1"
    assert pw.for_document("y.pdf", "/y.pdf") == "fallback"
    assert "pw-one-9f3" not in repr(pw) and "pw-two-7c1" not in str(pw)  # never printed by accident
    only_env = Passwords.load(settings=Settings(pdf_password=SecretStr("env-pw")))
    assert only_env.for_document("z.pdf") == "env-pw"
    table.write_text('{"a.pdf": "secret-value", "b.pdf": 3}')
    with pytest.raises(PasswordFileError) as exc:
        Passwords.load(map_file=table, settings=Settings())
    assert "secret-value" not in str(exc.value)


def test_batch_with_a_password_map(locked: Path, tmp_path: Path) -> None:
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    (shelf / "locked-a.pdf").write_bytes(locked.read_bytes())
    other = textbook_pdf(tmp_path / "b.pdf", 79, chapter_count=3, paragraphs=14)
    encrypt_pdf(other, shelf / "locked-b.pdf", user="b-secret", owner="b-owner")
    table = tmp_path / "passwords.json"
    table.write_text(json.dumps({"locked-a.pdf": PASSWORD, "*/shelf/locked-b*": "b-secret"}))
    out = tmp_path / "out"
    done = quire(
        tmp_path,
        "batch",
        str(shelf),
        "--out",
        str(out),
        "--password-map",
        str(table),
        "--processes",
        "1",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((out / "batch-report.json").read_text())
    assert {d["name"]: d["state"] for d in report["documents"]} == {
        "locked-a.pdf": "complete",
        "locked-b.pdf": "complete",
    }
    store = tmp_path / "store"
    for path in [*store.rglob("*"), *out.rglob("*"), *(tmp_path / "state").rglob("*")]:
        if path.is_file():
            data = path.read_bytes()
            assert PASSWORD.encode() not in data and b"b-secret" not in data, path


@pytest.mark.services
def test_triggered_uploads_use_the_password_map(
    locked: Path, s3_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Uploads to a real (moto) bucket: the map's pattern on the object's URI opens one
    locked PDF; the same bytes under another prefix have no password and are refused."""
    import boto3

    from quire.orchestrator.triggers import Intake, ObjectEvent, S3Objects, TriggerConfig

    s3 = boto3.client("s3", endpoint_url=s3_env)
    bucket = f"inbox-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    other = textbook_pdf(tmp_path / "b.pdf", 80, chapter_count=3, paragraphs=14)
    second = encrypt_pdf(other, tmp_path / "second.pdf", user="other-pw", owner="o")
    uploads = {"inbox/locked/a.pdf": locked, "inbox/open/b.pdf": second}
    for key, path in uploads.items():
        s3.put_object(Bucket=bucket, Key=key, Body=path.read_bytes())
    table = tmp_path / "map.json"
    table.write_text(json.dumps({f"s3://{bucket}/inbox/locked/*": PASSWORD}))
    monkeypatch.setenv("QUIRE_PDF_PASSWORD_MAP", str(table))
    rt = local_runtime(tmp_path)
    intake = Intake(
        rt, TriggerConfig(bucket=bucket), RunSettings(), S3Objects(rt.env.s3_endpoint_url)
    )
    events = [
        ObjectEvent(
            event_name="ObjectCreated:Put",
            bucket=bucket,
            key=k,
            etag=s3.head_object(Bucket=bucket, Key=k)["ETag"].strip('"'),
        )
        for k in uploads
    ]
    outcomes = intake.handle(events)
    assert all(o.action == "submitted" for o in outcomes), outcomes
    states = {rt.repo.load(d).source_name: rt.repo.load(d) for d in rt.revisions.list_docs()}
    assert states["a.pdf"].state == "queued"
    assert (states["b.pdf"].state, states["b.pdf"].error_code) == ("failed", "encrypted")
