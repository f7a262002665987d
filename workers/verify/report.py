"""`verify_output`: every check on an output folder, assembled into a VerificationReport.

The folder holds `ir.json`, `manifest.json`, optionally `plan.json`, the chunk files and
`images/`. Content is reconstructed from the written files and compared with the IR; the
manifest only tells where to look (and is itself checked against the files). Nothing is
written except by `write_report`.

For fan-out, a caller can run `verify_output(..., render=False)`, run the batches from
`plan_render_batches` on workers (`run_render_batch`), and fold their findings in with
`add_render_findings`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from quire.shared.errors import EncryptedDocumentError, InputError, VerificationError
from quire.shared.ir import Document, load_ir
from quire.shared.layout import Layout
from quire.shared.manifest import (
    Finding,
    Manifest,
    VerificationReport,
    dump_report,
    load_manifest,
)
from quire.shared.plan import Plan, ReviewOutcome
from quire.shared.text import sha256_bytes
from quire.workers.verify.findings import Findings
from quire.workers.verify.hyphens import check_joined_hyphens
from quire.workers.verify.markdown import WORD_TOLERANCE, check_markdown, inside
from quire.workers.verify.pdf import check_pdf_structure
from quire.workers.verify.plan import check_plan, ranges_from_manifest, ranges_from_plan
from quire.workers.verify.rag import check_rag
from quire.workers.verify.render import (
    DEFAULT_BATCH,
    DEFAULT_DPI,
    DIFF_LEVEL,
    MAX_DIFF_FRACTION,
    plan_render_batches,
    run_render_batch,
)

REPORT_NAME = Layout.VERIFICATION
_CHUNK_FILE = re.compile(r"\d{2,}-[^\s./\\]+\.(md|pdf)")  # slugs in any script


def _load(out_dir: Path) -> tuple[Document, Manifest, Plan | None]:
    try:
        doc = load_ir((out_dir / Layout.IR).read_bytes())
        manifest = load_manifest((out_dir / Layout.MANIFEST).read_bytes())
        plan_path = out_dir / Layout.PLAN
        plan = Plan.model_validate_json(plan_path.read_bytes()) if plan_path.exists() else None
    except (OSError, ValueError) as exc:  # pydantic's ValidationError is a ValueError
        raise VerificationError(
            f"cannot read the output folder: {exc}", source=str(out_dir)
        ) from exc
    return doc, manifest, plan


def check_manifest(doc: Document, manifest: Manifest, out_dir: Path) -> list[Finding]:
    """The manifest against the files and the IR: hashes, listed files, element lists."""
    findings = Findings()
    if manifest.doc_id != doc.doc_id:
        findings.add(
            "manifest_mismatch",
            f"manifest is for document {manifest.doc_id[:12]}…, ir.json for {doc.doc_id[:12]}…",
        )
    if manifest.chunk_count != len(manifest.chunks):
        findings.add(
            "manifest_mismatch",
            f"chunk_count says {manifest.chunk_count}, {len(manifest.chunks)} chunks listed",
        )
    index = {e.id: i for i, e in enumerate(doc.elements)}
    by_id = doc.by_id()
    listed: set[str] = set()
    for c in manifest.chunks:
        for name, sha in c.files.items():
            listed.add(name)
            path = inside(out_dir, name)
            if path is None or not path.is_file():
                findings.add(
                    "manifest_mismatch",
                    f"{name} is listed but missing",
                    chunk=c.number,
                    file=name,
                )
            elif sha256_bytes(path.read_bytes()) != sha:
                findings.add(
                    "manifest_mismatch",
                    f"{name} bytes differ from the manifest's sha256 (changed after writing)",
                    chunk=c.number,
                    file=name,
                )
        if c.first_id in index and c.last_id in index:
            want = [e.id for e in doc.elements[index[c.first_id] : index[c.last_id] + 1]]
            if c.element_ids != want:
                findings.add(
                    "manifest_mismatch",
                    f"element_ids ({len(c.element_ids)}) are not the IR's "
                    f"{c.first_id}..{c.last_id} ({len(want)})",
                    chunk=c.number,
                    element_id=c.first_id,
                )
            words = sum(by_id[i].word_count for i in want)
            if c.word_count != words:
                findings.add(
                    "manifest_mismatch",
                    f"word_count says {c.word_count}, the IR's elements have {words}",
                    chunk=c.number,
                )
    for path in sorted(out_dir.iterdir()):
        if _CHUNK_FILE.fullmatch(path.name) and path.name not in listed:
            findings.add(
                "manifest_mismatch",
                f"{path.name} looks like a chunk file but the "
                "manifest does not list it; remove it or rewrite",
                file=path.name,
            )
    return findings


def _compare_plan(plan: Plan, manifest: Manifest) -> list[Finding]:
    findings = Findings()
    if plan.doc_id != manifest.doc_id:
        findings.add("manifest_mismatch", "plan.json is for another document")
    mine = {c.number: c for c in manifest.chunks}
    for c in plan.chunks:
        m = mine.get(c.number)
        if m is None or (m.first_id, m.last_id) != (c.first_id, c.last_id):
            got = f"{m.first_id}..{m.last_id}" if m else "nothing"
            findings.add(
                "manifest_mismatch",
                f"plan.json has chunk "
                f"{c.number} = {c.first_id}..{c.last_id}, the manifest "
                f"has {got}",
                chunk=c.number,
                element_id=c.first_id,
            )
    if len(plan.chunks) != len(manifest.chunks):
        findings.add(
            "manifest_mismatch",
            f"plan.json has {len(plan.chunks)} chunks, the manifest {len(manifest.chunks)}",
        )
    return findings


def _dedupe(findings: Iterable[Finding]) -> list[Finding]:
    seen: set[tuple[object, ...]] = set()
    out = []
    for f in findings:
        key = (f.kind, f.chunk, f.element_id, f.page, f.out_page, f.file, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def verify_output(
    out_dir: Path,
    *,
    source_pdf: Path | None = None,
    dpi: int = DEFAULT_DPI,
    render: bool = True,
    outcomes: Sequence[ReviewOutcome] | None = None,
    batch_size: int = DEFAULT_BATCH,
) -> VerificationReport:
    """Run every check on `out_dir`. PDF render-compare needs `source_pdf` (whose sha256 must
    be the document id); pass `render=False` to leave it to fanned-out batches."""
    doc, manifest, plan = _load(out_dir)
    findings: list[Finding] = check_manifest(doc, manifest, out_dir)
    findings += check_joined_hyphens(doc)
    checked: dict[str, int] = {"chunks": len(manifest.chunks)}
    findings += check_plan(
        doc, ranges_from_manifest(manifest), outcomes=outcomes, source=Layout.MANIFEST
    )
    if plan is not None:
        findings += check_plan(doc, ranges_from_plan(plan), outcomes=outcomes, source=Layout.PLAN)
        findings += _compare_plan(plan, manifest)
    if "markdown" in manifest.formats:
        md = check_markdown(doc, manifest, out_dir)
        findings += md.findings
        checked.update(md.checked)
    settings: dict[str, float | int | str] = {
        "word_tolerance": WORD_TOLERANCE,
        "formats": ",".join(manifest.formats),
    }
    if "pdf" in manifest.formats:
        structure = check_pdf_structure(doc, manifest, out_dir)
        findings += structure.findings
        checked.update(structure.checked)
        settings.update(
            render="yes" if render else "no",
            dpi=dpi,
            diff_level=DIFF_LEVEL,
            max_diff_fraction=MAX_DIFF_FRACTION,
        )
        if render:
            if source_pdf is None:
                raise ValueError("render-compare needs source_pdf (or pass render=False)")
            sha = sha256_bytes(Path(source_pdf).read_bytes())
            if sha not in (doc.doc_id, doc.source_sha256):
                raise InputError(
                    "this is not the document's source PDF (sha256 differs from the document id)",
                    source=str(source_pdf),
                )
            if doc.source_sha256 and sha == doc.doc_id:
                raise EncryptedDocumentError(
                    "the source PDF is password-protected: verify against the decrypted copy "
                    "in the store (run `quire verify` without --source)",
                    source=str(source_pdf),
                )
            rendered = 0
            for batch in plan_render_batches(manifest, batch_size):
                findings += run_render_batch(out_dir, Path(source_pdf), batch, dpi=dpi)
                rendered += len(batch.pages)
            checked["rendered_pages"] = rendered
    rag_findings, rag_checked = check_rag(out_dir, doc, manifest, plan)  # rag-chunks.jsonl
    findings += rag_findings
    checked.update(rag_checked)
    findings = _dedupe(findings)
    if doc.ocr_pages:
        checked["ocr_pages"] = len(doc.ocr_pages)
    return VerificationReport(
        doc_id=doc.doc_id,
        passed=not findings,
        checked=checked,
        settings=settings,
        findings=findings,
        pages_without_text=doc.skipped_pages,
    )


def add_render_findings(
    report: VerificationReport,
    findings: Iterable[Finding],
    rendered_pages: int,
    *,
    dpi: int | None = None,
) -> VerificationReport:
    """Fold fanned-out render batch results into a report made with `render=False`
    (`dpi`: the resolution the batches used, when not the default)."""
    merged = _dedupe([*report.findings, *findings])
    checked = {
        **report.checked,
        "rendered_pages": report.checked.get("rendered_pages", 0) + rendered_pages,
    }
    settings = {**report.settings, "render": "yes"}
    if dpi is not None:
        settings["dpi"] = dpi
    return report.model_copy(
        update={"findings": merged, "passed": not merged, "checked": checked, "settings": settings}
    )


def write_report(out_dir: Path, report: VerificationReport) -> Path:
    path = out_dir / REPORT_NAME
    path.write_bytes(dump_report(report))
    return path
