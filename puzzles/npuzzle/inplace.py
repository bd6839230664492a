"""The N-puzzle board kept in place for depth-first search: a move made and undone on one array.

Every heuristic is updated for the one tile that moved: Manhattan by a table
lookup, linear conflict by recounting the two lines the tile left and entered,
a pattern database by ranking the moved tile's group again. A move whose
estimate exceeds the search's limit is foreseen and never made (the
databases' moved group is ranked with the tile on its new cell, the mirror
image's only if the board's own does not already exceed the limit); a move
made pushes the ranks and entries it replaced, and its undo pops them rather
than looking them up again. The tables are `puzzles.npuzzle.kernels`'s.
"""

from typing import NamedTuple

import numpy as np

from puzzles import kernels
from puzzles.intrinsics import load_byte
from puzzles.jit import nb
from puzzles.kernels import ILLEGAL
from puzzles.npuzzle.kernels import (
    BOARD_ROWS,
    GROUP_OF,
    GROUPS,
    HEURISTICS,
    LINEAR_CONFLICT,
    MANHATTAN,
    MAX_GROUPS,
    MIRROR_CELL,
    MIRROR_PASSED,
    MIRROR_TILE,
    MISPLACED,
    MULTIPLIER_OF,
    NEIGHBOR,
    PASSED,
    PDB,
    PDB_MAX,
    Spec,
    at,
    group_rank,
    line_removals,
    manhattan_sum,
    mirror_cells,
    misplaced_count,
    unpack,
)


class Board(NamedTuple):
    """A board kept in place for depth-first search.

    `state` holds the board rows (`BOARD_ROWS`: the tile on each cell, the
    cell of each tile, the cell of each tile on the mirrored board, the blank's
    cell being the cell of tile 0, and linear conflict's scratch), five counts
    (MANHATTAN_SUM ... DEPTH, each kept up to date only by the makes of the
    heuristics that read it), linear conflict's removals per line (rows, then
    columns), per group its placement's rank and database entry on the board,
    then on its mirror image (`RANK_ROWS`), and a stack of what each move made
    replaced there, four entries a move, for its undo. `addresses` holds where
    each group's database starts in memory: a lookup reads its byte there
    rather than indexing the spec's tuple of databases with a group number
    known only at run time (a branch per group, 20 % of the databases' rate).
    The board holds the databases too, so they live as long as it.
    """

    width: int
    height: int
    cells: int
    state: np.ndarray
    table: np.ndarray
    pdb_values: tuple
    addresses: np.ndarray


MANHATTAN_SUM, MISPLACED_COUNT, PATTERN_SUM, MIRROR_SUM, DEPTH, COUNTS = range(6)
RANK, VALUE, MIRROR_RANK, MIRROR_VALUE, RANK_ROWS = range(5)  # rows of `groups` entries each


@nb.njit(inline="always", cache=True)
def _counts(board):
    return BOARD_ROWS * board.cells


@nb.njit(inline="always", cache=True)
def _lines(board):
    return BOARD_ROWS * board.cells + COUNTS


@nb.njit(inline="always", cache=True)
def _ranks(board, row):
    """Where row `row` (RANK ... MIRROR_VALUE) of the groups' ranks and entries starts in the state."""
    return BOARD_ROWS * board.cells + COUNTS + board.width + board.height + row * board.table[at(board.cells, GROUPS)]


@nb.njit(cache=True)
def place(spec, code, key, capacity):
    """The board of `key` kept in place for up to `capacity` moves made and not undone, and heuristic `code` on it."""
    cells, table = spec.cells, spec.table
    groups = table[at(cells, GROUPS)]
    rows = BOARD_ROWS * cells + COUNTS + spec.width + spec.height
    state = np.zeros(rows + RANK_ROWS * groups + 4 * capacity, dtype=np.int64)
    addresses = np.zeros(MAX_GROUPS, dtype=np.int64)
    for group in range(groups if code >= PDB else 0):
        addresses[group] = spec.pdb_values[group].ctypes.data
    board = Board(spec.width, spec.height, cells, state, table, spec.pdb_values, addresses)
    counts = _counts(board)
    unpack(spec, key, state)
    mirror_cells(table, cells, state)
    state[counts + MANHATTAN_SUM] = manhattan_sum(table, cells, state)
    state[counts + MISPLACED_COUNT] = misplaced_count(table, cells, state)
    for line in range(spec.height + spec.width):
        state[_lines(board) + line] = line_removals(table, spec.width, spec.height, state, line)
    if code >= PDB:
        for group in range(groups):
            for row, start in ((RANK, cells), (MIRROR_RANK, 2 * cells)):
                number = group_rank(table, cells, state, start, group)
                state[_ranks(board, row) + group] = number
                state[_ranks(board, row + 1) + group] = _entry(board, group, number)
        state[counts + PATTERN_SUM] = state[_ranks(board, VALUE) : _ranks(board, VALUE) + groups].sum()
        state[counts + MIRROR_SUM] = state[_ranks(board, MIRROR_VALUE) : _ranks(board, MIRROR_VALUE) + groups].sum()
    return board, _estimate(board, code)


