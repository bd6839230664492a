"""A split search's bookkeeping: skipping the subtrees after a solution, splitting the big ones further."""

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.sources import load_boards
from orchestrator.sweeps.split import MAX_SHARE, SPLIT_ALGORITHM, BoundWatch, deeper_splits
from puzzles.result import Outcome
from tests.stored import store_sweep
from workers.store import connect
from workers.store.jobs import claim, record
from workers.store.records import JobResult

PREFIXES = ["UL", "UR", "LU", "LD", "DL", "DR"]  # a bound's subtrees in depth-first order (parameters only: none runs)


def solved(job_id: int) -> tuple[int, JobResult]:
    return job_id, JobResult(outcome=Outcome.SOLVED, moves=20, expanded=5, generated=9, elapsed_s=0.1, solution="U L")


def bound_jobs(db, sweep: str, bound: int) -> list[int]:
    """A bound's subtree jobs, one per prefix of PREFIXES, stored pending; their ids in that order."""
    board = load_boards(["8 1 3/4 0 2/7 6 5"])
    return store_sweep(db, sweep, board, SweepGrid([SPLIT_ALGORITHM], {"prefix": PREFIXES, "bound": [bound]}))[2]


def test_the_later_subtrees_are_skipped_at_once_and_again_when_an_earlier_one_solves(db_url):
    db = connect(db_url)
    watch = BoundWatch(db, PREFIXES, bound_jobs(db, "s", 20))
    claim(db, watch.ids[:1], "w1", 60)  # UL runs; UR waits
    record(db, [solved(watch.ids[2])])  # LU holds a solution while the subtrees before it are not done
    assert watch.look() is None
    rows = watch.rows()
    assert [rows[p].outcome for p in PREFIXES] == [None, None, "solved", "limit", "limit", "limit"]
    assert rows["LD"].result.reason == "not searched: subtree LU before it holds a solution"
    assert rows["UL"].state == "running" and rows["UR"].state == "pending"  # one core would search both

    record(db, [solved(watch.ids[0])])  # the running UL finds one too: UR, after it, is no longer needed
    assert watch.look() == "stopped: subtree UL before it holds a solution"  # the first: no subtree before it to wait for
    assert watch.rows()["UR"].result.reason == "not searched: subtree UL before it holds a solution"


def failed(job_id: int) -> tuple[int, JobResult]:
    return job_id, JobResult(outcome=Outcome.FAILED, expanded=5, generated=9, elapsed_s=0.1)


def test_the_bound_is_settled_once_every_subtree_before_the_solutions_is_done(db_url):
    db = connect(db_url)
    watch = BoundWatch(db, PREFIXES, bound_jobs(db, "s", 22))
    claim(db, watch.ids[:4], "w1", 60)  # UL, UR, LU and LD run
    record(db, [solved(watch.ids[2])])
    assert watch.look() is None  # UL and UR, before the solution's, still run: their nodes are one core's
    assert watch.rows()["DR"].outcome == "limit"
    record(db, [failed(watch.ids[0]), failed(watch.ids[1])])
    assert watch.look() == "stopped: subtree LU before it holds a solution"
    assert watch.rows()["LD"].state == "running"  # after the solution's: no longer waited for
    assert watch.look() is None  # settled once


def test_a_subtree_is_split_further_by_its_share_of_the_last_bound_its_parts_counted_together():
    sizes = {"UU": 900, "UDL": 50, "UDR": 40, "LL": 10}  # UD was split further at the last bound
    assert 10 / 1000 < MAX_SHARE < 90 / 1000
    assert deeper_splits(["UU", "UD", "LL", "LU"], sizes) == {0: 7, 1: 4}  # 0.9 and 0.09 of the nodes: 57.6 and 5.8 shares
    assert deeper_splits(["UU", "UD"], {}) == {}
    assert deeper_splits(["UU", "UD", "LL", "LU"], sizes, 10_000, 64_000) == {0: 7}  # UD foreseen at 900, UU 9,000
