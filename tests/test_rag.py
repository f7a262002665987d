"""Retrieval chunks: splitting by type, the two algorithms, the hard cap, the concatenation
proof (and that it catches tampering), stable ids, and `quire rag` / `quire verify` on a
written output folder. Hypothesis properties over generated IRs: cap, exact rebuild of every
session, whole rows / items unless a declared word split, stable ids, no verify problem."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from irgen import build_doc, bullets, code, documents, heading, image, para, table, words
from ragfix import cut_problems, rebuild, session_texts, whole_units_kept
from writefix import plan_for

from quire.orchestrator.cli import main
from quire.shared.errors import InputError
from quire.shared.ir import Document, dump_ir, make_element
from quire.shared.plan import Plan, PlanSettings
from quire.shared.rag import (
    RAG_CHUNKS_FILE,
    RAG_SETTINGS_FILE,
    Algorithm,
    RagChunk,
    dump_jsonl,
    load_jsonl,
    load_settings,
)
from quire.workers.rag import rag_chunks, verify_rag
from quire.workers.rag.split import sentences
from quire.workers.verify.report import verify_output
from quire.workers.write import save_files, write_all


def one_session(doc: Document) -> Plan:
    return plan_for(doc, [(1, len(doc.elements), "Everything")])


def sentence_doc(n: int, words_each: int = 12) -> str:
    return " ".join(f"Sentence {k} says {words(words_each, seed=k)}." for k in range(n))


# --- splitting -------------------------------------------------------------------------


def test_sentences_keep_abbreviations_initials_and_numbering_together() -> None:
    text = (
        "1. Introduction of the idea. See Fig. 3 for e.g. the plot, by J. Smith et al. "
        "today.  Is it clear? Yes!\nNext line."
    )
    got = sentences(text)
    assert [s for s, _ in got] == [
        "1. Introduction of the idea.",
        "See Fig. 3 for e.g. the plot, by J. Smith et al. today.",
        "Is it clear?",
        "Yes!",
        "Next line.",
    ]
    assert "".join(sep + s for s, sep in got) == text
    assert [sep for _, sep in got] == ["", " ", "  ", " ", "\n"]


def test_a_session_that_fits_is_one_chunk_with_its_exact_text() -> None:
    doc = build_doc([heading("Intro", 1), para("One. Two."), bullets(["a", "b"])])
    plan = one_session(doc)
    chunks = rag_chunks(doc, plan)
    assert len(chunks) == 1
    c = chunks[0]
    assert c.text == "# Intro\n\nOne. Two.\n\n- a\n- b" and c.chars == len(c.text)
    assert c.element_ids == [e.id for e in doc.elements]
    assert (c.starts_at, c.ends_at, c.continuation, c.has_more) == (
        "session",
        "session",
        False,
        False,
    )
    assert c.breadcrumb == ["# Intro"] and c.prev_id is None and c.next_id is None
    assert verify_rag(doc, plan, chunks, 2000) == []


def test_long_paragraph_splits_at_sentences_only() -> None:
    text = sentence_doc(40)
    doc = build_doc([heading("Long", 1), para(text)])
    plan = one_session(doc)
    chunks = rag_chunks(doc, plan, max_chars=400)
    assert len(chunks) > 3
    assert all(c.chars <= 400 for c in chunks)
    for c in chunks[:-1]:
        assert c.text.endswith(".") and c.has_more and c.ends_at == "sentence"
    for c in chunks[1:]:
        assert c.continuation and c.text.startswith("Sentence ") and c.sep_before == " "
    assert chunks[0].text.startswith("# Long\n\nSentence 0")  # the heading leads its text
    assert rebuild(chunks, 1) == f"# Long\n\n{text}"
    assert verify_rag(doc, plan, chunks, 400) == []


def test_one_sentence_over_the_cap_is_split_at_words_and_says_so() -> None:
    giant = words(300) + "."  # one sentence of about 1,500 characters
    doc = build_doc([para("Short one."), para(giant)])
    plan = one_session(doc)
    chunks = rag_chunks(doc, plan, max_chars=300)
    assert all(c.chars <= 300 for c in chunks)
    assert chunks[0].text == "Short one." and chunks[0].ends_at == "element"
    inner = chunks[1:]
    assert all(c.ends_at == "word" for c in inner[:-1])
    assert all(c.starts_at == "word" and c.sep_before == " " for c in inner[1:])
    assert all(not c.text.startswith(" ") and not c.text.endswith(" ") for c in inner)
    assert rebuild(chunks, 1) == f"Short one.\n\n{giant}"
    assert verify_rag(doc, plan, chunks, 300) == []


def test_a_word_over_the_cap_is_split_at_characters() -> None:
    token = "x" * 700
    doc = build_doc([para(f"Start {token} end.")])
    plan = one_session(doc)
    chunks = rag_chunks(doc, plan, max_chars=250)
    assert all(c.chars <= 250 for c in chunks)
    assert any(c.starts_at == "char" and c.sep_before == "" for c in chunks)
    assert rebuild(chunks, 1) == doc.elements[0].text
    assert verify_rag(doc, plan, chunks, 250) == []


def test_large_table_splits_at_rows_and_repeats_the_header() -> None:
    rows = [["Option", "Meaning"]] + [[f"opt{k}", words(8, seed=k)] for k in range(60)]
    doc = build_doc([heading("Options", 2), table(rows)])
    plan = one_session(doc)
    chunks = rag_chunks(doc, plan, max_chars=600)
    header = "| Option | Meaning |\n| --- | --- |\n"
    assert len(chunks) > 3 and all(c.chars <= 600 for c in chunks)
    assert chunks[0].text.startswith("## Options\n\n| Option | Meaning |")
    assert chunks[0].header_chars == 0
    for c in chunks[1:]:
        assert c.header_chars == len(header) and c.text.startswith(header)
        assert c.continuation and c.starts_at == "row" and c.sep_before == "\n"
    lines = doc.elements[1].text.split("\n")
    for row in lines[2:]:  # every data row whole in exactly one chunk
        assert sum(row in c.text.split("\n") for c in chunks) == 1
    assert rebuild(chunks, 1) == "## Options\n\n" + doc.elements[1].text
    assert verify_rag(doc, plan, chunks, 600) == []


def test_large_list_splits_at_items_and_multiline_items_stay_whole() -> None:
    items = [f"{words(10, seed=k)}\n{words(6, seed=k + 99)}" for k in range(40)]
    doc = build_doc([bullets(items, ordered=True)])
    plan = one_session(doc)
    chunks = rag_chunks(doc, plan, max_chars=300)
    assert len(chunks) > 3 and all(c.chars <= 300 for c in chunks)
    for n in range(1, 41):
        holders = [c for c in chunks if f"\n{n}. " in "\n" + c.text]
        assert len(holders) == 1
        item = items[n - 1].replace("\n", "\n   ")
        assert f"{n}. {item}" in holders[0].text
    assert all(c.starts_at == "item" for c in chunks[1:])
    assert verify_rag(doc, plan, chunks, 300) == []


def test_large_code_block_splits_at_lines_and_no_fence_stands_alone() -> None:
    body = "\n".join(f"x{k} <- c({k}, {k + 1}, {k + 2})  # {words(4, seed=k)}" for k in range(80))
    doc = build_doc([para("The code:"), code(body)])
    plan = one_session(doc)
    chunks = rag_chunks(doc, plan, max_chars=400)
    assert all(c.chars <= 400 for c in chunks)
    assert chunks[0].text.startswith("The code:\n\n```r\nx0 <- ")
    assert chunks[-1].text.endswith("\n```") and chunks[-1].text != "```"
    lines = body.split("\n")
    for line in lines:
        assert sum(line in c.text.split("\n") for c in chunks) == 1
    assert all(c.starts_at == "line" for c in chunks[1:])
    assert verify_rag(doc, plan, chunks, 400) == []


# --- rules between elements --------------------------------------------------------------


def test_intro_sentence_ending_in_colon_travels_with_its_table_or_list() -> None:
    filler = para(sentence_doc(6))  # ~420 characters
    intro = para("The options are the following:")
    for target in (table([["a", "b"], ["1", "2"], ["3", "4"]]), bullets(["one", "two"])):
        doc = build_doc([filler, intro, target])
        plan = one_session(doc)
        cap = len(filler.text) + 2 + len(intro.text) + 10  # the intro fits, its table does not
        for algorithm in ("linear", "hierarchical"):
            chunks = rag_chunks(doc, plan, max_chars=cap, algorithm=algorithm)
            holder = next(c for c in chunks if intro.text in c.text)
            assert doc.elements[2].id in holder.element_ids, algorithm
            assert verify_rag(doc, plan, chunks, cap) == []


def test_a_heading_never_ends_a_chunk() -> None:
    first = para(sentence_doc(5))
    doc = build_doc([first, heading("Next part", 2), para(sentence_doc(5))])
    plan = one_session(doc)
    cap = len(first.text) + 2 + len("## Next part") + 5
    for algorithm in ("linear", "hierarchical"):
        chunks = rag_chunks(doc, plan, max_chars=cap, algorithm=algorithm)
        assert all(not c.text.endswith("## Next part") for c in chunks)
        holder = next(c for c in chunks if "## Next part" in c.text)
        assert holder.text.startswith("## Next part\n\nSentence 0")
        assert holder.breadcrumb == ["## Next part"]
        assert verify_rag(doc, plan, chunks, cap) == []


def test_heading_before_an_element_too_big_to_join_it_takes_a_word_split_along() -> None:
    big = para(words(80) + ".")  # one sentence of ~400 characters
    doc = build_doc([heading("Title here", 1), big])
    plan = one_session(doc)
    chunks = rag_chunks(doc, plan, max_chars=400)
    assert chunks[0].text.startswith("# Title here\n\n") and chunks[0].ends_at == "word"
    assert all(c.chars <= 400 for c in chunks)
    assert verify_rag(doc, plan, chunks, 400) == []


def sections_doc() -> Document:
    body = [heading("A", 1), heading("A.1", 2), para(sentence_doc(6))]  # ~460 characters
    body += [heading("A.2", 2), para(sentence_doc(6, 10)), heading("B", 1)]
    body += [para(sentence_doc(2)), heading("B.1", 2), para(sentence_doc(5, 11))]
    return build_doc(body)


def test_hierarchical_cuts_at_the_highest_section_boundary_linear_packs_greedily() -> None:
    doc = sections_doc()
    plan = one_session(doc)
    cap = 700
    hier = rag_chunks(doc, plan, max_chars=cap)
    lin = rag_chunks(doc, plan, max_chars=cap, algorithm="linear")
    assert verify_rag(doc, plan, hier, cap) == [] and verify_rag(doc, plan, lin, cap) == []
    # From "## A.2" both reach into section B. Hierarchical cuts before "# B" (the highest
    # boundary in reach), so B and B.1 are one chunk; linear takes as much as fits.
    assert [c.text.split("\n")[0] for c in hier] == ["# A", "## A.2", "# B"]
    assert [c.text.split("\n")[0] for c in lin] == ["# A", "## A.2", "## B.1"]
    assert [c.breadcrumb for c in hier] == [["# A", "## A.1"], ["# A", "## A.2"], ["# B"]]
    assert lin[2].breadcrumb == ["# B", "## B.1"]
    assert [c.ends_at for c in hier] == ["section", "section", "session"]
    assert all(c.chars <= cap for c in hier + lin)


def test_sections_that_fit_together_are_merged() -> None:
    doc = build_doc([heading("S1", 2), para("One."), heading("S2", 2), para("Two.")])
    chunks = rag_chunks(doc, one_session(doc), max_chars=200)
    assert len(chunks) == 1


def test_chunks_never_cross_sessions_and_link_in_document_order() -> None:
    doc = build_doc([para(sentence_doc(3, seed)) for seed in range(2)] * 3)
    plan = plan_for(doc, [(1, 2, "One"), (3, 4, "Two"), (5, 6, "Three")])
    chunks = rag_chunks(doc, plan, max_chars=5000)
    assert [c.session for c in chunks] == [1, 2, 3]
    assert [c.element_ids for c in chunks] == [
        [doc.elements[i].id, doc.elements[i + 1].id] for i in (0, 2, 4)
    ]
    assert [c.prev_id for c in chunks] == [None, chunks[0].id, chunks[1].id]
    assert [c.next_id for c in chunks] == [chunks[1].id, chunks[2].id, None]
    texts = session_texts(doc, plan)
    assert all(rebuild(chunks, n) == texts[n] for n in texts)


def test_ids_are_stable_and_depend_on_content_and_position() -> None:
    doc = sections_doc()
    plan = one_session(doc)
    a, b = rag_chunks(doc, plan, max_chars=700), rag_chunks(doc, plan, max_chars=700)
    assert dump_jsonl(a) == dump_jsonl(b)
    assert len({c.id for c in a}) == len(a) and all(len(c.id) == 24 for c in a)
    other = doc.model_copy(update={"doc_id": "another-doc"})
    moved = rag_chunks(other, plan.model_copy(update={"doc_id": "another-doc"}), max_chars=700)
    assert not {c.id for c in a} & {c.id for c in moved}
    assert load_jsonl(dump_jsonl(a)) == a


def test_bad_arguments_are_refused() -> None:
    doc = sections_doc()
    with pytest.raises(InputError, match="at least"):
        rag_chunks(doc, one_session(doc), max_chars=100)
    with pytest.raises(InputError, match="another document"):
        rag_chunks(doc, one_session(doc).model_copy(update={"doc_id": "x"}))
    gap = plan_for(doc, [(1, 3, "a"), (5, len(doc.elements), "b")])
    with pytest.raises(InputError, match="continue"):
        rag_chunks(doc, gap)


# --- the proof catches tampering -----------------------------------------------------------


def tamper_cases(chunks: list[RagChunk]) -> dict[str, list[RagChunk]]:
    c = chunks[1]
    dropped = c.text.replace("Sentence", "Sentnce", 1)
    return {
        "concatenation": [*chunks[:1], c.model_copy(update={"text": dropped}), *chunks[2:]],
        "cap": [*chunks[:1], c.model_copy(update={"chars": c.chars + 1}), *chunks[2:]],
        "order": [chunks[1], chunks[0], *chunks[2:]],
        "id": [*chunks[:1], c.model_copy(update={"id": "0" * 24}), *chunks[2:]],
        "flags": [
            *chunks[:1],
            c.model_copy(update={"continuation": not c.continuation}),
            *chunks[2:],
        ],
        "cut": [*chunks[:1], c.model_copy(update={"starts_at": "word"}), *chunks[2:]],
        "elements": [*chunks[:1], c.model_copy(update={"element_ids": []}), *chunks[2:]],
        "link": [*chunks[:1], c.model_copy(update={"prev_id": None}), *chunks[2:]],
    }


def test_verification_catches_every_kind_of_tampering() -> None:
    doc = build_doc([heading("T", 1), para(sentence_doc(30)), table()])
    plan = one_session(doc)
    chunks = rag_chunks(doc, plan, max_chars=300)
    assert verify_rag(doc, plan, chunks, 300) == []
    for kind, bad in tamper_cases(chunks).items():
        kinds = {p.kind for p in verify_rag(doc, plan, bad, 300)}
        assert kind in kinds, (kind, kinds)
    assert {p.kind for p in verify_rag(doc, plan, chunks, 200)} == {"cap"}
    assert {p.kind for p in verify_rag(doc, plan, chunks[:-1], 300)} >= {"concatenation"}


def test_verification_checks_the_repeated_header() -> None:
    rows = [["k", "v"]] + [[f"key{k}", words(10, seed=k)] for k in range(30)]
    doc = build_doc([table(rows)])
    plan = one_session(doc)
    chunks = rag_chunks(doc, plan, max_chars=300)
    c = chunks[1]
    assert c.header_chars
    fake = "| x | y |\n| --- | --- |\n"
    body = c.text[c.header_chars :]
    forged = c.model_copy(
        update={"text": fake + body, "chars": len(fake + body), "header_chars": len(fake)}
    )
    kinds = {p.kind for p in verify_rag(doc, plan, [chunks[0], forged, *chunks[2:]], 300)}
    assert "header" in kinds


# --- output folder: `quire rag` and `quire verify` -----------------------------------------


def output_folder(tmp: Path, doc: Document, plan: Plan) -> Path:
    out = tmp / "out"
    out.mkdir()
    files = write_all(doc, plan, formats={"markdown"}, source_pdf=None, images={})
    files["ir.json"] = dump_ir(doc)
    files["plan.json"] = plan.model_dump_json(indent=1).encode()
    save_files(out, files)
    return out


def test_quire_rag_writes_verified_chunks_and_quire_verify_checks_them(tmp_path: Path) -> None:
    doc = build_doc(
        [
            heading("T", 1),
            para(sentence_doc(30)),
            table(),
            heading("U", 1),
            bullets([words(30, seed=k) for k in range(12)]),
        ]
    )
    plan = plan_for(doc, [(1, 3, "First"), (4, 5, "Second")])
    out = output_folder(tmp_path, doc, plan)
    runner = CliRunner()
    result = runner.invoke(main, ["rag", "--out", str(out), "--max-chars", "400"])
    assert result.exit_code == 0, result.output
    data = (out / RAG_CHUNKS_FILE).read_bytes()
    chunks = load_jsonl(data)
    assert chunks == rag_chunks(doc, plan, max_chars=400)
    meta = load_settings((out / RAG_SETTINGS_FILE).read_bytes())
    assert (meta.max_chars, meta.algorithm, meta.chunk_count) == (400, "hierarchical", len(chunks))
    again = runner.invoke(main, ["rag", "--out", str(out), "--max-chars", "400"])
    assert again.exit_code == 0 and (out / RAG_CHUNKS_FILE).read_bytes() == data

    report = verify_output(out, render=False)
    assert report.passed, report.findings
    assert report.checked["rag_chunks"] == len(chunks)

    # a retrieval chunk that lost a word fails `quire verify`
    lines = data.decode().splitlines()
    row = json.loads(lines[1])
    row["text"] = row["text"].replace("Sentence", "Sentnce", 1)
    lines[1] = json.dumps(row, ensure_ascii=False)
    (out / RAG_CHUNKS_FILE).write_text("\n".join(lines) + "\n")
    result = runner.invoke(main, ["verify", "--out", str(out)])
    assert result.exit_code == 1
    report = verify_output(out, render=False)
    kinds = {(f.kind, f.file) for f in report.findings}
    assert kinds == {("rag_chunks", RAG_CHUNKS_FILE)}
    assert any("concatenation" in f.message for f in report.findings)
    assert any("sha256" in f.message for f in report.findings)


def test_quire_rag_uses_the_manifest_when_plan_json_is_absent(tmp_path: Path) -> None:
    doc = sections_doc()
    plan = plan_for(doc, [(1, 5, "A"), (6, len(doc.elements), "B")])
    out = output_folder(tmp_path, doc, plan)
    (out / "plan.json").unlink()
    result = CliRunner().invoke(
        main, ["rag", "--out", str(out), "--algorithm", "linear", "--max-chars", "500"]
    )
    assert result.exit_code == 0, result.output
    chunks = load_jsonl((out / RAG_CHUNKS_FILE).read_bytes())
    assert {c.session for c in chunks} == {1, 2}
    assert chunks == rag_chunks(doc, plan, max_chars=500, algorithm="linear")
    assert verify_output(out, render=False).passed
    (out / RAG_SETTINGS_FILE).unlink()
    report = verify_output(out, render=False)
    assert not report.passed and report.findings[0].file == RAG_SETTINGS_FILE


def test_quire_rag_refuses_a_cap_below_the_minimum(tmp_path: Path) -> None:
    doc = sections_doc()
    out = output_folder(tmp_path, doc, one_session(doc))
    result = CliRunner().invoke(main, ["rag", "--out", str(out), "--max-chars", "50"])
    assert result.exit_code == 2 and "at least" in result.output
    assert not (out / RAG_CHUNKS_FILE).exists()


def test_an_empty_paragraph_after_a_heading_does_not_hide_it_at_a_chunks_end() -> None:
    """Found by the property below: "# Untitled", an empty paragraph, then a run of
    headings and a long one that cannot all join it. The chunker cut after the empty
    paragraph, which left the heading last in its chunk (an empty element is invisible),
    and the test's own check counted the empty paragraph as text in a chunk of headings."""
    for second in (1, 2):  # the second heading of the run at level 1, then 2
        els = [para("as follows:") for _ in range(14)] + [para(""), heading("Untitled")]
        els += [para(""), heading("Untitled", second), *[heading("Untitled")] * 3]
        els += [heading(words(60, seed=3)), para("as follows:"), para("as follows:")]
        doc = build_doc(els)
        plan = plan_for(doc, [(1, len(doc.elements), "Session 0")])
        chunks = rag_chunks(doc, plan, max_chars=333, algorithm="hierarchical")
        assert verify_rag(doc, plan, chunks, 333) == []
        assert cut_problems(doc, chunks, 333) == []


