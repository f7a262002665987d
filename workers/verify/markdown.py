"""Markdown checks: read every chunk file back into (element id -> text) and compare with the IR.

Nothing here trusts the manifest for content: the manifest only says which files to read and
where each element was meant to go. Texts, hashes, word counts, table rows and image bytes
are all taken from the written files and compared with `ir.json`.

Word-count tolerance: none (±0 words). The writer copies element text verbatim, so a chunk
body has exactly the words of its elements; any difference is text added or lost — also
outside the anchors, where per-element hashes cannot see it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from quire.shared.ir import Document, Element
from quire.shared.manifest import Finding, Manifest, ManifestChunk
from quire.shared.markdown import table_row
from quire.shared.text import count_words, normalize, sha256_bytes, text_hash
from quire.workers.verify.findings import Findings
from quire.workers.verify.links import (
    check_footnotes,
    check_links,
    manifest_places,
)
from quire.workers.write.escapes import ESCAPED_SINCE
from quire.workers.write.markdown import (
    ANCHOR,
    FRONT_CLOSE,
    FRONT_OPEN,
    image_links,
    written_text,
)

WORD_TOLERANCE = 0


@dataclass
class ParsedChunk:
    front: dict[str, str]
    segments: list[tuple[str, str]]  # (element id, text) in file order
    orphan: str = ""  # text before the first anchor (belongs to no element)
    body_words: int = 0  # words in the body, anchors and front block excluded
    links: list[str] = field(default_factory=list)


def inside(root: Path, name: str) -> Path | None:
    """`root / name` if it stays inside `root` (manifest names are not trusted), else None."""
    base = root.resolve()
    target = (base / name).resolve()
    return target if base in target.parents else None


def parse_chunk_markdown(text: str) -> ParsedChunk:
    lines = text.split("\n")
    front: dict[str, str] = {}
    start = 0
    if lines and lines[0] == FRONT_OPEN:
        for i in range(1, len(lines)):
            if lines[i] == FRONT_CLOSE:
                start = i + 1
                break
            key, _, value = lines[i].partition(":")
            front[key.strip()] = value.strip()
    segments: list[tuple[str, list[str]]] = []
    orphan: list[str] = []
    for line in lines[start:]:
        m = ANCHOR.fullmatch(line)
        if m:
            segments.append((m.group(1), []))
        elif segments:
            segments[-1][1].append(line)
        else:
            orphan.append(line)
    texts = [(eid, normalize("\n".join(body))) for eid, body in segments]
    orphan_text = normalize("\n".join(orphan))
    words = count_words(orphan_text) + sum(count_words(t) for _, t in texts)
    links = image_links(orphan_text) + [x for _, t in texts for x in image_links(t)]
    return ParsedChunk(front, texts, orphan_text, words, links)


def _snippet(text: str, n: int = 60) -> str:
    one = " ".join(text.split())
    return one if len(one) <= n else one[: n - 1] + "…"


def _where(e: Element) -> str:
    pages = f"p. {e.page_first}" + (f"-{e.page_last}" if e.page_last != e.page_first else "")
    return f"{e.type}, {pages}: '{_snippet(e.text, 40)}'"


def _first_difference(expected: str, found: str) -> str:
    a, b = expected.split(), found.split()
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"word {i + 1}: IR has '{_snippet(x, 30)}', file has '{_snippet(y, 30)}'"
    if len(a) != len(b):
        return f"IR has {len(a)} words, file has {len(b)}"
    return "whitespace or line breaks differ"


@dataclass
class MarkdownResult:
    findings: list[Finding]
    checked: dict[str, int]


def check_markdown(doc: Document, manifest: Manifest, out_dir: Path) -> MarkdownResult:
    check = _MarkdownCheck(doc, manifest, out_dir)
    for chunk in sorted(manifest.chunks, key=lambda c: c.number):
        check.chunk(chunk)
    check.order()
    check.missing()
    findings = check.findings
    links = check_links(doc, check.places, check.written, out_dir, findings)
    footnotes = check_footnotes(doc, check.seen, check.written, findings)
    counts = Counter(
        chunks_markdown=sum(1 for c in manifest.chunks if c.markdown_file),
        elements=len(doc.elements),
        tables=check.tables,
        table_rows=check.rows,
        images=check.images,
        links=links,
        footnotes=footnotes,
    )
    return MarkdownResult(findings, dict(counts))


class _MarkdownCheck:
    """One pass over a document's chunk files: what was seen where, and the findings."""

    def __init__(self, doc: Document, manifest: Manifest, out_dir: Path) -> None:
        self.doc, self.out_dir = doc, out_dir
        self.by_id = doc.by_id()
        self.ir_images = {e.image.file: e.image.sha256 for e in doc.elements if e.image}
        self.expected_chunk = {eid: c.number for c in manifest.chunks for eid in c.element_ids}
        self.findings = Findings()
        self.seen: dict[str, int] = {}
        # (chunk, id) of first occurrences, in file order
        self.sequence: list[tuple[int, str]] = []
        self.tables = self.rows = self.images = 0
        self.root = out_dir.resolve()
        self.places = manifest_places(doc, manifest)
        self.escaped = manifest.manifest_version >= ESCAPED_SINCE
        self.written: dict[str, list[tuple[str, str]]] = {}  # chunk file -> its segments

    def chunk(self, chunk: ManifestChunk) -> None:
        read = self._read(chunk)
        if read is None:
            return
        name, path, parsed = read
        self.written[name] = parsed.segments
        listed = set(chunk.element_ids)
        for eid, text in parsed.segments:
            self._segment(chunk.number, name, eid, text, listed)
        self._word_drift(chunk, name, parsed)
        self._images(chunk.number, name, path, parsed)

    def _read(self, chunk: ManifestChunk) -> tuple[str, Path, ParsedChunk] | None:
        """The chunk's Markdown file, parsed; None (with a finding) when it cannot be read."""
        findings = self.findings
        name = chunk.markdown_file
        if not name:
            findings.add(
                "manifest_mismatch",
                "the manifest lists no Markdown file for this "
                "chunk although the output format includes Markdown",
                chunk=chunk.number,
            )
            return None
        path = inside(self.out_dir, name)
        if path is None or not path.is_file():
            findings.add(
                "manifest_mismatch",
                f"{name} is missing; rewrite the chunk",
                chunk=chunk.number,
                file=name,
            )
            return None
        try:
            parsed = parse_chunk_markdown(path.read_bytes().decode("utf-8"))
        except UnicodeDecodeError:
            findings.add(
                "altered",
                f"{name} is not valid UTF-8; rewrite the chunk",
                chunk=chunk.number,
                file=name,
            )
            return None
        if parsed.front.get("chunk") != str(chunk.number):
            findings.add(
                "manifest_mismatch",
                f"{name}'s front block says chunk {parsed.front.get('chunk')}, "
                f"the manifest says {chunk.number}",
                chunk=chunk.number,
                file=name,
            )
        if parsed.orphan:
            findings.add(
                "unknown",
                f"text outside any element anchor: '{_snippet(parsed.orphan)}'",
                chunk=chunk.number,
                file=name,
            )
        return name, path, parsed

    def _segment(self, number: int, name: str, eid: str, text: str, listed: set[str]) -> None:
        """One element's text as the file holds it, against the IR and the manifest."""
        findings = self.findings
        if eid not in self.by_id:
            findings.add(
                "unknown",
                f"{eid} is not an element of the IR",
                chunk=number,
                element_id=eid,
                file=name,
            )
            return
        if eid in self.seen:
            findings.add(
                "duplicated",
                f"{eid} appears again (first in chunk {self.seen[eid]}): {_where(self.by_id[eid])}",
                chunk=number,
                element_id=eid,
                file=name,
            )
            return
        self.seen[eid] = number
        element = self.by_id[eid]
        if element.type != "footnote":  # footnotes follow the text (checked below)
            self.sequence.append((number, eid))
        want = written_text(element.text, element.type, number, self.places, escaped=self.escaped)
        if text_hash(text) != text_hash(want):
            diff = _first_difference(want, text)
            findings.add(
                "altered",
                f"{eid} text differs from the IR ({diff})",
                chunk=number,
                element_id=eid,
                page=element.page_first,
                file=name,
            )
        if eid not in listed:
            findings.add(
                "manifest_mismatch",
                f"{eid} is in this chunk's Markdown but the manifest puts it in "
                f"chunk {self.expected_chunk.get(eid, '(none)')}",
                chunk=number,
                element_id=eid,
                file=name,
            )
        if element.type == "table" and element.rows:
            self._table_rows(number, name, element, text)

    def _table_rows(self, number: int, name: str, element: Element, text: str) -> None:
        assert element.rows
        self.tables += 1
        width = max(len(r) for r in element.rows)
        present = set(text.split("\n"))
        for r, row in enumerate(element.rows):
            self.rows += 1
            # the file's text was normalised; so is the row we look for in it
            line = normalize(table_row(row, width))
            line = written_text(line, "table", number, self.places, escaped=self.escaped)
            if line not in present:
                self.findings.add(
                    "table_rows",
                    f"table {element.id} row {r + 1} of {len(element.rows)} is "
                    f"missing: '{_snippet(line)}'",
                    chunk=number,
                    element_id=element.id,
                    page=element.page_first,
                    file=name,
                )

    def _word_drift(self, chunk: ManifestChunk, name: str, parsed: ParsedChunk) -> None:
        by_id = self.by_id
        expected_words = sum(count_words(by_id[i].text) for i in chunk.element_ids if i in by_id)
        if abs(parsed.body_words - expected_words) > WORD_TOLERANCE:
            self.findings.add(
                "word_drift",
                f"{name} has {parsed.body_words} words, its elements have "
                f"{expected_words} in the IR (tolerance ±{WORD_TOLERANCE})",
                chunk=chunk.number,
                file=name,
            )

    def _images(self, number: int, name: str, path: Path, parsed: ParsedChunk) -> None:
        """Every image the file links to, and every image element it holds, against the IR."""
        paths = dict.fromkeys(
            x for x in parsed.links if "://" not in x and not x.startswith("data:")
        )
        for eid, _ in parsed.segments:
            img = self.by_id[eid].image if eid in self.by_id else None
            if img:
                paths[img.file] = None
        for link in paths:
            self.images += 1
            problem = _image_problem(self.root, path.parent, link, self.ir_images)
            if problem:
                self.findings.add("image_hash", f"{name}: {problem}", chunk=number, file=link)

    def order(self) -> None:
        """Elements written in an order other than the IR's."""
        order = {e.id: i for i, e in enumerate(self.doc.elements)}
        sequence = self.sequence
        for i, (cnum, eid) in enumerate(sequence[1:], 1):
            prev_chunk, prev = sequence[i - 1]
            if order[eid] < order[prev]:
                self.findings.add(
                    "reordered",
                    f"{eid} comes after {prev} (chunk {prev_chunk}) but precedes it in the IR",
                    chunk=cnum,
                    element_id=eid,
                )

    def missing(self) -> None:
        """Elements written in no chunk."""
        for e in self.doc.elements:
            if e.id not in self.seen:
                exp = self.expected_chunk.get(e.id)
                self.findings.add(
                    "missing",
                    f"{e.id} ({_where(e)}) is in no chunk"
                    + (f"; expected in chunk {exp}" if exp else ""),
                    chunk=exp,
                    element_id=e.id,
                    page=e.page_first,
                )


def _image_problem(root: Path, base: Path, link: str, ir_images: dict[str, str]) -> str | None:
    target = (base / link).resolve()
    if root not in target.parents:
        return f"image link {link} points outside the output folder"
    if not target.is_file():
        return f"image {link} does not exist"
    rel = target.relative_to(root).as_posix()
    expected = ir_images.get(rel) or ir_images.get(link)
    actual = sha256_bytes(target.read_bytes())
    if expected is None:
        stem = target.name.split(".", 1)[0]
        if len(stem) == 64 and stem == actual:
            return None
        return f"image {link} is not an image of the IR"
    if actual != expected:
        return (
            f"image {link} bytes differ from the IR (sha256 {actual[:12]}…, "
            f"expected {expected[:12]}…); restore it from the parsed images"
        )
    return None
