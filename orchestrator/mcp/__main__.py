"""`python -m quire.orchestrator.mcp` serves over stdio (what `quire mcp install` registers)."""

from quire.orchestrator.mcp.server import serve

serve()
