"""An MCP server (stdio) that lets an AI host drive Quire's agent loop.

The host's own model reviews topic changes, picks cuts among the safe candidates, writes
chunk analyses and the study index; Quire validates every decision exactly as it validates
an LLM backend's (the same functions as the CLI agent loop, `orchestrator.agent`) and keeps
the revision-checked state. The runtime comes from the settings the server read at its start
(`McpContext`, handed to every tool), so the same server works on the embedded default and
against the distributed stack.

Every tool has a pydantic input model and output model (their JSON schemas are the tool's
input and output schemas) and says whether it changes state (MCP tool annotations, and the
last line of its description). A refused or stale commit is a structured error result
(`{"error": {"code", "message", "recover", ...}}`, isError) the host can act on; it never
ends the session. Provider keys are never tool inputs: backends read them from the
server's environment.

- `schemas.py`: the tools' input and output models.
- `registry.py`: `@tool` and the registry (schemas, descriptions, annotations).
- `tools.py`: the tools; `docs.py`: finding a document, what next, driving it;
  `exports.py`: output folders.
- `errors.py`: failures as structured results; `server.py`: the protocol side, `serve()`.
- `install.py`: registration snippets for hosts (needs no MCP SDK).

Extra environment: QUIRE_MCP_RUNS_DIR (where isolated run folders go; default
QUIRE_STATE_DIR/runs) and QUIRE_MCP_PROCESSES (embedded worker processes; default: CPUs).
"""
