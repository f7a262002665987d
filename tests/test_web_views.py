"""What the web pages compute, without a server: the page strip, the stage bar, the size
classes, Markdown rendering (safe with hostile text) and the package data the wheel ships."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from pipeline_utils import ROOT

from quire.orchestrator.web.markdown import session_html, to_html
from quire.orchestrator.web.models import BoundaryOut, PagesOut, PlanOut, SessionOut
from quire.orchestrator.web.views import (
    STAGE_BAR,
    cell_width,
    chapter_starts,
    page_strip,
    place_findings,
    reason_alone,
    size_class,
    stage_marks,
)
from quire.shared.ir import OutlineEntry, SkippedPage
from quire.shared.manifest import Finding, VerificationReport
from quire.shared.plan import PlanSettings

WEB = ROOT / "orchestrator" / "web"


def session(n: int, first: int, last: int, pages: float) -> SessionOut:
    return SessionOut(
        number=n,
        first_id=f"el-{n:06d}",
        last_id=f"el-{n:06d}",
        page_first=first,
        page_last=last,
        pages=pages,
        words=100,
        title=f"S{n}",
        end_reason="r",
        end_decider="heuristic",
        ends_at=BoundaryOut(after_id=f"el-{n:06d}", reason="r", decider="heuristic"),
    )


def test_the_strip_groups_pages_into_sessions_and_marks_them() -> None:
    plan = PlanOut(
        doc_id="d",
        settings=PlanSettings(),
        sessions=[session(1, 1, 6, 6), session(2, 6, 18, 13), session(3, 20, 22, 3)],
    )
    pages = PagesOut(
        doc_id="d",
        page_count=24,
        page_basis="pdf",
        outline=[
            OutlineEntry(level=1, title="One", page=1),
            OutlineEntry(level=2, title="One.1", page=3),
            OutlineEntry(level=1, title="Two", page=6),
            OutlineEntry(level=1, title="Two again", page=6),
            OutlineEntry(level=1, title="Nowhere", page=0),
        ],
        skipped_pages=[
            SkippedPage(page=19, reason="blank"),
            SkippedPage(page=24, reason="image only"),
        ],
    )
    report = VerificationReport(
        doc_id="d",
        passed=False,
        checked={},
        findings=[
            Finding(kind="render_mismatch", message="m", chunk=2, page=7),
            Finding(kind="missing", message="m", element_id="el-000009"),
        ],
    )
    strip = page_strip(plan, pages, report)
    assert [
        (i.session.number if i.session else None, [c.page for c in i.cells]) for i in strip
    ] == [
        (1, list(range(1, 7))),
        (2, list(range(6, 19))),
        (None, [19]),
        (3, [20, 21, 22]),
        (None, [23, 24]),
    ]
    assert [i.size for i in strip] == ["ok", "soft", "", "short", ""]
    cells = {c.page: c for i in strip for c in i.cells}
    assert cells[6].chapter == "Two; Two again" and cells[3].chapter == ""  # level 1 only
    assert cells[19].no_text == "blank" and "no text: blank" in cells[19].title
    assert cells[7].findings == 1 and cells[7].classes == "bad"
    assert cells[1].classes == "ch" and cells[2].classes == ""
    assert (
        chapter_starts(
            PagesOut(doc_id="d", page_count=1, page_basis="pdf", outline=[], skipped_pages=[])
        )
        == {}
    )
    # before a plan exists the strip still shows the book
    assert [len(i.cells) for i in page_strip(None, pages, None)] == [24]


def test_sizes_stages_and_cells() -> None:
    window = PlanSettings(min_pages=5, max_pages=12, soft_max_pages=13, hard_max_pages=20)
    assert size_class(2, window, "front_matter") == size_class(30, window, "back_matter") == "ref"
    # an HTML or DOCX book's pages are estimated: half a page short of the minimum meets it
    assert [size_class(p, window, estimated=True) for p in (4.4, 4.5, 12.5)] == [
        "short",
        "ok",
        "soft",
    ]
    assert [size_class(p, window) for p in (4.9, 5, 12, 12.5, 13, 13.1, 20)] == [
        "short",
        "ok",
        "ok",
        "soft",
        "soft",
        "long",
        "long",
    ]
    assert stage_marks("complete") == [(s, "done") for s in STAGE_BAR]
    assert stage_marks("queued") == stage_marks("failed") == [(s, "") for s in STAGE_BAR]
    marks = dict(stage_marks("writing"))
    assert marks["planning"] == "done" and marks["writing"] == "now" and marks["indexing"] == ""
    assert dict(stage_marks("repairing"))["analysing"] == "now"
    assert dict(stage_marks("awaiting_decision"))["planning"] == "now"
    assert cell_width(50) == 18 and cell_width(2415) == 4 and cell_width(236) == 4


def test_findings_are_placed_where_they_occur() -> None:
    found = [
        Finding(kind="altered", message="a", chunk=2, element_id="el-000010", page=3),
        Finding(kind="render_mismatch", message="b", chunk=2, page=4),
        Finding(kind="page_missing", message="c", chunk=2, page=9),
        Finding(kind="manifest_mismatch", message="d", chunk=2, file="02-two.md"),
        Finding(kind="missing", message="e", element_id="el-000099"),
    ]
    placed = place_findings(found, {"el-000010", "el-000011"}, {3, 4})
    assert [f.message for f in placed.by_element["el-000010"]] == ["a"]
    assert [f.message for f in placed.by_page[4]] == ["b"] and 3 not in placed.by_page
    assert [f.message for f in placed.general] == ["c", "d", "e"]  # none is left out
    docx = place_findings(found, set(), set())  # no text, no page images
    assert [f.message for f in docx.general] == ["a", "b", "c", "d", "e"]


def test_markdown_is_rendered_safely() -> None:
    def image(src: str) -> str | None:
        return "/img/" + src[7:] if src.startswith("images/") else None

    def link(href: str) -> str | None:
        return "/s/2" if href == "02-two.md" else None

    html = to_html(
        "# Title\n\n<script>alert(1)</script>\n\n[bad](javascript:alert(1)) "
        "[next](02-two.md) [site](https://example.org/)\n\n"
        "![remote](http://tracker.example/x.png) ![local](images/ab.png)\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n",
        image=image,
        link=link,
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "javascript:" not in html.replace("[bad](javascript:alert(1))", "")
    assert 'href="/s/2"' in html and 'href="https://example.org/"' in html
    assert 'src="/img/ab.png"' in html and "tracker.example" not in html
    assert "<h2>Title</h2>" in html and "<table>" in html and "<td>2</td>" in html

    text = (
        '<!-- quire-chunk\nchunk: 2\ntitle: "Two"\nsource-pages: 3-4\n'
        "elements: el-000010..el-000011\n-->\n\n<!-- el-000010 -->\n# Two\n\n"
        "<!-- el-000011 -->\n```\ncode <b>\n```\n"
    )
    elements = session_html(text, image=image, link=link)
    assert [e.element_id for e in elements] == ["el-000010", "el-000011"]
    assert elements[0].html == '<h2 id="two">Two</h2>\n'  # the anchor links lead to
    assert "code &lt;b&gt;" in elements[1].html and "quire-chunk" not in elements[1].html


def test_the_wheel_ships_the_templates_and_assets(tmp_path: Path) -> None:
    shipped = sorted(
        p.relative_to(WEB).as_posix()
        for folder in ("templates", "static")
        for p in (WEB / folder).iterdir()
    )
    assert "static/quire.css" in shipped and "templates/session.html" in shipped
    # built from a clean copy: a `build/` folder left in the tree by an earlier build would
    # carry its files into the wheel whatever the package data says
    source = tmp_path / "src"
    shutil.copytree(
        ROOT,
        source,
        symlinks=True,
        ignore=shutil.ignore_patterns(
            "build", "*.egg-info", ".git", "__pycache__", ".quire", "out", "docs"
        ),
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(source)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = tmp_path.glob("quire-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in shipped:
        assert f"quire/orchestrator/web/{name}" in names, name
    assert "quire/orchestrator/web/routes/ui.py" in names
    for page in ("base.html", "documents.html", "document.html", "session.html"):
        text = (WEB / "templates" / page).read_text()
        assert "http://" not in text and "https://" not in text, page  # nothing from a CDN


def test_a_reason_shown_beside_its_alternative_drops_the_rather_than_clause() -> None:
    reason = "cut before 'B' on p. 9: starts a chapter; session of 8 pages; rather than p. 7"
    assert reason_alone(reason, "before 'A' on p. 7: ...") == (
        "cut before 'B' on p. 9: starts a chapter; session of 8 pages"
    )
    assert reason_alone(reason, None) == reason
