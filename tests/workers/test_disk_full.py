"""A disk that fills (issue 35): the SQLite file's, mid-sweep, and a pattern database's folder, mid-build.

Each test mounts a small tmpfs of its own (root only, as the network-namespace
tests need) and fills it with a file of zeros, so that the next writes fail
with ENOSPC as on a real disk; removing the file frees the space again.
"""

import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.polling import wait_for
from tests.workers.cluster import CLI, SLOW_START_S
from workers.failures import SQLITE_FULL

TRIVIAL_BOARD = "oooooooooooooAAooooooooooooooooooooo"  # the red car one move from the exit
LEFT_KIB = 3_500  # room left on the disk: the planned jobs fit (each with its index entries), a few hundred results do not
SHORT_LEASE = {"SLIDELAB_LEASE_SECONDS": "4", "SLIDELAB_HEARTBEAT_SECONDS": "0.5"}

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small disk needs root")


@contextmanager
def small_disk(folder: Path, size: str = "16m") -> Iterator[Path]:
    """A tmpfs of `size` mounted at `folder`, unmounted after."""
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(disk: Path, leave_kib: int) -> Path:
    """A file of zeros that leaves `leave_kib` KiB free on `disk`; its path."""
    free_kib = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize // 1024
    filler = disk / "filler"
    with filler.open("wb") as out:
        out.write(bytes((free_kib - leave_kib) * 1024))
    return filler


def orchestrate(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`orchestrate ARGS` as a user runs it, with short leases so that a run that stopped shows so within seconds."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLIDELAB_")} | SHORT_LEASE
    return subprocess.run([*CLI, *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=SLOW_START_S)


def sweep(cwd: Path, url: str, name: str, jobs: int) -> subprocess.CompletedProcess:
    """A local sweep of `jobs` one-move bfs jobs."""
    return orchestrate(cwd, "sweep", "--name", name, "--algo", "bfs", "--repeat", str(jobs), "--boards", TRIVIAL_BOARD,
                       "--db", url)


def stored_results(path: Path, name: str) -> list[tuple]:
    """The sweep's results as stored, in job order."""
    with sqlite3.connect(path) as connection:
        return connection.execute(
            "SELECT r.job_id, r.outcome, r.moves, r.expanded, r.solution FROM results r JOIN jobs j ON j.id = r.job_id"
            " JOIN sweeps s ON s.id = j.sweep_id WHERE s.name = ? ORDER BY r.job_id", (name,)).fetchall()


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_full_disk_stops_a_local_sweep_with_one_line_and_resume_finishes_it_once_there_is_room(tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        path = disk / "results.db"
        url = f"sqlite:///{path}"
        assert sweep(tmp_path, url, "before", 50).returncode == 0
        before = stored_results(path, "before")
        filler = fill(disk, LEFT_KIB)

        stopped = sweep(tmp_path, url, "big", 3_000)
        assert stopped.returncode == 1 and "Traceback" not in stopped.stderr
        assert stopped.stderr.strip().splitlines()[-1] == f"error: {url}: database or disk is full: {SQLITE_FULL}"
        with sqlite3.connect(path) as connection:
            assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert stored_results(path, "before") == before

        def status() -> dict:
            return json.loads(orchestrate(tmp_path, "status", "big", "--json", "--db", url).stdout)

        now = wait_for(lambda: (found := status())["phase"] == "stopped" and found, 60, "the sweep to show as stopped")
        assert now["total"] == 3_000 and 0 < now["finished"] < 3_000  # the jobs without a result, counted

        filler.unlink()
        resumed = orchestrate(tmp_path, "resume", "big", "--db", url)
        assert resumed.returncode == 0, resumed.stderr
        assert status()["phase"] == "complete"
        assert [job_id for job_id, *_ in stored_results(path, "big")] == sorted({r[0] for r in stored_results(path, "big")})
        assert len(stored_results(path, "big")) == 3_000 and stored_results(path, "before") == before


@pytest.mark.timeout(300)
def test_a_pattern_database_build_that_runs_out_of_room_leaves_no_file_a_later_run_would_load(tmp_path):
    with small_disk(tmp_path / "disk", "4m") as disk:
        env = {"SLIDELAB_CACHE_DIR": str(disk)}
        build = ["pdb", "build", "4x4", "--pdb", "5-5-5"]  # three tables of 512 KiB: the second finds no room
        filler = fill(disk, 1_000)
        failed = subprocess.run([*CLI, *build], cwd=tmp_path, capture_output=True, text=True, timeout=SLOW_START_S,
                                env={k: v for k, v in os.environ.items() if not k.startswith("SLIDELAB_")} | env)
        assert failed.returncode == 1 and "Traceback" not in failed.stderr
        assert "No space left on device" in failed.stderr and str(disk) in failed.stderr
        left = {file.name: file.read_bytes() for file in (disk / "pdb").iterdir()}
        assert len(left) < 3 and not [name for name in left if not name.endswith(".pdb")]  # no partial file
        filler.unlink()
        built = subprocess.run([*CLI, *build], cwd=tmp_path, capture_output=True, text=True, timeout=SLOW_START_S,
                               env={k: v for k, v in os.environ.items() if not k.startswith("SLIDELAB_")} | env)
        assert built.returncode == 0, built.stderr
        assert all((disk / "pdb" / name).read_bytes() == data for name, data in left.items())  # each was whole


@pytest.mark.timeout(300)
def test_a_layered_proof_whose_checkpoint_disk_fills_names_the_file_and_resumes_from_it_once_there_is_room(tmp_path):
    board = Path(__file__).resolve().parents[2] / "data" / "boards" / "rushhour" / "Rushhour6x6_3.csv"
    solve = ["solve", str(board), "--algo", "layered", "--checkpoint", str(tmp_path / "disk" / "proof"), "--json"]
    with small_disk(tmp_path / "disk", "64k") as disk:  # its layers take about 90 KiB
        failed = orchestrate(tmp_path, *solve)
        assert failed.returncode == 1 and "Traceback" not in failed.stderr
        line = failed.stderr.strip().splitlines()[-1]
        assert line.startswith(f"error: {disk / 'proof'}/") and line.endswith(": No space left on device"), line
        assert not [file for file in (disk / "proof").iterdir() if "partial" in file.name]
        subprocess.run(["mount", "-o", "remount,size=4m", str(disk)], check=True)
        resumed = orchestrate(tmp_path, *solve)
        assert resumed.returncode == 0, resumed.stderr
        assert json.loads(resumed.stdout)["moves"] == 33  # the board's optimum, from the layers already proven
