"""One dispatcher: embedded and distributed are told apart in orchestrator/dispatch.py alone.

Every other module asks its `Dispatcher` to do what differs between the modes (submit,
drive, run in the background, abandoned, queue depths) instead of asking which mode it is
in. This test reads the source (ast) of shared/, workers/, orchestrator/ and quire/ and fails on a
mode question asked anywhere else:

- the names `broker_url` and `in_process` (attribute, variable, parameter, keyword);
- reading the `Deployment` (`.deployment`), whose broker decides the mode;
- a comparison with "embedded" or "distributed" (`x.mode == "embedded"`);
- the implementations `EmbeddedDispatcher` and `CeleryDispatcher` by name (`isinstance`);
- reading QUIRE_BROKER_URL from the environment directly.

The allow-list below is what defines or configures the broker without branching on it; an
entry no longer needed fails too, so the list cannot outlive its reason.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

from quire.shared.config import Environment
from quire.shared.errors import SettingsError
from quire.shared.settings import Deployment

ROOT = Path(__file__).resolve().parents[1]
FLOORS = ("shared", "workers", "orchestrator")
DISPATCH = "orchestrator/dispatch.py"  # the one place that may ask

NAMES = {"broker_url", "in_process"}
IMPLEMENTATIONS = {"EmbeddedDispatcher", "CeleryDispatcher"}
MODES = {"embedded", "distributed"}

# (file, what) -> why it may be there
ALLOWED: dict[tuple[str, str], str] = {
    (
        "shared/settings.py",
        "broker_url",
    ): "the Settings field of QUIRE_BROKER_URL; Deployment reads it",
    ("workers/app.py", "broker_url"): "configures the Celery app's broker (make_app, use_broker)",
    ("workers/runtime.py", "deployment"): "Runtime.from_env checks it at start, no branch",
}


def violations(source: str) -> list[tuple[int, str]]:
    """(line, what) of every mode question in `source`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        name: str | None = None
        if isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, ast.Name):
            name = node.id
        elif isinstance(node, (ast.arg, ast.keyword)):
            name = node.arg
        elif isinstance(node, ast.alias):
            name = node.asname or node.name.rsplit(".", 1)[-1]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = node.name
        asked = name in NAMES or name in IMPLEMENTATIONS
        if asked or (name == "deployment" and isinstance(node, ast.Attribute)):
            found.append((node.lineno, str(name)))
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for o in operands:
                if isinstance(o, ast.Constant) and o.value in MODES:
                    found.append((node.lineno, f"== {o.value!r}"))
        if _reads_broker_variable(node):
            found.append((node.lineno, "QUIRE_BROKER_URL"))
    return found


def _reads_broker_variable(node: ast.AST) -> bool:
    """os.environ["QUIRE_BROKER_URL"], os.environ.get(...), os.getenv(...)."""
    if isinstance(node, ast.Subscript):
        key = node.slice
    elif isinstance(node, ast.Call) and node.args:
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if called not in ("get", "getenv", "pop", "setdefault"):
            return False
        key = node.args[0]
    else:
        return False
    return isinstance(key, ast.Constant) and key.value == "QUIRE_BROKER_URL"


def test_no_mode_question_outside_the_dispatch_module() -> None:
    paths = [p for floor in FLOORS for p in sorted((ROOT / floor).rglob("*.py"))]
    paths += sorted((ROOT / "quire").glob("*.py"))  # the public API (its floors are links)
    wrong: list[str] = []
    used: set[tuple[str, str]] = set()
    for path in paths:
        rel = path.relative_to(ROOT).as_posix()
        if rel == DISPATCH:
            continue
        for line, what in violations(path.read_text(encoding="utf-8")):
            if (rel, what) in ALLOWED:
                used.add((rel, what))
            else:
                wrong.append(f"{rel}:{line}: {what}")
    assert not wrong, "ask the Dispatcher (orchestrator/dispatch.py) instead:\n" + "\n".join(wrong)
    assert used == set(ALLOWED), f"allow-list entries no longer needed: {set(ALLOWED) - used}"


