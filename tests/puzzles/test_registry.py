"""The registries of algorithms and heuristics: a package adds its own without touching slidelab's files."""

import pytest

from puzzles.algorithms import bind_params, find_algorithm, without_foreign_options
from puzzles.errors import PuzzleError
from puzzles.registry import ALGORITHMS, HEURISTICS, Algorithm, Param, check_options, code_of, heuristic_names, register_algorithm, register_heuristic
from tests.puzzles.rushhour_truth import course, run


@pytest.fixture
def registered():
    """Registers for one test, then forgets what it registered."""
    algorithms, heuristics = dict(ALGORITHMS), dict(HEURISTICS)
    yield
    for table, before in ((ALGORITHMS, algorithms), (HEURISTICS, heuristics)):
        table.clear()
        table.update(before)


def test_each_domain_numbers_its_heuristics_in_the_order_it_registers_them():
    assert heuristic_names("rushhour")[:4] == ("blockers", "blockers-lb", "moves-freed", "blocking-tree")  # plugins after
    assert heuristic_names("npuzzle") == ("misplaced", "manhattan", "linear-conflict", "pdb", "pdb-max")
    assert [code_of("npuzzle", name) for name in heuristic_names("npuzzle")] == list(range(5))
    assert not HEURISTICS["rushhour", "moves-freed"].admissible and HEURISTICS["rushhour", "blocking-tree"].admissible


def test_a_package_s_heuristic_is_offered_with_its_options_and_checked(registered):
    entry = register_heuristic("toy", "zero", "nothing at all", admissible=True,
                               options={"scale": Param(2.0, float, "a factor")})
    assert (entry.code, heuristic_names("toy")) == (0, ("zero",))
    beam = find_algorithm("beam").params
    assert "toy zero" in beam["heuristic"].help and beam["scale"].default is None  # offered, never filled in
    assert "(with zero, default 2)" in beam["scale"].help
    assert bind_params("beam", {}) == {"k": 10, "heuristic": "blockers-lb"}  # no existing job's key changes
    assert without_foreign_options({"heuristic": "manhattan", "scale": 3.0}) == {"heuristic": "manhattan"}
    with pytest.raises(PuzzleError, match="--pdb '4-4' is for the pdb and pdb-max heuristics, not zero"):
        check_options("toy", "zero", {"pdb": "4-4"})
    with pytest.raises(PuzzleError, match="a heuristic named 'zero' is registered already for toy"):
        register_heuristic("toy", "zero", "again", admissible=True)


def test_a_package_s_algorithm_is_found_by_name_and_bound_like_slidelab_s(registered):
    register_algorithm("bfs-again", Algorithm("puzzles.search.bfs", "breadth-first search, by its dotted path",
                                              {"exhaustive": Param(False, bool, "every state")}))
    assert bind_params("bfs-again", {"exhaustive": "yes"}) == {"exhaustive": True}
    assert run(course("6x6_1"), "bfs-again").moves == 21
    with pytest.raises(PuzzleError, match="did you mean bfs-again"):
        find_algorithm("bfs-agan")
    with pytest.raises(PuzzleError, match="an algorithm named 'bfs' is registered already"):
        register_algorithm("bfs", Algorithm("bfs", "twice"))


def test_moves_freed_s_weights_are_its_heuristic_s_options_from_any_algorithm():
    problem = course("6x6_1")
    weights = (("w_exit", 50.0), ("w_blockers", 3.0), ("w_freed", -14.0))
    fixed = run(problem, "moves-freed", weights[:1])
    chosen = run(problem, "astar", (("heuristic", "moves-freed"), *weights[:1]))
    assert fixed.params == dict(weights) and chosen.params == {"heuristic": "moves-freed", "w_exit": 50.0}
    assert (fixed.moves, fixed.expanded) == (chosen.moves, chosen.expanded)
    assert chosen.expanded != run(problem, "astar", (("heuristic", "moves-freed"),)).expanded  # the weight reached it
