"""Reports and comparisons compare like with like (issue 32 §3, issue 46 §1): every comparative figure is over the units
(boards, or board-seed pairs) every compared side has a value for; each row's own figures stand beside them; every note
says what was computed."""

from collections.abc import Callable

import pandas as pd
import pytest
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.reports import rows as report_rows
from orchestrator.reports.comparison import compare
from orchestrator.reports.summary import summarize
from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.lookups import find_sweep
from orchestrator.sweeps.plan import plan_sweep, store_plan
from orchestrator.sweeps.sources import load_boards
from workers.store import connect
from workers.store.jobs import record
from workers.store.migrate import upgrade
from workers.store.records import JobResult
from workers.store.sweeps import unfinished_jobs

BOARDS = ("Rushhour6x6_1", "Rushhour6x6_2")
THREE = (*BOARDS, "Rushhour6x6_3")
Outcomes = Callable[[str, dict, int | None], JobResult]  # (board, params, seed) -> the job's result


def solved(moves: int, elapsed: float = 1.0, expanded: int | None = None) -> JobResult:
    return JobResult(outcome="solved", moves=moves, steps=moves, expanded=expanded or 10 * moves, generated=20 * moves,
                     elapsed_s=elapsed)


FAILED = JobResult(outcome="failed", expanded=3, elapsed_s=0.01, reason="beam emptied")


def stored(url: str, name: str, boards_dir, grid: SweepGrid, outcome: Outcomes, *, repeats: bool = False,
           boards: tuple[str, ...] = BOARDS) -> pd.DataFrame:
    """Sweep `name` of `grid` on `boards` with each job's result from `outcome`; its rows."""
    upgrade(url)
    db = connect(url)
    boards = load_boards([str(boards_dir / f"{board}.csv") for board in boards])
    plan = plan_sweep(name, boards, grid)
    sweep_id, _ = store_plan(db, plan)
    names = {board.id: board.name for board in boards}
    ids = unfinished_jobs(db, sweep_id)
    record(db, [(job_id, outcome(names[job.board_id], job.params, job.repeat if repeats else job.seed))
                for job_id, job in zip(ids, plan.jobs)])
    return report_rows.load_rows(db, find_sweep(db, name))


def beam_k(board: str, params: dict, seed: int | None) -> JobResult:
    """k=1 solves the first board only (30 moves); k=2 both (24 and 20 moves)."""
    if params["k"] == 1:
        return solved(30) if board == BOARDS[0] else FAILED
    return solved(24 if board == BOARDS[0] else 20)


@pytest.fixture
def url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'common.db'}"


def test_a_report_over_boards_compares_over_the_boards_every_row_solved_and_keeps_each_rows_own(url, boards_dir):
    rows = stored(url, "beam-k", boards_dir, SweepGrid(["beam"], {"k": [1, 2]}), beam_k)
    summary = summarize(rows, ["algorithm", "k"]).set_index("k")
    assert summary.loc[1, "moves_common"] == 30 and summary.loc[2, "moves_common"] == 24  # the first board only
    assert summary.loc[1, "moves_mean"] == 30 and summary.loc[2, "moves_mean"] == 22  # own: over its solved runs
    assert summary.loc[2, "expanded_common"] == 240 and summary.loc[1, "expanded_common"] == 300
    assert summary.loc[1, "expanded_mean"] == (300 + 3) / 2  # own: over its done runs, the failed one included
    assert summary.loc[1, "solved_share"] == 0.5 and summary.loc[2, "solved_share"] == 1.0  # over all done jobs
    assert summary["common"].tolist() == [1, 1] and summary["shared"].tolist() == [2, 2]
    table = CliRunner().invoke(app, ["report", "beam-k", "--by", "algo,k", "--db", url])
    assert table.exit_code == 0, table.output
    assert "1 of 2" in table.stdout
    assert "common figures (moves, states, time, memory): over 1 of the 2 boards every row ran" in table.stderr


