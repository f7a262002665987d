"""A job's files in the store: their keys, and loading and saving what parts share (the
IR, plan versions, candidates, document statistics, the book's index, review outcomes,
analyses). Each load reads an immutable object, or one a part rewrites with the same bytes;
the IR and the statistics are cached per process."""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from pydantic import TypeAdapter

from quire.shared import keys
from quire.shared.analysis import AnalysisFailure, ChunkAnalysis
from quire.shared.ir import Document, load_ir
from quire.shared.job import Job
from quire.shared.layout import Layout
from quire.shared.manifest import load_manifest
from quire.shared.plan import Candidate, ChunkPlan, Plan, ReviewOutcome
from quire.shared.store import NotFound, ObjectStore
from quire.shared.text import sha256_bytes
from quire.workers.runtime import Runtime

if TYPE_CHECKING:
    from quire.workers.analysis.book_terms import BookIndexData
    from quire.workers.analysis.context import DocumentStats


candidate_list = TypeAdapter(list[Candidate])
outcome_list = TypeAdapter(list[ReviewOutcome])


def work(s: Job, name: str) -> str:
    return keys.work(s.doc_id, name)


def out(s: Job, name: str) -> str:
    return keys.out(s.doc_id, name)


class StoreImages(Mapping[str, bytes]):
    """The document's extracted images (`out/images/...`), read from the store on demand."""

    def __init__(self, store: ObjectStore, s: Job) -> None:
        self.store, self.prefix = store, out(s, "")

    def __getitem__(self, name: str) -> bytes:
        try:
            return self.store.get(self.prefix + name)
        except NotFound:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return (k[len(self.prefix) :] for k in self.store.list(self.prefix + Layout.IMAGES))

    def __len__(self) -> int:
        return len(self.store.list(self.prefix + Layout.IMAGES))


def put_json(rt: Runtime, key: str, data: object) -> str:
    rt.store.put(key, json.dumps(data, ensure_ascii=False, sort_keys=True).encode())
    return key


# IRs this process loaded lately, least recently used first. A worker interleaves parts of
# every document in flight, so a single entry would reload an IR for nearly every part;
# the bound is on elements (~1 KB each in memory), so one 40k-element reference manual and
# a few textbooks fit, never an unbounded batch, and on documents: a batch has
# `orchestrator.local.window` of them in progress (Celery workers: more), and a thousand
# one-page documents must not stay here after they are done.
_IR_CACHE: OrderedDict[tuple[str, str], Document] = OrderedDict()
IR_CACHE_ELEMENTS = 100_000
IR_CACHE_DOCS = 16


def load_doc(rt: Runtime, s: Job) -> Document:
    """The job's IR. Its key is content-derived (immutable), so a worker parses each
    IR once, not once per part: a 2,400-page IR takes seconds to validate."""
    key = (rt.store.url, s.artifacts["ir"])
    doc = _IR_CACHE.get(key)
    if doc is not None:
        _IR_CACHE.move_to_end(key)
        return doc
    doc = _IR_CACHE[key] = load_ir(rt.store.get(key[1]))
    while len(_IR_CACHE) > IR_CACHE_DOCS or (
        len(_IR_CACHE) > 1 and sum(len(d.elements) for d in _IR_CACHE.values()) > IR_CACHE_ELEMENTS
    ):
        _IR_CACHE.popitem(last=False)
    return doc


# The bytes of the plan versions this process read lately: a version's key is content-
# derived, so it never changes, and every write, verify and analysis part reads it.
_PLAN_CACHE: OrderedDict[tuple[str, str], bytes] = OrderedDict()
PLAN_CACHE_VERSIONS = 16


def load_plan(rt: Runtime, s: Job) -> Plan:
    """The job's current plan version (immutable; `out/plan.json` is its copy)."""
    key = (rt.store.url, s.artifacts["plan"])
    data = _PLAN_CACHE.get(key)
    if data is None:
        data = _PLAN_CACHE[key] = rt.store.get(key[1])
        while len(_PLAN_CACHE) > PLAN_CACHE_VERSIONS:
            _PLAN_CACHE.popitem(last=False)
    return Plan.model_validate_json(data)


