"""Compiled Rush Hour heuristics, on keys decoded by `puzzles.rushhour.kernels`.

Blockers reads the decoded positions only; blockers-lb and blocking-tree read
the painted grid as well, and mark the vehicles they count in `work.seen`.
A search's children are estimated from the parent's board with one vehicle
moved (`child_heuristics`). Importing this module registers the domain's
kernels with `puzzles.kernels`.
"""

import numpy as np

from puzzles import kernels
from puzzles.jit import nb
from puzzles.registry import code_of, own_heuristic_names
from puzzles.rushhour.kernels import WALL, Spec, cell_index, count_moves, decode_positions, expand, fill_grid, is_goal, paint_grid, unpack_move, workspace

HEURISTICS = own_heuristic_names("rushhour")  # by code, as `puzzles.rushhour.registered` registers them
BLOCKERS, BLOCKERS_LB, MOVES_FREED, BLOCKING_TREE = (
    code_of("rushhour", name) for name in ("blockers", "blockers-lb", "moves-freed", "blocking-tree")
)


@nb.njit(inline="always", cache=True)
def _blocks(spec, i, p, exit_side):
    """True if vehicle i (not the red car) at position `p` stands between the red car's end `exit_side` and the exit."""
    row = spec.line[spec.red]
    if spec.horizontal[i]:
        return spec.line[i] == row and p >= exit_side
    return spec.line[i] >= exit_side and p <= row < p + spec.length[i]


@nb.njit(inline="always", cache=True)
def _count_blockers(spec, positions):
    """The vehicles between the red car and the exit, from the decoded `positions`."""
    red = spec.red
    exit_side = positions[red] + spec.length[red]
    count = 0
    for i in range(spec.count):
        count += i != red and _blocks(spec, i, positions[i], exit_side)
    return count


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
def _lower_bound(spec, work):
    """Blockers-lb, from the geometry of any board size, on the decoded and painted board in `work`.

    Each vehicle between the red car and the exit must leave the red row, up or
    down; either way, every vehicle on the cells it must pass through has to move
    at least once. Per blocker this adds the fewer of those vehicles over the
    directions it fits in, counting each vehicle once over all blockers.
    """
    grid = work.grid
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
def _sweep_open(spec, grid, i, low, high):
    """True if cells low..high of vehicle i's line are on the board and hold no wall."""
    if low < 0 or high >= spec.size:
        return False
    for x in range(low, high + 1):
        if grid[cell_index(spec, i, x, 0)] == WALL:
            return False
    return True


@nb.njit(inline="always", cache=True)
def _sweep_count(spec, grid, seen, i, low, high):
    """The vehicles on cells low..high of vehicle i's line not yet marked in `seen`."""
    count = 0
    for x in range(low, high + 1):
        occupant = grid[cell_index(spec, i, x, 0)]
        if occupant > 0 and seen[occupant] == 0:
            seen[occupant] = 2
            count += 1
    for x in range(low, high + 1):
        occupant = grid[cell_index(spec, i, x, 0)]
        if occupant > 0 and seen[occupant] == 2:
            seen[occupant] = 0
    return count


@nb.njit(inline="always", cache=True)
def _claim(spec, work, i, low, high, tail):
    """Mark and queue (behind `tail`) the unmarked vehicles on cells low..high of vehicle i's line; the new tail."""
    for x in range(low, high + 1):
        cell = cell_index(spec, i, x, 0)
        occupant = work.grid[cell]
        if occupant > 0 and work.seen[occupant] == 0:
            work.seen[occupant] = 1
            work.queue[tail, 0] = occupant - 1  # and the cell it must leave, along its own line:
            work.queue[tail, 1] = cell % spec.size if spec.horizontal[occupant - 1] else cell // spec.size
            tail += 1
    return tail


@nb.njit(inline="always", cache=True)
def _sides(spec, work, i, x):
    """The cells (low0, low1, high0, high1) vehicle i sweeps to leave cell x by each side; (1, 0) for a closed side."""
    p = work.positions[i]
    length = spec.length[i]
    low0, low1 = x - length, p - 1
    if not _sweep_open(spec, work.grid, i, low0, low1):
        low0, low1 = 1, 0
    high0, high1 = p + length, x + length
    if not _sweep_open(spec, work.grid, i, high0, high1):
        high0, high1 = 1, 0
    return low0, low1, high0, high1


