"""The agent loop: an external agent reads contexts and commits decisions (JSON on stdout)."""

from __future__ import annotations

from typing import Any

import click

from quire.orchestrator.cli.app import clean_errors, emit, err, main
from quire.orchestrator.service import resolve_doc


def _agent_rt() -> tuple[Any, Any]:
    from quire.orchestrator import agent
    from quire.workers.runtime import Runtime

    return agent, Runtime.from_env()


def _continue(rt: Any, doc_id: str) -> None:
    """After a commit that moved the document on, drive it to its next stop."""
    from quire.orchestrator.service import process_documents

    if rt.repo.load(doc_id).state not in ("awaiting_decision", "complete", "failed"):
        process_documents(rt, [doc_id], console=err)


doc_arg = click.argument("ident")
chunk_opt = click.option("--chunk-id", "chunk", type=int, required=True)
revision_opt = click.option(
    "--revision", type=int, required=True, help="The revision the context was read at."
)


@main.command("boundary-context")
@doc_arg
@clean_errors
def boundary_context_cmd(ident: str) -> None:
    """The window and safe candidates for the next boundary decision."""
    agent, rt = _agent_rt()
    emit(agent.boundary_context(rt, resolve_doc(rt, ident)))


@main.command("commit-boundary")
@doc_arg
@revision_opt
@click.option("--action", type=click.Choice(["cut", "extend"]), required=True)
@click.option("--element-id", default=None, help="For cut: a listed candidate's after_id.")
@click.option("--reason", required=True)
@click.option("--evidence", multiple=True, help="Element ids supporting the decision.")
@clean_errors
def commit_boundary_cmd(
    ident: str,
    revision: int,
    action: str,
    element_id: str | None,
    reason: str,
    evidence: tuple[str, ...],
) -> None:
    """Validate and record one boundary decision (refused when stale or invalid)."""
    agent, rt = _agent_rt()
    doc_id = resolve_doc(rt, ident)
    snap = agent.commit_boundary(
        rt,
        doc_id,
        revision=revision,
        action=action,
        element_id=element_id,
        reason=reason,
        evidence=list(evidence),
    )
    _continue(rt, doc_id)
    emit(snap)


@main.command("get-chunk")
@doc_arg
@chunk_opt
@clean_errors
def get_chunk_cmd(ident: str, chunk: int) -> None:
    """A chunk's plan entry and full Markdown content."""
    agent, rt = _agent_rt()
    emit(agent.get_chunk(rt, resolve_doc(rt, ident), chunk))


@main.command("analysis-context")
@doc_arg
@chunk_opt
@clean_errors
def analysis_context_cmd(ident: str, chunk: int) -> None:
    """A chunk's full content, neighbours' titles and key terms, for an analysis."""
    agent, rt = _agent_rt()
    emit(agent.analysis_context(rt, resolve_doc(rt, ident), chunk))


@main.command("commit-analysis")
@doc_arg
@chunk_opt
@revision_opt
@click.option(
    "--json",
    "answer_file",
    type=click.File("r"),
    required=True,
    help="The analysis JSON (topic_en, topic_fa, study_focus_en, study_focus_fa, "
    "coherence, reason); '-' reads stdin.",
)
@clean_errors
def commit_analysis_cmd(ident: str, chunk: int, revision: int, answer_file: Any) -> None:
    """Validate and store a chunk analysis; the document is retitled and re-verified."""
    import json

    agent, rt = _agent_rt()
    doc_id = resolve_doc(rt, ident)
    analysis = agent.commit_analysis(rt, doc_id, chunk, json.load(answer_file), revision=revision)
    _continue(rt, doc_id)
    emit(analysis)


@main.command("repair-context")
@doc_arg
@chunk_opt
@clean_errors
def repair_context_cmd(ident: str, chunk: int) -> None:
    """The safe candidates strictly inside a chunk, for a split-only repair."""
    agent, rt = _agent_rt()
    emit(agent.repair_context(rt, resolve_doc(rt, ident), chunk))


@main.command("repair-boundary")
@doc_arg
@chunk_opt
@revision_opt
@click.option("--element-id", required=True)
@click.option("--reason", required=True)
@clean_errors
def repair_boundary_cmd(
    ident: str, chunk: int, revision: int, element_id: str, reason: str
) -> None:
    """Split a chunk at one listed inner candidate; later chunks are renumbered."""
    agent, rt = _agent_rt()
    doc_id = resolve_doc(rt, ident)
    plan = agent.repair_boundary(
        rt, doc_id, chunk, revision=revision, element_id=element_id, reason=reason
    )
    _continue(rt, doc_id)
    emit({"chunks": len(plan.chunks)})


@main.command("index")
@doc_arg
@clean_errors
def index_cmd(ident: str) -> None:
    """The verified chunk metadata a study index is written from."""
    agent, rt = _agent_rt()
    emit(agent.index_context(rt, resolve_doc(rt, ident)))


@main.command("commit-index")
@doc_arg
@revision_opt
@click.option("--en", type=click.File("r"), required=True)
@click.option("--fa", type=click.File("r"), required=True)
@click.option("--map", "study_map", type=click.File("r"), required=True)
@clean_errors
def commit_index_cmd(ident: str, revision: int, en: Any, fa: Any, study_map: Any) -> None:
    """Validate and store study-index-en.md, study-index-fa.md and study-map.md."""
    agent, rt = _agent_rt()
    emit(
        agent.commit_index(
            rt,
            resolve_doc(rt, ident),
            revision=revision,
            en=en.read(),
            fa=fa.read(),
            study_map=study_map.read(),
        )
    )
