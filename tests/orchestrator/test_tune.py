"""`orchestrate tune`: Optuna studies whose trials are ordinary jobs, on the local pool, on SQLite and PostgreSQL.

The command runs in this process (CliRunner; its job processes are real),
except where Ctrl-C or optuna-dashboard needs a process of its own.
"""

import csv
import io
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import optuna
import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient

from orchestrator.publish.dashboard import make_app
from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.sources import load_boards
from orchestrator.sweeps.tune_space import CHOICE, FIXED, FLOAT, INT, parse_dimension
from puzzles.result import Outcome
from tests.orchestrator.clirun import assert_usage_error, ok, orchestrate
from tests.orchestrator.dashboard_client import newer_page
from tests.polling import wait_for
from tests.stored import store_sweep
from workers.store import connect
from workers.store.database import engine_for, open_existing, open_read_only
from workers.store.migrate import OPTUNA_TABLES, downgrade, upgrade
from workers.store.records import JobResult, JobRow
from workers.store.schema import jobs
from workers.store.states import JobState

ROOT = Path(__file__).resolve().parents[2]
SIX = ["Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv"]
SMALL_SPACE = ["--algo", "moves-freed", "--w-exit", "0..2", "--w-blockers", "1..2", "--w-freed", "-1..0"]  # 12 points
WIDE_SPACE = ["--algo", "moves-freed", "--w-exit", "0..10", "--w-blockers", "0..10", "--w-freed", "-20..0"]


@pytest.fixture
def six(boards_dir) -> list[str]:
    """`--boards` options naming the three 6x6 course boards, in pruning order."""
    return [arg for name in SIX for arg in ("--boards", str(boards_dir / name))]


@pytest.fixture
def study_db(db_url):
    """An empty results database (SQLite, PostgreSQL), Optuna's tables dropped after (the test PostgreSQL is shared)."""
    yield db_url
    _drop_optuna(db_url)


def _drop_optuna(url: str) -> None:
    """Drop Optuna's tables, and its version table, leaving slidelab's database as the other tests expect it."""
    from optuna.storages._rdb.models import BaseModel

    engine = engine_for(url)
    BaseModel.metadata.drop_all(engine)
    with engine.begin() as connection:
        connection.execute(sa.text("DROP TABLE IF EXISTS alembic_version"))


def tune(db: str, *args):
    return orchestrate("tune", *args, "--workers", 2, "--db", db)


def stored_jobs(db: str, ids: list[int]) -> dict[int, dict]:
    """The jobs among `ids` with their board, state, parameters and result's outcome and moves, read with plain SQL."""
    query = sa.text("SELECT jobs.id, jobs.board_id, jobs.status, jobs.params, results.outcome, results.moves,"
                    " results.expanded, results.elapsed_s FROM jobs LEFT JOIN results ON results.job_id = jobs.id")
    with engine_for(db).connect() as connection:
        rows = [row._asdict() for row in connection.execute(query)]
    return {row["id"]: row for row in rows if row["id"] in ids}


def study_job_count(db: str, name: str) -> int:
    with engine_for(db).connect() as connection:
        return connection.execute(sa.text("SELECT count(*) FROM jobs JOIN sweeps ON sweeps.id = jobs.sweep_id"
                                          " WHERE sweeps.name = :name"), {"name": name}).scalar_one()


def test_ranges_are_read_as_the_sweep_reads_them():
    assert parse_dimension("w_exit", "0..10") == parse_dimension("w_exit", " 0 .. 10 ")
    assert (parse_dimension("w_exit", "0..10").kind, parse_dimension("w_freed", "-20..0").low) == (INT, -20)
    assert (parse_dimension("w_exit", "0.5..2.0").kind, parse_dimension("w_exit", "0.5..2.0").high) == (FLOAT, 2.0)
    assert parse_dimension("k", "log:1..1000").log and parse_dimension("k", "0..100:5").step == 5
    assert parse_dimension("heuristic", "blockers,moves-freed").choices == ("blockers", "moves-freed")
    assert parse_dimension("k", "1..3,8").kind == CHOICE and parse_dimension("k", "1..3,8").choices == (1, 2, 3, 8)
    assert parse_dimension("k", "7").kind == FIXED


