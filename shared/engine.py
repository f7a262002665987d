"""Advancing documents: decide the next step from committed state and say what to enqueue.

Pure decision logic over a JobRepo; it never runs a stage itself. The caller (the Celery
`orchestrate` task, or the embedded runner) sends the returned messages.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from quire.shared.job import DocState, Job, JobRepo
from quire.shared.states import FINISH, FIRST_STATE, MAX_REDRIVES, QUEUED_DEADLINE_S, STAGES


class TaskMessage(BaseModel):
    """What a worker needs to run one part: ids and revisions only, never bodies or secrets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    doc_id: str
    state: str
    part: str
    revision: int  # the revision the part was dispatched at

    @property
    def queue(self) -> str:
        return STAGES[self.state].queue


PartsFn = Callable[[Job], list[str]]


def pending_parts(s: Job) -> list[str]:
    """Parts of the current state still to do, FINISH last and only after the others."""
    assert s.parts is not None
    todo = [p for p in s.parts if p not in s.done]
    if not todo and STAGES[s.state].finish and FINISH not in s.done:
        todo = [FINISH]
    return todo


def advance(
    repo: JobRepo, doc_id: str, parts_for: PartsFn, *, actor: str = "orchestrator"
) -> list[TaskMessage]:
    """Move `doc_id` forward as far as committed state allows; return the parts to send.

    Idempotent: a part already dispatched in this state is not returned again (the
    reconciler clears `dispatched` when a state has stalled)."""
    sent: list[TaskMessage] = []

    def change(s: Job) -> bool:
        sent.clear()
        changed = False
        now = time.time()
        if s.state == "queued":
            s.enter(FIRST_STATE, now)
            changed = True
        while s.state in STAGES:
            if s.parts is None:
                s.parts = parts_for(s)
                changed = True
            todo = pending_parts(s)
            if todo:
                fresh = [p for p in todo if p not in s.dispatched]
                for p in fresh:
                    s.dispatched[p] = s.revision
                    sent.append(
                        TaskMessage(doc_id=s.doc_id, state=s.state, part=p, revision=s.revision)
                    )
                return changed or bool(fresh)
            s.enter(s.goto or STAGES[s.state].next, now)
            changed = True
        return changed

    repo.update(doc_id, change, actor=actor, why="advance")
    return list(sent)


def superseded(s: Job, msg: TaskMessage) -> bool:
    """The part's dispatch is no longer the current one: the document moved on, the part
    is done, or the reconciler re-drove the state and the part went out again at a later
    revision (DESIGN §3). Such a delivery does nothing; the current dispatch does the work."""
    return (
        s.state != msg.state
        or s.terminal
        or msg.part in s.done
        or s.dispatched.get(msg.part) != msg.revision
    )


def mark_done(
    repo: JobRepo,
    msg: TaskMessage,
    output_key: str,
    *,
    actor: str,
    goto: DocState | None = None,
    artifacts: dict[str, str] | None = None,
    seconds: float = 0.0,
) -> bool:
    """Record a finished part (a FINISH part may name the state to go to next) and the
    `seconds` it ran. A duplicate or superseded delivery changes nothing and returns False."""

    def change(s: Job) -> bool:
        if superseded(s, msg) or s.parts is None:
            return False
        if msg.part != FINISH and msg.part not in s.parts:
            return False
        s.done[msg.part] = output_key
        if goto is not None:
            s.goto = goto
        s.artifacts.update(artifacts or {})
        s.work_seconds += seconds
        return True

    why = f"{msg.state}:{msg.part} done"
    return repo.update(msg.doc_id, change, actor=actor, why=why) is not None


def mark_failed(
    repo: JobRepo, doc_id: str, code: str, reason: str, *, actor: str, seconds: float = 0.0
) -> None:
    """Fail the document; `seconds`: how long the part that failed it ran."""

    def change(s: Job) -> bool:
        if s.terminal:
            return False
        s.fail(code, reason, time.time())
        s.work_seconds += seconds
        return True

    repo.update(doc_id, change, actor=actor, why=f"failed: {code}")


def resume(repo: JobRepo, doc_id: str, *, holder_died: bool, actor: str) -> None:
    """An embedded run takes `doc_id` over from one that stopped: the parts that run had
    dispatched but not finished are sent again (by the next `advance`). A run that died
    counts as a re-drive, like a deadline the reconciler saw pass: a part that kills its
    process every time fails the document as `stuck` after MAX_REDRIVES, not forever."""

    def change(s: Job) -> bool:
        if s.state not in STAGES or not any(p not in s.done for p in s.dispatched):
            return False
        if holder_died:
            if s.attempts >= MAX_REDRIVES:
                s.fail(
                    "stuck",
                    f"{s.source_name}: its run died in state {s.state} {s.attempts + 1} times",
                    time.time(),
                )
                return True
            s.attempts += 1
        s.dispatched = {}
        return True

    why = "resumed: the run driving it " + ("died" if holder_died else "stopped")
    repo.update(doc_id, change, actor=actor, why=why)


def reconcile(
    repo: JobRepo,
    doc_ids: list[str],
    *,
    now: float | None = None,
    actor: str = "reconciler",
    scale: float,
    settled: dict[str, int] | None = None,
) -> list[str]:
    """Re-drive documents stuck past their state's deadline; fail them after MAX_REDRIVES
    (a document still queued is only sent again: see QUEUED_DEADLINE_S).

    Deadlines are multiplied by `scale` (the service passes `QUIRE_DEADLINE_SCALE`).
    `settled` (kept by the caller between passes) maps finished documents to the revision
    they finished at: they cost one revision lookup instead of a job read, until a
    re-run commits again. Returns the ids that were re-driven (the caller then calls
    `advance` on them)."""
    now = time.time() if now is None else now
    redriven: list[str] = []
    for doc_id in doc_ids:
        if settled is not None and doc_id in settled:
            if repo.current_revision(doc_id) == settled[doc_id]:
                continue
            del settled[doc_id]
        s = repo.load(doc_id)
        if s.terminal and settled is not None:
            settled[doc_id] = s.revision
        if s.state == "queued":
            # the commit dates the re-send, so a document still queued is sent again once
            # per deadline, not every pass
            late = now - s.committed_at >= QUEUED_DEADLINE_S * scale
            if late and _recommit_queued(repo, doc_id, actor):
                redriven.append(doc_id)
            continue
        stage = STAGES.get(s.state)
        if stage is None or now - s.committed_at < stage.deadline_s * scale:
            continue

        def change(d: Job, stage_state: str = s.state) -> bool:
            if d.state != stage_state:
                return False
            if d.attempts >= MAX_REDRIVES:
                d.fail("stuck", f"no progress in state {d.state} after {d.attempts} re-drives", now)
            else:
                d.attempts += 1
                d.dispatched = {}
            return True

        if repo.update(doc_id, change, actor=actor, why="deadline passed") is not None:
            redriven.append(doc_id)
    return redriven


def _recommit_queued(repo: JobRepo, doc_id: str, actor: str) -> bool:
    why = "still queued past its deadline: advance sent again"
    return repo.update(doc_id, lambda d: d.state == "queued", actor=actor, why=why) is not None