@nb.njit(inline="always", cache=True)
def _entry(board, group, number):
    """Group `group`'s database entry for placement number `number`."""
    return np.int64(load_byte(board.addresses[group] + number))


@nb.njit(inline="always", cache=True)
def _estimate(board, code):
    state, counts = board.state, _counts(board)
    if code == MISPLACED:
        return state[counts + MISPLACED_COUNT]
    if code == MANHATTAN:
        return state[counts + MANHATTAN_SUM]
    if code == LINEAR_CONFLICT:
        extra = 0
        for line in range(board.height + board.width):
            extra += state[_lines(board) + line]
        return state[counts + MANHATTAN_SUM] + 2 * extra
    if code == PDB:
        return state[counts + PATTERN_SUM]
    return max(state[counts + PATTERN_SUM], state[counts + MIRROR_SUM])


@nb.njit(inline="always", cache=True)
def degree(board):
    """How many moves the blank can make."""
    neighbors = at(board.cells, NEIGHBOR) + 4 * board.state[board.cells]
    count = 0
    for move in range(4):
        count += board.table[neighbors + move] >= 0
    return count


@nb.njit(inline="always", cache=True)
def _target(state, table, cells, move):
    """The cell `move` takes the blank to, or -1 off the board."""
    return table[at(cells, NEIGHBOR) + 4 * state[cells] + move]


@nb.njit(inline="always", cache=True)
def inverse(board, move):
    """The move that undoes `move`."""
    return move ^ 1


@nb.njit(inline="always", cache=True, _nrt=False)
def _solved_misplaced(board):
    return board.state[_counts(board) + MISPLACED_COUNT] == 0


@nb.njit(inline="always", cache=True, _nrt=False)
def _solved_manhattan(board):
    return board.state[_counts(board) + MANHATTAN_SUM] == 0


@nb.njit(inline="always", cache=True, _nrt=False)
def _solved_pattern(board):
    """Every tile home. The databases' sum is 0 there, so only a board where it is 0 is checked tile by tile (the
    sum alone would do with true databases, but a search must not stop on a wrong one)."""
    if board.state[_counts(board) + PATTERN_SUM]:
        return False
    for cell in range(board.cells):
        if board.table[board.state[cell] * board.cells + cell]:  # the tile's Manhattan distance
            return False
    return True


@nb.njit(inline="always", cache=True)
def _slide(state, table, cells, move, manhattan):
    """Move the blank in place (and keep the Manhattan sum if `manhattan`); returns (tile moved, old cell, new cell).

    It takes the board's arrays rather than the board: the callers read them
    once, outside their branches, which keeps the compiled move at a few ns.
    `manhattan` is a constant at each call: only Manhattan and linear conflict
    keep the sum.
    """
    counts = BOARD_ROWS * cells
    blank = state[cells]
    target = table[at(cells, NEIGHBOR) + 4 * blank + move]
    tile = state[target]
    state[blank] = tile
    state[target] = 0
    state[cells + tile] = blank
    state[cells] = target
    if manhattan:
        state[counts + MANHATTAN_SUM] += table[tile * cells + blank] - table[tile * cells + target]
    return tile, target, blank


@nb.njit(inline="always", cache=True)
def _distances(state, table, cells, target):
    """The Manhattan distance of the tile on `target` before and after it slides to the blank (not moved here)."""
    tile = state[target]
    return table[tile * cells + target], table[tile * cells + state[cells]]


@nb.njit(inline="always", cache=True, _nrt=False)
def _make_misplaced(board, move, limit, enough):
    state, table, cells = board.state, board.table, board.cells
    target = _target(state, table, cells, move)
    if target < 0:
        return ILLEGAL
    before, after = _distances(state, table, cells, target)
    h = state[BOARD_ROWS * cells + MISPLACED_COUNT] + (after != 0) - (before != 0)
    if h > limit:
        return h
    _slide(state, table, cells, move, False)
    state[BOARD_ROWS * cells + MISPLACED_COUNT] = h
    return h


@nb.njit(inline="always", cache=True, _nrt=False)
def _undo_misplaced(board, move):
    _make_misplaced(board, move ^ 1, np.iinfo(np.int64).max, 0)


