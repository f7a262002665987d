"""Enrichment of retrieval chunks: validation rules, the heuristic backend, the LLM backends
over the wire (fake OpenAI / Anthropic servers, real SDKs), the command backend, the
content-hash cache (a second run makes zero calls, counted on the server) and `quire rag
--enrich` end to end."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from irgen import build_doc, heading, para, table, words
from writefix import plan_for

from quire.orchestrator.cli import main
from quire.shared.ir import Document, dump_ir
from quire.shared.plan import Plan
from quire.shared.rag import RAG_CHUNKS_FILE, RagChunk, load_jsonl
from quire.shared.settings import load_settings
from quire.shared.store.local import LocalStore
from quire.workers.rag import rag_chunks, verify_rag
from quire.workers.rag.enrich import (
    EnrichAnswer,
    FolderCache,
    InvalidEnrichment,
    StoreCache,
    copied,
    enrich,
    enrich_all,
    validate_enrichment,
)
from quire.workers.verify.report import verify_output
from quire.workers.write import save_files, write_all
from tests.llm_servers import KEYS, FakeProvider, Reply, answer

pytestmark = pytest.mark.usefixtures("fast_llm")

GOOD = {
    "context": "Part of the test manual's chapter on generated vocabulary, after the overview.",
    "summary": "Explains how the pseudo-word vocabulary is grouped and which table lists it.",
    "keywords": ["pseudo-words", "vocabulary"],
    "questions": ["How is the vocabulary grouped?", "Which table lists the terms?"],
}


def sentences(n: int, seed: int = 0) -> str:
    return " ".join(f"Sentence {k} says {words(12, seed=seed + k)}." for k in range(n))


def small_doc() -> tuple[Document, Plan]:
    doc = build_doc(
        [
            heading("1 Vocabulary", 1),
            para(sentences(8)),
            para("The terms are these:"),
            table([["term", "use"], ["alpha", "first"], ["beta", "second"]]),
            heading("2 Grouping", 1),
            para(sentences(6, seed=50)),
        ]
    )
    return doc, plan_for(doc, [(1, 4, "Vocabulary"), (5, 6, "Grouping")])


def chunk_of(text: str) -> RagChunk:
    doc = build_doc([para(text)])
    return rag_chunks(doc, plan_for(doc, [(1, 1, "T")]))[0]


# --- validation ----------------------------------------------------------------------------


def test_a_good_answer_passes_with_whitespace_tidied() -> None:
    chunk = chunk_of(sentences(3))
    messy = EnrichAnswer(**{**GOOD, "summary": "  Explains how\n the words go. "})
    got = validate_enrichment(messy, chunk)
    assert got.summary == "Explains how the words go." and got.keywords == GOOD["keywords"]


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ({"context": ""}, "context is empty"),
        ({"summary": "   "}, "summary is empty"),
        ({"keywords": []}, "keywords is empty"),
        ({"keywords": ["a", ""]}, "a keyword is empty"),
        ({"keywords": ["Alpha", "alpha"]}, "keywords repeat"),
        ({"keywords": ["keyword1"]}, "placeholder"),
        ({"questions": []}, "questions is empty"),
        ({"questions": ["What is grouped."]}, "does not end with '?'"),
        ({"questions": ["Why?", "Why?"]}, "too short"),
        ({"context": "It is the start. It has two sentences."}, "one sentence"),
        ({"summary": "<summary>"}, "placeholder"),
        ({"summary": "TODO"}, "placeholder"),
    ],
)
def test_rules_refuse_bad_answers(change: dict[str, object], rule: str) -> None:
    chunk = chunk_of(sentences(3))
    with pytest.raises(InvalidEnrichment, match=rule):
        validate_enrichment(EnrichAnswer.model_validate({**GOOD, **change}), chunk)


def test_copied_text_is_refused_but_quoted_titles_are_one_sentence() -> None:
    text = sentences(3)
    chunk = chunk_of(text)
    first = text.split(". ")[0] + "."
    with pytest.raises(InvalidEnrichment, match="summary is copied verbatim"):
        validate_enrichment(EnrichAnswer(**{**GOOD, "summary": first}), chunk)
    with pytest.raises(InvalidEnrichment, match="context is copied verbatim"):
        validate_enrichment(EnrichAnswer(**{**GOOD, "context": text.upper()}), chunk)
    four = " ".join(text.split()[:4])
    assert copied(four, text) and not copied("Sentence 0 says", text)  # 3 words: a phrase
    assert not copied("Sentence 0 is about", text)
    assert copied("Hello world", "Hello, world!") and not copied("world", "Hello world")
    quoted = "In the section “2.1 Lists. Their items” of the manual."
    assert validate_enrichment(EnrichAnswer(**{**GOOD, "context": quoted}), chunk).context


def test_persian_question_mark_is_accepted() -> None:
    chunk = chunk_of(sentences(2))
    got = validate_enrichment(EnrichAnswer(**{**GOOD, "questions": ["این جدول چه می‌گوید؟"]}), chunk)
    assert got.questions == ["این جدول چه می‌گوید؟"]


# --- heuristic -----------------------------------------------------------------------------


def test_heuristic_enrichment_is_valid_deterministic_and_leaves_chunks_intact(
    tmp_path: Path,
) -> None:
    doc, plan = small_doc()
    chunks = rag_chunks(doc, plan, max_chars=400)
    result = enrich_all(chunks, doc, plan, "heuristic", FolderCache(tmp_path / "c"))
    assert result.failures == [] and result.calls == 0 and result.cache_hits == 0
    for before, after in zip(chunks, result.chunks, strict=True):
        assert after.model_copy(update={"enrichment": None}) == before
        e = after.enrichment
        assert e is not None and e.backend == "heuristic" and len(e.input_hash) == 64
        assert e.questions and all(q.endswith("?") for q in e.questions) and e.keywords
        assert f"study session {before.session}" in e.context
    assert verify_rag(doc, plan, result.chunks, 400) == []
    again = enrich_all(chunks, doc, plan, "heuristic", FolderCache(tmp_path / "c"))
    assert again.chunks == result.chunks and again.cache_hits == len(chunks)
    assert enrich(chunks, doc, plan, "heuristic") == result.chunks  # no cache: same answers


# --- LLM backends over the wire -------------------------------------------------------------


@pytest.fixture
def llm_default_reply() -> Reply:
    return answer(GOOD)


def user_texts(provider: FakeProvider) -> list[str]:
    return [str(r.body["messages"][-1]["content"]) for r in provider.requests]


def test_llm_enrichment_then_zero_calls_from_the_cache(
    provider: FakeProvider, tmp_path: Path
) -> None:
    doc, plan = small_doc()
    chunks = rag_chunks(doc, plan, max_chars=400)
    cache = FolderCache(tmp_path / "cache")
    first = enrich_all(chunks, doc, plan, provider.kind, cache, env=load_settings())
    assert first.failures == [] and first.calls == len(chunks)
    assert len(provider.requests) == len(chunks)
    assert all(c.enrichment and c.enrichment.summary == GOOD["summary"] for c in first.chunks)
    assert all(c.enrichment and c.enrichment.backend == provider.kind for c in first.chunks)
    sent = user_texts(provider)
    for c in chunks:  # each chunk was shown with its session title and neighbour window
        prompt = next(u for u in sent if f"<chunk>\n{c.text}\n</chunk>" in u)
        assert f"Study session {c.session}: " in prompt
        if c.prev_id:
            prev = next(p for p in chunks if p.id == c.prev_id)
            assert f"<previous>{prev.text[-300:]}</previous>" in prompt
    assert all(KEYS[provider.kind] not in r.raw.decode() for r in provider.requests)

    second = enrich_all(chunks, doc, plan, provider.kind, cache, env=load_settings())
    assert len(provider.requests) == len(chunks)  # not one more request on the wire
    assert second.calls == 0 and second.cache_hits == len(chunks)
    assert second.chunks == first.chunks

    edited_doc = doc.model_copy(deep=True)  # change one sentence of session 2
    last = edited_doc.elements[-1]
    new_text = last.text.replace("says", "tells", 1)
    edited_doc.elements[-1] = last.model_copy(update={"text": new_text})
    edited = rag_chunks(edited_doc, plan, max_chars=400)
    third = enrich_all(edited, edited_doc, plan, provider.kind, cache, env=load_settings())
    changed = sum(a.text != b.text for a, b in zip(chunks, edited, strict=True))
    # the changed chunk and its neighbours (whose window shows it) are asked again
    assert changed >= 1 and changed <= third.calls <= changed + 2
    assert len(provider.requests) == len(chunks) + third.calls


def test_llm_copied_summary_is_reasked_with_the_rule(provider: FakeProvider) -> None:
    doc = build_doc([para(sentences(3))])
    plan = plan_for(doc, [(1, 1, "Only")])
    chunks = rag_chunks(doc, plan)
    copy = {**GOOD, "summary": doc.elements[0].text.split(". ")[1] + "."}
    provider.enqueue(answer(copy), answer(GOOD))
    result = enrich_all(chunks, doc, plan, provider.kind, None, env=load_settings())
    assert result.failures == [] and result.calls == 2 and len(provider.requests) == 2
    sent = user_texts(provider)
    assert "rejected" not in sent[0]
    assert "previous answer was rejected" in sent[1] and "copied verbatim" in sent[1]


def test_llm_persistent_failures_are_reported_and_not_cached(
    provider: FakeProvider, tmp_path: Path
) -> None:
    doc = build_doc([para(sentences(3))])
    plan = plan_for(doc, [(1, 1, "Only")])
    chunks = rag_chunks(doc, plan)
    provider.default = answer({**GOOD, "questions": ["No question mark here."]})
    cache = FolderCache(tmp_path / "cache")
    result = enrich_all(chunks, doc, plan, provider.kind, cache, env=load_settings())
    assert result.chunks[0].enrichment is None and len(result.failures) == 1
    assert "invalid enrichment after 3 attempts" in result.failures[0].error
    assert len(provider.requests) == 3
    provider.default = answer(GOOD)
    retry = enrich_all(chunks, doc, plan, provider.kind, cache, env=load_settings())
    assert retry.failures == [] and retry.calls == 1 and len(provider.requests) == 4


def test_command_backend_enrichment_with_a_store_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "answer.json").write_text(json.dumps(GOOD), encoding="utf-8")
    log = tmp_path / "calls.log"
    script = tmp_path / "agent.py"
    script.write_text(
        "import json, pathlib, sys\n"
        "task = json.loads(sys.stdin.buffer.read())\n"
        "assert task['task'] == 'rag.enrich' and '<chunk>' in task['user']\n"
        "here = pathlib.Path(sys.argv[0]).parent\n"
        "with open(here / 'calls.log', 'a') as f: f.write('call\\n')\n"
        "sys.stdout.buffer.write((here / 'answer.json').read_bytes())\n"
    )
    monkeypatch.setenv(
        "QUIRE_AGENT_COMMAND", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    )
    doc, plan = small_doc()
    chunks = rag_chunks(doc, plan, max_chars=600)
    cache = StoreCache(LocalStore(tmp_path / "store"))
    result = enrich_all(chunks, doc, plan, "command", cache, env=load_settings())
    assert result.failures == [] and len(log.read_text().splitlines()) == len(chunks)
    again = enrich_all(chunks, doc, plan, "command", cache, env=load_settings())
    assert again.calls == 0 and len(log.read_text().splitlines()) == len(chunks)
    assert all(c.enrichment and c.enrichment.backend == "command" for c in again.chunks)


def test_quire_rag_enrich_end_to_end_against_the_fake_server(
    provider: FakeProvider, tmp_path: Path
) -> None:
    doc, plan = small_doc()
    out = tmp_path / "out"
    files = write_all(doc, plan, formats={"markdown"}, source_pdf=None, images={})
    files["ir.json"] = dump_ir(doc)
    files["plan.json"] = plan.model_dump_json().encode()
    save_files(out, files)
    args = ["rag", "--out", str(out), "--max-chars", "500", "--enrich", "--backend", provider.kind]
    runner = CliRunner()
    first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    chunks = load_jsonl((out / RAG_CHUNKS_FILE).read_bytes())
    assert len(provider.requests) == len(chunks) > 1
    assert all(c.enrichment and c.enrichment.questions == GOOD["questions"] for c in chunks)
    assert (out / "rag-cache").is_dir()
    second = runner.invoke(main, args)
    assert second.exit_code == 0 and "0 calls" in second.output
    assert len(provider.requests) == len(chunks)
    assert verify_output(out, render=False).passed