def test_a_study_runs_its_trials_as_jobs_and_each_value_is_its_jobs_mean(study_db, six, tmp_path):
    result = ok(tune(study_db, "--name", "small", *SMALL_SPACE, *six, "--trials", 20, "--seed", 1, "--parallel", 4))
    assert "study small: best trial" in result.stdout
    trials = optuna.load_study(study_name="small", storage=study_db).trials  # Optuna's own loader reads it
    assert len(trials) == 20 and {t.state.name for t in trials} == {"COMPLETE"}
    by_point: dict[tuple, list[int]] = {}
    for trial in trials:
        jobs = stored_jobs(study_db, trial.user_attrs["job_ids"])
        assert len(jobs) == 3 and {job["status"] for job in jobs.values()} == {"done"}
        assert {job["outcome"] for job in jobs.values()} == {"solved"}
        assert trial.value == pytest.approx(sum(job["moves"] for job in jobs.values()) / 3)
        point = tuple(sorted(trial.params.items()))
        assert by_point.setdefault(point, trial.user_attrs["job_ids"]) == trial.user_attrs["job_ids"]  # one set of jobs
    assert len(by_point) < 20  # 12 points: some ran twice, as one set of jobs
    assert study_job_count(study_db, "small") == 3 * len(by_point)


    report = json.loads(ok(orchestrate("report", "small", "--format", "json", "--db", study_db)).stdout)
    best = min(trials, key=lambda t: (t.value, t.number))
    assert (report["best"][0]["trial"], report["best"][0]["values"]) == (best.number, [best.value])
    assert len(report["best"]) == min(10, len(by_point))  # a point tried twice is shown once
    jobs = stored_jobs(study_db, best.user_attrs["job_ids"])
    assert sorted(report["best"][0]["boards"].values()) == sorted(job["moves"] for job in jobs.values())
    shown = ok(orchestrate("report", "small", "--db", study_db))
    assert "study small (moves-freed): 20 trials: 20 complete" in shown.stderr
    assert "Rushhour6x6_3" in shown.stdout.splitlines()[1] and str(best.number) in shown.stdout.splitlines()[3]
    page = tmp_path / "small.html"
    ok(orchestrate("report", "small", "--format", "html", "--out", page, "--db", study_db))
    assert all(title in page.read_text() for title in ("Optimisation history", "Parameter importances", "Contours"))
    shown_live = newer_page(TestClient(make_app(open_read_only(study_db))), "small")  # the dashboard's page
    assert [chart["title"] for chart in shown_live["figures"]] == [
        "Optimisation history", "Parameter importances", "Slices", "Contours"]
    assert "20 complete" in shown_live["header"] and f"<td>{best.number}</td>" in shown_live["table"]


def test_the_same_seed_proposes_the_same_points_and_a_point_already_run_is_not_run_again(study_db, six):
    for name in ("first", "again"):
        ok(tune(study_db, "--name", name, *WIDE_SPACE, *six, "--trials", 6, "--seed", 7, "--parallel", 3))
    first, again = (optuna.load_study(study_name=name, storage=study_db).trials for name in ("first", "again"))
    assert [t.params for t in first] == [t.params for t in again]
    for one, other in zip(first, again):
        ran, copied = (stored_jobs(study_db, t.user_attrs["job_ids"]) for t in (one, other))
        assert set(ran).isdisjoint(copied)  # the jobs of another sweep (the study's) ...
        assert sorted(job["elapsed_s"] for job in ran.values()) == sorted(job["elapsed_s"] for job in copied.values())


    ok(orchestrate("sweep", "--name", "authors", "--algo", "moves-freed", "--w-exit", 3, "--w-blockers", 3, "--w-freed", -14,
                   *six, "--workers", 2, "--db", study_db))
    lined_up = list(csv.DictReader(io.StringIO(ok(orchestrate("compare", "authors", "first", "--format", "csv",
                                                              "--db", study_db)).stdout)))
    assert [(row["jobs authors"], row["jobs first"]) for row in lined_up] == [("3", "3")]  # the best trial's, not 18
    best = optuna.load_study(study_name="first", storage=study_db).best_trial
    said = ok(orchestrate("compare", "authors", "first", "--db", study_db)).stderr
    assert f"first is a study: compared by its best trial, number {best.number} (" in said


def test_a_pruned_trial_has_its_remaining_jobs_cancelled(study_db, six):
    ok(tune(study_db, "--name", "pruned", *WIDE_SPACE, *six, "--objective", "expanded", "--pruner", "median",
            "--trials", 12, "--seed", 1, "--parallel", 2))
    trials = optuna.load_study(study_name="pruned", storage=study_db).trials
    pruned = [t for t in trials if t.state.name == "PRUNED"]
    assert pruned, [(t.state.name, t.intermediate_values) for t in trials]
    for trial in pruned:
        jobs = stored_jobs(study_db, trial.user_attrs["job_ids"])
        steps = len(trial.intermediate_values)
        assert 1 <= steps < 3 and trial.user_attrs["cancelled_jobs"] == 3 - steps
        states = [jobs[job_id]["status"] for job_id in trial.user_attrs["job_ids"]]
        assert states == ["done"] * steps + ["cancelled"] * (3 - steps)  # the boards after the pruning never ran
        assert all(jobs[job_id]["outcome"] is None for job_id in trial.user_attrs["job_ids"][steps:])
    complete = [t for t in trials if t.state.name == "COMPLETE"]
    assert all(len(t.intermediate_values) == 3 for t in complete)
    before = stored_jobs(study_db, [job for trial in trials for job in trial.user_attrs["job_ids"]])
    ok(orchestrate("resume", "pruned", "--db", study_db))  # a study at its trial count: resume has nothing to run
    assert stored_jobs(study_db, list(before)) == before  # the pruned trials' jobs stay cancelled
    assert len(optuna.load_study(study_name="pruned", storage=study_db).trials) == 12
    status = ok(orchestrate("status", "pruned", "--db", study_db)).stdout
    assert "pruned (complete)" in status and "resume" not in status  # not "(cancelled)", nor "orchestrate resume pruned"


