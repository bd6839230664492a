"""The researcher's loop tells the truth (issue 14): stopped sweeps, pace, groups over boards, compare, read-only reads."""

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import update

from orchestrator.reports.comparison import compare, shared_groups
from orchestrator.reports.rows import load_rows
from orchestrator.reports.summary import summarize
from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.lookups import find_sweep
from orchestrator.sweeps.sources import load_boards
from tests.orchestrator.clirun import assert_usage_error, ok, orchestrate
from tests.stored import store_sweep
from workers.store import connect
from workers.store.jobs import record
from workers.store.migrate import upgrade
from workers.store.progress import sweep_status
from workers.store.records import JobResult
from workers.store.schema import jobs

ROOT = Path(__file__).resolve().parents[2]
SIX = ("Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv")


@pytest.fixture
def db(tmp_path) -> str:
    url = f"sqlite:///{tmp_path / 'loop.db'}"
    upgrade(url)
    return url


def planned(db: str, boards_dir, name: str, count: int, **grid):
    """A sweep of beam over k = 1..count on the 6x6 course boards, stored and not run: (sweep, job ids)."""
    boards = load_boards([str(boards_dir / board) for board in SIX])
    _, _, ids = store_sweep(connect(db), name, boards, SweepGrid(["beam"], {"k": list(range(1, count + 1)), **grid}))
    return find_sweep(connect(db), name), ids


def finish(db: str, ids: list[int], results, finished: datetime | None = None) -> None:
    """Store results for the jobs (all finished at `finished`, if given, a second apart)."""
    record(connect(db), list(zip(ids, results)))
    if finished is not None:
        with connect(db).engine.begin() as connection:
            for offset, job_id in enumerate(ids):
                moment = finished + timedelta(seconds=offset)
                connection.execute(update(jobs).where(jobs.c.id == job_id).values(started_at=moment, finished_at=moment))


def solved(moves: int, elapsed: float = 0.01, expanded: int = 100) -> JobResult:
    return JobResult(outcome="solved", moves=moves, steps=moves, expanded=expanded, generated=3 * expanded, elapsed_s=elapsed)


# --------------------------------------------------------------------------- stopped sweeps and pace


def test_a_stopped_sweep_says_how_to_go_on_and_has_no_pace_or_eta(db, boards_dir):
    sweep, ids = planned(db, boards_dir, "halted", 4)
    finish(db, ids[:5], [solved(30)] * 5, finished=datetime.now(UTC) - timedelta(minutes=5))
    status = sweep_status(connect(db), sweep)
    assert status.phase == "stopped" and status.eta_s is None
    text = ok(orchestrate("status", "halted", "--db", db)).stdout
    assert "stopped: 5 of 12 done; continue with: orchestrate resume halted" in text
    assert "ETA" not in text and "jobs/s" not in text and "jobs/min" not in text
    report = orchestrate("report", "halted", "--by", "algo", "--db", db)
    assert "sweep halted is stopped: 5 of 12 jobs done; this report covers those" in report.stderr
    assert "still running" not in report.stderr
    (beam,) = [line.split() for line in report.stdout.splitlines() if line.strip().startswith("beam")]
    assert beam[1:5] == ["3", "5", "7", "100%"]  # boards, done, unfinished, solved share of the done ones


def test_the_pace_of_an_ended_sweep_is_its_last_minute_and_does_not_decay(db, boards_dir):
    sweep, ids = planned(db, boards_dir, "ended", 4)
    long_ago = datetime.now(UTC) - timedelta(hours=2)
    finish(db, ids, [solved(30)] * len(ids), finished=long_ago)  # 12 jobs a second apart, two hours ago
    first = sweep_status(connect(db), sweep)
    assert first.phase == "complete" and first.eta_s is None
    assert first.jobs_per_s == pytest.approx(12 / 11)  # 12 jobs over the 11 s they took, however long ago
    assert sweep_status(connect(db), sweep).jobs_per_s == first.jobs_per_s


def test_a_running_sweep_has_a_pace_and_an_eta(db, boards_dir):
    sweep, ids = planned(db, boards_dir, "going", 4)
    finish(db, ids[:6], [solved(30)] * 6, finished=datetime.now(UTC) - timedelta(seconds=20))
    with connect(db).engine.begin() as connection:
        connection.execute(update(jobs).where(jobs.c.id == ids[6]).values(status="running"))
    status = sweep_status(connect(db), sweep)
    assert status.phase == "running" and status.jobs_per_s > 0
    assert status.eta_s == pytest.approx(6 * 0.01)  # 6 jobs left, each at its board's beam jobs' mean, on one worker
    assert "ETA" in ok(orchestrate("status", "going", "--db", db)).stdout


