"""The house's floors only point down: quire.shared <- quire.workers <- quire.orchestrator.

Walks every module's imports (also those inside functions, which run just as surely) and
fails on an import from a lower floor to a higher one, on an import cycle between modules,
and on any import of the bare top-level names that `quire/` maps (they are not installed).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLOORS = {"shared": 0, "workers": 1, "orchestrator": 2}


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


def _floor(module: str) -> int:
    return FLOORS[module.split(".")[1]]


def test_no_floor_imports_a_higher_floor() -> None:
    upward = sorted(
        f"{m} imports {d}" for m, deps in _graph().items() for d in deps if _floor(d) > _floor(m)
    )
    assert upward == []


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
