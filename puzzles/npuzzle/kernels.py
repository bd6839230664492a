"""Compiled N-puzzle kernels: move generation, goal test and heuristics, on keys and in place.

A key is the tile on each cell, `bits` bits per cell, `per_word` cells per
64-bit word, the top RESERVED_BITS of the last word left free. A move code is
where the blank goes: 0 up, 1 down, 2 left, 3 right (`npuzzle.MOVES`), so
`move ^ 1` undoes `move`.

For depth-first search the board is also kept in place: `puzzles.npuzzle.inplace`.

Everything the heuristics look up is in one flat int64 `table` (layout below)
rather than in many arrays: compiled loops that carry a tuple of many arrays
pay for it on every call (about 80 ns a move, against 7 ns with one table).
The table is never written. What the heuristics write lives in the board's
own array: for a key, a workspace the search makes once (`workspace`); in
place, the `Board`'s state. Both begin with the same rows (`BOARD_ROWS`): the
tile on each cell, the cell of each tile, the cell of each tile on the mirror
image, and two rows of scratch for linear conflict.
"""

from typing import NamedTuple

import numpy as np

from puzzles import kernels
from puzzles.jit import nb
from puzzles.npuzzle.pdb import MAX_GROUPS, rank
from puzzles.registry import code_of, own_heuristic_names

HEURISTICS = own_heuristic_names("npuzzle")  # by code, as `puzzles.npuzzle.registered` registers them (the databases last)
MISPLACED, MANHATTAN, LINEAR_CONFLICT, PDB, PDB_MAX = (
    code_of("npuzzle", name) for name in ("misplaced", "manhattan", "linear-conflict", "pdb", "pdb-max")
)

# The table, for a board of n cells: n x n Manhattan distances [tile * n + cell];
# n x 4 blank moves [cell * 4 + move] (-1 off the board); then n entries each of
# goal row, goal column, mirrored cell, mirrored tile, pattern group (-1 for
# none), place in its group and rank multiplier there; then n x n entries
# [tile * n + other] of what `tile` sliding to a higher cell past `other` adds to
# its group's rank (0 if `other` is not in its group: see
# `puzzles.npuzzle.inplace`), and n x n of the same past the tile whose mirror
# image is `other`; then the groups: their number, the widest's size K, and per
# group its size, K tiles and K rank multipliers. Group g's database is
# `pdb_values[g]`: always MAX_GROUPS read-only arrays (`databases`), the unused
# ones empty, so that every spec has one numba type and each kernel compiles once
# for every board size and partition (a tuple's length is part of its type).
(DISTANCE, NEIGHBOR, GOAL_ROW, GOAL_COL, MIRROR_CELL, MIRROR_TILE, GROUP_OF, PLACE_OF, MULTIPLIER_OF, PASSED,
 MIRROR_PASSED, GROUPS) = range(12)
# The rows every board array begins with, each `cells` long: tiles, cells of tiles, mirrored cells, scratch.
TILES, CELL_OF, MIRRORED, ORDER, BEST, BOARD_ROWS = range(6)


@nb.njit(inline="always", cache=True)
def at(cells, part):
    """Where `part` (DISTANCE ... GROUPS) starts in the table of a board of `cells` cells."""
    if part == DISTANCE:
        return 0
    if part == NEIGHBOR:
        return cells * cells
    if part <= PASSED:
        return cells * cells + 4 * cells + (part - GOAL_ROW) * cells
    return cells * cells + 4 * cells + (PASSED - GOAL_ROW) * cells + (part - PASSED) * cells * cells


class Spec(NamedTuple):
    """The compiled description of one W x H board and its goal."""

    width: int
    height: int
    cells: int
    bits: int
    per_word: int
    goal: np.ndarray  # the goal's key
    table: np.ndarray  # see the layout above
    pdb_values: tuple  # the groups' databases, a byte per placement each (`databases`)


def databases(values: tuple[np.ndarray, ...] = ()) -> tuple[np.ndarray, ...]:
    """The groups' databases (read-only byte arrays, at most MAX_GROUPS) as a spec holds them: padded, empty ones."""
    empty = np.frombuffer(b"", dtype=np.uint8)
    return (*values, *[empty] * (MAX_GROUPS - len(values)))


@nb.njit(cache=True)
def workspace(spec):
    """The array the key heuristics unpack a board into: its first `BOARD_ROWS` rows."""
    return np.zeros(BOARD_ROWS * spec.cells, dtype=np.int64)


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
def expand(spec, work, key, out_keys, out_moves):
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
        for word in range(key.shape[0]):
            out[word] = key[word]
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
def unpack(spec, key, board):
    """Spread a key over a board array's first rows: the tile on each cell, the cell of each tile."""
    cells = spec.cells
    for cell in range(cells):
        tile = tile_at(spec, key, cell)
        board[cell] = tile
        board[cells + tile] = cell