def test_the_check_finds_each_kind_of_mode_question() -> None:
    """The checker itself: each way of asking the mode is caught, an innocent line is not."""
    asked = {
        "if rt.env.broker_url:\n    pass": "broker_url",
        "x = load_settings().broker_url": "broker_url",
        "def f(broker_url): pass": "broker_url",
        "Environment(broker_url=None)": "broker_url",
        "if dispatcher.in_process:\n    pass": "in_process",
        "ok = env.deployment.broker is None": "deployment",
        "if web.mode == 'embedded':\n    pass": "== 'embedded'",
        "if 'distributed' != report.mode:\n    pass": "== 'distributed'",
        "isinstance(d, CeleryDispatcher)": "CeleryDispatcher",
        "from quire.orchestrator.dispatch import EmbeddedDispatcher": "EmbeddedDispatcher",
        "url = os.environ.get('QUIRE_BROKER_URL')": "QUIRE_BROKER_URL",
        "url = os.environ['QUIRE_BROKER_URL']": "QUIRE_BROKER_URL",
        "url = os.getenv('QUIRE_BROKER_URL')": "QUIRE_BROKER_URL",
    }
    for source, what in asked.items():
        assert [w for _, w in violations(source)] == [what], source
    innocent = (
        "d = dispatcher_for(rt)\nd.drive(ids)\nreport = Report(mode=d.mode)\n"
        "if settings.mode == 'force':\n    pass\n"
        "NAMES = ('QUIRE_BROKER_URL', 'QUIRE_REDIS_URL')\n"
    )
    assert violations(innocent) == []


# --- the Deployment's rules ----------------------------------------------------------------


def _refusal(**fields: str) -> str:
    try:
        Deployment(**fields)
    except SettingsError as exc:
        return str(exc)
    raise AssertionError(f"accepted: {fields}")


def test_embedded_takes_any_stores() -> None:
    """No broker: everything runs in this process, which sees every store."""
    for revisions in (None, "redis://db:6379/1"):
        for store in (".quire/store", "file:///srv/q", "s3://bucket/q"):
            d = Deployment(revisions=revisions, store=store)
            assert d.mode == "embedded"
    assert Deployment(broker="", store="/srv/q").mode == "embedded"  # empty: unset


def test_distributed_needs_redis_revisions_and_s3_objects() -> None:
    ok = Deployment(broker="redis://db:6379/0", revisions="redis://db:6379/1", store="s3://b/q")
    assert ok.mode == "distributed"
    sqlite = _refusal(broker="redis://db:6379/0", store="s3://b/q")
    assert "SQLite revision store" in sqlite and "set QUIRE_REDIS_URL=redis://…," in sqlite
    folder = _refusal(broker="redis://db:6379/0", revisions="redis://db:6379/1", store="/srv/q")
    assert "folder store /srv/q" in folder and "QUIRE_STORE_URL=s3://" in folder
    file_url = _refusal(
        broker="redis://db:6379/0", revisions="redis://db:6379/1", store="file:///srv/q"
    )
    assert "folder store file:///srv/q" in file_url
    both = _refusal(broker="amqp://mq//", store=".quire/store")
    assert "SQLite revision store" in both and "folder store .quire/store" in both
    for message in (sqlite, folder, file_url, both):
        assert "\n" not in message and "another host" in message
        assert message.startswith("QUIRE_BROKER_URL is set")
        assert message.endswith("or unset QUIRE_BROKER_URL to run embedded")


def test_the_runtime_refuses_a_deployment_that_cannot_work(tmp_path: Path) -> None:
    """Checked at start: before a store is opened or the state folder made."""
    from quire.workers.runtime import Runtime

    env = Environment(
        broker_url="redis://127.0.0.1:1/0",
        redis_url="redis://127.0.0.1:1/1",
        store_url=str(tmp_path / "store"),
        state_dir=tmp_path / "state",
    )
    try:
        Runtime.from_env(env)
    except SettingsError as exc:
        assert "folder store" in str(exc)
    else:
        raise AssertionError("a broker with a folder store was accepted")
    assert not (tmp_path / "state").exists() and not (tmp_path / "store").exists()


