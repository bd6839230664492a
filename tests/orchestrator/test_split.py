"""A split search's bookkeeping: skipping the subtrees after a solution, splitting the big ones further."""

import threading

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.sources import load_boards
from orchestrator.sweeps.split import MAX_SHARE, SPLIT_ALGORITHM, WATCH_S, _rows_by_prefix, _skip_after_solution, deeper_splits
from puzzles.result import Outcome
from tests.polling import wait_for
from tests.stored import store_sweep
from workers.store import connect
from workers.store.jobs import claim, record
from workers.store.records import JobResult

PREFIXES = ["UL", "UR", "LU", "LD", "DL", "DR"]  # a bound's subtrees in depth-first order (parameters only: none runs)


def solved(job_id: int) -> tuple[int, JobResult]:
    return job_id, JobResult(outcome=Outcome.SOLVED, moves=20, expanded=5, generated=9, elapsed_s=0.1, solution="U L")


def bound_jobs(db, sweep: str, bound: int) -> list[int]:
    """A bound's sweep of subtree jobs, one per prefix of PREFIXES, stored pending; their ids in that order."""
    board = load_boards(["8 1 3/4 0 2/7 6 5"])
    return store_sweep(db, sweep, board, SweepGrid([SPLIT_ALGORITHM], {"prefix": PREFIXES, "bound": [bound]}))[2]


def test_the_later_subtrees_are_skipped_at_once_and_again_when_an_earlier_one_solves(db_url):
    db = connect(db_url)
    ids = bound_jobs(db, "s-b20", 20)
    claim(db, ids[:1], "w1", 60)  # UL runs; UR waits
    record(db, [solved(ids[2])])  # LU holds a solution while the subtrees before it are not done
    stop = threading.Event()
    watcher = threading.Thread(target=_skip_after_solution, args=(db, "s-b20", PREFIXES, stop), daemon=True)
    watcher.start()
    try:
        outcome = lambda prefix: _rows_by_prefix(db, "s-b20")[prefix]["outcome"]  # noqa: E731
        wait_for(lambda: outcome("DR") is not None, 10, "DR's outcome")
        rows = _rows_by_prefix(db, "s-b20")
        assert [rows[p]["outcome"] for p in PREFIXES] == [None, None, "solved", "limit", "limit", "limit"]
        assert rows["LD"]["reason"] == "not searched: subtree LU before it holds a solution"
        assert rows["UL"]["state"] == "running" and rows["UR"]["state"] == "pending"  # one core would search both

        record(db, [solved(ids[0])])  # the running UL finds one too: UR, after it, is no longer needed
        wait_for(lambda: outcome("UR") is not None, 10, "UR's outcome")
        assert _rows_by_prefix(db, "s-b20")["UR"]["reason"] == "not searched: subtree UL before it holds a solution"
    finally:
        stop.set()
        watcher.join()


def failed(job_id: int) -> tuple[int, JobResult]:
    return job_id, JobResult(outcome=Outcome.FAILED, expanded=5, generated=9, elapsed_s=0.1)


def test_the_bound_is_settled_once_every_subtree_before_the_solutions_is_done(db_url):
    db = connect(db_url)
    ids = bound_jobs(db, "s-b22", 22)
    claim(db, ids[:4], "w1", 60)  # UL, UR, LU and LD run
    record(db, [solved(ids[2])])
    settled, stop, reasons = threading.Event(), threading.Event(), []
    watcher = threading.Thread(target=_skip_after_solution, daemon=True,
                               args=(db, "s-b22", PREFIXES, stop, lambda reason: (reasons.append(reason), settled.set())))
    watcher.start()
    try:
        wait_for(lambda: _rows_by_prefix(db, "s-b22")["DR"]["outcome"] is not None, 10, "DR's outcome")
        assert not settled.wait(3 * WATCH_S)  # UL and UR, before the solution's, still run: their nodes are one core's
        record(db, [failed(ids[0]), failed(ids[1])])
        wait_for(settled.is_set, 10, "the watcher to settle")
        assert _rows_by_prefix(db, "s-b22")["LD"]["state"] == "running"  # after the solution's: no longer waited for
        assert reasons == ["stopped: subtree LU before it holds a solution"]
    finally:
        stop.set()
        watcher.join()


def test_a_subtree_is_split_further_by_its_share_of_the_last_bound_its_parts_counted_together():
    sizes = {"UU": 900, "UDL": 50, "UDR": 40, "LL": 10}  # UD was split further at the last bound
    assert 10 / 1000 < MAX_SHARE < 90 / 1000
    assert deeper_splits(["UU", "UD", "LL", "LU"], sizes) == {0: 7, 1: 4}  # 0.9 and 0.09 of the nodes: 57.6 and 5.8 shares
    assert deeper_splits(["UU", "UD"], {}) == {}
    assert deeper_splits(["UU", "UD", "LL", "LU"], sizes, 10_000, 64_000) == {0: 7}  # UD foreseen at 900, UU 9,000
