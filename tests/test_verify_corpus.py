"""Untouched output of real corpus documents verifies clean, in every output format.

The IR here is deliberately simple (one element per PyMuPDF text block; the real DOCX
parser for DOCX) and the plan cuts about every 8 pages: the subject is the writer and the
verifier, not the parser or planner, and this keeps the run to seconds.
"""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest
from corpus import CORPUS
from writefix import outline_titles, plan_every, simple_pdf_ir

from quire.shared.errors import InputError
from quire.shared.ir import dump_ir
from quire.shared.manifest import OutputFormat
from quire.workers.parse.docx import parse_docx
from quire.workers.verify import render_compare_batch, verify_output
from quire.workers.write import save_files, write_all, write_chunk

pytestmark = pytest.mark.corpus


def _write_pdf_doc(name: str, formats: set[OutputFormat], out: Path, overlap: int = 1) -> Path:
    path = CORPUS / name
    doc = simple_pdf_ir(path)
    plan = plan_every(doc, 8, outline_titles(path))
    files = write_all(
        doc,
        plan,
        formats=formats,
        source_pdf=path,
        images={},
        overlap_pages=overlap,
    )
    files["ir.json"] = dump_ir(doc)
    files["plan.json"] = plan.model_dump_json(indent=1).encode()
    save_files(out, files)
    return path


@pytest.mark.parametrize(
    "formats", [{"markdown"}, {"pdf"}, {"markdown", "pdf"}], ids=["markdown", "pdf", "both"]
)
@pytest.mark.parametrize(
    "name", ["fhs-3.0.pdf", "lshort-persian.pdf", "freefem-manual-scanned-pages.pdf"]
)
def test_pdf_output_verifies_clean(name: str, formats: set[OutputFormat], tmp_path: Path) -> None:
    source = _write_pdf_doc(name, formats, tmp_path)
    report = verify_output(tmp_path, source_pdf=source)
    assert report.findings == [] and report.passed
    with pymupdf.open(source) as pdf:
        pages = pdf.page_count
    if "pdf" in formats:
        assert report.checked["rendered_pages"] >= pages
    if "markdown" in formats:
        assert report.checked["elements"] > 100


def test_figure_heavy_and_restricted_pdfs_render_identically(tmp_path: Path) -> None:
    # beamer: transparency groups on figure pages; maint-guide: encrypted, owner password
    for name in ("beamer-user-guide.pdf", "maint-guide-permissions-restricted.pdf"):
        out = tmp_path / name
        source = _write_pdf_doc(name, {"pdf"}, out, overlap=0)
        report = verify_output(out, source_pdf=source)
        assert report.findings == [], name
        assert report.checked["rendered_pages"] >= report.checked["source_pages"]


def test_persian_titles_keep_their_script_in_file_names(tmp_path: Path) -> None:
    _write_pdf_doc("lshort-persian.pdf", {"markdown"}, tmp_path)
    names = sorted(p.name for p in tmp_path.glob("*.md"))
    slugs = [n.split("-", 1)[1].removesuffix(".md") for n in names[1:]]
    assert slugs and not any(s.startswith("section-") for s in slugs)
    assert all(re.search(r"[\u0600-\u06ff]", s) for s in slugs), slugs


@pytest.mark.parametrize("name", ["python-hashlib.docx", "debian-handbook-fa-ch03-04.docx"])
def test_docx_markdown_output_verifies_clean(name: str, tmp_path: Path) -> None:
    parsed = parse_docx(CORPUS / name)
    doc = parsed.document
    plan = plan_every(doc, 4)
    with pytest.raises(InputError, match="this document is DOCX"):
        write_chunk(doc, plan, 1, formats={"pdf"}, source_pdf=None, images=parsed.images)
    files = write_all(doc, plan, formats={"markdown"}, source_pdf=None, images=parsed.images)
    files["ir.json"] = dump_ir(doc)
    save_files(tmp_path, files)
    report = verify_output(tmp_path, source_pdf=None)
    assert report.findings == [] and report.passed
    assert report.checked["images"] >= 1 and report.checked["elements"] == len(doc.elements)


def test_big_document_page_subset(tmp_path: Path) -> None:
    """r-fullrefman (2,415 pages): chunks around pages 1201-1260 only."""
    source = CORPUS / "r-fullrefman.pdf"
    doc = simple_pdf_ir(source, text_pages=range(1150, 1320))
    plan = plan_every(doc, 8)
    wanted = [c for c in plan.chunks if 1201 <= c.page_first <= 1260]
    assert len(wanted) >= 6
    checks, pdfs = [], {}
    for c in wanted:
        written = write_chunk(
            doc, plan, c.number, formats={"pdf"}, source_pdf=source, images={}, overlap_pages=1
        )
        assert written.entry.pdf_file and written.entry.pdf_pages
        pdfs[c.number] = tmp_path / written.entry.pdf_file
        save_files(tmp_path, written.files)
        checks += [(c.number, i, p) for i, p in enumerate(written.entry.pdf_pages)]
    assert render_compare_batch(source, pdfs, checks) == []
    # and every page shifted by one is caught (dense reference pages)
    shifted = [(n, i, p + 1) for n, i, p in checks if p < doc.page_count]
    bad = render_compare_batch(source, pdfs, shifted)
    assert len(bad) == len(shifted)
