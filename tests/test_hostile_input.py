"""Hostile input: mutated documents, decompression bombs, absurd sizes and names that try
to escape their folder. Parsers must finish quickly, refuse with a clean `InputError`
(a per-document failure with its reason), and never write outside where they belong.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import docx
import pytest
from fault_stack import Stack
from gen_docs import entity_docx, textbook_docx, textbook_pdf
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pipeline_utils import CORPUS, ROOT, SAMPLE_DOCX, SAMPLE_PDF, local_runtime
from s3_fault_proxy import delay
from services import MotoServer

from quire.orchestrator.local import run_documents
from quire.orchestrator.triggers import ObjectEvent, TriggerConfig, classify
from quire.shared.config import RunSettings
from quire.shared.errors import InputError
from quire.shared.store import LocalStore
from quire.shared.store.s3 import S3Store
from quire.workers.execute import submit
from quire.workers.parse import parse_document, pdf_page_count
from quire.workers.parse.detect import detect_format
from quire.workers.parse.docx import parse_docx
from quire.workers.parse.limits import MAX_IMAGE_PIXELS
from quire.workers.parse.pdf_open import pymupdf_module
from quire.workers.write import save_files
from quire.workers.write.names import safe_image_path


def _first_pages(path: Path, n: int) -> bytes:
    src = pymupdf_module().open(path)
    out = pymupdf_module().open()
    out.insert_pdf(src, to_page=n - 1)
    return bytes(out.tobytes(garbage=3))


# real documents kept in the repository, mutated below (a few pages keep each parse quick)
PDF_BASE = _first_pages(SAMPLE_PDF, 4)
DOCX_BASE = SAMPLE_DOCX.read_bytes()
PARSE_SECONDS = 30  # per mutated document; the originals parse in well under a second


class Hang(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def fire(*_: object) -> None:
        raise Hang(f"no result after {seconds}s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def admit_and_parse(path: Path) -> None:
    """What the system does with an upload: the admission checks, then the whole parse."""
    if detect_format(path) == "pdf":
        pdf_page_count(path)
    parse_document(path)


def parses_or_refuses(data: bytes, suffix: str) -> str:
    """'ok', or the InputError code; any other exception, or a hang, fails the test."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"mutated{suffix}"
        path.write_bytes(data)
        try:
            with time_limit(PARSE_SECONDS):
                admit_and_parse(path)
        except InputError as exc:
            assert str(exc).startswith("mutated"), "the reason names the document"
            return exc.code
    return "ok"


# --- fuzzing: mutated corpus bytes ----------------------------------------------------------


def mutate(data: bytes, rng: random.Random) -> bytes:
    """1-30 random edits (overwrite, delete, insert, copy a run elsewhere), sometimes a
    truncation: the damage of a bad disk, a broken converter or a hostile hand."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 30)):
        if not out:
            break
        i = rng.randrange(len(out))
        how = rng.random()
        if how < 0.5:
            out[i : i + 1] = bytes([rng.randrange(256)])
        elif how < 0.7:
            del out[i : i + rng.randint(1, 200)]
        elif how < 0.85:
            out[i:i] = rng.randbytes(rng.randint(1, 16))
        else:  # repeats objects, tags, zip entries
            j = rng.randrange(len(out))
            out[i:i] = out[j : j + rng.randint(1, 400)]
    if rng.random() < 0.1:
        out = out[: rng.randrange(len(out) + 1)]
    return bytes(out)


def rezip(data: bytes, rng: random.Random) -> bytes:
    """Mutate one XML part inside the DOCX and zip it up again, so the parser gets past the
    container checks and meets broken XML, styles, numbering and relationships."""
    src = zipfile.ZipFile(io.BytesIO(data))
    target = rng.choice([n for n in src.namelist() if n.endswith((".xml", ".rels"))])
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            dst.writestr(info.filename, mutate(body, rng) if info.filename == target else body)
    return out.getvalue()


def plain_pdf() -> bytes:
    """A generated textbook saved without compression: mutations hit content streams,
    fonts and the outline, not just deflated bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        src = textbook_pdf(Path(tmp) / "book.pdf", 3)
        doc = pymupdf_module().open(src)
        data: bytes = doc.tobytes(deflate=False, garbage=0)
        doc.close()
    return data


PLAIN_PDF = plain_pdf()
FUZZ = settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


