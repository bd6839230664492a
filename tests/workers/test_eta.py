"""A running sweep's ETA (issue 46 §4): from the durations of its done jobs by kind, not from the pace of the first ones.

The demo's ETA said `0:00:01` with a minute left: its first minute was beam with
small k, which takes milliseconds, and A* on the 9x9 boards came after. Here a
skewed sweep is simulated on two workers (every cheap job first, the expensive
ones after) and the database is set as it would be at moments of its run: the
ETA must be within a factor of two of the time actually left once a tenth of
each kind of job is done.
"""

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from sqlalchemy import update

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.lookups import find_sweep
from orchestrator.sweeps.sources import load_boards
from tests.stored import store_sweep
from workers.store import connect
from workers.store.eta import Kind, remaining_seconds
from workers.store.jobs import record
from workers.store.migrate import upgrade
from workers.store.progress import sweep_status
from workers.store.records import JobResult
from workers.store.schema import jobs

SIX = ("Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv")
WORKERS = 2
REPEAT = 20  # jobs of each kind (board, algorithm, parameters)


@dataclass(frozen=True)
class Run:
    """A simulated job: its id, kind, and when it started and finished on which worker (seconds from the start)."""

    job_id: int
    kind: tuple
    start: float
    end: float
    worker: int


def simulated(plan, ids: list[int]) -> list[Run]:
    """The sweep run by WORKERS workers, each taking the next job as it is free: the cheap beam jobs first (a few ms to
    a tenth of a second), then A* (seconds, more on the later boards), with a spread of durations within each kind."""
    rng = np.random.default_rng(46)
    board_cost = {board.id: 1.0 + place for place, board in enumerate(plan.boards)}
    order = sorted(zip(ids, plan.jobs), key=lambda pair: (pair[1].algorithm == "astar", pair[1].repeat))
    free = [0.0] * WORKERS
    runs = []
    for job_id, job in order:
        mean = 5.0 if job.algorithm == "astar" else 0.005 * job.params["k"]
        worker = int(np.argmin(free))
        start = free[worker]
        free[worker] = start + mean * board_cost[job.board_id] * rng.lognormal(0.0, 0.3)
        runs.append(Run(job_id, (job.board_id, job.algorithm, str(job.params)), start, free[worker], worker))
    return runs


def a_tenth_of_each_kind_done(runs: list[Run]) -> float:
    """The first moment by which a tenth of the jobs of every kind are done."""
    kinds: dict[tuple, list[float]] = {}
    for run in runs:
        kinds.setdefault(run.kind, []).append(run.end)
    return max(sorted(ends)[math.ceil(len(ends) / 10) - 1] for ends in kinds.values())


def as_at(url: str, runs: list[Run], moment: float) -> None:
    """The database as it is `moment` seconds into the simulated run, which is now: jobs done, running and pending."""
    db, now = connect(url), datetime.now(UTC)

    def at(seconds: float) -> datetime:
        return now - timedelta(seconds=moment - seconds)

    done = [run for run in runs if run.end <= moment]
    record(db, [(run.job_id, JobResult(outcome="solved", moves=10, elapsed_s=run.end - run.start,
                                       started_at=at(run.start), finished_at=at(run.end))) for run in done])
    with db.engine.begin() as connection:
        for run in done:
            connection.execute(update(jobs).where(jobs.c.id == run.job_id)
                               .values(started_at=at(run.start), finished_at=at(run.end)))
        for run in runs:
            if run.start <= moment < run.end:
                connection.execute(update(jobs).where(jobs.c.id == run.job_id).values(
                    status="running", worker_host=f"w{run.worker}", started_at=at(run.start),
                    lease_until=now + timedelta(minutes=5)))


def test_the_eta_of_a_skewed_sweep_is_within_a_factor_of_two_once_a_tenth_of_each_kind_is_done(tmp_path, boards_dir):
    boards = load_boards([str(boards_dir / name) for name in SIX])
    grid = SweepGrid(["beam", "astar"], {"k": [1, 2, 3, 4], "heuristic": ["blockers"]}, repeat=REPEAT)
    runs, end = None, None
    errors = []
    for step in range(5):  # from a tenth of each kind done to near the end
        url = f"sqlite:///{tmp_path / f'at-{step}.db'}"
        upgrade(url)
        plan, _, ids = store_sweep(connect(url), "skewed", boards, grid)
        if runs is None:
            runs = simulated(plan, ids)
            first, end = a_tenth_of_each_kind_done(runs), max(run.end for run in runs)
        moment = first + (end - first) * step / 5
        as_at(url, runs, moment)
        eta = sweep_status(connect(url), find_sweep(connect(url), "skewed")).eta_s
        errors.append(eta / (end - moment))
    assert all(0.5 <= error <= 2.0 for error in errors), errors  # ETA / time left, at each moment


def kind(board: str, algorithm: str, params: str, done: int, seconds: float, left: int) -> Kind:
    return Kind(board, algorithm, params, done, seconds, left)


def test_a_kind_not_seen_yet_takes_the_mean_of_the_nearest_kinds_seen():
    seen = [kind("b1", "astar", "{}", 2, 20.0, 0), kind("b1", "beam", "k=1", 4, 0.4, 0), kind("b2", "beam", "k=2", 1, 3.0, 0)]
    assert remaining_seconds([*seen, kind("b1", "astar", "{}", 0, 0.0, 3)], 1) == pytest.approx(30.0)  # its own
    assert remaining_seconds([*seen, kind("b1", "beam", "k=9", 0, 0.0, 1)], 1) == pytest.approx(0.1)  # same board
    assert remaining_seconds([*seen, kind("b3", "beam", "k=2", 0, 0.0, 1)], 1) == pytest.approx(3.0)  # same parameters
    assert remaining_seconds([*seen, kind("b3", "beam", "k=7", 0, 0.0, 1)], 1) == pytest.approx(3.4 / 5)  # algorithm
    assert remaining_seconds([*seen, kind("b3", "bfs", "{}", 0, 0.0, 1)], 1) == pytest.approx(23.4 / 7)  # any job
    assert remaining_seconds([*seen, kind("b1", "astar", "{}", 0, 0.0, 4)], 2) == pytest.approx(20.0)  # two workers
    assert remaining_seconds([kind("b1", "astar", "{}", 0, 0.0, 4)], 2) is None  # nothing done: no estimate


def test_the_time_left_is_no_less_than_the_oldest_running_batch_has_run():
    """The demo's A* on Rushhour9x9_5 took 49 s, where A* on the other boards took at most half a second."""
    seen = [kind("b1", "astar", "{}", 1, 0.5, 0), kind("b2", "astar", "{}", 0, 0.0, 1)]
    assert remaining_seconds(seen, 1) == pytest.approx(0.5)
    assert remaining_seconds(seen, 1, running_for=20.0) == pytest.approx(20.0)
