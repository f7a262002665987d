"""A list of findings that a check adds to in one line each (`findings.add(kind, why, ...)`)."""

from __future__ import annotations

from quire.shared.manifest import Finding, FindingKind


class Findings(list[Finding]):
    def add(
        self,
        kind: FindingKind,
        message: str,
        *,
        chunk: int | None = None,
        element_id: str | None = None,
        page: int | None = None,
        out_page: int | None = None,
        file: str | None = None,
    ) -> None:
        self.append(
            Finding(
                kind=kind,
                message=message,
                chunk=chunk,
                element_id=element_id,
                page=page,
                out_page=out_page,
                file=file,
            )
        )