def test_no_common_subset_gives_no_common_figure_but_each_rows_own_and_says_so(url, boards_dir):
    def apart(board: str, params: dict, seed: int | None) -> JobResult:
        return solved(30 if params["k"] == 1 else 20) if (board == BOARDS[0]) == (params["k"] == 1) else FAILED

    rows = stored(url, "apart", boards_dir, SweepGrid(["beam"], {"k": [1, 2]}), apart)
    summary = summarize(rows, ["algorithm", "k"])
    assert summary["moves_common"].isna().all() and summary["common"].tolist() == [0, 0]
    assert summary["moves_mean"].tolist() == [30, 20]  # each row's own mean, where no common one exists
    assert summary["solved_share"].tolist() == [0.5, 0.5]
    table = CliRunner().invoke(app, ["report", "apart", "--by", "algo,k", "--db", url])
    assert table.exit_code == 0 and "none in common" in table.stdout and "30.0" in table.stdout
    assert "none, as none of the 2 boards every row ran was solved by every row that solved any" in table.stderr


def test_a_search_that_failed_early_is_not_made_cheaper_than_one_that_solved(url, boards_dir):
    """A* solves both boards; beam solves the first and fails the second after 3 expansions (`report --by algo`)."""
    def outcome(board: str, params: dict, seed: int | None) -> JobResult:
        if "k" not in params:
            return solved(20, elapsed=2.0, expanded=1000)
        return solved(24, elapsed=0.5, expanded=500) if board == BOARDS[0] else FAILED

    grid = SweepGrid(["astar", "beam"], {"k": [3]})
    rows = stored(url, "mixed", boards_dir, grid, outcome)
    summary = summarize(rows, ["algorithm"], baseline="astar").set_index("algorithm")
    assert summary.loc["beam", "expanded_common"] == 500 and summary.loc["astar", "expanded_common"] == 1000
    assert summary.loc["beam", "expanded_ratio"] == pytest.approx(0.5)  # over the first board, not 0.25 over both
    assert summary.loc["beam", "elapsed_ratio"] == pytest.approx(0.25)
    result = CliRunner().invoke(app, ["report", "mixed", "--by", "algo", "--baseline", "astar", "--format", "csv",
                                      "--db", url])
    assert result.exit_code == 0, result.output
    assert "and the ratios to astar): over 1 of the 2 boards every row ran" in result.stderr


def test_compare_is_over_the_boards_every_sweep_ran_and_names_the_others(url, boards_dir):
    """b4 ran three boards, b3 two of them: the ratios, the share solved and q are over those two."""
    grid = SweepGrid(["beam"], {"k": [1]})
    b4 = stored(url, "b4", boards_dir, grid, lambda board, params, seed: solved(30, expanded=100) if board != THREE[1]
                else FAILED, boards=THREE)
    b3 = stored(url, "b3", boards_dir, grid, lambda board, params, seed: solved(33, expanded=200), boards=BOARDS)
    table = compare({"b4": b4, "b3": b3}, ["k"]).iloc[0]
    assert table["solved_share b4"] == 0.5 and table["solved_share b3"] == 1.0  # of the two boards both ran, not 2/3
    assert table["expanded_common × b3"] == pytest.approx(2.0) and table["moves_common b4"] == 30
    assert table["moves_mean own b4"] == 30 and table["shared"] == 2 and table["units"] == 3
    result = CliRunner().invoke(app, ["compare", "b4", "b3", "--by", "k", "--db", url])
    assert result.exit_code == 0, result.output
    assert "1 board only in b4, left out of every comparison: Rushhour6x6_3" in result.stderr
    assert "each ran the same boards" not in result.stderr
    assert "solved, its difference and q: over the 2 of 3 boards that every sweep of the row ran" in result.stderr


def test_a_report_and_a_comparison_print_the_same_own_moves_for_one_sweep_and_k(url, boards_dir):
    grid = SweepGrid(["beam"], {"k": [1, 2]})
    first = stored(url, "first", boards_dir, grid, beam_k)
    second = stored(url, "second", boards_dir, grid, lambda board, params, seed: solved(40) if board == BOARDS[1]
                    else FAILED)
    report = summarize(first, ["algorithm", "k"]).set_index("k")
    table = compare({"first": first, "second": second}, ["k"]).set_index("k")
    for k in (1, 2):
        assert table.loc[k, "moves_mean own first"] == report.loc[k, "moves_mean"]


