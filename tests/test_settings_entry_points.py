"""Settings in, once: only entry points read the `QUIRE_*` environment.

Every module under shared/, workers/ and orchestrator/ is parsed (ast, not imported) and
any call of `load_settings()` or of a `from_env()` without arguments, any construction of
`Settings` / `Environment` (models that read the environment for every
field not given), and any read of a `QUIRE_`-prefixed variable through `os.environ` /
`os.getenv`, fails the test unless the module is in ALLOWED. Everything below an entry
point is handed the settings it needs (`Runtime.env`, arguments), so a value is read once
and means the same everywhere.
The SDKs' own variables (OPENAI_BASE_URL, TESSDATA_PREFIX...) are not Quire's to pass."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("shared", "workers", "orchestrator")

# module (relative to the checkout) -> why it may read the environment
ALLOWED = {
    "shared/settings.py": "defines `load_settings()`, the one place `Settings()` is read",
    "orchestrator/cli/app.py": "the `quire` command group: reads the settings once per command",
    "orchestrator/mcp/__main__.py": "`python -m quire.orchestrator.mcp`, what hosts start",
    "workers/app.py": "the Celery worker's entry: Celery builds the app at import",
}


def _qualname(node: ast.expr) -> str:
    """`os.environ.get` for an attribute chain, `load_settings` for a name; '' otherwise."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _quire_key(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and str(node.value).startswith("QUIRE_")


def violations(source: str) -> list[str]:
    """Where a module reads the environment's settings itself, as `line: what`."""
    tree = ast.parse(source)
    aliases = {  # `from ... import load_settings as read`: `read` is load_settings
        a.asname: a.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for a in node.names
        if a.asname
    }
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _qualname(node.func)
            last = name.rsplit(".", 1)[-1]
            last = aliases.get(last, last)
            if last in ("load_settings", "from_env") and not node.args and not node.keywords:
                found.append(f"{node.lineno}: {name}()")
            elif last in ("Settings", "Environment"):
                found.append(f"{node.lineno}: {name}(...)")
            elif name in ("os.environ.get", "os.getenv", "environ.get", "getenv") and (
                node.args and _quire_key(node.args[0])
            ):
                found.append(f"{node.lineno}: {name}({ast.unparse(node.args[0])})")
        elif (
            isinstance(node, ast.Subscript)
            and _qualname(node.value) in ("os.environ", "environ")
            and _quire_key(node.slice)
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def test_only_entry_points_read_the_settings() -> None:
    assert len(modules()) > 100  # the packages are where this test looks for them
    offending = {
        str(path.relative_to(ROOT)): found
        for path in modules()
        if str(path.relative_to(ROOT)) not in ALLOWED
        and (found := violations(path.read_text(encoding="utf-8")))
    }
    assert offending == {}, "read the settings at an entry point and pass them down"


def test_the_entry_points_allowed_exist_and_read_the_settings() -> None:
    """A stale entry (moved, or no longer reading anything) must leave the list."""
    for module in ALLOWED:
        assert violations((ROOT / module).read_text(encoding="utf-8")), module


@pytest.mark.parametrize(
    "line",
    [
        "from quire.shared.settings import load_settings\nx = load_settings().ocr",
        "from quire.workers.runtime import Runtime\nrt = Runtime.from_env()",
        "from quire.shared.config import Environment\nenv = Environment.from_env()",
        "import os\nn = os.environ.get('QUIRE_MCP_PROCESSES')",
        "import os\nos.environ['QUIRE_MCP_PROCESSES'] = '2'",
        "import os\nn = os.environ['QUIRE_STATE_DIR']",
        "import os\nn = os.getenv('QUIRE_OCR', 'auto')",
        "from os import environ\nn = environ.get('QUIRE_OCR')",
        "from quire.shared.settings import Settings\ns = Settings(ocr='off')",
        "from quire.shared.settings import load_settings as read\nx = read()",
        "from quire.shared.config import Environment\nenv = Environment(state_dir=tmp)",
    ],
)
def test_each_kind_of_read_is_found(line: str) -> None:
    assert violations(line)


@pytest.mark.parametrize(
    "line",
    [
        "import os\nurl = os.environ.get('OPENAI_BASE_URL')",  # the SDK's own variable
        "import os\nos.environ.setdefault('OMP_THREAD_LIMIT', '1')",
        "from quire.workers.runtime import Runtime\nrt = Runtime.from_env(settings)",
        "from quire.shared.rag import load_settings\nx = load_settings(data)",  # RAG's own
        "from quire.shared.config import RunSettings\nrun = RunSettings(ocr='off')",
    ],
)
def test_what_is_not_a_settings_read(line: str) -> None:
    assert not violations(line)
