"""One entry point for every algorithm: `solve(problem, algorithm, params, limits, seed)`.

The algorithms and their parameters are the table of `puzzles.algorithms`;
parameters are checked against it here, at the boundary.
"""

import resource
import secrets
import time
from typing import Any

from puzzles.algorithms import HEURISTIC_OPTIONS, PROBLEM_OPTIONS, SEEDS, WEIGHTS, bind_params, find_algorithm, heuristic_options, with_domain_heuristic
from puzzles.errors import PuzzleError
from puzzles.problem import Problem
from puzzles.result import Limits, Outcome, SearchReport, SolveResult, findings_of


def solve(
    problem: Problem,
    algorithm: str,
    params: dict[str, Any] | None = None,
    limits: Limits = Limits(),
    seed: int | None = None,
) -> SolveResult:
    """Run `algorithm` on `problem`; PuzzleError for an unknown algorithm or a bad parameter.

    A randomized algorithm without a seed draws one and reports it, so every run
    can be repeated. The wall and CPU times are the search's alone: compiling
    (or loading) the kernels and building (or loading) the heuristic's tables
    is timed apart, as the warm-up. The peak memory is this search's own where
    Linux can reset the process's peak.
    """
    entry = find_algorithm(algorithm)
    values = bind_params(algorithm, params or {})
    values = with_domain_heuristic(problem, algorithm, values, given=params or {})
    if entry.randomized:
        seed = secrets.randbelow(SEEDS) if seed is None else seed
        if not 0 <= seed < SEEDS:
            raise PuzzleError(f"a seed must be between 0 and {SEEDS - 1}, not {seed}")
    if problem.proven_unsolvable():
        return SolveResult(outcome=Outcome.UNSOLVABLE, algorithm=algorithm, params=values,
                           seed=seed if entry.randomized else None,
                           reason="unsolvable by the parity of the board: nothing searched")
    warming = time.perf_counter()
    arguments = _search_arguments(problem, values, seed if entry.randomized else None)
    entry.search(problem, Limits(max_nodes=0), **arguments)  # compile or load the kernels first
    warmup = time.perf_counter() - warming
    _reset_peak_memory()
    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        report = entry.search(problem, limits, **arguments)
    except MemoryError:
        report = SearchReport(outcome=Outcome.LIMIT, reason="out of memory (memory limit reached)")
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
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


def _reset_peak_memory() -> None:
    """Start the process's peak resident memory afresh, so each search reports its own (Linux)."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        pass  # elsewhere the peak is the process's since it started


def _search_arguments(problem: Problem, values: dict[str, Any], seed: int | None) -> dict[str, Any]:
    """The keyword arguments of a module's `search`: heuristics compiled, weights folded in."""
    skipped = (*WEIGHTS, *HEURISTIC_OPTIONS, *PROBLEM_OPTIONS)  # the heuristic's and the problem's, not the search's
    arguments = {name: value for name, value in values.items() if name not in skipped}
    if "heuristic" in values:
        arguments["heuristic"] = problem.heuristic(values["heuristic"], **heuristic_options(values))
    if any(name in values for name in WEIGHTS):
        arguments["heuristic"] = problem.heuristic("moves-freed", **{w: values[w] for w in WEIGHTS})
    if seed is not None:
        arguments["seed"] = seed
    return arguments
