"""A generated 200,000-job sweep (issue 33): status and the report within a stated memory, in their own processes."""

import subprocess
import sys

import pytest

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.plan import plan_sweep, store_plan
from orchestrator.sweeps.sources import load_boards
from workers.store import open_database
from workers.store.jobs import record
from workers.store.records import JobResult
from workers.store.sweeps import unfinished_jobs

JOBS = 200_000
STATUS_MIB = 200  # status counts in SQL: its memory is Python's and the libraries', whatever the sweep's size
REPORT_MIB = 800  # a report reads the rows as columns: about 1.35 GB at a million jobs
CSV_MIB = 300  # a CSV export makes and writes 20,000 rows at a time: about 240 MiB, whatever the sweep's size
# the process's own peak (VmHWM: getrusage's would count the memory of the test process it was forked from)
PEAK = "import re, sys; from orchestrator.cli import app\ntry:\n    app()\nexcept SystemExit as end:\n" \
       "    peak = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)\n" \
       "    print(int(peak) // 1024, file=sys.stderr); sys.exit(end.code)"


@pytest.fixture(scope="module")
def large(tmp_path_factory, boards_dir) -> str:
    """A SQLite database holding sweep `large`: beam k 1..100 on two boards, 1,000 repeats, every job done."""
    url = f"sqlite:///{tmp_path_factory.mktemp('large') / 'large.db'}"
    db = open_database(url)
    boards = load_boards([str(boards_dir / "Rushhour6x6_1.csv"), str(boards_dir / "Rushhour6x6_2.csv")])
    sweep_id, _ = store_plan(db, plan_sweep("large", boards, SweepGrid(["beam"], {"k": list(range(1, 101))},
                                                                        repeat=JOBS // 200)))
    ids = unfinished_jobs(db, sweep_id)
    results = [JobResult(outcome="solved", moves=20 + n % 7, steps=20, expanded=100 + n % 1000, elapsed_s=0.001 * (n % 9))
               for n in range(50)]
    for start in range(0, len(ids), 20_000):
        record(db, [(job_id, results[job_id % 50]) for job_id in ids[start : start + 20_000]])
    db.engine.dispose()
    return url


def peak_mib(*args: str) -> int:
    """Run `orchestrate ARGS` in a process of its own; its peak resident memory in MiB."""
    done = subprocess.run([sys.executable, "-c", PEAK, *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return int(done.stderr.split()[-1])


@pytest.mark.slow
def test_status_the_report_and_a_csv_export_of_a_large_sweep_stay_within_their_memory(large, tmp_path):
    assert peak_mib("status", "large", "--db", large) <= STATUS_MIB
    assert peak_mib("report", "large", "--db", large) <= REPORT_MIB
    assert peak_mib("export", "large", "--out", str(tmp_path / "large.csv"), "--db", large) <= CSV_MIB
    assert sum(1 for _ in (tmp_path / "large.csv").open()) == JOBS + 1
