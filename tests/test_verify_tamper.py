"""The verifier catches every kind of damage to written output, and names where it is."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pymupdf
import pytest
from writefix import Tiny, make_tiny, write_output

from quire.shared.manifest import Finding, VerificationReport, load_report
from quire.shared.plan import ReviewOutcome
from quire.workers.verify import (
    add_render_findings,
    plan_render_batches,
    run_render_batch,
    verify_output,
    write_report,
)
from quire.workers.write.markdown import anchor


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Tiny:
    return make_tiny(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def clean(tiny: Tiny, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_output(tmp_path_factory.mktemp("clean") / "out", tiny, {"markdown", "pdf"})


@pytest.fixture
def out(clean: Path, tmp_path: Path) -> Path:
    """A fresh copy of the clean output to tamper with."""
    return Path(shutil.copytree(clean, tmp_path / "out"))


def verify(out: Path, tiny: Tiny, **kw: object) -> VerificationReport:
    return verify_output(out, source_pdf=tiny.pdf, **kw)  # type: ignore[arg-type]


def find(report: VerificationReport, kind: str, says: str = "", **where: object) -> Finding:
    """The first finding of `kind` at `where` whose message contains `says`."""
    assert not report.passed
    hits = [
        f
        for f in report.findings
        if f.kind == kind
        and says in f.message
        and all(getattr(f, k) == v for k, v in where.items())
    ]
    listing = [f.model_dump(exclude_none=True) for f in report.findings]
    assert hits, f"no {kind} {where} in {listing}"
    assert hits[0].message
    return hits[0]


def edit(path: Path, change: Callable[[str], str]) -> None:
    before = path.read_text(encoding="utf-8")
    after = change(before)
    assert after != before, "the tamper did not change anything"
    path.write_text(after, encoding="utf-8")


def block(out: Path, name: str, eid: str) -> str:
    """The anchored block of element `eid` in chunk file `name`, with its separator."""
    text = (out / name).read_text(encoding="utf-8")
    start = text.index(anchor(eid))
    end = text.find("\n<!-- el-", start + 1)
    return text[start : end + 1] if end >= 0 else text[start:]


# --- clean output ----------------------------------------------------------------------------


@pytest.mark.parametrize("formats", [{"markdown"}, {"pdf"}, {"markdown", "pdf"}])
def test_untouched_output_verifies_clean(tiny: Tiny, tmp_path: Path, formats: set[str]) -> None:
    out = write_output(tmp_path / "out", tiny, formats)
    report = verify(out, tiny)
    assert report.passed and report.findings == []
    assert report.checked["chunks"] == 4
    if "markdown" in formats:
        assert report.checked["elements"] == 13 and report.checked["table_rows"] == 4
        assert report.checked["images"] == 1
    if "pdf" in formats:
        assert report.checked["rendered_pages"] == 12  # 6 core + overlap, shared pages twice
    path = write_report(out, report)
    assert load_report(path.read_bytes()) == report


def test_render_batches_fan_out_like_one_run(clean: Path, tiny: Tiny, out: Path) -> None:
    pdf = pymupdf.open(tiny.pdf)
    doc = pymupdf.open(out / "04-results.pdf")
    doc.delete_page(1)
    doc.insert_pdf(pdf, from_page=0, to_page=0)  # page 2 of chunk 4 is now source page 1
    doc.save(out / "04-results.pdf.new")
    (out / "04-results.pdf.new").replace(out / "04-results.pdf")
    whole = verify(out, tiny)
    base = verify_output(out, source_pdf=None, render=False)
    from quire.shared.manifest import load_manifest

    manifest = load_manifest((out / "manifest.json").read_bytes())
    batches = plan_render_batches(manifest, batch_size=5)
    assert [len(b.pages) for b in batches] == [5, 5, 2]
    found: list[Finding] = []
    for b in batches:  # as a worker would: from the batch message alone
        b = type(b).model_validate_json(b.model_dump_json())
        found += run_render_batch(out, tiny.pdf, b)
    merged = add_render_findings(base, found, sum(len(b.pages) for b in batches))
    assert merged == whole
    find(merged, "render_mismatch", chunk=4, out_page=2, page=6)


# --- markdown tampering -------------------------------------------------------------------------


def test_deleted_paragraph(out: Path, tiny: Tiny) -> None:
    edit(
        out / "01-introduction.md",
        lambda t: t.replace(block(out, "01-introduction.md", "el-000003"), ""),
    )
    report = verify(out, tiny)
    f = find(report, "missing", element_id="el-000003", chunk=1)
    assert "second paragraph" in f.message
    find(report, "word_drift", chunk=1)


def test_duplicated_paragraph(out: Path, tiny: Tiny) -> None:
    dup = block(out, "03-methods.md", "el-000010")
    edit(out / "04-results.md", lambda t: t + "\n" + dup)
    report = verify(out, tiny)
    find(report, "duplicated", element_id="el-000010", chunk=4)
    find(report, "word_drift", chunk=4)
    assert not [f for f in report.findings if f.kind == "missing"]


def test_swapped_paragraphs(out: Path, tiny: Tiny) -> None:
    a, b = (block(out, "01-introduction.md", e) for e in ("el-000002", "el-000003"))
    edit(out / "01-introduction.md", lambda t: t.replace(a + b, b + a))
    report = verify(out, tiny)
    find(report, "reordered", element_id="el-000002", chunk=1)
    assert {f.kind for f in report.findings} == {"reordered", "manifest_mismatch"}


def test_swap_across_chunks(out: Path, tiny: Tiny) -> None:
    a = block(out, "02-images.md", "el-000008")
    b = block(out, "03-methods.md", "el-000009")
    edit(out / "02-images.md", lambda t: t.replace(a, b.rstrip("\n") + "\n"))
    edit(out / "03-methods.md", lambda t: t.replace(b, a + "\n"))
    report = verify(out, tiny)
    find(report, "reordered", element_id="el-000008", chunk=3)
    find(report, "manifest_mismatch", element_id="el-000009", chunk=2)


def test_changed_word(out: Path, tiny: Tiny) -> None:
    edit(out / "03-methods.md", lambda t: t.replace("keeps the order", "keeps the ordre"))
    report = verify(out, tiny)
    f = find(report, "altered", element_id="el-000010", chunk=3)
    assert "'order'" in f.message and "'ordre'" in f.message
    find(report, "manifest_mismatch", chunk=3, file="03-methods.md")
    assert not [f for f in report.findings if f.kind == "word_drift"]  # same word count


def test_dropped_table_row(out: Path, tiny: Tiny) -> None:
    edit(out / "01-introduction.md", lambda t: t.replace("| cd | change directory |\n", ""))
    report = verify(out, tiny)
    f = find(report, "table_rows", element_id="el-000005", chunk=1)
    assert "row 3 of 4" in f.message and "change directory" in f.message
    find(report, "altered", element_id="el-000005")
    find(report, "word_drift", chunk=1)


def test_replaced_image(out: Path, tiny: Tiny) -> None:
    (name,) = tiny.images
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 30), False)
    pix.set_rect(pix.irect, (0, 200, 0))
    (out / name).write_bytes(pix.tobytes("png"))
    report = verify(out, tiny)
    f = find(report, "image_hash", chunk=2, file=name)
    assert "differ from the IR" in f.message


def test_deleted_image(out: Path, tiny: Tiny) -> None:
    (name,) = tiny.images
    (out / name).unlink()
    report = verify(out, tiny)
    assert "does not exist" in find(report, "image_hash", chunk=2, file=name).message


def test_unknown_element_and_orphan_text(out: Path, tiny: Tiny) -> None:
    edit(out / "01-introduction.md", lambda t: t.replace(anchor("el-000004"), anchor("el-000099")))
    edit(out / "04-results.md", lambda t: t.replace("-->\n\n", "-->\n\nSneaked in words.\n\n", 1))
    report = verify(out, tiny)
    find(report, "unknown", element_id="el-000099", chunk=1)
    find(report, "missing", element_id="el-000004", chunk=1)
    assert "Sneaked in" in find(report, "unknown", chunk=4, element_id=None).message
    find(report, "word_drift", chunk=4)


def test_front_block_and_manifest_paths(out: Path, tiny: Tiny) -> None:
    edit(out / "02-images.md", lambda t: t.replace("chunk: 2\n", "chunk: 3\n", 1))

    def escape(text: str) -> str:
        data = json.loads(text)
        data["chunks"][3]["markdown_file"] = "../04-results.md"
        return json.dumps(data, indent=1)

    edit(out / "manifest.json", escape)
    shutil.copy(out / "04-results.md", out.parent / "04-results.md")  # a readable decoy
    report = verify(out, tiny)
    find(report, "manifest_mismatch", "front block says chunk 3", chunk=2, file="02-images.md")
    find(report, "manifest_mismatch", chunk=4, file="../04-results.md")
    find(report, "missing", element_id="el-000011", chunk=4)


def test_missing_and_unlisted_chunk_files(out: Path, tiny: Tiny) -> None:
    shutil.copy(out / "02-images.md", out / "05-extra.md")
    (out / "04-results.md").unlink()
    report = verify(out, tiny)
    find(report, "manifest_mismatch", file="05-extra.md")
    find(report, "manifest_mismatch", chunk=4, file="04-results.md")
    for eid in ("el-000011", "el-000012", "el-000013"):
        find(report, "missing", element_id=eid, chunk=4)


# --- PDF tampering ------------------------------------------------------------------------------


def _rewrite_pdf(path: Path, change: Callable[[pymupdf.Document], None]) -> None:
    doc = pymupdf.open(path)
    change(doc)
    data = doc.tobytes()
    doc.close()
    path.write_bytes(data)


def test_deleted_pdf_page(out: Path, tiny: Tiny) -> None:
    _rewrite_pdf(out / "03-methods.pdf", lambda d: d.delete_page(1))  # source page 4
    report = verify(out, tiny)
    f = find(report, "page_mismatch", chunk=3, file="03-methods.pdf")
    assert "has 3 pages, the manifest lists 4" in f.message
    find(report, "render_mismatch", chunk=3, out_page=2, page=4)


def test_substituted_pdf_page(out: Path, tiny: Tiny) -> None:
    src = pymupdf.open(tiny.pdf)

    def swap(d: pymupdf.Document) -> None:  # output page 1 (source 1) replaced by source 2
        d.delete_page(0)
        d.insert_pdf(src, from_page=1, to_page=1, start_at=0)

    _rewrite_pdf(out / "01-introduction.pdf", swap)
    report = verify(out, tiny)
    f = find(report, "render_mismatch", chunk=1, out_page=1, page=1)
    assert "does not render like source page 1" in f.message
    assert {x.kind for x in report.findings} == {"render_mismatch", "manifest_mismatch"}


def test_every_page_substitution_is_caught(clean: Path, tiny: Tiny, tmp_path: Path) -> None:
    """Any source page put in place of any other is seen by render-compare."""
    src = pymupdf.open(tiny.pdf)
    from quire.workers.verify import render_compare_batch

    for wrong in range(6):
        fake = pymupdf.open()
        fake.insert_pdf(src, from_page=wrong, to_page=wrong)
        path = tmp_path / f"fake{wrong}.pdf"
        fake.save(path)
        checks = [(1, 0, right + 1) for right in range(6)]
        bad = {f.page for f in render_compare_batch(tiny.pdf, {1: path}, checks)}
        assert bad == {p for p in range(1, 7) if p != wrong + 1}


def test_manifest_ranges_edited(out: Path, tiny: Tiny) -> None:
    def change(text: str) -> str:
        data = json.loads(text)
        data["chunks"][1]["pdf_pages"] = [3, 4, 5]
        data["chunks"][2]["page_last"] = 5
        return json.dumps(data, indent=1)

    edit(out / "manifest.json", change)
    report = verify(out, tiny)
    assert "source pages 3-5" in find(report, "page_mismatch", chunk=2).message
    assert "span pages 4-5" in find(report, "page_mismatch", chunk=3).message
    find(report, "render_mismatch", chunk=2, out_page=1, page=3)


def test_manifest_drops_pages_from_coverage(out: Path, tiny: Tiny) -> None:
    def change(text: str) -> str:
        data = json.loads(text)
        data["chunks"][2]["pdf_pages"] = [3, 4, 6]  # page 5 claimed by nobody
        data["chunks"][3]["pdf_pages"] = [6]
        data["chunks"][3]["overlap_pages"] = []
        return json.dumps(data, indent=1)

    edit(out / "manifest.json", change)
    report = verify(out, tiny)
    find(report, "page_missing", page=5)
    find(report, "page_mismatch", chunk=3)


# --- plan tampering -------------------------------------------------------------------------------


def _edit_plan(out: Path, chunk: int, first_id: str) -> None:
    def change(text: str) -> str:
        data = json.loads(text)
        data["chunks"][chunk - 1]["first_id"] = first_id
        return json.dumps(data, indent=1)

    edit(out / "plan.json", change)


def test_plan_gap(out: Path, tiny: Tiny) -> None:
    _edit_plan(out, 3, "el-000010")
    report = verify(out, tiny)
    f = find(report, "plan_gap", chunk=3, element_id="el-000009")
    assert "between chunks 2 and 3" in f.message
    find(report, "manifest_mismatch", chunk=3)


def test_plan_overlap(out: Path, tiny: Tiny) -> None:
    _edit_plan(out, 3, "el-000008")
    report = verify(out, tiny)
    f = find(report, "plan_overlap", chunk=3, element_id="el-000008")
    assert "inside chunk 2" in f.message


def test_manifest_range_gap(out: Path, tiny: Tiny) -> None:
    def change(text: str) -> str:
        data = json.loads(text)
        data["chunks"][3]["first_id"] = "el-000012"
        return json.dumps(data, indent=1)

    edit(out / "manifest.json", change)
    report = verify(out, tiny)
    find(report, "plan_gap", chunk=4, element_id="el-000011")
    find(report, "manifest_mismatch", chunk=4, element_id="el-000012")


def test_crossed_topic_change(out: Path, tiny: Tiny) -> None:
    crossed = ReviewOutcome(after_id="el-000003", decision="confirmed_change")
    kept = ReviewOutcome(after_id="el-000005", decision="confirmed_change")  # a chunk end
    assert verify(out, tiny, outcomes=[kept]).passed
    report = verify(out, tiny, outcomes=[crossed, kept])
    find(report, "topic_crossed", chunk=1, element_id="el-000003")
    assert len(report.findings) == 2  # once from manifest.json, once from plan.json
