"""A sweep's definition as a file: `orchestrate sweep show NAME --spec` writes it, `sweep --from-spec` replays it.

The file is self-contained: the grid as given (algorithms, parameter values,
seeds or repeats), the limits, and every board's canonical text in the sweep's
order, so it replays on another machine without the board files. It also names
the seed namespace the sweep's derived seeds come from, so a replay under a new
name runs its randomized jobs with the same seeds; under the same name it adds
only the jobs the sweep lacks.
"""

from pathlib import Path
from typing import Any

from orchestrator.sweeps.grid import MAX_VALUES, SweepGrid, stored_grid
from orchestrator.sweeps.plan import SweepPlan, plan_sweep
from puzzles.domains import Instance, instance_from_text
from puzzles.errors import PuzzleError
from puzzles.textio import brief, json_load, read_text
from workers.provenance import environment
from workers.store import Database
from workers.store.rows import sweep_boards
from workers.store.sweeps import SweepRow

FORMAT = "slidelab-sweep/1"
GRID_KEYS = ("algorithms", "params", "seeds", "repeat", "seed_namespace")  # the grid's, but its boards (in full here)
LIMITS: dict[str, type[int] | tuple[type[int], type[float]]] = {"max_nodes": int, "time_limit": (int, float), "memory_limit": int}
MAX_SPEC_BYTES = 64 << 20


def export_spec(db: Database, sweep: SweepRow) -> dict[str, Any]:
    """The sweep's definition: its grid, limits, seed namespace and boards (canonical text, in order)."""
    grid = stored_grid(sweep)
    if grid is None:
        raise PuzzleError(f"sweep {sweep.name!r} was not planned from one grid: it has no spec to export")
    stored = grid.to_json()
    return {
        "format": FORMAT,
        "name": sweep.name,
        **{key: stored[key] for key in GRID_KEYS},
        "limits": sweep.limits,
        "boards": [{"name": board.name, "domain": board.domain, "text": board.canonical_text}
                   for board in sweep_boards(db, sweep)],
        "exported_by": environment()["code_version"],
    }


def read_spec(path: Path) -> dict[str, Any]:
    """A spec file, checked for its shape; PuzzleError naming the file and the problem."""
    try:
        spec = json_load(read_text(path, str(path), MAX_SPEC_BYTES), str(path))
    except PuzzleError as err:
        raise PuzzleError(f"{path}: not a sweep spec ({err.message})") from None
    if not isinstance(spec, dict) or spec.get("format") != FORMAT:
        raise PuzzleError(f"{path}: not a sweep spec (no \"format\": \"{FORMAT}\"; write one with: orchestrate sweep show NAME --spec)")
    _check_shape(path, spec)
    return spec


def plan_from_spec(spec: dict[str, Any], name: str | None = None, source: str = "spec") -> SweepPlan:
    """The plan of a spec, under its own name or `name`; PuzzleError for anything the planner refuses."""
    boards = [_instance(board, index, source) for index, board in enumerate(spec["boards"])]
    grid = SweepGrid.from_json({key: spec[key] for key in GRID_KEYS if key in spec})
    return plan_sweep(name or spec["name"], boards, grid, spec["limits"])


def _instance(board: dict[str, Any], index: int, source: str) -> Instance:
    if not isinstance(board, dict) or not {"domain", "text"} <= set(board):
        raise PuzzleError(f"{source}: board {index + 1} needs a domain and a text")
    if not isinstance(board["text"], str) or not isinstance(board["domain"], str):
        raise PuzzleError(f"{source}: board {index + 1}'s domain and text must be strings")
    try:
        instance = instance_from_text(board["domain"], board["text"])
    except PuzzleError as err:
        raise PuzzleError(f"{source}: board {index + 1} ({board.get('name') or 'unnamed'}): {err}") from None
    return Instance(instance.domain, str(board.get("name") or instance.name), instance.size, instance.text)


def _check_shape(path: Path, spec: dict[str, Any]) -> None:
    expected = {
        "name": str, "algorithms": list, "params": dict, "repeat": int, "seed_namespace": str, "limits": dict, "boards": list,
    }
    for key, kind in expected.items():
        if not isinstance(spec.get(key), kind) or isinstance(spec.get(key), bool):
            raise PuzzleError(f"{path}: {key!r} must be a {kind.__name__}")
    if not all(isinstance(name, str) for name in spec["algorithms"]):
        raise PuzzleError(f"{path}: 'algorithms' must be a list of names")
    if not all(isinstance(values, list) and 0 < len(values) <= MAX_VALUES for values in spec["params"].values()):
        raise PuzzleError(f"{path}: each of 'params' must be a list of 1 to {MAX_VALUES:,} values")
    seeds = spec.get("seeds")
    if seeds is not None and not (isinstance(seeds, list) and all(type(seed) is int for seed in seeds)):
        raise PuzzleError(f"{path}: 'seeds' must be a list of whole numbers, or null")
    unknown = sorted(set(spec["limits"]) - set(LIMITS))
    if unknown:
        raise PuzzleError(f"{path}: unknown limits {', '.join(map(repr, unknown))} (known: {', '.join(LIMITS)})")
    for limit, value in spec["limits"].items():
        if value is not None and (not isinstance(value, LIMITS[limit]) or isinstance(value, bool) or value < 0):
            raise PuzzleError(f"{path}: limit {limit} must be a non-negative number or null, not {brief(value)}")
