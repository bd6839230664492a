"""Fixtures of the workers' tests."""

import pytest

from workers.settings import configure


@pytest.fixture(autouse=True)
def fresh_settings():
    """The environment's settings in each test, whatever the one before configured."""
    configure()
    yield
    configure()
