"""A document's state and output folder, read from the store as the API's models.

Outputs are read on demand and only once per request. Those of a stopped document (complete,
failed, awaiting a decision) cannot change until its revision does, so they are kept per
(document, revision) for a few documents: the big manual's page opens without re-reading
its manifest, plan and outline every time.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import cached_property
from typing import Any, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict

from quire.orchestrator.batch import BatchItem, ProgressReader
from quire.orchestrator.service import resolve_doc
from quire.orchestrator.web.errors import ApiError
from quire.orchestrator.web.lists import document_out
from quire.orchestrator.web.models import (
    BoundaryOut,
    DocumentDetail,
    DocumentOut,
    PagesOut,
    PlanOut,
    ReviewReport,
    RevisionOut,
    SessionDetail,
    SessionOut,
)
from quire.orchestrator.web.redact import server_roots
from quire.shared import keys
from quire.shared.analysis import ChunkAnalysis
from quire.shared.errors import UnknownDocumentError
from quire.shared.ir import OutlineEntry, SkippedPage
from quire.shared.job import Job
from quire.shared.layout import Layout
from quire.shared.manifest import Manifest, ManifestChunk, VerificationReport, load_manifest
from quire.shared.plan import Plan
from quire.shared.revisions.listing import DocEntry
from quire.shared.states import STAGES, STOPPED
from quire.shared.store import NotFound
from quire.workers.runtime import Runtime

_DOC_REF = re.compile(r"[0-9a-f]{6,64}")
T = TypeVar("T")


class NotReady(ApiError):
    """The document has not written this output (yet, or at all)."""

    def __init__(self, s: Job, what: str) -> None:
        super().__init__(
            404, "not_ready", f"{s.source_name} has no {what} (state {s.state})", doc_id=s.doc_id
        )


class _IrOverview(BaseModel):
    """The parts of `ir.json` a page overview needs; its elements are parsed, not built."""

    model_config = ConfigDict(extra="ignore")

    doc_id: str
    page_count: int
    page_basis: Literal["pdf", "words", "print"]
    outline: list[OutlineEntry] = []
    skipped_pages: list[SkippedPage] = []


class Outputs:
    """One document's output folder at one revision, each file read when first asked for."""

    def __init__(self, rt: Runtime, s: Job) -> None:
        self.rt, self.job = rt, s
        self._derived: dict[str, Any] = {}

    def derived(self, name: str, compute: Callable[[], T]) -> T:
        """Something the pages make from this folder (e.g. rendered Markdown), made once:
        it lives as long as this object, which for a stopped document is kept."""
        if name not in self._derived:
            self._derived[name] = compute()
        return cast(T, self._derived[name])

    def raw(self, name: str) -> bytes | None:
        try:
            return self.rt.store.get(keys.out(self.job.doc_id, name))
        except NotFound:
            return None

    def need(self, name: str, what: str) -> bytes:
        data = self.raw(name)
        if data is None:
            raise NotReady(self.job, what)
        return data

    @cached_property
    def plan(self) -> Plan:
        return Plan.model_validate_json(self.need(Layout.PLAN, "plan"))

    @cached_property
    def manifest(self) -> Manifest | None:
        data = self.raw(Layout.MANIFEST)
        return load_manifest(data) if data else None

    @cached_property
    def verification(self) -> VerificationReport | None:
        data = self.raw(Layout.VERIFICATION)
        return VerificationReport.model_validate_json(data) if data else None

    @cached_property
    def review(self) -> ReviewReport | None:
        data = self.raw(Layout.REVIEW)
        return ReviewReport.model_validate_json(data) if data else None

    @cached_property
    def analyses(self) -> dict[int, ChunkAnalysis]:
        prefix = keys.out(self.job.doc_id, Layout.ANALYSES)
        found = (
            ChunkAnalysis.model_validate_json(self.rt.store.get(k))
            for k in self.rt.store.list(prefix)
            if k.endswith(".json")
        )
        return {a.chunk: a for a in found}

    @cached_property
    def pages(self) -> PagesOut:
        ir = _IrOverview.model_validate_json(self.need(Layout.IR, "parsed pages"))
        return PagesOut.model_validate(ir, from_attributes=True)

    def text(self, name: str, what: str) -> str:
        return self.need(name, what).decode("utf-8")

    # --- joined views --------------------------------------------------------------------

    def _files(self) -> dict[int, ManifestChunk]:
        return {c.number: c for c in self.manifest.chunks} if self.manifest else {}

    @cached_property
    def plan_out(self) -> PlanOut:
        plan, files = self.plan, self._files()
        outcomes = {o.after_id: o for o in self.review.outcomes} if self.review else {}
        cuts = {
            b.after_id: BoundaryOut(**b.model_dump(), review=outcomes.get(b.after_id))
            for b in plan.boundaries
        }
        findings: dict[int | None, int] = {}
        for f in self.verification.findings if self.verification else []:
            findings[f.chunk] = findings.get(f.chunk, 0) + 1
        sessions = []
        for c in plan.chunks:
            written = files.get(c.number)
            if written is not None and written.first_id != c.first_id:
                written = None  # the plan changed since these files were written
            analysis = self.analyses.get(c.number)
            sessions.append(
                SessionOut(
                    **c.model_dump(),
                    markdown_file=written.markdown_file if written else None,
                    pdf_file=written.pdf_file if written else None,
                    findings=findings.get(c.number, 0),
                    coherence=analysis.coherence
                    if analysis and analysis.first_id == c.first_id
                    else None,
                    ends_at=cuts.get(c.last_id),
                )
            )
        return PlanOut(doc_id=plan.doc_id, settings=plan.settings, sessions=sessions)

    def session_detail(self, number: int) -> SessionDetail:
        sessions = self.plan_out.sessions
        if not 1 <= number <= len(sessions):
            raise ApiError(
                404,
                "unknown_session",
                f"{self.job.source_name} has "
                f"{len(sessions)} sessions: there is no session {number}",
                doc_id=self.job.doc_id,
            )
        s = sessions[number - 1]
        analysis = self.analyses.get(number)
        findings = (
            [f for f in self.verification.findings if f.chunk == number]
            if self.verification
            else []
        )
        return SessionDetail(
            **s.model_dump(),
            starts_after=sessions[number - 2].ends_at if number > 1 else None,
            analysis=analysis if analysis and analysis.first_id == s.first_id else None,
            verification_findings=findings,
            previous=number - 1 if number > 1 else None,
            next=number + 1 if number < len(sessions) else None,
        )


