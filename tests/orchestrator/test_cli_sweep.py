"""`orchestrate sweep`, `resume`, `status`, `sweeps` and `jobs` in local mode, on SQLite.

The commands run in this process through Typer's CliRunner (their job
processes are real), except the Ctrl-C test, which needs a process to signal.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from orchestrator.sweeps import running as running_module
from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.sources import load_boards
from tests.orchestrator.clirun import assert_usage_error, ok, orchestrate
from tests.stored import store_sweep
from tests.tables import Board, Job, Result, Sweep
from workers.store import connect
from workers.store.database import engine_for
from workers.store.migrate import upgrade

ROOT = Path(__file__).resolve().parents[2]
SIX = ["Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv"]
OPTIMUM = {"Rushhour6x6_1": 21, "Rushhour6x6_2": 15, "Rushhour6x6_3": 33, "Rushhour9x9_4": 27}
LIMITS_OFF = {"time_limit": None, "max_nodes": None, "memory_limit": None}  # what the CLI plans without limits



@pytest.fixture
def six_dir(boards_dir, tmp_path) -> Path:
    """A directory holding copies of the three 6x6 course boards."""
    folder = tmp_path / "boards"
    folder.mkdir()
    for name in SIX:
        shutil.copy(boards_dir / name, folder / name)
    return folder


@pytest.fixture
def db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'results.db'}"


def sweep(db: str, *args):
    return orchestrate("sweep", *args, "--workers", 2, "--db", db)


def job_rows(db: str, sweep_name: str | None = None) -> list[dict]:
    """Every job of the database (or of one sweep) with its board name and result, in id order."""
    query = (
        select(Job, Board.name, Result)
        .join(Board, Job.board_id == Board.id)
        .join(Sweep, Job.sweep_id == Sweep.id)
        .outerjoin(Result, Result.job_id == Job.id)
        .order_by(Job.id)
    )
    if sweep_name:
        query = query.where(Sweep.name == sweep_name)
    with Session(engine_for(db)) as session:
        rows = session.execute(query).all()
    return [
        {
            "id": job.id, "board": board, "algorithm": job.algorithm, "params": job.params,
            "seed": job.seed, "repeat": job.repeat, "status": job.status, "attempts": job.attempts,
            "finished_at": job.finished_at,
            "result": None if result is None else {
                "id": result.id, "outcome": result.outcome, "moves": result.moves, "reason": result.reason,
                "error": result.error, "created_at": result.created_at,
            },
        }
        for job, board, result in rows
    ]


def snapshot(db: str) -> dict:
    """Everything a failed command must leave as it was."""
    with Session(engine_for(db)) as session:
        counts = {
            m.__tablename__: session.scalar(select(func.count()).select_from(m)) for m in (Board, Sweep, Job, Result)
        }
        sweeps = session.execute(select(Sweep.name, Sweep.kind, Sweep.definition, Sweep.limits).order_by(Sweep.id)).all()
        jobs = session.execute(select(Job.id, Job.job_key, Job.status, Job.attempts).order_by(Job.id)).all()
    return {"counts": counts, "sweeps": sweeps, "jobs": jobs}


# --------------------------------------------------------------------------- sweeps that run


def test_a_beam_sweep_runs_each_job_once_and_again_only_with_rerun(db, six_dir):
    args = ("--algo", "beam", "--k", "1..3", "--heuristic", "blockers", "--boards", six_dir, "--name", "beam-k")
    first = ok(sweep(db, *args))
    assert first.stdout.startswith("sweep beam-k: 9 jobs, 9 new\n")
    assert "9 of 9 done" in first.stdout
    jobs = job_rows(db)
    assert len(jobs) == 9
    assert {(j["status"], j["attempts"]) for j in jobs} == {("done", 1)}
    # beam with k <= 3 and the blockers heuristic runs dry on all three boards (known: depth 26, 22, 42 on 6x6_1)
    assert {j["result"]["outcome"] for j in jobs} == {"failed"}
    assert all(j["result"]["reason"].startswith("beam emptied at depth") for j in jobs)
    assert sorted((j["board"], j["params"]["k"]) for j in jobs) == [(b[:-4], k) for b in SIX for k in (1, 2, 3)]

    status = json.loads(ok(orchestrate("status", "beam-k", "--json", "--db", db)).stdout)
    assert {key: status[key] for key in ("name", "total", "finished", "complete", "states", "outcomes")} == {
        "name": "beam-k", "total": 9, "finished": 9, "complete": True, "states": {"done": 9}, "outcomes": {"failed": 9},
    }
    assert sum(status["hosts"].values()) == 9

    again = ok(sweep(db, *args))
    assert again.stdout.startswith("sweep beam-k: 9 jobs, 0 new\n")
    assert job_rows(db) == jobs  # nothing ran again: same results, same attempts, same times

    time.sleep(0.01)
    rerun = ok(sweep(db, *args, "--rerun"))
    assert rerun.stdout.startswith("sweep beam-k: 9 jobs, 0 new\n")
    after = job_rows(db)
    assert [(j["id"], j["status"], j["attempts"]) for j in after] == [(j["id"], "done", 1) for j in jobs]
    assert all(new["result"]["created_at"] > old["result"]["created_at"] for new, old in zip(after, jobs))
    assert [j["result"]["reason"] for j in after] == [j["result"]["reason"] for j in jobs]  # beam is deterministic


def test_beam_never_beats_bfs_and_bfs_finds_the_known_optima(db, six_dir):
    ok(sweep(db, "--algo", "beam,bfs", "--k", "50", "--heuristic", "blockers-lb", "--boards", six_dir,
             "--name", "known"))
    jobs = job_rows(db)
    assert len(jobs) == 6 and {j["status"] for j in jobs} == {"done"}
    bfs = {j["board"]: j["result"]["moves"] for j in jobs if j["algorithm"] == "bfs"}
    beam = {j["board"]: j["result"]["moves"] for j in jobs if j["algorithm"] == "beam"}
    assert bfs == {name: OPTIMUM[name] for name in ("Rushhour6x6_1", "Rushhour6x6_2", "Rushhour6x6_3")}
    assert all(beam[name] >= bfs[name] for name in bfs), beam
    assert beam["Rushhour6x6_1"] == 21  # k=50 with blockers-lb is wide enough on the first board


def test_an_spr_grid_runs_every_combination_of_batches_sizes_and_seeds(db, boards_dir):
    first, second = (boards_dir / name for name in SIX[:2])
    ok(sweep(db, "--algo", "spr", "--batches", "1..2", "--batch-size", "10,100", "--seeds", "1..2",
             "--boards", first, second, "--name", "spr"))
    jobs = job_rows(db)
    assert len(jobs) == 2 * 8
    for board in ("Rushhour6x6_1", "Rushhour6x6_2"):
        mine = [j for j in jobs if j["board"] == board]
        combos = sorted((j["params"]["batches"], j["params"]["batch_size"], j["seed"]) for j in mine)
        assert combos == [(b, s, seed) for b in (1, 2) for s in (10, 100) for seed in (1, 2)]
    assert {(j["status"], j["result"]["outcome"]) for j in jobs} == {("done", "solved")}
    assert all(j["result"]["moves"] >= OPTIMUM[j["board"]] for j in jobs)


def test_dry_run_prints_the_grid_and_writes_nothing(tmp_path, six_dir):
    db_file = tmp_path / "never.db"
    result = ok(orchestrate("sweep", "--algo", "beam,bfs", "--k", "1..50", "--boards", six_dir,
                            "--dry-run", "--db", f"sqlite:///{db_file}"))
    lines = result.stdout.splitlines()
    assert lines[0].startswith("sweep beam+bfs-") and lines[0].endswith(": 153 jobs on 3 boards")
    assert "Rushhour6x6_1" in lines[1] and "beam" in lines[1]
    assert "148 more" in lines[-1]
    assert not db_file.exists()


def test_the_default_name_is_derived_from_the_grid(db, six_dir):
    planned = ok(orchestrate("sweep", "--algo", "bfs", "--boards", six_dir, "--dry-run")).stdout.split(":")[0]
    first = ok(sweep(db, "--algo", "bfs", "--boards", six_dir)).stdout.splitlines()[0]
    again = ok(sweep(db, "--algo", "bfs", "--boards", six_dir)).stdout.splitlines()[0]
    assert first == f"{planned}: 3 jobs, 3 new" and again == f"{planned}: 3 jobs, 0 new"
    newest = json.loads(ok(orchestrate("status", "--json", "--db", db)).stdout)
    assert planned == f"sweep {newest['name']}" and newest["complete"]


def test_jobs_sweeps_and_resume(db, six_dir):
    ok(sweep(db, "--algo", "bfs,beam", "--k", "50", "--heuristic", "blockers-lb", "--boards", six_dir, "--name", "mix"))
    broken = job_rows(db)[-1]  # beam on 6x6_3: given a heuristic the planner would refuse, and run again
    with Session(engine_for(db)) as session, session.begin():
        session.execute(delete(Result).where(Result.job_id == broken["id"]))
        session.execute(update(Job).where(Job.id == broken["id"])
                        .values(status="pending", params={"heuristic": "nope", "k": 50}))

    resumed = ok(orchestrate("resume", "mix", "--workers", 2, "--db", db))
    assert "6 of 6 done" in resumed.stdout and "outcomes: solved 5, error 1" in resumed.stdout
    jobs = {j["id"]: j for j in job_rows(db)}
    assert (jobs[broken["id"]]["status"], jobs[broken["id"]]["attempts"]) == ("done", 2)
    assert jobs[broken["id"]]["result"]["outcome"] == "error"
    assert "unknown heuristic 'nope'" in jobs[broken["id"]]["result"]["error"]

    raised = ok(orchestrate("jobs", "mix", "--status", "error", "--db", db)).stdout
    assert "unknown heuristic 'nope'" in raised
    assert [line.split()[0] for line in raised.splitlines() if "Rushhour" in line] == [str(broken["id"])]
    done_jobs = ok(orchestrate("jobs", "mix", "--status", "done", "--db", db)).stdout
    assert sum("Rushhour" in line for line in done_jobs.splitlines()) == 6
    solved = ok(orchestrate("jobs", "mix", "--status", "solved", "--db", db)).stdout
    assert sum("Rushhour" in line for line in solved.splitlines()) == 5
    listed = ok(orchestrate("jobs", "mix", "--db", db)).stdout
    assert sum("Rushhour" in line for line in listed.splitlines()) == 6

    sweeps = ok(orchestrate("sweeps", "--db", db)).stdout
    (row,) = [line for line in sweeps.splitlines() if line.strip().startswith("mix")]
    assert row.split()[3:5] == ["6", "6"] and row.rstrip().endswith("solved 5, error 1")  # jobs, done, outcomes

    before = job_rows(db)
    done = ok(orchestrate("resume", "mix", "--workers", 2, "--db", db))  # nothing left to do
    assert "6 of 6 done" in done.stdout
    assert job_rows(db) == before


def test_commands_on_an_unknown_sweep_name_the_known_ones(db, six_dir):
    ok(sweep(db, "--algo", "bfs", "--boards", six_dir, "--name", "only"))
    for command in (("status", "nope"), ("resume", "nope"), ("jobs", "nope")):
        assert_usage_error(orchestrate(*command, "--db", db), "no sweep named 'nope' (recent: only)")


def test_jobs_refuses_an_unknown_status(db, six_dir):
    ok(sweep(db, "--algo", "bfs", "--boards", six_dir, "--name", "only"))
    assert_usage_error(orchestrate("jobs", "only", "--status", "bogus", "--db", db),
                       "--status: 'bogus' is neither a job state nor an outcome (choose from pending, queued, running,"
                       " done, cancelled, solved, unsolvable, failed, limit, error)")


def test_status_of_an_empty_database_is_a_usage_error(db):
    assert_usage_error(orchestrate("status", "--db", db), "no results database there")
    ok(orchestrate("db", "upgrade", "--db", db))
    assert_usage_error(orchestrate("status", "--db", db), "holds no sweeps yet")


# --------------------------------------------------------------------------- bad input


@pytest.fixture
def planned_db(db, boards_dir) -> str:
    """A database that already holds a sweep `base` (bfs on 6x6_1 under a 10 s limit), not yet run."""
    upgrade(db)
    boards = load_boards([str(boards_dir / SIX[0])])
    store_sweep(connect(db), "base", boards, SweepGrid(["bfs"]), limits={**LIMITS_OFF, "time_limit": 10.0})
    return db


@pytest.mark.parametrize(
    "args, message",
    [
        (("--algo", "beam", "--k", "5..1"), "--k: the range '5..1' is empty"),
        (("--algo", "beam", "--foo", "1"), "No such option: --foo"),
        (("--algo", "bfs", "--k", "5"), "no algorithm among bfs takes k"),
        (("--algo", "beam", "--k", "0"), "beam: k must be at least 1"),
        (("--algo", "dijkstra"), "unknown algorithm 'dijkstra'"),
        (("--algo", "spr", "--seeds", "1.5"), "--seeds: '1.5' are not whole numbers"),
        (("--algo", "spr", "--seeds", "1", "--repeat", "2"), "give --seeds or --repeat, not both"),
        (("--algo", "bfs", "--memory-limit", "lots"), "--memory-limit: 'lots' is not a size"),
        (("--algo", "bfs", "--name", "base"), "sweep 'base' was planned with limits time_limit=10.00 s, not none"),
    ],
)
def test_bad_input_is_one_error_line_and_changes_nothing(planned_db, six_dir, args, message):
    before = snapshot(planned_db)
    assert_usage_error(sweep(planned_db, *args, "--boards", six_dir), message)
    assert snapshot(planned_db) == before


def test_an_option_without_its_value_is_one_error_line(planned_db, six_dir):
    before = snapshot(planned_db)
    result = orchestrate("sweep", "--algo", "beam", "--boards", six_dir, "--db", planned_db, "--k")
    assert_usage_error(result, "Option '--k' requires an argument")
    assert snapshot(planned_db) == before


def test_a_malformed_board_file_is_named_and_nothing_is_written(planned_db, six_dir):
    bad = six_dir / "Rushhour6x6_4.csv"
    bad.write_text("car,orientation,col,row,length\nX,H,1,3,2\nA,Q,4,1,2\n")
    before = snapshot(planned_db)
    assert_usage_error(sweep(planned_db, "--algo", "bfs", "--boards", six_dir), str(bad))
    assert snapshot(planned_db) == before


@pytest.mark.parametrize("boards, message", [("{dir}/*.txt", "no file matches"), ("{dir}/none.csv", "no such file")])
def test_boards_that_are_not_there_are_named(planned_db, six_dir, boards, message):
    before = snapshot(planned_db)
    assert_usage_error(sweep(planned_db, "--algo", "bfs", "--boards", boards.format(dir=six_dir)), message)
    assert snapshot(planned_db) == before


@pytest.mark.parametrize("command", [("sweep", "--algo", "bfs", "--boards", "{dir}"), ("status",), ("sweeps",)])
def test_an_unreachable_database_is_exit_1_with_one_line_and_no_password(six_dir, command):
    url = "postgresql+psycopg://slidelab:s3cret@127.0.0.1:1/slidelab"
    result = orchestrate(*(part.format(dir=six_dir) for part in command), "--db", url)
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: postgresql+psycopg://slidelab:***@127.0.0.1:1/slidelab: ")
    assert "s3cret" not in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("setting, value, message", [
    ("SLIDELAB_HEARTBEAT_SECONDS", "60", "error: SLIDELAB_HEARTBEAT_SECONDS must be shorter than SLIDELAB_LEASE_SECONDS"),
    ("SLIDELAB_LEASE_SECONDS", "soon", "SLIDELAB_LEASE_SECONDS: Input should be a valid number"),
])
@pytest.mark.parametrize("command", [("sweeps",), ("worker", "--broker", "redis://127.0.0.1:1/0")])
def test_a_wrong_setting_is_exit_2_with_one_line(monkeypatch, tmp_path, command, setting, value, message):
    with monkeypatch.context() as patched:  # undone before the fixtures configure the process again
        patched.setenv(setting, value)
        result = orchestrate(*command, "--db", f"sqlite:///{tmp_path / 'x.db'}")
    assert_usage_error(result, message)


# --------------------------------------------------------------------------- Ctrl-C


def test_ctrl_c_in_the_local_pool_waits_for_the_threads_to_store_what_they_hold(monkeypatch):
    """A KeyboardInterrupt that lands in `Thread.join` (CPython < 3.13) must not let run_local return early."""
    stored = []
    running = threading.Event()  # the interrupt comes once a thread holds its batch, however slow the start

    def slow_to_store(db, batch, runner, host, **_):
        running.set()
        while not runner.stopping:
            time.sleep(0.01)
        time.sleep(0.5)  # writing the results the stopped batch had
        stored.append(batch)
        return []

    monkeypatch.setattr(running_module, "execute", slow_to_store)
    monkeypatch.setattr(running_module, "job_inputs", lambda db, job_ids: [])  # no database: no kinds to warm up
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    interrupt = threading.Thread(target=lambda: running.wait(60) and os.kill(os.getpid(), signal.SIGINT), daemon=True)
    try:
        interrupt.start()
        with pytest.raises(KeyboardInterrupt):
            running_module.run_local(None, [1], 1, 1, lambda _: None)
        assert stored == [[1]]
    finally:
        running.set()
        interrupt.join()
        signal.signal(signal.SIGINT, previous)


def _long_jobs(db: str) -> dict[str, int]:
    """The jobs on 9x9_5 and 9x9_6 by status, once some job has its result (none while the schema is new)."""
    try:
        with Session(engine_for(db)) as session:
            if not session.scalar(select(func.count()).select_from(Result)):
                return {}
            rows = session.execute(
                select(Job.status, func.count()).join(Board, Job.board_id == Board.id)
                .where(Board.size == 9, Board.name != "Rushhour9x9_4").group_by(Job.status)
            )
            return dict(rows.all())
    except OperationalError:
        return {}


def _as_from_a_terminal() -> None:
    """SIGINT neither ignored nor blocked, as a shell starts a command, whatever this test process inherited: in
    full parallel runs the sweep twice ignored Ctrl-C (ran to its end, or on past 30 s) though it never does alone."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _ignores_sigint(pid: int) -> bool:
    """True if process `pid` ignores or blocks SIGINT (its SigIgn and SigBlk masks in /proc)."""
    masks = dict(line.split(":\t") for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":\t" in line)
    return any(int(masks[name], 16) >> (signal.SIGINT - 1) & 1 for name in ("SigIgn", "SigBlk"))


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_ctrl_c_stops_a_local_sweep_and_resume_finishes_it(db, boards_dir, tmp_path):
    folder = tmp_path / "ctrl-c-boards"
    folder.mkdir()
    names = SIX + ["Rushhour9x9_4.csv", "Rushhour9x9_5.csv", "Rushhour9x9_6.csv"]
    for name in names:
        shutil.copy(boards_dir / name, folder / name)
    # 8 short jobs, then 4 bfs runs on 9x9_5 and 9x9_6 that stop at their node limit (seconds each; 9x9_4 needs 0.35 M,
    # 9x9_5 10.8 M), two at a time: Ctrl-C while the first two run leaves two that have not started
    command = [sys.executable, "-c", "from orchestrator.cli import app; app()", "sweep", "--algo", "bfs",
               "--repeat", "2", "--max-nodes", "5000000", "--boards", str(folder), "--name", "ctrl-c", "--workers", "2",
               "--db", db]
    env = {k: v for k, v in os.environ.items() if k not in ("SLIDELAB_DATABASE_URL", "SLIDELAB_BROKER_URL")}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_as_from_a_terminal)  # noqa: PLW1509
    try:
        deadline = time.monotonic() + 60
        while (jobs := _long_jobs(db)).get("running", 0) < 2:  # both job processes on a long job
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no long job started within 60 s"
            time.sleep(0.1)
        assert "done" not in jobs, f"a long job ended before the test saw two run: {jobs}"  # so two are left after Ctrl-C
        assert not _ignores_sigint(process.pid), "the sweep ignores Ctrl-C"
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, (stdout, stderr)
    assert "stopped; continue with: orchestrate resume ctrl-c" in stderr
    assert "Traceback" not in stderr

    stopped = job_rows(db)
    assert len(stopped) == 12
    assert all((j["result"] is not None) == (j["status"] == "done") for j in stopped)
    held = [j for j in stopped if j["status"] == "pending" and j["attempts"] == 1]  # given back by Ctrl-C
    assert held and all(j["board"] in ("Rushhour9x9_5", "Rushhour9x9_6") for j in held)
    assert all(j["status"] in ("done", "pending") for j in stopped)

    ok(orchestrate("resume", "ctrl-c", "--workers", 2, "--db", db))
    finished = job_rows(db)
    assert [j["id"] for j in finished] == [j["id"] for j in stopped]
    assert {j["status"] for j in finished} == {"done"}
    with Session(engine_for(db)) as session:
        assert session.scalar(select(func.count()).select_from(Result)) == 12
    for job in finished:
        if job["board"] in OPTIMUM:
            assert (job["result"]["outcome"], job["result"]["moves"]) == ("solved", OPTIMUM[job["board"]])
        else:
            assert job["result"]["outcome"] == "limit" and "node limit" in job["result"]["reason"]
    assert {j["id"]: j["attempts"] for j in finished if j["attempts"] == 2} == {j["id"]: 2 for j in held}
    kept = {j["id"]: j["result"] for j in stopped if j["result"]}
    assert all(job["result"] == kept[job["id"]] for job in finished if job["id"] in kept)  # results stay as stored
