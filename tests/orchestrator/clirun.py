"""Running `orchestrate` in this process (Typer's CliRunner) and checking how it ended."""

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from typer.testing import CliRunner

from orchestrator.cli import app
from workers.settings import configure

runner = CliRunner()


def orchestrate(*args):
    """The result of `orchestrate ARGS...`, each argument turned into text."""
    return runner.invoke(app, [str(a) for a in args])


def ok(result):
    """The result, which must have exited 0."""
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def assert_usage_error(result, message: str) -> None:
    """Exit 2 with one `error:` line on stderr naming the problem, and no traceback."""
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert message in lines[0], lines[0]
    assert "Traceback" not in result.output


@contextmanager
def local_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No broker and no database from the environment; the CLI's overrides undone at the end."""
    for name in ("SLIDELAB_DATABASE_URL", "SLIDELAB_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    configure()
    yield
    configure()
