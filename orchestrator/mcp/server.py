"""The protocol side: list the registered tools, run a call in a worker thread and turn its
result or failure into a `CallToolResult`, and serve over stdio."""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from pydantic import ValidationError

from quire.orchestrator.mcp import errors
from quire.orchestrator.mcp import tools as _tools  # noqa: F401  (importing registers them)
from quire.orchestrator.mcp.docs import McpContext
from quire.orchestrator.mcp.registry import TOOLS
from quire.orchestrator.mcp.schemas import ToolFailure
from quire.shared.settings import Settings

INSTRUCTIONS = """\
Quire cuts long PDF/DOCX textbooks into verified study-sized chunks; you make the judgement
calls and Quire checks every one. Typical session:
1. split_document(path) parses the file and stops for your decisions (returns doc_id).
2. Optional: get_topic_change_review_batch / commit_topic_change_reviews to vote on topic
   changes yourself, or run_parallel_topic_reviews to have the configured backend do it.
3. get_boundary_context / commit_boundary until the context is null (the plan is complete).
4. write_chunks writes and verifies the chunks (and exports the output folder).
5. get_chunk_analysis_context / commit_chunk_analysis per chunk; get_boundary_repair_context /
   repair_chunk_boundaries to split an incoherent chunk; write_chunks again after these.
6. get_study_index_context / commit_study_index (every chunk must have been read first).
verify_integrity re-checks an output folder; get_status shows where a document is.
Every commit names the revision its context was read at. An error with code "conflict" means
the document changed meanwhile: nothing was committed; re-read the context and decide again.
"""


def _result(data: dict[str, Any], *, error: bool = False) -> types.CallToolResult:
    text = json.dumps(data, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=data, is_error=error
    )


def _error(failure: ToolFailure) -> types.CallToolResult:
    return _result({"error": failure.model_dump(mode="json")}, error=True)


def call_tool_sync(ctx: McpContext, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """Run one tool call; every failure becomes a structured error result."""
    spec = TOOLS.get(name)
    if spec is None:
        return _error(errors.failure("unknown_tool", f"no tool named {name!r}"))
    try:
        args = spec.input.model_validate(arguments)
    except ValidationError as exc:
        return _error(errors.invalid_arguments(exc))
    try:
        out = spec.fn(ctx, args)
    except Exception as exc:  # a QuireError is the host's to act on; anything else a bug
        return _error(errors.raised(ctx, name, exc, arguments))
    return _result(out.model_dump(mode="json"))


def build_server(started: McpContext) -> Server[Any]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        quire_version = version("quire")
    except PackageNotFoundError:
        quire_version = "0"

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[spec.tool() for spec in TOOLS.values()])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        # stage work blocks (parsing, writing, rendering): keep the event loop responsive
        return await anyio.to_thread.run_sync(
            call_tool_sync, started, params.name, dict(params.arguments or {})
        )

    return Server(
        "quire",
        version=quire_version,
        title="Quire",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _serve(ctx: McpContext) -> None:
    server = build_server(ctx)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def serve(settings: Settings, *, processes: int | None = None) -> None:
    """Serve over stdin/stdout until the host closes the connection (logs go to stderr);
    `processes`: embedded worker processes (else QUIRE_MCP_PROCESSES, else CPUs)."""
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    anyio.run(_serve, McpContext(settings, processes or settings.mcp_processes))
