"""Where things live in the object store (DESIGN §2): the one place key names are spelled.

docs/{doc_id}/source.{pdf|docx|epub}     the uploaded bytes (doc_id = their sha256)
docs/{doc_id}/source.htmlz               HTML: the bundle of its chapters and images
docs/{doc_id}/session/rev-{n:08d}.json   the job's revisions, each written once
docs/{doc_id}/work/...                   intermediate results, keyed by part
docs/{doc_id}/out/...                    the output folder, exported as it is
batches/{batch_id}.json                  a batch's record
"""

from __future__ import annotations

import re

DOCS = "docs/"
BATCHES = "batches/"
# keys whose bytes never change: sources are stored under their own content hash
IMMUTABLE = re.compile(r"^docs/[0-9a-f]{64}/source\.(pdf|docx|epub|htmlz)$")
_REVISION = re.compile(r"/session/rev-(\d{8})\.json$")


def doc(doc_id: str) -> str:
    return f"{DOCS}{doc_id}/"


def source(doc_id: str, fmt: str) -> str:
    return f"{DOCS}{doc_id}/source.{'htmlz' if fmt == 'html' else fmt}"


def job_revisions(doc_id: str) -> str:
    # "session/": the job's name in stores written before it was called a job (kept so
    # they stay readable; see shared/job.py)
    return f"{DOCS}{doc_id}/session/"


def revision(doc_id: str, rev: int) -> str:
    return f"{job_revisions(doc_id)}rev-{rev:08d}.json"


def revision_number(key: str) -> int | None:
    """The revision a job key holds, or None for any other key."""
    m = _REVISION.search(key)
    return int(m.group(1)) if m else None


def doc_id_of(key: str) -> str:
    return key[len(DOCS) :].split("/", 1)[0]


def work(doc_id: str, name: str = "") -> str:
    return f"{DOCS}{doc_id}/work/{name}"


def out(doc_id: str, name: str = "") -> str:
    return f"{DOCS}{doc_id}/out/{name}"


def batch(batch_id: str) -> str:
    return f"{BATCHES}{batch_id}.json"


def batch_id_of(key: str) -> str:
    return key[len(BATCHES) : -len(".json")]