def test_seeds_pair_runs_and_a_job_without_a_seed_stands_for_every_seed(url, boards_dir):
    def seeded(board: str, params: dict, seed: int | None) -> JobResult:
        if "batches" not in params:  # astar: no seed
            return solved(20)
        if params["batches"] == 1:
            return solved(30) if seed == 1 else FAILED
        return solved(25 + seed)

    grid = SweepGrid(["astar", "spr"], {"batches": [1, 2]}, seeds=[1, 2])
    rows = stored(url, "seeded", boards_dir, grid, seeded)
    summary = summarize(rows, ["algorithm", "batches"])
    by_batches = summary.set_index("batches")
    assert by_batches.loc[2, "moves_common"] == 26 and by_batches.loc[2, "moves_mean"] == 26.5  # seed 1 only; own
    assert summary["common"].max() == 2 and summary["units"].max() == 4  # (board, seed 1) of both boards, of 4 pairs
    astar = summary[summary["algorithm"] == "astar"].iloc[0]
    assert astar["moves_common"] == 20 and astar["jobs"] == 4  # runs twice per board (a repeat per seed), no seed
    per_board = summarize(rows).set_index(["params", "board"])  # the default: rows of one board are compared
    assert set(per_board["units"]) == {2} and set(per_board["common"]) == {1}


def test_unsolvable_is_a_proof_apart_from_the_share_solved(url, boards_dir):
    def proof(board: str, params: dict, seed: int | None) -> JobResult:
        if board == BOARDS[1]:
            return JobResult(outcome="unsolvable", expanded=800, elapsed_s=0.2)
        return solved(21)

    rows = stored(url, "proof", boards_dir, SweepGrid(["bfs"]), proof)
    summary = summarize(rows, ["algorithm"]).iloc[0]
    assert summary["solved_share"] == 1.0 and summary["n_unsolvable"] == 1 and summary["jobs"] == 2  # not 50%
    assert summary["units"] == 1  # a board proved unsolvable is no unit to solve


def test_compare_ratios_are_over_the_boards_both_sides_solved(url, boards_dir):
    grid = SweepGrid(["beam"], {"k": [1, 2]})
    first = stored(url, "first", boards_dir, grid, lambda board, params, seed: solved(30 if board == BOARDS[0] else 40))
    second = stored(url, "second", boards_dir, grid, lambda board, params, seed: solved(33) if board == BOARDS[0] else FAILED)
    table = compare({"first": first, "second": second}, ["k"]).set_index("k")
    assert table.loc[1, "moves_common first"] == 30 and table.loc[1, "moves_common × second"] == pytest.approx(1.1)
    assert table.loc[1, "common"] == 1 and table.loc[1, "units"] == 2
    assert table.loc[1, "solved_share second"] == 0.5


def test_compare_stars_only_what_survives_the_false_discovery_rate(url, boards_dir):
    grid = SweepGrid(["beam"], {"k": [1, 2, 3, 4, 5]}, repeat=3)

    def second(board: str, params: dict, repeat: int | None) -> JobResult:  # k = 1 on the first board: 3 moves more
        return solved(20 + repeat + (3 if params["k"] == 1 and board == BOARDS[0] else 0))

    first = stored(url, "first", boards_dir, grid, lambda board, params, repeat: solved(20 + repeat), repeats=True)
    other = stored(url, "second", boards_dir, grid, second, repeats=True)
    table = compare({"first": first, "second": other}, ["k", "board"])
    p, q = table["moves_common p second"], table["moves_common q second"]
    assert p.iloc[0] < 0.05 < q.iloc[0] and q.iloc[0] == pytest.approx(p.iloc[0] * len(table))  # Benjamini–Hochberg
    result = CliRunner().invoke(app, ["compare", "first", "second", "--by", "k,board", "--db", url])
    assert result.exit_code == 0, result.output
    assert " *" not in result.stdout and "q 0.2" in result.stdout  # not "p 0.021 *"
    assert "Welch's t-test" in result.stderr and "Benjamini–Hochberg" in result.stderr
