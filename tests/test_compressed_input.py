"""Documents shipped compressed (Debian keeps its manuals as `.pdf.gz`): read as the
document inside, one document with the plain file; a bad archive fails alone; and a batch
run again in its own folder takes none of Quire's files (its chunk PDFs, its store) as books."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from gen_docs import textbook_pdf

from quire.orchestrator.cli import main
from quire.shared.errors import CorruptDocumentError, TooLargeError
from quire.workers.parse.compressed import decompress, inner_name

PDF = b"%PDF-1.4\n" + b"0" * 5000


@pytest.mark.parametrize(
    ("name", "inner"),
    [
        ("manual.pdf.gz", "manual.pdf"),
        ("Guide.EPUB.XZ", "Guide.EPUB"),
        ("notes.docx.bz2", "notes.docx"),
        ("data.tar.gz", None),  # no document inside
        ("manual.pdf", None),
        ("manual.gz", None),
    ],
)
def test_a_compressed_document_is_named_by_the_document_inside(
    name: str, inner: str | None
) -> None:
    assert inner_name(name) == inner


@pytest.mark.parametrize(
    ("suffix", "pack"), [(".gz", gzip.compress), (".xz", lzma.compress), (".bz2", bz2.compress)]
)
def test_each_compression_unpacks_within_the_limit(suffix: str, pack) -> None:  # type: ignore[no-untyped-def]
    data = pack(PDF)
    assert decompress(data, f"m.pdf{suffix}", limit=len(PDF)) == PDF
    with pytest.raises(TooLargeError, match="over the limit of 4000 bytes"):
        decompress(data, f"m.pdf{suffix}", limit=4000)  # read no further than the limit
    with pytest.raises(CorruptDocumentError, match=f"the \\{suffix} file is cut short"):
        decompress(data[: len(data) // 2], f"m.pdf{suffix}", limit=len(PDF))
    with pytest.raises(CorruptDocumentError, match=f"not a valid \\{suffix} file"):
        decompress(b"plain text, not packed", f"m.pdf{suffix}", limit=len(PDF))


def quire_cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_a_folder_of_compressed_manuals_then_the_same_batch_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the embedded default: its store (.quire) inside the folder, the output folder too
    for name in ("QUIRE_STORE_URL", "QUIRE_STATE_DIR", "QUIRE_BROKER_URL", "QUIRE_REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    monkeypatch.chdir(shelf)
    book = textbook_pdf(tmp_path / "book.pdf", seed=3).read_bytes()
    (shelf / "manual.pdf.gz").write_bytes(gzip.compress(book))
    (shelf / "same-manual.pdf").write_bytes(book)
    (shelf / "other.pdf.xz").write_bytes(
        lzma.compress(textbook_pdf(tmp_path / "o.pdf", 5).read_bytes())
    )
    (shelf / "broken.pdf.gz").write_bytes(b"not gzip at all")
    (shelf / "README.gz").write_bytes(gzip.compress(b"no document"))

    def run() -> dict[str, dict]:
        result = quire_cli(
            "batch", ".", "--out", "out", "--output-format", "both", "--processes", "1"
        )
        assert result.exit_code == 1, result.output  # broken.pdf.gz fails, alone
        report = json.loads((shelf / "out" / "batch-report.json").read_text())
        return {d["name"]: d for d in report["documents"]}

    docs = run()
    assert sorted(docs) == ["broken.pdf.gz", "manual.pdf.gz", "other.pdf.xz", "same-manual.pdf"]
    assert docs["broken.pdf.gz"]["error_code"] == "corrupt"
    assert "not a valid .gz file" in docs["broken.pdf.gz"]["error"]
    for name in ("manual.pdf.gz", "other.pdf.xz", "same-manual.pdf"):
        assert docs[name]["state"] == "complete" and docs[name]["verification"] == "passed"
    assert docs["manual.pdf.gz"]["doc_id"] == docs["same-manual.pdf"]["doc_id"]  # one document
    assert (shelf / "out" / "manual" / "manifest.json").is_file()  # named as the inside
    assert (shelf / "out" / "other" / "manifest.json").is_file()
    assert list((shelf / "out" / "manual").glob("*.pdf"))  # chunk PDFs beside the sources
    assert list((shelf / ".quire").rglob("*.pdf"))  # and the stored sources

    # the same command again (after a crash, or with new books): the same four, not
    # Quire's chunk PDFs and stored sources as new books
    assert sorted(run()) == sorted(docs)


def test_parse_reads_the_document_inside_from_a_script_and_the_cli(tmp_path: Path) -> None:
    import quire

    book = textbook_pdf(tmp_path / "book.pdf", seed=4)
    packed = tmp_path / "book-copy.pdf.gz"
    packed.write_bytes(gzip.compress(book.read_bytes()))
    doc = quire.parse(packed)
    assert doc.doc_id == quire.parse(book).doc_id and doc.source_name == "book-copy.pdf"
    result = quire_cli("parse", "--input", str(packed), "--out", str(tmp_path / "ir"))
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "ir" / "ir.json").read_text())["doc_id"] == doc.doc_id
