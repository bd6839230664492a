"""docker-compose.yml: the stack the README documents, equal to what the end-to-end tests run.

No Docker engine runs here; where the compose plugin exists, `docker compose config` must pass.
"""

import shutil
import subprocess

import pytest
import yaml
from typer.testing import CliRunner

from orchestrator.cli import app
from tests.conftest import ROOT

COMPOSE = ROOT / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_services(compose):
    assert set(compose["services"]) == {"redis", "postgres", "migrate", "worker", "orchestrator"}


def test_redis_keeps_its_queue_and_never_evicts(compose):
    command = compose["services"]["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    assert compose["services"]["redis"]["volumes"]


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


@pytest.mark.skipif(
    shutil.which("docker") is None
    or subprocess.run(["docker", "compose", "version"], capture_output=True).returncode != 0,
    reason="the docker compose plugin is not installed",
)
def test_docker_compose_config_passes():
    subprocess.run(["docker", "compose", "-f", str(COMPOSE), "config", "--quiet"], check=True)


def test_the_image_finds_its_migrations_and_shares_its_kernel_cache(compose):
    """migrate.py reads migrations/ beside the package, so the image installs the code in place (editable)."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "COPY migrations migrations" in dockerfile and "pip install --no-cache-dir -e ." in dockerfile
    assert "kernel-cache:/root/.cache/slidelab" in compose["x-slidelab"]["volumes"]
