"""The results database: migrations match the schema and convert stored rows, `orchestrate db upgrade` works and
fails cleanly."""

import json
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from typer.testing import CliRunner

from orchestrator.cli import app
from workers.store import masked
from workers.store.database import SCHEMA_HEAD, engine_for
from workers.store.migrate import VERSION_TABLE, compare_type, downgrade, head_revision, upgrade
from workers.store.schema import metadata

BEFORE_RESTRUCTURING = Path(__file__).resolve().parents[1] / "data" / "results-0004.db"  # made by the code of schema 0004

TABLES = {"slidelab_version", "boards", "board_sets", "board_set_members", "sweeps", "jobs", "results", "workers"}


def _context(connection) -> MigrationContext:
    """A migration context on slidelab's version table, as the migrations see the database."""
    return MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE, "compare_type": compare_type})


def test_the_migrations_build_exactly_the_models_and_undo(tmp_path):
    url = f"sqlite:///{tmp_path / 'results.db'}"
    upgrade(url)
    engine = engine_for(url)
    assert set(sa.inspect(engine).get_table_names()) == TABLES
    with engine.connect() as connection:
        assert compare_metadata(_context(connection), metadata) == []
    downgrade(url, "base")
    assert set(sa.inspect(engine).get_table_names()) == {"slidelab_version"}


def test_the_revision_opening_checks_without_alembic_is_the_newest_migration(tmp_path):
    assert SCHEMA_HEAD == head_revision(f"sqlite:///{tmp_path / 'any.db'}")


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
    assert result.output.strip() == "error: the database URL (--db or SLIDELAB_DATABASE_URL) is not valid: it does not parse"


def test_passwords_are_masked():
    assert masked("postgresql://u:pw@h/db") == "postgresql://u:***@h/db"
    assert masked("sqlite:///slidelab.db") == "sqlite:///slidelab.db"


def test_db_help_has_an_example():
    assert "Example" in CliRunner().invoke(app, ["db", "upgrade", "--help"]).output


def test_the_migrations_match_the_models_on_postgresql(postgres_url):
    upgrade(postgres_url)
    engine = engine_for(postgres_url)
    assert TABLES <= set(sa.inspect(engine).get_table_names())
    with engine.connect() as connection:
        assert compare_metadata(_context(connection), metadata) == []
    downgrade(postgres_url, "base")
    assert set(sa.inspect(engine).get_table_names()) == {"slidelab_version"}
    upgrade(postgres_url)


def _old_rows(url: str) -> None:
    """Rows as schema 0004 kept them: a job that raised was `failed`, one given back was `pending`, results had a status."""
    with engine_for(url).begin() as connection:
        connection.execute(sa.text(
            "INSERT INTO boards (id, domain, size, name, canonical_text) VALUES ('b1', 'rushhour', 6, 'b', '{}')"))
        connection.execute(sa.text(
            "INSERT INTO sweeps (id, name, created_at, spec, limits) VALUES (1, 's', '2026-11-30', '{}', '{}')"))
        for job_id, status in enumerate(("done", "failed", "pending", "failed", "done"), 1):
            connection.execute(sa.text(
                "INSERT INTO jobs (id, sweep_id, board_id, algorithm, params, repeat, job_key, status, attempts, created_at)"
                f" VALUES ({job_id}, 1, 'b1', 'bfs', '{{}}', {job_id}, 'k{job_id}', '{status}', 1, '2026-11-30')"))
        for job_id, status, moves in ((1, "solved", 21), (2, "error", None), (5, "failed", None)):
            connection.execute(sa.text(
                "INSERT INTO results (job_id, status, moves, expanded, generated, max_frontier, stored, elapsed_s,"
                " peak_mem_bytes, created_at, host) VALUES"
                f" ({job_id}, '{status}', {'NULL' if moves is None else moves}, 1, 2, 3, 4, 0.5, 9, '2026-11-30', 'h')"))


def _states(url: str, column: str) -> list[tuple]:
    query = f"SELECT jobs.id, jobs.status, results.{column}, results.moves FROM jobs LEFT JOIN results ON results.job_id = jobs.id ORDER BY jobs.id"
    with engine_for(url).connect() as connection:
        return [tuple(row) for row in connection.execute(sa.text(query))]


