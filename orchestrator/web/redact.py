"""Server paths out of what the API shows: an error message or a document's failure reason
names a file by its name, never by where it lies on the server (the temporary copy of an
upload, the store, the state folder, the server's working folder or home)."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path, PurePosixPath

from quire.workers.runtime import Runtime

# a root begins a path or a file:// URL (not the middle of another path, as in
# s3://bucket/tmp/...), which goes on up to a quote, a space or punctuation
_BEFORE = r"(?:file://|(?<![\w.:/-]))"
_REST = r"(?![^/\s'\"(),;])(?:/[^\s'\"(),;]*)?"


def server_roots(rt: Runtime | None = None) -> list[str]:
    """The server's folders, longest first (a folder inside another is hidden whole)."""
    roots = {tempfile.gettempdir(), os.getcwd(), str(Path.home())}
    if rt is not None:
        roots.add(str(rt.env.state_dir.resolve()))
        if rt.local_root is not None:
            roots.add(str(rt.local_root))
    found = {r.rstrip("/") for r in roots} | {os.path.realpath(r) for r in roots}
    return sorted((r for r in found if len(r) > 1), key=len, reverse=True)


def hide_paths(text: str, roots: list[str]) -> str:
    """`text` with every path under one of `roots` replaced by its file name."""
    for root in roots:
        text = re.sub(
            _BEFORE + re.escape(root) + _REST,
            lambda m: PurePosixPath(m.group(0)).name or "…",
            text,
        )
    return text
