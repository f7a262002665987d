"""The shared corpus as the tests see it (`../shared/corpus` beside the project root)."""

from __future__ import annotations

import fcntl
import os
import pickle
import tempfile
from pathlib import Path

from quire.shared.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    EncryptedDocumentError,
    InputError,
)
from quire.workers.parse import parse_document
from quire.workers.parse.base import ParsedDocument

# The one definition of where the corpus is: `../shared/corpus` beside the project root.
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
BIG = "r-fullrefman.pdf"  # 2,415 pages: tests that cover it do so on purpose
ALL_DOCS = (
    sorted(p.name for p in CORPUS.iterdir() if p.suffix in (".pdf", ".docx"))
    if CORPUS.is_dir()
    else []
)
DOCS = [n for n in ALL_DOCS if n != BIG]
# Files no IR can be made of (MANIFEST.md): the parser must refuse them with these reasons.
UNUSABLE: dict[str, type[InputError]] = {
    "debian-faq-password.pdf": EncryptedDocumentError,
    "liboctave-excerpt-image-only.pdf": EmptyDocumentError,
    "r-data-truncated.pdf": CorruptDocumentError,
}


def run_cache(run_id: str) -> Path:
    """Where one test run's xdist workers share their parsed corpus files."""
    return Path(tempfile.gettempdir()) / f"quire-corpus-ir-{run_id}"


_memo: dict[str, ParsedDocument] = {}


def parsed(name: str) -> ParsedDocument:
    """`parse_document` of a corpus file, run once per test run: the parser's, planner's,
    matter, RAG and script tests all read the corpus, and under xdist each worker parsed
    every file again (the 2,415-page manual alone takes a minute). The workers share the
    result through a folder named by xdist's run id (the controller removes it); a file the
    parser refuses raises its InputError every time and is not stored."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:  # one process: remember it here
        if name not in _memo:
            _memo[name] = parse_document(CORPUS / name)
        return _memo[name]
    folder = run_cache(run)
    folder.mkdir(exist_ok=True)
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other worker waits for this parse, not a second
        stored = folder / f"{name}.pickle"
        if stored.exists():
            result: ParsedDocument = pickle.loads(stored.read_bytes())
            return result
        result = parse_document(CORPUS / name)
        part = stored.with_suffix(".part")
        part.write_bytes(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
        part.replace(stored)
        return result