def test_commands_and_workers_refuse_it_in_one_line(tmp_path: Path) -> None:
    """Through the real commands: `quire worker` refuses before it connects to the broker
    (nothing listens on port 1), `quire status` before it opens a store."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUIRE_", "AWS_"))}
    env |= {
        "QUIRE_BROKER_URL": "redis://127.0.0.1:1/0",
        "QUIRE_STORE_URL": str(tmp_path / "store"),
        "QUIRE_STATE_DIR": str(tmp_path / "state"),
    }
    for command in (["worker"], ["status"], ["batch", str(tmp_path)]):
        done = subprocess.run(
            [sys.executable, "-m", "quire.orchestrator.cli", *command],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        assert done.returncode == 2, (command, done.stderr)
        assert done.stderr.count("\n") == 1, (command, done.stderr)
        assert (
            "QUIRE_BROKER_URL is set, but a Celery worker on another host could not see "
            "the SQLite revision store in QUIRE_STATE_DIR or the folder store"
        ) in done.stderr
    assert not (tmp_path / "state").exists() and not (tmp_path / "store").exists()


# --- what each dispatcher does where the modes differ ----------------------------------------


def test_each_dispatcher_does_what_its_mode_needs(tmp_path: Path) -> None:
    """Embedded: submitted documents are left to this process to drive, a stopped run's
    waiting document is abandoned, the background is a process of our own; no queues.
    Distributed (a Redis-less broker URL: nothing is sent here): nothing is abandoned, a
    small document does not change how it runs, and there are no Redis queues to read."""
    import sys
    import time

    from pipeline_utils import SAMPLE_DOCX

    from quire.orchestrator.dispatch import EmbeddedDispatcher, dispatcher_for
    from quire.shared.config import RunSettings
    from quire.shared.job import JobRepo
    from quire.workers.execute import submit
    from quire.workers.runtime import Runtime

    rt = Runtime.from_env(
        Environment(store_url=str(tmp_path / "store"), state_dir=tmp_path / "state")
    )
    s = submit(rt, SAMPLE_DOCX, RunSettings())
    embedded = dispatcher_for(rt, processes=3)
    assert embedded.mode == "embedded"
    assert embedded.submit([s.doc_id, s.doc_id]) == [s.doc_id, s.doc_id]
    assert embedded.pending([s.doc_id, s.doc_id]) == [s.doc_id]
    assert embedded.abandoned(s)  # queued, and no run holds its lease
    assert embedded.queue_depths() is None
    asked: list[bool] = []

    def answer(small: bool) -> Callable[[], bool]:
        def small_enough() -> bool:
            asked.append(small)
            return small

        return small_enough

    assert embedded.single_process_if(answer(False)) is embedded
    alone = embedded.single_process_if(answer(True))
    assert asked == [False, True]
    assert isinstance(alone, EmbeddedDispatcher) and alone.processes == 1
    log = tmp_path / "state" / "batches" / "b.log"
    where = embedded.run_in_background(
        [s.doc_id], [sys.executable, "-c", "print('driven here')"], log
    )
    assert where == f"a background process (log: {log})"
    deadline = time.monotonic() + 30
    while "driven here" not in (log.read_text() if log.exists() else ""):
        assert time.monotonic() < deadline
        time.sleep(0.1)

    # the same store and revisions, as a distributed deployment names them
    env = Environment(
        broker_url="amqp://127.0.0.1:1//", redis_url="redis://127.0.0.1:1/1", store_url="s3://b/q"
    )
    remote = Runtime(
        env=env, store=rt.store, revisions=rt.revisions, repo=JobRepo(rt.store, rt.revisions)
    )
    distributed = dispatcher_for(remote)
    assert distributed.mode == "distributed"
    assert not distributed.abandoned(s)
    assert distributed.queue_depths() is None  # not Redis: no lists to count
    assert distributed.single_process_if(answer(True)) is distributed
    assert asked == [False, True]  # not asked: the workers run anyway
