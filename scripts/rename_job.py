"""Rename the document's processing job from "session" to "job" (issue 25 item 6).

"Session" meant two things: the document's processing job (`shared/session.py`: its
state-machine position, committed as revisions) and what a student studies (a study
session: `StudySession`, `SessionOut`, the chunker's `Session`). The job becomes `Job`,
`JobRepo`, `shared/job.py`; the study session keeps its name.

Nothing persisted or public changes: the store keys (`docs/{id}/session/rev-N.json`),
JSON field names, CLI/HTTP/MCP names and `quire.api` stay as they are.

Idempotent and re-runnable after merging other branches (run from the repository root):

    python3 scripts/rename_job.py

1. `git mv` shared/session.py -> shared/job.py and tests/test_session.py -> tests/test_job.py;
2. everywhere: the module path, `SessionRepo` -> `JobRepo`, `keys.sessions(` ->
   `keys.job_revisions(`;
3. `Session` -> `Job` as a whole word in every file that imports it from the job module
   (the study-session classes named `Session` live in files that do not);
4. exact replacements, file by file, of identifiers and prose that name the job; one that
   is found nowhere, old or new (the code changed), is reported, not guessed at;
5. `ruff check --select I --fix` and `ruff format` on the files it changed (imports re-sorted).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SELF = Path(__file__).resolve()
FOLDERS = ("quire", "shared", "workers", "orchestrator", "tests", "bench", "scripts", "docs")
SUFFIXES = (".py", ".md", ".toml")

MOVES = {"shared/session.py": "shared/job.py", "tests/test_session.py": "tests/test_job.py"}

GLOBAL: list[tuple[str, str]] = [
    (r"\bquire\.shared\.session\b", "quire.shared.job"),
    (r"\bshared/session\.py\b", "shared/job.py"),
    (r"\btests/test_session\.py\b", "tests/test_job.py"),
    (r"\bSessionRepo\b", "JobRepo"),
    (r"\bkeys\.sessions\(", "keys.job_revisions("),
    (r"\breader\.session\(", "reader.job("),  # the web's Reader.session -> Reader.job
]
IMPORTS_JOB = re.compile(r"^\s*from quire\.shared\.job import [^\n]*\bSession\b", re.M)

# file -> exact (old, new) pairs, applied in order, each to every occurrence
EXACT: dict[str, list[tuple[str, str]]] = {
    "shared/job.py": [
        (
            '"""A document\'s session: its state-machine position,',
            '"""A document\'s processing job: its state-machine position,',
        ),
        ("Loads and commits sessions over", "Loads and commits jobs over"),
        ("Every document with a committed session,", "Every document with a committed job,"),
        ("def commit(self, session: Job,", "def commit(self, job: Job,"),
        ('"""Commit `session` as revision', '"""Commit `job` as revision'),
        ("doc_id = session.doc_id", "doc_id = job.doc_id"),
        ("new = session.model_copy(", "new = job.model_copy("),
        ("`change` edits the session in place", "`change` edits the job in place"),
        ("Returns the committed session or None.", "Returns the committed job or None."),
        ('"""The session as the documents listing', '"""The job as the documents listing'),
        ("A session recorded\n", "A job recorded\n"),
    ],
    "shared/keys.py": [
        (
            "docs/{doc_id}/session/rev-{n:08d}.json   the session's revisions, each written once",
            "docs/{doc_id}/session/rev-{n:08d}.json   the job's revisions, each written once",
        ),
        ("def sessions(doc_id: str) -> str:", "def job_revisions(doc_id: str) -> str:"),
        ('f"{sessions(doc_id)}rev-', 'f"{job_revisions(doc_id)}rev-'),
        ("The revision a session key holds", "The revision a job key holds"),
    ],
    "shared/engine.py": [
        ("instead of a session read", "instead of a job read"),
    ],
    "shared/revisions/base.py": [
        ("The session commit protocol", "The job commit protocol"),
    ],
    "shared/revisions/listing.py": [
        ("instead of 10,000 session reads", "instead of 10,000 job reads"),
        ("what its session at `revision` says", "what its job at `revision` says"),
    ],
    "workers/runtime.py": [
        ("revision store, session repo.", "revision store, job repo."),
    ],
    "workers/execute.py": [
        ("Returns True when the session changed.", "Returns True when the job changed."),
        (
            '"""Create the document\'s session, or return',
            '"""Create the document\'s job, or return',
        ),
        (
            "is recorded as a failed session with its reason",
            "is recorded as a failed job with its reason",
        ),
        ("a task message or a session.", "a task message or a job."),
        ("session, _ = admit_bytes(", "job, _ = admit_bytes("),
        ("    return session\n", "    return job\n"),
        ("session = Job(", "job = Job("),
        ("_admit(rt, session, data,", "_admit(rt, job, data,"),
        ("rt.repo.commit(session, expected", "rt.repo.commit(job, expected"),
        (
            "(a failed session with it was refused there)",
            "(a failed job with it was refused there)",
        ),
        ("def _admit(rt: Runtime, session: Job,", "def _admit(rt: Runtime, job: Job,"),
    ],
    "workers/steps.py": [
        ("orchestration (session read,", "orchestration (job read,"),
        ('"""The session\'s IR.', '"""The job\'s IR.'),
        ('"""The session\'s current plan version', '"""The job\'s current plan version'),
        ("# new session pointers", "# new job pointers"),
        (
            "Run one part of the session's current state.",
            "Run one part of the job's current state.",
        ),
    ],
    "orchestrator/web/reads.py": [
        ("self.rt, self.session = rt, s", "self.rt, self.job = rt, s"),
        ("self.session.", "self.job."),
        ("NotReady(self.session, what)", "NotReady(self.job, what)"),
        ("def session(self, ident: str) -> Job:", "def job(self, ident: str) -> Job:"),
    ],
    "orchestrator/web/submit.py": [
        ("returns its session and whether it is new", "returns its job and whether it is new"),
    ],
    "orchestrator/mcp/schemas.py": [
        ("as `seen` (a session, or a context read)", "as `seen` (a job, or a context read)"),
    ],
    "orchestrator/mcp/docs.py": [("def session(self) -> Job:", "def job(self) -> Job:")],
    "orchestrator/mcp/tools.py": [("doc.session()", "doc.job()")],
    "orchestrator/mcp/errors.py": [("Doc.open(ref).session()", "Doc.open(ref).job()")],
    "orchestrator/progress.py": [
        ("A callback for sessions as they move:", "A callback for jobs as they move:"),
    ],
    "orchestrator/one_document.py": [
        (
            "called with the document's session as it moves",
            "called with the document's job as it moves",
        ),
    ],
    "orchestrator/agent.py": [
        ("_review_session(", "_review_job("),
        (
            "Every read returns the session revision it was made at;",
            "Every read returns the job revision it was made at;",
        ),
        ("named in the session\n", "named in the job\n"),
        ("with the session's review layers on top.", "with the job's review layers on top."),
    ],
    "orchestrator/batch.py": [
        ("session = submit_bytes(", "job = submit_bytes("),
    ],
    "orchestrator/triggers.py": [
        ("session = submit_bytes(", "job = submit_bytes("),
    ],
    "bench/bench_web.py": [
        ("session = rt.repo.load(doc_id)", "job = rt.repo.load(doc_id)"),
    ],
    "tests/test_job.py": [
        ("new_session(", "new_job("),
        ('"""The session commit protocol and', '"""The job commit protocol and'),
        (
            "one revision lookup per pass, not a session\n    read;",
            "one revision lookup per pass, not a job\n    read;",
        ),
        ("# the settled session is not read again:", "# the settled job is not read again:"),
    ],
    "tests/fault_stack.py": [
        (
            '"""The session, waiting out a Redis restart.',
            '"""The job, waiting out a Redis restart.',
        ),
        ("until `predicate(session)` holds", "until `predicate(job)` holds"),
    ],
    "tests/library.py": [
        (
            "each document's session is\ncommitted straight",
            "each document's job is\ncommitted straight",
        ),
    ],
    "tests/pipeline_utils.py": [
        (
            "except its session revisions (the audit trail)",
            "except its job revisions (the audit trail)",
        ),
    ],
}


