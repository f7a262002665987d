"""Retrieval chunks of every corpus document: cap, whole rows / items / sentences, stable ids
and the concatenation proof, for both algorithms.

Each document is parsed once per session and planned with the heuristic planner (as the
pipeline does without reviews). The files no IR can be made of must be refused by the parser
(there is nothing to chunk). r-fullrefman.pdf (2,415 pages) is checked on a 150-page
sub-range cut out of it with PyMuPDF; `quire rag` itself runs end to end on a DOCX and on a
PDF of the corpus.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

import pymupdf
import pytest
from click.testing import CliRunner
from corpus import ALL_DOCS, BIG, CORPUS, DOCS, UNUSABLE
from corpus import parsed as parse_corpus
from ragfix import cut_problems, rebuild, session_texts, whole_units_kept

from quire.orchestrator.cli import main
from quire.shared.errors import (
    InputError,
)
from quire.shared.ir import Document, dump_ir
from quire.shared.plan import Plan, PlanSettings
from quire.shared.rag import RAG_CHUNKS_FILE, Algorithm, dump_jsonl, load_jsonl
from quire.workers.boundaries import (
    HeuristicDecider,
    plan_document,
    safe_candidates,
    score_candidates,
)
from quire.workers.parse import parse_document
from quire.workers.rag import rag_chunks, verify_rag
from quire.workers.verify.report import verify_output
from quire.workers.write import save_files, write_all

BIG_PAGES = (1000, 1149)  # the sub-range of r-fullrefman.pdf
CAPS: dict[Algorithm, tuple[int, ...]] = {"hierarchical": (2000, 600), "linear": (2000,)}

Planned = Callable[[str], "tuple[Document, Plan, dict[str, bytes]] | InputError"]


def plan_of(doc: Document) -> Plan:
    cands = score_candidates(doc, safe_candidates(doc))
    return plan_document(doc, cands, {}, PlanSettings(), HeuristicDecider())


@pytest.fixture(scope="module")
def planned() -> Planned:
    """Parse and plan each corpus file at most once per module."""
    cache: dict[str, tuple[Document, Plan, dict[str, bytes]] | InputError] = {}

    def get(name: str) -> tuple[Document, Plan, dict[str, bytes]] | InputError:
        if name not in cache:
            try:
                parsed = parse_corpus(name)
                cache[name] = (parsed.document, plan_of(parsed.document), dict(parsed.images))
            except InputError as exc:
                cache[name] = exc
        return cache[name]

    return get


def check_document(name: str, doc: Document, plan: Plan) -> None:
    texts = session_texts(doc, plan)
    for algorithm, caps in CAPS.items():
        for cap in caps:
            started = time.perf_counter()
            chunks = rag_chunks(doc, plan, max_chars=cap, algorithm=algorithm)
            took = time.perf_counter() - started
            label = f"{name} {algorithm} {cap}"
            assert chunks, label
            assert all(c.chars == len(c.text) <= cap for c in chunks), label
            for n, text in texts.items():
                assert rebuild(chunks, n) == text, f"{label}: session {n} does not rebuild"
            assert whole_units_kept(doc, chunks) == [], label
            assert cut_problems(doc, chunks, cap) == [], label
            assert verify_rag(doc, plan, chunks, cap) == [], label
            again = rag_chunks(doc, plan, max_chars=cap, algorithm=algorithm)
            assert dump_jsonl(again) == dump_jsonl(chunks), f"{label}: ids or text not stable"
            broken = sum(c.ends_at in ("word", "char") for c in chunks)
            print(
                f"\n{label}: {len(chunks)} chunks from {len(plan.chunks)} sessions in "
                f"{took:.2f}s, median {statistics.median(c.chars for c in chunks):.0f} chars, "
                f"{broken} declared word/char splits"
            )


def test_every_corpus_file_is_covered() -> None:
    assert len(ALL_DOCS) >= 20 and BIG in ALL_DOCS
    assert set(UNUSABLE) <= set(DOCS)


@pytest.mark.corpus
@pytest.mark.parametrize("name", DOCS)
def test_rag_chunks_of_corpus_document(name: str, planned: Planned) -> None:
    got = planned(name)
    if name in UNUSABLE:
        assert isinstance(got, UNUSABLE[name]), got
        return
    assert not isinstance(got, InputError), f"{name}: {got}"
    doc, plan, _ = got
    check_document(name, doc, plan)


@pytest.mark.corpus
def test_rag_chunks_of_a_150_page_range_of_the_reference_manual(tmp_path: Path) -> None:
    first, last = BIG_PAGES
    part = tmp_path / "fullrefman-part.pdf"
    with pymupdf.open(CORPUS / BIG) as src, pymupdf.open() as out:
        out.insert_pdf(src, from_page=first - 1, to_page=last - 1)
        out.save(part)
    doc = parse_document(part).document
    assert doc.page_count == last - first + 1 and len(doc.elements) > 1000
    check_document(f"{BIG} pages {first}-{last}", doc, plan_of(doc))


def output_folder(out: Path, doc: Document, plan: Plan, images: dict[str, bytes]) -> Path:
    files = write_all(doc, plan, formats={"markdown"}, source_pdf=None, images=images)
    files["ir.json"] = dump_ir(doc)
    files["plan.json"] = plan.model_dump_json(indent=1).encode()
    save_files(out, files)
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["python-logging-howto-cookbook.docx", "siunitx-manual.pdf"])
def test_quire_rag_on_a_corpus_output_folder(name: str, planned: Planned, tmp_path: Path) -> None:
    got = planned(name)
    assert not isinstance(got, InputError)
    doc, plan, images = got
    out = output_folder(tmp_path / "out", doc, plan, images)
    runner = CliRunner()
    first = runner.invoke(main, ["rag", "--out", str(out), "--max-chars", "1200"])
    assert first.exit_code == 0, first.output
    data = (out / RAG_CHUNKS_FILE).read_bytes()
    second = runner.invoke(main, ["rag", "--out", str(out), "--max-chars", "1200"])
    assert second.exit_code == 0 and (out / RAG_CHUNKS_FILE).read_bytes() == data
    chunks = load_jsonl(data)
    assert {c.session for c in chunks} == {c.number for c in plan.chunks}
    report = verify_output(out, render=False)
    assert report.passed, report.findings[:5]
    assert report.checked["rag_chunks"] == len(chunks)
