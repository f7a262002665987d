"""What each state's parts do: load inputs from the store, call the pure stage, store outputs.

Keys of one document (`docs/{doc_id}/`): `source.{pdf|docx}`, `session/rev-*.json`,
`work/...` (intermediate results of parts, keyed by part name, so a redelivered part
rewrites the same object), and `out/...` (the output folder, exported as it is).
Every output key is derived from the part's inputs: running a part twice writes the same
bytes to the same keys. Loading and saving what parts share (the IR, plan versions,
analyses...) lives in `job_files.py`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import TypeAdapter

from quire.shared.analysis import AnalysisFailure, ChunkAnalysis
from quire.shared.errors import QuireError, VerificationError
from quire.shared.ir import Document, dump_ir
from quire.shared.job import DocState, Job
from quire.shared.layout import Layout
from quire.shared.manifest import (
    Finding,
    ManifestChunk,
    VerificationReport,
    dump_manifest,
    load_manifest,
)
from quire.shared.plan import Candidate, Plan, ReviewTask
from quire.shared.states import FINISH
from quire.shared.store import NotFound, ObjectStore
from quire.shared.text import sha256_bytes
from quire.workers.backend_runs import (
    fallbacks_so_far,
    keep_usage,
    llm_backend,
    write_review_report,
)
from quire.workers.job_files import (
    StoreImages,
    analysis_key,
    candidate_list,
    load_analysis,
    load_candidates,
    load_doc,
    load_outcomes,
    load_plan,
    load_stats,
    out,
    outcome_list,
    put_json,
    replace_plan,
    save_plan,
    work,
)
from quire.workers.runtime import Runtime

if TYPE_CHECKING:
    from pathlib import Path

    from quire.workers.llm import RetryingBackend
    from quire.workers.parse.base import ParsedDocument

REVIEW_BATCH = {"heuristic": 100}  # review tasks per part; LLM backends get small batches
OFFLINE_ANALYSIS = ("heuristic",)  # backends whose analyses run in the planning step
LLM_REVIEW_BATCH = 4
# Chunks per writing or analysis part. A part costs ~10 ms of orchestration (job read,
# commits, a broker round trip) and a handful of store requests: a 5-12-page chunk is too
# little work for one. LLM analyses stay one per part, so they run in parallel.
WRITE_BATCH = 4
ANALYSIS_BATCH = {"heuristic": 8}

_entries = TypeAdapter(list[ManifestChunk])
_tasks = TypeAdapter(list[ReviewTask])


# --- parts of each state -------------------------------------------------------------------


def parts_for(rt: Runtime, s: Job) -> list[str]:
    if s.state == "parsing":
        if s.source_format != "pdf":
            return ["all"]
        return [Layout.parse_part(a, b) for a, b in parse_ranges(rt, s)]
    if s.state in ("scoring", "planning"):
        return [s.state]
    if s.state == "topic_review":
        tasks = _tasks.validate_json(rt.store.get(work(s, Layout.REVIEW_TASKS)))
        size = REVIEW_BATCH.get(s.settings.backend, LLM_REVIEW_BATCH)
        return [Layout.review_part(i) for i in range((len(tasks) + size - 1) // size)]
    if s.state == "writing":
        return Layout.chunk_parts([c.number for c in load_plan(rt, s).chunks], WRITE_BATCH)
    if s.state == "verifying":
        parts = ["content"]
        if "pdf" in s.settings.formats(s.source_format):
            from quire.workers.verify.render import plan_render_batches

            manifest = load_manifest(rt.store.get(out(s, Layout.MANIFEST)))
            batches = plan_render_batches(manifest, s.settings.render_batch_pages)
            parts += [Layout.render_part(b.index) for b in batches]
        return parts
    if s.state == "analysing":
        plan = load_plan(rt, s)
        todo = [
            c.number
            for c in plan.chunks
            if c.kind == "study" and not rt.store.exists(analysis_key(s, c))
        ]
        return Layout.chunk_parts(todo, ANALYSIS_BATCH.get(s.settings.backend, 1))
    if s.state in ("repairing", "indexing"):
        return [s.state]
    raise ValueError(f"no parts for state {s.state}")


# An OCR'd page costs about as much as this many natively extracted ones in a range task
# (seconds against milliseconds, but a task has a fixed cost too): a scanned book is cut
# into ranges of range_pages / OCR_PAGE_COST pages, which spread over the parse workers.
OCR_PAGE_COST = 25


def parse_ranges(rt: Runtime, s: Job) -> list[tuple[int, int]]:
    from quire.workers.parse.pdf import weighted_ranges
    from quire.workers.parse.pdf_ocr import likely_ocr_pages
    from quire.workers.parse.pdf_open import open_pdf_kept

    heavy: set[int] = set()
    if s.settings.ocr != "off":
        with rt.file(s.source_key) as path:
            heavy = likely_ocr_pages(open_pdf_kept(path), s.settings.ocr)
    return weighted_ranges(s.page_count, s.settings.range_pages, heavy, OCR_PAGE_COST)


@dataclass(frozen=True)
class PartResult:
    key: str  # where the part's output is
    goto: DocState | None = None  # FINISH parts: leave the state's usual successor
    artifacts: dict[str, str] = field(default_factory=dict)  # new job pointers


def run(rt: Runtime, s: Job, part: str) -> PartResult:
    """Run one part of the job's current state."""
    handler = {
        "parsing": _parse,
        "scoring": _score,
        "topic_review": _review,
        "planning": _plan,
        "writing": _write,
        "verifying": _verify,
        "analysing": _analyse,
        "repairing": _repair,
        "indexing": _index,
    }[s.state]
    result = handler(rt, s, part)
    return result if isinstance(result, PartResult) else PartResult(result)