@nb.njit(inline="always", cache=True)
def _blocking_tree(spec, work):
    """The vehicles other than the red car that must move, by the red car's blocking tree.

    A vehicle that covers, at the start, a cell that must be empty at some time
    must move at least once. The red car's path must be empty: its blockers
    must move, each to leave one cell of it. A vehicle that must leave cell x
    sweeps, on the side it leaves by, the cells between it and its new place; if
    only one side is open (the other off the board or walled), every vehicle on
    that side's cells must move too, to leave that cell: the tree grows, each
    vehicle counted once. A vehicle with both sides open adds the fewer new
    vehicles of its two sides (all of both then counted as seen).
    """
    seen = work.seen
    seen[:] = 0
    red = spec.red
    seen[red + 1] = 1
    tail = _claim(spec, work, red, work.positions[red] + spec.length[red], spec.size - 1, 0)
    deferred = work.queue.shape[0]  # vehicles with both sides open wait at the far end of the queue
    head = 0
    while head < tail:
        i, x = work.queue[head, 0], work.queue[head, 1]
        head += 1
        low0, low1, high0, high1 = _sides(spec, work, i, x)
        if low0 > low1 and high0 <= high1:
            tail = _claim(spec, work, i, high0, high1, tail)
        elif high0 > high1 and low0 <= low1:
            tail = _claim(spec, work, i, low0, low1, tail)
        elif low0 <= low1:
            deferred -= 1
            work.queue[deferred, 0], work.queue[deferred, 1] = i, x
    forced = tail
    either = 0
    for d in range(deferred, work.queue.shape[0]):
        i, x = work.queue[d, 0], work.queue[d, 1]
        low0, low1, high0, high1 = _sides(spec, work, i, x)
        low, high = _sweep_count(spec, work.grid, seen, i, low0, low1), _sweep_count(spec, work.grid, seen, i, high0, high1)
        either += min(low, high)
        tail = _claim(spec, work, i, low0, low1, tail)
        tail = _claim(spec, work, i, high0, high1, tail)
    return forced + either


@nb.njit(inline="always", cache=True)
def _estimate(spec, work, code, hargs):
    """Heuristic `code` (not moves-freed) on the board decoded in `work` (positions, and the grid but for blockers).

    Blockers (seed heuristic 1): the vehicles between the red car and the
    exit. Blockers-lb (seed heuristic 2): `_lower_bound`. Blocking-tree: 1 for
    the red car plus the vehicles its blocking tree says must move
    (`_blocking_tree`), or blockers-lb + 1 where that is more; 0 on a solved
    board. All three admissible. Each kernel appears here once, whatever the
    code: numba compiles every branch at every call, and a kernel written
    into several branches is compiled once per branch.
    """
    if code == BLOCKERS:
        return np.int64(_count_blockers(spec, work.positions))
    red = spec.red
    if code == BLOCKING_TREE and work.positions[red] + spec.length[red] == spec.size:
        return np.int64(0)
    bound = np.int64(_lower_bound(spec, work))
    if code == BLOCKERS_LB:
        return bound
    return np.int64(1 + max(_blocking_tree(spec, work), bound))


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
    """Heuristic number `code` of HEURISTICS at `key`."""
    if code == MOVES_FREED:
        return moves_freed(spec, work, hargs, key, parent_branching)
    if code == BLOCKERS:
        decode_positions(spec, key, work.positions)
    else:
        fill_grid(spec, work, key)
    return _estimate(spec, work, code, hargs)


@nb.njit(inline="always", cache=True)
def _repaint(spec, grid, i, old, new):
    """Move vehicle i's cells on the grid from position `old` to `new`."""
    for j in range(spec.length[i]):
        grid[cell_index(spec, i, old, j)] = 0
    for j in range(spec.length[i]):
        grid[cell_index(spec, i, new, j)] = i + 1


@nb.njit(cache=True, _nrt=False)
def child_heuristics(spec, work, code, hargs, key, out_keys, out_moves, rows, n, parent_branching, out_h):
    """Heuristic `code` of the successors `out_keys[rows[:n]]` of `key`, from the parent's board and each move.

    The parent is painted once, from the positions the `expand` that made the
    successors decoded into `work`; each successor's vehicle is moved on that
    board, the estimate taken, and the vehicle moved back. Moves-freed counts
    the successor's own moves, so it decodes each successor instead.
    """
    if n == 0:
        return
    if code == MOVES_FREED:
        for t in range(n):
            out_h[rows[t]] = moves_freed(spec, work, hargs, out_keys[rows[t]], parent_branching)
        return
    if code == BLOCKERS:
        _blockers_of_children(spec, work, out_moves, rows, n, out_h)
        return
    paint_grid(spec, work)
    for t in range(n):
        row = rows[t]
        i, delta = unpack_move(out_moves[row])
        old = work.positions[i]
        new = old + delta
        work.positions[i] = new
        _repaint(spec, work.grid, i, old, new)
        out_h[row] = _estimate(spec, work, code, hargs)
        _repaint(spec, work.grid, i, new, old)
        work.positions[i] = old


@nb.njit(inline="always", cache=True)
def _blockers_of_children(spec, work, out_moves, rows, n, out_h):
    """The blockers of each successor: the parent's, less the moved vehicle where it was, plus it where it goes."""
    positions = work.positions
    red = spec.red
    exit_side = positions[red] + spec.length[red]
    parent = _count_blockers(spec, positions)
    for t in range(n):
        row = rows[t]
        i, delta = unpack_move(out_moves[row])
        old = positions[i]
        new = old + delta
        if i == red:
            positions[red] = new
            out_h[row] = _count_blockers(spec, positions)
            positions[red] = old
        else:
            out_h[row] = parent - _blocks(spec, i, old, exit_side) + _blocks(spec, i, new, exit_side)


kernels.register(
    Spec, workspace=workspace, expand=expand, is_goal=is_goal, heuristic=heuristic, child_heuristics=child_heuristics
)
