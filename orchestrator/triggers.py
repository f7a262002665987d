"""Upload-to-bucket triggers: S3 event notifications become documents (DESIGN.md §3, §4).

The event side is pure: `parse_notification` reads the AWS S3 event JSON (what S3 sends to
SQS, SNS-wrapped or not, and what MinIO's webhook and queue targets send), decodes keys with
`unquote_plus` (S3 URL-encodes them, a space arrives as '+'), and `classify` decides with a
reason: only ObjectCreated events, only the watched bucket and prefix, only documents
(.pdf, .docx, .epub, .htmlz, .html).

`Intake` acts on accepted events. Delivery is at least once, so each event is remembered
under a create-only marker keyed by bucket, key and version id (or ETag): a replay or a
duplicate is recognised before the object is even fetched, and a race between two
deliveries is harmless because documents are keyed by content hash anyway. Each accepted
upload also leaves a pending delivery record; once its document has stopped, its output
folder (or its failure reason) is written under the output prefix — never over the input,
which the configuration refuses to overlap.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import unquote_plus

from pydantic import BaseModel, ConfigDict, model_validator

from quire.orchestrator.dispatch import dispatcher_for
from quire.orchestrator.passwords import Passwords
from quire.orchestrator.sources import COMPRESSED_SUFFIXES, DOCUMENT_SUFFIXES, HTML_SUFFIXES
from quire.shared import keys
from quire.shared.config import RunChoices, RunSettings
from quire.shared.errors import QuireError
from quire.shared.settings import Settings
from quire.shared.states import STOPPED
from quire.shared.store import NotFound, validate_key
from quire.workers.runtime import Runtime

log = logging.getLogger("quire.trigger")

SEEN_PREFIX = "triggers/seen/"
PENDING_PREFIX = "triggers/pending/"
RESULT_FILE = "quire-result.json"


class MalformedEvent(QuireError):
    """The payload is not an S3 event notification we can read."""

    code = "malformed_event"


class ObjectEvent(BaseModel):
    """One record of an S3 event notification, key decoded."""

    model_config = ConfigDict(frozen=True)

    event_name: str  # without MinIO's "s3:" prefix, e.g. "ObjectCreated:Put"
    bucket: str
    key: str
    size: int | None = None
    etag: str | None = None
    version_id: str | None = None
    sequencer: str | None = None

    @property
    def uri(self) -> str:
        return f"s3://{self.bucket}/{self.key}"

    def identity(self) -> str:
        """What makes two deliveries the same upload: bucket, key, and version or ETag."""
        version = self.version_id or self.etag or self.sequencer or ""
        return hashlib.sha256(f"{self.bucket}\0{self.key}\0{version}".encode()).hexdigest()


def _field(mapping: Any, *path: str) -> Any:
    for name in path:
        if not isinstance(mapping, Mapping) or name not in mapping:
            return None
        mapping = mapping[name]
    return mapping


def _record(raw: Any) -> ObjectEvent:
    name = _field(raw, "eventName")
    bucket = _field(raw, "s3", "bucket", "name")
    key = _field(raw, "s3", "object", "key")
    if not all(isinstance(v, str) and v for v in (name, bucket, key)):
        raise MalformedEvent("record lacks eventName, s3.bucket.name or s3.object.key")
    size = _field(raw, "s3", "object", "size")
    obj = _field(raw, "s3", "object")

    def text(field: str) -> str | None:
        value = obj.get(field)
        return str(value).strip('"') if value not in (None, "") else None

    return ObjectEvent(
        event_name=name.removeprefix("s3:"),
        bucket=bucket,
        key=unquote_plus(key),
        size=size if isinstance(size, int) and not isinstance(size, bool) else None,
        etag=text("eTag") or text("etag"),
        version_id=text("versionId"),
        sequencer=text("sequencer"),
    )


def parse_notification(payload: bytes | str | Mapping[str, Any]) -> list[ObjectEvent]:
    """The object events in one notification; [] for S3's test event. Raises
    MalformedEvent for anything else (not JSON, not an S3 notification, broken records)."""
    data: Any = payload
    if isinstance(payload, bytes | str):
        try:
            data = json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise MalformedEvent(f"body is not JSON ({exc.__class__.__name__})") from None
    if not isinstance(data, Mapping):
        raise MalformedEvent("body is not a JSON object")
    if data.get("Type") == "Notification" and isinstance(data.get("Message"), str):
        return parse_notification(data["Message"])  # S3 -> SNS -> SQS envelope
    if data.get("Event") == "s3:TestEvent":
        return []
    records = data.get("Records")
    if not isinstance(records, list) or not records:
        raise MalformedEvent("no Records in the notification")
    return [_record(r) for r in records]


class TriggerConfig(BaseModel):
    """Which uploads become documents and where their results go (within the same bucket)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bucket: str | None = None  # None: any bucket that notifies us
    prefix: str = "inbox/"
    output_prefix: str = "outbox/"
    suffixes: tuple[str, ...] = DOCUMENT_SUFFIXES + COMPRESSED_SUFFIXES + HTML_SUFFIXES
    store: str | None = None  # the store's URL: no store write may trigger as an upload

    @model_validator(mode="after")
    def _no_overlap(self) -> TriggerConfig:
        a, b = self.prefix, self.output_prefix
        if not b:
            raise ValueError(
                "the output prefix must not be empty (results would land among the uploads)"
            )
        if a.startswith(b) or b.startswith(a):
            raise ValueError(
                f"output prefix {b!r} overlaps input prefix {a!r}: results "
                "would be written over (or trigger as) uploads"
            )
        if self.store and self.store.startswith("s3://"):
            bucket, _, under = self.store.removeprefix("s3://").partition("/")
            if self.bucket in (None, bucket) and f"{under.rstrip('/')}/".startswith(a):
                raise ValueError(
                    f"the store {self.store} lies under the watched prefix {a!r}: every "
                    "source and chunk it writes would trigger as an upload"
                )
        return self

    @classmethod
    def from_settings(cls, s: Settings, **overrides: Any) -> TriggerConfig:
        values: dict[str, Any] = {
            "bucket": s.trigger_bucket,
            "prefix": s.trigger_prefix,
            "output_prefix": s.trigger_output_prefix,
            "store": s.store_url,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def output_for(self, key: str) -> str:
        """Where the results of `key` go: `inbox/a/b.pdf` -> `outbox/a/b.pdf/`."""
        return f"{self.output_prefix}{key[len(self.prefix) :]}/"


def classify(event: ObjectEvent, config: TriggerConfig) -> str | None:
    """None when the event should become a document, else why it is ignored."""
    if not event.event_name.startswith("ObjectCreated:"):
        return f"not an upload ({event.event_name})"
    if config.bucket is not None and event.bucket != config.bucket:
        return f"bucket {event.bucket!r} is not watched"
    if not event.key.startswith(config.prefix):
        return f"outside the watched prefix {config.prefix!r}"
    if event.key.endswith("/"):
        return "a folder marker, not a file"
    if not event.key.lower().endswith(config.suffixes):
        return f"not a document (only {', '.join(config.suffixes)})"
    try:  # '..' segments, control characters: its results could land outside the output
        validate_key(event.key)
    except ValueError as exc:
        return f"unsafe object key: {exc}"
    return None


# --- acting on events ----------------------------------------------------------------------


class ObjectIO(Protocol):
    """Reads uploads and writes results in the notifying bucket(s)."""

    def get(self, bucket: str, key: str) -> bytes: ...

    def put(self, bucket: str, key: str, data: bytes) -> None: ...


class S3Objects:
    """ObjectIO over S3 (at `endpoint_url`, QUIRE_S3_ENDPOINT_URL; credentials from the
    environment, read by boto3)."""

    def __init__(self, endpoint_url: str | None) -> None:
        self._endpoint_url = endpoint_url
        self._stores: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _store(self, bucket: str) -> Any:
        with self._lock:
            if bucket not in self._stores:
                from quire.shared.store.s3 import S3Store

                self._stores[bucket] = S3Store(bucket, endpoint_url=self._endpoint_url)
            return self._stores[bucket]

    def get(self, bucket: str, key: str) -> bytes:
        return bytes(self._store(bucket).get(key))

    def put(self, bucket: str, key: str, data: bytes) -> None:
        self._store(bucket).put(key, data)


Action = Literal["submitted", "duplicate", "ignored", "refused"]


class Outcome(BaseModel):
    uri: str
    event_name: str
    action: Action
    reason: str = ""
    doc_id: str | None = None


class Delivery(BaseModel):
    """A result still to write: the document, the upload and the output prefix."""

    doc_id: str
    bucket: str
    key: str
    output_prefix: str
    event: str  # the event identity, for the audit trail
    created_at: float


def _delivery_key(bucket: str, output_prefix: str) -> str:
    digest = hashlib.sha256(f"{bucket}\0{output_prefix}".encode()).hexdigest()
    return f"{PENDING_PREFIX}{digest}.json"


class Intake:
    def __init__(
        self,
        rt: Runtime,
        config: TriggerConfig,
        settings: RunSettings,
        objects: ObjectIO | None = None,
        passwords: Passwords | None = None,
    ) -> None:
        self.rt, self.config, self.settings = rt, config, settings
        self.objects: ObjectIO = objects or S3Objects(rt.env.s3_endpoint_url)
        self.passwords = passwords or Passwords.load(settings=rt.env)

    def handle(self, events: Iterable[ObjectEvent]) -> list[Outcome]:
        """Submit the accepted events' objects. TransientError propagates (the delivery
        should be retried); everything else is an Outcome with a logged reason."""
        return [self._one(e) for e in events]

    def _one(self, event: ObjectEvent) -> Outcome:
        why = classify(event, self.config)
        if why is not None:
            log.info("ignored %s %s: %s", event.event_name, event.uri, why)
            return Outcome(uri=event.uri, event_name=event.event_name, action="ignored", reason=why)
        marker = f"{SEEN_PREFIX}{event.identity()}.json"
        if self.rt.store.exists(marker):
            log.info("duplicate event for %s (etag %s): already handled", event.uri, event.etag)
            return Outcome(
                uri=event.uri,
                event_name=event.event_name,
                action="duplicate",
                reason="event already handled",
            )
        if event.size is not None and event.size > self.settings.max_file_bytes:
            return self._too_large(event, marker)
        try:
            data = self.objects.get(event.bucket, event.key)
        except NotFound:
            log.warning("ignored %s: the object no longer exists", event.uri)
            return Outcome(
                uri=event.uri,
                event_name=event.event_name,
                action="ignored",
                reason="object no longer exists",
            )
        return self._submit(event, data, marker)

    def _too_large(self, event: ObjectEvent, marker: str) -> Outcome:
        """Refused without reading the object: its result says why, and the event is seen."""
        reason = f"object is {event.size} bytes, over the limit of {self.settings.max_file_bytes}"
        log.warning("refused %s: %s", event.uri, reason)
        self._write_result(
            event.bucket,
            self.config.output_for(event.key),
            {
                "source": event.uri,
                "state": "failed",
                "error_code": "too_large",
                "error": reason,
            },
        )
        self.rt.store.put_if_absent(marker, b"{}")
        return Outcome(uri=event.uri, event_name=event.event_name, action="refused", reason=reason)

    def _submit(self, event: ObjectEvent, data: bytes, marker: str) -> Outcome:
        """Submit the object's bytes, record where its results go, then mark the event seen
        (a concurrent delivery of the same event finds the marker taken: "raced")."""
        from quire.workers.execute import submit_bytes

        name = event.key.rsplit("/", 1)[-1]
        job = submit_bytes(
            self.rt,
            data,
            name,
            self.settings,
            actor="trigger",
            password=self.passwords.for_document(name, event.uri),
        )
        delivery = Delivery(
            doc_id=job.doc_id,
            bucket=event.bucket,
            key=event.key,
            output_prefix=self.config.output_for(event.key),
            event=event.identity(),
            created_at=time.time(),
        )
        self.rt.store.put(
            _delivery_key(event.bucket, delivery.output_prefix), delivery.model_dump_json().encode()
        )
        first = self.rt.store.put_if_absent(
            marker,
            json.dumps(
                {
                    "uri": event.uri,
                    "etag": event.etag,
                    "version_id": event.version_id,
                    "doc_id": job.doc_id,
                    "at": time.time(),
                }
            ).encode(),
        )
        log.info(
            "%s %s -> document %s rev %d (%s)",
            "submitted" if first else "raced",
            event.uri,
            job.doc_id[:16],
            job.revision,
            job.state,
            extra={"doc_id": job.doc_id, "revision": job.revision},
        )
        return Outcome(
            uri=event.uri,
            event_name=event.event_name,
            action="submitted" if first else "duplicate",
            reason="" if first else "delivered concurrently",
            doc_id=job.doc_id,
        )

    # --- results --------------------------------------------------------------------------

    def pending(self) -> list[Delivery]:
        found = []
        for key in self.rt.store.list(PENDING_PREFIX):
            try:
                found.append(Delivery.model_validate_json(self.rt.store.get(key)))
            except NotFound:
                continue  # delivered meanwhile
        return found

    def unfinished(self) -> list[str]:
        """Documents of pending deliveries that have not stopped (to resume after a crash)."""
        return list(
            dict.fromkeys(
                d.doc_id for d in self.pending() if self.rt.repo.load(d.doc_id).state not in STOPPED
            )
        )

    def deliver(self) -> list[Delivery]:
        """Write the results of every pending upload whose document has stopped."""
        delivered = []
        for d in self.pending():
            s = self.rt.repo.load(d.doc_id)
            if s.state not in STOPPED:
                continue
            files: list[str] = []
            if s.state == "complete":
                prefix = keys.out(d.doc_id)
                for key in self.rt.store.list(prefix):
                    rel = key[len(prefix) :]
                    self.objects.put(d.bucket, d.output_prefix + rel, self.rt.store.get(key))
                    files.append(rel)
            self._write_result(
                d.bucket,
                d.output_prefix,
                {
                    "source": f"s3://{d.bucket}/{d.key}",
                    "doc_id": d.doc_id,
                    "state": s.state,
                    "error_code": s.error_code,
                    "error": s.error,
                    "files": files,
                },
            )
            self.rt.store.delete(_delivery_key(d.bucket, d.output_prefix))
            log.info(
                "delivered %s (%s) to s3://%s/%s",
                d.key,
                s.state,
                d.bucket,
                d.output_prefix,
                extra={"doc_id": d.doc_id, "revision": s.revision},
            )
            delivered.append(d)
        return delivered

    def _write_result(self, bucket: str, output_prefix: str, result: dict[str, Any]) -> None:
        self.objects.put(
            bucket,
            output_prefix + RESULT_FILE,
            json.dumps(result, ensure_ascii=False, indent=1).encode(),
        )


# --- running what was accepted -------------------------------------------------------------


class TriggerService:
    """Events in, documents run, results out: embedded (documents run here, in `work`) or
    distributed (documents are handed to the workers; `work` only delivers results)."""

    def __init__(self, intake: Intake, *, processes: int = 1) -> None:
        self.rt = rt = intake.rt
        self.intake = intake
        self.dispatcher = dispatcher_for(rt, processes=processes)
        self._todo: list[str] = []
        self._lock = threading.Lock()
        self._work_lock = threading.Lock()
        self.wake = threading.Event()
        self.start(self.intake.unfinished())  # resume what a previous run left

    def handle_payload(self, payload: bytes | str | Mapping[str, Any]) -> list[Outcome]:
        outcomes = self.intake.handle(parse_notification(payload))
        self.start([o.doc_id for o in outcomes if o.action == "submitted" and o.doc_id])
        return outcomes

    def start(self, doc_ids: list[str]) -> None:
        if not doc_ids:
            return
        here = self.dispatcher.submit(doc_ids)  # embedded: driven by `work`
        with self._lock:
            self._todo.extend(here)
        self.wake.set()

    def work(self) -> list[Delivery]:
        """Run what was accepted (embedded), then deliver the results that are ready."""
        with self._work_lock:
            with self._lock:
                todo, self._todo = list(dict.fromkeys(self._todo)), []
            if todo:
                self.dispatcher.drive(todo)
            return self.intake.deliver()

    def work_forever(self, stop: threading.Event, interval: float = 5.0) -> None:
        """The background loop of a long-running trigger; never dies on an error."""
        while not stop.is_set():
            self.wake.wait(interval)
            self.wake.clear()
            try:
                self.work()
            except Exception:
                log.exception("trigger work loop failed; retrying in %.0fs", interval)


def default_settings(env: Settings) -> RunSettings:
    """Run settings for triggered documents: the defaults of every run, from the settings
    (review backend, limits, OCR)."""
    return RunChoices().settings(env=env)


def build_service(
    rt: Runtime,
    *,
    bucket: str | None = None,
    prefix: str | None = None,
    output_prefix: str | None = None,
    processes: int = 1,
    password_map: Path | None = None,
) -> TriggerService:
    """A trigger service from the runtime's settings (QUIRE_TRIGGER_*, QUIRE_PDF_PASSWORD_MAP,
    QUIRE_PDF_PASSWORD), flags overriding."""
    config = TriggerConfig.from_settings(
        rt.env, bucket=bucket, prefix=prefix, output_prefix=output_prefix
    )
    passwords = Passwords.load(map_file=password_map, settings=rt.env)
    intake = Intake(rt, config, default_settings(rt.env), passwords=passwords)
    return TriggerService(intake, processes=processes)