# --- parsing -------------------------------------------------------------------------------


def _store_parsed(rt: Runtime, s: Job, doc: Document, images: Mapping[str, bytes]) -> PartResult:
    for name, data in sorted(images.items()):
        rt.store.put(out(s, name), data)
    data = dump_ir(doc)
    key = work(s, Layout.ir_version(sha256_bytes(data)[:16]))
    rt.store.put(key, data)
    rt.store.put(out(s, Layout.IR), data)
    return PartResult(key, artifacts={"ir": key})


class StoreOcrCache:
    """OCR results by page content, shared by every document (`ocr-cache/...` keys)."""

    def __init__(self, store: ObjectStore) -> None:
        self.store = store

    def get(self, key: str) -> bytes | None:
        try:
            return self.store.get(key)
        except NotFound:
            return None

    def put(self, key: str, data: bytes) -> None:
        self.store.put(key, data)


def _parse_whole(fmt: str, path: Path) -> ParsedDocument:
    """A DOCX, EPUB or HTML bundle, parsed in one part."""
    if fmt == "docx":
        from quire.workers.parse.docx import parse_docx

        return parse_docx(path)
    if fmt == "epub":
        from quire.workers.parse.epub import parse_epub

        return parse_epub(path)
    from quire.workers.parse.html_input import parse_html_bundle

    return parse_html_bundle(path.read_bytes(), path.name)


def _parse(rt: Runtime, s: Job, part: str) -> PartResult | str:
    if s.source_format != "pdf":
        if part == FINISH:
            return out(s, Layout.IR)
        with rt.file(s.source_key) as path:
            parsed = _parse_whole(s.source_format, path)
        parsed.document.source_name = s.source_name
        return _store_parsed(rt, s, parsed.document, parsed.images)
    from quire.workers.parse import OcrSettings, merge_pdf_ranges, parse_pdf_range, pdf_meta
    from quire.workers.parse.pdf_types import PdfRangeResult

    if part == FINISH:
        assert s.parts is not None
        results = [PdfRangeResult.from_json(rt.store.get(s.done[p])) for p in s.parts]
        with rt.file(s.source_key) as path:
            # doc_id is the upload's hash: the stored source may be its decrypted copy
            parsed = merge_pdf_ranges(pdf_meta(path, s.doc_id), results, strict=s.settings.strict)
        parsed.document.source_name = s.source_name
        return _store_parsed(rt, s, parsed.document, parsed.images)
    first, last = Layout.part_pages(part)
    ocr = OcrSettings(mode=s.settings.ocr, lang=s.settings.ocr_lang)
    with rt.file(s.source_key) as path:
        result = parse_pdf_range(
            path, first, last, doc_id=s.doc_id, ocr=ocr, ocr_cache=StoreOcrCache(rt.store)
        )
    key = work(s, Layout.part_result(Layout.PARSED, part))
    rt.store.put(key, result.to_json())
    return key


# --- scoring, review, planning -------------------------------------------------------------


def _score(rt: Runtime, s: Job, part: str) -> str:
    from quire.workers.boundaries.candidates import safe_candidates
    from quire.workers.boundaries.scoring import review_tasks, score_candidates

    doc = load_doc(rt, s)
    candidates = score_candidates(doc, safe_candidates(doc))
    rt.store.put(work(s, Layout.CANDIDATES), candidate_list.dump_json(candidates))
    rt.store.put(work(s, Layout.REVIEW_TASKS), _tasks.dump_json(review_tasks(doc, candidates)))
    return work(s, Layout.CANDIDATES)


