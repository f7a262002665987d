"""Any external agent as a backend: one process per call, JSON task in, JSON answer out.

The contract. `QUIRE_AGENT_COMMAND` (split with shlex, run without a shell) receives on
stdin one JSON object `{"task", "system", "user", "schema", "mode"}`:

- `schema`: the JSON schema the answer must match; `task`: which Quire task asks;
- `mode`: how Quire asks for structured output (see `structured`): `json_schema` (enforce
  the schema, e.g. pass it to a model server as a strict response format), `json_object`
  (answer in JSON; the schema is also spelt out at the end of `system`) or `text` (the
  same, for a model that only writes text).

It prints the answer on stdout and exits 0: one JSON object matching the schema, or text
containing one (in a code fence, or the first `{...}` that parses). Quire validates it with
the same models as every backend and re-asks with the error, so a program may simply pass
the prompts to a model. A program that cannot serve the mode exits with status 3
(`UNSUPPORTED_MODE_EXIT`): Quire asks again at once in the next mode and remembers the one
that worked for this command line. Any other non-zero exit or a timeout is retried after a
pause; output that is too large, not JSON or off-schema is re-asked. To have its tokens
counted in the run's usage report, a program writes a line on stderr
`quire-usage: {"prompt_tokens": N, "completion_tokens": M}` (the last such line counts).
See `bench/openai_agent.py` for a program that forwards to an OpenAI-compatible server.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
from typing import IO

from pydantic import BaseModel, NonNegativeInt, ValidationError

from quire.shared.errors import BackendError
from quire.shared.settings import Settings
from quire.workers.llm.base import BackendSettings, Reply, RetryingBackend
from quire.workers.llm.retry import InvalidAnswer, TransientFault
from quire.workers.llm.structured import UNSUPPORTED_MODE_EXIT, Mode, ModeRefused, system_for

DEFAULT_MAX_OUTPUT = 1 << 20  # bytes of stdout accepted from one run
_STDERR_TAIL = 2000
_USAGE_LINE = re.compile(rb"^quire-usage:[ \t]*(\{.*\})[ \t]*\r?$", re.M)


class Tokens(BaseModel):
    """What a program says a call cost; tokens it does not name cost nothing here."""

    prompt_tokens: NonNegativeInt = 0
    completion_tokens: NonNegativeInt = 0


def reported_tokens(stderr: bytes) -> Tokens:
    """The last `quire-usage:` line of a program's stderr; a malformed one counts nothing
    (usage is a report, never a reason to refuse a good answer)."""
    lines = _USAGE_LINE.findall(stderr)
    if not lines:
        return Tokens()
    try:
        return Tokens.model_validate_json(lines[-1])
    except ValidationError:
        return Tokens()


class CommandBackend(RetryingBackend):
    """`QUIRE_AGENT_TIMEOUT` (default: QUIRE_BACKEND_TIMEOUT) bounds each run."""

    name = "command"
    negotiates = True

    def __init__(
        self,
        *,
        env: Settings,
        command: str | None = None,
        settings: BackendSettings | None = None,
        timeout: float | None = None,
        max_output: int = DEFAULT_MAX_OUTPUT,
    ) -> None:
        super().__init__(settings or BackendSettings.from_settings(env))
        line = command or env.agent_command
        if not line:
            raise BackendError("QUIRE_AGENT_COMMAND is not set; it is required for this backend")
        try:
            self.argv = shlex.split(line)
        except ValueError as exc:
            raise BackendError(f"QUIRE_AGENT_COMMAND cannot be parsed: {exc}") from exc
        if not self.argv:
            raise BackendError("QUIRE_AGENT_COMMAND is empty")
        if shutil.which(self.argv[0]) is None:
            raise BackendError(
                f"QUIRE_AGENT_COMMAND: program {self.argv[0]!r} not found or not executable"
            )
        self.timeout = timeout or env.agent_timeout or self.settings.timeout
        self.max_output = max_output
        self._describe(line, "")  # modes are remembered per command line
        self.usage.endpoint = os.path.basename(self.argv[0])  # reports: no arguments (secrets)

    def _request(
        self, *, system: str, user: str, schema: type[BaseModel], task: str, mode: Mode
    ) -> Reply:
        json_schema = schema.model_json_schema()
        payload = json.dumps(
            {
                "task": task,
                "system": system_for(system, json_schema, mode),
                "user": user,
                "schema": json_schema,
                "mode": mode,
            },
            ensure_ascii=False,
        ).encode("utf-8")
        return self._run(payload, task)

    def _run(self, payload: bytes, task: str) -> Reply:
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # own group: kill it all
            )
        except OSError as exc:
            raise BackendError(f"command {task}: cannot start {self.argv[0]!r}: {exc}") from exc
        assert proc.stdin and proc.stdout and proc.stderr
        out = bytearray()
        err = bytearray()
        oversize = threading.Event()

        def kill() -> None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)

        def feed(stream: IO[bytes]) -> None:
            try:
                stream.write(payload)
                stream.close()
            except OSError:  # the command exited without reading it all
                pass

        def drain_stdout(stream: IO[bytes]) -> None:
            while chunk := os.read(stream.fileno(), 65536):
                out.extend(chunk)
                if len(out) > self.max_output:
                    oversize.set()
                    kill()
                    return

        def drain_stderr(stream: IO[bytes]) -> None:
            while chunk := os.read(stream.fileno(), 65536):
                err.extend(chunk)
                del err[:-_STDERR_TAIL]

        threads = [
            threading.Thread(target=feed, args=(proc.stdin,), daemon=True),
            threading.Thread(target=drain_stdout, args=(proc.stdout,), daemon=True),
            threading.Thread(target=drain_stderr, args=(proc.stderr,), daemon=True),
        ]
        for thread in threads:
            thread.start()
        try:
            proc.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            kill()
            proc.wait()
            raise TransientFault(f"command timed out after {self.timeout:g}s") from None
        finally:
            for thread in threads:
                thread.join(timeout=5)
            for stream in (proc.stdout, proc.stderr):
                stream.close()
        if oversize.is_set():
            raise InvalidAnswer(f"command output exceeds {self.max_output} bytes")
        tail = err.decode("utf-8", "replace").strip()[-300:]
        if proc.returncode == UNSUPPORTED_MODE_EXIT:
            raise ModeRefused(f"command exited with status {UNSUPPORTED_MODE_EXIT}: {tail}")
        if proc.returncode != 0:
            raise TransientFault(f"command exited with status {proc.returncode}: {tail}")
        return Reply(bytes(out), **reported_tokens(bytes(err)).model_dump())
