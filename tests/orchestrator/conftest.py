"""Fixtures of the orchestrator's tests."""

import pytest

from tests.orchestrator.clirun import local_environment


@pytest.fixture(autouse=True)
def local_settings(monkeypatch):
    """No broker and no database from the environment; the CLI's overrides undone after each test."""
    with local_environment(monkeypatch):
        yield
