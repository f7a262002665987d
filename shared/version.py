"""The installed distribution's version, without importing the package's public API."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def package_version() -> str:
    try:
        return version("quire")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"
