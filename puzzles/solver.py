"""One entry point for every algorithm: `solve(problem, algorithm, params, limits, seed)`.

The algorithms and their parameters are the table of `puzzles.algorithms`;
parameters are checked against it here, at the boundary.
"""

import resource
import secrets
import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any

from puzzles.algorithms import PROBLEM_OPTIONS, SEEDS, bind_params, find_algorithm, heuristic_options, with_domain_defaults
from puzzles.errors import PuzzleError
from puzzles.plugged import heuristic_for
from puzzles.problem import Problem
from puzzles.replay import replayed
from puzzles.result import Limits, Outcome, SearchReport, SolveResult, findings_of


def solve(
    problem: Problem,
    algorithm: str,
    params: dict[str, Any] | None = None,
    limits: Limits = Limits(),
    seed: int | None = None,
    on_compile: Callable[[], None] | None = None,
    planned: bool = False,
) -> SolveResult:
    """Run `algorithm` on `problem`; PuzzleError for an unknown algorithm or a bad parameter.

    A randomized algorithm without a seed draws one and reports it, so every run
    can be repeated. The wall and CPU times are the search's alone: compiling
    (or loading) the kernels and building (or loading) the heuristic's tables
    is timed apart, as the warm-up; `on_compile` is called once if it
    compiles (the first run of the algorithm on a machine), not if it loads
    them from the cache. The peak memory is this search's own where Linux can
    reset the process's peak. `planned`: `params` are a stored job's, which its
    plan completed with the defaults of its day, so no memo is added now (a job
    planned before the memo existed runs without one, as it first ran).
    """
    entry = find_algorithm(algorithm)
    values = bind_params(algorithm, params or {})
    values = with_domain_defaults(problem, algorithm, values, given=params or {}, add_memo=not planned)
    if entry.randomized:
        seed = secrets.randbelow(SEEDS) if seed is None else seed
        if not 0 <= seed < SEEDS:
            raise PuzzleError(f"a seed must be between 0 and {SEEDS - 1}, not {seed}")
    enumerating = entry.enumerates or values.get("exhaustive")  # it counts the states: it runs to count them
    unsolvable = None if enumerating else problem.unsolvable_reason()
    if unsolvable is not None:
        return SolveResult(outcome=Outcome.UNSOLVABLE, algorithm=algorithm, params=values,
                           seed=seed if entry.randomized else None, reason=f"{unsolvable}: nothing searched")
    warming = time.perf_counter()
    arguments = _warmed_up(problem, algorithm, values, seed if entry.randomized else None, on_compile)
    warmup = time.perf_counter() - warming
    _reset_peak_memory()
    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        report = entry.search(problem, limits, **arguments)
    except MemoryError:
        report = SearchReport(outcome=Outcome.LIMIT, reason="out of memory (memory limit reached)")
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    if entry.origin is not None:
        report = replayed(problem, report)
    solved = report.outcome == Outcome.SOLVED
    return SolveResult(
        **findings_of(report)
        | {
            "moves": len(report.path) if solved else None,
            "steps": sum(problem.move_steps(m) for m in report.path) if solved else None,
            "elapsed_s": elapsed,
            "cpu_s": cpu,
            "warmup_s": warmup,
            "peak_mem_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        },
        algorithm=algorithm,
        params=values,
        solution=[problem.format_move(m) for m in report.path],
        seed=seed if entry.randomized else None,
        move_codes=report.path,
    )


_WARM: set[tuple[str, str, Any]] = set()  # the (domain, algorithm, heuristic) whose kernels this process has


def _warmed_up(problem: Problem, algorithm: str, values: dict[str, Any], seed: int | None,
               on_compile: Callable[[], None] | None) -> dict[str, Any]:
    """The search's arguments, its kernels compiled or loaded first (a search of no nodes), one process at a time."""
    from puzzles.jit import compile_lock, on_compiling  # numba, imported once a search runs

    kind = (type(problem).__name__, algorithm, values.get("heuristic"))
    with nullcontext() if kind in _WARM else compile_lock(repr(kind)), on_compiling(on_compile):
        arguments = _search_arguments(problem, algorithm, values, seed)
        find_algorithm(algorithm).search(problem, Limits(max_nodes=0), **arguments)
    _WARM.add(kind)
    return arguments


def _reset_peak_memory() -> None:
    """Start the process's peak resident memory afresh, so each search reports its own (Linux)."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        pass  # elsewhere the peak is the process's since it started


def _search_arguments(problem: Problem, algorithm: str, values: dict[str, Any], seed: int | None) -> dict[str, Any]:
    """The keyword arguments of a module's `search`: the heuristic built with its options, the problem's options left out.

    The heuristic is the one chosen (`heuristic`), or the one the algorithm always runs (moves-freed's).
    """
    options = heuristic_options(values)
    arguments = {name: value for name, value in values.items() if name not in options and name not in PROBLEM_OPTIONS}
    heuristic = values.get("heuristic") or find_algorithm(algorithm).heuristic
    if heuristic is not None:
        arguments["heuristic"] = heuristic_for(problem, algorithm, heuristic, options)
    if seed is not None:
        arguments["seed"] = seed
    return arguments
