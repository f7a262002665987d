"""Chunk analysis: context, validation rules, Persian script checks, the heuristic analyser,
LLM analysis over the wire (fake OpenAI / Anthropic servers), and renaming by topic."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quire.shared.analysis import AnalysisFailure, ChunkAnalysis
from quire.shared.errors import ValidationFailedError
from quire.shared.ir import dump_ir
from quire.shared.settings import load_settings
from quire.workers.analysis import (
    AnalysisAnswer,
    AnalysisContext,
    InvalidAnalysis,
    analyse_chunk,
    build_context,
    build_contexts,
    english_problem,
    heuristic_analysis,
    persian_problem,
    retitle_plan,
    validate_answer,
)
from quire.workers.analysis.heuristic import (
    FA_MISSING,
    STRONG_CHANGE,
    clean_heading,
    heuristic_focus,
)
from quire.workers.analysis.validate import same_focus
from quire.workers.llm import make_backend
from quire.workers.verify import verify_output
from quire.workers.write import save_files, write_all
from tests.analysisfix import GOOD, good_analysis, sample_candidates, sample_doc, sample_plan
from tests.irgen import build_doc, heading, para
from tests.llm_servers import KEYS, FakeProvider, answer, status
from tests.writefix import make_tiny

pytestmark = pytest.mark.usefixtures("fast_llm")

ROOT = Path(__file__).resolve().parents[1]

DOC = sample_doc()
PLAN = sample_plan(DOC)
CONTEXTS = build_contexts(DOC, PLAN, sample_candidates(DOC))


def ctx(n: int) -> AnalysisContext:
    return CONTEXTS[n - 1]


def good_answer(n: int = 1, **change: Any) -> AnalysisAnswer:
    return AnalysisAnswer(**{**GOOD[n], **change})


# --- context -----------------------------------------------------------------------------


def test_context_has_whole_content_neighbours_and_terms() -> None:
    c = ctx(2)
    assert (c.chunk, c.chunk_count, c.first_id, c.last_id) == (2, 3, "el-000007", "el-000009")
    assert c.content.startswith("# 2 Matrices") and c.content.count("%*%") == 12
    assert c.previous is not None and c.previous.title == "Vectors and assignment"
    assert c.next is not None and c.next.title == "Linear regression"
    # no index in this document: its key phrases, chosen against the other chunks
    assert "dim attribute" in [t.term for t in c.key_terms]
    assert all(t.source == "phrase" and len(t.term.split()) >= 2 for t in c.key_terms)
    assert c.starts_with_heading and [h.text for h in c.headings] == ["2 Matrices"]
    # Safe cuts strictly inside: after el-000007 is unsafe (heading), after el-000009 is
    # the chunk's own end; so only el-000008 remains.
    assert [k.after_id for k in c.internal_cuts] == ["el-000008"]
    assert json.loads(c.model_dump_json())["chunk"] == 2  # JSON-serialisable for the CLI


def test_context_takes_a_saved_plans_key_terms() -> None:
    """A saved plan carries each session's key terms (computed from its element range
    alone), so a later step's context takes them instead of building the book's phrase
    index again; a session without any still gets them computed."""
    from quire.workers.analysis import DocumentStats
    from quire.workers.analysis.session_terms import with_key_terms

    stats = DocumentStats.of(DOC, sample_candidates(DOC))
    saved = with_key_terms(PLAN, stats.terms, stats.positions)
    assert [c.key_terms for c in saved.chunks] == [ctx(n).key_terms for n in (1, 2, 3)]
    fresh = DocumentStats.of(DOC, sample_candidates(DOC))
    c = build_context(DOC, saved, 2, stats=fresh)
    assert c.key_terms == ctx(2).key_terms
    assert "terms" not in vars(fresh)  # the phrase index was never built
    bare = saved.model_copy(
        update={"chunks": [*saved.chunks[:1], PLAN.chunks[1], *saved.chunks[2:]]}
    )
    assert build_context(DOC, bare, 2, stats=fresh).key_terms == ctx(2).key_terms
    assert "terms" in vars(fresh)


def test_context_of_a_chunk_starting_mid_section() -> None:
    plan = sample_plan(DOC, ("el-000002", "el-000009"))
    c = build_context(DOC, plan, 2)
    assert not c.starts_with_heading
    assert [h.text for h in c.enclosing] == ["1 Vectors and assignment"]
    with pytest.raises(ValueError, match="no chunk 9"):
        build_context(DOC, plan, 9)


# --- validation --------------------------------------------------------------------------


def test_good_answer_is_accepted_and_tidied() -> None:
    a = validate_answer(good_answer(topic_en="  Vectors   and assignment in R "), ctx(1), "openai")
    assert a.topic_en == "Vectors and assignment in R"
    assert (a.chunk, a.first_id, a.last_id, a.backend) == (1, "el-000001", "el-000006", "openai")
    assert not a.heuristic and a.fa_missing_reason is None and a.has_persian


@pytest.mark.parametrize(
    "change,message",
    [
        ({"topic_en": ""}, "topic_en is empty"),
        ({"study_focus_fa": ""}, "study_focus_fa is empty"),
        ({"topic_en": "R"}, "topic_en is too short"),
        ({"topic_en": "auto"}, "topic_en 'auto' is generic"),
        ({"topic_en": "N/A"}, "is generic"),
        ({"topic_en": "Chunk 3"}, "is generic"),
        ({"topic_fa": "ندارد"}, "topic_fa 'ندارد' is generic"),
        ({"study_focus_en": "Vectors in R."}, "study_focus_en is too short"),
        ({"study_focus_en": "This section is about vectors and assignment in R."}, "template text"),
        (
            {"study_focus_en": "The chunk covers how vectors are created and assigned."},
            "template text",
        ),
        ({"study_focus_fa": "این بخش درباره بردارها و انتساب در زبان R است."}, "template text"),
        (
            {"study_focus_en": "Fill in <study focus> for vectors and assignment here."},
            "unfilled template",
        ),
        (
            {"study_focus_en": "Learn and understand vectors and assignment in R."},
            "study_focus_en only repeats the topic",
        ),
        ({"topic_fa": "Vectors and assignment"}, "topic_fa is not written in Persian script"),
        (
            {"study_focus_fa": "يتعلم الطالب العمليات الحسابية على المتجهات والتخزين بالتعيين"},
            "looks like Arabic, not Persian",
        ),
        (
            {"study_focus_fa": "ساختن бектор و انتساب عملگر в R и вектор арифметика"},
            "study_focus_fa",
        ),
        ({"topic_en": "بردارها و انتساب"}, "topic_en is not written in Latin script"),
        (
            {"study_focus_en": "Создавать векторы функцией c() и присваивать их именам."},
            "study_focus_en is not written in Latin script",
        ),
        ({"reason": "ok"}, "reason is too short"),
        ({"reason": "The chunk is coherent and confident."}, "names nothing specific"),
    ],
)
def test_validation_rejects(change: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidAnalysis, match=message):
        validate_answer(good_answer(**change), ctx(1), "openai")


def test_validation_lists_every_broken_rule_at_once() -> None:
    with pytest.raises(InvalidAnalysis) as err:
        validate_answer(good_answer(topic_en="auto", topic_fa="Vectors"), ctx(1), "openai")
    assert "topic_en 'auto' is generic" in err.value.message
    assert "topic_fa is not written in Persian" in err.value.message
    assert isinstance(err.value, ValidationFailedError)  # the CLI prints it as one line


def test_same_focus_as_another_chunk_is_rejected() -> None:
    other = good_analysis(2, "el-000007", "el-000009")
    same_en = good_answer(study_focus_en=GOOD[2]["study_focus_en"])
    with pytest.raises(InvalidAnalysis, match="study_focus_en is the same as chunk 2's"):
        validate_answer(same_en, ctx(1), "openai", others=[other])
    same_fa = good_answer(study_focus_fa=GOOD[2]["study_focus_fa"])
    with pytest.raises(InvalidAnalysis, match="study_focus_fa is the same as chunk 2's"):
        validate_answer(same_fa, ctx(1), "openai", others=[other])
    # The chunk's own earlier analysis is not "another chunk".
    mine = good_analysis(1, "el-000001", "el-000006")
    validate_answer(good_answer(), ctx(1), "openai", others=[mine, other])


def test_focuses_differing_only_in_numbers_count_as_the_same() -> None:
    assert same_focus(
        "Study pages 1-5 of the vectors chapter carefully",
        "Study pages 6-10 of the vectors chapter carefully",
    )
    assert not same_focus(GOOD[1]["study_focus_en"], GOOD[2]["study_focus_en"])


def test_analysis_for_another_chunk_is_refused() -> None:
    a = good_analysis(2, "el-000007", "el-000009")
    from quire.workers.analysis import check_analysis

    with pytest.raises(InvalidAnalysis, match="context is chunk 1"):
        check_analysis(a, ctx(1))


# --- scripts -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "بردارها و انتساب",
        "می‌خواند",  # ZWNJ inside a word
        "تابع lm() برای برازش مدل خطی در R به کار می‌رود",  # Latin technical terms
        "\ufeb3\ufef4\ufe8e\ufee7",  # presentation forms are Arabic-script letters too
        "فصل ۳: ماتریس‌ها",  # Persian digits
    ],
)
def test_persian_accepted(text: str) -> None:
    assert persian_problem(text) is None


@pytest.mark.parametrize(
    "text,why",
    [
        ("Matrices and arrays", "not written in Persian"),
        ("lm() و glm() و anova() و predict() برای مدل", "not written in Persian"),
        ("123 456", "no letters"),
        ("يتعلم الطالب العمليات الحسابية على المتجهات", "looks like Arabic"),
        ("ماتریس‌ها و آرایه‌ها 行列と配列", "another script"),
    ],
)
def test_persian_rejected(text: str, why: str) -> None:
    problem = persian_problem(text)
    assert problem is not None and why.split()[-1] in problem


def test_english_script() -> None:
    assert english_problem("Matrices, arrays and the %*% operator (α-level tests)") is None
    assert english_problem("ماتریس‌ها و آرایه‌ها") is not None
    assert english_problem("Матрицы") is not None


# --- heuristic ---------------------------------------------------------------------------


def heuristic_json() -> str:
    done: list[ChunkAnalysis] = []
    for c in CONTEXTS:
        done.append(heuristic_analysis(c, done))
    return json.dumps([a.model_dump(mode="json") for a in done], ensure_ascii=False)


def test_heuristic_is_deterministic_across_runs_and_hash_seeds() -> None:
    first = heuristic_json()
    assert heuristic_json() == first
    script = (
        "from tests.test_analysis import heuristic_json; import sys; "
        "sys.stdout.write(heuristic_json())"
    )
    for seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        assert out == first


def test_heuristic_topics_from_headings_and_terms_without_persian() -> None:
    analyses = json.loads(heuristic_json())
    assert [a["topic_en"] for a in analyses] == [
        "Vectors and assignment",
        "Matrices",
        "Linear regression",
    ]
    for a in analyses:
        assert a["heuristic"] is True and a["backend"] == "heuristic"
        assert a["topic_fa"] == "" and a["study_focus_fa"] == ""
        assert a["fa_missing_reason"] == FA_MISSING and "LLM backend" in FA_MISSING
        assert a["coherence"] == "confident"
    assert analyses[1]["study_focus_en"].startswith("Key terms to learn: ")
    assert "dim attribute" in analyses[1]["study_focus_en"]
    assert "Includes 1 code example." in analyses[0]["study_focus_en"]


def test_heuristic_topic_of_a_continued_section_and_of_a_headingless_chunk() -> None:
    for cut in ("el-000002", "el-000003"):  # mid-paragraphs; at the subsection heading
        plan = sample_plan(DOC, (cut, "el-000009"))
        a = heuristic_analysis(build_context(DOC, plan, 2))
        assert a.topic_en == "Vectors and assignment (continued); Matrices"
    plain = build_doc(
        [
            para("Eigenvalues and eigenvectors of a symmetric matrix are real. " * 20),
            para("Each eigenvector keeps its direction; the eigenvalue scales it. " * 20),
        ],
        doc_id="d2",
    )
    c = build_context(plain, sample_plan(plain, ()), 1)
    # no heading: the author's first words, never key terms glued into a title
    topic = heuristic_analysis(c).topic_en
    assert topic == "Eigenvalues and eigenvectors of a symmetric matrix are…" == c.title


def test_heuristic_does_not_invent_english_for_non_latin_text() -> None:
    fa = build_doc(
        [
            heading("فصل اول: نصب", 1),
            para("برای نصب سیستم عامل ابتدا دیسک را آماده کنید و سپس نصب را آغاز کنید. " * 10),
        ],
        doc_id="d3",
    )
    a = heuristic_analysis(build_context(fa, sample_plan(fa, ()), 1))
    assert a.topic_en == "" and a.study_focus_en == ""
    assert a.en_missing_reason is not None and "LLM backend" in a.en_missing_reason
    assert retitle_plan(sample_plan(fa, ()), [a]).chunks[0].title == "فصل اول: نصب"


def test_heuristic_says_so_rather_than_giving_a_generic_topic() -> None:
    bare = build_doc([heading("Overview", 1), para("This is it, and so on.")], doc_id="d4")
    a = heuristic_analysis(build_context(bare, sample_plan(bare, ()), 1))
    assert a.topic_en == "" and a.en_missing_reason is not None


def test_heuristic_coherence_follows_strong_internal_change() -> None:
    # One chunk holding two whole chapters; a strong change where both sides are 5+ pages.
    plan = sample_plan(DOC, ())
    strong = build_context(
        DOC, plan, 1, candidates=sample_candidates(DOC, {"el-000006": 0.93, "el-000009": 0.6})
    )
    a = heuristic_analysis(strong)
    assert a.coherence == "needs_review"
    assert "after el-000006" in a.reason and f">= {STRONG_CHANGE}" in a.reason
    # Whichever cut is strong, as long as both sides are full sessions (pages 1-9 | 10-15).
    weak = build_context(
        DOC, plan, 1, candidates=sample_candidates(DOC, {"el-000006": 0.7, "el-000009": 0.95})
    )
    assert heuristic_analysis(weak).coherence == "needs_review"
    # A strong change that would leave a 2-page piece (after el-000013) does not count.
    calm = build_context(
        DOC,
        plan,
        1,
        candidates=sample_candidates(DOC, {"el-000006": 0.7, "el-000009": 0.8, "el-000013": 0.99}),
    )
    b = heuristic_analysis(calm)
    assert b.coherence == "confident" and "0.80 after el-000009" in b.reason


def test_heuristic_stays_distinct_from_committed_focuses() -> None:
    first = heuristic_analysis(ctx(2))
    clash = first.model_copy(update={"chunk": 3, "first_id": "el-000010", "last_id": "el-000014"})
    again = heuristic_analysis(ctx(2), [clash])
    assert again.study_focus_en != first.study_focus_en
    assert not same_focus(again.study_focus_en, first.study_focus_en)
    # When every term list clashes, the chunk's opening words tell it apart.
    rivals = [
        clash.model_copy(update={"chunk": 10 + i, "study_focus_en": heuristic_focus(ctx(2), n)})
        for i, n in enumerate((6, 9, 12))
    ]
    last = heuristic_analysis(ctx(2), rivals)
    assert "It opens with: A matrix is a two-dimensional array" in last.study_focus_en


def test_clean_heading() -> None:
    assert clean_heading("11.2 Linear models") == "Linear models"
    assert clean_heading("Appendix B Invoking R") == "Invoking R"
    assert clean_heading("B.1 Invoking R from the command line") == (
        "Invoking R from the command line"
    )
    assert clean_heading("Section overview") == "Section overview"


@pytest.mark.parametrize(
    ("title", "clean"),
    [
        ("Part II Models", "Models"),  # Roman numerals, not only "Part I"
        ("Chapter IV: Sets", "Sets"),
        ("Part Civil Law", "Part Civil Law"),  # a word of Roman letters is no numeral
        ("Kapitel 1 Einleitung", "Einleitung"),
        ("Anhang B Letzte Änderungen", "Letzte Änderungen"),
        ("Chapitre 3 : Les boîtes", "Les boîtes"),
        ("Capítulo 4 Tablas", "Tablas"),
        ("Глава 2. Установка", "Установка"),
        ("Teil der Lösung", "Teil der Lösung"),
    ],
)
def test_clean_heading_drops_numbering_in_the_sweeps_languages(title: str, clean: str) -> None:
    assert clean_heading(title) == clean


# --- LLM analysis over the wire ----------------------------------------------------------


def user_text(provider: FakeProvider, i: int) -> str:
    content = provider.requests[i].body["messages"][-1]["content"]
    assert isinstance(content, str)
    return content


def test_llm_analysis_persian_and_english_accepted(provider: FakeProvider) -> None:
    provider.enqueue(answer(GOOD[2]))
    result = analyse_chunk(ctx(2), provider.kind, env=load_settings())
    assert isinstance(result, ChunkAnalysis)
    assert result.backend == provider.kind and result.topic_fa == GOOD[2]["topic_fa"]
    assert result.study_focus_fa == GOOD[2]["study_focus_fa"]
    sent = user_text(provider, 0)
    assert "Chunk 2 of 3" in sent and "%*% operator" in sent  # the chunk's content
    assert "Previous chunk (1): Vectors and assignment" in sent
    assert "Next chunk (3): Linear regression" in sent
    assert "Key terms (key phrases" in sent and "dim attribute" in sent  # as context
    assert KEYS[provider.kind] not in provider.requests[0].raw.decode()


def test_llm_generic_answer_is_reasked_with_the_rule(provider: FakeProvider) -> None:
    generic = {**GOOD[1], "study_focus_en": "This section is about vectors and assignment."}
    provider.enqueue(answer(generic), answer(GOOD[1]))
    result = analyse_chunk(ctx(1), provider.kind, env=load_settings())
    assert isinstance(result, ChunkAnalysis) and result.topic_en == GOOD[1]["topic_en"]
    assert len(provider.requests) == 2
    assert "rejected" not in user_text(provider, 0)
    assert "previous answer was rejected" in user_text(provider, 1)
    assert "template text" in user_text(provider, 1)


def test_llm_english_in_persian_field_then_duplicate_focus_then_good(
    provider: FakeProvider,
) -> None:
    other = good_analysis(2, "el-000007", "el-000009")
    provider.enqueue(
        answer({**GOOD[1], "topic_fa": "Vectors and assignment"}),
        answer({**GOOD[1], "study_focus_en": GOOD[2]["study_focus_en"]}),
        answer(GOOD[1]),
    )
    result = analyse_chunk(ctx(1), provider.kind, others=[other], env=load_settings())
    assert isinstance(result, ChunkAnalysis)
    assert "not written in Persian script" in user_text(provider, 1)
    assert "same as chunk 2's" in user_text(provider, 2)


@pytest.mark.parametrize(
    "topic",
    ["auto", "2017-08-31T10:54:00.163Z", "1024"],
)
def test_llm_persistently_unspecific_answers_fall_back_to_the_heuristic(
    provider: FakeProvider, topic: str
) -> None:
    """Schema-valid answers that say nothing (a placeholder, a timestamp, a number as the
    topic) are re-asked, then the heuristic analyses the chunk, marked as a fallback."""
    provider.default = answer({**GOOD[1], "topic_en": topic})
    backend = make_backend(provider.kind, env=load_settings())
    result = analyse_chunk(ctx(1), backend)
    assert isinstance(result, ChunkAnalysis) and result.heuristic
    assert result == analyse_chunk(ctx(1), "heuristic").model_copy(
        update={"backend_fallback": result.backend_fallback}
    )
    why = result.backend_fallback or ""
    assert why.startswith(f"{provider.kind}: invalid analysis after 3 attempts")
    assert "topic_en" in why and ("generic" in why or "names nothing specific" in why)
    assert len(provider.requests) == 3
    usage = backend.usage.snapshot()
    assert [(f.role, f.item) for f in usage.fallbacks] == [("analysis", "chunk 1")]
    role = usage.roles["analysis"]
    assert (role.items, role.valid_first_time, role.reasks, role.fallbacks) == (1, 0, 2, 1)


def test_llm_persistently_bad_answers_are_a_failure_when_strict(provider: FakeProvider) -> None:
    provider.default = answer({**GOOD[1], "topic_en": "auto"})
    result = analyse_chunk(ctx(1), make_backend(provider.kind, env=load_settings(), strict=True))
    assert isinstance(result, AnalysisFailure)
    assert result.backend == provider.kind and result.attempts == 3
    assert "invalid analysis after 3 attempts" in result.error and "generic" in result.error
    assert len(provider.requests) == 3


def test_llm_garbage_is_never_an_analysis(provider: FakeProvider) -> None:
    provider.default = answer("not json at all")
    result = analyse_chunk(ctx(3), provider.kind, env=load_settings())
    assert isinstance(result, ChunkAnalysis) and result.heuristic
    assert "no valid answer" in (result.backend_fallback or "")
    result = analyse_chunk(ctx(3), make_backend(provider.kind, env=load_settings(), strict=True))
    assert isinstance(result, AnalysisFailure) and "no valid answer" in result.error


def test_llm_transport_failure_is_a_failure_not_a_fallback(
    provider: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIRE_BACKEND_MAX_ATTEMPTS", "2")
    provider.default = status(503)
    result = analyse_chunk(ctx(3), provider.kind, env=load_settings())
    assert isinstance(result, AnalysisFailure) and "HTTP 503" in result.error
    assert len(provider.requests) == 2


def test_command_backend_analysis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "answer.json").write_text(json.dumps(GOOD[2], ensure_ascii=False), encoding="utf-8")
    script = tmp_path / "agent.py"
    script.write_text(
        "import json, pathlib, sys\n"
        "task = json.loads(sys.stdin.buffer.read())\n"
        "assert task['task'] == 'analysis' and 'Matrices' in task['user']\n"
        "sys.stdout.buffer.write((pathlib.Path(sys.argv[0]).parent / 'answer.json')"
        ".read_bytes())\n"
    )
    monkeypatch.setenv(
        "QUIRE_AGENT_COMMAND", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    )
    result = analyse_chunk(ctx(2), "command", env=load_settings())
    assert isinstance(result, ChunkAnalysis) and result.backend == "command"
    assert result.topic_fa == GOOD[2]["topic_fa"]


# --- renaming ----------------------------------------------------------------------------


def test_retitle_renames_files_and_keeps_verification_green(tmp_path: Path) -> None:
    tiny = make_tiny(tmp_path)
    contexts = build_contexts(tiny.doc, tiny.plan)
    analyses: list[ChunkAnalysis] = []
    for c in contexts:
        result = analyse_chunk(c, "heuristic", others=analyses)
        assert isinstance(result, ChunkAnalysis)
        analyses.append(result)
    renamed = retitle_plan(tiny.plan, analyses)
    # the heuristic's topics are the author's titles: nothing is glued onto "Introduction"
    assert [c.title for c in renamed.chunks] == [c.title for c in tiny.plan.chunks]
    assert renamed.chunks[0].title == "Introduction" and analyses[0].topic_en == ""
    assert [(c.first_id, c.last_id) for c in renamed.chunks] == [
        (c.first_id, c.last_id) for c in tiny.plan.chunks
    ]
    out = tmp_path / "out"
    files = write_all(tiny.doc, renamed, formats=["markdown"], source_pdf=None, images=tiny.images)
    files["ir.json"] = dump_ir(tiny.doc)
    files["plan.json"] = renamed.model_dump_json(indent=1).encode()
    save_files(out, files)
    assert (out / "01-introduction.md").is_file()
    report = verify_output(out, render=False)
    assert report.passed, report.findings


def test_retitle_refuses_an_analysis_of_another_range() -> None:
    wrong = good_analysis(1, "el-000001", "el-000003")
    with pytest.raises(ValueError, match=r"covers el-000001\.\.el-000003"):
        retitle_plan(PLAN, [wrong])
    with pytest.raises(ValueError, match="does not have"):
        retitle_plan(
            PLAN, [good_analysis(3, "el-000010", "el-000014").model_copy(update={"chunk": 7})]
        )