def test_the_grid_sampler_tries_each_point_of_its_grid_once_and_stops(tmp_path, six):
    url = f"sqlite:///{tmp_path / 'grid.db'}"
    upgrade(url)
    result = ok(tune(url, "--name", "walk", *SMALL_SPACE, *six, "--sampler", "grid", "--trials", 20, "--parallel", 4))
    assert "--trials 20: the grid has 12 points, each tried once: 12 trials" in result.stdout
    trials = optuna.load_study(study_name="walk", storage=url).trials
    assert len(trials) == 12 and len({tuple(sorted(trial.params.items())) for trial in trials}) == 12
    assert study_job_count(url, "walk") == 3 * 12


@pytest.mark.parametrize(
    "args, message",
    [
        (("--objective", "speed"), "--objective: 'speed' is not a result column"),
        (("--w-exit", "5..1"), "--w-exit: the range '5..1' is empty"),
        (("--w-exit", "1,abc"), "w_exit must be a finite number, not \"abc\""),
        (("--trials", "0"), "--trials"),
        (("--name", "base"), "'base' names a sweep, not a study"),
        (("--unsolved", "zero"), "--unsolved: 'zero' is neither fail nor penalty:VALUE"),
        (("--sampler", "annealing"), "--sampler: 'annealing' is not one of"),
        (("--objective", "moves,expanded", "--pruner", "median"), "Optuna prunes studies of one objective only"),
    ],
)
def test_bad_input_is_one_error_line_and_stores_nothing(tmp_path, boards_dir, six, args, message):
    db = f"sqlite:///{tmp_path / 'results.db'}"
    upgrade(db)
    store_sweep(connect(db), "base", load_boards([str(boards_dir / SIX[0])]), SweepGrid(["bfs"]))
    before = _snapshot(db)
    defaults = {"--name": "study", "--w-exit": "0..10", "--trials": "3"}
    given = dict(zip(args[::2], args[1::2]))
    options = [item for key, value in {**defaults, **given}.items() for item in (key, value)]
    assert_usage_error(tune(db, *options, "--algo", "moves-freed", *six), message)
    assert _snapshot(db) == before


def _snapshot(db: str) -> dict:
    with engine_for(db).connect() as connection:
        tables = set(sa.inspect(connection).get_table_names())
        counts = {table: connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()
                  for table in ("sweeps", "jobs", "results", "boards", "studies", "trials") if table in tables}
    return counts


@pytest.mark.slow
def test_ctrl_c_then_the_same_command_continues_the_study_to_its_trial_count(tmp_path, six):
    db = f"sqlite:///{tmp_path / 'results.db'}"
    command = [sys.executable, "-c", "from orchestrator.cli import app; app()", "tune", "--name", "stopped", *WIDE_SPACE,
               *six, "--trials", "16", "--seed", "3", "--parallel", "2", "--workers", "2", "--db", db]
    env = {k: v for k, v in os.environ.items() if k not in ("SLIDELAB_DATABASE_URL", "SLIDELAB_BROKER_URL")}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_as_from_a_terminal)  # noqa: PLW1509
    try:
        wait_for(lambda: _trial_count(db) >= 4, timeout=120, what="four trials")
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, (stdout, stderr)
    assert "stopped; continue with: the same orchestrate tune command" in stderr and "Traceback" not in stderr
    stopped = optuna.load_study(study_name="stopped", storage=db).trials
    assert 4 <= len(stopped) < 16
    with engine_for(db).begin() as connection:  # what a run killed at once leaves: jobs held, their lease lapsing
        connection.execute(sa.update(jobs).where(jobs.c.status == "pending").values(
            status="running", worker_host="gone", lease_until=datetime.now(UTC) + timedelta(seconds=2)))
    env["SLIDELAB_HEARTBEAT_SECONDS"] = "1"  # looked for every second: made pending again, not waited on forever
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    trials = optuna.load_study(study_name="stopped", storage=db).trials
    assert len(trials) == 16 and {t.state.name for t in trials} == {"COMPLETE"}
    # each stopped trial goes on with the values it had (a Ctrl-C while its point was asked for left some only)
    assert all(before.params.items() <= after.params.items() for before, after in zip(stopped, trials, strict=False))


