"""Shared fixtures."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Throwaway Redis and PostgreSQL servers (or SLIDELAB_TEST_REDIS_URL / SLIDELAB_TEST_DATABASE_URL).
pytest_plugins = ["tests.services"]


@pytest.fixture(scope="session")
def boards_dir() -> Path:
    """The course Rush Hour boards, `data/boards/rushhour`."""
    return ROOT / "data" / "boards" / "rushhour"
