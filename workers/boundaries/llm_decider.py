"""The LLM decider: a model picks where a chunk ends, but only among listed safe candidates.

Its answer goes through the same `validate_decision` as an external agent's; a refused
answer is re-asked with the reason, and when the model still breaks the rules the global
plan's choice stands (the heuristic decider's without one), with the model's failure named
in the recorded reason. An invalid answer never becomes a cut.

With an LLM backend, unattended runs walk the global plan this way: each boundary's context
carries the global plan's choice and the alternative it beat, and the model confirms it or
overrules it with a cut it can justify from the text; after an overrule the next
recommendation is again the optimum from where it cut.
"""

from __future__ import annotations

import json
import logging
from typing import Literal

from pydantic import BaseModel, ConfigDict

from quire.shared.errors import BackendError, ValidationFailedError
from quire.shared.settings import Settings
from quire.workers.boundaries.decisions import (
    BoundaryContext,
    Decision,
    HeuristicDecider,
    validate_decision,
)
from quire.workers.llm import JsonBackend
from quire.workers.llm.base import ask_checked, is_strict, note_fallback

log = logging.getLogger("quire.decider")
REASKS = 2

SYSTEM = """You plan study sessions for a long technical document.
A session should hold complete concepts and be about {min:g}-{max:g} pages; {soft:g} pages are
allowed only to finish a concept, and longer only with continuity evidence.
You may ONLY cut after one of the listed candidate element ids. "recommended" is where the
optimal plan of the whole document ends this session (it keeps chapters whole and sessions
within size): keep it unless the text shows that the concept ends elsewhere. Answer with JSON:
{{"action": "cut" | "extend", "element_id": "<a listed after_id, or null for extend>",
 "reason": "<specific: name the concept that ends and the one that begins>",
 "evidence": ["<element ids from the window that support the decision>"]}}"""


class DecisionAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["cut", "extend"]
    element_id: str | None = None
    reason: str
    evidence: list[str] = []


def decision_prompt(context: BoundaryContext) -> str:
    shortlist = [
        {k: v for k, v in c.model_dump().items() if v not in (None, [], "")}
        for c in context.shortlist()
    ]
    rec = context.recommendation
    return json.dumps(
        {
            "chunk_number": context.chunk_number,
            "starts_at": context.start_id,
            "start_page": context.start_page,
            "remaining_pages": context.remaining_pages,
            "must_cut_by": context.must_cut_by,
            "may_extend": context.may_extend,
            "recommended": {"after_id": rec.after_id, "why": rec.reason} if rec else None,
            "candidates": shortlist,
        },
        ensure_ascii=False,
        indent=1,
    )


class LLMDecider:
    def __init__(self, backend: JsonBackend) -> None:
        self.backend = backend
        self.name = backend.name
        self.fallback = HeuristicDecider()

    def decide(self, context: BoundaryContext) -> Decision:
        r = context.rules
        system = SYSTEM.format(min=r.min_pages, max=r.max_pages, soft=r.soft_max_pages)
        user = decision_prompt(context)
        got = ask_checked(
            self.backend,
            system=system,
            user=user,
            schema=DecisionAnswer,
            task="decide",
            check=lambda answer: validate_decision(
                context,
                Decision(**answer.model_dump(), decider=self.name, start_id=context.start_id),
            ),
            refused=ValidationFailedError,
            reasks=REASKS,
        )
        if got.value is not None:
            return got.value
        problem = f"backend failed: {got.error}" if got.backend_failed else got.error
        item = f"chunk {context.chunk_number} from {context.start_id}"
        if is_strict(self.backend) and not got.backend_failed:
            raise BackendError(f"{self.name} gave no valid decision for {item} (strict): {problem}")
        rec = context.recommendation
        log.warning(
            "%s decider gave no valid decision (%s); using the %s",
            self.name,
            problem,
            "global plan's choice" if rec else "heuristic",
        )
        note_fallback(self.backend, "decide", item, problem)
        if rec is not None:
            fallback = Decision(
                action="cut",
                element_id=rec.after_id,
                reason=rec.reason,
                evidence=rec.evidence,
                decider="global",
                start_id=context.start_id,
            )
        else:
            fallback = self.fallback.decide(context)
        return fallback.model_copy(
            update={
                "reason": f"{fallback.reason} (the {self.name} decider's answer was refused: "
                f"{problem[:160]})",
                "backend_fallback": f"{self.name}: {problem}"[:600],
            }
        )


def make_decider(
    backend: str | JsonBackend, *, env: Settings | None = None
) -> HeuristicDecider | LLMDecider:
    """ "heuristic", a JsonBackend name, or a JsonBackend instance."""
    if backend == "heuristic":
        return HeuristicDecider()
    if isinstance(backend, str):
        from quire.workers.llm import backend_named

        backend = backend_named(backend, env)
    return LLMDecider(backend)
