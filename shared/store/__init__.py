"""Object storage: a folder (LocalStore, the embedded default) or S3 (S3Store).

`open_store(url)` picks the backend from `QUIRE_STORE_URL`-style values. S3Store imports
boto3 lazily, so pure modules and local mode never load it.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from quire.shared.store.base import NotFound, ObjectStore, StoreError, validate_key
from quire.shared.store.local import LocalStore

__all__ = [
    "DEFAULT_LOCAL_DIR",
    "LocalStore",
    "NotFound",
    "ObjectStore",
    "StoreError",
    "open_store",
    "validate_key",
]

DEFAULT_LOCAL_DIR = Path(".quire") / "store"


def open_store(url: str | None, *, endpoint_url: str | None = None) -> ObjectStore:
    """None → `.quire/store` under the working directory; a folder or `file://` URL →
    LocalStore; `s3://bucket[/prefix]` → S3Store (at `endpoint_url`: QUIRE_S3_ENDPOINT_URL,
    passed by the caller; None: AWS)."""
    if url is None or url == "":
        return LocalStore(Path.cwd() / DEFAULT_LOCAL_DIR)
    if url.startswith("s3://"):
        from quire.shared.store.s3 import S3Store

        return S3Store.from_url(url, endpoint_url=endpoint_url)
    if url.startswith("file://"):
        parts = urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            raise ValueError(f"file URL must name a local path: {url!r}")
        return LocalStore(Path(unquote(parts.path)))
    if "://" in url:
        raise ValueError(f"unsupported store URL scheme: {url.split('://', 1)[0]!r}")
    return LocalStore(Path(url))