@nb.njit(inline="always", cache=True)
def mirror_cells(table, cells, board):
    """Fill a board's third row: the cell of each tile on the board mirrored about its main diagonal."""
    for tile in range(cells):
        board[2 * cells + table[at(cells, MIRROR_TILE) + tile]] = table[at(cells, MIRROR_CELL) + board[cells + tile]]


@nb.njit(inline="always", cache=True)
def misplaced_count(table, cells, tiles):
    """The tiles (not the blank) off their goal cell."""
    count = 0
    for cell in range(cells):
        count += table[tiles[cell] * cells + cell] != 0
    return count


@nb.njit(inline="always", cache=True)
def manhattan_sum(table, cells, tiles):
    """The sum over tiles of their row and column distances to their goal cells."""
    total = 0
    for cell in range(cells):
        total += table[tiles[cell] * cells + cell]
    return total


@nb.njit(inline="always", cache=True)
def line_removals(table, width, height, tiles, line):
    """Tiles to take out of a line so that the tiles whose goal is that line are in order.

    Lines 0..height-1 are the rows, the next `width` the columns. A tile belongs
    to a row if its goal row is that row, and is ordered by its goal column (and
    the other way round for columns). The answer is the count minus a longest
    increasing subsequence of that order. `tiles` is a board array: its scratch
    rows hold the order and the subsequences.
    """
    cells = width * height
    goal_row, goal_col, order, best = at(cells, GOAL_ROW), at(cells, GOAL_COL), ORDER * cells, BEST * cells
    on_rows = line < height
    first, step, count = (line * width, 1, width) if on_rows else (line - height, width, height)
    found = 0
    for i in range(count):
        tile = tiles[first + i * step]
        if tile != 0 and (table[goal_row + tile] == line if on_rows else table[goal_col + tile] + height == line):
            tiles[order + found] = table[goal_col + tile] if on_rows else table[goal_row + tile]
            found += 1
    longest = 0
    for i in range(found):
        tiles[best + i] = 1
        for j in range(i):
            if tiles[order + j] < tiles[order + i] and tiles[best + j] + 1 > tiles[best + i]:
                tiles[best + i] = tiles[best + j] + 1
        longest = max(longest, tiles[best + i])
    return found - longest


@nb.njit(inline="always", cache=True)
def _conflicts(table, width, height, tiles):
    """Linear conflict's extra moves over Manhattan: two per tile that must leave its goal line to let others pass.

    In each row, the tiles whose goal is that row must end up ordered by goal
    column; all but a longest increasing subsequence of them must step out of the
    row and back (two moves Manhattan does not count). The same for columns.
    """
    extra = 0
    for line in range(height + width):
        extra += line_removals(table, width, height, tiles, line)
    return 2 * extra


@nb.njit(inline="always", cache=True)
def group_rank(table, cells, cell_of, start, group):
    """The rank of the placement of the group's tiles, tile t on `cell_of[start + t]`."""
    base = at(cells, GROUPS)
    widest = table[base + 1]
    entry = base + 2 + group * (1 + 2 * widest)
    return rank(cell_of, start, table, entry + 1, entry + 1 + widest, table[entry])


@nb.njit(inline="always", cache=True)
def _group_value(table, pdb_values, cells, cell_of, start, group):
    """The group's database entry for the placement of its tiles, tile t on `cell_of[start + t]`."""
    return np.int64(pdb_values[group][group_rank(table, cells, cell_of, start, group)])


@nb.njit(inline="always", cache=True)
def _pattern_sum(table, pdb_values, cells, cell_of, start):
    """The sum of the groups' database entries: additive, so admissible."""
    total = 0
    for group in range(table[at(cells, GROUPS)]):
        total += _group_value(table, pdb_values, cells, cell_of, start, group)
    return total


@nb.njit(cache=True)
def heuristic(spec, work, code, hargs, key, parent_branching):
    """Heuristic number `code` of HEURISTICS (codes 3 and 4 need a spec with the databases: the heuristic's)."""
    tiles = work
    unpack(spec, key, tiles)
    table, cells = spec.table, spec.cells
    if code == MISPLACED:
        return np.int64(misplaced_count(table, cells, tiles))
    if code == MANHATTAN:
        return np.int64(manhattan_sum(table, cells, tiles))
    if code == LINEAR_CONFLICT:
        return np.int64(manhattan_sum(table, cells, tiles) + _conflicts(table, spec.width, spec.height, tiles))
    h = _pattern_sum(table, spec.pdb_values, cells, tiles, cells)
    if code == PDB_MAX:
        mirror_cells(table, cells, tiles)
        h = max(h, _pattern_sum(table, spec.pdb_values, cells, tiles, 2 * cells))
    return h


kernels.register(Spec, workspace=workspace, expand=expand, is_goal=is_goal, heuristic=heuristic)