@FUZZ
@given(seed=SEEDS)
def test_mutated_pdf_bytes_parse_or_fail_cleanly(seed: int) -> None:
    rng = random.Random(seed)
    parses_or_refuses(mutate(rng.choice([PDF_BASE, PLAIN_PDF]), rng), ".pdf")


@FUZZ
@given(seed=SEEDS)
@example(seed=59937448)  # a damaged footnotes part (lxml raised from docx_notes)
def test_mutated_docx_parse_or_fail_cleanly(seed: int) -> None:
    rng = random.Random(seed)
    data = rezip(DOCX_BASE, rng) if rng.random() < 0.7 else mutate(DOCX_BASE, rng)
    parses_or_refuses(data, ".docx")


def test_zip_container_damage_found_by_fuzzing_is_a_clean_error() -> None:
    """Regressions: zipfile raises ValueError (a negative seek from a damaged local header)
    or NotImplementedError (an unknown zip version), not BadZipFile."""
    data = bytearray(DOCX_BASE)
    cd = data.rfind(b"PK\x01\x02")  # last central directory entry
    struct.pack_into("<H", data, cd + 6, 149)  # "version needed to extract": 14.9
    assert parses_or_refuses(bytes(data), ".docx") == "corrupt"
    data = bytearray(DOCX_BASE)
    rels = data.find(b"_rels/.rels")
    header = data.rfind(b"PK\x03\x04", 0, rels)
    struct.pack_into("<H", data, header + 28, 60000)  # extra-field length past the end
    assert parses_or_refuses(bytes(data), ".docx") == "corrupt"