# --- properties over generated documents ---------------------------------------------------


@st.composite
def planned(draw: st.DrawFn) -> tuple[Document, Plan]:
    # 3,000 words (about 18,000 characters) already split into word and character pieces
    # under every cap drawn below; 9,000-word elements only made the test three times slower
    doc = draw(documents(max_elements=40, max_words=3000))
    n = len(doc.elements)
    if n == 0:
        return doc, Plan(doc_id=doc.doc_id, settings=PlanSettings(), boundaries=[], chunks=[])
    cuts = sorted(draw(st.sets(st.integers(1, max(1, n - 1)), max_size=4)) - {n})
    edges = [0, *cuts, n]
    spans = [(a + 1, b, f"Session {k}") for k, (a, b) in enumerate(itertools.pairwise(edges))]
    return doc, plan_for(doc, spans)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    planned(),
    st.sampled_from([200, 333, 800, 2000]),
    st.sampled_from(["hierarchical", "linear"]),
)
def test_property_cap_rebuild_whole_units_stable_ids(
    dp: tuple[Document, Plan], cap: int, algorithm: Algorithm
) -> None:
    doc, plan = dp
    chunks = rag_chunks(doc, plan, max_chars=cap, algorithm=algorithm)
    assert all(c.chars == len(c.text) <= cap for c in chunks)
    texts = session_texts(doc, plan)
    for n, text in texts.items():
        assert rebuild(chunks, n) == text
    assert whole_units_kept(doc, chunks) == []
    assert cut_problems(doc, chunks, cap) == []
    assert verify_rag(doc, plan, chunks, cap) == []
    again = rag_chunks(doc, plan, max_chars=cap, algorithm=algorithm)
    assert dump_jsonl(again) == dump_jsonl(chunks)
    assert len({c.id for c in chunks}) == len(chunks)


