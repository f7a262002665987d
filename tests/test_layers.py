"""The house's floors only point down: quire.shared <- quire.workers <- quire.orchestrator <-
quire.api. That is import-linter's contract in pyproject.toml (`lint-imports`, run by
scripts/test), which also keeps every floor from importing the package root.

Here: walks every module's imports (also those inside functions, which run just as surely) and
fails on an import cycle between modules and on any import of the bare top-level names that
`quire/` maps (they are not installed); and an internal module loads without the pipeline.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLOORS = ("shared", "workers", "orchestrator")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("quire", *parts))


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for floor in FLOORS for p in sorted((ROOT / floor).rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The quire modules `name` imports (a `from pkg import mod` counts as pkg.mod)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in found if m in known and m != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def test_an_internal_module_loads_without_the_pipeline() -> None:
    """The package root imports its public names on first use: one internal module (what a
    worker or a tool needs) must not load the orchestrator, the workers or the public API."""
    code = (
        "import sys, quire.shared.keys; "
        "print(sorted(m for m in sys.modules if m.startswith(('quire.api', 'quire.workers', "
        "'quire.orchestrator'))))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_no_import_cycles() -> None:
    graph = _graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                cycles.append([*path[path.index(dep) :], dep])
            elif dep not in state:
                visit(dep, [*path, dep])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    # a package's __init__ re-exporting its own modules is not a cycle worth a finding
    real = [c for c in cycles if not all(c[0].startswith(m) or m.startswith(c[0]) for m in c)]
    assert real == []


@pytest.mark.parametrize("folder", ["shared", "workers", "orchestrator", "tests", "bench"])
def test_nothing_imports_the_bare_folder_names(folder: str) -> None:
    bare = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            bare += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in FLOORS]
    assert bare == []