# --------------------------------------------------------------------------- groups over boards, baselines


def test_a_group_over_boards_is_the_mean_of_the_boards_means_with_their_spread_and_no_interval(db, boards_dir):
    sweep, ids = planned(db, boards_dir, "over", 1)  # beam k=1 once on each of the three boards
    finish(db, ids, [solved(10, 0.001, 10), solved(100, 0.01, 1_000), solved(1_000, 0.1, 100_000)])
    summary = summarize(load_rows(connect(db), sweep), ["algorithm"]).iloc[0]
    assert (summary["boards"], summary["jobs"], summary["moves_mean"]) == (3, 3, 370.0)
    assert summary["moves_board_std"] == pytest.approx(pd.Series([10, 100, 1_000]).std())
    assert pd.isna(summary["moves_ci_low"]) and pd.isna(summary["expanded_ci_low"])
    table = ok(orchestrate("report", "over", "--by", "algo", "--db", db))
    assert "370.0 ±" in table.stdout and "groups span boards" in table.stderr


def test_a_baseline_gives_the_geometric_mean_of_each_boards_ratio(db, boards_dir):
    boards = load_boards([str(boards_dir / board) for board in SIX[:2]])
    plan, _, ids = store_sweep(connect(db), "base", boards, SweepGrid(["beam", "astar"], {"k": [1], "heuristic": ["blockers"]}))
    kinds = {job_id: (job.board_id, job.algorithm) for job_id, job in zip(ids, plan.jobs)}
    moves = {(boards[0].id, "astar"): 20, (boards[1].id, "astar"): 10, (boards[0].id, "beam"): 40, (boards[1].id, "beam"): 80}
    finish(db, ids, [solved(moves[kinds[job_id]]) for job_id in ids])
    summary = summarize(load_rows(connect(db), find_sweep(connect(db), "base")), ["algorithm"], baseline="astar")
    ratios = summary.set_index("algorithm")["moves_ratio"]
    assert ratios["astar"] == pytest.approx(1.0) and ratios["beam"] == pytest.approx((2 * 8) ** 0.5)  # √(2 × 8) = 4
    assert_usage_error(orchestrate("report", "base", "--baseline", "bfs", "--db", db), "--baseline bfs: no done job of bfs")


# --------------------------------------------------------------------------- compare


def test_compare_lines_two_sweeps_up_per_k_in_numeric_order(db, boards_dir):
    _, first = planned(db, boards_dir, "beam-blockers", 12, heuristic=["blockers"])
    _, second = planned(db, boards_dir, "beam-lb", 12, heuristic=["blockers-lb"])
    finish(db, first, [solved(40 + index % 5, 0.02) for index in range(len(first))])
    finish(db, second, [solved(20 + index % 3, 0.01) for index in range(len(second))])
    frames = {name: load_rows(connect(db), find_sweep(connect(db), name)) for name in ("beam-blockers", "beam-lb")}
    assert shared_groups(list(frames.values())) == ["k"]  # the heuristic differs between them: it is what is compared
    table = compare(frames)
    assert table["k"].tolist() == list(range(1, 13)) and len(table) == 12  # one row per k, 10 after 9
    assert (table["moves_common Δ beam-lb"] < 0).all() and (table["moves_common × beam-lb"] < 1).all()
    assert (table["jobs beam-blockers"] == 3).all() and (table["moves_common p beam-lb"] < 0.05).all()
    printed = ok(orchestrate("compare", "beam-blockers", "beam-lb", "--db", db)).stdout
    rows = [line.split() for line in printed.splitlines() if line.strip()[:2].strip().isdigit()]
    assert [row[0] for row in rows] == [str(k) for k in range(1, 13)]
    assert "{" not in printed  # parameters are never raw JSON
    assert max(map(len, printed.splitlines())) <= 120  # the table fits a terminal of 120 columns
    lb_rows = [line for line in printed.splitlines() if line.split()[:1] == ["beam-lb"]]
    assert len(lb_rows) == 12 and all("×, q 0.0" in line and " *" in line for line in lb_rows)  # ratio, significant q
    csv = ok(orchestrate("compare", "beam-blockers", "beam-lb", "--format", "csv", "--db", db)).stdout
    assert csv.splitlines()[0].startswith("k,common,shared,units,jobs beam-blockers,jobs beam-lb,") and len(csv.splitlines()) == 13
    page = ok(orchestrate("compare", "beam-blockers", "beam-lb", "--format", "html", "--out", str(Path(db[10:]).parent / "c.html"),
                          "--db", db))
    assert "wrote" in page.stderr