@pytest.mark.parametrize("algorithm", ["hierarchical", "linear"])
def test_a_heading_glued_to_the_next_goes_with_it_when_nothing_else_fits(
    algorithm: Algorithm,
) -> None:
    """Found by the property test above: a heading, an image and an empty element, then two
    headings whose second does not fit; every boundary within reach is glued, and the chunk
    ended with the first of the two headings instead of leaving both to the next."""
    long_title = " ".join(["coli cubi cato cota cobi"] * 4)
    els = [para("as follows:"), para("as follows:"), heading("Untitled", 1), image("")]
    els += [make_element("paragraph", "", 1), heading("Untitled", 1), heading(long_title, 1)]
    doc = build_doc(els)
    plan = plan_for(doc, [(1, len(els), "Session")])
    chunks = rag_chunks(doc, plan, max_chars=200, algorithm=algorithm)
    assert [c.element_ids[0] for c in chunks] == ["el-000001", "el-000003", "el-000006"]
    assert cut_problems(doc, chunks, 200) == [] and verify_rag(doc, plan, chunks, 200) == []


@pytest.mark.parametrize("algorithm", ["hierarchical", "linear"])
def test_a_cut_before_an_empty_element_is_labelled_by_what_follows_it(
    algorithm: Algorithm,
) -> None:
    """An empty element is invisible: a chunk that starts before an empty formula and then
    a heading starts a section (found by the property test above, in a generated IR)."""
    doc = build_doc(
        [para(words(40)), make_element("formula", "", 1), heading("Next part", 2), para(words(20))]
    )
    plan = plan_for(doc, [(1, 4, "Part")])
    chunks = rag_chunks(doc, plan, max_chars=200, algorithm=algorithm)
    assert [c.starts_at for c in chunks][1:] == ["section"]
    assert verify_rag(doc, plan, chunks, 200) == []
