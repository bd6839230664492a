"""Words that say what is so (issue 46 §4): `1 job`, `w_exit=3` for a whole-number weight, no peak memory for a
board proven unsolvable without a search."""

from orchestrator.boards.show import summary
from orchestrator.sweeps.status_view import algorithm_text, pace, params_text
from puzzles.algorithms import param_text
from puzzles.result import Outcome, SolveResult
from tests.orchestrator.clirun import ok, orchestrate
from workers.store.progress import SweepStatus
from workers.store.states import JobState

UNSOLVABLE_8 = "123456870"  # the goal with 7 and 8 swapped: odd parity, proven unsolvable without a search


def test_a_whole_number_weight_is_written_without_its_point_zero():
    weights = {"w_exit": 3.0, "w_blockers": 3.0, "w_freed": -14.5}
    assert params_text(weights) == "w_exit=3 w_blockers=3 w_freed=-14.5"
    assert algorithm_text("moves-freed", weights) == "moves-freed w_exit=3 w_blockers=3 w_freed=-14.5"
    assert algorithm_text("bfs", {}) == "bfs" and params_text({}) == "-"
    assert [param_text("k", 5), param_text("heuristic", "blockers-lb"), param_text("memo", True)] == [
        "k=5", "heuristic=blockers-lb", "memo=True"]
    solved = SolveResult(outcome=Outcome.SOLVED, algorithm="moves-freed", params=weights, peak_mem_bytes=3 << 20)
    assert "moves-freed (w_exit=3, w_blockers=3, w_freed=-14.5)" in summary(solved)


def test_a_board_proven_unsolvable_without_a_search_has_no_peak_memory():
    said = ok(orchestrate("solve", UNSOLVABLE_8, "--algo", "astar", "--heuristic", "manhattan")).stdout
    assert "outcome:      unsolvable" in said and "peak memory:  not searched" in said, said
    assert "MiB" not in said


def test_one_job_is_one_job(tmp_path, boards_dir):
    planned = ok(orchestrate("sweep", "--name", "one", "--algo", "bfs", "--boards", boards_dir / "Rushhour6x6_1.csv",
                             "--dry-run", "--db", f"sqlite:///{tmp_path / 'one.db'}")).stdout
    assert planned.startswith("sweep one: 1 job on 1 board\n"), planned
    queued = SweepStatus("one", 1, states={JobState.QUEUED: 1})
    assert pace(queued) == "queued: 1 job waiting for a worker (orchestrate worker)"
