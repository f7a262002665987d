"""One set of run defaults: the library functions, the commands, the HTTP API and MCP all take
them from `RunChoices` (and the environment's from `Settings`), so none can drift alone."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import click
import pytest
from pdf_samples import build_manual
from scans import rasterize_pages

import quire
from quire.orchestrator.cli import main
from quire.orchestrator.mcp.schemas import SplitDocumentIn
from quire.orchestrator.web.submit import SubmitSettings
from quire.shared.config import DEFAULT_DECIDER, DEFAULTS, RunChoices, RunSettings
from quire.shared.settings import ENV_NAMES, Settings

CHOICES = list(RunChoices.model_fields)
OCR_CHOICES = ["ocr", "ocr_lang", "strict"]
# which library function does what which command does
TWINS = {"split": "run", "parse": "parse"}


def option_defaults(command: str) -> dict[str, Any]:
    cmd = main.commands[command]
    assert isinstance(cmd, click.Command)
    return {p.name: p.default for p in cmd.params if p.name}


def test_the_commands_take_the_run_defaults() -> None:
    for command, fields in (("run", CHOICES), ("batch", CHOICES), ("parse", OCR_CHOICES)):
        defaults = option_defaults(command)
        for field in fields:
            assert defaults[field] == getattr(DEFAULTS, field), (command, field)
    assert option_defaults("run")["decider"] == DEFAULT_DECIDER


def test_a_library_function_has_its_commands_defaults() -> None:
    for function, command in TWINS.items():
        params = inspect.signature(getattr(quire, function)).parameters
        options = option_defaults(command)
        shared = [name for name in params if name in options]
        # every run choice the command takes, the function takes too
        assert set(shared) >= {f for f in CHOICES if f in options}, function
        for name in shared:
            assert params[name].default == options[name], (function, name)


def test_the_http_api_and_mcp_take_the_run_defaults() -> None:
    for model in (SubmitSettings, SplitDocumentIn):
        for field in CHOICES:
            assert model.model_fields[field].get_default() == getattr(DEFAULTS, field), (
                model.__name__,
                field,
            )
    # the one deliberate difference: an MCP host is the agent that decides the boundaries
    assert SplitDocumentIn.model_fields["decider"].get_default() == "agent"


def test_the_defaults_make_the_stored_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a clean environment, choosing nothing gives the settings a session stores by
    default: OCR `auto`, the 5-12 page window, and so on."""
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    chosen = DEFAULTS.settings(env=Settings())
    assert chosen == RunSettings()
    assert chosen.ocr == Settings().ocr == "auto"
    assert (chosen.plan.min_pages, chosen.plan.max_pages) == (5, 12)


def test_settings_read_quire_variables_as_their_types(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each field not given is read from QUIRE_<FIELD> (any case), its text parsed as the
    field's type; an empty variable is unset; what is given wins; a bad value names the
    variable."""
    from pydantic import ValidationError

    from quire.shared.errors import SettingsError
    from quire.shared.settings import load_settings

    monkeypatch.setenv("QUIRE_MAX_DOC_PAGES", "250")
    monkeypatch.setenv("quire_strict_backend", "true")
    monkeypatch.setenv("QUIRE_STATE_DIR", "/tmp/elsewhere")
    monkeypatch.setenv("QUIRE_API_TOKEN", "t" * 24)
    monkeypatch.setenv("QUIRE_OCR", "")
    s = Settings(max_doc_pages=9)
    assert s.max_doc_pages == 9 and s.strict_backend is True and s.ocr == "auto"
    assert s.state_dir == Path("/tmp/elsewhere") and s.api_token is not None
    assert s.api_token.get_secret_value() == "t" * 24 and "t" * 24 not in repr(s)
    assert Settings().max_doc_pages == 250
    monkeypatch.setenv("QUIRE_MAX_DOC_PAGES", "many")
    with pytest.raises(ValidationError):
        Settings()
    with pytest.raises(SettingsError, match="QUIRE_MAX_DOC_PAGES"):
        load_settings()


def test_quire_parse_reads_scanned_pages_like_quire_parse(tmp_path: Path) -> None:
    """`quire.parse` OCRs by default, as the command does (it used to default to off)."""
    scanned = tmp_path / "scanned.pdf"
    rasterize_pages(build_manual(tmp_path / "manual.pdf"), scanned, {2}, dpi=200)
    assert [o.page for o in quire.parse(scanned).ocr_pages] == [2]
    off = quire.parse(scanned, ocr="off")
    assert not off.ocr_pages and [s.page for s in off.skipped_pages] == [2]
