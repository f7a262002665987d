"""`python -m quire.orchestrator.mcp` serves over stdio (what `quire mcp install` registers)."""

import sys

from quire.orchestrator.mcp.server import serve
from quire.shared.errors import SettingsError
from quire.shared.settings import load_settings

try:  # an entry point: the settings are read once, here, and handed to every tool call
    settings = load_settings()
except SettingsError as exc:  # one line on stderr (the host's log), as `quire` prints it
    print(f"quire: error ({exc.code}): {exc}", file=sys.stderr)
    sys.exit(2)
serve(settings)
