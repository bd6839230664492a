"""`orchestrate verify`: a sweep's finished jobs run again and compared with their stored results.

One small sweep (Rush Hour and the 8-puzzle; bfs, beam, astar and spr with two
seeds) runs once per module; each test verifies a copy of its database,
altered as the test needs. The commands run in this process through Typer's
CliRunner; their job processes are real.
"""

import json
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from orchestrator.reports.verify import INCONCLUSIVE, SKIPPED, StoredJob, compare, sampled
from orchestrator.reports.verify_tables import id_ranges
from tests.orchestrator.clirun import local_environment, orchestrate
from tests.tables import Job, Result
from workers.provenance import environment
from workers.store.database import engine_for
from workers.store.records import JobResult

ROOT = Path(__file__).resolve().parents[2]
EIGHT = "1 2 3/4 5 6/0 7 8"
GRID = ("--algo", "bfs,beam,astar,spr", "--k", "1,3", "--seeds", "1,2", "--max-steps", "1000")
JOBS = 20  # 2 boards x (bfs 2 + beam 2x2 + astar 2 + spr 2)



def verify(db: str, *args):
    return orchestrate("verify", "small", "--workers", 2, "--db", db, *args)


def sweep_into(db: str, *boards: str) -> None:
    """Run the small sweep into `db`, its results stamped with the code version this process sees.

    The working tree may change while the tests run, and the code version with it;
    each test compares with the version this process computed once.
    """
    result = orchestrate("sweep", *GRID, "--boards", *boards, "--name", "small", "--workers", 2, "--db", db)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    with engine_for(db).begin() as connection:
        assert connection.scalar(select(func.count()).where(Result.code_version.is_(None))) == 0
        connection.execute(update(Result).values(code_version=environment()["code_version"]))


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> Path:
    """The database file of the small sweep, run once."""
    path = tmp_path_factory.mktemp("verify") / "swept.db"
    with pytest.MonkeyPatch.context() as patch, local_environment(patch):
        sweep_into(f"sqlite:///{path}", str(ROOT / "data/boards/rushhour/Rushhour6x6_1.csv"), EIGHT)
    return path


@pytest.fixture
def db(swept, tmp_path) -> str:
    """A copy of the small sweep's database, for this test to alter."""
    path = tmp_path / "results.db"
    with sqlite3.connect(swept) as source, sqlite3.connect(path) as target:
        source.backup(target)
    return f"sqlite:///{path}"


def snapshot(db: str) -> list[list[tuple]]:
    """Every job and result row, as verify must leave them."""
    with engine_for(db).connect() as connection:
        return [list(connection.execute(select(table).order_by(table.c.id))) for table in (Job.__table__, Result.__table__)]


def alter(db: str, job_id: int, **values) -> None:
    with engine_for(db).begin() as connection:
        connection.execute(update(Result).where(Result.job_id == job_id).values(**values))


def job_id(db: str, algorithm: str, **where) -> int:
    """The id of the first job of this algorithm (and seed, etc.)."""
    query = select(Job.id).where(Job.algorithm == algorithm, *(getattr(Job, k) == v for k, v in where.items()))
    with Session(engine_for(db)) as session:
        return session.scalars(query.order_by(Job.id)).first()


def stored(db: str, job: int) -> Result:
    with Session(engine_for(db)) as session:
        return session.scalar(select(Result).where(Result.job_id == job))


def test_every_result_of_a_fresh_sweep_is_identical_and_nothing_is_written(db):
    before = snapshot(db)
    result = verify(db)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    assert result.stdout.strip().splitlines() == [
        f"sweep small: {JOBS} of {JOBS} finished jobs checked against code version {environment()['code_version']}:"
        f" {JOBS} identical, 0 differing, 0 other code version, 0 skipped, 0 inconclusive"
    ]
    assert snapshot(db) == before


def test_an_altered_result_is_named_by_job_and_field_and_exits_1(db):
    bfs, spr = job_id(db, "bfs"), job_id(db, "spr", seed=2)
    moves, expanded = stored(db, bfs).moves, stored(db, spr).expanded
    alter(db, bfs, moves=moves + 1)
    alter(db, spr, expanded=expanded + 5)
    result = verify(db)
    assert result.exit_code == 1, (result.stdout, result.stderr)
    rows = {tuple(line.split()[:1] + line.split()[-3:]) for line in result.stdout.splitlines() if line.strip()[:1].isdigit()}
    assert rows == {(str(bfs), "moves", str(moves + 1), str(moves)),
                    (str(spr), "expanded", f"{expanded + 5:,}", f"{expanded:,}")}
    assert f"{JOBS - 2} identical, 2 differing, 0 other code version" in result.stdout

    report = json.loads(verify(db, "--json").stdout)
    assert not report["ok"] and report["summary"]["differing"] == 2
    assert {(d["job_id"], d["field"], d["stored"], d["now"]) for d in report["differences"]} == {
        (bfs, "moves", moves + 1, moves), (spr, "expanded", expanded + 5, expanded)}
    assert next(d for d in report["differences"] if d["job_id"] == spr)["seed"] == 2


