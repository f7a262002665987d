"""The offline backend never loses a document to Quire's own validators.

- Book text quoted in the Markdown Quire writes (the study indexes and map: titles,
  headings, the planner's reasons) is escaped, so link syntax ("currentfigure = [](0x0)",
  "[⟨text⟩](⟨long⟩)") and Markdown specials read as text; the real index validator then
  accepts the offline backend's own output.
- A heuristic study focus that would be the same as another chunk's is made specific with
  the chunk's own words, or left empty with the reason; a reason that quotes template-like
  book text is replaced. The chunk always completes.
"""

from __future__ import annotations

import html
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from quire.shared.analysis import INDEX_FILES, ChunkAnalysis
from quire.shared.ir import Document, Element
from quire.shared.markdown import inline
from quire.workers.analysis import (
    AnalysisContext,
    build_context,
    build_contexts,
    heuristic_analysis,
)
from quire.workers.analysis.heuristic import RULES_REASON, SAME_MISSING, heuristic_focus
from quire.workers.analysis.validate import same_focus
from quire.workers.boundaries.candidates import safe_candidates
from tests.analysisfix import offline_run, sample_candidates, sample_plan
from tests.irgen import build_doc, code, heading, para, words

MD = MarkdownIt("commonmark", {"html": False}).enable("table")

# Lines from the sweep's manuals that broke the study map, and every Markdown special.
HOSTILE = [
    "currentfigure = [](0x0)",
    r"\newcommand[⟨text⟩](⟨long⟩) and […](length)",
    "![alt] <https://example.com> <b>bold</b> &amp; &#x41;",
    "*stars* _under_ __init__ `tick` ~~strike~~ $x^2$ # hash | pipe \\ backslash",
    "- 1. + > = a list, a quote and a setext line",
]


# --- escaping ------------------------------------------------------------------------------

_TEXT = st.text(
    alphabet=st.sampled_from([*"ab1 _*[]()<>!#|`~&$\\-+.=:/x;\n\t", "⟨", "…", "é"]),
    max_size=40,
)


def _rendered_text(markdown: str) -> str:
    """What a reader sees of one paragraph of Markdown (HTML with its tags dropped)."""
    rendered = MD.render(markdown).strip()
    assert rendered.startswith("<p>") and rendered.endswith("</p>"), rendered
    assert "<a " not in rendered and "<img" not in rendered and "<code" not in rendered
    assert "<em" not in rendered and "<strong" not in rendered
    return html.unescape(rendered[3:-4])


@given(_TEXT)
def test_inline_text_reads_as_itself(text: str) -> None:
    flat = " ".join(text.split())
    if flat:
        assert _rendered_text("Title — " + inline(text)) == "Title — " + flat
        assert _rendered_text(inline(text)) == flat  # at the start of a line too


def test_inline_keeps_intraword_underscores_and_plain_text() -> None:
    assert inline("texmf_dist sub_line") == "texmf_dist sub_line"
    assert inline("Vectors (and) matrices, 3.2") == "Vectors (and) matrices, 3.2"
    assert inline("currentfigure = [](0x0)") == r"currentfigure = \[\](0x0)"


# --- the whole offline path on a generated manual whose headings quote Markdown ------------


def hostile_manual() -> Document:
    els: list[Element] = [heading("A manual of odd syntax", 1, page=1)]
    page = 2
    for n, line in enumerate(HOSTILE):
        els.append(heading(f"{n + 1} {line}", 1, page=page))
        for p in range(6):
            els.append(para(f"{line} " + words(260, topic=n % 3, seed=n * 10 + p), page=page + p))
        els.append(code(line, page=page + 5))
        page += 6
    return build_doc(els, doc_id="doc-hostile", name="odd_[syntax](0x0).pdf")


