"""Plugin versions in sweeps and reports: a plan records each job's plugins; a sweep run again or resumed after its
plugin changed stops until told to rerun or keep the old version's results; reports, compare, `sweep show` and
`verify` name the versions; a plugin's claim of shortest solutions is checked, never trusted as an optimum.

The plugins are plain-Python files (`tests.workers.test_plugin_jobs`); a new version is the file edited.
"""

import hashlib
import json
from pathlib import Path

import pytest

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.optima import best_optima, claims_optimal, is_optimal
from orchestrator.sweeps.plan import plan_sweep, store_plan
from orchestrator.sweeps.sources import load_boards
from puzzles.errors import PuzzleError
from puzzles.plugins import load_file
from tests.orchestrator.clirun import assert_usage_error, ok, orchestrate
from tests.stored import store_sweep
from tests.tables import job_rows, result_rows
from tests.workers.test_plugin_jobs import key_of, plugin_file, restored_registry, upgraded
from workers.jobs import run_job
from workers.store import connect
from workers.store.jobs import claim, mark_queued, record
from workers.store.sweeps import PluginJobs, plugin_jobs

BOARDS = ("Rushhour6x6_1.csv", "Rushhour6x6_2.csv")  # 21 and 15 moves at the fewest


@pytest.fixture
def registry():
    """The registries as they were before the test, whatever it registered."""
    with restored_registry():
        yield


@pytest.fixture
def plugged(tmp_path) -> Path:
    return plugin_file(tmp_path)


@pytest.fixture
def db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'results.db'}"


def board_files(boards_dir: Path) -> list[Path]:
    return [boards_dir / name for name in BOARDS]


def sweep(db: str, name: str, algorithms: str, boards: list[Path], *more):
    return orchestrate("sweep", "--name", name, "--algo", algorithms, "--boards", *boards, *more, "--workers", 1,
                       "--db", db)


def source(key: str) -> str:
    return key.rpartition("#")[2]


def test_a_plan_stores_each_jobs_plugins_once_per_kind(registry, db_url, plugged, boards_dir):
    db = connect(db_url)
    name = load_file(f"{plugged}:breadth")
    _, sweep_id, ids = store_sweep(db, "plugged", load_boards(list(map(str, board_files(boards_dir)))),
                                   SweepGrid([name, "bfs"]))
    key = key_of(name)
    assert key == f"{plugged}==local#{hashlib.sha256(plugged.read_bytes()).hexdigest()[:12]}"
    assert [job_rows(db)[job_id].plugins for job_id in ids] == [key, None, key, None]
    assert plugin_jobs(db, sweep_id) == [PluginJobs(name, {}, "rushhour", key, jobs=2, done=0, waiting=2)]


def test_a_plan_again_gives_waiting_jobs_the_installed_plugins_and_stops_at_done_ones(registry, db_url, plugged,
                                                                                        boards_dir):
    db = connect(db_url)
    name = load_file(f"{plugged}:breadth")
    boards = load_boards(list(map(str, board_files(boards_dir))))
    _, _, (first, second) = store_sweep(db, "plugged", boards, SweepGrid([name]))
    (job,) = claim(db, [first], "hand@test", 60)
    record(db, [(first, run_job(job))])
    mark_queued(db, [second])  # its message is on the queue of the old version's jobs
    old = key_of(name)
    upgraded(plugged)
    new = key_of(name)
    with pytest.raises(PuzzleError) as stopped:
        store_plan(db, plan_sweep("plugged", boards, SweepGrid([name])))
    assert str(stopped.value) == (
        f"1 done job of {name} came from source {source(old)}, installed is source {source(new)}:"
        " rerun them with --plugin-changed rerun, keep them with --plugin-changed keep")
    jobs = job_rows(db)
    assert [(jobs[job_id].plugins, jobs[job_id].status) for job_id in (first, second)] == [(old, "done"), (old, "queued")]

    store_plan(db, plan_sweep("plugged", boards, SweepGrid([name])), plugin_changed="keep")
    jobs = job_rows(db)
    assert [(jobs[job_id].plugins, jobs[job_id].status) for job_id in (first, second)] == [(old, "done"), (new, "pending")]
    assert first in result_rows(db)

    store_plan(db, plan_sweep("plugged", boards, SweepGrid([name])), plugin_changed="rerun")
    jobs = job_rows(db)
    assert [(jobs[job_id].plugins, jobs[job_id].status) for job_id in (first, second)] == [(new, "pending")] * 2
    assert result_rows(db) == {}


