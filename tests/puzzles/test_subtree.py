"""A split IDA*: the frontier at a depth and one iteration per subtree add up to the one-core search, nodes included.

Ground truth is IDA* on one core (`idastar`) and the published optimal lengths
of Korf's 15-puzzle instances; the 24-puzzle is checked on boards a few dozen
moves from the goal, with databases of four tiles that build in a second.
"""


import pytest

from puzzles.errors import PuzzleError
from puzzles.npuzzle.boardlist import read_board_list
from puzzles.npuzzle.problem import NPuzzleProblem
from puzzles.result import Limits, Outcome
from puzzles.search import subtree
from puzzles.solver import solve
from tests.puzzles.test_idastar import KORF100, walked

PDB_MAX = {"heuristic": "pdb-max", "pdb": "6-6-3"}


def split_solve(problem: NPuzzleProblem, params: dict[str, str], depth: int,
                deeper: int = 0) -> tuple[list[int], int, int]:
    """IDA* bound by bound as a split search runs it, the subtrees one after the other: (solution, expanded, generated).

    `deeper`: every other leaf of each bound's frontier is split that many moves further.
    """
    heuristic = problem.heuristic(params["heuristic"], **{k: v for k, v in params.items() if k != "heuristic"})
    bound = solve(problem, "idastar", params, Limits(max_nodes=0)).extra["bound"]
    expanded = generated = 0
    while True:
        level = subtree.frontier(problem, heuristic, bound, depth)
        if deeper:
            level = subtree.refine(problem, heuristic, level, {index: deeper for index in range(0, len(level.leaves), 2)})
        if level.solution is not None:
            return level.solution, expanded + level.expanded, generated + level.generated
        beyond = [level.next_bound] if level.next_bound else []
        below = [0, 0]
        for leaf, before in zip(level.leaves, level.before):
            prefix = "".join(problem.format_move(m) for m in leaf)
            job = solve(problem, "idastar-subtree", {**params, "prefix": prefix, "bound": bound, "split_depth": depth})
            below = [below[0] + job.expanded, below[1] + job.generated]
            if job.outcome == Outcome.SOLVED:  # one core stops here: the frontier's nodes after it are not its
                return job.move_codes, expanded + before[0] + below[0], generated + before[1] + below[1]
            beyond += [job.extra["next_bound"]] if job.extra["next_bound"] else []
        expanded, generated = expanded + level.expanded + below[0], generated + level.generated + below[1]
        bound = min(beyond)


@pytest.fixture(scope="module")
def korf12():
    return NPuzzleProblem(read_board_list(str(KORF100))[11].board)


def test_the_one_core_counts_on_korf_12_are_those_of_the_search_before_incremental_ranks(korf12):
    result = solve(korf12, "idastar", PDB_MAX)
    assert (result.moves, result.expanded, result.generated) == (45, 4_542, 14_180)


@pytest.mark.parametrize("depth", [1, 4, 7])
def test_a_split_search_finds_the_optimum_with_the_one_core_node_counts(korf12, depth):
    one = solve(korf12, "idastar", PDB_MAX)
    solution, expanded, generated = split_solve(korf12, PDB_MAX, depth)
    assert len(solution) == 45 and korf12.check_solution(solution)
    assert (expanded, generated) == (one.expanded, one.generated)


@pytest.mark.parametrize("depth, deeper", [(1, 3), (4, 2), (6, 5)])
def test_leaves_split_further_still_add_up_to_the_one_core_search(korf12, depth, deeper):
    one = solve(korf12, "idastar", PDB_MAX)
    solution, expanded, generated = split_solve(korf12, PDB_MAX, depth, deeper)
    assert len(solution) == 45 and korf12.check_solution(solution)
    assert (expanded, generated) == (one.expanded, one.generated)


def test_a_leaf_split_further_lists_the_nodes_below_it_in_depth_first_order(korf12):
    heuristic = korf12.heuristic("pdb-max", pdb="6-6-3")
    level = subtree.frontier(korf12, heuristic, 45, 2)
    finer = subtree.refine(korf12, heuristic, level, {0: 3})
    below = [leaf for leaf in subtree.frontier(korf12, heuristic, 45, 5).leaves if leaf[:2] == level.leaves[0]]
    assert len(below) > 1 and finer.leaves == below + level.leaves[1:]
    assert finer.expanded > level.expanded and finer.before[-1][0] > level.before[-1][0]


@pytest.mark.parametrize("seed", range(4))
def test_split_manhattan_searches_of_scrambled_3x4_boards_count_as_one_core(seed):
    problem = NPuzzleProblem(walked(4, 3, "blank-last", 40, seed))
    one = solve(problem, "idastar", {"heuristic": "manhattan"})
    solution, expanded, generated = split_solve(problem, {"heuristic": "manhattan"}, 3)
    assert (len(solution), expanded, generated) == (one.moves, one.expanded, one.generated)
    assert problem.check_solution(solution)


def test_a_subtree_whose_root_lies_beyond_the_bound_is_not_searched(korf12):
    job = solve(korf12, "idastar-subtree", {**PDB_MAX, "prefix": "L", "bound": 20})
    assert (job.outcome, job.expanded, job.generated) == (Outcome.FAILED, 0, 0) and job.extra["next_bound"] > 20
    assert job.extra["prefix"] == "L" and "no solution within the bound 20 below L" in job.reason


def test_a_subtree_below_the_solutions_first_moves_holds_the_solution(korf12):
    whole = "".join(solve(korf12, "idastar", PDB_MAX).solution)
    job = solve(korf12, "idastar-subtree", {**PDB_MAX, "prefix": whole[:6], "bound": 45})
    assert job.outcome == Outcome.SOLVED and job.moves == 45 and "".join(job.solution).startswith(whole[:6])


def test_a_prefix_of_illegal_moves_is_refused(korf12):
    blank_row = korf12.board.tiles.index(0) // 4  # row 2 of 4x4: two moves up stay on the board, three do not
    with pytest.raises(PuzzleError, match="'U' is not a legal move after 2 moves"):
        solve(korf12, "idastar-subtree", {**PDB_MAX, "prefix": "U" * (blank_row + 1), "bound": 45})
    with pytest.raises(PuzzleError, match="'X' is not a legal move"):
        solve(korf12, "idastar-subtree", {**PDB_MAX, "prefix": "X", "bound": 45})


@pytest.mark.parametrize("seed", range(3))
def test_24_puzzle_boards_near_the_goal_are_solved_optimally_with_mirrored_databases(seed):
    board = walked(5, 5, "blank-first", 60, seed)
    problem = NPuzzleProblem(board)
    manhattan = solve(problem, "idastar", {"heuristic": "manhattan"})
    for partition in ("4-4-4-4-4-4", "1 2 5 6/3 4 8 9/7 12 13 14/10 11 15 16/17 18 22 23/19 20 21 24"):
        found = solve(problem, "idastar", {"heuristic": "pdb-max", "pdb": partition})
        assert found.moves == manhattan.moves and problem.check_solution(found.move_codes)
        assert found.expanded <= manhattan.expanded


def test_the_korf24_list_holds_the_50_instances_with_their_published_lengths():
    rows = read_board_list(str(KORF100.parent / "korf24.csv"))
    assert len(rows) == 50 and {(r.board.width, r.board.goal) for r in rows} == {(5, "blank-first")}
    assert [int(r.columns["optimal"]) for r in rows[:10]] == [95, 96, 97, 98, 100, 101, 104, 108, 113, 114]
    assert sum(int(r.columns["optimal"]) for r in rows) / 50 == 100.78
    assert all(sorted(r.board.tiles) == list(range(25)) for r in rows)
