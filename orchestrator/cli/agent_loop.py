"""The agent loop: an external agent reads contexts and commits decisions (JSON on stdout).
One command per row of the operations table (orchestrator/operations.py), which the MCP
tools are made from too."""

from __future__ import annotations

import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import click

from quire.orchestrator.cli.app import clean_errors, emit, err, main, runtime
from quire.orchestrator.operations import OPERATIONS, Operation, Param
from quire.orchestrator.service import resolve_doc


def _continue(rt: Any, doc_id: str) -> None:
    """After a commit that moved the document on, drive it to its next stop."""
    from quire.orchestrator.service import process_documents

    if rt.repo.load(doc_id).state not in ("awaiting_decision", "complete", "failed"):
        process_documents(rt, [doc_id], console=err)


def _option(p: Param) -> Callable[[Any], Any]:
    kinds: dict[str, dict[str, Any]] = {
        "int": {"type": int},
        "str": {},
        "choice": {"type": click.Choice(list(p.choices))},
        "many": {"multiple": True},
        "file": {"type": click.File("r")},
        "json-file": {"type": click.File("r")},
    }
    settings: dict[str, Any] = {**kinds[p.kind], "help": p.help}
    if p.kind != "many":
        settings["required"] = p.required
    if not p.required and p.kind == "str":
        settings["default"] = None
    return click.option(p.flag, p.field, **settings)


def _value(p: Param, given: Any) -> Any:
    """What the loop is handed: a file's text (or its JSON), else the value as read."""
    if p.kind == "file":
        return given.read()
    if p.kind == "json-file":
        return json.load(given)
    return given


def _command(op: Operation) -> click.Command:
    def command(ident: str, **given: Any) -> None:
        rt = runtime()
        doc_id = resolve_doc(rt, ident)
        values = {p.field: _value(p, given[p.field]) for p in op.params}
        result = op.call(rt, doc_id, SimpleNamespace(doc_id=doc_id, **values))
        if op.drives:
            _continue(rt, doc_id)
        emit(op.cli_output(result))

    fn: Any = clean_errors(command)
    for decorate in reversed([click.argument("ident"), *map(_option, op.params)]):
        fn = decorate(fn)
    return main.command(op.command, help=op.help)(fn)


COMMANDS = {op.command: _command(op) for op in OPERATIONS.values()}
