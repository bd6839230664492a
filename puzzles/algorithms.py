"""slidelab's algorithms, registered with the parameters each takes, checked at the boundary; light enough for a `--help`.

Each algorithm names the module of `puzzles.search` that runs it; the module,
and numba with it, is imported only when a search runs. The table is
`puzzles.registry.ALGORITHMS`, where the domains register their own (Rush
Hour's moves-freed) and any package may add one. Parameters are bound here,
against each algorithm's table: the algorithm modules trust what they get.
"""

import difflib
import math
from typing import TYPE_CHECKING, Any

from puzzles.errors import PuzzleError
from puzzles.plugins import is_file_name, load_file
from puzzles.registry import ALGORITHMS, Algorithm, Param, loaded, option_takers, register_algorithm
from puzzles.textio import brief

if TYPE_CHECKING:
    from puzzles.problem import Problem

__all__ = ["ALGORITHMS", "OFFERED", "Algorithm", "Param"]  # the registry's table and types, re-exported

SEEDS = 2**32  # numba's generator takes 32-bit seeds

_MAX_STEPS = Param(1_000_000, int, "moves per random run", 1)
# One default heuristic for every algorithm that takes one: blockers-lb, admissible (so A* and IDA* stay optimal),
# and the better guide for beam too (it solves more boards at more widths than blockers: docs/notes/2026-12-01-blocking-tree.md).
DEFAULT_HEURISTIC = "blockers-lb"
_MEMO = Param(None, bool, "keep a memo of each state searched and the moves it was searched with, as Fogleman's solver"
              " does: a state already searched as deep is not searched again (a table bounded by --memory-limit);"
              " default: on for Rush Hour, off for the N-puzzle (its IDA* then plays its moves in place, faster)")
_MAX_PROCESSES = 256  # layered's processes: forked by the job itself, each with a table of its own
register_algorithm("random", Algorithm("randomwalk", "uniformly random legal moves until solved", {"max_steps": _MAX_STEPS}, True,
                    compile_s=20))
register_algorithm("spr", Algorithm(
    "spr",
    "Shortened-Path Random: batches of random runs compressed by BFS over their union graph",
    {"batches": Param(10, int, "batches of random runs", 1), "batch_size": Param(10, int, "random runs per batch", 1),
     "max_steps": _MAX_STEPS},
    True,
    compile_s=45,
))
register_algorithm("iddfs", Algorithm("iddfs", "iterative deepening depth-first search", {"memo": _MEMO}, optimal=True))
register_algorithm("bfs", Algorithm(
    "bfs", "breadth-first search",
    {"exhaustive": Param(False, bool, "search every reachable state, not just up to the goal")}, optimal=True,
    compile_s=20,
))
register_algorithm("beam", Algorithm(
    "beam", "beam search keeping the k best boards per depth", {"k": Param(10, int, "the beam width", 1)},
    heuristic=DEFAULT_HEURISTIC,
))
register_algorithm("astar", Algorithm("astar", "A* on g + h", optimal=True, heuristic=DEFAULT_HEURISTIC))
register_algorithm("idastar", Algorithm(
    "idastar", "IDA*: iterative deepening on g + h", {"memo": _MEMO}, optimal=True, compile_s=60,
    heuristic=DEFAULT_HEURISTIC,
))
register_algorithm("idastar-subtree", Algorithm(
    "subtree", "one IDA* iteration below a path: a job of a split search (orchestrate split)",
    {"prefix": Param("", str, "the N-puzzle's blank moves (U, D, L, R) from the start to the subtree's root"),
     "bound": Param(0, int, "the iteration's bound on f = g + h", 0),
     "split_depth": Param(None, int, "the depth the search was split at (recorded with the job)", 1)},
    internal=True, heuristic="manhattan",
))
register_algorithm("layered", Algorithm(
    "layered", "layered BFS with checkpoints: the optimum, or a lower bound that rises layer by layer (resumable)",
    {"checkpoint": Param(None, str, "the folder of its layers and manifest, to resume from"
                         " (default: a temporary one)"),
     "upper_bound": Param(None, int, "the length of a known solution: only shorter ones are looked for", 1),
     "memory_gib": Param(4.0, float, "the memory budget of one part's table, in GiB", 1e-6),
     "processes": Param(1, int, "parts of a layer built at once, each in a process of its own (and its own"
                        " table: memory-gib each)", 1, maximum=_MAX_PROCESSES)},
    optimal=True, enumerates=True, heuristic=DEFAULT_HEURISTIC,
))
loaded()  # the domains' own algorithms too, before OFFERED is read
OFFERED = tuple(name for name, entry in ALGORITHMS.items() if not entry.internal)  # the algorithms a user chooses from


def compiling_notice(algorithm: str) -> str:
    """What a command says while `algorithm`'s kernels compile: the first run on a machine sits silent that long."""
    return f"compiling the search kernels, once per machine: about {find_algorithm(algorithm).compile_s} s"


