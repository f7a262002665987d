"""The object-store contract shared by every backend, and key validation.

Keys are '/'-separated relative paths (`docs/{doc_id}/ir.json`). They are validated the same
way for every backend so that a key accepted by LocalStore is accepted by S3Store and the
reverse: no absolute paths, no '.'/'..' segments, no empty segments, no NUL or other
control characters.
"""

from __future__ import annotations

import abc
import re

from quire.shared.errors import QuireError

# Temporary files of LocalStore start with this; keys may not, so list() can skip them.
from quire.shared.files import TMP_PREFIX

MAX_KEY_BYTES = 1024  # S3's limit; enforced everywhere so local keys stay portable
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class NotFound(QuireError, KeyError):
    """No object under this key."""

    code = "not_found"

    def __str__(self) -> str:  # KeyError would quote the message
        return QuireError.__str__(self)


class StoreError(QuireError):
    """A persistent storage failure (no such bucket, access denied, key conflict)."""

    code = "store"


def validate_key(key: str) -> str:
    """Return `key` unchanged if it is a valid object key, else raise ValueError."""
    if not isinstance(key, str) or not key:
        raise ValueError("object key must be a non-empty string")
    if "\x00" in key:
        raise ValueError(f"object key contains NUL: {key!r}")
    if _CONTROL.search(key):  # newlines, escapes...: they forge log lines and file names
        raise ValueError(f"object key contains a control character: {key!r}")
    if key.startswith("/"):
        raise ValueError(f"object key must be relative, not absolute: {key!r}")
    if len(key.encode("utf-8")) > MAX_KEY_BYTES:
        raise ValueError(f"object key longer than {MAX_KEY_BYTES} bytes")
    for segment in key.split("/"):
        if segment == "":
            raise ValueError(f"object key has an empty segment: {key!r}")
        if segment in (".", ".."):
            raise ValueError(f"object key has a '{segment}' segment: {key!r}")
        if segment.startswith(TMP_PREFIX):
            raise ValueError(f"object key segment may not start with {TMP_PREFIX!r}: {key!r}")
    return key


def validate_prefix(prefix: str) -> str:
    """A listing prefix: '' (everything), a key, a key + '/', or a partial last segment."""
    if not isinstance(prefix, str):
        raise ValueError("prefix must be a string")
    body = prefix[:-1] if prefix.endswith("/") else prefix
    if body:
        validate_key(body)
    elif prefix:  # prefix == "/"
        raise ValueError("prefix must be relative, not '/'")
    return prefix


class ObjectStore(abc.ABC):
    """A flat namespace of immutable-by-convention byte objects.

    Every write is atomic: a reader sees the old object, the new object or NotFound, never a
    partial one.
    """

    @property
    @abc.abstractmethod
    def url(self) -> str:
        """Where the store lives (`file:///...` or `s3://bucket/prefix`); never secrets."""

    @abc.abstractmethod
    def put(self, key: str, data: bytes) -> None:
        """Create or replace the object atomically."""

    @abc.abstractmethod
    def put_if_absent(self, key: str, data: bytes) -> bool:
        """Create the object only if the key is free: True if written, False if it existed."""

    @abc.abstractmethod
    def get(self, key: str) -> bytes:
        """The object's bytes; NotFound when absent."""

    @abc.abstractmethod
    def exists(self, key: str) -> bool: ...

    @abc.abstractmethod
    def list(self, prefix: str = "") -> list[str]:
        """All keys starting with `prefix` (plain string prefix, recursive), sorted."""

    @abc.abstractmethod
    def delete(self, key: str) -> None:
        """Remove the object; deleting an absent key is not an error."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"
