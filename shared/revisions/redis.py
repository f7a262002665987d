"""RedisRevisionStore: revisions in Redis, CAS as one Lua script (atomic on the server).

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

from quire.shared.errors import TransientError
from quire.shared.revisions.base import RevisionStore, RevisionStoreError, check_doc_id, check_rev

T = TypeVar("T")

_CAS_LUA = """
local cur = redis.call('HGET', KEYS[1], 'rev')
if not cur then cur = '0' end
if cur == ARGV[1] then
  redis.call('HSET', KEYS[1], 'rev', ARGV[2], 'tok', ARGV[3])
  return 1
end
if cur == ARGV[2] and redis.call('HGET', KEYS[1], 'tok') == ARGV[3] then
  return 1
end
return 0
"""


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
        self.prefix = prefix
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
        self._cas = self._client.register_script(_CAS_LUA)
        self._claim = self._client.register_script(_CLAIM_LUA)
        self._release = self._client.register_script(_RELEASE_LUA)

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

    def compare_and_set(self, doc_id: str, expected: int, new: int) -> bool:
        key = self.prefix + check_doc_id(doc_id)
        args = [str(check_rev(expected)), str(check_rev(new)), uuid.uuid4().hex]
        result = self._call("compare_and_set", lambda: self._cas(keys=[key], args=args))
        return bool(int(result))

    def force(self, doc_id: str, value: int) -> None:
        key = self.prefix + check_doc_id(doc_id)
        check_rev(value)

        def run() -> None:
            pipe = self._client.pipeline(transaction=True)
            pipe.hset(key, "rev", str(value))
            pipe.hdel(key, "tok")
            pipe.execute()

        self._call("force", run)

    def list_docs(self) -> list[str]:
        pattern = re.sub(r"([*?\[\]\\])", r"\\\1", self.prefix) + "*"
        keys = self._call(
            "list_docs", lambda: list(self._client.scan_iter(match=pattern, count=1000))
        )
        return sorted(str(k)[len(self.prefix) :] for k in keys)

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