def save_plan(rt: Runtime, s: Job, plan: Plan) -> str:
    """Store a plan version under a content-derived key, each study session with its key
    terms; returns the key to point at."""
    from quire.workers.analysis.session_terms import with_key_terms

    doc = load_doc(rt, s)
    stats = load_stats(rt, s, doc, load_candidates(rt, s))
    plan = with_key_terms(plan, stats.terms, stats.positions)
    data = plan.model_dump_json(indent=1).encode()
    key = work(s, Layout.plan_version(sha256_bytes(data)[:16]))
    rt.store.put(key, data)
    rt.store.put(out(s, Layout.PLAN), data)
    return key


def load_candidates(rt: Runtime, s: Job) -> list[Candidate]:
    return candidate_list.validate_json(rt.store.get(work(s, Layout.CANDIDATES)))


# Document statistics (term frequencies, headings, candidate positions) of the IRs this
# process loaded lately: every analysis part of a document needs the same ones.
_STATS_CACHE: OrderedDict[tuple[str, str], DocumentStats] = OrderedDict()
STATS_CACHE_DOCS = 4


def load_stats(rt: Runtime, s: Job, doc: Document, candidates: list[Candidate]) -> DocumentStats:
    from quire.workers.analysis.context import DocumentStats

    key = (rt.store.url, s.artifacts["ir"])
    stats = _STATS_CACHE.get(key)
    if stats is None:
        book = load_book_index(rt, s, doc)
        stats = _STATS_CACHE[key] = DocumentStats.of(doc, candidates, book)
        while len(_STATS_CACHE) > STATS_CACHE_DOCS:
            _STATS_CACHE.popitem(last=False)
    _STATS_CACHE.move_to_end(key)
    return stats


def load_book_index(rt: Runtime, s: Job, doc: Document) -> BookIndexData:
    """The book's own index (entries and page labels), read from the source PDF once per
    IR and kept under a key derived from it."""
    from quire.workers.analysis.book_terms import BookIndexData, read_book_index

    key = work(s, Layout.book_index(s.artifacts["ir"]))
    try:
        return BookIndexData.model_validate_json(rt.store.get(key))
    except NotFound:
        pass
    if s.source_format == "pdf":
        with rt.file(s.source_key) as path:
            data = read_book_index(doc, path)
    else:
        data = read_book_index(doc, None)
    rt.store.put(key, data.model_dump_json(exclude_defaults=True).encode())
    return data


def load_outcomes(rt: Runtime, s: Job) -> list[ReviewOutcome]:
    report = json.loads(rt.store.get(out(s, Layout.REVIEW)))
    return outcome_list.validate_python(report["outcomes"])


def analysis_key(s: Job, c: ChunkPlan) -> str:
    """Analyses are keyed by element range, so they survive renumbering after a repair."""
    return work(s, Layout.session_analysis(c.first_id, c.last_id))


def load_analysis(rt: Runtime, s: Job, c: ChunkPlan) -> ChunkAnalysis | AnalysisFailure | None:
    """The chunk's analysis; None for a reference session (front or back matter), which
    gets none."""
    if c.kind != "study":
        return None
    raw = json.loads(rt.store.get(analysis_key(s, c)))
    if "error" in raw:
        return AnalysisFailure.model_validate(raw)
    return ChunkAnalysis.model_validate(raw).model_copy(update={"chunk": c.number})


def replace_plan(rt: Runtime, s: Job, plan: Plan) -> str:
    """A new plan (retitled or split) is written again in full: drop the old chunk files.
    Returns the new plan version's key."""
    manifest = load_manifest(rt.store.get(out(s, Layout.MANIFEST)))
    for c in manifest.chunks:
        for name in (c.markdown_file, c.pdf_file):
            if name:
                rt.store.delete(out(s, name))
    for key in rt.store.list(work(s, Layout.CHUNKS)):
        rt.store.delete(key)
    return save_plan(rt, s, plan)
