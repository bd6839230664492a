"""The results database: migrations match the models, `orchestrate db upgrade` works and fails cleanly."""

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from typer.testing import CliRunner

from orchestrator.cli import app
from workers import migrate
from workers.db import Base, engine_for
from workers.settings import masked

TABLES = {"alembic_version", "boards", "board_sets", "board_set_members", "sweeps", "jobs", "results"}


def test_the_migrations_build_exactly_the_models_and_undo(tmp_path):
    url = f"sqlite:///{tmp_path / 'results.db'}"
    migrate.upgrade(url)
    engine = engine_for(url)
    assert set(sa.inspect(engine).get_table_names()) == TABLES
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    migrate.downgrade(url, "base")
    assert set(sa.inspect(engine).get_table_names()) == {"alembic_version"}


def test_db_upgrade_creates_a_new_sqlite_file_and_is_idempotent(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.db'}"
    for _ in range(2):
        result = CliRunner().invoke(app, ["db", "upgrade", "--db", url])
        assert result.exit_code == 0, result.output
        assert "newest revision" in result.output
    assert set(sa.inspect(engine_for(url)).get_table_names()) == TABLES


def test_db_upgrade_on_an_unreachable_server_fails_with_one_line_and_no_password():
    url = "postgresql+psycopg://slidelab:s3cret@127.0.0.1:1/slidelab"
    result = CliRunner().invoke(app, ["db", "upgrade", "--db", url])
    assert result.exit_code == 1
    assert result.output.startswith("error: postgresql+psycopg://slidelab:***@127.0.0.1:1/slidelab: ")
    assert "s3cret" not in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_db_upgrade_with_a_url_that_does_not_parse_is_a_usage_error():
    result = CliRunner().invoke(app, ["db", "upgrade", "--db", "not a url"])
    assert result.exit_code == 2
    assert result.output.strip() == "error: the database URL (--db or SLIDELAB_DATABASE_URL) does not parse"


def test_passwords_are_masked():
    assert masked("postgresql://u:pw@h/db") == "postgresql://u:***@h/db"
    assert masked("sqlite:///slidelab.db") == "sqlite:///slidelab.db"


def test_db_help_has_an_example():
    assert "Example" in CliRunner().invoke(app, ["db", "upgrade", "--help"]).output


def test_the_migrations_match_the_models_on_postgresql(postgres_url):
    migrate.upgrade(postgres_url)
    engine = engine_for(postgres_url)
    assert TABLES <= set(sa.inspect(engine).get_table_names())
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    migrate.downgrade(postgres_url, "base")
    assert set(sa.inspect(engine).get_table_names()) == {"alembic_version"}
    migrate.upgrade(postgres_url)