def test_compare_takes_three_sweeps_and_a_by(db, boards_dir):
    for name, heuristic in (("a", "blockers"), ("b", "blockers-lb"), ("c", "moves-freed")):
        _, ids = planned(db, boards_dir, name, 2, heuristic=[heuristic])
        finish(db, ids, [solved(30 + len(name)) for _ in ids])
    csv = ok(orchestrate("compare", "a", "b", "c", "--by", "k,board", "--format", "csv", "--db", db)).stdout
    header = csv.splitlines()[0].split(",")
    assert header[:2] == ["k", "board"] and "moves_common Δ b" in header and "moves_common Δ c" in header
    assert len(csv.splitlines()) == 1 + 2 * 3
    assert_usage_error(orchestrate("compare", "a", "--db", db), "compare needs two different sweeps")
    assert_usage_error(orchestrate("compare", "a", "b", "--by", "nope", "--db", db), "--by: no column nope")


# --------------------------------------------------------------------------- reading writes nothing


@pytest.mark.parametrize("command", [
    ("status",), ("sweeps",), ("jobs", "x"), ("job", "1"), ("report", "x"), ("compare", "x", "y"), ("export", "x"),
    ("verify", "x"), ("sweep", "show", "x"), ("boards", "list"), ("boards", "show", "Rushhour6x6_1"),
])
def test_read_commands_in_an_empty_folder_create_nothing(tmp_path, command):
    environment = {**os.environ, "SLIDELAB_DATABASE_URL": "", "PYTHONPATH": str(ROOT)}
    environment.pop("SLIDELAB_DATABASE_URL")
    run = subprocess.run([sys.executable, "-c", "from orchestrator.cli import app; app()", *command], cwd=tmp_path,
                         env=environment, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip() == "error: sqlite:///slidelab.db: no results database there (a sweep or orchestrate db upgrade makes one)"
    assert list(tmp_path.iterdir()) == []


def test_status_and_sweeps_say_which_database_they_read_and_give_json(db, boards_dir):
    sweep, ids = planned(db, boards_dir, "said", 1)
    finish(db, ids, [solved(30)] * len(ids))
    assert ok(orchestrate("status", "said", "--db", db)).stdout.startswith(f"database: {db}\n")
    assert ok(orchestrate("sweeps", "--db", db)).stdout.startswith(f"database: {db}\n")
    listed = json.loads(ok(orchestrate("sweeps", "--json", "--db", db)).stdout)
    assert listed["database"] == db and listed["sweeps"][0]["name"] == "said" and listed["sweeps"][0]["finished"] == 3
    status = json.loads(ok(orchestrate("status", "said", "--json", "--db", db)).stdout)
    assert (status["phase"], status["database"], status["outcomes"]) == ("complete", db, {"solved": 3})
    job_list = json.loads(ok(orchestrate("jobs", "said", "--json", "--db", db)).stdout)
    assert [job["params"]["k"] for job in job_list["jobs"]] == [1, 1, 1]
    shown = json.loads(ok(orchestrate("sweep", "show", "said", "--json", "--db", db)).stdout)
    assert shown["name"] == "said" and shown["status"]["total"] == 3
    sets = json.loads(ok(orchestrate("boards", "list", "--json", "--db", db)).stdout)
    assert {entry["name"] for entry in sets["sets"]} >= {"korf100", "rushhour-course"}
    course = json.loads(ok(orchestrate("boards", "list", "--set", "rushhour-course", "--json", "--db", db)).stdout)
    assert [board["known_optimum"] for board in course["boards"]][:3] == [21, 15, 33]


def test_job_says_its_attempts_and_result_without_none(db, boards_dir):
    sweep, ids = planned(db, boards_dir, "one", 1)
    finish(db, ids[:1], [JobResult(outcome="failed", expanded=5, reason="beam emptied at depth 3")])
    text = ok(orchestrate("job", ids[0], "--db", db)).stdout
    assert "None" not in text and "1 attempts" not in text
    assert "known optimum 21 moves" in text  # the shipped board's, though the sweep took it as a file
    assert "not measured cpu" in text  # a result without CPU time says so


def test_version_and_help(tmp_path):
    version = ok(orchestrate("--version")).stdout
    assert version.startswith("slidelab ") and version.strip().split()[1][0].isdigit()
    solve_help = ok(orchestrate("solve", "--help")).stdout
    assert "Rush Hour or N-puzzle" in solve_help and "<bool>" not in solve_help and "--memory-limit" in solve_help
    export_help = ok(orchestrate("export", "--help")).stdout
    assert "one per job" in export_help and "outcome" in export_help
    sweep_help = ok(orchestrate("sweep", "--help")).stdout
    for option in ("--k", "--heuristic", "--batches", "--batch-size", "--move-model"):
        assert option in sweep_help


# slidelab's own imports: an installed plugin's (the example's numba heuristic imports numba) are the plugin's to pay
SLIDELAB_ALONE = {**os.environ, "SLIDELAB_DISABLE_PLUGIN_AUTOLOAD": "1"}


def test_the_command_line_imports_no_solver_database_or_report_library():
    code = "import sys, orchestrator.cli; print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
                         env=SLIDELAB_ALONE)
    assert not set(run.stdout.split()) & {"numba", "numpy", "pandas", "sqlalchemy", "alembic", "celery", "matplotlib",
                                          "pydantic_settings", "scipy"}


