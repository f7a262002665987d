"""Small generated textbooks (PDF and DOCX) for fault, soak and hostile-input tests.

`textbook_pdf(path, seed)` / `textbook_docx(path, seed)` write a few chapters on distinct
subjects (headings, an outline, topical prose), different bytes for every seed, so each
seed is its own document (documents are keyed by content hash). `extra` paragraphs are
planted at the end of every chapter (next to the cut candidates), e.g. prompt injections.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from quire.workers.parse.pdf_open import pymupdf_module

W, H = 595.0, 842.0
LEFT = 72.0
LINES_PER_PAGE = 40

_SUBJECTS = """
Vectors and assignment: vector element recycle assignment arrow combine mode length index
  subset numeric character logical append
Matrices and arrays: matrix array dimension row column transpose product subscript diagonal
  determinant inverse bind
Linear regression: regression predictor response formula residual coefficient least squares
  fitted variance model intercept
File systems: directory hierarchy mount partition inode permission symlink device block
  journal root volume
Network sockets: socket address port protocol packet stream datagram listen accept connect
  buffer timeout
Hash functions: digest hash collision salt preimage block compression message padding
  avalanche checksum keyed
Regular expressions: pattern match group quantifier anchor alternation character class
  escape greedy backtrack capture
Sorting algorithms: sort pivot partition merge heap insertion stable comparison swap
  quicksort bucket radix
"""
SUBJECTS: list[tuple[str, list[str]]] = [
    (title.strip(), words.split())
    for title, words in re.findall(r"^(\w[^:]+):((?:.*\n?)(?:  .*\n?)*)", _SUBJECTS, re.M)
]
_COMMON = "the a of and to in is that for with as by this on are be it from"
COMMON = _COMMON.split()


def _sentence(rng: random.Random, vocab: list[str]) -> str:
    n = rng.randint(8, 14)
    words = [rng.choice(vocab) if rng.random() < 0.55 else rng.choice(COMMON) for _ in range(n)]
    return " ".join(words).capitalize() + "."


def chapters(seed: int, count: int = 3, paragraphs: int = 6) -> list[tuple[str, list[str]]]:
    """[(title, [paragraph, ...]), ...] for `count` chapters on distinct subjects."""
    rng = random.Random(seed)
    picked = rng.sample(SUBJECTS, count)
    out = []
    for n, (title, vocab) in enumerate(picked, 1):
        paras = [
            " ".join(_sentence(rng, vocab) for _ in range(rng.randint(3, 5)))
            for _ in range(paragraphs)
        ]
        out.append((f"{n} {title} (edition {seed})", paras))
    return out


def _wrap(text: str, width: int = 88) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    if line:
        lines.append(line)
    return lines


def textbook_pdf(
    path: Path,
    seed: int,
    *,
    chapter_count: int = 3,
    paragraphs: int = 6,
    extra: list[str] | None = None,
) -> Path:
    """A small PDF textbook: each chapter starts on a new page, outline included."""
    doc = pymupdf_module().open()  # not `import pymupdf`: that loads its layout model
    toc: list[list[object]] = []
    content = [(t, p + (extra or [])) for t, p in chapters(seed, chapter_count, paragraphs)]
    for title, paras in content:
        page = doc.new_page(width=W, height=H)
        toc.append([1, title, doc.page_count])
        page.insert_text((LEFT, 100), title, fontsize=18, fontname="hebo")
        y = 140.0
        for para in paras:
            lines = _wrap(para)
            if y + 14 * len(lines) > H - 60:
                page = doc.new_page(width=W, height=H)
                y = 80.0
            for line in lines:
                page.insert_text((LEFT, y), line, fontsize=10, fontname="helv")
                y += 14
            y += 10
    doc.set_toc(toc)
    doc.set_metadata({"title": f"Generated textbook {seed}", "producer": "quire tests"})
    doc.save(path, deflate=True)
    doc.close()
    return path


def textbook_docx(
    path: Path,
    seed: int,
    *,
    chapter_count: int = 3,
    paragraphs: int = 10,
    extra: list[str] | None = None,
) -> Path:
    """A small DOCX textbook: Heading 1 per chapter, plain paragraphs."""
    import docx

    document = docx.Document()
    content = [(t, p + (extra or [])) for t, p in chapters(seed, chapter_count, paragraphs)]
    for title, paras in content:
        document.add_heading(title, level=1)
        for para in paras:
            document.add_paragraph(para)
    document.core_properties.author = "quire tests"
    document.save(str(path))
    return path


# A DTD with an internal entity and an external one that would read a local file.
ENTITY_DTD = (
    '<!DOCTYPE w:document [<!ENTITY co "Quire Company">'
    '<!ENTITY xxe SYSTEM "file:///etc/hostname">]>'
)


def entity_docx(path: Path, *, part: str = "word/document.xml", seed: int = 7) -> Path:
    """A small DOCX textbook whose XML `part` declares `ENTITY_DTD`; in the main document
    the first text run also uses both entities (python-docx would drop the rest of it)."""
    import zipfile

    plain = textbook_docx(path.with_name(path.stem + "-plain.docx"), seed, chapter_count=2)
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == part:
                text = data.decode("utf-8").replace("?>", "?>\n" + ENTITY_DTD, 1)
                text = re.sub(r"(<w:t>)([^<]{8})", r"\1\2 &co; and &xxe; then", text, count=1)
                data = text.encode("utf-8")
            out.writestr(info, data)
    plain.unlink()
    return path