class Reader:
    """Documents as the API shows them, over one runtime."""

    KEEP = 8  # stopped documents whose outputs stay parsed in memory

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.roots = server_roots(rt)  # hidden from failure reasons
        self._lock = threading.Lock()
        self._outputs: OrderedDict[tuple[str, int], Outputs] = OrderedDict()
        self._summaries: dict[str, DocumentOut] = {}  # stopped documents, by doc id

    def job(self, ident: str) -> Job:
        """The document a URL names: its id or a unique prefix of it (6+ hex digits)."""
        ident = ident.lower()
        if not _DOC_REF.fullmatch(ident):
            raise UnknownDocumentError(
                f"no document {ident!r}: name it by its id (or a unique prefix of 6+ characters)"
            )
        if len(ident) == 64 and self.rt.repo.exists(ident):
            return self.rt.repo.load(ident)
        return self.rt.repo.load(resolve_doc(self.rt, ident))

    def outputs(self, s: Job) -> Outputs:
        if s.state not in STOPPED:
            return Outputs(self.rt, s)
        key = (s.doc_id, s.revision)
        with self._lock:
            found = self._outputs.get(key)
            if found is None:
                found = self._outputs[key] = Outputs(self.rt, s)
                while len(self._outputs) > self.KEEP:
                    self._outputs.popitem(last=False)
            self._outputs.move_to_end(key)
        return found

    def summary(self, s: Job) -> DocumentOut:
        kept = self._summaries.get(s.doc_id)
        if kept is not None and kept.revision == s.revision:
            return kept
        p = ProgressReader(self.rt).progress(
            BatchItem(origin=s.source_name, name=s.source_name, doc_id=s.doc_id, out_name="")
        )
        entry = DocEntry(
            **s.listed(),
            pages=p.pages,
            sessions=p.chunks,
            verification=p.verification,
            seconds=p.seconds,
        )
        out = document_out(entry, self.roots, progress=p.fraction)
        if s.state in STOPPED:
            self._summaries[s.doc_id] = out
        return out

    def detail(self, s: Job) -> DocumentDetail:
        history = [
            RevisionOut.model_validate(h, from_attributes=True)
            for h in self.rt.repo.history(s.doc_id)
        ]
        return DocumentDetail(
            **self.summary(s).model_dump(),
            settings=s.settings,
            stages=list(STAGES),
            history=history,
        )
