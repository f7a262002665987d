"""Optional-content layers a PDF hides when opened: a slide deck whose steps hold its text
is read with them shown (not refused as empty), and its PDF chunks verify; a layer that
hides a little (a solution key) stays hidden."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

import quire
from quire.workers.parse import parse_document

SLIDES = [
    ("Some myths", "ConTeXt looks a lot like plain TeX and expects users to program macros."),
    ("The truth", "On the average users do not have to program: configuring is no programming."),
    ("A few facts", "The distribution provides an ecosystem of scripts that run the jobs."),
    ("The mtxrun script", "It finds files, runs Lua scripts and manages the caches of a run."),
    ("Multiple products", "One source gives several results with the result option chosen."),
    ("Cleaning up", "After a run the purge options remove the auxiliary files it left."),
]


def _deck(path: Path, *, key: str | None = None) -> Path:
    """Six slides: the deck's running title shown, each slide's title and text in a "step"
    layer the default view hides; with `key`, the text shown and only `key` hidden."""
    doc = pymupdf.open()
    steps = [doc.add_ocg(f"step:{i}", on=False) for i in (1, 2)]
    hidden_key = doc.add_ocg("solutions", on=False) if key else 0
    for title, text in SLIDES:
        page = doc.new_page(width=400, height=300)
        page.insert_text((20, 20), "Breskens 2012 The scripts", fontsize=9)
        step = 0 if key else steps[0]
        page.insert_text((20, 60), title, fontsize=16, oc=step)
        for k, line in enumerate((text, f"{text[:-1]}, and more of it."), start=1):
            page.insert_text((20, 90 + 16 * k), line, fontsize=10, oc=0 if key else steps[1])
        if key:
            page.insert_text((20, 200), key, fontsize=10, oc=hidden_key)
    doc.save(path)
    return path


def test_a_deck_whose_steps_hold_its_text_is_read(tmp_path: Path) -> None:
    parsed = parse_document(_deck(tmp_path / "deck.pdf")).document
    text = " ".join(e.text for e in parsed.elements)
    assert all(t in text for t, _ in SLIDES) and SLIDES[3][1] in text
    [note] = [n for n in parsed.notes if "optional-content" in n.message]
    assert "2 optional-content layers" in note.message and "'step:1'" in note.message


def test_a_hidden_solution_key_stays_hidden(tmp_path: Path) -> None:
    parsed = parse_document(_deck(tmp_path / "key.pdf", key="Solution: 42")).document
    text = " ".join(e.text for e in parsed.elements)
    assert SLIDES[0][1] in text and "Solution" not in text
    assert not [n for n in parsed.notes if "optional-content" in n.message]


def test_the_deck_splits_and_its_pdf_chunks_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chunks copy pages without the layers' default view (they show every layer), and
    render-compare reads the source as the parse did: the deck verifies."""
    monkeypatch.chdir(tmp_path)
    result = quire.split(
        _deck(tmp_path / "deck.pdf"), tmp_path / "out", output_format="both", min_pages=1
    )
    assert result.state == "complete" and result.verification is not None
    assert result.verification.passed
    pdfs = [s.pdf for s in result.sessions if s.pdf is not None]
    assert pdfs and "Some myths" in pymupdf.open(pdfs[0])[0].get_text()
