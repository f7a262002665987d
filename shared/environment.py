"""The one reader of Quire's environment variables: `QUIRE_<FIELD>` in any case, an empty
variable unset. Standard library only, so the `quire` command's front door
(orchestrator/warm.py) can read its two settings before anything else is imported; every
other reader goes through the settings model (settings.py), which validates the values."""

from __future__ import annotations

import os

PREFIX = "QUIRE_"


def quire_variables() -> dict[str, str]:
    """Every set `QUIRE_*` variable, by its field name (`store_url`)."""
    prefix = PREFIX.lower()
    return {
        key.lower().removeprefix(prefix): value
        for key, value in os.environ.items()
        if value and key.lower().startswith(prefix)
    }
