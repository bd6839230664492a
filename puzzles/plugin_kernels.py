"""Plugin heuristics inside slidelab's compiled searches, and the domain functions they call to read a key.

A numba plugin heuristic is a function ``h(spec, work, key) -> int`` over a
domain's compiled spec, its workspace and a state's key words
(`slidelab.plugin`). `plugged_heuristic` makes it a `Heuristic` whose spec is
a `PluggedSpec`: a copy of the problem's spec (what a plugin writes there
changes no other search) and the plugin compiled as a first-class function
(`numba.cfunc`), its key read only. `PluggedSpec` is registered with
`puzzles.kernels` like a domain whose kernels are the base domain's, so every
built-in search that takes a heuristic runs it unchanged. A first-class
function's numba type is its signature, whatever function it holds: each
search is compiled once per domain for every plugin heuristic and loaded from
numba's cache after that; each plugin is compiled once per machine (cached
too). Children are estimated one by one (the domains' incremental
`child_heuristics` know their own heuristics only), and IDA* takes its path
over keys, not the in-place one.

`python_callable` gives plugin algorithms, which estimate states from Python,
the plugin's compiled code without numba's dispatch on every call.

The functions plugin heuristics call to read a key are below
(`slidelab.plugin.rushhour` and `slidelab.plugin.npuzzle` document them).
Importing this module imports no domain's heuristics: a plugin's module
imports it while slidelab may still be registering plugins, and the
N-puzzle's kernels, which look their codes up in the registry, are imported
when an N-puzzle function is first compiled or called.
"""

import importlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numba.extending import overload

from puzzles import kernels
from puzzles.errors import PuzzleError
from puzzles.jit import nb
from puzzles.plugged import copied_spec
from puzzles.problem import Heuristic, Problem
from puzzles.rushhour import kernels as rushhour_kernels

KEY = nb.types.Array(nb.uint64, 1, "C", readonly=True)  # a key as a plugin sees it: numba refuses to compile a write


class PluggedSpec(NamedTuple):
    """The spec a search runs a plugin heuristic with: the domain's own, and the heuristic as a compiled function.

    One class for every domain and plugin, at module level: numba's cache
    finds the searches compiled for a NamedTuple only if it can import its class.
    """

    base: Any  # a copy of the problem's spec
    h: Any  # the plugin's h(spec, work, key), a numba.cfunc


@nb.njit(cache=True)
def _workspace(spec):
    return kernels.workspace(spec.base)


@nb.njit(cache=True, _nrt=False)
def _expand(spec, work, key, out_keys, out_moves):
    return kernels.expand(spec.base, work, key, out_keys, out_moves)


@nb.njit(cache=True, _nrt=False)
def _is_goal(spec, key):
    return kernels.is_goal(spec.base, key)


@nb.njit(cache=True, _nrt=False)
def _heuristic(spec, work, code, args, key, parent_branching):
    return spec.h(spec.base, work, key)


kernels.register(PluggedSpec, workspace=_workspace, expand=_expand, is_goal=_is_goal, heuristic=_heuristic)

_FIRST_CLASS: dict[tuple[Any, ...], Any] = {}  # the plugins' cfuncs, by function and argument types
_PYTHON: dict[tuple[Any, ...], Callable[..., Any]] = {}  # their entry points for Python callers, likewise


def plugged_heuristic(problem: Problem, entry: Any) -> Heuristic:
    """The numba plugin heuristic `entry` (a `HeuristicEntry`) as slidelab's compiled searches take it."""
    base = copied_spec(problem.kernels.spec)
    args = _argument_types(base)
    cache_key = (entry.function, *args)
    if cache_key not in _FIRST_CLASS:
        _FIRST_CLASS[cache_key] = _compiled(entry, lambda: nb.cfunc(nb.int64(*args), cache=True)(
            entry.function.py_func))
    return Heuristic(entry.name, 0, np.zeros(1), entry.admissible, PluggedSpec(base, _FIRST_CLASS[cache_key]))


def python_callable(entry: Any, spec: Any) -> Callable[..., Any]:
    """The numba plugin heuristic `entry` compiled for `spec`'s domain, called as f(spec, work, key) from Python.

    It is the compiled code's own entry point: no type dispatch on each call
    (a fifth of the time of calling the numba function), so every call must
    pass a spec and work of the domain's types and a key of uint64 words.
    """
    args = _argument_types(spec)
    cache_key = (entry.function, *args)
    if cache_key not in _PYTHON:
        _PYTHON[cache_key] = _compiled(entry, lambda: entry.function.compile(args))
    return _PYTHON[cache_key]


def _argument_types(spec: Any) -> tuple[Any, ...]:
    """The numba types of a plugin heuristic's (spec, work, key) on `spec`'s domain."""
    return nb.typeof(spec), nb.typeof(kernels.workspace(spec)), KEY


def _compiled(entry: Any, compile: Callable[[], Any]) -> Any:
    """What `compile` makes of the plugin heuristic `entry`; PuzzleError in one line naming it if numba fails."""
    try:
        return compile()
    except Exception as err:  # noqa: BLE001 - a plugin that does not compile is reported as one line
        origin = f" ({entry.origin.label})" if entry.origin is not None else ""
        raise PuzzleError(f"heuristic {entry.name}{origin} does not compile as h(spec, work, key) for {entry.domain}:"
                          f" {_numba_reason(err)}") from None


def _numba_reason(err: Exception) -> str:
    """numba's many-line message in a line: its innermost error (else its first line), and where in the plugin."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"\w*(Error|Exception): ", line)]
    told = [line for line in lines if not line.startswith(("Failed in", "During:"))]
    reason = errors[-1] if errors else (told[0] if told else type(err).__name__)
    where = next((match for line in lines if (match := re.match(r'File "(.+)", line (\d+)', line))
                  and "site-packages" not in match[1]), None)
    return reason[:200] + (f" ({Path(where[1]).name}, line {where[2]})" if where else "")


# What plugin heuristics call to read a key (slidelab.plugin.rushhour, slidelab.plugin.npuzzle).

@nb.njit(inline="always", cache=True)
def rushhour_positions(spec, key, out):
    """Write each vehicle's position (its first cell along its line) into `out`: int64, `spec.count` long."""
    rushhour_kernels.decode_positions(spec, key, out)


@nb.njit(inline="always", cache=True)
def rushhour_grid(spec, work, key):
    """Decode `key` into `work.positions` and paint `work.grid`: 0 empty, i + 1 vehicle i, -1 wall; returns the grid."""
    return rushhour_kernels.fill_grid(spec, work, key)


def _npuzzle() -> Any:
    """The N-puzzle's kernels, imported when first needed (they look their heuristics up in the registry)."""
    return importlib.import_module("puzzles.npuzzle.kernels")


def npuzzle_tile(spec, key, cell):
    """The tile on `cell` (0: the blank)."""
    return _npuzzle().tile_at(spec, key, cell)


def npuzzle_tiles(spec, key, out):
    """Write the tile on each cell into `out[:spec.cells]`, the cell of each tile into `out[spec.cells:2 * spec.cells]`."""
    _npuzzle().unpack(spec, key, out)


@overload(npuzzle_tile, inline="always")
def _npuzzle_tile(spec, key, cell):
    tile_at = _npuzzle().tile_at
    return lambda spec, key, cell: tile_at(spec, key, cell)


@overload(npuzzle_tiles, inline="always")
def _npuzzle_tiles(spec, key, out):
    unpack = _npuzzle().unpack
    return lambda spec, key, out: unpack(spec, key, out)
