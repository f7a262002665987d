"""The `quire` command line: a thin layer over the same functions the workers call. `main`
is the command group (app.py); each module here adds one family of commands to it."""

from quire.orchestrator.cli import (  # noqa: F401  (each registers its commands on main)
    agent_loop,
    batches,
    documents,
    hosts,
    services,
    status,
)
from quire.orchestrator.cli.app import main
from quire.orchestrator.cli.services import metrics

__all__ = ["main", "metrics"]
