"""S3Store: objects in an S3 bucket under an optional prefix (AWS, MinIO, any S3 endpoint).

Credentials come only from boto3's standard chain (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
profiles...); the store never holds them in its own attributes, never logs them, and builds its
error messages from error codes, so a secret cannot leak through repr() or an exception.

Transient faults (connection errors, timeouts, 5xx, throttling) are retried by botocore's own
"standard" retry mode; what is still failing afterwards becomes a TransientError, a missing
object NotFound, anything else StoreError. Nothing is created implicitly: `ensure_bucket()`
exists for tests and development.
"""

from __future__ import annotations

import http.client
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import boto3
import botocore.loaders
import botocore.session
import urllib3
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    HTTPClientError,
    IncompleteReadError,
    NoCredentialsError,
    ReadTimeoutError,
    ResponseStreamingError,
)

from quire.shared.errors import QuireError, TransientError
from quire.shared.store.base import NotFound, ObjectStore, StoreError, validate_key, validate_prefix

_NOT_FOUND_CODES = {"NoSuchKey", "404", "NotFound"}
_TRANSIENT_CODES = {
    "SlowDown",
    "Throttling",
    "ThrottlingException",
    "RequestTimeout",
    "RequestTimeTooSkewed",
    "InternalError",
    "ServiceUnavailable",
}
_TRANSIENT_BOTO = (
    EndpointConnectionError,
    ConnectTimeoutError,
    ReadTimeoutError,
    ConnectionClosedError,
    IncompleteReadError,
    ResponseStreamingError,
)
_NETWORK_FAULTS = (OSError, urllib3.exceptions.HTTPError, http.client.HTTPException)
# S3 answers 409 ConditionalRequestConflict while another conditional write of the same key
# is in flight; AWS says to retry, and the retry then gets 200 or 412.
_CONFLICT_RETRIES = 5


_LOADER: Any = None


def _new_session() -> boto3.session.Session:
    """A fresh session (credentials and region read from the environment now) that shares
    one loader of botocore's service models, which makes creating a client ~5x cheaper."""
    global _LOADER
    if _LOADER is None:
        _LOADER = botocore.loaders.create_loader()
    core = botocore.session.get_session()
    core.register_component("data_loader", _LOADER)
    return boto3.session.Session(botocore_session=core)


def _reraise_interruptions(caught_exception: Exception | None = None, **_: Any) -> None:
    """botocore wraps *any* exception raised while a request is on the wire in an
    HTTPClientError and retries it as a network fault. One that is not a network fault,
    such as a worker's soft time limit signalled during the request, would be swallowed
    by the retry: raise it as it is instead."""
    if isinstance(caught_exception, HTTPClientError):
        inner = caught_exception.kwargs.get("error")
        if isinstance(inner, Exception) and not isinstance(inner, _NETWORK_FAULTS):
            raise inner