def test_broken_documents_fail_alone_with_their_reason_in_the_pipeline(tmp_path: Path) -> None:
    rt = local_runtime(tmp_path)
    bad = {
        "truncated.docx": DOCX_BASE[: len(DOCX_BASE) // 2],
        "garbled.pdf": PDF_BASE[:1000] + bytes(range(256)) * 40,
        "notzip.docx": b"PK\x03\x04 but nothing else of a zip",
        "pagetree.pdf": page_tree_pdf(count=100_000_000),
    }
    ids = {}
    for name, data in bad.items():
        (tmp_path / name).write_bytes(data)
        ids[name] = submit(rt, tmp_path / name, RunSettings()).doc_id
    good = submit(rt, SAMPLE_DOCX, RunSettings()).doc_id
    run_documents(rt, [*ids.values(), good], processes=1)
    assert rt.repo.load(good).state == "complete"
    for name, doc_id in ids.items():
        s = rt.repo.load(doc_id)
        assert s.state == "failed" and s.error_code == "corrupt", (name, s.error_code, s.error)
        assert s.error and name in s.error


def test_repaired_pdf_whose_pages_lost_their_objects_fails_as_corrupt(tmp_path: Path) -> None:
    """Found by the soak run: MuPDF repairs a truncated PDF well enough to parse it, but
    copying its pages into a chunk PDF fails ("source object number out of range"), which
    was recorded as an internal error."""
    rt = local_runtime(tmp_path)
    path = textbook_pdf(tmp_path / "cut.pdf", 1116, chapter_count=5, paragraphs=8)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    s = submit(rt, path, RunSettings(output_format="both"))
    assert s.state == "queued", s.error  # admitted: MuPDF repairs it
    run_documents(rt, [s.doc_id], processes=1)
    s = rt.repo.load(s.doc_id)
    assert (s.state, s.error_code) == ("failed", "corrupt"), (s.state, s.error)
    assert s.error and "cut.pdf: pages" in s.error and "damaged source PDF" in s.error


# --- bombs and absurd sizes ----------------------------------------------------------------


def measure(script: str, *args: str) -> dict[str, object]:
    """Run `script` in a fresh interpreter; it prints one JSON line (peak RSS included)."""
    code = (
        "import json, sys, time\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "t = time.time()\n"
        f"{script}\n"
        "out['seconds'] = time.time() - t\n"
        # VmHWM is this process image's own peak; ru_maxrss would carry over the (large)
        # peak of the pytest worker that forked and exec'd us
        "hwm = [ln for ln in open('/proc/self/status') if ln.startswith('VmHWM:')][0]\n"
        "out['peak_mb'] = int(hwm.split()[1]) / 1024\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


PARSE_SCRIPT = """
from pathlib import Path
from quire.shared.errors import InputError
from quire.workers.parse import parse_document
out = {}
try:
    parsed = parse_document(Path(sys.argv[1]))
    out['result'] = 'parsed'
    out['images'] = sorted(parsed.images)
    out['notes'] = [n.message for n in parsed.document.notes]
except InputError as exc:
    out['result'] = exc.code
    out['error'] = str(exc)
"""


def docx_bomb(path: Path, inflated: int) -> Path:
    """python-hashlib.docx with `inflated` bytes of whitespace appended inside
    word/document.xml: a few hundred KB on disk."""
    src = zipfile.ZipFile(io.BytesIO(DOCX_BASE))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as dst:
        for info in src.infolist():
            if info.filename != "word/document.xml":
                dst.writestr(info, src.read(info))
                continue
            body = src.read(info)
            with dst.open("word/document.xml", "w", force_zip64=True) as w:
                w.write(body.replace(b"</w:document>", b""))
                chunk = b" " * (1 << 20)
                for _ in range(inflated >> 20):
                    w.write(chunk)
                w.write(b"</w:document>")
    return path


def test_docx_zip_bomb_is_refused_before_it_is_inflated(tmp_path: Path) -> None:
    bomb = docx_bomb(tmp_path / "bomb.docx", 300 << 20)  # 300 MB of XML, ~300 KB file
    assert bomb.stat().st_size < 2_000_000
    out = measure(PARSE_SCRIPT, str(bomb))
    assert out["result"] == "too_large", out
    assert "word/document.xml inflates to" in str(out["error"])
    assert float(str(out["seconds"])) < 5 and float(str(out["peak_mb"])) < 400, out


def test_docx_that_lies_about_its_sizes_is_corrupt_not_inflated(tmp_path: Path) -> None:
    """A member that declares a small size but inflates to a lot: zipfile stops at the
    declared size, and the CRC check fails."""
    bomb = docx_bomb(tmp_path / "liar.docx", 200 << 20)
    data = bytearray(bomb.read_bytes())
    name = b"word/document.xml"
    for sig, size_at, name_at in ((b"PK\x01\x02", 24, 46), (b"PK\x03\x04", 22, 30)):
        pos = 0
        while (pos := data.find(sig, pos)) != -1:
            if data[pos + name_at : pos + name_at + len(name)] == name:
                struct.pack_into("<I", data, pos + size_at, 50_000)  # uncompressed size
            pos += 4
    (tmp_path / "liar.docx").write_bytes(bytes(data))
    out = measure(PARSE_SCRIPT, str(tmp_path / "liar.docx"))
    assert out["result"] == "corrupt", out
    assert float(str(out["peak_mb"])) < 400, out


def png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header declares width x height pixels; its pixel data is a stub."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body))
            + kind
            + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("part", ["word/document.xml", "word/styles.xml", "_rels/.rels"])
def test_docx_xml_declaring_entities_is_refused_as_unsafe(tmp_path: Path, part: str) -> None:
    """A DTD anywhere in the package (entities, an external DTD) fails the document with its
    own code before any XML parser reads it, instead of losing the text after an entity."""
    path = entity_docx(tmp_path / "entities.docx", part=part)
    with pytest.raises(InputError) as exc:
        parse_document(path)
    assert exc.value.code == "unsafe_xml" and f"part {part} declares a DTD" in str(exc.value)
    utf16 = tmp_path / "utf16.docx"  # the same in UTF-16, which lxml reads all the same
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(utf16, "w") as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == part:
                data = data.decode().encode("utf-16")  # its declaration still says UTF-8
            out.writestr(info, data)
    with pytest.raises(InputError, match="declares a DTD"):
        parse_document(utf16)


def test_quire_run_fails_an_entity_declaring_docx_alone(tmp_path: Path) -> None:
    path = entity_docx(tmp_path / "entities.docx")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cli = [sys.executable, "-m", "quire.orchestrator.cli"]
    run = subprocess.run(
        [*cli, "run", "--input", str(path), "--out", "out", "--processes", "1"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stderr
    assert "failed (unsafe_xml)" in run.stderr and "word/document.xml" in run.stderr
    assert not (tmp_path / "out").exists()


def test_gigantic_image_in_a_docx_is_left_out(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_heading("Pictures of enormous size", level=1)
    document.add_paragraph("The next picture claims to be sixty thousand pixels square. " * 5)
    document.add_picture(io.BytesIO(png_header_only(60_000, 60_000)))
    document.add_paragraph("And a normal picture follows, which must be kept as it is. " * 5)
    document.add_picture(io.BytesIO(png_header_only(64, 48)))
    document.save(str(tmp_path / "gigantic.docx"))
    parsed = parse_docx(tmp_path / "gigantic.docx")
    images = [e for e in parsed.document.elements if e.type == "image"]
    assert len(images) == 1 and images[0].image and images[0].image.width == 64
    assert list(parsed.images) == [images[0].image.file]
    notes = [n.message for n in parsed.document.notes]
    assert any("60000x60000 pixels" in n and f"{MAX_IMAGE_PIXELS:,}" in n for n in notes)


def raw_pdf(objects: list[bytes]) -> bytes:
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


TEXT = b"BT /F1 12 Tf 50 780 Td (A page of the hostile test book.) Tj ET"
FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
CONTENT = b"<< /Length %d >>\nstream\n" % len(TEXT) + TEXT + b"\nendstream"


def page_tree_pdf(*, count: int, pages: int = 1) -> bytes:
    """`pages` real pages under a page tree root that claims `count`."""
    kids = b" ".join(b"%d 0 R" % (5 + i) for i in range(pages))
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 3 0 R >>"
    )
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % count,
            CONTENT,
            FONT,
            *([page] * pages),
        ]
    )


def huge_image_pdf(side: int) -> bytes:
    """One page showing a side x side grey image: a few hundred KB of deflated pixels
    that decode to side**2 bytes."""
    squeeze = zlib.compressobj(9)
    row = b"\x80" * side
    stream = b"".join(squeeze.compress(row) for _ in range(side)) + squeeze.flush()
    content = b"q 500 0 0 600 50 100 cm /Im0 Do Q " + TEXT
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /XObject "
            b"<< /Im0 4 0 R >> /Font << /F1 6 0 R >> >> /Contents 5 0 R >>",
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n"
            % (side, side, len(stream))
            + stream
            + b"\nendstream",
            b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
            FONT,
        ]
    )


