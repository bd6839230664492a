"""Compile the solver core's kernels into numba's on-disk cache, so that the test processes only load them.

Every algorithm on every domain with every heuristic it takes is compiled
the way a job compiles it: `solve` with a limit of no nodes, which only
compiles or loads (`puzzles.solver`). So are the compiled helpers outside
the searches that the tests call: moves listed and replayed, estimates of a
batch of boards, the Rush Hour generator's clusters and a pattern database's
build, for each of its mask types. The cache is the one `puzzles.jit` picks
(`NUMBA_CACHE_DIR`, else a folder named after the sources, whatever
`SLIDELAB_CACHE_DIR` says), the same in every process of a test session; the
pattern databases built on the way go to a temporary folder, removed afterwards.

A pytest plugin (listed in `tests/conftest.py`): a session spread over
processes (xdist) runs it once in its controller, before the test processes
start, in a process of its own with the session's environment, so into the
cache they use; they and the job processes they start then load the kernels
rather than each compiling them at once into one cache (numba's cache is not
safe for that: numba/numba#4807). ``-p no:tests.warmup`` turns it off; by
hand: ``python -m tests.warmup``.
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import pytest

from puzzles.algorithms import ALGORITHMS, WEIGHTS
from puzzles.domains import load_problem
from puzzles.kernels import estimates, has_in_place
from puzzles.npuzzle import pdb
from puzzles.problem import Problem
from puzzles.result import Limits
from puzzles.rushhour.generate import cluster_distances
from puzzles.solver import solve
from workers.settings import configure

ROOT = Path(__file__).resolve().parents[1]
RUSH_HOUR = ROOT / "data" / "boards" / "rushhour" / "Rushhour6x6_1.csv"
EIGHT_PUZZLE = "1 2 3\n4 0 6\n7 5 8"
EIGHT_PUZZLE_PDB = "4-4"  # small databases: the build is not what is warmed up here
PDB_SIZES = ((3, 3), (5, 5), (6, 6))  # boards of at most 16, at most 32 and more cells: the build's mask types


def variants(problem: Problem, algorithm: str) -> list[dict]:
    """The parameters that give `algorithm` each of its compiled forms on `problem`: one per heuristic it may take."""
    params = {}
    if algorithm == "idastar-subtree":  # a split search's job: only where boards are kept in place (the N-puzzle)
        if not has_in_place(problem.kernels.spec):
            return []
        params = {"prefix": "", "bound": 0}
    if WEIGHTS[0] in ALGORITHMS[algorithm].params and "moves-freed" not in problem.heuristic_names:
        return []  # the seed's moves-freed, a Rush Hour heuristic
    if "heuristic" not in ALGORITHMS[algorithm].params:
        return [params]
    return [{**params, "heuristic": name, **({"pdb": EIGHT_PUZZLE_PDB} if name.startswith("pdb") else {})}
            for name in problem.heuristic_names]


def call_from_python(problem: Problem) -> None:
    """The kernels Python calls directly: moves listed, merged, printed and replayed, a batch of boards estimated."""
    start = problem.start_key()
    move = problem.successors(start)[0][0]
    problem.format_move(move)
    problem.check_solution(problem.merged([move]))
    heuristic = problem.heuristic(problem.default_heuristic)
    estimates(heuristic.spec, heuristic.code, heuristic.args, start[None, :])


def warm_up() -> None:
    """Compile (or load) every kernel the tests use, pattern databases built in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="slidelab-warmup-") as cache:
        configure(cache_dir=Path(cache))
        rush_hour, eight_puzzle = load_problem(str(RUSH_HOUR)), load_problem(EIGHT_PUZZLE)
        for problem in (rush_hour, eight_puzzle):
            for algorithm in ALGORITHMS:
                for params in variants(problem, algorithm):
                    solve(problem, algorithm, params, Limits(max_nodes=0))
            call_from_python(problem)
        cluster_distances(rush_hour.kernels.spec, rush_hour.start_key(), rush_hour.kernels.max_branching, 1)
        for width, height in PDB_SIZES:
            pdb.build(width, height, "blank-last", (1,))


def pytest_sessionstart(session: pytest.Session) -> None:
    """In the controller of a session spread over processes, warm up first; should it fail, say so and go on."""
    config = session.config
    if hasattr(config, "workerinput") or config.getoption("dist", "no") == "no" or config.option.collectonly:
        return
    done = subprocess.run([sys.executable, "-m", "tests.warmup"], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if done.returncode != 0:
        reporter.write_line(f"warning: the kernel warm-up failed, each test process compiles its own:\n{done.stderr}",
                            yellow=True)
    else:
        reporter.write_line(done.stdout.strip())


def main() -> None:
    """Warm up and say where and how long it took."""
    started = time.perf_counter()
    warm_up()
    print(f"kernels compiled or loaded in {numba.config.CACHE_DIR} ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
