"""The document state machine as data: which queue runs each state, what follows it, and
how long it may take before the reconciler re-drives it.

Each working state fans out into parts (one task each); when every part is done, a state
with `finish=True` runs one more task (the fan-in step: merge, manifest, report) before the
orchestrator moves the document on — to `next`, or where the FINISH part said (`goto`):
analysing sends retitled or repaired plans back to writing. DESIGN.md §1 lists the states.
"""

from __future__ import annotations

from dataclasses import dataclass

from quire.shared.job import STOPPED as STOPPED  # states in which nothing runs by itself
from quire.shared.job import DocState

FINISH = "finish"  # the name of a state's fan-in part


@dataclass(frozen=True)
class Stage:
    state: DocState
    queue: str
    next: DocState
    deadline_s: float  # re-drive the state when no commit happened for this long
    finish: bool = False  # runs a FINISH part after its fan-out parts


STAGES: dict[str, Stage] = {
    s.state: s
    for s in (
        Stage("parsing", "parse", "scoring", 900, finish=True),
        Stage("scoring", "parse", "topic_review", 600),
        Stage("topic_review", "review", "planning", 900),
        Stage("planning", "orchestrate", "writing", 600),
        Stage("writing", "write", "verifying", 600, finish=True),
        Stage("verifying", "render", "analysing", 900, finish=True),
        Stage("analysing", "analysis", "indexing", 900, finish=True),
        Stage("repairing", "analysis", "writing", 600),
        Stage("indexing", "analysis", "complete", 600),
    )
}
FIRST_STATE: DocState = "parsing"
# A queued document waits only for its advance message. When none came for this long, the
# message was lost (a broker flushed, a worker killed holding it unacked) and the reconciler
# sends another: harmless if the first is only slow (`advance` is idempotent), and never a
# failure (a long queue is no fault of the document's).
QUEUED_DEADLINE_S = 600.0
MAX_REDRIVES = 3
QUEUES = ("orchestrate", "parse", "review", "write", "render", "analysis")