def test_gigantic_image_in_a_pdf_is_never_decoded(tmp_path: Path) -> None:
    """400 million pixels in ~400 KB: left out with a note, in well under a second of work
    and without the 400 MB (or, found by an earlier version, 2 GB) it would take."""
    path = tmp_path / "gigantic.pdf"
    path.write_bytes(huge_image_pdf(20_000))
    assert path.stat().st_size < 1_000_000
    out = measure(PARSE_SCRIPT, str(path))
    assert out["result"] == "parsed" and out["images"] == [], out
    assert any("over 178,956,970 pixels left out" in str(n) for n in out["notes"]), out  # type: ignore[attr-defined]
    assert float(str(out["peak_mb"])) < 300 and float(str(out["seconds"])) < 10, out


def test_pdf_page_counts_beyond_the_limits_are_refused_at_submission(tmp_path: Path) -> None:
    rt = local_runtime(tmp_path)
    claims = tmp_path / "claims.pdf"  # one page, a root that claims a hundred million
    claims.write_bytes(page_tree_pdf(count=100_000_000))
    many = tmp_path / "many.pdf"  # 10,001 real (tiny) pages: over max_pages
    many.write_bytes(page_tree_pdf(count=10_001, pages=10_001))
    started = time.monotonic()
    s1 = submit(rt, claims, RunSettings())
    s2 = submit(rt, many, RunSettings())
    assert time.monotonic() - started < 10
    assert (s1.state, s1.error_code) == ("failed", "corrupt"), s1.error
    assert s1.error and "claims.pdf" in s1.error and "page tree" in s1.error
    assert (s2.state, s2.error_code) == ("failed", "too_large"), s2.error
    assert s2.error and "10001 pages, over the limit of 10000" in s2.error
    big = submit(rt, CORPUS / "latex-news-22.pdf", RunSettings(max_file_bytes=100_000))
    assert (big.state, big.error_code) == ("failed", "too_large"), big.error
    assert rt.store.list(f"docs/{big.doc_id}/out/") == []


# --- keys and file names that try to escape ------------------------------------------------

BAD_KEYS = [
    "../escape.json",
    "docs/../../escape.json",
    "docs/x/../../../escape",
    "/etc/passwd",
    "docs//x",
    "./docs/x",
    "docs/./x",
    "docs/x/",
    "",
    "docs/a\x00b",
    "docs/a\nb.json",
    "docs/a\rb",
    "docs/\x1b[31mred",
    "docs/a\x7fb",
    "docs/\tx",
]


