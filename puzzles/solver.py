"""One entry point for every algorithm: `solve(problem, algorithm, params, limits, seed)`.

Parameters are checked here, at the boundary, against each algorithm's table of
parameters; the algorithm modules trust what they get.
"""

import resource
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from puzzles.errors import PuzzleError
from puzzles.problem import Problem
from puzzles.result import Limits, Outcome, SearchReport, SolveResult, findings_of
from puzzles.search import astar, beam, bfs, idastar, iddfs, randomwalk, spr

WEIGHTS = ("w_exit", "w_blockers", "w_freed")
HEURISTIC_OPTIONS = {"pdb": ("pdb", "pdb-max")}  # options passed to the domain's `heuristic`, and who takes them
SEEDS = 2**32  # numba's generator takes 32-bit seeds


@dataclass(frozen=True)
class Param:
    """A parameter's default, its type, what it means (for the command line's help) and its least value for numbers.

    A parameter whose default is None is optional: it is left out of the bound
    values unless given, so adding one does not change existing jobs' keys.
    """

    default: Any
    kind: type
    help: str
    minimum: float | None = None


@dataclass(frozen=True)
class Algorithm:
    """An algorithm module's `search` with the parameters it takes."""

    search: Callable[..., SearchReport]
    summary: str
    params: dict[str, Param] = field(default_factory=dict)
    randomized: bool = False
    optimal: bool = False  # finds a shortest solution (with an admissible heuristic, if it takes one)


_MAX_STEPS = Param(1_000_000, int, "moves per random run", 1)
_HEURISTIC_HELP = ("the heuristic: Rush Hour blockers, blockers-lb, moves-freed;"
                   " N-puzzle misplaced, manhattan, linear-conflict, pdb, pdb-max")
_PDB = Param(None, str, "the N-puzzle's pattern databases for pdb and pdb-max: group sizes (6-6-3) or tile groups"
             " (1 2 3/4 5 6 7 8); default: the board size's")
ALGORITHMS: dict[str, Algorithm] = {
    "random": Algorithm(randomwalk.search, "uniformly random legal moves until solved", {"max_steps": _MAX_STEPS}, True),
    "spr": Algorithm(
        spr.search,
        "Shortened-Path Random: batches of random runs compressed by BFS over their union graph",
        {"batches": Param(10, int, "batches of random runs", 1), "batch_size": Param(10, int, "random runs per batch", 1),
         "max_steps": _MAX_STEPS},
        True,
    ),
    "iddfs": Algorithm(iddfs.search, "iterative deepening depth-first search", optimal=True),
    "bfs": Algorithm(
        bfs.search, "breadth-first search",
        {"exhaustive": Param(False, bool, "search every reachable state, not just up to the goal")}, optimal=True,
    ),
    "beam": Algorithm(
        beam.search, "beam search keeping the k best boards per depth",
        {"k": Param(10, int, "the beam width", 1), "heuristic": Param("blockers", str, _HEURISTIC_HELP), "pdb": _PDB},
    ),
    "astar": Algorithm(
        astar.search, "A* on g + h", {"heuristic": Param("blockers-lb", str, _HEURISTIC_HELP), "pdb": _PDB}, optimal=True
    ),
    "idastar": Algorithm(
        idastar.search, "IDA*: iterative deepening on g + h",
        {"heuristic": Param("blockers-lb", str, _HEURISTIC_HELP), "pdb": _PDB}, optimal=True,
    ),
    "moves-freed": Algorithm(  # the seed's "Moves Freed": the A* loop ordered by the moves-freed heuristic
        astar.search,
        "the seed's moves-freed heuristic inside the A* loop",
        {"w_exit": Param(3.0, float, "weight of the red car's distance to the exit"),
         "w_blockers": Param(3.0, float, "weight of the vehicles blocking the red car"),
         "w_freed": Param(-14.0, float, "weight of the legal moves gained by a move")},
    ),
}


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
    spec = algorithm_spec(algorithm)
    values = bind_params(algorithm, params or {})
    values = with_domain_heuristic(problem, algorithm, values, given=params or {})
    if spec.randomized:
        seed = secrets.randbelow(SEEDS) if seed is None else seed
        if not 0 <= seed < SEEDS:
            raise PuzzleError(f"a seed must be between 0 and {SEEDS - 1}, not {seed}")
    if problem.proven_unsolvable():
        return SolveResult(outcome=Outcome.UNSOLVABLE, algorithm=algorithm, params=values,
                           seed=seed if spec.randomized else None,
                           reason="unsolvable by the parity of the board: nothing searched")
    warming = time.perf_counter()
    arguments = _search_arguments(problem, values, seed if spec.randomized else None)
    spec.search(problem, Limits(max_nodes=0), **arguments)  # compile or load the kernels first
    warmup = time.perf_counter() - warming
    _reset_peak_memory()
    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        report = spec.search(problem, limits, **arguments)
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
        seed=seed if spec.randomized else None,
        move_codes=report.path,
    )


