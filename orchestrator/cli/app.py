"""The `quire` command group, its consoles and the way every command reports errors and
prints JSON; the commands are in the modules next to this one, by family."""

from __future__ import annotations

import atexit
import gc
import logging
import sys
from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar

import click
from rich.text import Text

from quire.orchestrator.consoles import text_console
from quire.shared.errors import NotInstalledError, QuireError, SettingsError
from quire.shared.settings import Settings, load_settings

if TYPE_CHECKING:
    from quire.workers.runtime import Runtime

err = text_console(stderr=True, soft_wrap=True)
out = text_console()
F = TypeVar("F", bound=Callable[..., Any])


def flagged(label: str, rest: str, style: str = "red") -> Text:
    """`label` in `style`, then `rest` as it is."""
    return Text.assemble((label, style), " ", rest)


def require_extra(extra: str, *modules: str) -> None:
    """One line naming the extra to install when a command's optional packages are missing."""
    import importlib.util

    if any(importlib.util.find_spec(m) is None for m in modules):
        raise NotInstalledError(
            f"this command needs the {extra} extra: pip install 'quire[{extra}]'"
        )


def clean_errors(fn: F) -> F:
    """Bad input and refused decisions print one clear line and exit non-zero."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except QuireError as exc:
            err.print(flagged(f"quire: error ({exc.code}):", str(exc)))
            sys.exit(2)

    return wrapper  # type: ignore[return-value]


force_option = click.option(
    "--force",
    is_flag=True,
    default=False,  # stated: Click 8.3+ leaves an unstated flag default UNSET
    help="Write into a non-empty output folder that Quire did not write (its files stay).",
)


@click.group()
@click.version_option(package_name="quire", prog_name="quire")
@click.option("-v", "--verbose", is_flag=True, help="Log progress to stderr.")
@click.pass_context
def main(ctx: click.Context, verbose: bool) -> None:
    """Quire: cut long textbooks into verified study-sized sessions."""
    from quire.shared.logs import configure_logging

    # A command's objects die with its process: the interpreter's last collection of them
    # and the destructors it runs took 0.15-0.2 s of a one-page `quire run`'s 0.8-1 s.
    # Frozen at exit (after the exit handlers the command's work registers), they are left
    # to the OS; stores and files are closed by then, their writes renamed as they went.
    atexit.register(gc.freeze)

    try:  # every QUIRE_* setting is checked once, here, before any command runs
        settings = load_settings()
    except SettingsError as exc:
        err.print(flagged(f"quire: error ({exc.code}):", str(exc)))
        sys.exit(2)
    ctx.obj = settings  # the one settings object every command passes down
    configure_logging(logging.INFO if verbose else logging.WARNING, settings.log_format)


def current_settings() -> Settings:
    """The settings `main` read for this command (from the environment, once)."""
    found = click.get_current_context().find_root().obj
    assert isinstance(found, Settings), "a command runs under `main`"
    return found


def runtime() -> Runtime:
    """The store, revision store and session repo this command's settings name."""
    from quire.workers.runtime import Runtime

    return Runtime.from_env(current_settings())


def emit(data: Any) -> None:
    import json

    from pydantic import BaseModel

    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json")
    click.echo(json.dumps(data, ensure_ascii=False, indent=1))