def _review(rt: Runtime, s: Job, part: str) -> str:
    from quire.workers.review import LLMReviewer, make_reviewer, review_all

    tasks = _tasks.validate_json(rt.store.get(work(s, Layout.REVIEW_TASKS)))
    size = REVIEW_BATCH.get(s.settings.backend, LLM_REVIEW_BATCH)
    index = Layout.part_index(part)
    batch = tasks[index * size : (index + 1) * size]
    doc = load_doc(rt, s)
    llm = llm_backend(rt, s)
    reviewer = LLMReviewer(llm) if llm else make_reviewer(s.settings.backend)
    outcomes = review_all(batch, doc.by_id(), reviewer)
    keep_usage(rt, s, part, llm)
    key = work(s, Layout.part_result(Layout.REVIEWS, part))
    rt.store.put(key, outcome_list.dump_json(outcomes))
    return key


def _plan(rt: Runtime, s: Job, part: str) -> PartResult | str:
    from quire.workers.boundaries.llm_decider import make_decider
    from quire.workers.boundaries.planner import plan_document, plan_globally

    doc = load_doc(rt, s)
    candidates = load_candidates(rt, s)
    outcomes = [
        o
        for key in sorted(rt.store.list(work(s, Layout.REVIEWS)))
        for o in outcome_list.validate_json(rt.store.get(key))
    ]
    report = {
        "doc_id": s.doc_id,
        "backend": s.settings.backend,
        "candidates": len(candidates),
        "reviewed": len(outcomes),
        "confirmed_changes": sum(o.decision == "confirmed_change" for o in outcomes),
        "failed": sum(o.decision == "failed" for o in outcomes),
        "outcomes": outcome_list.dump_python(outcomes, mode="json"),
    }
    write_review_report(rt, s, report)
    if s.settings.decider == "agent":
        return PartResult(out(s, Layout.REVIEW), goto="awaiting_decision")
    by_cut = {o.after_id: o for o in outcomes}
    if s.settings.backend in OFFLINE_ANALYSIS:
        plan = plan_globally(doc, candidates, by_cut, s.settings.plan)
        # Offline analysis is cheap and deterministic: settle the plan (analyses, repairs,
        # titles) now, so the chunks are written once, with their final titles.
        plan = _settle(rt, s, doc, plan, candidates)
    else:  # the LLM decider adjudicates each boundary of the global plan
        llm = llm_backend(rt, s)
        assert llm is not None
        decider = make_decider(llm)
        plan = plan_document(doc, candidates, by_cut, s.settings.plan, decider, guided=True)
        keep_usage(rt, s, part, llm)
        write_review_report(rt, s, report)  # now with the decisions' usage
    key = save_plan(rt, s, plan)
    return PartResult(key, artifacts={"plan": key})


# --- writing and verifying -----------------------------------------------------------------


def _write(rt: Runtime, s: Job, part: str) -> str:
    from quire.workers.write import write_chunk
    from quire.workers.write.manifest import build_manifest

    doc, plan = load_doc(rt, s), load_plan(rt, s)
    formats = s.settings.formats(s.source_format)
    if part == FINISH:
        assert s.parts is not None
        entries = [e for p in s.parts for e in _entries.validate_json(rt.store.get(s.done[p]))]
        manifest = build_manifest(
            doc,
            plan,
            entries,
            formats=formats,
            overlap_pages=s.settings.overlap_pages,
        )
        manifest.backend_fallbacks = fallbacks_so_far(rt, s)
        rt.store.put(out(s, Layout.MANIFEST), dump_manifest(manifest))
        return out(s, Layout.MANIFEST)
    written_entries: list[ManifestChunk] = []
    with rt.file(s.source_key) as source:
        for number in Layout.part_chunks(part):
            written = write_chunk(
                doc,
                plan,
                number,
                formats=formats,
                source_pdf=source if s.source_format == "pdf" else None,
                images=StoreImages(rt.store, s),
                overlap_pages=s.settings.overlap_pages,
            )
            for name, data in written.files.items():
                rt.store.put(out(s, name), data)
            written_entries.append(written.entry)
    key = work(s, Layout.part_result(Layout.CHUNKS, part))
    rt.store.put(key, _entries.dump_json(written_entries))
    return key