def test_link_syntax_quoted_from_the_book_passes_the_index_validator(tmp_path: Path) -> None:
    rendered = offline_run(hostile_manual(), {}, tmp_path / "out")
    study_map = rendered[INDEX_FILES["map"]]
    # the planner's reasons quote the headings, and the map says so as plain text
    assert "currentfigure = \\[\\](0x0)" in study_map
    seen = html.unescape(MD.render(study_map))
    assert "currentfigure = [](0x0)" in seen and "[⟨text⟩](⟨long⟩)" in seen
    assert "<b>bold</b>" in seen  # shown as text: html.unescape undid the &lt;b&gt;
    assert "odd_[syntax](0x0).pdf" in html.unescape(MD.render(rendered[INDEX_FILES["en"]]))
    hrefs = [
        child.attrGet("href")
        for token in MD.parse(study_map)
        for child in token.children or []
        if child.type == "link_open"
    ]
    assert hrefs and all(str(h).endswith(".md") for h in hrefs)


# --- a heuristic focus the same as another chunk's --------------------------------------------


def twin_doc(same_body: bool) -> Document:
    """Two 6-page chunks with the same heading and the same key vocabulary; the second
    also has words of its own unless `same_body` (then both hold six words and numbers)."""
    shared = words(900, topic=0, seed=1)
    if same_body:
        shared = "kelo mabu 17 nifa pode 2.5 rusa tavi 300 " * 90
    own = shared if same_body else words(300, topic=1, seed=2)
    els = []
    for k, page in enumerate((1, 7)):
        els.append(heading("Table options", 1, page=page))
        for p in range(6):
            extra = f" {own}" if k and p == 5 else ""
            els.append(para(shared + extra, page=page + p))
    return build_doc(els, doc_id=f"doc-twins-{same_body}", name="twins.pdf")


def taken_focuses(a: ChunkAnalysis, context: AnalysisContext) -> list[ChunkAnalysis]:
    """Every focus the heuristic used to try for `context`'s chunk (more key terms, then
    its opening words), as other chunks' analyses: it was refused ("the same as chunk 3's")."""
    return [
        a.model_copy(update={"chunk": 3 + i, "study_focus_en": heuristic_focus(context, n, o)})
        for i, (n, o) in enumerate(((6, False), (9, False), (12, False), (12, True)))
    ]


def test_two_chunks_with_one_heuristic_focus_are_told_apart() -> None:
    doc = twin_doc(same_body=False)
    plan = sample_plan(doc, ("el-000007",))
    first, second = build_contexts(doc, plan, safe_candidates(doc))
    a = heuristic_analysis(first)
    taken = taken_focuses(a, second)
    b = heuristic_analysis(second, [a, *taken])
    assert b.study_focus_en and b.en_missing_reason is None
    assert not any(same_focus(b.study_focus_en, t.study_focus_en) for t in [a, *taken])
    assert "Also on these pages:" in b.study_focus_en  # words no other focus names
    extra = b.study_focus_en.rsplit(":", 1)[1].strip(" .").split(", ")
    named = {w for t in [a, *taken] for w in t.study_focus_en.casefold().split()}
    assert set(extra) <= set(second.content.split()) and not set(extra) & named


def test_identical_chunks_complete_without_an_english_focus(tmp_path: Path) -> None:
    doc = twin_doc(same_body=True)
    plan = sample_plan(doc, ("el-000007",))
    first, second = build_contexts(doc, plan, safe_candidates(doc))
    a = heuristic_analysis(first)
    b = heuristic_analysis(second, [a, *taken_focuses(a, second)])  # refused before
    assert b.study_focus_en == "" and b.en_missing_reason == SAME_MISSING
    assert b.topic_en  # the topic is still the chunk's heading
    offline_run(doc, {}, tmp_path / "out")  # and the document completes


def test_a_reason_quoting_template_like_text_is_replaced() -> None:
    # a strong change inside the chunk, before a paragraph that reads like a template
    els = [heading("Formatted output", 1, page=1)]
    els += [para(words(300, topic=0, seed=p), page=1 + p) for p in range(6)]
    els.append(para("%s TODO ${HOME} " + words(300, topic=1, seed=9), page=7))
    els += [para(words(300, topic=1, seed=20 + p), page=8 + p) for p in range(5)]
    doc = build_doc(els, doc_id="doc-template", name="printf.pdf")
    plan = sample_plan(doc, ())
    cut = doc.elements[6].id  # after the last paragraph of the first part
    context = build_context(doc, plan, 1, candidates=sample_candidates(doc, {cut: 0.95}))
    a = heuristic_analysis(context)
    assert a.coherence == "needs_review" and RULES_REASON in a.reason
    assert "TODO" not in a.reason