def _trial_count(db: str) -> int:
    try:
        with engine_for(db).connect() as connection:
            return connection.execute(sa.text("SELECT count(*) FROM trials WHERE state = 'COMPLETE'")).scalar_one()
    except sa.exc.OperationalError:
        return 0  # no study yet


def _as_from_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_optuna_dashboard_opens_the_study_in_the_results_database(tmp_path, six):
    db = f"sqlite:///{tmp_path / 'results.db'}"
    ok(tune(db, "--name", "shown", *SMALL_SPACE, *six, "--trials", 3, "--seed", 1))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    dashboard = Path(sys.executable).parent / "optuna-dashboard"
    server = subprocess.Popen([str(dashboard), db, "--host", "127.0.0.1", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        studies = wait_for(lambda: _get_json(f"http://127.0.0.1:{port}/api/studies"), timeout=30, what="the dashboard")
        summary = next(s for s in studies["study_summaries"] if s["study_name"] == "shown")
        trials = _get_json(f"http://127.0.0.1:{port}/api/studies/{summary['study_id']}?after=0")["trials"]
        assert len(trials) == 3 and {t["state"] for t in trials} == {"Complete"}
    finally:
        server.kill()
        server.wait()


def _get_json(url: str):
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return json.load(response)
    except OSError:
        return None


def test_slidelab_and_optuna_migrate_the_same_database_apart(db_url):
    optuna.create_study(study_name="kept", storage=db_url).optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=2)
    try:
        downgrade(db_url, "base")
        tables = set(sa.inspect(engine_for(db_url)).get_table_names())
        assert OPTUNA_TABLES <= tables and not {"jobs", "sweeps", "results"} & tables
        assert len(optuna.load_study(study_name="kept", storage=db_url).trials) == 2
        upgrade(db_url)
        open_existing(db_url)
        assert len(optuna.load_study(study_name="kept", storage=db_url).trials) == 2
    finally:
        upgrade(db_url)
        _drop_optuna(db_url)


def test_a_database_that_kept_slidelabs_revision_in_alembic_version_takes_a_study(tmp_path):
    old = tmp_path / "old.db"
    old.write_bytes((ROOT / "tests" / "data" / "results-0004.db").read_bytes())
    url = f"sqlite:///{old}"
    upgrade(url)
    optuna.create_study(study_name="new", storage=url)
    open_existing(url)
    assert [s.study_name for s in optuna.get_all_study_summaries(storage=url)] == ["new"]


def test_unsolved_jobs_count_as_the_penalty_or_fail_the_trial(tmp_path, six):
    db = f"sqlite:///{tmp_path / 'results.db'}"
    tiny = ["--max-nodes", 5, "--trials", 2, "--seed", 1]  # 5 expansions solve none of the boards
    ok(tune(db, "--name", "penalty", *WIDE_SPACE, *six, *tiny, "--unsolved", "penalty:100"))
    ok(tune(db, "--name", "failing", *WIDE_SPACE, *six, *tiny))
    ok(tune(db, "--name", "share", *WIDE_SPACE, *six, *tiny, "--objective", "solved"))
    penalty, failing, share = (optuna.load_study(study_name=name, storage=db).trials for name in ("penalty", "failing", "share"))
    assert [t.value for t in penalty] == [100.0, 100.0]
    assert {t.state.name for t in failing} == {"FAIL"} and "ended limit (--unsolved fail)" in failing[0].user_attrs["failure"]
    assert [t.value for t in share] == [0.0, 0.0]
    shown = ok(orchestrate("report", "penalty", "--db", db)).stderr
    assert "unsolved: penalty:100" in shown


def test_ratios_to_the_optima_aggregate_as_a_geometric_mean():
    from orchestrator.sweeps.tune_objective import aggregate, parse_scoring, trial_values

    assert aggregate([22.0, 30.0], "gmean-ratio", [11, 30]) == pytest.approx(2 ** 0.5)
    assert aggregate([1.0, 3.0], "max", [None, None]) == 3.0
    scoring = parse_scoring("moves,elapsed_s:max", "mean", "penalty:50")
    jobs = [JobRow(1, "a", "beam", {}, None, 0, JobState.DONE, None, JobResult(outcome=Outcome.SOLVED, moves=10, elapsed_s=2.0)),
            JobRow(2, "b", "beam", {}, None, 0, JobState.DONE, None, JobResult.limit("time limit 4 s", 4.0))]
    assert trial_values(scoring, jobs, ["a", "b"], [None, None]) == [30.0, 26.0]  # an unsolved job's every column is the penalty
    assert [o.direction for o in scoring.objectives] == ["minimize", "maximize"]
