"""Compiled Rush Hour kernels: move generation, goal test and heuristics.

The spec describes the board once: for vehicle i its orientation, the fixed
line it moves along (row if horizontal, column if vertical), its length, its
body as a bit mask, and where its position lives in the key (`word[i]`,
`shift[i]`, `width` bits). Moves are found on occupancy bit masks, one per row
and one per column, with the walls and a sentinel bit at index N already set;
the heuristics paint a grid of vehicle numbers instead. Those masks, the
grid, the decoded positions and the heuristics' marks are written into a
`Work` the search makes once (`workspace`), never into the spec.
"""

from typing import NamedTuple

import numpy as np

from puzzles import kernels
from puzzles.intrinsics import leading_zeros, trailing_zeros
from puzzles.jit import nb

WALL = -1
_DELTA_BIAS = 128
HEURISTICS = ("blockers", "blockers-lb", "moves-freed")  # codes 0, 1, 2


class Spec(NamedTuple):
    """The compiled description of one board."""

    size: int
    count: int
    horizontal: np.ndarray
    line: np.ndarray
    length: np.ndarray
    body: np.ndarray
    word: np.ndarray
    shift: np.ndarray
    width: int
    red: int
    single_step: bool
    walls: np.ndarray
    row_walls: np.ndarray
    column_walls: np.ndarray


class Work(NamedTuple):
    """The scratch space of one search: a painted grid, occupancy masks, decoded positions, heuristic marks."""

    grid: np.ndarray
    rows: np.ndarray
    columns: np.ndarray
    positions: np.ndarray
    seen: np.ndarray


@nb.njit(cache=True)
def workspace(spec):
    """A fresh `Work` for searches on `spec`."""
    return Work(
        np.empty(spec.size * spec.size, dtype=np.int16),
        np.empty(spec.size, dtype=np.uint64),
        np.empty(spec.size, dtype=np.uint64),
        np.empty(spec.count, dtype=np.int64),
        np.empty(spec.count + 1, dtype=np.int8),
    )


def unpack_move(move: int) -> tuple[int, int]:
    """A move code as (vehicle index, signed cells)."""
    return move >> 8, (move & 0xFF) - _DELTA_BIAS


def pack_move(vehicle: int, delta: int) -> int:
    """The move code of sliding `vehicle` by `delta` cells (`unpack_move`'s inverse)."""
    return vehicle * 256 + delta + _DELTA_BIAS


@nb.njit(inline="always", cache=True)
def _pack_move(vehicle, delta):
    return vehicle * 256 + delta + _DELTA_BIAS


@nb.njit(inline="always", cache=True)
def _position(spec, key, i):
    mask = (np.uint64(1) << np.uint64(spec.width)) - np.uint64(1)
    return np.int64((key[spec.word[i]] >> np.uint64(spec.shift[i])) & mask)


@nb.njit(inline="always", cache=True)
def _cell(spec, i, position, offset):
    """The grid index of cell `offset` of vehicle i placed at `position`."""
    if spec.horizontal[i]:
        return spec.line[i] * spec.size + position + offset
    return (position + offset) * spec.size + spec.line[i]


@nb.njit(inline="always", cache=True)
def fill_grid(spec, work, key):
    """Decode the key into `work.positions` and paint `work.grid` (0 empty, i+1 vehicle, WALL)."""
    grid = work.grid
    for c in range(grid.shape[0]):
        grid[c] = spec.walls[c]
    for i in range(spec.count):
        p = _position(spec, key, i)
        work.positions[i] = p
        for j in range(spec.length[i]):
            grid[_cell(spec, i, p, j)] = i + 1
    return grid


@nb.njit(inline="always", cache=True)
def _emit(spec, key, i, new_position, delta, out_keys, out_moves, count):
    for w in range(key.shape[0]):
        out_keys[count, w] = key[w]
    shift = np.uint64(spec.shift[i])
    mask = ((np.uint64(1) << np.uint64(spec.width)) - np.uint64(1)) << shift
    word = spec.word[i]
    out_keys[count, word] = (key[word] & ~mask) | (np.uint64(new_position) << shift)
    out_moves[count] = _pack_move(i, delta)


@nb.njit(inline="always", cache=True)
def _occupy(spec, work, key):
    """Decode the key into `work.positions` and set the occupancy masks `work.rows` and `work.columns`."""
    rows = work.rows
    columns = work.columns
    for n in range(spec.size):
        rows[n] = spec.row_walls[n]
        columns[n] = spec.column_walls[n]
    one = np.uint64(1)
    for i in range(spec.count):
        p = _position(spec, key, i)
        work.positions[i] = p
        line = spec.line[i]
        if spec.horizontal[i]:
            rows[line] |= spec.body[i] << np.uint64(p)
            for j in range(spec.length[i]):
                columns[p + j] |= one << np.uint64(line)
        else:
            columns[line] |= spec.body[i] << np.uint64(p)
            for j in range(spec.length[i]):
                rows[p + j] |= one << np.uint64(line)


@nb.njit(inline="always", cache=True)
def _free_range(spec, work, i):
    """The lowest and highest positions vehicle i can reach in one move (itself included)."""
    p = work.positions[i]
    line = work.rows[spec.line[i]] if spec.horizontal[i] else work.columns[spec.line[i]]
    below = line & ((np.uint64(1) << np.uint64(p)) - np.uint64(1))
    lo = 0 if below == 0 else 64 - np.int64(leading_zeros(below))
    hi = p + np.int64(trailing_zeros(line >> np.uint64(p + spec.length[i])))
    if spec.single_step:
        return max(lo, p - 1), min(hi, p + 1)
    return lo, hi


