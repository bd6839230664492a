"""A*: best-first search on f = g + h; optimal with an admissible heuristic.

Ties on f go to the deeper node. A node reached again by a cheaper path is
reopened, so an admissible but inconsistent heuristic still gives optimal
solutions. With the moves-freed heuristic this loop is the seed's "Moves Freed"
search: same code, a heuristic that is neither admissible nor consistent.
"""

import numpy as np

from puzzles import frontier, nodestore, stops
from puzzles.intrinsics import prefetch
from puzzles.jit import nb
from puzzles.kernels import child_heuristics, expand, heuristic, is_goal, workspace
from puzzles.problem import Heuristic, Problem
from puzzles.result import Limits, SearchReport

_G_BITS = 20
_G_MAX = (1 << _G_BITS) - 1


@nb.njit(cache=True)
def _priority(f, g):
    return (np.int64(f) << _G_BITS) | (_G_MAX - g)


@nb.njit(cache=True, _nrt=False)
def _settle(node_keys, parents, no_moves, costs, table, count, out_keys, hashes, n, parent, g, rows, children):
    """Add the successors not stored yet and give cheaper paths to the others; those that are (re)opened go into
    `rows` (their row) and `children` (their node), in order; returns how many. The store must have room for n more.

    The store keeps no moves (`no_moves` is its empty array): `_path` finds them again from the keys.
    """
    for j in range(n):
        hashes[j] = nodestore.hash_row(out_keys, j)
        prefetch(table, nodestore.home_slot(table, hashes[j]))
    for j in range(n):  # the home slots are on their way: ask for the keys they name too
        node = table[nodestore.home_slot(table, hashes[j])]
        if node >= 0:
            prefetch(node_keys, np.int64(node))
    opened = 0
    for j in range(n):
        child = nodestore.lookup(table, node_keys, out_keys, j, hashes[j])
        if child < 0:
            child = nodestore.append(node_keys, parents, no_moves, costs, table, count, out_keys, j, parent, 0, g)
        elif g < costs[child]:
            costs[child] = g
            parents[child] = parent
        else:
            continue
        rows[opened] = j
        children[opened] = child
        opened += 1
    return opened


_GROW = -1  # `_best_first` stopped: the store or the heap must grow before the next expansion
EXPANDED, GENERATED, MAX_FRONTIER, GOAL = range(4)  # the counters `_best_first` keeps


@nb.njit(cache=True, _nrt=False)
def _best_first(spec, work, code, args, store, heap, max_branching, max_nodes, deadline, out_keys, out_moves, hashes,
                rows, children, child_h, counters):
    """A*'s loop, until it ends (its status; the goal's node in `counters[GOAL]`) or must grow (`_GROW`).

    It grows nothing (that takes the runtime, and with it reference counts on
    every array at every call): it returns before an expansion the store or
    the heap may not have room for.
    """
    while heap.size[0] > 0:
        if not (nodestore.has_room(store, max_branching) and frontier.has_room(heap, max_branching)):
            return _GROW
        g = _G_MAX - (heap.priority[0] & _G_MAX)
        node = frontier.pop(heap)
        if g > store.cost[node]:
            continue  # a stale entry: the node was reached more cheaply since
        if is_goal(spec, store.keys[node]):
            counters[GOAL] = node
            return stops.SOLVED
        stop = stops.exceeded(counters[EXPANDED], max_nodes, deadline)
        if stop:
            return stop
        counters[EXPANDED] += 1
        count = expand(spec, work, store.keys[node], out_keys, out_moves)
        counters[GENERATED] += count
        opened = _settle(store.keys, store.parent, store.move, store.cost, store.table, store.count, out_keys, hashes,
                         count, node, g + 1, rows, children)
        child_heuristics(spec, work, code, args, store.keys[node], out_keys, out_moves, rows, opened, count, child_h)
        for t in range(opened):
            frontier.push(heap, _priority(g + 1 + child_h[rows[t]], g + 1), children[t])
        counters[MAX_FRONTIER] = max(counters[MAX_FRONTIER], heap.size[0])
    return stops.UNSOLVABLE


@nb.njit(cache=True)
def _path(spec, work, store, node, out_keys, out_moves):
    """The moves from the root to `node`: each step's move is the one whose successor of the parent is the child."""
    nodes = nodestore.path_to(store, node)
    moves = np.empty(nodes.shape[0] - 1, dtype=np.int64)
    for i in range(moves.shape[0]):
        count = expand(spec, work, store.keys[nodes[i]], out_keys, out_moves)
        moves[i] = _move_to(store.keys, nodes[i + 1], out_keys, out_moves, count)
    return moves


@nb.njit(cache=True)
def _move_to(node_keys, child, out_keys, out_moves, count):
    """The move of the successor (of `count` in `out_keys`) whose key is node `child`'s."""
    for j in range(count):
        if nodestore.same_rows(node_keys, child, out_keys, j):
            return out_moves[j]
    raise AssertionError("a stored parent does not generate its child")


@nb.njit(cache=True)
def astar(spec, start, code, args, max_branching, max_nodes, deadline):
    """Compiled A* from `start`; returns (status, moves, expanded, generated, max frontier, stored, store bytes)."""
    key_words = start.shape[0]
    work = workspace(spec)
    store, root = nodestore.add(nodestore.new_store(key_words, 1 << 12, False), start.reshape(1, -1), 0,
                                nodestore.NO_PARENT, 0, 0)
    heap = frontier.new_heap(1 << 12)
    frontier.push(heap, _priority(heuristic(spec, work, code, args, start, 0), 0), root)
    out_keys = np.empty((max_branching, key_words), dtype=np.uint64)
    out_moves = np.empty(max_branching, dtype=np.int64)
    hashes = np.empty(max_branching, dtype=np.uint64)
    rows = np.empty(max_branching, dtype=np.int64)
    children, child_h = np.empty_like(rows), np.empty_like(rows)
    counters = np.zeros(4, dtype=np.int64)
    while True:
        status = _best_first(spec, work, code, args, store, heap, max_branching, max_nodes, deadline, out_keys,
                             out_moves, hashes, rows, children, child_h, counters)
        if status != _GROW:
            break
        store = nodestore.room_for(store, max_branching)
        heap = frontier.room_for(heap, max_branching)
    moves = np.empty(0, np.int64)
    if status == stops.SOLVED:
        moves = _path(spec, work, store, counters[GOAL], out_keys, out_moves)
    return (status, moves, counters[EXPANDED], counters[GENERATED], counters[MAX_FRONTIER], store.count[0],
            nodestore.nbytes(store))


def search(problem: Problem, limits: Limits, *, heuristic: Heuristic) -> SearchReport:
    """Run A* with `heuristic` on `problem`."""
    max_nodes, deadline = stops.budget(limits)
    code, moves, expanded, generated, max_frontier, stored, store_bytes = astar(
        heuristic.spec, problem.start_key(), heuristic.code, heuristic.args, problem.kernels.max_branching, max_nodes,
        deadline,
    )
    outcome, reason = stops.outcome_of(code, limits)
    extra = {"store_bytes": int(store_bytes), "bytes_per_state": round(store_bytes / stored, 1)}
    return SearchReport(outcome=outcome, path=[int(m) for m in moves], expanded=expanded, generated=generated,
                        max_frontier=max_frontier, stored=stored, reason=reason, extra=extra)