def _safe_endpoint(endpoint_url: str | None) -> str | None:
    """The endpoint without any user:password@ part, for repr and messages."""
    if not endpoint_url:
        return None
    parts = urlsplit(endpoint_url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return f"{parts.scheme}://{host}{parts.path}"


class S3Store(ObjectStore):
    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        endpoint_url: str | None = None,
        client: Any = None,
        *,
        max_attempts: int = 5,
        connect_timeout: float = 5.0,
        read_timeout: float = 30.0,
        page_size: int = 1000,
    ) -> None:
        if not bucket or "/" in bucket:
            raise ValueError(f"invalid bucket name: {bucket!r}")
        prefix = prefix.strip("/")
        if prefix:
            validate_key(prefix)
        self.bucket = bucket
        self.prefix = prefix
        self.page_size = page_size
        self._endpoint = _safe_endpoint(endpoint_url)
        if client is None:
            config = Config(
                # total_max_attempts counts the first try; botocore's max_attempts does not.
                retries={"total_max_attempts": max_attempts, "mode": "standard"},
                connect_timeout=connect_timeout,
                read_timeout=read_timeout,
                # Custom endpoints (MinIO, moto, IP addresses) rarely resolve bucket subdomains.
                s3={"addressing_style": "path"} if endpoint_url else None,
            )
            client = _new_session().client("s3", endpoint_url=endpoint_url, config=config)
            client.meta.events.register_first("needs-retry.s3", _reraise_interruptions)
        self._client = client

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> S3Store:
        parts = urlsplit(url)
        if parts.scheme != "s3" or not parts.netloc:
            raise ValueError(f"not an s3://bucket[/prefix] URL: {url!r}")
        return cls(parts.netloc, parts.path.strip("/"), **kwargs)

    @property
    def url(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"

    def __repr__(self) -> str:
        endpoint = f", endpoint={self._endpoint!r}" if self._endpoint else ""
        return f"S3Store({self.url!r}{endpoint})"

    __str__ = __repr__

    def _key(self, key: str) -> str:
        validate_key(key)
        return f"{self.prefix}/{key}" if self.prefix else key

    def _error(self, exc: Exception, op: str, key: str | None) -> QuireError:
        """Map a boto error to our family, with a message built only from codes."""
        what = f"S3 {op}" + (f" {key!r}" if key is not None else "")
        if isinstance(exc, ClientError):
            err = exc.response.get("Error", {})
            code = str(err.get("Code", "?"))
            status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0))
            if code in _NOT_FOUND_CODES:
                return NotFound(f"no object {key!r}", source=self.url)
            if status >= 500 or status == 429 or code in _TRANSIENT_CODES:
                return TransientError(
                    f"{what} failed after retries: {code} (HTTP {status})", source=self.url
                )
            return StoreError(f"{what} failed: {code} (HTTP {status})", source=self.url)
        if isinstance(exc, _TRANSIENT_BOTO):
            return TransientError(
                f"{what} failed after retries: {type(exc).__name__} (endpoint "
                f"{self._endpoint or 'AWS'})",
                source=self.url,
            )
        if isinstance(exc, NoCredentialsError):
            return StoreError(
                "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
                source=self.url,
            )
        return StoreError(f"{what} failed: {type(exc).__name__}", source=self.url)

    def put(self, key: str, data: bytes) -> None:
        full = self._key(key)
        try:
            self._client.put_object(Bucket=self.bucket, Key=full, Body=bytes(data))
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, "put", key) from exc

    def put_if_absent(self, key: str, data: bytes) -> bool:
        full = self._key(key)
        body = bytes(data)
        for attempt in range(_CONFLICT_RETRIES + 1):
            try:
                self._client.put_object(Bucket=self.bucket, Key=full, Body=body, IfNoneMatch="*")
                return True
            except ClientError as exc:
                code = str(exc.response.get("Error", {}).get("Code", ""))
                status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
                if code == "PreconditionFailed" or status == 412:
                    return False
                if (code == "ConditionalRequestConflict" or status == 409) and (
                    attempt < _CONFLICT_RETRIES
                ):
                    time.sleep(0.05 * (attempt + 1))
                    continue
                raise self._error(exc, "put_if_absent", key) from exc
            except BotoCoreError as exc:
                raise self._error(exc, "put_if_absent", key) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def get(self, key: str) -> bytes:
        full = self._key(key)
        try:
            response = self._client.get_object(Bucket=self.bucket, Key=full)
            return bytes(response["Body"].read())
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, "get", key) from exc

    def _unless_missing(self, call: Callable[[], object], op: str, key: str | None) -> bool:
        """Run `call`; False when what it names does not exist, other faults mapped."""
        try:
            call()
            return True
        except ClientError as exc:
            mapped = self._error(exc, op, key)
            if isinstance(mapped, NotFound):
                return False
            raise mapped from exc
        except BotoCoreError as exc:
            raise self._error(exc, op, key) from exc

    def exists(self, key: str) -> bool:
        full = self._key(key)
        return self._unless_missing(
            lambda: self._client.head_object(Bucket=self.bucket, Key=full), "exists", key
        )

    def list(self, prefix: str = "") -> list[str]:
        validate_prefix(prefix)
        base = f"{self.prefix}/" if self.prefix else ""
        keys: list[str] = []
        try:
            paginator = self._client.get_paginator("list_objects_v2")
            pages = paginator.paginate(
                Bucket=self.bucket,
                Prefix=base + prefix,
                PaginationConfig={"PageSize": self.page_size},
            )
            for page in pages:
                keys.extend(obj["Key"][len(base) :] for obj in page.get("Contents", ()))
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, "list", prefix) from exc
        keys.sort()
        return keys

    def delete(self, key: str) -> None:
        full = self._key(key)
        self._unless_missing(
            lambda: self._client.delete_object(Bucket=self.bucket, Key=full), "delete", key
        )

    def ensure_bucket(self) -> None:
        """Create the bucket if it does not exist (tests and development only)."""
        if self._unless_missing(
            lambda: self._client.head_bucket(Bucket=self.bucket), "head_bucket", None
        ):
            return
        region = self._client.meta.region_name
        kwargs: dict[str, Any] = {"Bucket": self.bucket}
        if region and region != "us-east-1":
            kwargs["CreateBucketConfiguration"] = {"LocationConstraint": region}
        try:
            self._client.create_bucket(**kwargs)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code")
            if code != "BucketAlreadyOwnedByYou":
                raise self._error(exc, "create_bucket", None) from exc
        except BotoCoreError as exc:
            raise self._error(exc, "create_bucket", None) from exc
