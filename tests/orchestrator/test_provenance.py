"""Provenance on every result, `sweep show`, `job`, and sweep specs that replay (issue 7).

The sweeps run locally through Typer's CliRunner, in real job processes, into SQLite.
"""

import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys

import numba
import numpy
import pytest
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.plan import plan_sweep, store_plan
from puzzles.domains import load_instance
from puzzles.errors import PuzzleError
from tests.orchestrator.clirun import assert_usage_error, local_environment, ok, orchestrate
from tests.tables import Job, Result, Sweep
from workers import provenance
from workers.provenance import PACKAGES, ROOT, code_version, environment, source_hash
from workers.store import connect
from workers.store.database import engine_for
from workers.store.migrate import upgrade

BOARDS = ROOT / "data" / "boards" / "rushhour"
GRID = [
    "--algo", "bfs,beam,astar,spr", "--k", "1,3", "--batches", "2", "--batch-size", "3", "--max-steps", "400",
    "--repeat", "2", "--max-nodes", "200000",
    "--boards", BOARDS / "Rushhour6x6_1.csv", BOARDS / "Rushhour6x6_2.csv", "8 1 3/4 0 2/7 6 5",
]
COMPARED = ("outcome", "moves", "steps", "expanded", "generated", "max_frontier", "stored", "solution")


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> str:
    """A database holding the sweep `original` of GRID, finished."""
    url = f"sqlite:///{tmp_path_factory.mktemp('provenance') / 'results.db'}"
    with pytest.MonkeyPatch.context() as patch, local_environment(patch):
        ok(orchestrate("sweep", "--name", "original", *GRID, "--workers", 2, "--db", url))
    return url


def origin(results: int) -> str:
    """How `sweep show` begins the line of results made by this code, here."""
    env = environment()
    commit = f" (commit {env['commit'][:10]}{' + changes' if env['dirty'] else ''})" if env["commit"] else ""
    return f"{results} results  {env['code_version']}{commit}  on "


def outcomes(url: str, sweep: str) -> dict[tuple, tuple]:
    """Each job's identity (board, algorithm, params, seed, repeat) with its compared result fields."""
    query = select(Job, Result).join(Result, Result.job_id == Job.id).join(Sweep).where(Sweep.name == sweep)
    with Session(engine_for(url)) as session:
        return {
            (job.board_id, job.algorithm, json.dumps(job.params), job.seed, job.repeat): tuple(getattr(result, f) for f in COMPARED)
            for job, result in session.execute(query)
        }


def test_every_result_records_its_provenance(swept):
    env = environment()
    with Session(engine_for(swept)) as session:
        rows = session.execute(select(Job, Result).join(Result, Result.job_id == Job.id)).all()
    assert len(rows) == 2 * 3 * (1 + 2 + 1 + 1)  # repeats x boards x (bfs, beam k=1,3, astar, spr)
    for job, result in rows:
        details = result.provenance
        assert result.code_version == details["code_version"] == env["code_version"]
        assert details["slidelab"] == env["slidelab"] != "unknown"
        assert (details["python"], details["numba"], details["numpy"]) == (
            platform.python_version(), numba.__version__, numpy.__version__)
        assert details["spec"] == {
            "board_id": job.board_id, "domain": details["spec"]["domain"], "algorithm": job.algorithm,
            "params": job.params, "seed": job.seed,
            "limits": {"max_nodes": 200000, "time_limit": None, "memory_limit": None},
        }
        assert result.host == details["host"] == job.worker_host
        assert details["worker_pid"] == os.getpid() != details["pid"]  # stored here, run in a job process
        assert details["speed"] > 0
        assert result.started_at <= result.finished_at
        assert 0 <= result.elapsed_s <= (result.finished_at - result.started_at).total_seconds() + 1e-3
        assert result.cpu_s >= 0 and result.warmup_s >= 0
    if (ROOT / ".git").exists():
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        assert env["commit"] == head


def test_the_code_version_is_the_sources_not_where_they_came_from(tmp_path, monkeypatch):
    env = {"slidelab": "0.1.0", "commit": "0123456789abcdef", "dirty": False, "source": "fedcba9876543210"}
    assert code_version(env) == code_version({**env, "commit": None}) == "0.1.0+fedcba987654"
    assert environment()["code_version"] == f"{environment()['slidelab']}+{source_hash()[:12]}"
    for package in PACKAGES:  # a copy of the sources (an installed package, the Docker image) hashes the same
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(provenance, "ROOT", tmp_path)
    assert source_hash() == environment()["source"]
    bfs = tmp_path / "puzzles" / "search" / "bfs.py"
    bfs.write_text(bfs.read_text() + "\n# edited\n")
    assert source_hash() != environment()["source"]


