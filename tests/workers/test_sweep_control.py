"""The researcher in control of a sweep (issue 32 §1): delete, one grid per name, a closed terminal, a worker's start.

Locally, on SQLite: `sweeps delete` asks and removes one sweep's jobs and results only; another grid under
a stored name is refused unless `--extend`; a local run whose terminal closes (SIGHUP) hands its jobs back,
and one killed outright shows as stopped once its leases lapse; a worker that cannot reach its database or
broker exits 1 with one line instead of saying it is ready.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from orchestrator.cli import app
from orchestrator.sweeps.grid import SweepGrid
from tests.orchestrator.clirun import assert_usage_error, local_environment, ok, orchestrate, runner
from tests.polling import wait_for
from tests.stored import store_sweep
from tests.tables import expire_leases
from tests.tables import job_rows as rows
from tests.tables import result_rows as results
from tests.workers.cluster import CLI
from tests.workers.test_cancel import KERNELS_S, KORF24, six
from workers.store import connect
from workers.store.jobs import claim
from workers.store.migrate import upgrade

SIX = "data/boards/rushhour/Rushhour6x6_*.csv"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def url(tmp_path, monkeypatch):
    """A fresh SQLite results database; the command line without a broker."""
    made = f"sqlite:///{tmp_path / 'results.db'}"
    upgrade(made)
    with local_environment(monkeypatch):
        yield made


def board_count(db) -> int:
    with db.engine.connect() as connection:
        return connection.execute(text("SELECT count(*) FROM boards")).scalar_one()


def sweep(url: str, *args: str):
    return orchestrate("sweep", *args, "--boards", str(ROOT / SIX), "--workers", "1", "--db", url)


def test_sweeps_delete_asks_then_removes_that_sweeps_jobs_and_results_only(url):
    ok(sweep(url, "--name", "gone", "--algo", "bfs"))
    ok(sweep(url, "--name", "kept", "--algo", "bfs"))  # the same boards
    db = connect(url)
    declined = orchestrate("sweeps", "delete", "gone", "--db", url)  # CliRunner's stdin is empty: no yes
    assert declined.exit_code == 1 and declined.stderr.strip().endswith("error: nothing deleted (--yes deletes without"
                                                                         " asking)")
    assert len(results(db)) == 6
    said = ok(runner.invoke(app, ["sweeps", "delete", "gone", "--db", url], input="y\n")).stdout
    assert "delete sweep gone: 3 jobs, 3 results? [y/N]" in said
    assert said.strip().endswith("deleted sweep gone: 3 jobs, 3 results (its boards stay)")
    listed = json.loads(ok(orchestrate("sweeps", "--json", "--db", url)).stdout)["sweeps"]
    assert [(row["name"], row["total"], row["finished"]) for row in listed] == [("kept", 3, 3)]
    assert len(results(db)) == 3 and board_count(db) == 3
    assert_usage_error(orchestrate("sweeps", "delete", "gone", "--yes", "--db", url), "no sweep named 'gone'")


def test_sweeps_delete_is_refused_while_a_job_runs_under_a_live_lease(url, boards_dir):
    db = connect(url)
    _, _, ids = store_sweep(db, "busy", six(boards_dir), SweepGrid(["bfs"]))
    claim(db, ids[:1], "w1@host", 60)
    assert_usage_error(orchestrate("sweeps", "delete", "busy", "--yes", "--db", url),
                       "sweep 'busy' has 1 job running: stop them first with orchestrate cancel busy --wait")
    assert sorted(job.status for job in rows(db).values()) == ["pending", "pending", "running"]  # nothing changed
    expire_leases(db.engine, ids[:1])  # its worker is gone: nothing runs
    ok(orchestrate("sweeps", "delete", "busy", "--yes", "--db", url))
    assert rows(db) == {} and board_count(db) == 3


def test_another_grid_under_a_sweeps_name_is_refused_in_one_line_and_extend_adds_it(url):
    ok(sweep(url, "--name", "beam-k", "--algo", "beam", "--k", "1..2"))
    refused = sweep(url, "--name", "beam-k", "--algo", "astar")
    assert_usage_error(refused, "sweep 'beam-k' has another grid: --algo astar where it has beam; give --extend to add"
                                " these jobs to it, or another --name")
    again = ok(sweep(url, "--name", "beam-k", "--algo", "beam", "--k", "1..2")).stdout
    assert "sweep beam-k: 6 jobs, 0 new" in again  # the same grid: nothing to do
    extended = ok(sweep(url, "--name", "beam-k", "--algo", "astar", "--extend")).stdout
    assert "sweep beam-k: 3 jobs, 3 new" in extended
    shown = json.loads(ok(orchestrate("sweep", "show", "beam-k", "--json", "--db", url)).stdout)
    assert shown["kind"] == "grid" and shown["definition"]["algorithms"] == ["beam", "astar"]
    assert shown["status"]["total"] == 9


def local_run(tmp_path: Path, url: str, env: dict[str, str]) -> subprocess.Popen:
    """`orchestrate sweep` of two endless jobs on two job processes, as a terminal would start it.

    With SIGHUP at its default: a run started under `nohup` (the suite's, say) inherits it ignored, and
    then rightly ignores the hang-up this module sends.
    """
    environment = {**{k: v for k, v in os.environ.items() if not k.startswith("SLIDELAB_")}, **env}
    as_from_a_terminal = [sys.executable, "-c", "import signal; signal.signal(signal.SIGHUP, signal.SIG_DFL)\n" + CLI[2]]
    argv = [*as_from_a_terminal, "sweep", "--name", "away", "--chunk", "1", "--workers", "2", "--db", url, "--algo", "idastar",
            "--heuristic", "manhattan", f"{KORF24}#1", f"{KORF24}#2"]
    return subprocess.Popen(argv, env=environment, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)


def status(url: str) -> dict:
    """The sweep's status, as `status --json` gives it; {} before the run has stored it."""
    said = orchestrate("status", "away", "--json", "--db", url)
    return json.loads(said.stdout) if said.exit_code == 0 else {}


def finished_output(run: subprocess.Popen, timeout: float) -> bytes:
    """What the process printed, once it has ended; if it has not within `timeout`, fail with its threads' stacks."""
    try:
        return run.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        os.kill(run.pid, signal.SIGUSR1)  # orchestrate prints every thread's stack (faulthandler)
        time.sleep(2)
        os.killpg(run.pid, signal.SIGKILL)  # its job processes too: they hold its output open
        said = run.communicate(timeout=30)[0].decode(errors="replace")
        raise AssertionError(f"still running {timeout:.0f} s on:\n{said}") from None


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGKILL])
def test_a_local_run_whose_terminal_closes_or_that_is_killed_shows_as_stopped(tmp_path, url, signum):
    run = local_run(tmp_path, url, {"SLIDELAB_LEASE_SECONDS": "4", "SLIDELAB_HEARTBEAT_SECONDS": "0.5"})
    try:
        wait_for(lambda: status(url).get("states") == {"running": 2}, KERNELS_S, "both jobs to run")
        assert status(url)["phase"] == "running"
        os.killpg(run.pid, signum)  # as a closed terminal hangs up its whole foreground process group
        output = finished_output(run, 60)
    finally:
        run.kill()
    if signum == signal.SIGHUP:  # handled as Ctrl-C: the jobs are handed back at once
        assert run.returncode == 130 and status(url)["states"] == {"pending": 2}, output
    now = wait_for(lambda: (found := status(url))["phase"] == "stopped" and found, 30, "the sweep to show as stopped")
    assert now["eta_s"] is None
    text = ok(orchestrate("status", "away", "--db", url)).stdout
    assert "sweep:    away (stopped)" in text and "continue with: orchestrate resume away" in text
    if signum == signal.SIGKILL:
        assert now["states"] == {"running": 2} and now["lapsed"] == 2
        assert "2 running jobs lost their worker: their lease lapsed" in text


def closed_port() -> int:
    """A local TCP port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("broken", ["database", "broker"])
def test_a_worker_that_cannot_reach_its_database_or_broker_exits_1_with_one_line(tmp_path, broken):
    database = f"postgresql+psycopg://slidelab@127.0.0.1:{closed_port()}/slidelab"
    if broken == "broker":
        database = f"sqlite:///{tmp_path / 'results.db'}"
        upgrade(database)
    broker = f"redis://127.0.0.1:{closed_port()}/0"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLIDELAB_")}
    done = subprocess.run([*CLI, "worker", "--db", database, "--broker", broker], env=env, cwd=tmp_path,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, (done.stdout, done.stderr)
    assert lines[0].startswith("error: " + ("postgresql+psycopg://slidelab@127.0.0.1" if broken == "database"
                                            else f"broker {broker}")), lines[0]
    assert "ready" not in done.stdout + done.stderr


@pytest.mark.parametrize("command", [["cancel"], ["sweeps", "delete"]], ids=["cancel", "delete"])
def test_cancel_and_delete_have_help_with_an_example(command):
    assert f"Example: orchestrate {' '.join(command)} beam-k" in ok(orchestrate(*command, "--help")).stdout
