"""Chunk writers, file names and the manifest."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from writefix import Tiny, make_tiny

from quire.shared.errors import InputError
from quire.shared.ir import SkippedPage
from quire.shared.links import Slugger, heading_slug
from quire.shared.manifest import load_manifest
from quire.shared.text import sha256_bytes
from quire.workers.write import build_manifest, dump_manifest, save_files, write_all, write_chunk
from quire.workers.write.names import RESERVED, chunk_stem, chunk_stems, slugify
from quire.workers.write.pdf import chunk_pdf_pages, clear_source_cache


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Tiny:
    return make_tiny(tmp_path_factory.mktemp("tiny"))


# --- names -----------------------------------------------------------------------------


def test_slug_folds_to_ascii() -> None:
    assert (
        chunk_stem(3, 12, "Vectors & Assignment: Été à Köln") == "03-vectors-assignment-ete-a-koln"
    )
    assert chunk_stem(1, 5, "Основы LaTeX") == "01-osnovy-latex"


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("مقدمه‌ای بر لاتک", "مقدمه-ای-بر-لاتک"),  # the ZWNJ inside a word becomes "-"
        ("فصل ۳: جدول‌ها", "فصل-۳-جدول-ها"),
        ("ﻣﻘﺪﻣﻪ", "مقدمه"),  # presentation forms -> letters (NFKC)
        ("مقدمة في البرمجة", "مقدمة-في-البرمجة"),
        ("中文标题", "中文标题"),
        ("第一章 LaTeX 的基本概念", "第一章-latex-的基本概念"),
        ("LATEX2ε 介绍", "latex2e-介绍"),
        ("アプティチュードの使い方", "アプティチュードの使い方"),
        ("आधुनिक हिन्दी", "आधुनिक-हिन्दी"),  # vowel signs (marks) kept
    ],
)
def test_other_scripts_keep_their_own_letters(title: str, slug: str) -> None:
    assert chunk_stem(7, 20, title) == f"07-{slug}"


@pytest.mark.parametrize("title", ["", "   ", "1.2.3", "— … —", "\u200c\u200f"])
def test_titles_without_letters_fall_back(title: str) -> None:
    assert chunk_stem(7, 20, title) == "07-section-7"


def test_mostly_persian_title_with_latin_word_keeps_both() -> None:
    assert chunk_stem(2, 9, "آشنایی با LaTeX و نصب آن") == "02-آشنایی-با-latex-و-نصب-آن"


def test_cjk_slug_is_cut_by_width_and_never_inside_a_letter() -> None:
    assert slugify("中" * 40) == "中" * 30  # two columns a character, MAX_SLUG columns
    slug = slugify("आधुनिक हिन्दी " * 10)
    assert len(slug) <= 60 and not unicodedata.category(slug[-1]).startswith("P")
    assert ("आधुनिक हिन्दी " * 10).replace(" ", "-").startswith(slug)


@pytest.mark.parametrize("title", ["CON", "nul", "Aux", "com1", "LPT9", "prn"])
def test_reserved_names_never_used(title: str) -> None:
    assert slugify(title) == ""
    stem = chunk_stem(4, 10, title)
    assert stem == "04-section-4"
    assert stem.split("-", 1)[1] not in RESERVED


def test_separators_and_specials_are_removed() -> None:
    stem = chunk_stem(1, 3, 'a/b\\c:d*e?f"g<h>i|j ../..')
    assert stem == "01-a-b-c-d-e-f-g-h-i-j"
    for title in ["../../etc/passwd", "C:\\Windows", "a\x00b", "x\ny"]:
        s = chunk_stem(1, 1, title)
        assert "/" not in s and "\\" not in s and ".." not in s
        assert all(c.isalnum() or c == "-" for c in s)


def test_long_title_is_cut_at_a_word() -> None:
    title = "A very long chapter title that keeps going and going well past the limit of sixty"
    slug = slugify(title)
    assert len(slug) <= 60 and not slug.endswith("-")
    assert title.lower().replace(" ", "-").startswith(slug)
    assert slugify("x" * 100) == "x" * 60


def test_number_width_grows_past_99_chunks() -> None:
    assert chunk_stem(5, 99, "Intro") == "05-intro"
    assert chunk_stem(5, 100, "Intro") == "005-intro"
    assert chunk_stem(1000, 1000, "Intro") == "1000-intro"
    with pytest.raises(ValueError):
        chunk_stem(0, 3, "Intro")


def test_stems_unique_with_repeated_and_fallback_titles() -> None:
    titles = ["Exercises", "Exercises", "تمرین", "تمرین", "CON", "Exercises"]
    stems = chunk_stems(titles)
    assert len(set(stems)) == len(stems)
    assert len({s.lower() for s in stems}) == len(stems)  # case-insensitive file systems
    assert stems[:3] == ["01-exercises", "02-exercises", "03-تمرین"]


# --- markdown ------------------------------------------------------------------------------


def test_markdown_layout(tiny: Tiny) -> None:
    out = write_chunk(
        tiny.doc, tiny.plan, 2, formats={"markdown"}, source_pdf=None, images=tiny.images
    )
    sha = next(iter(tiny.images)).split("/")[1].split(".")[0]
    assert set(out.files) == {"02-images.md", f"images/{sha}.png"}
    assert out.files["02-images.md"].decode() == (
        "<!-- quire-chunk\n"
        "chunk: 2\n"
        'title: "Images"\n'
        "source-pages: 3-3\n"
        "elements: el-000006..el-000008\n"
        "-->\n"
        "\n"
        "<!-- el-000006 -->\n"
        "# Images\n"
        "\n"
        "<!-- el-000007 -->\n"
        f"![diagram](images/{sha}.png)\n"
        "\n"
        "<!-- el-000008 -->\n"
        "Figure 1: a red box with a blue square.\n"
    )
    assert out.files[f"images/{sha}.png"] == tiny.images[f"images/{sha}.png"]
    assert out.entry.pdf_file is None and out.entry.pdf_pages is None


def test_markdown_title_cannot_close_the_front_block(tiny: Tiny) -> None:
    out = write_chunk(
        tiny.doc,
        tiny.plan,
        1,
        formats={"markdown"},
        source_pdf=None,
        images=tiny.images,
        title="Tricky --> title",
    )
    text = out.files[f"{out.entry.stem}.md"].decode()
    front = text.split("\n-->\n", 1)[0]
    assert "-->" not in front
    assert json.loads(front.split("title: ", 1)[1].split("\n")[0]) == "Tricky --> title"
    assert out.entry.stem == "01-tricky-title"


def test_missing_image_bytes_is_an_input_error(tiny: Tiny) -> None:
    with pytest.raises(InputError, match="missing from the parsed images"):
        write_chunk(tiny.doc, tiny.plan, 2, formats={"markdown"}, source_pdf=None, images={})
    bad = {k: b"not the image" for k in tiny.images}
    with pytest.raises(InputError, match="sha256"):
        write_chunk(tiny.doc, tiny.plan, 2, formats={"markdown"}, source_pdf=None, images=bad)


# --- pdf -----------------------------------------------------------------------------------


def _page_texts(data: bytes) -> list[str]:
    with pymupdf.open("pdf", data) as pdf:
        return [page.get_text() for page in pdf]


def test_pdf_pages_and_overlap_clamped(tiny: Tiny) -> None:
    with pymupdf.open(tiny.pdf) as src:
        src_texts = [src[i].get_text() for i in range(src.page_count)]
    expected = {  # chunk -> (pdf pages, overlap pages) with overlap 2
        1: ([1, 2, 3, 4], [3, 4]),  # nothing before page 1
        2: ([1, 2, 3, 4, 5], [1, 2, 4, 5]),
        3: ([2, 3, 4, 5, 6], [2, 3, 6]),  # core 4-5: page 5 has no elements but is covered
        4: ([4, 5, 6], [4, 5]),  # nothing after the last page
    }
    for number, (pages, overlap) in expected.items():
        out = write_chunk(
            tiny.doc,
            tiny.plan,
            number,
            formats={"pdf"},
            source_pdf=tiny.pdf,
            images=tiny.images,
            overlap_pages=2,
        )
        assert out.entry.pdf_pages == pages
        assert out.entry.overlap_pages == overlap
        assert _page_texts(out.files[out.entry.pdf_file or ""]) == [src_texts[p - 1] for p in pages]
        assert not any(name.endswith(".md") for name in out.files)


def test_pdf_without_overlap_is_core_only(tiny: Tiny) -> None:
    got = [chunk_pdf_pages(tiny.doc, c.first_id, c.last_id, 0).pages for c in tiny.plan.chunks]
    assert got == [[1, 2], [3], [4, 5], [6]]


def test_skipped_pages_inside_range_are_included(tiny: Tiny) -> None:
    doc = tiny.doc.model_copy(update={"skipped_pages": [SkippedPage(page=5, reason="no text")]})
    out = write_chunk(
        doc, tiny.plan, 3, formats={"pdf"}, source_pdf=tiny.pdf, images=tiny.images, overlap_pages=0
    )
    assert out.entry.pdf_pages == [4, 5] and out.entry.overlap_pages == []
    assert len(_page_texts(out.files["03-methods.pdf"])) == 2


def test_docx_source_refused_for_pdf_output(tiny: Tiny) -> None:
    docx = tiny.doc.model_copy(
        update={"source_format": "docx", "page_basis": "words", "source_name": "book.docx"}
    )
    with pytest.raises(InputError, match="PDF output needs a PDF source; this document is DOCX"):
        write_chunk(docx, tiny.plan, 1, formats={"pdf"}, source_pdf=None, images=tiny.images)
    out = write_chunk(docx, tiny.plan, 1, formats={"markdown"}, source_pdf=None, images=tiny.images)
    assert out.entry.markdown_file == "01-introduction.md"


def test_wrong_source_pdf_refused(tiny: Tiny, tmp_path: Path) -> None:
    other = pymupdf.open()
    other.new_page()
    other.save(tmp_path / "one.pdf")
    with pytest.raises(InputError, match="1 pages but the IR says 6"):
        write_chunk(
            tiny.doc,
            tiny.plan,
            1,
            formats={"pdf"},
            source_pdf=tmp_path / "one.pdf",
            images=tiny.images,
        )


# --- manifest and independence ------------------------------------------------------------


def test_manifest_hashes_and_fields(tiny: Tiny) -> None:
    files = write_all(
        tiny.doc,
        tiny.plan,
        formats={"markdown", "pdf"},
        source_pdf=tiny.pdf,
        images=tiny.images,
        overlap_pages=1,
    )
    manifest = load_manifest(files["manifest.json"])
    assert manifest.formats == ["markdown", "pdf"] and manifest.overlap_pages == 1
    assert manifest.chunk_count == 4 and manifest.element_count == 13
    assert [c.stem for c in manifest.chunks] == [
        "01-introduction",
        "02-images",
        "03-methods",
        "04-results",
    ]
    for c in manifest.chunks:
        assert c.files and all(sha256_bytes(files[n]) == sha for n, sha in c.files.items())
        ids = [e.id for e in tiny.doc.elements]
        assert c.element_ids == ids[ids.index(c.first_id) : ids.index(c.last_id) + 1]
    c3 = manifest.chunks[2]
    assert (c3.page_first, c3.page_last, c3.pdf_pages, c3.overlap_pages) == (
        4,
        4,
        [3, 4, 5, 6],
        [3, 6],
    )
    assert c3.word_count == sum(tiny.doc.by_id()[i].word_count for i in c3.element_ids)
    assert manifest.chunks[-1].end_reason == "end of document"
    # stable JSON: load + dump gives the same bytes
    assert dump_manifest(load_manifest(files["manifest.json"])) == files["manifest.json"]


def test_manifest_infers_settings_and_rejects_wrong_entries(tiny: Tiny) -> None:
    entries = [
        write_chunk(
            tiny.doc,
            tiny.plan,
            n,
            formats={"pdf"},
            source_pdf=tiny.pdf,
            images=tiny.images,
            overlap_pages=2,
        ).entry
        for n in (4, 2, 1, 3)
    ]
    manifest = build_manifest(tiny.doc, tiny.plan, entries)
    assert manifest.formats == ["pdf"] and manifest.overlap_pages == 2
    assert [c.number for c in manifest.chunks] == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="do not match"):
        build_manifest(tiny.doc, tiny.plan, entries[:3])


def test_one_chunk_rewritten_alone_gives_identical_bytes(tiny: Tiny) -> None:
    everything = write_all(
        tiny.doc, tiny.plan, formats={"markdown", "pdf"}, source_pdf=tiny.pdf, images=tiny.images
    )
    clear_source_cache()  # a fresh worker process: nothing cached
    again = write_chunk(
        tiny.doc, tiny.plan, 3, formats={"markdown", "pdf"}, source_pdf=tiny.pdf, images=tiny.images
    )
    assert set(again.files) == {"03-methods.md", "03-methods.pdf"}
    for name, data in again.files.items():
        assert data == everything[name]
    manifest = load_manifest(everything["manifest.json"])
    assert again.entry == manifest.chunks[2]


@given(st.text(max_size=200), st.integers(min_value=1, max_value=1500))
@settings(max_examples=300, deadline=None)
def test_any_title_gives_a_safe_stem(title: str, total: int) -> None:
    stem = chunk_stem(total, total, title)
    number, slug = stem.split("-", 1)
    assert number == f"{total:0{max(2, len(str(total)))}d}"
    # letters, digits and marks of any script between single "-"; nothing a file system or
    # an S3 key objects to (no separators, controls, invisible format characters)
    assert re.fullmatch(r"[^\W_]+(?:-[^\W_]+)*", _without_marks(slug))
    assert all(unicodedata.category(c)[0] in "LNM" or c == "-" for c in slug)
    assert slug == unicodedata.normalize("NFC", slug) and slug == slug.lower()
    assert len(slug) <= 60 and len(slug.encode()) <= 180
    assert any(c.isalpha() for c in slug) and slug not in RESERVED


def _without_marks(text: str) -> str:
    return "".join(c for c in text if unicodedata.category(c)[0] != "M")


def test_save_files_stays_inside_the_folder(tmp_path: Path) -> None:
    save_files(tmp_path / "out", {"a.md": b"x", "images/b.png": b"y"})
    assert (tmp_path / "out" / "images" / "b.png").read_bytes() == b"y"
    for bad in ("../evil.md", "/etc/evil", "images/../../evil"):
        with pytest.raises(ValueError, match="outside"):
            save_files(tmp_path / "out", {bad: b"z"})
    assert not (tmp_path / "evil.md").exists()


def test_a_heading_anchor_is_composed_like_the_text_it_is_written_into() -> None:
    """Hypothesis drew a heading "A:\u0301": its colon dropped, the anchor was "a" and a
    combining accent, the file's text (NFC) composed it, and verification found the link
    altered."""
    assert heading_slug("A:\u0301 1") == "\u00e1-1"
    assert Slugger().slug("A:\u0301") == unicodedata.normalize("NFC", "a\u0301")
