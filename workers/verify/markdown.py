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
from quire.shared.manifest import Finding, Manifest
from quire.shared.markdown import table_row
from quire.shared.text import count_words, normalize, sha256_bytes, text_hash
from quire.workers.verify.findings import Findings
from quire.workers.verify.links import (
    check_footnotes,
    check_links,
    expected_text,
    manifest_places,
)
from quire.workers.write.markdown import ANCHOR, FRONT_CLOSE, FRONT_OPEN, image_links

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
    by_id = doc.by_id()
    order = {e.id: i for i, e in enumerate(doc.elements)}
    ir_images = {e.image.file: e.image.sha256 for e in doc.elements if e.image}
    expected_chunk = {eid: c.number for c in manifest.chunks for eid in c.element_ids}
    findings = Findings()
    seen: dict[str, int] = {}
    sequence: list[tuple[int, str]] = []  # (chunk, id) of first occurrences, in file order
    tables = rows = images = 0
    root = out_dir.resolve()
    places = manifest_places(doc, manifest)
    written: dict[str, list[tuple[str, str]]] = {}  # chunk file -> its segments

    for chunk in sorted(manifest.chunks, key=lambda c: c.number):
        name = chunk.markdown_file
        if not name:
            findings.add(
                "manifest_mismatch",
                "the manifest lists no Markdown file for this "
                "chunk although the output format includes Markdown",
                chunk=chunk.number,
            )
            continue
        path = inside(out_dir, name)
        if path is None or not path.is_file():
            findings.add(
                "manifest_mismatch",
                f"{name} is missing; rewrite the chunk",
                chunk=chunk.number,
                file=name,
            )
            continue
        try:
            parsed = parse_chunk_markdown(path.read_bytes().decode("utf-8"))
        except UnicodeDecodeError:
            findings.add(
                "altered",
                f"{name} is not valid UTF-8; rewrite the chunk",
                chunk=chunk.number,
                file=name,
            )
            continue
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
        written[name] = parsed.segments
        listed = set(chunk.element_ids)
        for eid, text in parsed.segments:
            if eid not in by_id:
                findings.add(
                    "unknown",
                    f"{eid} is not an element of the IR",
                    chunk=chunk.number,
                    element_id=eid,
                    file=name,
                )
                continue
            if eid in seen:
                findings.add(
                    "duplicated",
                    f"{eid} appears again (first in chunk {seen[eid]}): {_where(by_id[eid])}",
                    chunk=chunk.number,
                    element_id=eid,
                    file=name,
                )
                continue
            seen[eid] = chunk.number
            element = by_id[eid]
            if element.type != "footnote":  # footnotes follow the text (checked below)
                sequence.append((chunk.number, eid))
            want = expected_text(element.text, chunk.number, places)
            if text_hash(text) != text_hash(want):
                diff = _first_difference(want, text)
                findings.add(
                    "altered",
                    f"{eid} text differs from the IR ({diff})",
                    chunk=chunk.number,
                    element_id=eid,
                    page=element.page_first,
                    file=name,
                )
            if eid not in listed:
                findings.add(
                    "manifest_mismatch",
                    f"{eid} is in this chunk's Markdown but the manifest puts it in "
                    f"chunk {expected_chunk.get(eid, '(none)')}",
                    chunk=chunk.number,
                    element_id=eid,
                    file=name,
                )
            if element.type == "table" and element.rows:
                tables += 1
                width = max(len(r) for r in element.rows)
                present = set(text.split("\n"))
                for r, row in enumerate(element.rows):
                    rows += 1
                    # the file's text was normalised; so is the row we look for in it
                    line = normalize(table_row(row, width))
                    line = expected_text(line, chunk.number, places)
                    if line not in present:
                        findings.add(
                            "table_rows",
                            f"table {eid} row {r + 1} of {len(element.rows)} is "
                            f"missing: '{_snippet(line)}'",
                            chunk=chunk.number,
                            element_id=eid,
                            page=element.page_first,
                            file=name,
                        )

        expected_words = sum(count_words(by_id[i].text) for i in chunk.element_ids if i in by_id)
        if abs(parsed.body_words - expected_words) > WORD_TOLERANCE:
            findings.add(
                "word_drift",
                f"{name} has {parsed.body_words} words, its elements have "
                f"{expected_words} in the IR (tolerance ±{WORD_TOLERANCE})",
                chunk=chunk.number,
                file=name,
            )

        paths = dict.fromkeys(
            x for x in parsed.links if "://" not in x and not x.startswith("data:")
        )
        for eid, _ in parsed.segments:
            img = by_id[eid].image if eid in by_id else None
            if img:
                paths[img.file] = None
        for link in paths:
            images += 1
            problem = _image_problem(root, path.parent, link, ir_images)
            if problem:
                findings.add("image_hash", f"{name}: {problem}", chunk=chunk.number, file=link)

    for i, (cnum, eid) in enumerate(sequence[1:], 1):
        prev_chunk, prev = sequence[i - 1]
        if order[eid] < order[prev]:
            findings.add(
                "reordered",
                f"{eid} comes after {prev} (chunk {prev_chunk}) but precedes it in the IR",
                chunk=cnum,
                element_id=eid,
            )
    for e in doc.elements:
        if e.id not in seen:
            exp = expected_chunk.get(e.id)
            findings.add(
                "missing",
                f"{e.id} ({_where(e)}) is in no chunk"
                + (f"; expected in chunk {exp}" if exp else ""),
                chunk=exp,
                element_id=e.id,
                page=e.page_first,
            )
    links = check_links(doc, places, written, out_dir, findings)
    footnotes = check_footnotes(doc, seen, written, findings)
    counts = Counter(
        chunks_markdown=sum(1 for c in manifest.chunks if c.markdown_file),
        elements=len(doc.elements),
        tables=tables,
        table_rows=rows,
        images=images,
        links=links,
        footnotes=footnotes,
    )
    return MarkdownResult(findings, dict(counts))


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
