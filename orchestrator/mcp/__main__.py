"""`python -m quire.orchestrator.mcp` serves over stdio (what `quire mcp install` registers)."""

from quire.orchestrator.mcp.server import serve
from quire.shared.settings import load_settings

serve(load_settings())  # an entry point: the settings are read once, here
