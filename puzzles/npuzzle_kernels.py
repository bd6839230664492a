"""Compiled N-puzzle kernels: move generation, goal test and heuristics.

A state is the tile on each cell, `bits` bits per cell, `per_word` cells per
64-bit word, the top RESERVED_BITS of the last word left free. A move code is
where the blank goes: 0 up, 1 down, 2 left, 3 right (`npuzzle.MOVES`). `line` and `best` are
scratch space for the linear-conflict heuristic.
"""

from typing import NamedTuple

import numba as nb
import numpy as np

from puzzles import kernels
HEURISTICS = ("misplaced", "manhattan", "linear-conflict")  # codes 0, 1, 2


class Spec(NamedTuple):
    """The compiled description of one W x H board and its goal."""

    width: int
    height: int
    cells: int
    bits: int
    per_word: int
    goal: np.ndarray
    goal_row: np.ndarray
    goal_col: np.ndarray
    line: np.ndarray
    best: np.ndarray


@nb.njit(inline="always", cache=True)
def tile_at(spec, key, cell):
    """The tile on `cell` (0: the blank)."""
    shift = np.uint64((cell % spec.per_word) * spec.bits)
    mask = np.uint64((1 << spec.bits) - 1)
    return np.int64((key[cell // spec.per_word] >> shift) & mask)


@nb.njit(inline="always", cache=True)
def _put(row, spec, cell, tile):
    word = cell // spec.per_word
    shift = np.uint64((cell % spec.per_word) * spec.bits)
    mask = np.uint64((1 << spec.bits) - 1) << shift
    row[word] = (row[word] & ~mask) | (np.uint64(tile) << shift)


@nb.njit(inline="always", cache=True)
def blank_cell(spec, key):
    """The cell of the blank."""
    for cell in range(spec.cells):
        if tile_at(spec, key, cell) == 0:
            return cell
    return -1


@nb.njit(cache=True)
def expand(spec, key, out_keys, out_moves):
    """Write the boards one blank move away (up, down, left, right, as the board allows)."""
    blank = blank_cell(spec, key)
    row, col = blank // spec.width, blank % spec.width
    count = 0
    for move in range(4):
        if move == 0 and row == 0 or move == 1 and row == spec.height - 1:
            continue
        if move == 2 and col == 0 or move == 3 and col == spec.width - 1:
            continue
        target = blank + (-spec.width, spec.width, -1, 1)[move]
        out = out_keys[count]
        out[:] = key
        _put(out, spec, blank, tile_at(spec, key, target))
        _put(out, spec, target, 0)
        out_moves[count] = move
        count += 1
    return count


@nb.njit(cache=True)
def is_goal(spec, key):
    """True when every tile is on its goal cell."""
    for word in range(key.shape[0]):
        if key[word] != spec.goal[word]:
            return False
    return True


@nb.njit(inline="always", cache=True)
def misplaced(spec, key):
    """The tiles (not the blank) off their goal cell."""
    count = 0
    for cell in range(spec.cells):
        tile = tile_at(spec, key, cell)
        if tile != 0 and (spec.goal_row[tile] * spec.width + spec.goal_col[tile]) != cell:
            count += 1
    return count


@nb.njit(inline="always", cache=True)
def manhattan(spec, key):
    """The sum over tiles of their row and column distances to their goal cells."""
    total = 0
    for cell in range(spec.cells):
        tile = tile_at(spec, key, cell)
        if tile != 0:
            total += abs(cell // spec.width - spec.goal_row[tile]) + abs(cell % spec.width - spec.goal_col[tile])
    return total


@nb.njit(inline="always", cache=True)
def _removals(spec, count):
    """Tiles to take out of `spec.line[:count]` so the rest increase: count minus the longest increasing run."""
    longest = 0
    for i in range(count):
        spec.best[i] = 1
        for j in range(i):
            if spec.line[j] < spec.line[i] and spec.best[j] + 1 > spec.best[i]:
                spec.best[i] = spec.best[j] + 1
        longest = max(longest, spec.best[i])
    return count - longest


@nb.njit(inline="always", cache=True)
def _line_removals(spec, key, first, step, count, on_rows, line):
    """Tiles to take out of one row (`on_rows`) or column so that the tiles whose goal is that line are in order.

    The line's cells are `first`, `first + step`, ... (`count` of them); a tile
    belongs if its goal row (or column) is `line`, and is ordered by its goal
    column (or row).
    """
    found = 0
    for i in range(count):
        tile = tile_at(spec, key, first + i * step)
        if tile == 0:
            continue
        home = spec.goal_row[tile] if on_rows else spec.goal_col[tile]
        if home == line:
            spec.line[found] = spec.goal_col[tile] if on_rows else spec.goal_row[tile]
            found += 1
    return _removals(spec, found)


@nb.njit(inline="always", cache=True)
def linear_conflict(spec, key):
    """Manhattan plus two moves per tile that must leave its goal line to let the others pass.

    In each row, the tiles whose goal is that row must end up ordered by goal
    column; all but a longest increasing subsequence of them must step out of the
    row and back (two moves Manhattan does not count). The same for columns.
    """
    extra = 0
    for row in range(spec.height):
        extra += _line_removals(spec, key, row * spec.width, 1, spec.width, True, row)
    for col in range(spec.width):
        extra += _line_removals(spec, key, col, spec.width, spec.height, False, col)
    return manhattan(spec, key) + 2 * extra


@nb.njit(cache=True)
def heuristic(spec, code, hargs, key, parent_branching):
    """Heuristic number `code` of HEURISTICS."""
    if code == 0:
        return np.int64(misplaced(spec, key))
    if code == 1:
        return np.int64(manhattan(spec, key))
    return np.int64(linear_conflict(spec, key))


kernels.register(Spec, expand=expand, is_goal=is_goal, heuristic=heuristic)
