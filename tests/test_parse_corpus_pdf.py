"""The PDF parser on the real corpus (../shared/corpus): text fidelity, outline recall, table
recall against pymupdf4llm, range independence, and the broken/odd files.

How the figures are measured (printed per document at the end of the run):
- fidelity: the multiset of characters (whitespace ignored) and of words (\\w+ tokens) that
  plain `page.get_text()` finds on the non-skipped pages, against the IR's element texts
  in their source form (`source_text`: with the line-end hyphens of broken words put
  back) plus the running headers/footers recorded in `removed`. Both sides are NFKC-normalised:
  the parser expands ligatures (ﬁ -> fi) and Arabic presentation forms to letters.
  MuPDF runs the words of lshort-persian together ("ساختهشده": its justified lines set
  the words a narrow gap apart, no space between), and the parser puts the spaces back
  from the gaps, so there the words come from a second engine, PDFium (Chrome's), whose
  text keeps them.
- outline recall: an outline entry counts when a heading element on its target page has
  its level (capped at 6) and its title (normalised, similarity >= 0.8). On the garbled
  lshort-russian (no Unicode text) a heading of the right level placed by position counts.
- table recall: pages where pymupdf4llm (non-layout path, lines_strict tables, the one
  documented as ~4.9 pages/s) reports a table. pymupdf4llm is slow, so pages are
  pre-screened with the same table finder call it makes (`find_tables(strategy=
  "lines_strict")`, layout model off) on pages that have stroked horizontal and vertical
  lines at all, and pymupdf4llm then runs only on the first 40 candidate pages found
  across siunitx, gnuplot, fhs and octave-refcard, in that order.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter
from pathlib import Path

import corpus
import pytest
from corpus import CORPUS

from quire.shared.errors import CorruptDocumentError, EmptyDocumentError, EncryptedDocumentError
from quire.shared.ir import Document, dump_ir, load_ir, source_text
from quire.workers.parse import ParsedDocument, parse_document
from quire.workers.parse.pdf_headings import norm_title
from quire.workers.parse.pdf_open import pymupdf_module

# one xdist worker runs the whole module: test_zz_report prints what the others gathered
pytestmark = [pytest.mark.corpus, pytest.mark.xdist_group("parse_corpus_pdf")]


TEXT_PDFS = [
    "r-intro.pdf",
    "r-exts.pdf",
    "r-fullrefman.pdf",
    "gnuplot-manual.pdf",
    "beamer-user-guide.pdf",
    "amsmath-user-guide.pdf",
    "siunitx-manual.pdf",
    "fhs-3.0.pdf",
    "lshort-persian.pdf",
    "lshort-russian.pdf",
    "octave-refcard-a4.pdf",
    "latex-news-22.pdf",
    "freefem-manual-scanned-pages.pdf",
    "maint-guide-permissions-restricted.pdf",
    "r-lang-tail-cut.pdf",
]
GARBLED = {"lshort-russian.pdf"}
WORDS_FROM_PDFIUM = {"lshort-persian.pdf"}  # MuPDF runs its words together
TABLE_DOCS = ["siunitx-manual.pdf", "gnuplot-manual.pdf", "fhs-3.0.pdf", "octave-refcard-a4.pdf"]
TABLE_SAMPLE = 40

_WORD = re.compile(r"\w+")
_parsed: dict[str, ParsedDocument] = {}
REPORT: dict[str, dict[str, str]] = {}


def parsed(name: str) -> ParsedDocument:
    if name not in _parsed:
        _parsed[name] = corpus.parsed(name)
    return _parsed[name]


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def fidelity(path: Path, doc: Document) -> tuple[float, float]:
    """(character recall, word recall) of get_text() in the IR; see the module docstring."""
    pymupdf = pymupdf_module()
    skipped = {s.page for s in doc.skipped_pages}
    with pymupdf.open(path) as pdf:
        ref = _nfkc("".join(p.get_text() for p in pdf if p.number + 1 not in skipped))
    ref_words = _pdfium_text(path, skipped) if path.name in WORDS_FROM_PDFIUM else ref
    # the elements as the source printed them (line-end hyphens the parser took out of
    # broken words put back), and the running text it removed
    texts = [source_text(e) for e in doc.elements] + [r.text for r in doc.removed]
    ir = _nfkc("\n".join(texts))
    ref_c = Counter(c for c in ref if not c.isspace())
    ir_c = Counter(c for c in ir if not c.isspace())
    ref_w, ir_w = Counter(_WORD.findall(ref_words)), Counter(_WORD.findall(ir))
    chars = sum(min(n, ir_c[c]) for c, n in ref_c.items()) / max(1, sum(ref_c.values()))
    words = sum(min(n, ir_w[w]) for w, n in ref_w.items()) / max(1, sum(ref_w.values()))
    return chars, words


def _pdfium_text(path: Path, skipped: set[int]) -> str:
    import pypdfium2

    pdf = pypdfium2.PdfDocument(path)
    try:
        pages = (pdf[i] for i in range(len(pdf)) if i + 1 not in skipped)
        return _nfkc("\n".join(page.get_textpage().get_text_range() for page in pages))
    finally:
        pdf.close()


def _report(name: str, **figures: str) -> None:
    REPORT.setdefault(name, {}).update(figures)


@pytest.mark.parametrize("name", TEXT_PDFS)
def test_text_fidelity(name: str) -> None:
    doc = parsed(name).document
    chars, words = fidelity(CORPUS / name, doc)
    _report(
        name,
        pages=str(doc.page_count),
        chars=f"{chars:.4f}",
        words=f"{words:.4f}",
        skipped=str(len(doc.skipped_pages)),
        removed=str(len(doc.removed)),
    )
    assert chars >= 0.98, f"{name}: only {chars:.2%} of the characters are in the IR"
    assert words >= 0.97, f"{name}: only {words:.2%} of the words are in the IR"
    assert load_ir(dump_ir(doc)) == doc


def _title_match(title: str, heading_text: str) -> bool:
    a, b = norm_title(title), norm_title(heading_text.lstrip("#"))
    if not a or not b:
        return False
    if a in b or b in a:
        return True
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= 0.8


@pytest.mark.parametrize(
    "name",
    [
        n
        for n in TEXT_PDFS
        if n != "freefem-manual-scanned-pages.pdf"
        and n not in ("fhs-3.0.pdf", "octave-refcard-a4.pdf")
    ],
)
def test_outline_recall(name: str) -> None:
    doc = parsed(name).document
    heads: dict[int, list[tuple[int, str, str | None]]] = {}
    for e in doc.elements:
        if e.type == "heading":
            assert e.level is not None
            heads.setdefault(e.page_first, []).append((e.level, e.text, e.origin))
    entries = [o for o in doc.outline if o.page]
    assert entries, f"{name} should have an outline"
    found = 0
    for o in entries:
        level = min(o.level, 6)
        cands = [h for h in heads.get(o.page, []) if h[0] == level]
        if any(_title_match(o.title, text) for _, text, _ in cands) or (
            name in GARBLED and any(origin == "outline-position" for _, _, origin in cands)
        ):
            found += 1
    recall = found / len(entries)
    _report(name, outline=f"{found}/{len(entries)} ({recall:.1%})")
    assert recall >= 0.90, f"{name}: outline recall {recall:.1%}"


def test_documents_without_a_usable_outline_get_font_headings() -> None:
    for name in ("fhs-3.0.pdf", "freefem-manual-scanned-pages.pdf"):
        doc = parsed(name).document
        assert not any(o.page for o in doc.outline)
        levels = Counter(e.level for e in doc.elements if e.type == "heading")
        assert all(e.origin == "font" for e in doc.elements if e.type == "heading")
        assert len(levels) >= 2 and sum(levels.values()) >= 20, (name, levels)
        _report(name, outline=f"none; {sum(levels.values())} font headings")
    fhs = parsed("fhs-3.0.pdf").document
    chapters = [e.text for e in fhs.elements if e.type == "heading" and e.level == 1]
    assert "# Chapter 3. The Root Filesystem" in chapters


def _table_oracle_pages() -> list[tuple[str, int]]:
    """(doc, page) where pymupdf4llm reports a table, from the bounded sample."""
    import pymupdf4llm
    from pymupdf4llm.helpers import pymupdf_rag

    pymupdf4llm.use_layout(False)  # the documented non-layout path (lines_strict tables)
    pymupdf = pymupdf_module()
    candidates: list[tuple[str, int]] = []
    for name in TABLE_DOCS:
        with pymupdf.open(CORPUS / name) as pdf:
            for page in pdf:
                if len(candidates) >= TABLE_SAMPLE:
                    break
                if not _stroked_h_and_v(page):
                    continue
                tabs = page.find_tables(strategy="lines_strict", use_layout=False)
                if any(t.row_count >= 2 and t.col_count >= 2 for t in tabs.tables):
                    candidates.append((name, page.number + 1))
    oracle: list[tuple[str, int]] = []
    for name, pno in candidates:
        with pymupdf.open(CORPUS / name) as pdf:
            chunks = pymupdf_rag.to_markdown(
                pdf, pages=[pno - 1], page_chunks=True, show_progress=False
            )
        if chunks and chunks[0].get("tables"):
            oracle.append((name, pno))
    return oracle


def _stroked_h_and_v(page: object) -> bool:
    h = v = False
    for path in page.get_cdrawings():  # type: ignore[attr-defined]
        if "s" not in (path.get("type") or ""):
            continue
        for item in path["items"]:
            if item[0] == "l":
                (ax, ay), (bx, by) = item[1], item[2]
                h = h or abs(ay - by) < 1
                v = v or abs(ax - bx) < 1
            elif item[0] in ("re", "qu"):
                h = v = True
        if h and v:
            return True
    return False


def test_table_recall_against_pymupdf4llm() -> None:
    oracle = _table_oracle_pages()
    assert len(oracle) >= 20, f"sample too small: {oracle}"
    hit: list[tuple[str, int]] = []
    for name, pno in oracle:
        doc = parsed(name).document
        if any(e.type == "table" and e.page_first <= pno <= e.page_last for e in doc.elements):
            hit.append((name, pno))
    missing = [x for x in oracle if x not in hit]
    recall = len(hit) / len(oracle)
    per_doc = Counter(n for n, _ in oracle)
    for name in TABLE_DOCS:
        got = sum(1 for n, _ in hit if n == name)
        _report(name, tables=f"{got}/{per_doc[name]} pymupdf4llm table pages")
    assert recall >= 0.90, f"table recall {recall:.1%}; missing {missing}"


def _sub_pdf(src: Path, first: int, last: int, out: Path) -> Path:
    """Pages first..last of `src` as a new PDF, with the outline entries that point there."""
    pymupdf = pymupdf_module()
    with pymupdf.open(src) as doc, pymupdf.open() as part:
        part.insert_pdf(doc, from_page=first - 1, to_page=last - 1)
        toc = [
            [lvl, title, page - first + 1]
            for lvl, title, page in doc.get_toc()
            if first <= page <= last
        ]
        fixed: list[tuple[int, str, int]] = []
        for lvl, title, page in toc:  # set_toc needs levels to step down by one at most
            top = fixed[-1][0] + 1 if fixed else 1
            fixed.append((min(int(lvl), top), str(title), int(page)))
        part.set_toc(fixed)
        part.save(out)
    return out


@pytest.mark.parametrize(
    "name",
    [
        "r-intro.pdf",
        "fhs-3.0.pdf",
        "lshort-persian.pdf",
        "freefem-manual-scanned-pages.pdf",
        "r-fullrefman.pdf",
    ],
)
def test_same_ir_for_range_sizes_10_25_100(name: str, tmp_path: Path) -> None:
    path = CORPUS / name
    if name == "r-fullrefman.pdf":  # 2415 pages: a 200-page sub-span is enough here
        path = _sub_pdf(path, 1001, 1200, tmp_path / "fullrefman-1001-1200.pdf")
    dumps = {
        size: dump_ir(parse_document(path, range_pages=size).document) for size in (10, 25, 100)
    }
    assert dumps[10] == dumps[25] == dumps[100]
    assert len(load_ir(dumps[10]).elements) > 100
    _report(name, ranges="10/25/100 identical")


def test_password_protected_corpus_pdf() -> None:
    with pytest.raises(EncryptedDocumentError, match="password"):
        parse_document(CORPUS / "debian-faq-password.pdf")


def test_truncated_corpus_pdf_is_corrupt() -> None:
    with pytest.raises(CorruptDocumentError, match="truncated"):
        parse_document(CORPUS / "r-data-truncated.pdf")


def test_tail_cut_pdf_is_repaired_and_noted() -> None:
    doc = parsed("r-lang-tail-cut.pdf").document
    assert doc.page_count == 69
    assert any(n.kind == "warning" and "repaired" in n.message for n in doc.notes)
    assert len([o for o in doc.outline if o.page]) == 119


def test_image_only_corpus_pdf_is_empty() -> None:
    with pytest.raises(
        EmptyDocumentError,
        match="no extractable text on any page \\(6 pages without text: 1–6 — scanned, OCR off\\)",
    ):
        parse_document(CORPUS / "liboctave-excerpt-image-only.pdf")


def test_scanned_pages_are_skipped_with_a_reason() -> None:
    doc = parsed("freefem-manual-scanned-pages.pdf").document
    reasons = {s.page: s.reason for s in doc.skipped_pages}
    assert set(reasons) == {5, 6, 18}
    assert all("image-only" in r and r.endswith("OCR off") for r in reasons.values())
    assert not any(e.page_first in reasons or e.page_last in reasons for e in doc.elements)


def test_garbled_and_rtl_text_is_flagged() -> None:
    ru = parsed("lshort-russian.pdf").document
    garbled = [n for n in ru.notes if n.kind == "warning" and "garbled" in n.message]
    assert garbled and sum((n.last_page or 0) - (n.first_page or 0) + 1 for n in garbled) > 100
    fa = parsed("lshort-persian.pdf").document
    rtl = [n for n in fa.notes if n.kind == "warning" and "right-to-left" in n.message]
    assert rtl
    assert sum(1 for e in fa.elements if e.rtl) > 500
    # the text is kept (as letters, not presentation forms)
    assert "پیشگفتار" in "".join(e.text for e in fa.elements)


def test_near_blank_pages_and_restricted_pdf() -> None:
    ru = parsed("lshort-russian.pdf").document
    assert {s.page for s in ru.skipped_pages} == {8, 14, 64, 86, 138}
    maint = parsed("maint-guide-permissions-restricted.pdf").document
    assert maint.page_count == 63 and not maint.skipped_pages


def test_zz_report(capsys: pytest.CaptureFixture[str]) -> None:
    """Print the per-document figures gathered above (shown even without `-s`)."""
    cols = ["pages", "chars", "words", "outline", "tables", "ranges", "skipped", "removed"]
    with capsys.disabled():
        print("\nPDF corpus figures")
        print("document".ljust(40) + " | " + " | ".join(cols))
        for name in sorted(REPORT):
            row = REPORT[name]
            print(name.ljust(40) + " | " + " | ".join(row.get(c, "-") for c in cols))
    assert REPORT