def _convert_and_undo(url: str) -> None:
    upgrade(url, "0004")
    _old_rows(url)
    upgrade(url)
    assert _states(url, "outcome") == [  # a job that raised is done with outcome error; one without a result is pending
        (1, "done", "solved", 21), (2, "done", "error", None), (3, "pending", None, None), (4, "pending", None, None),
        (5, "done", "failed", None)]
    with engine_for(url).connect() as connection:
        assert compare_metadata(_context(connection), metadata) == []
        outcomes = connection.execute(sa.text("SELECT id, outcome FROM jobs ORDER BY id")).all()
    assert [tuple(row) for row in outcomes] == [  # a done job's row repeats its result's outcome (0008)
        (1, "solved"), (2, "error"), (3, None), (4, None), (5, "failed")]
    downgrade(url, "0004")
    assert _states(url, "status") == [
        (1, "done", "solved", 21), (2, "failed", "error", None), (3, "pending", None, None), (4, "pending", None, None),
        (5, "done", "failed", None)]


def test_the_status_migration_converts_stored_rows_on_sqlite_and_undoes(tmp_path):
    _convert_and_undo(f"sqlite:///{tmp_path / 'old.db'}")


def test_the_status_migration_converts_stored_rows_on_postgresql_and_undoes(postgres_url):
    downgrade(postgres_url, "base")
    try:
        _convert_and_undo(postgres_url)
    finally:
        downgrade(postgres_url, "base")
        upgrade(postgres_url)


@pytest.mark.slow
def test_a_sweep_run_before_the_restructuring_verifies_identical_after_it(tmp_path):
    """The restructuring (issue 13) changed no result; since then spr merges a vehicle's consecutive slides (issue 14)."""
    copy = tmp_path / "before.db"
    shutil.copy(BEFORE_RESTRUCTURING, copy)
    url = f"sqlite:///{copy}"
    old = CliRunner().invoke(app, ["verify", "rushhour-0004", "--db", url])  # reading never migrates
    assert old.exit_code == 2 and "schema is at revision 0004" in old.stderr and "orchestrate db upgrade" in old.stderr
    assert CliRunner().invoke(app, ["db", "upgrade", "--db", url]).exit_code == 0
    for sweep, jobs in (("rushhour-0004", 22), ("npuzzle-0004", 60)):
        run = CliRunner().invoke(app, ["verify", sweep, "--json", "--db", url])
        assert run.exit_code == 1, run.output  # 1: every result came from another code version
        outcome = json.loads(run.stdout)
        summary, differences = outcome["summary"], outcome["differences"]
        assert {difference["algorithm"] for difference in differences} <= {"spr"}
        assert {difference["field"] for difference in differences} <= {"moves", "steps", "solution"}
        merged = len({difference["job_id"] for difference in differences})
        assert summary["checked"] == jobs and summary["identical"] == jobs - merged and summary["differing"] == merged
        assert summary["other_code_version"] == jobs
        for difference in differences:
            if difference["field"] == "moves":
                assert difference["now"] < difference["stored"]  # shorter: slides of one vehicle merged


OLD_SHAPES = {  # sweeps.spec as revision 0010 kept it: a grid, a study, the optima sweep in parts, and in one part
    "beam-k": {"algorithms": ["beam"], "params": {"k": [1, 2]}},
    "mf": {"study": {"algorithm": "moves-freed", "space": {"w_exit": "0..10"}, "objectives": ["moves:min"],
                     "aggregate": "mean", "unsolved": "fail", "boards": ["b"], "board_ids": ["b1"], "seeds": None,
                     "repeat": 1}},
    "optimum": {"optimum": [{"algorithms": ["bfs"], "params": {}}, {"algorithms": ["idastar"], "params": {}}]},
    "optimum-0123abcd": {"algorithms": ["bfs"], "params": {}},
}


def _experiments(url: str) -> dict[str, tuple[str, dict]]:
    with engine_for(url).connect() as connection:
        rows = connection.execute(sa.text("SELECT name, kind, definition FROM sweeps")).all()
    return {name: (kind, json.loads(definition)) for name, kind, definition in rows}


def test_the_experiment_kinds_migration_tells_each_old_shape_its_kind_and_undoes(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade(url, "0010")
    with engine_for(url).begin() as connection:
        for name, spec in OLD_SHAPES.items():
            connection.execute(sa.text("INSERT INTO sweeps (name, created_at, spec, limits) VALUES (:name, '2026-12-01',"
                                       " :spec, '{}')"), {"name": name, "spec": json.dumps(spec)})
    upgrade(url)
    assert _experiments(url) == {
        "beam-k": ("grid", OLD_SHAPES["beam-k"]), "mf": ("study", OLD_SHAPES["mf"]["study"]),
        "optimum": ("optimum", {"parts": OLD_SHAPES["optimum"]["optimum"]}),
        "optimum-0123abcd": ("optimum", {"parts": [OLD_SHAPES["optimum-0123abcd"]]})}
    downgrade(url, "0010")
    with engine_for(url).connect() as connection:
        specs = dict(connection.execute(sa.text("SELECT name, spec FROM sweeps")).all())
    assert {name: json.loads(spec) for name, spec in specs.items()} == OLD_SHAPES
