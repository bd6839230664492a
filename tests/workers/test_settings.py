"""The settings read from the environment: an empty broker URL means no broker, a bad one is refused in one line."""

import pytest

from puzzles.errors import PuzzleError
from workers.settings import configure


def test_an_empty_broker_url_in_the_environment_means_the_local_pool(monkeypatch):
    monkeypatch.setenv("SLIDELAB_BROKER_URL", "")
    try:
        assert configure().broker_url is None
    finally:
        monkeypatch.delenv("SLIDELAB_BROKER_URL")
        configure()


def test_a_broker_url_of_another_scheme_is_refused(monkeypatch):
    monkeypatch.setenv("SLIDELAB_BROKER_URL", "http://127.0.0.1:6379/0")
    try:
        with pytest.raises(PuzzleError, match="must start with one of redis://"):
            configure()
    finally:
        monkeypatch.delenv("SLIDELAB_BROKER_URL")
        configure()
