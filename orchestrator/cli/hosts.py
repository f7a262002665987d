"""MCP: AI hosts drive the agent loop (orchestrator/mcp/)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from quire.orchestrator.cli.app import clean_errors, current_settings, err, main, require_extra


@main.group()
def mcp() -> None:
    """The MCP server that lets AI hosts (Claude Code, Codex, Cursor...) drive the agent loop."""


@mcp.command("serve")
@click.option(
    "--processes",
    type=int,
    default=None,
    help="Embedded mode: local worker processes [env QUIRE_MCP_PROCESSES; CPUs].",
)
@clean_errors
def mcp_serve(processes: int | None) -> None:
    """Serve Quire's agent loop over MCP on stdin/stdout."""
    require_extra("mcp", "mcp", "anyio")
    from quire.orchestrator.mcp.server import serve

    serve(current_settings(), processes=processes)


@mcp.command("install")
@click.option("--write", is_flag=True, help="Also write the project-level .mcp.json.")
@click.option(
    "--project",
    type=click.Path(path_type=Path, file_okay=False),
    default=".",
    show_default=True,
    help="The project the server works for.",
)
@clean_errors
def mcp_install(write: bool, project: Path) -> None:
    """Print registration snippets for common MCP hosts (with --write, write .mcp.json)."""
    from quire.orchestrator.mcp.install import registration, snippets, write_project_config

    reg = registration(project.resolve(), os.environ)  # copied into the hosts' configs
    click.echo(snippets(reg))
    if write:
        err.print(f"wrote {write_project_config(project.resolve(), reg)}", highlight=False)
