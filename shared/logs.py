"""Log set-up for every Quire process: plain text for people, or one JSON object per line
(`QUIRE_LOG_FORMAT=json`) for log shippers, with a document's id, state, part and revision
as fields of their own when the line is about one (pass them with `extra=part_fields(...)`).
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from quire.shared.settings import LogFormat

FIELDS = ("doc_id", "state", "part", "revision", "seconds", "cpu_seconds")
TEXT_FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"


def part_fields(doc_id: str, state: str, part: str, revision: int) -> dict[str, Any]:
    return {"doc_id": doc_id, "state": state, "part": part, "revision": revision}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update({k: getattr(record, k) for k in FIELDS if hasattr(record, k)})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def configure_logging(level: int, fmt: LogFormat = "text") -> None:
    """Replace the root logger's handlers with one on stderr in the chosen format."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
