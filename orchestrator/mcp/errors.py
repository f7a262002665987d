"""Every failure of a tool call as a `ToolFailure` the host can act on: what went wrong, how
to recover and, for a conflict, the revision to re-read at. None of them ends the session."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError

from quire.orchestrator.mcp.docs import Doc, McpContext
from quire.orchestrator.mcp.schemas import ToolFailure
from quire.shared.errors import QuireError

log = logging.getLogger("quire.mcp")

RECOVER = {
    "conflict": "Nothing was committed: the document changed since you read it. Re-read the "
    "context with the matching get_* tool and decide again with its revision.",
    "invalid_decision": "Nothing was committed. Fix what the message says and commit again "
    "(the revision you read is still current unless someone else "
    "committed).",
    "invalid_arguments": "Check the arguments against the tool's input schema.",
    "not_found": "Check the document id: get_status lists the documents.",
    "unknown_tool": "List the tools to see what exists.",
}


def failure(code: str, message: str) -> ToolFailure:
    return ToolFailure(code=code, message=message, recover=RECOVER.get(code, "See the message."))


def invalid_arguments(exc: ValidationError) -> ToolFailure:
    """Every problem with the arguments at once, each named by its path."""
    problems = "; ".join(
        f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()
    )
    return failure("invalid_arguments", problems)


def raised(ctx: McpContext, tool: str, exc: Exception, arguments: dict[str, Any]) -> ToolFailure:
    """What a tool raised: a QuireError keeps its code; anything else is a bug, logged and
    reported as `internal`."""
    if not isinstance(exc, QuireError):
        log.error("tool %s crashed", tool, exc_info=exc)
        return failure("internal", f"{type(exc).__name__}: {exc}")
    result = failure(exc.code, str(exc))
    ref = arguments.get("doc_id")
    if exc.code == "conflict" and isinstance(ref, str):
        try:
            s = Doc.open(ctx, ref).job()
            result.current_revision, result.current_state = s.revision, s.state
        except QuireError:
            pass
    return result
