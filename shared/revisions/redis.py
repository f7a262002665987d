"""RedisRevisionStore: revisions in Redis, CAS as one Lua script (atomic on the server),
with the documents listing written by the same scripts (`redis_listing.py`).

Each document is a hash `{prefix}{doc_id}` with fields `rev` and `tok`; its lease is a string
`lease:{prefix}{doc_id}` that expires by itself (outside the prefix `list_docs` scans).
Connection errors and timeouts are retried by redis-py; a retried CAS is still exactly-once
because every call carries a fresh token that the script stores with the revision: if the
first attempt did apply (and only its reply was lost), the retry finds `rev == new` with its
own token and reports success instead of a false conflict.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import TypeVar
from urllib.parse import urlsplit

import redis
from redis.backoff import EqualJitterBackoff
from redis.retry import Retry

import quire.shared.revisions.listing as listing
from quire.shared.errors import TransientError
from quire.shared.revisions import redis_listing as lua
from quire.shared.revisions.base import RevisionStore, RevisionStoreError, check_doc_id, check_rev

T = TypeVar("T")


# Granted: '' ; else the current holder. ARGV: owner, ttl in ms, the holder it may replace.
_CLAIM_LUA = """
local cur = redis.call('GET', KEYS[1])
if (not cur) or cur == ARGV[1] or (ARGV[3] ~= '' and cur == ARGV[3]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ''
end
return cur
"""
_RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""


def _safe_url(url: str) -> str:
    """The URL without its password, for repr and messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username or ''}:***@{parts.hostname}" + (
        f":{parts.port}" if parts.port else ""
    )
    return parts._replace(netloc=netloc).geturl()


