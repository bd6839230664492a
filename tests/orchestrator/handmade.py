"""A small sweep with results stored by hand (real solutions), for the report's and the dashboard's tests."""

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.sources import load_boards
from tests.stored import store_sweep
from workers.store import connect
from workers.store.jobs import claim, job_inputs, record
from workers.store.records import JobInput, JobResult

# Optimal solutions (A*, blockers-lb) of two course boards, as stored results spell them.
SOLUTIONS = {
    "Rushhour6x6_1": "C-1 A-1 G-2 L-2 J-3 I+2 H+1 E+3 D-1 H-1 I-3 H+1 E-2 J+3 L+2 E+1 X+3 G+2 B-1 I-1 X+1",
    "Rushhour6x6_2": "A-2 B-2 C-1 D-1 X-1 G-2 H-1 F+2 K-2 I-3 L-3 K+2 F-2 H+3 X+3",
}
VEHICLES = {"Rushhour6x6_1": 13, "Rushhour6x6_2": 13}
NAME = "beam-k"


def beam_sweep(url: str, boards_dir, *, leave: int = 0) -> list[int]:
    """Sweep `beam-k` (astar, and beam k = 1..4 with two seeds, on two boards); results stored for all jobs
    but the last `leave`, which stay pending; the job ids in order."""
    db = connect(url)
    boards = load_boards([str(boards_dir / f"{name}.csv") for name in SOLUTIONS])
    _, _, ids = store_sweep(db, NAME, boards, SweepGrid(["astar", "beam"], {"k": [1, 2, 3, 4], "heuristic": ["blockers-lb"]}, seeds=[1, 2]))
    done = claim(db, ids[: len(ids) - leave], "hand@test", 60)
    record(db, [(job.job_id, result_for(job, boards_dir)) for job in done])
    return ids


def store_result(url: str, job_id: int, boards_dir) -> None:
    """Store one job's result, as a worker would (the job need not be claimed)."""
    db = connect(url)
    record(db, [(job_id, result_for(job_inputs(db, [job_id])[0], boards_dir))])


def result_for(job: JobInput, boards_dir) -> JobResult:
    """A plausible result: A* and beam from k = 3 on solve (beam with a longer count), smaller k fail."""
    board = {board.id: board.name for board in load_boards([str(boards_dir / f"{name}.csv") for name in SOLUTIONS])}[job.board_id]
    k = job.params.get("k")
    moves = len(SOLUTIONS[board].split())
    if k is not None and k < 3:
        return JobResult(outcome="failed", expanded=10 * k, generated=40 * k, elapsed_s=0.001 * k, reason="beam emptied",
                         host="hand@test")
    extra = 0 if k is None else 4 - k + (job.seed or 0)
    solution = SOLUTIONS[board] if k is None else None
    return JobResult(outcome="solved", moves=moves + extra, steps=moves + extra, expanded=(5000 if k is None else 100 * k),
                     generated=20_000, elapsed_s=(0.5 if k is None else 0.01 * k), solution=solution, host="hand@test")
