"""`quire batch` for real: a mix of good and bad corpus documents in embedded mode (failures
isolated, with their reasons), re-submission without duplicate work, limits, --detach with
`quire status`, an S3 prefix as the source, and the distributed stack."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from pipeline_utils import CORPUS
from services import CeleryWorker, RedisServer

from quire.orchestrator.cli import main
from quire.shared.settings import load_settings
from quire.workers.runtime import Runtime

GOOD = ["latex-news-22.pdf", "python-hashlib.docx", "octave-refcard-a4.pdf"]
BAD = {  # file -> the reason code it must fail with
    "debian-faq-password.pdf": "encrypted",
    "r-data-truncated.pdf": "corrupt",
    "liboctave-excerpt-image-only.pdf": "empty",
}
ALL_QUEUES = "orchestrate,parse,review,write,render,analysis"


@pytest.fixture(autouse=True)
def fresh_broker_connections() -> Iterator[None]:
    """The Celery app is process-wide: drop its pooled connections to an earlier test's
    (stopped) broker before and after each test."""
    from quire.workers.app import app

    app._after_fork()
    yield
    app._after_fork()


@pytest.fixture
def local_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An embedded installation in tmp_path (store + revision database)."""
    for name in (
        "QUIRE_BROKER_URL",
        "QUIRE_REDIS_URL",
        "QUIRE_MAX_FILE_BYTES",
        "QUIRE_MAX_DOC_PAGES",
        "QUIRE_REVIEW_BACKEND",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("QUIRE_STORE_URL", str(tmp_path / "store"))
    monkeypatch.setenv("QUIRE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def quire(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def shelf(tmp: Path, names: list[str]) -> Path:
    folder = tmp / "shelf"
    folder.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(CORPUS / name, folder / name)
    return folder


def report_of(path: Path) -> dict[str, dict]:
    report = json.loads(path.read_text())
    return {d["name"]: d for d in report["documents"]}


def test_batch_isolates_failures_and_resubmits_without_work(local_env: Path) -> None:
    tmp = local_env
    folder = shelf(tmp, [*GOOD, *BAD])
    (folder / "MANIFEST.md").write_text("not a book")  # in a folder: skipped, not failed
    notes = tmp / "notes.txt"
    notes.write_text("named explicitly: must fail with a reason")
    out = tmp / "out"

    # --ocr off: the image-only PDF has no text then
    started = time.monotonic()
    result = quire(
        "batch", str(folder), str(notes), "--out", str(out), "--processes", "1", "--ocr", "off"
    )
    wall = time.monotonic() - started
    assert result.exit_code == 1, result.output  # some failed, the others completed
    assert "skipping" in result.output and "MANIFEST.md" in result.output

    docs = report_of(out / "batch-report.json")
    assert sorted(docs) == sorted([*GOOD, *BAD, "notes.txt"])
    for name in GOOD:
        d = docs[name]
        assert (d["state"], d["verification"]) == ("complete", "passed"), d
        assert d["chunks"] >= 1 and d["pages"] >= 2 and d["seconds"] > 0
        folder_out = out / Path(name).stem
        assert (folder_out / "manifest.json").is_file()
        assert (folder_out / "verification-report.json").is_file()
        assert any(folder_out.glob("*.md"))
    for name, code in BAD.items():
        assert (docs[name]["state"], docs[name]["error_code"]) == ("failed", code), docs[name]
        assert docs[name]["error"]
        assert not (out / Path(name).stem).exists()
    assert docs["notes.txt"]["error_code"] == "unsupported_format"
    # each document's time is its own: on one process, the times together fit in the
    # batch's wall time (not each document the whole batch's, as when its time was the span
    # from its start to its stop, mostly spent waiting behind the others)
    assert 0 < sum(d["seconds"] or 0 for d in docs.values()) < wall
    # the summary table names every document and the failure reasons
    for text in [*GOOD, *BAD, "notes.txt", "password", "truncated"]:
        assert text in result.output, text

    report = json.loads((out / "batch-report.json").read_text())
    assert report["finished"] and not report["ok"]
    assert report["counts"] == {"complete": 3, "failed": 4}
    rt = Runtime.from_env(load_settings())
    record = json.loads(rt.store.get(f"batches/{report['batch_id']}.json"))
    assert len(record["items"]) == 7 and record["skipped"] == [str(folder / "MANIFEST.md")]

    # the same files again: the same batch, no new revision on any document
    revisions = {d: rt.repo.current_revision(d) for d in rt.revisions.list_docs()}
    again = quire(
        "batch", str(folder), str(notes), "--out", str(out), "--processes", "1", "--ocr", "off"
    )
    assert again.exit_code == 1
    assert json.loads((out / "batch-report.json").read_text())["batch_id"] == report["batch_id"]
    assert {d: rt.repo.current_revision(d) for d in rt.revisions.list_docs()} == revisions

    status = quire("status", report["batch_id"][:12])
    assert status.exit_code == 0
    assert "octave-refcard-a4.pdf" in status.output and "encrypted" in status.output


def test_books_of_one_name_get_folders_named_by_their_type(local_env: Path) -> None:
    """A book as PDF and as DOCX in one folder are told apart by type ("guide-pdf",
    "guide-docx"); two PDFs of one name from two folders by their document ids."""
    tmp = local_env
    (tmp / "a").mkdir()
    (tmp / "b").mkdir()
    shutil.copy(CORPUS / "latex-news-22.pdf", tmp / "a" / "guide.pdf")
    shutil.copy(CORPUS / "python-hashlib.docx", tmp / "a" / "guide.docx")
    shutil.copy(CORPUS / "octave-refcard-a4.pdf", tmp / "b" / "guide.pdf")
    result = quire("batch", str(tmp / "a"), "--out", str(tmp / "one"))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp / "one").iterdir() if p.is_dir()) == [
        "guide-docx",
        "guide-pdf",
    ]
    out = tmp / "two"
    result = quire(
        "batch", str(tmp / "a" / "guide.pdf"), str(tmp / "b" / "guide.pdf"), "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    report = json.loads((out / "batch-report.json").read_text())
    folders = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert folders == sorted(f"guide-{d['doc_id'][:8]}" for d in report["documents"])
    assert all((out / f / "manifest.json").is_file() for f in folders)


def test_a_file_with_another_files_bytes_says_so_when_it_fails(local_env: Path) -> None:
    """Two names, one document (its id is its bytes): the failure of the one read names
    that file, and the other's row says it has the same bytes instead of naming a file
    that is not its own (a program shipped as 'loader.docx' and 'loader.pdf')."""
    tmp = local_env
    (tmp / "in").mkdir()
    data = (CORPUS / "r-data-truncated.pdf").read_bytes()
    (tmp / "in" / "a-broken.pdf").write_bytes(data)
    (tmp / "in" / "b-broken.pdf").write_bytes(data)
    result = quire("batch", str(tmp / "in"), "--out", str(tmp / "out"))
    assert result.exit_code == 1, result.output
    docs = report_of(tmp / "out" / "batch-report.json")
    first, second = docs["a-broken.pdf"], docs["b-broken.pdf"]
    assert first["doc_id"] == second["doc_id"] and first["error_code"] == "corrupt"
    assert "a-broken.pdf" in first["error"] and "b-broken.pdf" not in first["error"]
    assert second["error"].startswith("the same bytes as a-broken.pdf, which failed: ")


def test_batch_limits_refuse_clearly_and_rerun_admits(local_env: Path) -> None:
    folder = shelf(local_env, ["latex-news-22.pdf", "octave-refcard-a4.pdf"])
    big = folder / "latex-news-22.pdf"
    result = quire("batch", str(big), "--max-file-bytes", "100000", "--processes", "1")
    assert result.exit_code == 1
    doc = report_of(local_env / "batch-report.json")["latex-news-22.pdf"]
    assert doc["error_code"] == "too_large" and "over the limit of 100000" in doc["error"]

    result = CliRunner(env={"QUIRE_MAX_DOC_PAGES": "2"}).invoke(
        main, ["batch", str(folder / "octave-refcard-a4.pdf"), "--processes", "1"]
    )
    assert result.exit_code == 1
    doc = report_of(local_env / "batch-report.json")["octave-refcard-a4.pdf"]
    assert doc["error_code"] == "too_large" and "3 pages, over the limit of 2" in doc["error"]

    # with the default limits and --rerun, both are admitted and complete
    result = quire("batch", str(folder), "--rerun", "--processes", "1")
    assert result.exit_code == 0, result.output
    docs = report_of(local_env / "batch-report.json")
    assert {d["state"] for d in docs.values()} == {"complete"}


def test_detached_batch_is_followed_with_status(local_env: Path) -> None:
    doc = CORPUS / "latex-news-22.pdf"
    env = {**os.environ, "COLUMNS": "200"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "quire.orchestrator.cli",
            "batch",
            str(doc),
            "--detach",
            "--processes",
            "1",
            "--out",
            str(local_env / "out"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=local_env,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    batch_id = run.stdout.strip()
    assert batch_id.startswith("batch-") and "quire status" in run.stderr
    deadline = time.monotonic() + 60
    while True:
        status = subprocess.run(
            [sys.executable, "-m", "quire.orchestrator.cli", "status", batch_id],
            capture_output=True,
            text=True,
            env=env,
            cwd=local_env,
            timeout=60,
        )
        assert status.returncode == 0, status.stderr
        if "verification" in status.stdout:  # the summary table: the batch has finished
            break
        assert "progress" in status.stdout  # the live view while it runs
        assert time.monotonic() < deadline, status.stdout
        time.sleep(0.5)
    assert "latex-news-22.pdf" in status.stdout and "complete" in status.stdout
    for _ in range(100):  # the background process writes its report after the last commit
        if (local_env / "out" / "batch-report.json").exists():
            break
        time.sleep(0.1)
    assert (
        report_of(local_env / "out" / "batch-report.json")["latex-news-22.pdf"]["verification"]
        == "passed"
    )
    assert (local_env / "out" / "latex-news-22" / "manifest.json").is_file()


def test_batch_from_an_s3_prefix(
    local_env: Path, s3_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import boto3

    s3 = boto3.client("s3", endpoint_url=s3_env)
    bucket = f"shelf-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    for name in ("latex-news-22.pdf", "python-hashlib.docx"):
        s3.put_object(Bucket=bucket, Key=f"books/{name}", Body=(CORPUS / name).read_bytes())
    s3.put_object(Bucket=bucket, Key="books/readme.txt", Body=b"not a book")
    s3.put_object(Bucket=bucket, Key="other/r-data.pdf", Body=b"%PDF-1.4 outside the prefix")
    # the store under the same prefix: its stored sources are no books of the next batch
    monkeypatch.setenv("QUIRE_STORE_URL", f"s3://{bucket}/books/quire-store")

    for _ in range(2):
        result = quire(
            "batch", f"s3://{bucket}/books/", "--out", str(local_env / "out"), "--processes", "1"
        )
        assert result.exit_code == 0, result.output
        assert f"s3://{bucket}/books/readme.txt" in result.output  # skipped, said so
        docs = report_of(local_env / "out" / "batch-report.json")
        assert sorted(docs) == ["latex-news-22.pdf", "python-hashlib.docx"]
    assert docs["latex-news-22.pdf"]["origin"] == f"s3://{bucket}/books/latex-news-22.pdf"
    assert (local_env / "out" / "python-hashlib" / "manifest.json").is_file()


@pytest.mark.services
def test_distributed_batch(
    private_redis: RedisServer, s3_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from quire.shared.store.s3 import S3Store

    store = S3Store(f"quire-batch-{uuid.uuid4().hex[:10]}", "lib", endpoint_url=s3_env)
    store.ensure_bucket()
    base = private_redis.url.rsplit("/", 1)[0]
    env = {
        "QUIRE_BROKER_URL": f"{base}/0",
        "QUIRE_REDIS_URL": f"{base}/1",
        "QUIRE_STORE_URL": store.url,
        "QUIRE_STATE_DIR": str(tmp_path / "state"),
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    worker_env = {k: v for k, v in os.environ.items() if k.startswith(("AWS_", "QUIRE_"))}
    names = ["latex-news-22.pdf", "python-hashlib.docx", "r-data-truncated.pdf"]
    folder = shelf(tmp_path, names)
    with CeleryWorker(f"batch{uuid.uuid4().hex[:6]}", ALL_QUEUES, worker_env, concurrency=2):
        result = quire("batch", str(folder), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1, result.output
    docs = report_of(tmp_path / "out" / "batch-report.json")
    assert json.loads((tmp_path / "out" / "batch-report.json").read_text())["mode"] == "distributed"
    assert docs["r-data-truncated.pdf"]["error_code"] == "corrupt"
    for name in names[:2]:
        assert (docs[name]["state"], docs[name]["verification"]) == ("complete", "passed")
        assert (tmp_path / "out" / Path(name).stem / "manifest.json").is_file()
    rt = Runtime.from_env(load_settings())
    actors = {h.actor for d in rt.revisions.list_docs() for h in rt.repo.history(d)}
    assert {"batch", "orchestrator", "worker:parse"} <= actors


def test_batch_of_epubs_and_an_html_book_folder(local_env: Path) -> None:
    """EPUBs in a folder are documents; a folder that states its chapters' order is one
    HTML book; a DRM-protected EPUB fails alone with its own code."""
    from epub_samples import sample_chapters, sample_nav

    data = Path(__file__).parent / "data"
    shelf = local_env / "shelf"
    shelf.mkdir()
    shutil.copy(data / "maint-guide-en.epub", shelf / "maint-guide-en.epub")
    shutil.copytree(data / "maint-guide-html", shelf / "maint-guide-html")
    # as Debian ships its FAQ: the same book compressed beside the chapters, no other book
    (shelf / "maint-guide-html" / "maint-guide.pdf.gz").write_bytes(gzip.compress(b"%PDF-1.4"))
    drm = epub_with_drm(sample_chapters(1), sample_nav(1))
    (shelf / "locked.epub").write_bytes(drm)
    out = local_env / "out"
    result = quire("batch", str(shelf), "--out", str(out), "--processes", "1")
    assert result.exit_code == 1, result.output
    docs = report_of(out / "batch-report.json")
    assert sorted(docs) == ["locked.epub", "maint-guide-en.epub", "maint-guide-html.htmlz"]
    for name in ("maint-guide-en.epub", "maint-guide-html.htmlz"):
        assert (docs[name]["state"], docs[name]["verification"]) == ("complete", "passed")
        assert docs[name]["chunks"] >= 2
    assert (docs["locked.epub"]["state"], docs["locked.epub"]["error_code"]) == ("failed", "drm")
    assert "skipping" not in result.output  # the chapters of the HTML book are not skipped


def epub_with_drm(chapters: list[tuple[str, str]], nav: list[tuple[int, str, str]]) -> bytes:
    from epub_samples import epub_bytes

    enc = (
        b'<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        b'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
        b'<enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>'
        b'<enc:CipherData><enc:CipherReference URI="OEBPS/ch1.xhtml"/></enc:CipherData>'
        b"</enc:EncryptedData></encryption>"
    )
    return epub_bytes(chapters, nav=nav, extra={"META-INF/encryption.xml": enc})


def test_quire_run_takes_a_folder_of_html_chapters(local_env: Path) -> None:
    book = Path(__file__).parent / "data" / "maint-guide-html"
    result = quire("run", "--input", str(book), "--out", str(local_env / "html"))
    assert result.exit_code == 0, result.output
    assert "verification passed" in result.output.lower() or "passed" in result.output
    assert sorted(p.name for p in (local_env / "html").glob("*.md"))[0].startswith("01-")
    refused = quire(
        "run", "--input", str(book), "--out", str(local_env / "pdf"), "--output-format", "pdf"
    )
    assert refused.exit_code != 0
    assert "PDF output needs a PDF source; this document is HTML" in refused.output
    empty = local_env / "loose"
    empty.mkdir()
    (empty / "a.html").write_text("<p>a</p>")
    loose = quire("run", "--input", str(empty), "--out", str(local_env / "loose-out"))
    assert loose.exit_code != 0 and "states no order" in loose.output


def test_a_folder_named_html_is_its_packages_book_and_a_linked_index_counts_once(
    local_env: Path,
) -> None:
    """Debian ships its manuals as usr/share/doc/PACKAGE/html: three books in a batch were
    all "html.htmlz". Its FAQ links index.html to index.en.html, which read as two index
    pages and so no book at all (its 34 chapter files skipped one by one)."""
    shelf_ = local_env / "doc"
    guide = shelf_ / "maint-guide" / "html"
    shutil.copytree(Path(__file__).parent / "data" / "maint-guide-html", guide)
    faq = shelf_ / "faq"
    shutil.copytree(Path(__file__).parent / "data" / "maint-guide-html", faq)
    index = next(p for p in faq.iterdir() if p.name.startswith("index"))
    index.rename(faq / "index.en.html")
    (faq / "index.html").symlink_to("index.en.html")
    result = quire("batch", str(shelf_), "--out", str(local_env / "out"))
    assert result.exit_code == 0, result.output
    docs = report_of(local_env / "out" / "batch-report.json")
    assert sorted(docs) == ["faq.htmlz", "maint-guide.htmlz"]
    assert "skipping" not in result.output


def test_a_folders_other_files_are_named_a_few_and_counted(local_env: Path) -> None:
    """A shelf of HTML manuals printed one line per stylesheet and chapter file (71): the
    first ten are named, the rest counted by type."""
    folder = shelf(local_env, ["latex-news-22.pdf"])
    for k in range(8):
        (folder / f"style{k}.css").write_text("p {}")
    for k in range(6):
        (folder / f"notes{k}.txt").write_text("notes")
    result = quire("batch", str(folder), "--out", str(local_env / "out"))
    assert result.exit_code == 0, result.output
    named = [line for line in result.output.splitlines() if line.startswith(f"skipping {folder}")]
    assert len(named) == 10
    assert "skipping 4 more files that are not documents (.css 4)" in result.output  # sorted
