"""The names of a document's files and its part ids: made and read back by one class, and no
file name of a document spelled anywhere else in the package."""

from __future__ import annotations

import re
from pathlib import Path

from quire.shared import keys
from quire.shared.layout import Layout

ROOT = Path(__file__).resolve().parents[1]


def test_part_ids_read_back_what_they_were_made_from() -> None:
    assert Layout.parse_part(1, 40) == "00001-00040"
    assert Layout.part_pages(Layout.parse_part(1201, 1240)) == (1201, 1240)
    assert Layout.review_part(3) == "batch-0003"
    assert Layout.render_part(12) == "render-0012"
    assert Layout.part_index(Layout.review_part(3)) == 3
    assert Layout.part_index(Layout.render_part(12)) == 12
    assert Layout.chunk_parts(list(range(1, 10)), 4) == ["0001-0004", "0005-0008", "0009"]
    assert Layout.chunk_parts([2, 5, 6], 8) == ["0002-0006"]
    assert [Layout.part_chunks(p) for p in ("0005-0008", "0009")] == [[5, 6, 7, 8], [9]]


def test_a_version_reads_back_from_its_key() -> None:
    digest = "0123456789abcdef"
    plan_key = keys.work("f" * 64, Layout.plan_version(digest))
    assert plan_key == f"docs/{'f' * 64}/work/plans/{digest}.json"
    assert Layout.version_of(plan_key) == digest
    request = keys.work("f" * 64, Layout.repair_request(Layout.version_of(plan_key)))
    assert Layout.version_of(request) == digest
    assert Layout.version_of("") == ""  # no plan yet
    assert Layout.usage("planning", digest, "planning") == (
        f"llm-usage/planning-{digest}-planning.json"
    )


def test_the_output_folder_names() -> None:
    assert Layout.RUN_FILES[:3] == ("ir.json", "plan.json", "manifest.json")
    assert Layout.STUDY_INDEX == {
        "en": "study-index-en.md",
        "fa": "study-index-fa.md",
        "map": "study-map.md",
    }
    assert Layout.analysis(7) == "analysis/chunk-0007.json"
    assert Layout.image("ab" * 32, "png") == f"images/{'ab' * 32}.png"
    assert Layout.session_pdf("03-the-usr-hierarchy") == "03-the-usr-hierarchy.pdf"


def test_no_document_file_name_is_spelled_outside_the_layout() -> None:
    names = [*Layout.RUN_FILES, Layout.CANDIDATES, Layout.REVIEW_TASKS]
    quoted = re.compile("|".join(re.escape(f'"{n}"') for n in names))
    found = []
    for folder in ("shared", "workers", "orchestrator", "quire"):
        for path in sorted((ROOT / folder).glob("*.py" if folder == "quire" else "**/*.py")):
            if path.name == "layout.py" and path.parent.name == "shared":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#", 1)[0]
                if quoted.search(code):
                    found.append(f"{path.relative_to(ROOT)}:{number}")
    assert found == []
