"""docker-compose.yml checked without a Docker engine: its YAML, the services the issue asks
for, every `quire` command parsed by the real CLI, environment names that the code reads and
the docs document, secrets only by interpolation, and MinIO's bucket + notification set-up
agreeing with the orchestrator's webhook and trigger prefix."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from pipeline_utils import ROOT

from quire.orchestrator.cli import main
from quire.shared.settings import ENV_NAMES

COMPOSE = ROOT / "docker-compose.yml"
DOCS = (ROOT / "README.md").read_text() + (ROOT / "deploy" / "OPERATIONS.md").read_text()
ENV_EXAMPLE = ROOT / "deploy" / "env.example"
SECRET = re.compile(r"(PASSWORD|SECRET|TOKEN|API_KEY|BASIC_AUTH)")
INTERPOLATION = re.compile(r"(?<!\$)\$\{([A-Z0-9_]+)(?::?([-?])([^}]*))?\}")
# read by libraries, not by our code (boto3, the LLM SDKs, Flower)
LIBRARY_ENV = {
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_DEFAULT_REGION",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "FLOWER_BASIC_AUTH",
}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text())  # resolves the <<: merge keys too
    assert isinstance(data, dict)
    return data


def quire_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The services that run `quire` (not the one-shot build check)."""
    return {
        name: svc
        for name, svc in compose["services"].items()
        if str(svc.get("image", "")).startswith("quire:") and "build" not in svc
    }


