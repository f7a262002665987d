"""The agent loop's operations, defined once: both the CLI commands (`quire boundary-context`,
cli/agent_loop.py) and the MCP tools (`get_boundary_context`, mcp/tools.py) are made from
this table.

A row names the operation on each side, its input model and output model (pydantic, in
mcp/schemas.py: their JSON schemas are the tool's), what it does (`call`, on the agent loop
in agent.py) and how the command line spells each input field. The models are named, not
imported: the CLI builds its commands from the rows without loading them. The CLI hands
`call` the values it read as they are (the agent loop validates them, as it validates an
LLM's answers); the MCP server hands it the validated input model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from quire.workers.runtime import Runtime

Call = Callable[["Runtime", str, Any], Any]  # (runtime, doc id, input) -> the loop's answer


@dataclass(frozen=True)
class Param:
    """One input field on the command line: an option (or, for doc_id, the DOC argument)."""

    field: str
    flag: str
    kind: Literal["int", "str", "choice", "many", "file", "json-file"] = "str"
    required: bool = True
    help: str | None = None
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Operation:
    tool: str  # the MCP tool's name
    command: str  # the CLI command's name
    title: str  # the MCP tool's title
    doc: str  # the MCP tool's description (what it changes is added by the registry)
    help: str  # the CLI command's help
    input: str  # the input model's name in mcp/schemas.py
    output: str  # the MCP output model's name in mcp/schemas.py
    call: Call
    params: tuple[Param, ...]  # every input field but doc_id, in the model's order
    changes: str | None = None  # None: read-only
    destructive: bool = False
    idempotent: bool = False
    drives: bool = False  # the CLI drives the document to its next stop after the call
    # what the CLI prints: the loop's answer as it is, unless this says otherwise
    cli_output: Callable[[Any], Any] = field(default=lambda result: result)


def _plain(value: Any) -> Any:
    """A validated model as the loop takes it (the MCP side); what the CLI read, as it is."""
    return value.model_dump() if hasattr(value, "model_dump") else value


def _agent() -> Any:
    from quire.orchestrator import agent

    return agent


CHUNK = Param("chunk", "--chunk-id", "int")
REVISION = Param("revision", "--revision", "int", help="The revision the context was read at.")

OPERATIONS: dict[str, Operation] = {
    op.tool: op
    for op in [
        Operation(
            tool="get_boundary_context",
            command="boundary-context",
            title="Get the next boundary decision",
            doc="Where the chunk being planned starts, the safe candidates it may end at "
            "(size, zone, change score, topic reviews), the size rules and any confirmed "
            "topic change that must not be crossed. context=null: nothing left to decide.",
            help="The window and safe candidates for the next boundary decision.",
            input="DocIn",
            output="BoundaryOut",
            call=lambda rt, doc_id, a: _agent().boundary_context(rt, doc_id),
            params=(),
        ),
        Operation(
            tool="commit_boundary",
            command="commit-boundary",
            title="Commit a boundary decision",
            doc="Cut at a listed candidate (element_id = its after_id) or extend the chunk, "
            "with a specific reason. Validated like an LLM decider: only listed candidates, "
            "evidence beyond the preferred size, two continuity reviews to go past the soft "
            "maximum. Returns the next context.",
            help="Validate and record one boundary decision (refused when stale or invalid).",
            input="CommitBoundaryIn",
            output="BoundaryOut",
            call=lambda rt, doc_id, a: _agent().commit_boundary(
                rt,
                doc_id,
                revision=a.revision,
                action=a.action,
                element_id=a.element_id,
                reason=a.reason,
                evidence=list(a.evidence),
            ),
            params=(
                REVISION,
                Param("action", "--action", "choice", choices=("cut", "extend")),
                Param(
                    "element_id",
                    "--element-id",
                    required=False,
                    help="For cut: a listed candidate's after_id.",
                ),
                Param("reason", "--reason"),
                Param(
                    "evidence",
                    "--evidence",
                    "many",
                    required=False,
                    help="Element ids supporting the decision.",
                ),
            ),
            changes="records the decision as a new revision; the last one completes the "
            "plan and moves the document to writing",
            drives=True,
        ),
        Operation(
            tool="get_chunk",
            command="get-chunk",
            title="Read a chunk",
            doc="A chunk's plan entry (elements, pages, words, title, why it ends) and its "
            "full Markdown content.",
            help="A chunk's plan entry and full Markdown content.",
            input="ChunkIn",
            output="ChunkOut",
            call=lambda rt, doc_id, a: _agent().get_chunk(rt, doc_id, a.chunk),
            params=(CHUNK,),
        ),
        Operation(
            tool="get_chunk_analysis_context",
            command="analysis-context",
            title="Get a chunk's analysis context",
            doc="A chunk's full content with its headings, key terms, neighbours' titles and "
            "the safe cuts inside it, for writing its analysis (bilingual topic and study "
            "focus, coherence).",
            help="A chunk's full content, neighbours' titles and key terms, for an analysis.",
            input="ChunkIn",
            output="AnalysisContextOut",
            call=lambda rt, doc_id, a: _agent().analysis_context(rt, doc_id, a.chunk),
            params=(CHUNK,),
            changes="records that you read this chunk (the study index needs every chunk read)",
            idempotent=True,
        ),
        Operation(
            tool="commit_chunk_analysis",
            command="commit-analysis",
            title="Commit a chunk analysis",
            doc="Store your analysis of a chunk: topic_en (it becomes the file name), "
            "topic_fa and study_focus_fa in Persian script, study_focus_en, coherence "
            "(needs_review: the chunk joins unrelated topics) and a reason. Generic or "
            "template text is refused.",
            help="Validate and store a chunk analysis; the document is retitled and re-verified.",
            input="CommitAnalysisIn",
            output="AnalysisOut",
            call=lambda rt, doc_id, a: _agent().commit_analysis(
                rt, doc_id, a.chunk, _plain(a.analysis), revision=a.revision
            ),
            params=(
                CHUNK,
                REVISION,
                Param(
                    "analysis",
                    "--json",
                    "json-file",
                    help="The analysis JSON (topic_en, topic_fa, study_focus_en, "
                    "study_focus_fa, coherence, reason); '-' reads stdin.",
                ),
            ),
            changes="replaces the chunk's analysis (new revision); write_chunks then "
            "retitles, rewrites and re-verifies the chunks",
            destructive=True,
            drives=True,
        ),
        Operation(
            tool="get_boundary_repair_context",
            command="repair-context",
            title="Get a chunk's repair candidates",
            doc="The safe cut candidates strictly inside a chunk, with the sizes a split "
            "there would give, for a split-only repair of an incoherent chunk.",
            help="The safe candidates strictly inside a chunk, for a split-only repair.",
            input="ChunkIn",
            output="RepairContextOut",
            call=lambda rt, doc_id, a: _agent().repair_context(rt, doc_id, a.chunk),
            params=(CHUNK,),
        ),
        Operation(
            tool="repair_chunk_boundaries",
            command="repair-boundary",
            title="Split a chunk",
            doc="Split one chunk at one listed inner candidate (never a merge or a moved "
            "boundary). Call again for more splits, then write_chunks.",
            help="Split a chunk at one listed inner candidate; later chunks are renumbered.",
            input="RepairIn",
            output="RepairOut",
            call=lambda rt, doc_id, a: _agent().repair_boundary(
                rt,
                doc_id,
                a.chunk,
                revision=a.revision,
                element_id=a.element_id,
                reason=a.reason,
            ),
            params=(
                CHUNK,
                REVISION,
                Param("element_id", "--element-id"),
                Param("reason", "--reason"),
            ),
            changes="replaces the plan with the chunk split in two (later chunks are "
            "renumbered); write_chunks then rewrites and re-verifies",
            destructive=True,
            cli_output=lambda plan: {"chunks": len(plan.chunks)},
            drives=True,
        ),
        Operation(
            tool="get_study_index_context",
            command="index",
            title="Get the study index context",
            doc="The verified chunk metadata to write the study indexes from (files, topics, "
            "pages, minutes at 80 words per minute), the rules they must follow, and the "
            "chunks you have not read yet (commit_study_index refuses until that list is "
            "empty).",
            help="The verified chunk metadata a study index is written from.",
            input="DocIn",
            output="IndexContextOut",
            call=lambda rt, doc_id, a: _agent().index_context(rt, doc_id),
            params=(),
        ),
        Operation(
            tool="commit_study_index",
            command="commit-index",
            title="Commit the study index",
            doc="Store your study indexes: each links every chunk file, states each chunk's "
            "and the total study time ('N min'), and the fa index is in Persian. Refused "
            "until every chunk's analysis context was read.",
            help="Validate and store study-index-en.md, study-index-fa.md and study-map.md.",
            input="CommitIndexIn",
            output="CommitIndexOut",
            call=lambda rt, doc_id, a: _agent().commit_index(
                rt, doc_id, revision=a.revision, en=a.en, fa=a.fa, study_map=a.study_map
            ),
            params=(
                REVISION,
                Param("en", "--en", "file"),
                Param("fa", "--fa", "file"),
                Param("study_map", "--map", "file"),
            ),
            changes="replaces study-index-en.md, study-index-fa.md and study-map.md (new "
            "revision) and exports them",
            destructive=True,
        ),
    ]
}
