"""A small hand-made document for the writer and verifier tests: a 6-page PDF made with
PyMuPDF (headings, paragraphs, a table, an image, a page with only a page number) and its IR,
images and plan, built by hand so the tests do not depend on the parsers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf

from quire.shared import markdown as md
from quire.shared.ir import Document, ImageRef, assign_ids, dump_ir, make_element
from quire.shared.plan import Boundary, ChunkPlan, Plan, PlanSettings
from quire.shared.text import sha256_bytes
from quire.workers.write import save_files, write_all

TABLE = [
    ["Command", "Effect"],
    ["ls", "list files"],
    ["cd", "change directory"],
    ["rm", "remove files"],
]
ITEMS = ["first result line", "second result line", "third result line"]


@dataclass
class Tiny:
    pdf: Path
    doc: Document
    plan: Plan
    images: dict[str, bytes]


def _png() -> bytes:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 30), False)
    pix.set_rect(pix.irect, (200, 30, 30))
    pix.set_rect(pymupdf.IRect(5, 5, 20, 20), (20, 20, 220))
    return pix.tobytes("png")


# (page, kind, text) in reading order; page 5 has only a page number (no elements)
_BODY = [
    (1, "heading", "Introduction"),
    (1, "paragraph", "Quire cuts long books into study sessions. Each session is a chunk."),
    (1, "paragraph", "The second paragraph explains why cuts fall between elements only."),
    (2, "paragraph", "Commands are listed in the following table for quick reference."),
    (2, "table", ""),
    (3, "heading", "Images"),
    (3, "image", ""),
    (3, "caption", "Figure 1: a red box with a blue square."),
    (4, "heading", "Methods"),
    (4, "paragraph", "The method reads every page and keeps the order of the elements."),
    (6, "heading", "Results"),
    (6, "paragraph", "Results are listed below; every item is kept in its order."),
    (6, "list", ""),
]


def make_tiny(tmp: Path) -> Tiny:
    png = _png()
    sha = sha256_bytes(png)
    img_file = f"images/{sha}.png"
    pdf = pymupdf.open()
    y: dict[int, float] = {}
    for _ in range(6):
        pdf.new_page(width=400, height=500)
    for page_no, kind, text in _BODY:
        page = pdf[page_no - 1]
        top = y.get(page_no, 50.0)
        if kind == "image":
            page.insert_image(pymupdf.Rect(60, top, 340, top + 200), stream=png)
            top += 220
        else:
            lines = {"table": [" | ".join(r) for r in TABLE], "list": ITEMS}.get(kind, [text])
            size = 20 if kind == "heading" else 12
            for line in lines:
                page.insert_text((40, top), line, fontsize=size)
                top += size * 1.6
        y[page_no] = top
    for i in range(6):
        pdf[i].insert_text((190, 480), str(i + 1), fontsize=10)
    pdf_path = tmp / "tiny.pdf"
    pdf.save(pdf_path)
    pdf.close()

    elements = []
    for page_no, kind, text in _BODY:
        if kind == "heading":
            elements.append(make_element("heading", md.heading(text, 1), page_no, level=1))
        elif kind == "table":
            elements.append(make_element("table", md.table(TABLE), page_no, rows=TABLE))
        elif kind == "list":
            elements.append(
                make_element(
                    "list", md.bullet_list(ITEMS, False), page_no, items=ITEMS, ordered=False
                )
            )
        elif kind == "image":
            elements.append(
                make_element(
                    "image",
                    md.image(img_file, "diagram"),
                    page_no,
                    image=ImageRef(sha256=sha, file=img_file, width=40, height=30),
                )
            )
        else:
            elements.append(make_element(kind, text, page_no))  # type: ignore[arg-type]
    doc = Document(
        doc_id=sha256_bytes(pdf_path.read_bytes()),
        source_name="tiny.pdf",
        source_format="pdf",
        page_count=6,
        page_basis="pdf",
        elements=assign_ids(elements),
    )
    plan = plan_for(
        doc, [(1, 5, "Introduction"), (6, 8, "Images"), (9, 10, "Methods"), (11, 13, "Results")]
    )
    return Tiny(pdf_path, doc, plan, {img_file: png})


def plan_for(doc: Document, spans: list[tuple[int, int, str]]) -> Plan:
    """A plan from (first element number, last element number, title) spans."""
    chunks, bounds = [], []
    for n, (a, b, title) in enumerate(spans, 1):
        els = doc.elements[a - 1 : b]
        last = n == len(spans)
        chunks.append(
            ChunkPlan(
                number=n,
                first_id=els[0].id,
                last_id=els[-1].id,
                page_first=min(e.page_first for e in els),
                page_last=max(e.page_last for e in els),
                pages=float(max(e.page_last for e in els) - els[0].page_first + 1),
                words=sum(e.word_count for e in els),
                title=title,
                end_reason="end of document" if last else "next heading starts a new section",
                end_decider="heuristic",
                continues=False,
            )
        )
        if not last:
            bounds.append(Boundary(after_id=els[-1].id, reason="heading", decider="heuristic"))
    return Plan(doc_id=doc.doc_id, settings=PlanSettings(), boundaries=bounds, chunks=chunks)


def write_output(out: Path, t: Tiny, formats: set[str], overlap: int = 1) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    files = write_all(
        t.doc,
        t.plan,
        formats=formats,  # type: ignore[arg-type]
        source_pdf=t.pdf if "pdf" in formats else None,
        images=t.images,
        overlap_pages=overlap,
    )
    files["ir.json"] = dump_ir(t.doc)
    files["plan.json"] = t.plan.model_dump_json(indent=1).encode()
    save_files(out, files)
    return out


# --- simple corpus IR and plan (the writer/verifier tests must not wait for the parsers) ----


def simple_pdf_ir(path: Path, text_pages: range | None = None) -> Document:
    """One paragraph element per PyMuPDF text block; pages without text are skipped.

    With `text_pages`, pages outside it get one placeholder element each (cheap IRs of
    huge documents when only a page range is under test)."""
    from quire.shared.ir import SkippedPage

    elements, skipped = [], []
    with pymupdf.open(path) as pdf:
        for number, page in enumerate(pdf, 1):
            if text_pages is not None and number not in text_pages:
                elements.append(make_element("paragraph", f"(page {number})", number))
                continue
            blocks = [b[4] for b in page.get_text("blocks", sort=False) if b[6] == 0]
            texts = [t for t in blocks if t.strip()]
            if not texts:
                skipped.append(SkippedPage(page=number, reason="no extractable text"))
            elements += [make_element("paragraph", t, number) for t in texts]
        count = pdf.page_count
    return Document(
        doc_id=sha256_bytes(path.read_bytes()),
        source_name=path.name,
        source_format="pdf",
        page_count=count,
        page_basis="pdf",
        skipped_pages=skipped,
        elements=assign_ids(elements),
    )


def plan_every(doc: Document, pages: int = 8, titles: dict[int, str] | None = None) -> Plan:
    """Cut before the first element that starts `pages` or more pages after the chunk start.

    Chunk titles: the last outline title at or before the chunk's first page (from `titles`,
    page -> title), else the chunk's first words."""
    spans: list[tuple[int, int, str]] = []
    start = 0
    for i in range(1, len(doc.elements) + 1):
        end = i == len(doc.elements)
        if end or doc.elements[i].page_first - doc.elements[start].page_first >= pages:
            first = doc.elements[start]
            known = [t for p, t in sorted((titles or {}).items()) if p <= first.page_first]
            title = known[-1] if known else " ".join(first.text.split()[:6])
            spans.append((start + 1, i, title))
            start = i
    return plan_for(doc, spans)


def outline_titles(path: Path) -> dict[int, str]:
    with pymupdf.open(path) as pdf:
        return {page: title for _, title, page in pdf.get_toc() if page > 0}
