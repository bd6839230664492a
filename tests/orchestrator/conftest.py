"""Fixtures of the orchestrator's tests."""

import pytest

from workers import settings as settings_module


@pytest.fixture(autouse=True)
def local_settings(monkeypatch):
    """No broker and no database from the environment; the CLI's overrides undone after each test."""
    for name in ("SLIDELAB_DATABASE_URL", "SLIDELAB_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    settings_module._current.clear()
    yield
    settings_module._current.clear()
