"""The workspace in a real browser: Debian's chromium, headless, driven by Playwright.

A person signs in, uploads a corpus book, watches it complete, opens its page and a
session's page, reads the source page images beside the rendered Markdown, the sentence
saying why the session starts and ends there (the evidence unfolds on request) and the
book's own index terms, and moves between sessions with the keyboard — at laptop and phone
sizes; on a phone the book's text is on the first screen. In a library of synthetic
documents, a person searches, filters by state, pages through (with and without JavaScript)
and reads a batch's failures first. Screenshots are kept as test artefacts
(`<tmp>/screenshots`, or the folder named by QUIRE_WEB_SCREENSHOTS)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from corpus import CORPUS
from library import Made, populate
from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright
from web_server import TOKEN, WebServer

from quire.orchestrator.web.views import reason_alone
from quire.shared.config import Environment
from quire.workers.runtime import Runtime

pytestmark = pytest.mark.xdist_group("web_browser")

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SIZES = {"laptop": {"width": 1366, "height": 860}, "phone": {"width": 390, "height": 844}}
BOOK = CORPUS / "amsmath-user-guide.pdf"  # 44 pages, an outline, page 4 without text


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    state = tmp_path_factory.mktemp("web-browser")
    env = {
        "QUIRE_STORE_URL": str(state / "store"),
        "QUIRE_STATE_DIR": str(state / "state"),
        "QUIRE_API_TOKEN": TOKEN,
    }
    with WebServer(env) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).is_file(), "apt-get install chromium (scripts/test does)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("screenshots")
    yield folder
    keep = os.environ.get("QUIRE_WEB_SCREENSHOTS")
    if keep:
        shutil.copytree(folder, keep, dirs_exist_ok=True)


def snap(page: Page, shots: Path, name: str) -> None:
    page.screenshot(path=shots / f"{name}.png")
    page.screenshot(path=shots / f"{name}-full.png", full_page=True)
    assert (shots / f"{name}.png").stat().st_size > 10_000


def in_first_screen(page: Page, element: Locator) -> None:
    """`element` starts within the first screen of the page as loaded (no scrolling)."""
    box = element.bounding_box()
    height = page.viewport_size["height"]  # type: ignore[index]
    assert box is not None and box["y"] + 20 < height, f"{page.url}: text starts at {box}"


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1, f"{page.url} is {width}px wide"  # type: ignore[index]


def test_upload_a_book_and_read_it_beside_its_pages(
    server: WebServer, browser: Browser, shots: Path
) -> None:
    laptop = browser.new_context(viewport=SIZES["laptop"])  # type: ignore[arg-type]
    page = laptop.new_page()
    page.goto(server.url + "/")
    expect(page.locator("h1")).to_have_text("Sign in")
    page.fill("input[name=token]", TOKEN)
    page.click("button[type=submit]")
    expect(page.locator("#upload")).to_be_visible()

    page.set_input_files("#upload input[type=file]", str(BOOK))
    page.click("#upload button[type=submit]")
    expect(page.locator("#upload-status")).to_contain_text(f"Submitted {BOOK.name}")
    row = page.locator("tr[data-doc]", has_text=BOOK.name)
    expect(row).to_be_visible()  # the table refreshes itself: no reload
    expect(row.locator(".badge.st-complete")).to_be_visible(timeout=600_000)
    expect(row.locator(".badge.v-passed")).to_have_text("passed")
    snap(page, shots, "laptop-documents")

    doc_id = row.get_attribute("data-doc")
    assert doc_id
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {TOKEN}"}) as api:
        plan: dict[str, Any] = api.get(f"/v1/documents/{doc_id}/plan").json()
        pages: dict[str, Any] = api.get(f"/v1/documents/{doc_id}/pages").json()
    sessions = plan["sessions"]
    assert len(sessions) >= 3

    row.locator("td.name a").click()
    expect(page.locator(".doc-head h1")).to_have_text(BOOK.name)
    expect(page.locator(".strip .sess")).to_have_count(len(sessions))
    chapters = {e["page"] for e in pages["outline"] if e["level"] == 1 and e["page"] > 0}
    assert chapters and page.locator(".strip i.ch").count() >= len(chapters)
    assert {p["page"] for p in pages["skipped_pages"]} == {4}
    expect(page.locator(".strip i.nt")).to_have_count(1)
    expect(page.locator(".doc-head .badge.v-passed")).to_have_text("passed")
    expect(page.locator(".indexes details#en .md table").first).to_be_visible()  # study index
    snap(page, shots, "laptop-document")

    page.locator("table.sessions a", has_text=sessions[1]["title"]).first.click()
    page.wait_for_url(f"**/documents/{doc_id}/sessions/2")
    second = sessions[1]
    images = page.locator(".pages img")
    expect(images).to_have_count(second["page_last"] - second["page_first"] + 1)
    page.wait_for_function(
        "Array.from(document.querySelectorAll('.pages img')).slice(0, 2)"
        ".every(i => i.complete && i.naturalWidth > 800)"
    )
    text = page.locator("#text")
    expect(text.locator(f"#{second['first_id']}")).to_be_visible()
    in_first_screen(page, text.locator(f"#{second['first_id']}"))
    assert text.locator("h1, h2, h3, h4, h5, h6").count() > 0
    assert text.locator("pre code, table, p").count() > 5
    assert "<!--" not in text.inner_text() and "el-0" not in text.inner_text()
    # why it starts and ends here: one plain sentence; the evidence is folded away
    expect(page.locator("#why")).to_contain_text(re.compile(r"^It starts .+ and ends .+\."))
    expect(page.locator("#end-reason")).to_be_hidden()
    # the session's key terms are the book's own index terms, never part of its title
    expect(page.locator("#key-terms")).to_contain_text("Index terms")
    assert second["key_terms"] and second["key_terms"][0]["source"] == "index"
    assert second["key_terms"][0]["term"] not in second["title"]
    # one confidence label, and it agrees with the reviewers' line
    label = page.locator("#confidence").inner_text()
    snap(page, shots, "laptop-session")
    page.locator("#evidence > summary").click()
    expect(page.locator("#end-reason")).to_have_text(
        reason_alone(second["end_reason"], second["end_alternative"])
    )
    expect(page.locator(".why-item").first).to_contain_text(sessions[0]["end_reason"])
    expect(page.locator(".analysis [dir=rtl]")).to_be_visible()
    for line in page.locator(".votes summary").all_inner_texts():
        assert label == "confident" or not line.startswith("Reviewers: confirmed change")
        assert label != "confident" or line.startswith("Reviewers: confirmed change")
    snap(page, shots, "laptop-session-evidence")

    page.keyboard.press("ArrowRight")
    page.wait_for_url(f"**/documents/{doc_id}/sessions/3")
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(f"**/documents/{doc_id}/sessions/2")
    page.goto(f"{server.url}/documents/{doc_id}/sessions/1")
    page.keyboard.press("ArrowLeft")  # nothing before the first session
    page.wait_for_timeout(300)
    assert page.url.endswith("/sessions/1")

    phone = browser.new_context(
        viewport=SIZES["phone"],
        is_mobile=True,  # type: ignore[arg-type]
        has_touch=True,
    )
    phone.add_cookies(laptop.cookies())
    small = phone.new_page()
    for name, path in (
        ("documents", "/"),
        ("document", f"/documents/{doc_id}"),
        ("session", f"/documents/{doc_id}/sessions/2"),
    ):
        small.goto(server.url + path)
        small.wait_for_load_state("networkidle")
        no_sideways_scroll(small)
        snap(small, shots, f"phone-{name}")
    # on a phone the book's text is on the first screen, before any diagnostics
    in_first_screen(small, small.locator(f"#text #{second['first_id']}"))
    expect(small.locator(".pages img").first).to_be_attached()
    laptop.close()
    phone.close()


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebServer, Runtime, Made]]:
    """A server over a library of 260 synthetic documents in three batches (no token)."""
    state = tmp_path_factory.mktemp("web-library")
    rt = Runtime.from_env(Environment(store_url=str(state / "store"), state_dir=state / "state"))
    made = populate(rt, 260, batch_size=100)
    env = {"QUIRE_STORE_URL": rt.store.url, "QUIRE_STATE_DIR": str(state / "state")}
    with WebServer(env) as srv:
        yield srv, rt, made


def shown_rows(page: Page) -> list[str]:
    return [r.get_attribute("data-doc") or "" for r in page.locator("#rows tr[data-doc]").all()]


def test_search_filter_and_pages_of_a_library(
    library: tuple[WebServer, Runtime, Made], browser: Browser, shots: Path
) -> None:
    server, rt, made = library
    laptop = browser.new_context(viewport=SIZES["laptop"])  # type: ignore[arg-type]
    page = laptop.new_page()
    page.goto(server.url + "/")
    expect(page.locator("#found")).to_contain_text("260 documents")
    expect(page.locator("#rows tr[data-doc]")).to_have_count(50)
    times = page.locator("#rows td.col-time").all_inner_texts()
    assert len(set(times)) > 20  # each document's own time, not one batch's for all
    snap(page, shots, "library-documents")

    page.fill("input[name=q]", "algebra")
    page.press("input[name=q]", "Enter")
    page.wait_for_url("**/?q=algebra*")
    algebra = {d for d, n in made.names.items() if "algebra" in n.casefold()}
    expect(page.locator("#found")).to_contain_text(f"{len(algebra)} documents found")
    assert set(shown_rows(page)) == algebra
    page.select_option("select[name=state]", "failed")  # shows at once
    page.wait_for_url("**state=failed*")
    failed = {d for d in algebra if made.states[d] == "failed"}
    assert failed and set(shown_rows(page)) == failed
    expect(page.locator("#rows .badge.st-failed")).to_have_count(len(failed))
    expect(page.locator("#rows .reason .err-code").first).to_be_visible()
    snap(page, shots, "library-search-failed")

    # pages: older, and back to newer; the rows of the page being read stay live
    page.goto(server.url + "/")
    first = shown_rows(page)
    page.locator(".listnav a[rel=next]").first.click()
    page.wait_for_url("**cursor=*")
    second = shown_rows(page)
    assert len(second) == 50 and not set(first) & set(second)
    # one not failed yet (the listing's order follows the populating threads, so a fixed row
    # is sometimes a failed document, and failing it again changes no count)
    watched = next(d for d in second[7:] if made.states[d] != "failed")
    rt.repo.update(
        watched,
        lambda s: s.fail("internal", f"{s.source_name}: changed while watched", 0.0) or True,
        actor="test",
        why="fail while the page is open",
    )
    row = page.locator(f"#rows tr[data-doc='{watched}']")
    expect(row.locator(".badge.st-failed")).to_be_visible(timeout=10_000)  # no reload
    expect(row.locator(".reason")).to_contain_text("changed while watched")
    assert shown_rows(page) == second  # still the second page
    made.states[watched] = "failed"  # the module's later tests count failures from `made`
    now_failed = sum(1 for s in made.states.values() if s == "failed")
    expect(page.locator("select[name=state] option[value=failed]")).to_have_text(
        f"failed ({now_failed})",  # the filter's counts follow
        timeout=10_000,  # read by the listing part's own poll, one fetch after the rows'
    )
    snap(page, shots, "library-second-page")
    page.locator(".listnav a[rel=prev]").first.click()
    page.wait_for_load_state()
    assert shown_rows(page) == first

    # without JavaScript: the same search and filter through the form's button
    plain = browser.new_context(viewport=SIZES["laptop"], java_script_enabled=False)  # type: ignore[arg-type]
    bare = plain.new_page()
    bare.goto(server.url + "/")
    bare.fill("input[name=q]", "BIOLOGY")
    bare.select_option("select[name=state]", "awaiting_decision")
    bare.click("form.filters button[type=submit]")
    bare.wait_for_url("**state=awaiting_decision*")
    waiting = {
        d
        for d, n in made.names.items()
        if "biology" in n.casefold() and made.states[d] == "awaiting_decision"
    }
    assert waiting and set(shown_rows(bare)) == waiting
    plain.close()
    laptop.close()


def test_a_batch_shows_its_failures_first(
    library: tuple[WebServer, Runtime, Made], browser: Browser, shots: Path
) -> None:
    server, _, made = library
    laptop = browser.new_context(viewport=SIZES["laptop"])  # type: ignore[arg-type]
    page = laptop.new_page()
    page.goto(server.url + "/")
    page.click("header nav a[href='/batches']")
    expect(page.locator("table.batches tbody tr")).to_have_count(len(made.batches))
    snap(page, shots, "library-batches")
    batch_id, members = next(iter(made.batches.items()))  # the one with an unreadable source
    page.click(f"a[href='/batches/{batch_id}']")
    expect(page.locator("h1")).to_have_text(batch_id)
    failed = [d for d in members if made.states[d] == "failed"]
    failures = page.locator("#failures")
    expect(failures.locator("tr[data-doc]")).to_have_count(len(failed))
    expect(failures.locator("ul.unreadable")).to_contain_text("No such file or directory")
    for reason in failures.locator("td.reason").all()[:5]:
        assert reason.locator(".err-code").inner_text() and len(reason.inner_text()) > 15
    others = page.locator("#documents")
    above = failures.bounding_box()
    below = others.bounding_box()
    assert above and below and above["y"] + above["height"] <= below["y"]  # failures first
    assert others.locator(".badge.st-failed").count() == 0
    snap(page, shots, "library-batch")

    phone = browser.new_context(viewport=SIZES["phone"], is_mobile=True, has_touch=True)  # type: ignore[arg-type]
    small = phone.new_page()
    for name, path in (("documents", "/?q=linear"), ("batch", f"/batches/{batch_id}")):
        small.goto(server.url + path)
        small.wait_for_load_state("networkidle")
        no_sideways_scroll(small)
        snap(small, shots, f"phone-library-{name}")
    phone.close()
    laptop.close()