def test_a_sweep_run_again_after_its_plugin_changed_stops_in_one_line_until_told(registry, db, plugged, boards_dir):
    name = f"{plugged}:breadth"
    boards = board_files(boards_dir)
    ok(sweep(db, "mine", f"{name},bfs", boards))
    old = key_of(name)
    before = result_rows(connect(db))
    upgraded(plugged)
    new = key_of(name)
    line = (f"2 done jobs of {name} came from source {source(old)}, installed is source {source(new)}:"
            " rerun them with --plugin-changed rerun, keep them with --plugin-changed keep")
    assert_usage_error(sweep(db, "mine", f"{name},bfs", boards), line)
    assert_usage_error(orchestrate("resume", "mine", "--db", db), line)
    assert {job.plugins for job in job_rows(connect(db)).values()} == {old, None}

    ok(sweep(db, "mine", f"{name},bfs", boards, "--plugin-changed", "keep"))
    kept = result_rows(connect(db))
    assert {job_id: result.id for job_id, result in kept.items()} == {job_id: result.id for job_id, result in before.items()}
    assert_usage_error(sweep(db, "mine", f"{name},bfs", boards), line)  # kept, not forgotten

    ok(orchestrate("resume", "mine", "--plugin-changed", "rerun", "--workers", 1, "--db", db))
    jobs, again = job_rows(connect(db)), result_rows(connect(db))
    plugged_ids = [job_id for job_id, job in jobs.items() if job.plugins is not None]
    assert len(plugged_ids) == 2 and {jobs[job_id].plugins for job_id in plugged_ids} == {new}
    assert {again[job_id].provenance["plugins"][0]["source"][:12] for job_id in plugged_ids} == {source(new)}
    assert all(again[job_id].id == before[job_id].id for job_id in jobs if job_id not in plugged_ids)  # bfs's stay
    assert {job.status for job in jobs.values()} == {"done"} and {r.moves for r in again.values()} == {21, 15}

    shown = ok(orchestrate("sweep", "show", "mine", "--db", db)).stdout
    assert f"plugins:\n  {plugged} (source {source(new)}): {name} (2 jobs, 2 done)" in shown
    job = ok(orchestrate("job", plugged_ids[0], "--db", db)).stdout
    assert f"plugins:    {plugged} (source {source(new)}" in job


def test_two_versions_of_a_plugin_are_compared_like_two_sweeps_each_side_named(registry, db, plugged, boards_dir):
    name = f"{plugged}:breadth"
    ok(sweep(db, "v1", name, board_files(boards_dir)))
    old = key_of(name)
    upgraded(plugged)
    ok(sweep(db, "v2", name, board_files(boards_dir)))
    new = key_of(name)
    compared = ok(orchestrate("compare", "v1", "v2", "--db", db))
    first, second = f"{plugged} (source {source(old)})", f"{plugged} (source {source(new)})"
    assert f"plugins of v1: {first} for {name} (2 results)" in compared.stderr
    assert f"plugins of v2: {second} for {name} (2 results)" in compared.stderr
    assert (f"warning: the sweeps ran {name} with different versions of its plugins: {first} in v1, {second} in v2"
            in compared.stderr)

    checked = orchestrate("verify", "v1", "--json", "--workers", 1, "--db", db)
    assert checked.exit_code == 1  # not a difference: another version made them, and is not run again
    report = json.loads(checked.stdout)
    assert report["summary"]["other_plugin_version"] == 2 and report["summary"]["differing"] == 0
    assert {job["installed"] for job in report["other_plugin_version"]} == {second}
    assert ok(orchestrate("verify", "v2", "--workers", 1, "--db", db)).stdout.count("2 identical") == 1


def test_a_plugin_claiming_shortest_solutions_that_returns_a_longer_one_is_flagged_first(registry, db, plugged,
                                                                                         boards_dir):
    liar = f"{plugged}:liar"
    boards = board_files(boards_dir)[:1]
    ok(sweep(db, "claims", f"{liar},bfs", boards))
    ok(sweep(db, "bfs-only", "bfs", boards))
    (liar_job,) = [job_id for job_id, job in job_rows(connect(db)).items() if job.algorithm == liar]
    line = f"claims optimality: {liar} found 23 moves on Rushhour6x6_1, the optimum is 21 (e.g. job {liar_job})"
    assert ok(orchestrate("report", "claims", "--db", db)).stderr.splitlines()[0] == line
    assert line in ok(orchestrate("compare", "bfs-only", "claims", "--db", db)).stderr.splitlines()
    assert line not in ok(orchestrate("report", "bfs-only", "--db", db)).stderr


def test_a_plugins_claim_is_no_known_optimum(registry, db, plugged):
    liar = load_file(f"{plugged}:liar")
    ok(sweep(db, "alone", liar, ["IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM"]))  # a board of Fogleman's without a known optimum
    results = connect(db)
    (job,) = job_rows(results).values()
    assert result_rows(results)[job.id].outcome == "solved"
    assert best_optima(results, {job.board_id}) == {}
    assert not is_optimal(liar, {}, "rushhour", "") and claims_optimal(liar, {}, "rushhour")
    breadth = load_file(f"{plugged}:breadth")
    assert not claims_optimal("bfs", {}, "rushhour") and not claims_optimal(breadth, {}, "rushhour")
