"""Compile the solver core's kernels into numba's on-disk cache, so that the test processes only load them.

Every algorithm on every domain with every heuristic it takes is compiled
(but three forms no test loads) the way a job compiles it: `solve` with a
limit of no nodes, which only compiles or loads (`puzzles.solver`). So are the compiled helpers outside
the searches that the tests call: moves listed and replayed, estimates of a
batch of boards, the Rush Hour generator's clusters and a pattern database's
build, for each of its mask types. The cache is the one `puzzles.jit` picks
(`NUMBA_CACHE_DIR`, else a folder named after the sources, whatever
`SLIDELAB_CACHE_DIR` says), the same in every process of a test session; the
pattern databases built on the way go to a temporary folder, removed afterwards.

A pytest plugin (listed in `tests/conftest.py`): a session spread over
processes (xdist) runs it once in its controller, before the test processes
start, in processes of their own with the session's environment, so into the
cache they use; they and the job processes they start then load the kernels
rather than each compiling them at once into one cache. The kernels compile
side by side, in two processes given about the same work. Numba's cache is
not safe for two writers (numba/numba#4807: a function's index is read,
changed and written back), so in these processes each save holds a lock on a
file. ``-p no:tests.warmup`` turns it off; by hand: ``python -m tests.warmup``.
"""

import fcntl
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Iterable
from contextlib import contextmanager
from pathlib import Path

import numba
import pytest
from numba.core.caching import IndexDataCacheFile

from puzzles.algorithms import ALGORITHMS
from puzzles.domains import load_problem
from puzzles.kernels import estimates, has_in_place
from puzzles.npuzzle import pdb
from puzzles.problem import Problem
from puzzles.registry import HEURISTICS
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
    if ALGORITHMS[algorithm].fixed_heuristic not in (None, problem.domain):
        return []  # an algorithm of another domain's heuristic (the seed's moves-freed, Rush Hour's)
    if "heuristic" not in ALGORITHMS[algorithm].params:
        return [params]
    return [{**params, "heuristic": name, **({"pdb": EIGHT_PUZZLE_PDB} if name.startswith("pdb") else {})}
            for name in problem.heuristic_names if runs_with(algorithm, HEURISTICS[problem.domain, name].function)]


def runs_with(algorithm: str, heuristic: Callable | None) -> bool:
    """Whether `algorithm` can run a heuristic of this function: slidelab's own (None) or a numba plugin's always,
    a plain-Python plugin's with a plugin algorithm only."""
    return heuristic is None or hasattr(heuristic, "py_func") or ALGORITHMS[algorithm].function is not None


def call_from_python(problem: Problem) -> None:
    """The kernels Python calls directly: moves listed, merged, printed and replayed, a batch of boards estimated."""
    start = problem.start_key()
    move = problem.successors(start)[0][0]
    problem.format_move(move)
    problem.check_solution(problem.merged([move]))
    heuristic = problem.heuristic(problem.default_heuristic)
    estimates(heuristic.spec, heuristic.code, heuristic.args, start[None, :])


def first_half() -> None:
    """Rush Hour's kernels (every algorithm and heuristic, the Python-called ones, the generator's clusters), the
    eight-puzzle's searches that `EIGHT_PUZZLE_FIRST` names, and the pattern-database builds of larger boards."""
    rush_hour = load_problem(str(RUSH_HOUR))
    solve_every_variant(rush_hour, ALGORITHMS)
    call_from_python(rush_hour)
    cluster_distances(rush_hour.kernels.spec, rush_hour.start_key(), rush_hour.kernels.max_branching, 1)
    solve_every_variant(load_problem(EIGHT_PUZZLE), EIGHT_PUZZLE_FIRST, EIGHT_PUZZLE_UNUSED)
    for width, height in PDB_SIZES[1:]:
        pdb.build(width, height, "blank-last", (1,))


