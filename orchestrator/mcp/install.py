"""Registering Quire's MCP server with AI hosts: printed snippets and a project `.mcp.json`.

The server is started as `<this python> -m quire.orchestrator.mcp`: the interpreter that
has Quire installed, by absolute path, so hosts need no PATH or virtualenv set-up. Quire's
own settings (store, state dir, Redis, broker, backend names) are copied from the environment,
local paths made absolute so the host's working directory does not matter. Secrets never
go into these files: provider keys and S3 credentials are read from the server's
environment, and a URL that carries a password is left out with a note.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from quire.shared.errors import QuireError

SERVER_NAME = "quire"
SETTINGS = (
    "QUIRE_STORE_URL",
    "QUIRE_STATE_DIR",
    "QUIRE_REDIS_URL",
    "QUIRE_BROKER_URL",
    "QUIRE_S3_ENDPOINT_URL",
    "QUIRE_REVIEW_BACKEND",
    "QUIRE_OPENAI_MODEL",
    "QUIRE_ANTHROPIC_MODEL",
    "QUIRE_AGENT_COMMAND",
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "QUIRE_MCP_RUNS_DIR",
    "QUIRE_MCP_PROCESSES",
)
LOCAL_PATHS = ("QUIRE_STORE_URL", "QUIRE_STATE_DIR", "QUIRE_MCP_RUNS_DIR")
SECRETS_NOTE = (
    "Provider keys (OPENAI_API_KEY, ANTHROPIC_API_KEY) and S3 credentials are read from the "
    "server's environment: set them where the host runs, never in these files."
)


@dataclass
class Registration:
    command: str
    args: list[str]
    env: dict[str, str]
    omitted: list[str] = field(default_factory=list)  # settings that carry a password

    @property
    def argv(self) -> list[str]:
        return [self.command, *self.args]


def _has_password(value: str) -> bool:
    try:
        return "://" in value and urlsplit(value).password is not None
    except ValueError:
        return True  # unparsable: do not risk writing it


def registration(project: Path, environ: Mapping[str, str]) -> Registration:
    """How hosts should start the server for `project` (its `.quire/` holds the state
    unless `environ`, the caller's environment variables, says otherwise): the variables
    are copied as written, for the server to read at its start."""
    env: dict[str, str] = {}
    omitted: list[str] = []
    for name in SETTINGS:
        value = environ.get(name)
        if not value:
            continue
        if _has_password(value):
            omitted.append(name)
            continue
        if name in LOCAL_PATHS and "://" not in value:
            value = str((project / value).resolve())
        env[name] = value
    env.setdefault("QUIRE_STATE_DIR", str((project / ".quire").resolve()))
    if "QUIRE_STORE_URL" not in omitted:
        env.setdefault("QUIRE_STORE_URL", str((project / ".quire" / "store").resolve()))
    return Registration(sys.executable, ["-m", "quire.orchestrator.mcp"], env, omitted)


def server_entry(reg: Registration) -> dict[str, object]:
    """The `mcpServers` entry used by Claude Code's and Cursor's JSON files."""
    return {"command": reg.command, "args": reg.args, "env": reg.env}


def _toml(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string


def snippets(reg: Registration) -> str:
    # the name goes first: `--env` is variadic and would swallow a name after it
    env_flags = " ".join(f"--env {shlex.quote(f'{k}={v}')}" for k, v in reg.env.items())
    claude = (
        f"claude mcp add {SERVER_NAME} --transport stdio --scope project {env_flags} -- "
        + shlex.join(reg.argv)
    )
    codex = "\n".join(
        [
            f"[mcp_servers.{SERVER_NAME}]",
            f"command = {_toml(reg.command)}",
            f"args = [{', '.join(_toml(a) for a in reg.args)}]",
            "startup_timeout_sec = 30",
            "tool_timeout_sec = 3600  # splitting a long document takes a while",
            "",
            f"[mcp_servers.{SERVER_NAME}.env]",
            *(f"{k} = {_toml(v)}" for k, v in reg.env.items()),
        ]
    )
    cursor = json.dumps({"mcpServers": {SERVER_NAME: server_entry(reg)}}, indent=2)
    opencode = json.dumps(
        {
            "$schema": "https://opencode.ai/config.json",
            "mcp": {
                SERVER_NAME: {
                    "type": "local",
                    "command": reg.argv,
                    "environment": reg.env,
                    "enabled": True,
                }
            },
        },
        indent=2,
    )
    parts = [
        "# Claude Code (project scope writes .mcp.json; --scope user for every project)",
        claude,
        "",
        "# Codex: ~/.codex/config.toml (or .codex/config.toml in a trusted project)",
        codex,
        "",
        "# Cursor: .cursor/mcp.json; also the project-level .mcp.json read by Claude Code",
        cursor,
        "",
        "# OpenCode: opencode.json",
        opencode,
        "",
        f"# {SECRETS_NOTE}",
    ]
    parts += [
        f"# {name} carries a password and was left out: set it in the host's environment."
        for name in reg.omitted
    ]
    return "\n".join(parts)


def write_project_config(project: Path, reg: Registration) -> Path:
    """Add (or replace) the quire entry of `project/.mcp.json`, keeping other servers."""
    path = project / ".mcp.json"
    config: dict[str, object] = {}
    if path.exists():
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise QuireError(f"{path} is not valid JSON ({exc}); fix or remove it") from exc
        if not isinstance(config, dict):
            raise QuireError(f"{path} does not hold a JSON object")
    servers = config.get("mcpServers")
    if not isinstance(servers, dict):
        servers = {}
    servers[SERVER_NAME] = server_entry(reg)
    config["mcpServers"] = servers
    tmp = path.with_name(".mcp.json.tmp")
    tmp.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path