@nb.njit(inline="always", cache=True, _nrt=False)
def _make_manhattan(board, move, limit, enough):
    state, table, cells = board.state, board.table, board.cells
    target = _target(state, table, cells, move)
    if target < 0:
        return ILLEGAL
    before, after = _distances(state, table, cells, target)
    h = state[BOARD_ROWS * cells + MANHATTAN_SUM] + after - before
    if h > limit:
        return h
    _slide(state, table, cells, move, True)
    return h


@nb.njit(inline="always", cache=True, _nrt=False)
def _undo_manhattan(board, move):
    _slide(board.state, board.table, board.cells, move ^ 1, True)


@nb.njit(cache=True, _nrt=False)
def _linear_conflict_after(board, move):
    tile, source, destination = _slide(board.state, board.table, board.cells, move, True)
    _recount_lines(board, move, destination, source)
    return _estimate(board, LINEAR_CONFLICT)


@nb.njit(inline="always", cache=True, _nrt=False)
def _make_linear_conflict(board, move, limit, enough):
    if _target(board.state, board.table, board.cells, move) < 0:
        return ILLEGAL
    h = _linear_conflict_after(board, move)
    if h <= limit:
        return h
    _linear_conflict_after(board, move ^ 1)
    return h


@nb.njit(inline="always", cache=True, _nrt=False)
def _undo_linear_conflict(board, move):
    _linear_conflict_after(board, move ^ 1)


@nb.njit(inline="always", cache=True)
def _recount_lines(board, move, blank, target):
    """Recount linear conflict in the two lines a tile left and entered (rows for a vertical move, else columns).

    `blank` is where the blank was (the tile's new cell), `target` where it went.
    """
    width, height = board.width, board.height
    if move < 2:  # the tile changed rows; its column keeps its order
        first, second = target // width, blank // width
    else:
        first, second = height + target % width, height + blank % width
    board.state[_lines(board) + first] = line_removals(board.table, width, height, board.state, first)
    board.state[_lines(board) + second] = line_removals(board.table, width, height, board.state, second)


@nb.njit(inline="always", cache=True)
def _rank_change(state, table, cells, tile, source, destination, mirrored):
    """How the rank of `tile`'s group changes when the tile slides from `source` to the free `destination`.

    The tile's digit is its cell less the cells of the group's earlier tiles
    below it, so it gains the distance travelled, less one for each earlier
    tile on a cell in between; each later tile in between gains (or loses) one
    below it: the table's PASSED entries, added without a branch. A sideways
    slide passes no cell; an upward or downward one, width - 1 cells. The
    cells and tiles are the mirror image's if `mirrored`.
    """
    change = (destination - source) * table[at(cells, MULTIPLIER_OF) + tile]
    passed = 0
    if mirrored:
        row = at(cells, MIRROR_PASSED) + tile * cells
        for cell in range(min(source, destination) + 1, max(source, destination)):
            passed += table[row + state[table[at(cells, MIRROR_CELL) + cell]]]
    else:
        row = at(cells, PASSED) + tile * cells
        for cell in range(min(source, destination) + 1, max(source, destination)):
            passed += table[row + state[cell]]
    return change + passed if destination > source else change - passed


@nb.njit(inline="always", cache=True)
def _make_pattern(board, move, limit, enough, code):
    """Foresee the moved tile's group entry (and, for PDB_MAX, its mirror image's), and make the move if within `limit`.

    Only the moved tile's group is ranked again, from its rank and the cells
    the tile passes (`_rank_change`). The mirror image's lookup is skipped
    when the board's own already exceeds `limit` and reaches `enough`: the
    larger of the two is then no use.
    """
    state, table, cells = board.state, board.table, board.cells
    blank = state[cells]
    target = _target(state, table, cells, move)
    if target < 0:
        return ILLEGAL
    tile = state[target]
    group = table[at(cells, GROUP_OF) + tile]
    number = state[_ranks(board, RANK) + group] + _rank_change(state, table, cells, tile, target, blank, False)
    value = _entry(board, group, number)
    counts = _counts(board)
    h = state[counts + PATTERN_SUM] + value - state[_ranks(board, VALUE) + group]
    mirrored = mirror_group = mirror_number = mirror_value = 0
    if code == PDB_MAX and (h <= limit or h < enough):
        mirrored = table[at(cells, MIRROR_TILE) + tile]
        mirror_group = table[at(cells, GROUP_OF) + mirrored]
        source, destination = table[at(cells, MIRROR_CELL) + target], table[at(cells, MIRROR_CELL) + blank]
        change = _rank_change(state, table, cells, mirrored, source, destination, True)
        mirror_number = state[_ranks(board, MIRROR_RANK) + mirror_group] + change
        mirror_value = _entry(board, mirror_group, mirror_number)
        h = max(h, state[counts + MIRROR_SUM] + mirror_value - state[_ranks(board, MIRROR_VALUE) + mirror_group])
    if h > limit:
        return h
    stack = _ranks(board, RANK_ROWS) + 4 * state[counts + DEPTH]
    state[counts + DEPTH] += 1
    _swap(state, stack, _ranks(board, RANK) + group, number)
    _swap(state, stack + 1, _ranks(board, VALUE) + group, value)
    state[counts + PATTERN_SUM] += value - state[stack + 1]
    if code == PDB_MAX:
        _swap(state, stack + 2, _ranks(board, MIRROR_RANK) + mirror_group, mirror_number)
        _swap(state, stack + 3, _ranks(board, MIRROR_VALUE) + mirror_group, mirror_value)
        state[counts + MIRROR_SUM] += mirror_value - state[stack + 3]
    _slide(state, table, cells, move, False)
    return h