def test_results_of_another_or_an_unknown_code_version_are_listed_and_exit_1(db):
    first, second = job_id(db, "astar"), job_id(db, "beam")
    alter(db, first, code_version="0.0.9+gdeadbeef00")
    alter(db, second, code_version=None)
    result = verify(db)
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert "0.0.9+gdeadbeef00" in result.stdout and "unknown (before provenance)" in result.stdout
    assert f"{JOBS} identical, 0 differing, 2 other code version" in result.stdout
    report = json.loads(verify(db, "--json").stdout)
    assert {(job["job_id"], job["code_version"]) for job in report["other_code_version"]} == {
        (first, "0.0.9+gdeadbeef00"), (second, None)}


def test_a_result_stopped_by_a_time_limit_is_skipped_not_run_again(db):
    bfs = job_id(db, "bfs")
    alter(db, bfs, outcome="limit", moves=None, reason="time limit of 0.5 s reached")
    report = json.loads(verify(db, "--json").stdout)
    assert report["ok"] and report["summary"]["skipped"] == 1 and report["summary"]["identical"] == JOBS - 1
    assert report["not_compared"] == [{"job_id": bfs, "board": "Rushhour6x6_1", "algorithm": "bfs",
                                       "params": {"exhaustive": False}, "seed": None, "outcome": "skipped",
                                       "reason": "time limit of 0.5 s reached"}]


def test_a_sample_checks_that_many_jobs(db):
    report = json.loads(verify(db, "--sample", 3, "--json").stdout)
    assert report["ok"] and report["finished"] == JOBS
    assert report["summary"] == {"checked": 3, "identical": 3, "differing": 0, "other_code_version": 0,
                                 "other_plugin_version": 0, "skipped": 0, "inconclusive": 0}
    assert f"3 of {JOBS} finished jobs checked" in verify(db, "--sample", 3, "--sample-seed", 7).stdout


@pytest.mark.parametrize(("args", "message"), [
    (("verify", "nope"), "no sweep named 'nope' (recent: small)"),
    (("verify", "small", "--sample", 0), "--sample must be at least 1, not 0"),
])
def test_usage_errors_are_one_line_and_exit_2(db, args, message):
    result = orchestrate(*args, "--db", db)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.strip().splitlines() == [f"error: {message}"]


def test_the_help_has_an_example():
    assert "Example: orchestrate verify" in orchestrate("verify", "--help").stdout


def test_a_run_stopped_by_a_time_limit_now_is_inconclusive_and_a_stored_one_skipped():
    job = StoredJob(1, "b", "bfs", "{}", None, "v", {"outcome": "solved", "moves": 3}, None)
    now = JobResult.limit("time limit (killed after 17 s)")
    assert (compare(job, now).outcome, compare(job, now).note) == (INCONCLUSIVE, "time limit (killed after 17 s)")
    capped = StoredJob(1, "b", "bfs", "{}", None, "v", {"outcome": "limit"}, "out of memory (memory limit reached)")
    assert compare(capped, None).outcome == SKIPPED
    by_nodes = StoredJob(1, "b", "bfs", "{}", None, "v", {"outcome": "limit"}, "node limit of 10 expansions reached")
    assert by_nodes.reproducible  # node limits are deterministic: compared


def test_sampled_draws_in_id_order_and_id_ranges():
    jobs = [StoredJob(i, "b", "bfs", "{}", None, "v", {}, None) for i in range(1, 11)]
    picked = sampled(jobs, 4, 0)
    assert len(picked) == 4 and picked == sorted(picked, key=lambda job: job.job_id) == sampled(jobs, 4, 0)
    assert sampled(jobs, 50, 0) == sampled(jobs, None, 0) == jobs
    assert id_ranges([9, 1, 2, 3, 7, 10]) == "1-3, 7, 9-10"


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_verify_on_postgresql(db_url):
    result = orchestrate("sweep", "--algo", "bfs,astar", "--boards", EIGHT, "--name", "small", "--workers", 2, "--db", db_url)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    with engine_for(db_url).begin() as connection:
        connection.execute(update(Result).values(code_version=environment()["code_version"]))
    alter(db_url, job_id(db_url, "astar"), generated=1)
    report = json.loads(orchestrate("verify", "small", "--json", "--workers", 2, "--db", db_url).stdout)
    assert report["summary"] == {"checked": 2, "identical": 1, "differing": 1, "other_code_version": 0,
                                 "other_plugin_version": 0, "skipped": 0, "inconclusive": 0}
    assert [d["field"] for d in report["differences"]] == ["generated"]