@pytest.mark.parametrize("key", BAD_KEYS)
def test_store_keys_cannot_escape_their_prefix(tmp_path: Path, key: str) -> None:
    local = LocalStore(tmp_path / "root" / "store")
    # an S3 store on a closed port: a key that got past validation would raise a
    # connection error, not ValueError
    s3 = S3Store("quire-hostile", "p", endpoint_url="http://127.0.0.1:9")
    for store in (local, s3):
        with pytest.raises(ValueError):
            store.put(key, b"x")
        with pytest.raises(ValueError):
            store.get(key)
        with pytest.raises(ValueError):
            store.put_if_absent(key, b"x")
        with pytest.raises(ValueError):
            store.delete(key)
    assert [p for p in (tmp_path / "root").rglob("*") if p.is_file()] == []


def test_event_keys_that_could_escape_are_ignored_with_a_reason() -> None:
    config = TriggerConfig(prefix="inbox/", output_prefix="outbox/")

    def event(key: str) -> ObjectEvent:
        return ObjectEvent(event_name="ObjectCreated:Put", bucket="books", key=key)

    for key in (
        "inbox/../outbox/evil.pdf",
        "inbox/a/../../x.pdf",
        "inbox//x.pdf",
        "inbox/a\nforged log line.pdf",
        "inbox/\x1b[2Jx.docx",
    ):
        why = classify(event(key), config)
        assert why is not None and why.startswith("unsafe object key"), (key, why)
    assert classify(event("inbox/notes..v2.pdf"), config) is None  # dots inside a name: fine