def param_text(name: str, value: Any) -> str:
    """A parameter as every output writes it: `k=5`, `heuristic=blockers-lb`, a whole-number float without its `.0`
    (`w_exit=3`), others to their shortest exact form (`w_freed=-14.5`)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{name}={value}"


def with_domain_defaults(problem: "Problem", algorithm: str, values: dict[str, Any], given: dict[str, Any],
                         add_memo: bool = True) -> dict[str, Any]:
    """`values` with the domain's defaults where the algorithm's are foreign to it or its own: heuristic and memo.

    The algorithms' defaults are Rush Hour heuristics; an N-puzzle run without
    `heuristic` gets the N-puzzle's default instead of an error. The heuristic's
    options left out are filled with the domain's defaults for the board (the
    pattern databases of its size), so that a result names what it used. A
    depth-first search not told whether to keep a memo keeps one (`memo`
    true) where the domain's states recur (`problem.memo_by_default`: Rush
    Hour); elsewhere it keeps none, `memo` left out as jobs planned before the
    memo have it (`add_memo` false: a stored job's parameters, complete as planned).
    """
    if add_memo and "memo" in find_algorithm(algorithm).params and "memo" not in values and problem.memo_by_default:
        values = {**values, "memo": True}
    if "heuristic" not in values:
        return values
    if "heuristic" not in given and values["heuristic"] not in problem.heuristic_names:
        values = {**values, "heuristic": problem.default_heuristic}
    return {**problem.heuristic_defaults(values["heuristic"]), **values}


# Options of the problem rather than of an algorithm: every algorithm takes them, the caller builds the problem with them.
PROBLEM_OPTIONS: dict[str, Param] = {
    "move_model": Param(None, str, "Rush Hour: slide (a move slides a vehicle any distance; the default) or step"
                        " (a move is one cell)", choices=("slide", "step")),
}


def find_algorithm(name: str) -> Algorithm:
    """The table's entry of the algorithm called `name` (a plugin file's, loaded); PuzzleError naming the choices if
    there is none."""
    if name not in ALGORITHMS and is_file_name(name):
        name = load_file(name)
    if name not in ALGORITHMS:
        offered = [algorithm for algorithm, entry in ALGORITHMS.items() if not entry.internal]
        close = difflib.get_close_matches(name, offered, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise PuzzleError(f"unknown algorithm {name!r} ({hint}choose from {', '.join(offered)})")
    return ALGORITHMS[name]


def canonical_name(name: str) -> str:
    """The name an algorithm is stored and run by: a plugin file's with its absolute path (loaded), others as given."""
    return load_file(name) if is_file_name(name) else name


def bind_params(algorithm: str, params: dict[str, Any]) -> dict[str, Any]:
    """`params` checked and converted against the algorithm's table (and the problem options), defaults filled in."""
    table = find_algorithm(algorithm).params | PROBLEM_OPTIONS
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
        converted = _of_kind(param.kind, value)
    except (TypeError, ValueError, OverflowError):
        raise PuzzleError(f"{algorithm}: {name} must be {_KIND_WORDS[param.kind]}, not {brief(value)}") from None
    if param.minimum is not None and converted < param.minimum:
        raise PuzzleError(f"{algorithm}: {name} must be at least {param.minimum:g}, not {brief(value)}")
    if param.maximum is not None and converted > param.maximum:
        raise PuzzleError(f"{algorithm}: {name} must be at most {param.maximum:g}, not {brief(value)}")
    if param.choices is not None and converted not in param.choices:
        raise PuzzleError(f"{algorithm}: {name} must be one of {', '.join(param.choices)}, not {brief(value)}")
    return converted


_KIND_WORDS = {int: "a whole number below 2^63", float: "a finite number", str: "a word", bool: "true or false"}


def _of_kind(kind: type, value: Any) -> Any:
    """`value` as a parameter of `kind`; ValueError or TypeError if it is not one (a bool is no number)."""
    if kind is bool:
        if isinstance(value, bool) or value in (0, 1):
            return bool(value)
        if not isinstance(value, str) or value.lower() not in ("true", "false", "1", "0", "yes", "no"):
            raise ValueError(value)
        return value.lower() in ("true", "1", "yes")
    if isinstance(value, bool) or not isinstance(value, (int, float, str)) or kind is not str and isinstance(value, str):
        raise TypeError(value)
    if kind is int and (isinstance(value, float) and not value.is_integer() or abs(value) >= 2**63):  # type: ignore[arg-type]  # kind is int: no str
        raise ValueError(value)
    converted = kind(value)
    if kind is float and not math.isfinite(converted):
        raise ValueError(value)
    return converted


def heuristic_options(values: dict[str, Any]) -> dict[str, Any]:
    """The bound values that parameterize the heuristic itself (the N-puzzle's `pdb` partition, moves-freed's weights)."""
    takers = option_takers()
    return {name: value for name, value in values.items() if name in takers}


def without_foreign_options(values: dict[str, Any]) -> dict[str, Any]:
    """`values` less the heuristic options its chosen heuristic does not take (a sweep's `--pdb` beside `manhattan`)."""
    takers = option_takers()
    return {
        name: value
        for name, value in values.items()
        if name not in takers or "heuristic" not in values or values["heuristic"] in takers[name]
    }
