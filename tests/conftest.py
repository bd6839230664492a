"""Shared fixtures."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def boards_dir() -> Path:
    """The course Rush Hour boards, `data/boards/rushhour`."""
    return ROOT / "data" / "boards" / "rushhour"