def _reset_peak_memory() -> None:
    """Start the process's peak resident memory afresh, so each search reports its own (Linux)."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        pass  # elsewhere the peak is the process's since it started


def with_domain_heuristic(problem: Problem, algorithm: str, values: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """`values` with the domain's default heuristic where none was given and the algorithm's default is foreign to it.

    The algorithms' defaults are Rush Hour heuristics; an N-puzzle run without
    `heuristic` gets the N-puzzle's default instead of an error. The heuristic's
    options left out are filled with the domain's defaults for the board (the
    pattern databases of its size), so that a result names what it used.
    """
    if "heuristic" not in values:
        return values
    if "heuristic" not in given and values["heuristic"] not in problem.heuristic_names:
        values = {**values, "heuristic": problem.default_heuristic}
    return {**problem.heuristic_defaults(values["heuristic"]), **values}


def algorithm_spec(name: str) -> Algorithm:
    """The algorithm called `name`; PuzzleError naming the choices if there is none."""
    if name not in ALGORITHMS:
        raise PuzzleError(f"unknown algorithm {name!r} (choose from {', '.join(ALGORITHMS)})")
    return ALGORITHMS[name]


def bind_params(algorithm: str, params: dict[str, Any]) -> dict[str, Any]:
    """`params` checked and converted against the algorithm's table, defaults filled in."""
    table = algorithm_spec(algorithm).params
    unknown = sorted(set(params) - set(table))
    if unknown:
        takes = ", ".join(table) or "no parameters"
        raise PuzzleError(f"{algorithm} does not take {', '.join(unknown)} (it takes {takes})")
    return {
        name: _converted(algorithm, name, param, params.get(name, param.default))
        for name, param in table.items()
        if name in params or param.default is not None
    }


def _converted(algorithm: str, name: str, param: Param, value: Any) -> Any:
    try:
        if param.kind is bool and isinstance(value, str):
            if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError(value)
            converted = value.lower() in ("true", "1", "yes")
        elif param.kind is int and isinstance(value, float) and not value.is_integer():
            raise ValueError(value)
        else:
            converted = param.kind(value)
    except (TypeError, ValueError):
        raise PuzzleError(f"{algorithm}: {name} must be {param.kind.__name__}, not {value!r}") from None
    if param.minimum is not None and converted < param.minimum:
        raise PuzzleError(f"{algorithm}: {name} must be at least {param.minimum:g}, not {value!r}")
    return converted


def heuristic_options(values: dict[str, Any]) -> dict[str, Any]:
    """The bound values that parameterize the heuristic itself (the N-puzzle's `pdb` partition)."""
    return {name: values[name] for name in HEURISTIC_OPTIONS if name in values}


def without_foreign_options(values: dict[str, Any]) -> dict[str, Any]:
    """`values` less the heuristic options its heuristic does not take (a sweep's `--pdb` beside `manhattan`)."""
    return {
        name: value
        for name, value in values.items()
        if name not in HEURISTIC_OPTIONS or values.get("heuristic") in HEURISTIC_OPTIONS[name]
    }


def _search_arguments(problem: Problem, values: dict[str, Any], seed: int | None) -> dict[str, Any]:
    """The keyword arguments of a module's `search`: heuristics compiled, weights folded in."""
    arguments = {name: value for name, value in values.items() if name not in (*WEIGHTS, *HEURISTIC_OPTIONS)}
    if "heuristic" in values:
        arguments["heuristic"] = problem.heuristic(values["heuristic"], **heuristic_options(values))
    if any(name in values for name in WEIGHTS):
        arguments["heuristic"] = problem.heuristic("moves-freed", **{w: values[w] for w in WEIGHTS})
    if seed is not None:
        arguments["seed"] = seed
    return arguments
