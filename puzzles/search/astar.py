"""A*: best-first search on f = g + h; optimal with an admissible heuristic.

Ties on f go to the deeper node. A node reached again by a cheaper path is
reopened, so an admissible but inconsistent heuristic still gives optimal
solutions. With the moves-freed heuristic this loop is the seed's "Moves Freed"
search: same code, a heuristic that is neither admissible nor consistent.
"""

import numpy as np

from puzzles import frontier, limits, nodestore
from puzzles.jit import nb
from puzzles.kernels import expand, heuristic, is_goal, workspace
from puzzles.problem import Heuristic, Problem
from puzzles.result import Limits, SearchReport

_G_BITS = 20
_G_MAX = (1 << _G_BITS) - 1


@nb.njit(cache=True)
def _priority(f, g):
    return (np.int64(f) << _G_BITS) | (_G_MAX - g)


@nb.njit(cache=True)
def astar(spec, start, code, args, max_branching, max_nodes, deadline):
    """Compiled A* from `start`; returns (status, moves, expanded, generated, max frontier, stored)."""
    key_words = start.shape[0]
    work = workspace(spec)
    store, root = nodestore.add(nodestore.new_store(key_words, 1 << 12), start.reshape(1, -1), 0, nodestore.NO_PARENT, 0, 0)
    heap = frontier.push(frontier.new_heap(1 << 12), _priority(heuristic(spec, work, code, args, start, 0), 0), root)
    out_keys = np.empty((max_branching, key_words), dtype=np.uint64)
    out_moves = np.empty(max_branching, dtype=np.int64)
    hashes = np.empty(max_branching, dtype=np.uint64)
    expanded = generated = max_frontier = 0
    while heap.size[0] > 0:
        g = _G_MAX - (heap.priority[0] & _G_MAX)
        node = frontier.pop(heap)
        if g > store.cost[node]:
            continue  # a stale entry: the node was reached more cheaply since
        if is_goal(spec, store.keys[node]):
            return limits.SOLVED, nodestore.moves_to(store, node), expanded, generated, max_frontier, store.count[0]
        stop = limits.exceeded(expanded, max_nodes, deadline)
        if stop:
            return stop, np.empty(0, np.int64), expanded, generated, max_frontier, store.count[0]
        expanded += 1
        count = expand(spec, work, store.keys[node], out_keys, out_moves)
        generated += count
        for j in range(count):
            hashes[j] = nodestore.hash_row(out_keys, j)
            nodestore.prefetch_slot(store, hashes[j])
        for j in range(count):
            child = nodestore.find_hashed(store, out_keys, j, hashes[j])
            if child < 0:
                store, child = nodestore.add(store, out_keys, j, node, out_moves[j], g + 1)
            elif g + 1 < store.cost[child]:
                store.cost[child] = g + 1
                store.parent[child] = node
                store.move[child] = out_moves[j]
            else:
                continue
            h = heuristic(spec, work, code, args, out_keys[j], count)
            heap = frontier.push(heap, _priority(g + 1 + h, g + 1), child)
        max_frontier = max(max_frontier, heap.size[0])
    return limits.UNSOLVABLE, np.empty(0, np.int64), expanded, generated, max_frontier, store.count[0]


def search(problem: Problem, limits_: Limits, *, heuristic: Heuristic) -> SearchReport:
    """Run A* with `heuristic` on `problem`."""
    max_nodes, deadline = limits.budget(limits_)
    code, moves, expanded, generated, max_frontier, stored = astar(
        heuristic.spec, problem.start_key(), heuristic.code, heuristic.args, problem.kernels.max_branching, max_nodes,
        deadline,
    )
    outcome, reason = limits.outcome_of(code, limits_)
    return SearchReport(outcome=outcome, path=[int(m) for m in moves], expanded=expanded, generated=generated,
                        max_frontier=max_frontier, stored=stored, reason=reason)