def test_the_stack_has_every_role(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert {"redis", "minio", "minio-init", "orchestrator", "flower", "metrics"} <= set(services)
    workers = [s for s in services if s.startswith("worker-")]
    served = {q for s in workers for q in services[s]["command"][2].split(",")}
    assert served == {"orchestrate", "parse", "review", "write", "render", "analysis"}
    for name, svc in services.items():
        for dep in svc.get("depends_on", []):
            assert dep in services, (name, dep)
        for volume in svc.get("volumes", []):
            assert volume.split(":")[0] in compose["volumes"], (name, volume)
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["quire"]' in dockerfile
    for package in ("shared", "workers", "orchestrator", "quire"):
        assert f"COPY {package} ./{package}" in dockerfile


def test_one_image_is_built_once_and_used_by_every_quire_service(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    built = {name: svc for name, svc in services.items() if "build" in svc}
    assert list(built) == ["quire-image"]
    assert built["quire-image"]["build"] == {"context": ".", "dockerfile": "deploy/Dockerfile"}
    image = built["quire-image"]["image"]
    assert len(quire_services(compose)) >= 6
    for name, svc in quire_services(compose).items():
        assert svc["image"] == image and svc["pull_policy"] == "never", name
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", "tests", "bench", ".venv", ".env", "**/__pycache__"} <= set(ignored)


def test_third_party_images_are_pinned(compose: dict[str, Any]) -> None:
    for name, svc in compose["services"].items():
        image = str(svc["image"])
        if image.startswith("quire:"):
            continue
        ref = image.split("@")[0]
        tag = ref.rsplit(":", 1)[1] if ":" in ref.rsplit("/", 1)[-1] else ""
        assert tag and tag != "latest" and re.search(r"\d", tag), f"{name}: {image}"
        if "minio" in image:  # frozen community releases: pinned to the bytes, too
            assert re.search(r"@sha256:[0-9a-f]{64}$", image), f"{name}: {image}"


def test_the_stack_starts_in_order(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name in ("redis", "minio"):
        assert services[name]["healthcheck"]["test"], name
    assert services["minio-init"]["depends_on"] == {"minio": {"condition": "service_healthy"}}
    for name, svc in quire_services(compose).items():
        assert svc["depends_on"] == {
            "quire-image": {"condition": "service_completed_successfully"},
            "redis": {"condition": "service_healthy"},
            "minio": {"condition": "service_healthy"},
            "minio-init": {"condition": "service_completed_successfully"},
        }, name


def test_ports_are_published_on_loopback_only(compose: dict[str, Any]) -> None:
    published = [
        (name, str(p)) for name, svc in compose["services"].items() for p in svc.get("ports", [])
    ]
    assert published
    for name, port in published:
        assert port.startswith("127.0.0.1:"), (name, port)


def test_docker_compose_validates_the_file(tmp_path: Path) -> None:
    """The real Compose implementation (Debian's docker-compose, installed by scripts/test)
    parses and validates the file against its schema, without a Docker engine."""
    env = tmp_path / "env"
    env.write_text(ENV_EXAMPLE.read_text())
    run = subprocess.run(
        ["docker-compose", "--env-file", str(env), "-f", str(COMPOSE), "config", "-q"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    broken = tmp_path / "broken.yml"
    broken.write_text(COMPOSE.read_text().replace("service_healthy", "service_ready", 1))
    run = subprocess.run(
        ["docker-compose", "--env-file", str(env), "-f", str(broken), "config", "-q"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0 and "service_ready" in run.stderr


def parse_command(args: list[str]) -> None:
    """Parse `quire ARGS` as the CLI would, without running it; UsageError when invalid."""
    ctx = click.Context(main, info_name="quire")
    sub = main.get_command(ctx, args[0])
    if sub is None:
        raise click.UsageError(f"no such command {args[0]!r}")
    sub.make_context(args[0], list(args[1:]), parent=ctx)


def test_every_command_is_a_valid_quire_command(compose: dict[str, Any]) -> None:
    for name, svc in quire_services(compose).items():
        args = [str(a) for a in svc["command"]]
        try:
            parse_command(args)
        except click.UsageError as exc:  # an unknown command or option, or a bad value
            pytest.fail(f"{name}: `quire {' '.join(args)}` is not valid: {exc}")


def test_a_bad_command_would_be_caught() -> None:
    for args in (
        ["orchestrator", "--intervall", "3"],
        ["workers", "-Q", "parse"],
        ["metrics", "--serve", "port"],
    ):
        with pytest.raises(click.UsageError):
            parse_command(args)


def test_environment_names_are_real_and_documented(compose: dict[str, Any]) -> None:
    for name, svc in quire_services(compose).items():
        for var, value in svc["environment"].items():
            assert f"`{var}`" in DOCS, f"{name}: {var} is not documented"
            assert var in LIBRARY_ENV or var in ENV_NAMES, f"{name}: nothing reads {var}"
            if SECRET.search(var):
                assert str(value).startswith("${"), f"{name}: {var} is hard-coded"
    assert "FLOWER_BASIC_AUTH" in compose["services"]["flower"]["environment"]


def test_interpolated_variables_are_in_the_env_example() -> None:
    text = COMPOSE.read_text()
    example = dict(
        line.split("=", 1)
        for line in ENV_EXAMPLE.read_text().splitlines()
        if line and not line.startswith("#")
    )
    used = {m.group(1): m.group(2) for m in INTERPOLATION.finditer(text)}
    assert used, "no interpolation found"
    for var, kind in used.items():
        assert var in example, f"{var} missing from deploy/env.example"
        if kind == "?":
            assert example[var], f"{var} is required: give an example value"
    # what `docker compose config` would do: every ${...} resolves, nothing else is left
    resolved = INTERPOLATION.sub("x", text).replace("$$", "")
    assert "$" not in resolved


def test_minio_notifies_the_orchestrator_webhook(compose: dict[str, Any]) -> None:
    services = compose["services"]
    minio_env = services["minio"]["environment"]
    orch = services["orchestrator"]
    target = next(
        k.rsplit("_", 1)[1] for k in minio_env if k.startswith("MINIO_NOTIFY_WEBHOOK_ENABLE_")
    )
    assert minio_env[f"MINIO_NOTIFY_WEBHOOK_ENABLE_{target}"] == "on"
    port = orch["command"][orch["command"].index("--webhook-port") + 1]
    assert (
        minio_env[f"MINIO_NOTIFY_WEBHOOK_ENDPOINT_{target}"] == f"http://orchestrator:{port}/events"
    )
    assert port in orch["expose"]
    assert (
        minio_env[f"MINIO_NOTIFY_WEBHOOK_AUTH_TOKEN_{target}"]
        == orch["environment"]["QUIRE_WEBHOOK_TOKEN"]
    )

    env = orch["environment"]
    bucket = env["QUIRE_TRIGGER_BUCKET"]
    assert env["QUIRE_STORE_URL"].startswith(f"s3://{bucket}/")
    store_prefix = env["QUIRE_STORE_URL"].split("/", 3)[3] + "/"
    prefix, output = env["QUIRE_TRIGGER_PREFIX"], env["QUIRE_TRIGGER_OUTPUT_PREFIX"]
    for a, b in [(prefix, output), (prefix, store_prefix)]:  # no write can notify us again
        assert not a.startswith(b) and not b.startswith(a)

    init = services["minio-init"]
    assert init["image"].startswith("quay.io/minio/mc:")
    assert "minio" in init["depends_on"]
    script = "\n".join(init["command"])
    assert f"mc mb --ignore-existing local/{bucket}" in script
    arn = f"arn:minio:sqs::{target}:webhook"
    adds = [line for line in script.splitlines() if "mc event add" in line]
    assert {line.split("--suffix ")[1].strip() for line in adds} == {".pdf", ".docx"}
    for line in adds:
        assert f"local/{bucket} {arn} --event put --prefix {prefix} " in line
