"""The throwaway Redis and PostgreSQL servers of `tests.services` work, and can be broken on purpose."""

import pytest
import redis
import sqlalchemy as sa
from sqlalchemy.pool import NullPool


def test_redis_set_and_get(redis_url):
    client = redis.Redis.from_url(redis_url)
    assert client.set("slidelab:greeting", "hello")
    assert client.get("slidelab:greeting") == b"hello"
    client.delete("slidelab:greeting")


def test_redis_server_is_our_own(redis_server):
    assert redis_server.url == f"redis://127.0.0.1:{redis_server.port}/0"
    assert redis_server.port != 6379
    assert redis_server.is_running()


def test_redis_restart_loses_the_data_and_keeps_the_port(redis_server):
    client = redis.Redis.from_url(redis_server.url)
    client.set("slidelab:doomed", "1")
    port, pid = redis_server.port, redis_server.pid
    redis_server.restart(lose_data=True)
    assert (redis_server.port, redis_server.pid != pid) == (port, True)
    assert client.get("slidelab:doomed") is None  # redis-py reconnects by itself
    assert client.dbsize() == 0


def test_redis_stop_refuses_connections_and_start_brings_the_data_back(redis_server):
    client = redis.Redis.from_url(redis_server.url, socket_connect_timeout=1)
    client.set("slidelab:kept", "yes")
    redis_server.stop()
    with pytest.raises(redis.ConnectionError):
        client.ping()
    redis_server.start()
    assert client.get("slidelab:kept") == b"yes"
    redis_server.restart(lose_data=True)  # the snapshot that start() loaded does not come back
    assert client.dbsize() == 0
    client.set("slidelab:flushed", "soon")
    redis_server.flush()
    assert client.dbsize() == 0


def test_a_server_that_cannot_start_says_why(redis_server, tmp_path):
    from tests import services  # not at the top: pytest_plugins must import it first

    squatter = services.RedisServer(tmp_path, port=redis_server.port)  # the port is taken
    with pytest.raises(services.ServiceError, match=r"(?s)exited with code .*Address already in use"):
        squatter.start(timeout=10)
    assert not squatter.is_running()


def test_postgres_select_1_and_create_table(postgres_url):
    engine = sa.create_engine(postgres_url, poolclass=NullPool)
    with engine.begin() as conn:
        assert conn.execute(sa.text("SELECT 1")).scalar_one() == 1
        conn.execute(sa.text("CREATE TABLE probe_create (id serial PRIMARY KEY, name text NOT NULL)"))
        conn.execute(sa.text("INSERT INTO probe_create (name) VALUES ('a'), ('b')"))
        assert conn.execute(sa.text("SELECT count(*) FROM probe_create")).scalar_one() == 2
        conn.execute(sa.text("DROP TABLE probe_create"))
    engine.dispose()


def test_postgres_server_is_our_own(postgres_server):
    assert postgres_server.url == f"postgresql+psycopg://postgres@127.0.0.1:{postgres_server.port}/slidelab_test"
    assert postgres_server.port != 5432
    engine = sa.create_engine(postgres_server.url, poolclass=NullPool)
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT current_database()")).scalar_one() == "slidelab_test"
        assert conn.execute(sa.text("SHOW fsync")).scalar_one() == "off"


@pytest.mark.parametrize("mode", ["fast", "immediate", "kill"])
def test_postgres_stop_refuses_connections_and_start_keeps_the_data(postgres_server, mode):
    engine = sa.create_engine(postgres_server.url, pool_pre_ping=True,
                              connect_args={"connect_timeout": 2})
    table = f"probe_{mode}"
    with engine.begin() as conn:
        conn.execute(sa.text(f"CREATE TABLE {table} (v int)"))
        conn.execute(sa.text(f"INSERT INTO {table} VALUES (42)"))
    port = postgres_server.port
    postgres_server.stop(mode)
    assert not postgres_server.is_running()
    with pytest.raises(sa.exc.OperationalError), engine.connect() as conn:
        conn.execute(sa.text("SELECT 1"))
    postgres_server.start()
    assert postgres_server.port == port
    with engine.begin() as conn:
        assert conn.execute(sa.text(f"SELECT v FROM {table}")).scalar_one() == 42
        conn.execute(sa.text(f"DROP TABLE {table}"))
    engine.dispose()
