"""The SQS poller: S3 event notifications delivered to an SQS (or SQS-compatible) queue.

Long-polls the queue, hands each message body to the trigger service, and deletes the
message once it is handled. A message that cannot be handled because of a transient fault
is left on the queue: SQS shows it again after its visibility timeout (a redrive policy
moves it to a dead-letter queue after repeated failures). A malformed message can never
succeed, so it is logged and deleted. Between polls the service runs accepted documents
(embedded mode) and delivers finished results.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from quire.orchestrator.triggers import MalformedEvent, TriggerService
from quire.shared.errors import TransientError

log = logging.getLogger("quire.sqs")


def sqs_client(endpoint_url: str | None) -> Any:
    """A client of the SQS endpoint (QUIRE_SQS_ENDPOINT_URL; None: AWS)."""
    import boto3
    from botocore.config import Config

    return boto3.session.Session().client(
        "sqs",
        endpoint_url=endpoint_url,
        config=Config(retries={"total_max_attempts": 5, "mode": "standard"}, read_timeout=40),
    )  # longer than the 20 s long poll


class SqsPoller:
    def __init__(
        self,
        service: TriggerService,
        queue_url: str,
        *,
        client: Any = None,
        wait_seconds: int = 20,
        max_messages: int = 10,
    ) -> None:
        self.service, self.queue_url = service, queue_url
        self.client = client or sqs_client(service.rt.env.sqs_endpoint_url)
        self.wait_seconds, self.max_messages = wait_seconds, max_messages

    def poll_once(self, wait_seconds: int | None = None) -> int:
        """Receive one batch, handle and delete its messages, then let the service work.
        Returns how many messages were received."""
        wait = self.wait_seconds if wait_seconds is None else wait_seconds
        response = self.client.receive_message(
            QueueUrl=self.queue_url, MaxNumberOfMessages=self.max_messages, WaitTimeSeconds=wait
        )
        messages = response.get("Messages", [])
        for message in messages:
            if self._handle(message):
                self.client.delete_message(
                    QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"]
                )
        self.service.work()
        return len(messages)

    def _handle(self, message: dict[str, Any]) -> bool:
        """True when the message is done with (handled, or hopeless)."""
        mid = message.get("MessageId", "?")
        try:
            outcomes = self.service.handle_payload(message.get("Body", ""))
        except MalformedEvent as exc:
            log.warning("dropped malformed message %s: %s", mid, exc)
            return True
        except TransientError as exc:
            log.warning("message %s left for redelivery: %s", mid, exc)
            return False
        except Exception:
            log.exception("message %s failed; left for redelivery", mid)
            return False
        for o in outcomes:
            log.info("message %s: %s %s %s", mid, o.action, o.uri, o.reason)
        return True

    def run_forever(self, stop: threading.Event | None = None) -> None:
        stop = stop or threading.Event()
        log.info("polling %s", self.queue_url)
        while not stop.is_set():
            try:
                self.poll_once()
            except Exception:  # the queue endpoint down, credentials expired...: keep going
                log.exception("polling %s failed; retrying", self.queue_url)
                stop.wait(5)