def _verify(rt: Runtime, s: Job, part: str) -> str:
    from quire.workers.verify.render import plan_render_batches, run_render_batch
    from quire.workers.verify.report import add_render_findings, dump_report, verify_output

    if part == FINISH:
        assert s.parts is not None
        report = VerificationReport.model_validate_json(rt.store.get(s.done["content"]))
        for p in s.parts[1:]:
            batch = json.loads(rt.store.get(s.done[p]))
            report = add_render_findings(report, _findings(batch["findings"]), batch["pages"])
        rt.store.put(out(s, Layout.VERIFICATION), dump_report(report))
        if not report.passed:
            # the message is all a failed run shows (its output is not exported): the
            # first finding says where to look
            kinds = sorted({f.kind for f in report.findings})
            first = report.findings[0].message
            raise VerificationError(
                f"verification failed: {len(report.findings)} findings "
                f"({', '.join(kinds)}), the first: {first[:300]}"
            )
        return out(s, Layout.VERIFICATION)
    if part == "content":
        with rt.folder(out(s, "")) as folder:
            report = verify_output(folder, render=False, outcomes=load_outcomes(rt, s))
        key = work(s, Layout.VERIFIED_CONTENT)
        rt.store.put(key, report.model_dump_json().encode())
        return key
    manifest = load_manifest(rt.store.get(out(s, Layout.MANIFEST)))
    batch = plan_render_batches(manifest, s.settings.render_batch_pages)[Layout.part_index(part)]
    # only the chunk PDFs this batch renders, not the whole output folder
    with (
        rt.folder(out(s, ""), only=sorted(batch.chunk_pdfs.values())) as folder,
        rt.file(s.source_key) as source,
    ):
        findings = run_render_batch(folder, source, batch, dpi=s.settings.render_dpi)
    return put_json(
        rt,
        work(s, Layout.part_result(Layout.VERIFIED, part)),
        {"pages": len(batch.pages), "findings": [f.model_dump(mode="json") for f in findings]},
    )


def _findings(raw: list[dict[str, object]]) -> list[Finding]:
    return [Finding.model_validate(f) for f in raw]


# --- analysis, repair, indexing ------------------------------------------------------------


def _analyse(rt: Runtime, s: Job, part: str) -> PartResult | str:
    from quire.workers.analysis import analyse_chunk, build_context, check_analysis

    doc, plan = load_doc(rt, s), load_plan(rt, s)
    candidates = load_candidates(rt, s)
    stats = load_stats(rt, s, doc, candidates)
    llm = llm_backend(rt, s)
    backend = llm or s.settings.backend
    if part != FINISH:
        chunks = [plan.chunks[n - 1] for n in Layout.part_chunks(part)]
        for chunk in chunks:
            if chunk.kind != "study" or rt.store.exists(analysis_key(s, chunk)):
                continue  # analysed before this part was formed, or by its last delivery
            context = build_context(doc, plan, chunk.number, candidates=candidates, stats=stats)
            result = analyse_chunk(context, backend)
            rt.store.put(analysis_key(s, chunk), result.model_dump_json().encode())
        keep_usage(rt, s, part, llm)
        return analysis_key(s, chunks[0])
    # fan-in: chunks analysed in parallel never saw each other, so check them together
    analyses: list[ChunkAnalysis] = []
    for chunk in plan.chunks:
        if chunk.kind != "study":
            continue  # reference sessions get no study analysis
        loaded = load_analysis(rt, s, chunk)
        assert loaded is not None  # a study chunk
        result = loaded
        if isinstance(result, ChunkAnalysis):
            context = build_context(doc, plan, chunk.number, candidates=candidates, stats=stats)
            try:
                result = check_analysis(result, context, analyses)
            except QuireError:
                result = analyse_chunk(context, backend, others=analyses)
                rt.store.put(analysis_key(s, chunk), result.model_dump_json().encode())
                keep_usage(rt, s, part, llm)
        if isinstance(result, AnalysisFailure):
            raise QuireError(
                f"analysis of chunk {chunk.number} failed after "
                f"{result.attempts} attempts: {result.error}"
            )
        analyses.append(result)
    for key in rt.store.list(out(s, Layout.ANALYSES)):
        rt.store.delete(key)
    for a in analyses:
        rt.store.put(out(s, Layout.analysis(a.chunk)), a.model_dump_json(indent=1).encode())
    repaired = {Layout.file_name(k) for k in rt.store.list(work(s, Layout.REPAIRS))}
    to_repair = [
        a.chunk
        for a in analyses
        if a.coherence == "needs_review"
        and Layout.range_name(a.first_id, a.last_id) not in repaired
    ]
    if to_repair:
        key = put_json(
            rt,
            work(s, Layout.repair_request(Layout.version_of(s.artifacts["plan"]))),
            {"chunks": to_repair},
        )
        return PartResult(out(s, Layout.ANALYSES), goto="repairing", artifacts={"repair": key})
    from quire.workers.analysis import retitle_plan

    retitled = retitle_plan(plan, analyses)
    if retitled != plan:
        key = replace_plan(rt, s, retitled)
        return PartResult(out(s, Layout.ANALYSES), goto="writing", artifacts={"plan": key})
    return out(s, Layout.ANALYSES)