class RedisRevisionStore(RevisionStore):
    def __init__(
        self,
        url: str,
        prefix: str = "quire:rev:",
        *,
        retries: int = 5,
        socket_timeout: float = 5.0,
        connect_timeout: float = 2.0,
    ) -> None:
        if not prefix.endswith(":"):
            raise ValueError(f"a revision key prefix ends with ':', got {prefix!r}")
        self.prefix = prefix
        self.list_prefix = prefix[:-1] + "#list:"  # never matched by `prefix*`
        self._safe_url = _safe_url(url)
        self._client = redis.Redis.from_url(
            url,
            decode_responses=True,
            socket_timeout=socket_timeout,
            socket_connect_timeout=connect_timeout,
            retry=Retry(EqualJitterBackoff(cap=1.0, base=0.05), retries),
            retry_on_error=[redis.ConnectionError, redis.TimeoutError],
            health_check_interval=10,
        )
        self._claim = self._client.register_script(_CLAIM_LUA)
        self._release = self._client.register_script(_RELEASE_LUA)
        self._cas = self._client.register_script(lua.CAS)
        self._force = self._client.register_script(lua.FORCE)
        self._put = self._client.register_script(lua.PUT)
        self._entries = self._client.register_script(lua.ENTRIES)
        self._index_batch = self._client.register_script(lua.INDEX_BATCH)
        self._batches = self._client.register_script(lua.BATCHES)

    def __repr__(self) -> str:
        return f"RedisRevisionStore({self._safe_url!r}, prefix={self.prefix!r})"

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            raise TransientError(
                f"redis unreachable during {what} after retries: {type(exc).__name__}",
                source=self._safe_url,
            ) from exc
        except redis.RedisError as exc:
            raise RevisionStoreError(
                f"redis error during {what}: {exc}", source=self._safe_url
            ) from exc

    def current(self, doc_id: str) -> int:
        key = self.prefix + check_doc_id(doc_id)
        value = self._call("current", lambda: self._client.hget(key, "rev"))
        return int(value) if value is not None else 0

    def _entry(self, entry: listing.DocEntry | None, doc_id: str, rev: int) -> list[str]:
        return lua.entry_args(
            self.list_prefix, None if entry is None else listing.entry_at(entry, doc_id, rev)
        )

    def compare_and_set(
        self, doc_id: str, expected: int, new: int, entry: listing.DocEntry | None = None
    ) -> bool:
        key = self.prefix + check_doc_id(doc_id)
        args = [str(check_rev(expected)), str(check_rev(new)), uuid.uuid4().hex]
        args += self._entry(entry, doc_id, new)
        result = self._call("compare_and_set", lambda: self._cas(keys=[key], args=args))
        return bool(int(result))

    def force(self, doc_id: str, value: int, entry: listing.DocEntry | None = None) -> None:
        key = self.prefix + check_doc_id(doc_id)
        args = [str(check_rev(value)), *self._entry(entry, doc_id, value)]
        self._call("force", lambda: self._force(keys=[key], args=args))

    def list_docs(self) -> list[str]:
        pattern = re.sub(r"([*?\[\]\\])", r"\\\1", self.prefix) + "*"
        keys = self._call(
            "list_docs", lambda: list(self._client.scan_iter(match=pattern, count=1000))
        )
        return sorted(str(k)[len(self.prefix) :] for k in keys)

    def put_entry(self, entry: listing.DocEntry) -> bool:
        key = self.prefix + check_doc_id(entry.doc_id)
        args = [str(entry.revision), *self._entry(entry, entry.doc_id, entry.revision)]
        return bool(int(self._call("put_entry", lambda: self._put(keys=[key], args=args))))

    def unlisted(self) -> list[str]:
        docs = self.list_docs()

        def read() -> list[list[str | None]]:
            pipe = self._client.pipeline(transaction=False)
            for doc_id in docs:
                pipe.hmget(self.prefix + doc_id, "rev", "lrev")
            return pipe.execute()

        revs = self._call("unlisted", read)
        return [d for d, (rev, lrev) in zip(docs, revs, strict=True) if rev != lrev]

    def entries(self, query: listing.DocQuery) -> listing.DocPage:
        args = lua.entries_args(self.list_prefix, query)
        return lua.entries_page(self._call("entries", lambda: self._entries(args=args)), query)

    def index_batch(self, batch: listing.BatchEntry) -> None:
        args = [self.list_prefix, batch.batch_id, lua.batch_info_json(batch), *batch.doc_ids]
        self._call("index_batch", lambda: self._index_batch(args=args))

    def batches(self, after: int | None = None, limit: int = 50) -> listing.BatchPage:
        args = [self.list_prefix, "" if after is None else str(after), str(limit)]
        return lua.batch_page(self._call("batches", lambda: self._batches(args=args)), limit)

    def batch(self, batch_id: str) -> listing.BatchInfo | None:
        def read() -> tuple[str | None, int]:
            pipe = self._client.pipeline(transaction=False)
            pipe.hget(self.list_prefix + "batchinfo", batch_id)
            pipe.scard(self.list_prefix + "batch:" + batch_id)
            info, docs = pipe.execute()
            return info, int(docs)

        info, docs = self._call("batch", read)
        return None if info is None else lua.batch_info(batch_id, info, docs)

    def close(self) -> None:
        self._client.close()

    def _lease_key(self, doc_id: str) -> str:
        return "lease:" + self.prefix + check_doc_id(doc_id)

    def claim_lease(
        self, doc_id: str, owner: str, ttl: float, *, replacing: str | None = None
    ) -> str | None:
        key = self._lease_key(doc_id)
        args = [owner, str(max(1, round(ttl * 1000))), replacing or ""]
        held = self._call("claim_lease", lambda: self._claim(keys=[key], args=args))
        return str(held) or None

    def release_lease(self, doc_id: str, owner: str) -> None:
        key = self._lease_key(doc_id)
        self._call("release_lease", lambda: self._release(keys=[key], args=[owner]))

    def lease_holder(self, doc_id: str) -> str | None:
        key = self._lease_key(doc_id)
        held = self._call("lease_holder", lambda: self._client.get(key))
        return str(held) if held is not None else None
