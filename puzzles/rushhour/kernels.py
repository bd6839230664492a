"""Compiled Rush Hour kernels: keys decoded, moves generated, the goal tested.

The spec describes the board once: for vehicle i its orientation, the fixed
line it moves along (row if horizontal, column if vertical), its length, its
body as a bit mask, and where its position lives in the key (the vehicles of
a lane are ranked together: `puzzles.rushhour.keys`). Moves are found on
occupancy bit masks, one per row and one per column, with the walls and a
sentinel bit at index N already set; the heuristics
(`puzzles.rushhour.heuristics`) paint a grid of vehicle numbers instead. Those masks, the grid, the decoded positions and the
heuristics' marks are written into a `Work` the search makes once
(`workspace`), never into the spec.
"""

from typing import NamedTuple

import numpy as np

from puzzles.intrinsics import leading_zeros, trailing_zeros
from puzzles.jit import nb
from puzzles.rushhour.keys import MASK, NEXT_WORD, SHIFT, TABLE_START, WORD

WALL = -1
_DELTA_BIAS = 128


class Spec(NamedTuple):
    """The compiled description of one board."""

    size: int
    count: int  # type: ignore[assignment]  # how many vehicles; shadows tuple.count, read as spec.count by the kernels
    horizontal: np.ndarray
    line: np.ndarray
    length: np.ndarray
    body: np.ndarray
    place: np.ndarray
    weight: np.ndarray
    table: np.ndarray
    red: int
    single_step: bool
    walls: np.ndarray
    row_walls: np.ndarray
    column_walls: np.ndarray


class Work(NamedTuple):
    """The scratch space of one search: a painted grid, occupancy masks, decoded positions, heuristics' marks, a queue."""

    grid: np.ndarray
    rows: np.ndarray
    columns: np.ndarray
    positions: np.ndarray
    seen: np.ndarray
    queue: np.ndarray


@nb.njit(cache=True)
def workspace(spec):
    """A fresh `Work` for searches on `spec`."""
    return Work(
        np.empty(spec.size * spec.size, dtype=np.int16),
        np.empty(spec.size, dtype=np.uint64),
        np.empty(spec.size, dtype=np.uint64),
        np.empty(spec.count, dtype=np.int64),
        np.empty(spec.count + 1, dtype=np.int8),
        np.empty((2 * spec.count, 2), dtype=np.int64),
    )


@nb.njit(inline="always", cache=True)
def unpack_move(move):
    """A move code as (vehicle index, signed cells)."""
    return move >> 8, (move & 0xFF) - _DELTA_BIAS


@nb.njit(inline="always", cache=True)
def pack_move(vehicle, delta):
    """The move code of sliding `vehicle` by `delta` cells (`unpack_move`'s inverse)."""
    return vehicle * 256 + delta + _DELTA_BIAS


@nb.njit(inline="always", cache=True)
def _position(spec, key, i):
    """Vehicle i's position: its group's rank (a field that may straddle two words) looked up in its table."""
    shift = np.uint64(spec.place[i, SHIFT])
    low = key[spec.place[i, WORD]] >> shift
    high = (key[spec.place[i, NEXT_WORD]] << np.uint64(1)) << (np.uint64(63) - shift)  # 0 past the field if it does not straddle
    return np.int64(spec.table[spec.place[i, TABLE_START] + np.int64((low | high) & np.uint64(spec.place[i, MASK]))])


@nb.njit(inline="always", cache=True)
def cell_index(spec, i, position, offset):
    """The grid index of cell `offset` of vehicle i placed at `position`."""
    if spec.horizontal[i]:
        return spec.line[i] * spec.size + position + offset
    return (position + offset) * spec.size + spec.line[i]


@nb.njit(inline="always", cache=True)
def decode_positions(spec, key, positions):
    """Decode the key into `positions`."""
    for i in range(spec.count):
        positions[i] = _position(spec, key, i)


@nb.njit(inline="always", cache=True)
def fill_grid(spec, work, key):
    """Decode the key into `work.positions` and paint `work.grid` (0 empty, i+1 vehicle, WALL)."""
    decode_positions(spec, key, work.positions)
    return paint_grid(spec, work)


@nb.njit(inline="always", cache=True)
def paint_grid(spec, work):
    """Paint `work.grid` (0 empty, i+1 vehicle, WALL) from the positions decoded in `work.positions`."""
    grid = work.grid
    for c in range(grid.shape[0]):
        grid[c] = spec.walls[c]
    for i in range(spec.count):
        p = work.positions[i]
        for j in range(spec.length[i]):
            grid[cell_index(spec, i, p, j)] = i + 1
    return grid


@nb.njit(inline="always", cache=True)
def _emit(spec, key, i, old, new, out_keys, out_moves, count):
    """Write the key with vehicle i moved from `old` to `new` into row `count`, and the move."""
    for w in range(key.shape[0]):
        out_keys[count, w] = key[w]
    # the group's rank changes by `change`: add change * 2**shift to the key's words, as one two's-complement integer
    change = spec.weight[i, new] - spec.weight[i, old]
    shift = spec.place[i, SHIFT]
    word, following = spec.place[i, WORD], spec.place[i, NEXT_WORD]
    low = np.uint64(change) << np.uint64(shift)
    high = np.uint64((change >> 1) >> (63 - shift))  # what passes into the next word (0 or -1 when nothing does)
    out_keys[count, word] = key[word] + low
    carry = np.uint64(out_keys[count, word] < key[word])
    out_keys[count, following] += high + carry  # adds 0 when the field ends in `word`, even if `following` is `word`
    out_moves[count] = pack_move(i, new - old)


@nb.njit(inline="always", cache=True)
def _occupy(spec, work, key):
    """Decode the key into `work.positions` and set the occupancy masks `work.rows` and `work.columns`."""
    rows = work.rows
    columns = work.columns
    for n in range(spec.size):
        rows[n] = spec.row_walls[n]
        columns[n] = spec.column_walls[n]
    one = np.uint64(1)
    decode_positions(spec, key, work.positions)
    for i in range(spec.count):
        p = work.positions[i]
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
                _emit(spec, key, i, p, q, out_keys, out_moves, count)
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


@nb.njit(cache=True, _nrt=False)
def is_goal(spec, key):
    """True when the red car touches the right edge."""
    return _position(spec, key, spec.red) + spec.length[spec.red] == spec.size