READ_AND_LOAD_MODULES = (
    "import sys\nfrom orchestrator.cli import run\nsys.argv = ['orchestrate', *sys.argv[1:]]\n"
    "try:\n    run()\nexcept SystemExit:\n    pass\n"
    "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)"
)


@pytest.mark.parametrize("command, allowed", [
    (("status", "quick"), set()),
    (("jobs", "quick"), set()),
    (("boards", "list"), set()),
    (("export", "quick", "--out", "quick.csv"), {"pandas"}),
    (("export", "quick", "--out", "no-folder/quick.csv"), {"pandas"}),
    (("report", "quick"), {"pandas"}),  # its intervals drawn with NumPy: scipy is compare's alone
])
def test_commands_that_read_results_load_no_compiled_code(db, boards_dir, tmp_path, command, allowed):
    """numba, pandas (0.4-0.6 s each) and scipy (1 s) take long to import: a command that only reads the database pays none of it."""
    planned(db, boards_dir, "quick", 2)
    run = subprocess.run([sys.executable, "-c", READ_AND_LOAD_MODULES, *command, "--db", db], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, env=SLIDELAB_ALONE)
    loaded = set(run.stderr.splitlines()[-1].split())
    assert "sqlalchemy" in loaded and not loaded & ({"numba", "scipy", "pandas", "matplotlib"} - allowed), run.stderr


# --------------------------------------------------------------------------- the move model, a sweep parameter


def test_the_move_model_is_a_sweep_parameter_in_the_job_key(db, boards_dir):
    one = str(boards_dir / SIX[0])
    ok(orchestrate("sweep", "--name", "models", "--algo", "bfs", "--move-model", "slide,step", "--boards", one,
                   "--workers", 1, "--db", db))
    rows = load_rows(connect(db), find_sweep(connect(db), "models")).set_index("move_model")
    assert (rows.loc["slide", "moves"], rows.loc["slide", "steps"]) == (21, 35)
    assert rows.loc["step", "moves"] == rows.loc["step", "steps"] == 35  # fewest cells moved, each move one cell
    assert rows.loc["slide", "optimum"] == 21 and not rows.loc["step", "optimal"]  # steps prove no optimum in moves
    plain = ok(orchestrate("sweep", "--name", "models", "--algo", "bfs", "--boards", one, "--extend", "--db", db))
    assert "1 new" in plain.stdout  # without the option the job is another one: its key has no move model
    assert_usage_error(orchestrate("sweep", "--algo", "bfs", "--move-model", "step", "--boards", "412763580", "--db", db),
                       "the N-puzzle has one move model")
    assert_usage_error(orchestrate("sweep", "--algo", "bfs", "--move-model", "diagonal", "--boards", one, "--db", db),
                       "move_model must be one of slide, step")
