"""Cross-references and footnotes in the workspace, in a real browser (Debian's chromium via
Playwright): a link in a session page leads to the session page holding its target, at the
target; a footnote's mark leads to the note at the end of the session. Phone size, with
screenshots kept as test artefacts (see test_web_browser)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from notes_samples import NotesBook, notes_pdf
from playwright.sync_api import Browser, expect, sync_playwright
from test_web_browser import CHROMIUM, FLAGS, SIZES, snap
from web_server import TOKEN, WebServer, upload, wait_stopped

from quire.shared.links import heading_slug

pytestmark = pytest.mark.xdist_group("web_browser")


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> NotesBook:
    return notes_pdf(tmp_path_factory.mktemp("book") / "notes-and-links.pdf")


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, book: NotesBook
) -> Iterator[tuple[WebServer, str]]:
    state = tmp_path_factory.mktemp("web-links")
    env = {
        "QUIRE_STORE_URL": str(state / "store"),
        "QUIRE_STATE_DIR": str(state / "state"),
        "QUIRE_API_TOKEN": TOKEN,
    }
    with WebServer(env) as srv, srv.client() as api:
        doc_id = upload(api, book.path, output_format="markdown").json()["document"]["doc_id"]
        assert wait_stopped(api, doc_id)["state"] == "complete"
        yield srv, doc_id


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).is_file(), "apt-get install chromium (scripts/test does)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Screenshots, kept where QUIRE_WEB_SCREENSHOTS says (as test_web_browser keeps its)."""
    keep = os.environ.get("QUIRE_WEB_SCREENSHOTS")
    return Path(keep) if keep else tmp_path_factory.mktemp("screenshots")


def signed_in(browser: Browser, server: WebServer) -> Any:
    page = browser.new_context(viewport=SIZES["phone"]).new_page()  # type: ignore[arg-type]
    page.goto(server.url + "/login")
    page.fill("input[name=token]", TOKEN)
    page.click("button[type=submit]")
    return page


def test_a_cross_reference_leads_to_the_session_holding_its_target(
    served: tuple[WebServer, str], browser: Browser, shots: Path
) -> None:
    server, doc_id = served
    page = signed_in(browser, server)
    page.goto(f"{server.url}/documents/{doc_id}/sessions/1")
    link = page.locator("#text a", has_text="3 Verifying output")
    expect(link).to_be_visible()
    slug = heading_slug("3 Verifying output")
    assert link.get_attribute("href") == f"/documents/{doc_id}/sessions/4#{slug}"
    link.click()
    expect(page).to_have_url(re.compile(rf"/sessions/4#{slug}$"))
    target = page.locator(f'[id="{slug}"]')  # (an id may start with a digit)
    expect(target).to_have_text("3 Verifying output")
    expect(target).to_be_in_viewport()
    bar, box = page.locator("header.top").bounding_box(), target.bounding_box()
    assert bar and box and box["y"] >= bar["y"] + bar["height"]  # not under the sticky bar
    snap(page, shots, "phone-cross-reference-target")


def test_a_footnote_mark_leads_to_its_note(
    served: tuple[WebServer, str], browser: Browser, shots: Path
) -> None:
    server, doc_id = served
    page = signed_in(browser, server)
    page.goto(f"{server.url}/documents/{doc_id}/sessions/2")  # chapter one
    mark = page.locator("#text sup.fnref a", has_text="4")
    expect(mark).to_have_attribute("href", "#fn-4")
    mark.click()
    note = page.locator("#fn-4")
    expect(note).to_be_in_viewport()
    expect(note).to_contain_text("Note 4 belongs to the last page of chapter one.")
    # the note is the last thing of the session's text, after every other element
    last = page.locator("#text .el").last
    expect(last.locator(".footnote")).to_have_count(1)
    snap(page, shots, "phone-footnote")