def test_provenance_is_shown(swept):
    shown = ok(orchestrate("sweep", "show", "original", "--db", swept)).stdout
    assert "limits:   max_nodes=200,000" in shown and "jobs:     30 of 30 done" in shown
    assert origin(30) in shown and f"Python {platform.python_version()}" in shown
    with Session(engine_for(swept)) as session:
        job_id = session.scalar(select(Job.id).where(Job.algorithm == "spr").limit(1))
    text = ok(orchestrate("job", job_id, "--db", swept)).stdout
    assert f"code:       {environment()['code_version']}" in text and "commit:     " in text
    assert "as run:     " in text and '"algorithm": "spr"' in text and "excludes queue waiting" in text
    record = json.loads(ok(orchestrate("job", job_id, "--json", "--db", swept)).stdout)
    assert record["sweep"] == "original" and record["job"]["id"] == job_id
    assert record["result"]["provenance"]["spec"]["seed"] == record["job"]["seed"] is not None
    assert_usage_error(orchestrate("job", 999_999, "--db", swept), "no job 999999")


def test_a_spec_round_trips_and_replays_to_identical_results(swept, tmp_path):
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(ok(orchestrate("sweep", "show", "original", "--spec", "--db", swept)).stdout)
    spec = json.loads(spec_file.read_text())
    assert [board["name"] for board in spec["boards"]] == ["Rushhour6x6_1", "Rushhour6x6_2", "8 1 3/4 0 2/7 6 5"]
    assert spec["limits"] == {"time_limit": None, "max_nodes": 200000, "memory_limit": None}
    assert ok(orchestrate("sweep", "--from-spec", spec_file, "--name", "replay", "--workers", 2, "--db", swept))
    replayed = outcomes(swept, "replay")
    assert replayed == outcomes(swept, "original") and len(replayed) == 30  # spr's derived seeds included
    again = json.loads(ok(orchestrate("sweep", "show", "replay", "--spec", "--db", swept)).stdout)
    assert {**again, "name": "original"} == spec


def test_a_spec_fills_the_gaps_of_its_own_sweep(swept, tmp_path):
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(ok(orchestrate("sweep", "show", "original", "--spec", "--db", swept)).stdout)
    before = outcomes(swept, "original")
    with Session(engine_for(swept)) as session, session.begin():
        lost = session.scalars(select(Job.id).where(Job.algorithm.in_(["astar", "spr"])).order_by(Job.id).limit(3)).all()
        session.execute(delete(Job).where(Job.id.in_(lost)))
    result = ok(orchestrate("sweep", "--from-spec", spec_file, "--workers", 2, "--db", swept))
    assert "sweep original: 30 jobs, 3 new" in result.stdout
    assert outcomes(swept, "original") == before


def test_derived_seeds_are_unchanged_for_sweeps_planned_before_specs():
    board = load_instance(str(BOARDS / "Rushhour6x6_1.csv"))
    plan = plan_sweep("old", [board], SweepGrid(["random"], {}, repeat=2))
    params = json.dumps({"max_steps": 1_000_000}, separators=(",", ":"))
    for index, job in enumerate(plan.jobs):  # the seeds of sweeps stored before seed namespaces existed
        key = hashlib.sha256(json.dumps(["old", board.id, "random", params, None, index]).encode()).hexdigest()
        assert (job.job_key, job.seed) == (key, int(key[:8], 16) % 2**32)
    renamed = plan_sweep("new", [board], SweepGrid(["random"], {}, repeat=2, seed_namespace="old"))
    assert [job.seed for job in renamed.jobs] == [job.seed for job in plan.jobs]
    assert {job.job_key for job in renamed.jobs}.isdisjoint(job.job_key for job in plan.jobs)