# A local variable holding the job: its attribute reads, in the files where every
# `session.<attribute>` is the job's.
JOB_ATTRIBUTES = re.compile(
    r"\bsession(?=\.(doc_id|revision|state|page_count|source_key|source_format|settings|fail)\b)"
)
JOB_VARIABLE_FILES = {
    "workers/execute.py",
    "orchestrator/batch.py",
    "orchestrator/triggers.py",
    "bench/bench_web.py",
}


def tracked() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", *FOLDERS], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    return [ROOT / p for p in out.split() if p.endswith(SUFFIXES) and (ROOT / p) != SELF]


def main() -> int:
    for old, new in MOVES.items():
        if (ROOT / old).exists() and not (ROOT / new).exists():
            subprocess.run(["git", "mv", old, new], cwd=ROOT, check=True)
    missing: list[tuple[str, str, str]] = []  # (file, old, new) found in neither form
    changed: list[str] = []
    texts: list[str] = []
    for path in tracked():
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        new = text
        for pattern, repl in GLOBAL:
            new = re.sub(pattern, repl, new)
        if rel == "shared/job.py" or IMPORTS_JOB.search(new):
            new = re.sub(r"\bSession\b", "Job", new)
        if rel in JOB_VARIABLE_FILES:
            new = JOB_ATTRIBUTES.sub("job", new)
        for old, repl in EXACT.get(rel, []):
            if old in new:
                new = new.replace(old, repl)
            elif repl not in new:
                missing.append((rel, old, repl))
        texts.append(new)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(rel)
    if changed:
        ruff = [sys.executable, "-m", "ruff"]
        py = [p for p in changed if p.endswith(".py")]
        subprocess.run([*ruff, "check", "-q", "--select", "I", "--fix", *py], cwd=ROOT)
        subprocess.run([*ruff, "format", "-q", *py], cwd=ROOT, check=True)
    print(f"renamed in {len(changed)} files")
    for rel, old, repl in missing:
        if not any(repl in t for t in texts):  # else the code moved to another file, renamed
            print(f"not found (left alone): {rel}: {old!r}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