def second_half() -> None:
    """The eight-puzzle's other searches (IDA* in place, compiled once per heuristic, most of the time), the
    kernels Python calls, and its own pattern-database build."""
    eight_puzzle = load_problem(EIGHT_PUZZLE)
    solve_every_variant(eight_puzzle, [name for name in ALGORITHMS if name not in EIGHT_PUZZLE_FIRST], EIGHT_PUZZLE_UNUSED)
    call_from_python(eight_puzzle)
    pdb.build(*PDB_SIZES[0], "blank-last", (1,))


def solve_every_variant(problem: Problem, algorithms: Iterable[str], unused: Collection[tuple] = ()) -> None:
    """Each of `algorithms` in its compiled forms on `problem`, as a job compiles them, but the `unused` ones
    ((algorithm, heuristic) pairs)."""
    for algorithm in algorithms:
        for params in variants(problem, algorithm):
            if (algorithm, params.get("heuristic")) not in unused:
                solve(problem, algorithm, params, Limits(max_nodes=0))


# Halves of about the same time: side by side, with the eight-puzzle's astar (8.5 s) still in the second, they
# took 114 and 138 s (2026-12-06); its IDA* is 63 s of the second and its subtree search 28 s, both compiled once
# per heuristic.
EIGHT_PUZZLE_FIRST = ("random", "spr", "iddfs", "astar")
# The eight-puzzle's compiled forms no test loads (their cache files never read in a whole run, by their access times,
# 2026-12-07): not compiled here, about 25 s of the second half; a test that comes to need one compiles it itself.
EIGHT_PUZZLE_UNUSED = {("random", None), ("idastar-subtree", "misplaced"), ("idastar-subtree", "linear-conflict")}
PARTS: dict[str, Callable[[], None]] = {"first": first_half, "second": second_half}


@contextmanager
def one_writer_at_a_time(lock: Path):
    """Numba's cache saves made while holding an exclusive lock on the file `lock`, whatever process makes them."""
    save = IndexDataCacheFile.save

    def locked_save(self, key, data):
        with lock.open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            save(self, key, data)

    IndexDataCacheFile.save = locked_save
    try:
        yield
    finally:
        IndexDataCacheFile.save = save


def warm_up(part: str, lock: Path) -> None:
    """Compile (or load) the kernels of `part` the tests use, pattern databases built in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="slidelab-warmup-") as cache, one_writer_at_a_time(lock):
        configure(cache_dir=Path(cache))
        PARTS[part]()


def warm_up_side_by_side() -> tuple[int, str]:
    """Every part in a process of its own, all at once; the worst exit status and what they printed."""
    with tempfile.TemporaryDirectory(prefix="slidelab-warmup-lock-") as folder:
        lock = Path(folder) / "numba-cache.lock"
        parts = [subprocess.Popen([sys.executable, "-m", "tests.warmup", part, str(lock)], cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for part in PARTS]
        outputs = [part.communicate() for part in parts]
    failed = [err for part, (_, err) in zip(parts, outputs) if part.returncode]
    return (1 if failed else 0), "\n".join(failed or [out.strip() for out, _ in outputs])


def pytest_sessionstart(session: pytest.Session) -> None:
    """In the controller of a session spread over processes, warm up first; should it fail, say so and go on."""
    config = session.config
    if hasattr(config, "workerinput") or config.getoption("dist", "no") == "no" or config.option.collectonly:
        return
    status, said = warm_up_side_by_side()
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if status:
        reporter.write_line(f"warning: the kernel warm-up failed, each test process compiles its own:\n{said}",
                            yellow=True)
    else:
        reporter.write_line(said)


def main() -> None:
    """Warm up a part (`python -m tests.warmup PART LOCK`) or, with no argument, all of them side by side."""
    if len(sys.argv) == 1:
        status, said = warm_up_side_by_side()
        print(said)
        sys.exit(status)
    started = time.perf_counter()
    warm_up(sys.argv[1], Path(sys.argv[2]))
    print(f"{sys.argv[1]}: kernels compiled or loaded in {numba.config.CACHE_DIR}"
          f" ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
