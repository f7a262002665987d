"""RedisRevisionStore: revisions in Redis, CAS as one Lua script (atomic on the server).

Each document is a hash `{prefix}{doc_id}` with fields `rev` and `tok`. Connection errors and
timeouts are retried by redis-py; a retried CAS is still exactly-once because every call
carries a fresh token that the script stores with the revision: if the first attempt did
apply (and only its reply was lost), the retry finds `rev == new` with its own token and
reports success instead of a false conflict.
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