@nb.njit(inline="always", cache=True)
def expand(spec, work, key, out_keys, out_moves):
    """Write every board one move away; a move slides one vehicle (one cell if single_step)."""
    _occupy(spec, work, key)
    count = 0
    for i in range(spec.count):
        p = work.positions[i]
        lo, hi = _free_range(spec, work, i)
        for q in range(lo, hi + 1):
            if q != p:
                _emit(spec, key, i, q, q - p, out_keys, out_moves, count)
                count += 1
    return count


@nb.njit(inline="always", cache=True)
def count_moves(spec, work, key):
    """The number of legal moves on the board."""
    _occupy(spec, work, key)
    count = 0
    for i in range(spec.count):
        lo, hi = _free_range(spec, work, i)
        count += hi - lo
    return count


@nb.njit(cache=True)
def is_goal(spec, key):
    """True when the red car touches the right edge."""
    return _position(spec, key, spec.red) + spec.length[spec.red] == spec.size


@nb.njit(inline="always", cache=True)
def _count_blockers(spec, positions):
    """The vehicles between the red car and the exit, from the decoded `positions`."""
    red = spec.red
    row = spec.line[red]
    exit_side = positions[red] + spec.length[red]
    count = 0
    for i in range(spec.count):
        p = positions[i]
        if spec.horizontal[i]:
            count += i != red and spec.line[i] == row and p >= exit_side
        else:
            count += spec.line[i] >= exit_side and p <= row < p + spec.length[i]
    return count


@nb.njit(inline="always", cache=True)
def _decode(spec, key, positions):
    """Decode the key into `positions`."""
    for i in range(spec.count):
        positions[i] = _position(spec, key, i)


@nb.njit(inline="always", cache=True)
def blockers(spec, work, hargs, key, parent_branching):
    """Seed heuristic 1: the number of vehicles between the red car and the exit. Admissible."""
    _decode(spec, key, work.positions)
    return _count_blockers(spec, work.positions)


@nb.njit(inline="always", cache=True)
def _side_blockers(spec, grid, i, first, last, seen, mark):
    """Count vehicles not in `seen` on cells first..last of vehicle i's column; -1 if a wall is there.

    Every vehicle found gets `mark` in `seen` (so it is counted only once overall).
    """
    count = 0
    column = spec.line[i]
    for row in range(first, last + 1):
        occupant = grid[row * spec.size + column]
        if occupant == WALL:
            return -1
        if occupant > 0 and seen[occupant] == 0:
            seen[occupant] = mark
            count += 1
    return count


@nb.njit(inline="always", cache=True)
def blockers_lower_bound(spec, work, hargs, key, parent_branching):
    """Seed heuristic 2, from the geometry of any board size. Admissible.

    Each vehicle between the red car and the exit must leave the red row, up or
    down; either way, every vehicle on the cells it must pass through has to move
    at least once. Per blocker this adds the fewer of those vehicles over the
    directions it fits in, counting each vehicle once over all blockers.
    """
    grid = fill_grid(spec, work, key)
    positions = work.positions
    red = spec.red
    row = spec.line[red]
    seen = work.seen
    seen[:] = 0
    primary = 0
    secondary = 0
    for col in range(positions[red] + spec.length[red], spec.size):
        b = grid[row * spec.size + col]
        if b <= 0 or seen[b] != 0:
            continue
        seen[b] = 1
        primary += 1
        i = b - 1
        if spec.horizontal[i]:
            continue
        top = positions[i]
        length = spec.length[i]
        best = -1
        if row - length >= 0:
            up = _side_blockers(spec, grid, i, row - length, top - 1, seen, 2)
            best = up
        if row + length < spec.size:
            down = _side_blockers(spec, grid, i, top + length, row + length, seen, 2)
            if down >= 0 and (best < 0 or down < best):
                best = down
        if best > 0:
            secondary += best
        for v in range(seen.shape[0]):
            if seen[v] == 2:
                seen[v] = 1
    return primary + secondary


@nb.njit(inline="always", cache=True)
def moves_freed(spec, work, hargs, key, parent_branching):
    """Seed heuristic 3: w_exit*distance + w_blockers*blockers + w_freed*(moves gained). Not admissible."""
    gained = count_moves(spec, work, key) - parent_branching  # also decodes the key into work.positions
    red = spec.red
    distance = spec.size - spec.length[red] - work.positions[red]
    value = hargs[0] * distance + hargs[1] * _count_blockers(spec, work.positions) + hargs[2] * gained
    return np.int64(np.round(value))


@nb.njit(cache=True)
def heuristic(spec, work, code, hargs, key, parent_branching):
    """Heuristic number `code` of HEURISTICS."""
    if code == 0:
        return blockers(spec, work, hargs, key, parent_branching)
    if code == 1:
        return blockers_lower_bound(spec, work, hargs, key, parent_branching)
    return moves_freed(spec, work, hargs, key, parent_branching)


kernels.register(Spec, workspace=workspace, expand=expand, is_goal=is_goal, heuristic=heuristic)