@nb.njit(inline="always", cache=True)
def _swap(state, saved, slot, value):
    """Keep `state[slot]` in `state[saved]` and put `value` in its place."""
    state[saved] = state[slot]
    state[slot] = value


@nb.njit(inline="always", cache=True)
def _undo_pattern(board, move, code):
    """Take back `move`, the last made, and the ranks and entries it replaced."""
    state, table, cells = board.state, board.table, board.cells
    tile, _, _ = _slide(state, table, cells, move ^ 1, False)
    counts = _counts(board)
    state[counts + DEPTH] -= 1
    stack = _ranks(board, RANK_ROWS) + 4 * state[counts + DEPTH]
    group = table[at(cells, GROUP_OF) + tile]
    state[counts + PATTERN_SUM] += state[stack + 1] - state[_ranks(board, VALUE) + group]
    state[_ranks(board, RANK) + group] = state[stack]
    state[_ranks(board, VALUE) + group] = state[stack + 1]
    if code == PDB_MAX:
        mirror_group = table[at(cells, GROUP_OF) + table[at(cells, MIRROR_TILE) + tile]]
        state[counts + MIRROR_SUM] += state[stack + 3] - state[_ranks(board, MIRROR_VALUE) + mirror_group]
        state[_ranks(board, MIRROR_RANK) + mirror_group] = state[stack + 2]
        state[_ranks(board, MIRROR_VALUE) + mirror_group] = state[stack + 3]


@nb.njit(inline="always", cache=True, _nrt=False)
def _make_pdb(board, move, limit, enough):
    return _make_pattern(board, move, limit, enough, PDB)


@nb.njit(inline="always", cache=True, _nrt=False)
def _undo_pdb(board, move):
    _undo_pattern(board, move, PDB)


@nb.njit(inline="always", cache=True, _nrt=False)
def _make_pdb_max(board, move, limit, enough):
    return _make_pattern(board, move, limit, enough, PDB_MAX)


@nb.njit(inline="always", cache=True, _nrt=False)
def _undo_pdb_max(board, move):
    _undo_pattern(board, move, PDB_MAX)


# Per heuristic, the move that also updates that heuristic (the `make` of
# `puzzles.kernels`, ILLEGAL off the board), its undo and the goal test from
# what that heuristic keeps: each compiled on its own, so the search for
# one heuristic carries no code of the others. Misplaced, Manhattan and the
# databases are foreseen, so a move over the limit is never made; linear
# conflict is made and taken back. (Each returns early rather than branching
# around the move: numba compiles the branching form about twice as slow.)
# They are compiled without numba's reference counting (`_nrt=False`: they
# allocate nothing), which would otherwise count every array of the board in
# and out of each call, ten atomic operations a move.
IN_PLACE = {  # by heuristic: (make, undo, solved)
    "misplaced": (_make_misplaced, _undo_misplaced, _solved_misplaced),
    "manhattan": (_make_manhattan, _undo_manhattan, _solved_manhattan),
    "linear-conflict": (_make_linear_conflict, _undo_linear_conflict, _solved_manhattan),
    "pdb": (_make_pdb, _undo_pdb, _solved_pattern),
    "pdb-max": (_make_pdb_max, _undo_pdb_max, _solved_pattern),
}
MAKES, UNDOS, SOLVEDS = zip(*(IN_PLACE[name] for name in HEURISTICS), strict=True)  # by code


kernels.register_in_place(
    Spec, Board, place=place, degree=degree, makes=MAKES, undos=UNDOS, solveds=SOLVEDS, inverse=inverse
)
