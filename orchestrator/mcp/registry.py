"""The tool registry: `@tool` turns a function `(args: In) -> Out` into an MCP tool whose
input and output schemas are those of its pydantic models, and whose description and
annotations say the same thing about what it changes; `register` adds one made otherwise
(from the table of agent-loop operations, orchestrator/operations.py)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_type_hints

from mcp import types
from pydantic import BaseModel

if TYPE_CHECKING:
    from quire.orchestrator.mcp.docs import McpContext

ToolFn = Callable[["McpContext", Any], BaseModel]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    fn: ToolFn  # (the server's context, the validated input)
    input: type[BaseModel]
    output: type[BaseModel]
    annotations: types.ToolAnnotations

    def tool(self) -> types.Tool:
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=self.input.model_json_schema(),
            output_schema=self.output.model_json_schema(),
            annotations=self.annotations,
        )


TOOLS: dict[str, ToolSpec] = {}


def register(
    name: str,
    title: str,
    doc: str,
    fn: ToolFn,
    input: type[BaseModel],
    output: type[BaseModel],
    *,
    changes: str | None,
    destructive: bool = False,
    idempotent: bool = False,
    open_world: bool = False,
) -> None:
    """Add a tool. `changes` says what it changes (None: read-only); the description `doc`
    ends with that, and the MCP annotations say the same."""
    kinds = [k for k, on in (("destructive", destructive), ("idempotent", idempotent)) if on]
    flags = f" ({', '.join(kinds)})" if kinds else ""
    state = f"Changes state{flags}: {changes}." if changes else "Read-only: changes nothing."
    TOOLS[name] = ToolSpec(
        name=name,
        title=title,
        description=" ".join(f"{doc} {state}".split()),
        fn=fn,
        input=input,
        output=output,
        annotations=types.ToolAnnotations(
            title=title,
            read_only_hint=changes is None,
            destructive_hint=destructive if changes else False,
            idempotent_hint=idempotent or changes is None,
            open_world_hint=open_world,
        ),
    )


def tool(
    title: str,
    *,
    changes: str | None,
    destructive: bool = False,
    idempotent: bool = False,
    open_world: bool = False,
) -> Callable[[Any], Any]:
    """Register a function `(ctx: McpContext, args: In) -> Out` as a tool: its name,
    docstring and type hints give the tool's name, description and schemas (`ctx`: what
    the server was started with)."""

    def add(fn: ToolFn) -> ToolFn:
        hints = get_type_hints(fn)
        register(
            fn.__name__,
            title,
            inspect.getdoc(fn) or "",
            fn,
            hints["args"],
            hints["return"],
            changes=changes,
            destructive=destructive,
            idempotent=idempotent,
            open_world=open_world,
        )
        return fn

    return add