@pytest.mark.parametrize(
    "name", ["../x.md", "/tmp/escape.md", "images/../../x.png", "a/../../b.md", "images/link/x.png"]
)
def test_writer_refuses_paths_outside_the_output_folder(tmp_path: Path, name: str) -> None:
    out = tmp_path / "out"
    (out / "images").mkdir(parents=True)
    (out / "images" / "link").symlink_to(tmp_path, target_is_directory=True)  # points out
    with pytest.raises(ValueError):
        save_files(out, {name: b"x"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize(
    "name",
    [
        "images/../x.png",
        "images/.hidden.png",
        "images/a/b.png",
        "images/con.png",
        "images/x\n.png",
        "/images/x.png",
        "images/x.png\x00",
        "img/x.png",
        "images/",
    ],
)
def test_unsafe_image_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError):
        safe_image_path(name)


def test_docx_part_names_cannot_choose_file_names(tmp_path: Path) -> None:
    """A DOCX whose image part has a hostile extension, and whose zip holds a member named
    to escape ("zip slip"): image files are named by content hash and a plain extension,
    and nothing is ever extracted to disk."""
    base = textbook_docx(tmp_path / "base.docx", 41)
    document = docx.Document(str(base))
    document.add_picture(io.BytesIO(png_header_only(64, 48)))
    document.save(str(tmp_path / "pic.docx"))
    src = zipfile.ZipFile(tmp_path / "pic.docx")
    media = next(n for n in src.namelist() if n.startswith("word/media/"))
    hostile = "word/media/evil.p\x07ng"
    with zipfile.ZipFile(tmp_path / "hostile.docx", "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == media:
                dst.writestr(hostile, body)
                continue
            if info.filename.endswith(".rels") or info.filename == "[Content_Types].xml":
                body = body.replace(media.removeprefix("word/").encode(), b"media/evil.p\x07ng")
                body = body.replace(
                    b'<Default Extension="png"',
                    b'<Default Extension="p\x07ng" ContentType="image/png"/>'
                    b'<Default Extension="png"',
                )
            dst.writestr(info, body)
        dst.writestr("../../zip-slip-escape.txt", b"should never be written anywhere")
    cwd = Path.cwd()
    try:
        parsed = parse_docx(tmp_path / "hostile.docx")
        names = list(parsed.images)
    except InputError as exc:  # refusing the package is fine too; crashing or escaping not
        names = []
        assert exc.code in ("corrupt", "bad_input"), exc
    for name in names:
        assert safe_image_path(name) == name and name.endswith((".png", ".bin"))
    for root in (tmp_path, tmp_path.parent, cwd, cwd.parent):
        assert not (root / "zip-slip-escape.txt").exists()


def test_batch_output_folders_cannot_escape(tmp_path: Path) -> None:
    """A document called "...pdf" has the stem "..": its results once landed in the parent
    of --out. Named explicitly (folders skip dot files), through the real command."""
    (tmp_path / "in").mkdir()
    hostile = tmp_path / "in" / "...pdf"
    hostile.write_bytes(PDF_BASE)
    work = tmp_path / "work"
    work.mkdir()
    env = {
        "QUIRE_STORE_URL": str(tmp_path / "store"),
        "QUIRE_STATE_DIR": str(tmp_path / "st"),
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "quire.orchestrator.cli",
            "batch",
            str(hostile),
            "--out",
            str(work / "out"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(p.name for p in work.iterdir()) == ["out"]
    assert (work / "out" / "document" / "manifest.json").exists()


# --- a per-document time limit on the real stack --------------------------------------------


@pytest.mark.services
def test_a_part_past_its_time_limit_fails_only_its_document(tmp_path: Path) -> None:
    """Time limits scaled down (QUIRE_TIME_LIMIT_SCALE=0.02: parse 12 s soft; on every
    worker, since the sender stamps its limits on each message): a parse whose output
    write hangs for longer fails its document with code "timeout"; another completes."""
    slow = textbook_pdf(tmp_path / "slow.pdf", 61)
    fine = textbook_docx(tmp_path / "fine.docx", 62)
    with MotoServer() as moto:
        stack = Stack(tmp_path, moto, extra_env={"QUIRE_TIME_LIMIT_SCALE": "0.02"}).start()
        try:
            slow_id = stack.submit(slow, RunSettings())
            stack.proxy.add(delay(16.0), ops={"PUT"}, key=rf"docs/{slow_id}/work/parse/")
            fine_id = stack.submit(fine, RunSettings())
            stack.poke([slow_id, fine_id])
            sessions = stack.wait_terminal([slow_id, fine_id], 90)
        finally:
            stack.stop()
    s = sessions[slow_id]
    assert (s.state, s.error_code) == ("failed", "timeout"), (s.state, s.error)
    assert s.error and "slow.pdf: parsing:00001-00003 ran past its time limit" in s.error
    assert sessions[fine_id].state == "complete", sessions[fine_id].error


@pytest.mark.services
def test_a_part_killed_at_its_hard_time_limit_fails_its_document_at_once(
    tmp_path: Path,
) -> None:
    """A part that never returns to Python cannot be stopped by the soft limit (a signal
    handled by the interpreter). Modelled by SIGSTOPping the pool child mid-part (its parse
    output PUT is held by the proxy): at the hard limit Celery kills the child, and the
    document fails with code "timeout" then and there — no reconciler runs in this stack."""
    from quire.workers.app import use_broker
    from quire.workers.execute import advance_document
    from quire.workers.tasks import app

    stuck = textbook_pdf(tmp_path / "stuck.pdf", 63)
    with MotoServer() as moto:
        stack = Stack(tmp_path, moto).start()
        try:
            doc_id = stack.submit(stuck, RunSettings())
            stack.proxy.add(delay(30.0), ops={"PUT"}, key=rf"docs/{doc_id}/work/parse/")
            use_broker(stack.env["QUIRE_BROKER_URL"])
            for m in advance_document(stack.runtime, doc_id):  # limits stamped on the message
                app.send_task(
                    f"quire.part.{m.queue}",
                    args=[m.doc_id, m.state, m.part, m.revision],
                    queue=m.queue,
                    soft_time_limit=2,
                    time_limit=6,
                )
            deadline = time.monotonic() + 20
            while not stack.proxy.injected["delay"]:  # the part is inside its PUT
                assert time.monotonic() < deadline, stack.logs()[-4000:]
                time.sleep(0.05)
            stopped = stack.workers["a"].pool_children()
            for pid in stopped:
                os.kill(pid, signal.SIGSTOP)
            s = stack.wait_terminal([doc_id], 20)[doc_id]
            logs = stack.logs()
        finally:
            stack.stop()
    assert (s.state, s.error_code) == ("failed", "timeout"), (s.state, s.error)
    assert s.error and "stuck.pdf: parsing:00001-00003 was killed at its hard time limit" in (
        s.error
    )
    assert "Hard time limit (6" in logs and stopped
