"""The consoles Quire prints to. They read no markup and no emoji codes: what they print holds
the user's own text, and a file named "notes:fire: [bold]week 1.pdf" is printed as it is
(colour comes from styled text, `cli.app.flagged`)."""

from __future__ import annotations

from typing import Any

from rich.console import Console


def text_console(**options: Any) -> Console:
    """A rich `Console` (with `options`) that prints text as it is."""
    return Console(markup=False, emoji=False, **options)
