"""The IR's record of line-end hyphens the parser took out of broken words
(`Element.joined_hyphens`): each must fall inside a word, so the source's text can be
restored from the element's (`source_text`) and a tampered record is caught."""

from __future__ import annotations

from quire.shared.ir import Document, joined_hyphens_problem
from quire.shared.manifest import Finding
from quire.workers.verify.findings import Findings


def check_joined_hyphens(doc: Document) -> list[Finding]:
    findings = Findings()
    for e in doc.elements:
        problem = joined_hyphens_problem(e) if e.joined_hyphens else None
        if problem:
            findings.add(
                "altered",
                f"{e.id}: {problem}: the source's text cannot be restored from the IR",
                element_id=e.id,
                page=e.page_first,
            )
    return findings