def _repair(rt: Runtime, s: Job, part: str) -> PartResult:
    """Split the chunks the analysis sent here (only where both pieces keep the minimum),
    analyse just the new pieces, and retitle: the plan goes back to writing settled."""
    doc, plan = load_doc(rt, s), load_plan(rt, s)
    requested = set(json.loads(rt.store.get(s.artifacts["repair"]))["chunks"])
    redo = {(c.first_id, c.last_id) for c in plan.chunks if c.number in requested}
    llm = llm_backend(rt, s)
    settled = _settle(rt, s, doc, plan, load_candidates(rt, s), redo=redo, backend=llm)
    keep_usage(rt, s, Layout.version_of(s.artifacts["repair"]), llm)
    key = replace_plan(rt, s, settled)
    return PartResult(key, artifacts={"plan": key})


def _settle(
    rt: Runtime,
    s: Job,
    doc: Document,
    plan: Plan,
    candidates: list[Candidate],
    redo: Collection[tuple[str, str]] | None = None,
    backend: RetryingBackend | None = None,
) -> Plan:
    """`settle` the plan, reusing every analysis stored for a range and storing the ones it
    makes, with a marker per repaired range. Ranges with a marker are not repaired again,
    except those in `redo` (None: ignore every marker; planning starts a fresh plan), so a
    redelivered part repeats the same work."""
    from quire.workers.analysis.settle import settle

    known: dict[tuple[str, str], ChunkAnalysis | AnalysisFailure] = {}
    for key in rt.store.list(work(s, Layout.SESSION_ANALYSES)):
        raw = json.loads(rt.store.get(key))
        result = (AnalysisFailure if "error" in raw else ChunkAnalysis).model_validate(raw)
        known[(result.first_id, result.last_id)] = result
    repaired: list[tuple[str, str]] = []
    if redo is not None:
        for key in rt.store.list(work(s, Layout.REPAIRS)):
            marker = json.loads(rt.store.get(key))
            if (marker["first_id"], marker["last_id"]) not in redo:
                repaired.append((marker["first_id"], marker["last_id"]))
    settled = settle(
        doc,
        plan,
        candidates,
        backend or s.settings.backend,
        known=known,
        repaired=repaired,
        stats=load_stats(rt, s, doc, candidates),
    )
    by_range = {(c.first_id, c.last_id): c for c in settled.plan.chunks}
    for first_last in settled.analysed:
        chunk, made = by_range.get(first_last), settled.analyses.get(first_last)
        if chunk is not None and made is not None:  # not a range a later repair split
            rt.store.put(analysis_key(s, chunk), made.model_dump_json().encode())
    for r in settled.repairs:
        put_json(
            rt,
            work(s, Layout.repair(r.first_id, r.last_id)),
            dataclasses.asdict(r),
        )
    return settled.plan


def _index(rt: Runtime, s: Job, part: str) -> str:
    from quire.workers.analysis import author_index, index_context, render_index, validate_index

    doc, plan = load_doc(rt, s), load_plan(rt, s)
    manifest = load_manifest(rt.store.get(out(s, Layout.MANIFEST)))
    analyses = {
        c.number: a for c in plan.chunks if isinstance(a := load_analysis(rt, s, c), ChunkAnalysis)
    }
    context = index_context(manifest, analyses, doc=doc)
    llm = llm_backend(rt, s)
    files = render_index(context, author_index(context, llm or s.settings.backend))
    validate_index(
        context,
        en=files[Layout.STUDY_INDEX_EN],
        fa=files[Layout.STUDY_INDEX_FA],
        map=files[Layout.STUDY_MAP],
    )
    for name, text in files.items():
        rt.store.put(out(s, name), text.encode("utf-8"))
    keep_usage(rt, s, part, llm)
    if llm is not None:  # the whole run's usage and fallbacks, now that they are known
        write_review_report(rt, s)
        manifest.backend_fallbacks = fallbacks_so_far(rt, s)
        rt.store.put(out(s, Layout.MANIFEST), dump_manifest(manifest))
    return out(s, Layout.STUDY_INDEX_EN)
