"""The tool registry: `@tool` turns a function `(args: In) -> Out` into an MCP tool whose
input and output schemas are those of its pydantic models, and whose description and
annotations say the same thing about what it changes."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_type_hints

from mcp import types
from pydantic import BaseModel


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    fn: Callable[[Any], BaseModel]
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


def tool(
    title: str,
    *,
    changes: str | None,
    destructive: bool = False,
    idempotent: bool = False,
    open_world: bool = False,
) -> Callable[[Any], Any]:
    """Register a tool. `changes` says what it changes (None: read-only); the description
    ends with that, and the MCP annotations say the same."""

    def register(fn: Callable[[Any], BaseModel]) -> Callable[[Any], BaseModel]:
        hints = get_type_hints(fn)
        kinds = [k for k, on in (("destructive", destructive), ("idempotent", idempotent)) if on]
        flags = f" ({', '.join(kinds)})" if kinds else ""
        state = f"Changes state{flags}: {changes}." if changes else "Read-only: changes nothing."
        TOOLS[fn.__name__] = ToolSpec(
            name=fn.__name__,
            title=title,
            description=" ".join(f"{inspect.getdoc(fn)} {state}".split()),
            fn=fn,
            input=hints["args"],
            output=hints["return"],
            annotations=types.ToolAnnotations(
                title=title,
                read_only_hint=changes is None,
                destructive_hint=destructive if changes else False,
                idempotent_hint=idempotent or changes is None,
                open_world_hint=open_world,
            ),
        )
        return fn

    return register
