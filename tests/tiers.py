"""Test tiers: the corpus tier is every test that reads `../shared/corpus`; the rest (unit and
service tests) use documents in the repository or ones they generate.

A test belongs to the corpus tier when it carries `@pytest.mark.corpus` or when its code
names the corpus — `CORPUS`, `ALL_DOCS`, `DOCS`, `BIG`, `UNUSABLE`, or any name of its module
(a constant, helper or fixture) defined from them — so a new corpus test is tiered without
anyone remembering to mark it. Without the corpus folder the tier is deselected, never
skipped, and the run says so; CI (`.ci/run`) requires the folder.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

CORPUS_NAMES = frozenset({"CORPUS", "ALL_DOCS", "DOCS", "BIG", "UNUSABLE"})


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _defined(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    return []


@functools.cache
def corpus_names(module_path: Path) -> frozenset[str]:
    """Every top-level name of the module that reads the corpus, directly or through
    another such name (a fixed point over the module's definitions)."""
    tree = ast.parse(module_path.read_text(encoding="utf-8"))
    uses = {name: _names(node) for node in tree.body for name in _defined(node)}
    tainted = set(CORPUS_NAMES)
    changed = True
    while changed:
        changed = False
        for name, used in uses.items():
            if name not in tainted and used & tainted:
                tainted.add(name)
                changed = True
    return frozenset(tainted)


def needs_corpus(module_path: Path, function: str, fixtures: list[str]) -> bool:
    names = corpus_names(module_path)
    return function in names or any(f in names for f in fixtures)
