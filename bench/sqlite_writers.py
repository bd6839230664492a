"""Many writers on one SQLite file: local-pool throughput by the number of job processes, against one.

Each row is a fresh SQLite file and one `orchestrate sweep` of trivial jobs
(a board solved in one move, `--repeat N`) on the local pool with W job
processes, each with its own thread writing its results; the rate is the jobs
over the time from the first job's start to the last one's end, as stored
(so the job processes' start-up is not in it), and the ratio is that rate over
the rate with one writer. The last row runs two sweeps into one file at once
(W = 8 and 4): their jobs together over the time both took.

Usage: `python bench/sqlite_writers.py [--jobs N] [--writers 1 2 4 8 16 32]`.
"""

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRIVIAL_BOARD = "oooooooooooooAAooooooooooooooooooooo"  # the red car one move from the exit
ORCHESTRATE = [sys.executable, "-c", "from orchestrator.cli import app; app()"]


def start(folder: Path, name: str, jobs: int, writers: int) -> subprocess.Popen:
    """A local sweep of `jobs` trivial jobs with `writers` job processes into folder/results.db, started."""
    return subprocess.Popen([*ORCHESTRATE, "sweep", "--name", name, "--algo", "bfs", "--repeat", str(jobs),
                             "--boards", TRIVIAL_BOARD, "--workers", str(writers),
                             "--db", f"sqlite:///{folder / 'results.db'}"],
                            cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={k: v for k, v in os.environ.items() if not k.startswith("SLIDELAB_")})


def stored_span(folder: Path) -> tuple[int, float]:
    """The results stored in folder/results.db and the seconds from the first job's start to the last one's end."""
    with sqlite3.connect(folder / "results.db") as connection:
        count, first, last = connection.execute(
            "SELECT count(*), min(started_at), max(finished_at) FROM results").fetchone()
    return count, (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()


def run(sweeps: list[tuple[int, int]]) -> tuple[int, float, float]:
    """The sweeps (jobs, writers) at once into a fresh file: results stored, seconds as stored, seconds of wall time."""
    with tempfile.TemporaryDirectory(prefix="slidelab-sqlite-writers-") as name:
        folder = Path(name)
        started = time.perf_counter()
        procs = [start(folder, f"s{i}", jobs, writers) for i, (jobs, writers) in enumerate(sweeps)]
        for proc in procs:
            _, err = proc.communicate()
            if proc.returncode or "locked" in err:
                sys.exit(f"a sweep failed (exit {proc.returncode}): {err.strip()[-500:]}")
        wall = time.perf_counter() - started
        count, span = stored_span(folder)
    expected = sum(jobs for jobs, _ in sweeps)
    if count != expected:
        sys.exit(f"{count} results stored for {expected} jobs")
    return count, span, wall


def main() -> None:
    """Print the table: writers, jobs, seconds as stored and in wall time, jobs/s, ratio to one writer."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=5_000)
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32])
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, {args.jobs:,} trivial jobs a sweep")
    print(f"{'writers':>12} {'jobs':>7} {'stored in':>10} {'wall':>7} {'jobs/s':>7} {'vs one':>7}")
    cases = [([(args.jobs, writers)], str(writers)) for writers in args.writers]
    cases.append(([(args.jobs, 8), (args.jobs // 5, 4)], "8 + 4, 2 sweeps"))
    one = None
    for sweeps, label in cases:
        count, span, wall = run(sweeps)
        rate = count / span
        one = one or rate
        print(f"{label:>12} {count:>7,} {span:>9.1f}s {wall:>6.1f}s {rate:>7,.0f} {rate / one:>7.2f}")


if __name__ == "__main__":
    main()
