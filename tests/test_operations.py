"""The agent loop's operations table (orchestrator/operations.py) is what both the CLI
commands and the MCP tools are made from: each row's command line spells exactly its input
model's fields, in order, and each side has one command or tool per row."""

from __future__ import annotations

import pytest

from quire.orchestrator.cli import main
from quire.orchestrator.mcp import schemas
from quire.orchestrator.operations import OPERATIONS


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_the_command_line_spells_the_input_model(name: str) -> None:
    op = OPERATIONS[name]
    fields = list(getattr(schemas, op.input).model_fields)
    assert fields == ["doc_id", *(p.field for p in op.params)]
    assert issubclass(getattr(schemas, op.output), schemas.DocOut)
    command = main.commands[op.command]
    assert [p.name for p in command.params] == ["ident", *(p.field for p in op.params)]
    assert command.help == op.help


def test_every_row_is_a_tool_and_a_command() -> None:
    from quire.orchestrator.mcp.registry import TOOLS
    from quire.orchestrator.mcp.tools import get_status  # noqa: F401  (registers the tools)

    for op in OPERATIONS.values():
        spec = TOOLS[op.tool]
        assert (spec.input, spec.output) == (
            getattr(schemas, op.input),
            getattr(schemas, op.output),
        )
        assert spec.title == op.title
    assert len({op.command for op in OPERATIONS.values()}) == len(OPERATIONS)