def test_a_replayed_sweep_keeps_its_seed_namespace(tmp_path):
    url = f"sqlite:///{tmp_path / 'results.db'}"
    upgrade(url)
    board = load_instance(str(BOARDS / "Rushhour6x6_1.csv"))
    store_plan(connect(url), plan_sweep("copy", [board], SweepGrid(["random"], {}, repeat=2, seed_namespace="original")))
    extended = plan_sweep("copy", [board], SweepGrid(["random"], {}, repeat=3))  # seeds from "copy": not the sweep's own
    with pytest.raises(PuzzleError, match="sweep 'copy' derives its seeds from 'original'"):
        store_plan(connect(url), extended)
    again = plan_sweep("copy", [board], SweepGrid(["random"], {}, repeat=3, seed_namespace="original"))
    assert store_plan(connect(url), again, extend=True)[1] == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not a sweep spec (not valid JSON"),
        ("[1, 2]", "not a sweep spec (no \"format\""),
        ('{"format": "slidelab-sweep/1"}', "'name' must be a str"),
        (None, "'params' must be a list of 1 to"),
        (None, "board 1 (Rushhour6x6_1): "),
        (None, "unknown algorithm 'dfs'"),
        (None, "limit max_nodes must be a non-negative number"),
    ],
)
def test_a_bad_spec_is_refused_with_one_line(swept, tmp_path, content, message):
    spec = json.loads(ok(orchestrate("sweep", "show", "original", "--spec", "--db", swept)).stdout)
    edits = {
        "'params' must be a list of 1 to": {"params": {"k": []}},
        "board 1 (Rushhour6x6_1): ": {"boards": [{**spec["boards"][0], "text": "{\"size\": 6}"}]},
        "unknown algorithm 'dfs'": {"algorithms": ["dfs"]},
        "limit max_nodes must be a non-negative number": {"limits": {**spec["limits"], "max_nodes": "many"}},
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(content if content is not None else json.dumps({**spec, **edits[message]}))
    with Session(engine_for(swept)) as session:
        sweeps = session.scalars(select(Sweep.name)).all()
    assert_usage_error(orchestrate("sweep", "--from-spec", spec_file, "--name", "bad", "--db", swept), message)
    if content is not None:
        assert str(spec_file) in orchestrate("sweep", "--from-spec", spec_file, "--db", swept).stderr
    with Session(engine_for(swept)) as session:
        assert session.scalars(select(Sweep.name)).all() == sweeps  # nothing written


def test_from_spec_refuses_grid_options_and_missing_files(swept, tmp_path):
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(ok(orchestrate("sweep", "show", "original", "--spec", "--db", swept)).stdout)
    assert_usage_error(orchestrate("sweep", "--from-spec", spec_file, "--algo", "bfs", "--db", swept), "drop --algo")
    assert_usage_error(orchestrate("sweep", "--from-spec", spec_file, "--k", "5", "--db", swept), "drop --k")
    assert_usage_error(orchestrate("sweep", "--from-spec", tmp_path / "none.json", "--db", swept), "none.json")
    assert_usage_error(orchestrate("sweep", "--boards", BOARDS / "Rushhour6x6_1.csv", "--db", swept), "give --algo")
    assert_usage_error(orchestrate("sweep", "show", "nothing", "--db", swept), "no sweep named 'nothing'")


WARM_CHECK = """
import json, sys
from puzzles.domains import load_instance, problem_for
from puzzles.solver import solve
rows = []
for board, algorithm, params in json.loads(sys.argv[1]):
    instance = load_instance(board)
    problem = problem_for(instance.domain, instance.text)
    first, second = (solve(problem, algorithm, params, seed=1) for _ in range(2))
    rows.append([algorithm, first.elapsed_s, first.warmup_s, second.elapsed_s])
print(json.dumps(rows))
"""


def test_search_time_excludes_the_warm_up_of_a_fresh_process():
    """In a new process the first search loads (or compiles) its kernels: that is warm-up, not search time."""
    six = str(BOARDS / "Rushhour6x6_1.csv")
    cases = [(six, "bfs", {}), (six, "beam", {"k": 20}), (six, "astar", {}), ("8 1 3/4 0 2/7 6 5", "idastar", {})]
    output = subprocess.run(
        [sys.executable, "-c", WARM_CHECK, json.dumps(cases)], capture_output=True, text=True, check=True, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    ).stdout
    for algorithm, first, warmup, second in json.loads(output):
        assert warmup > first, algorithm
        assert first < 2 * second + 0.02, (algorithm, first, second)


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_provenance_and_spec_replay_on_postgresql(db_url, tmp_path):
    grid = ["--algo", "beam,spr", "--k", "1,3", "--batches", "2", "--max-steps", "400", "--seeds", "1,2",
            "--boards", BOARDS / "Rushhour6x6_2.csv"]
    ok(orchestrate("sweep", "--name", "pg", *grid, "--workers", 2, "--db", db_url))
    shown = ok(orchestrate("sweep", "show", "pg", "--db", db_url)).stdout
    assert origin(6) in shown
    spec_file = tmp_path / "pg.json"
    spec_file.write_text(ok(orchestrate("sweep", "show", "pg", "--spec", "--db", db_url)).stdout)
    ok(orchestrate("sweep", "--from-spec", spec_file, "--name", "pg-again", "--workers", 2, "--db", db_url))
    assert outcomes(db_url, "pg-again") == outcomes(db_url, "pg") and len(outcomes(db_url, "pg")) == 6
    record = json.loads(ok(orchestrate("job", 1, "--json", "--db", db_url)).stdout)
    assert record["result"]["provenance"]["host"] == record["result"]["host"] == record["job"]["worker_host"]
