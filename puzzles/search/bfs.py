"""Breadth-first search layer by layer over an open-addressing table of states.

The table holds each state's key inline, `key_words` words a slot, with the
state's depth + 1 in the reserved top bits of the last word (0 there: an empty
slot). It grows by half when 3/4 full, so it is between 1/2 and 3/4 full and a
state costs `8 * key_words` bytes divided by that load. Successors are handled
in batches: all their slots are prefetched first and probed after, so the
cache misses of one batch overlap instead of queueing. The solution is traced
back from the goal by looking up, depth by depth, a neighbour one move closer
to the start.
"""

import numpy as np

from puzzles import limits
from puzzles.intrinsics import prefetch
from puzzles.jit import nb
from puzzles.kernels import expand, is_goal, workspace
from puzzles.nodestore import copy_row, hash_row, same_rows
from puzzles.problem import RESERVED_BITS, Problem
from puzzles.result import Limits, SearchReport

_DEPTH_SHIFT = np.uint64(64 - RESERVED_BITS)
_KEY_BITS = (np.uint64(1) << _DEPTH_SHIFT) - np.uint64(1)
_BATCH = 16  # parents expanded before their successors are probed
_FIRST_CAPACITY = 1 << 8


@nb.njit(cache=True)
def _home(h, capacity):
    """The first slot for hash `h`: the top 32 bits scaled to the capacity (any capacity below 2**32)."""
    return np.int64(((h >> np.uint64(32)) * np.uint64(capacity)) >> np.uint64(32))


@nb.njit(cache=True)
def _depth_at(table, slot):
    """The depth stored in a slot, or -1 if it is empty."""
    return np.int64(table[slot, table.shape[1] - 1] >> _DEPTH_SHIFT) - 1


@nb.njit(cache=True)
def _slot_of(table, keys, row, h):
    """The slot holding row `row` of `keys`, or the empty slot where it belongs."""
    last = table.shape[1] - 1
    slot = _home(h, table.shape[0])
    while True:
        stored = table[slot, last]
        if stored == 0:
            return slot
        if (stored & _KEY_BITS) == keys[row, last]:
            same = True
            for w in range(last):
                if table[slot, w] != keys[row, w]:
                    same = False
                    break
            if same:
                return slot
        slot += 1
        if slot == table.shape[0]:
            slot = 0


@nb.njit(cache=True)
def _put(table, slot, keys, row, depth):
    """Store row `row` of `keys` at `depth` in an empty slot."""
    last = table.shape[1] - 1
    for w in range(last):
        table[slot, w] = keys[row, w]
    table[slot, last] = keys[row, last] | (np.uint64(depth + 1) << _DEPTH_SHIFT)


@nb.njit(cache=True)
def _grown(table):
    """The table half as large again, every state re-inserted."""
    bigger = np.zeros((table.shape[0] + table.shape[0] // 2, table.shape[1]), dtype=np.uint64)
    last = table.shape[1] - 1
    key = np.empty((1, table.shape[1]), dtype=np.uint64)
    for slot in range(table.shape[0]):
        if table[slot, last] != 0:
            copy_row(key, 0, table, slot)
            key[0, last] &= _KEY_BITS
            _put(bigger, _slot_of(bigger, key, 0, hash_row(key, 0)), key, 0, _depth_at(table, slot))
    return bigger


@nb.njit(cache=True)
def _trace_back(spec, work, table, goal, goal_depth, out_keys, out_moves):
    """The moves from the start to `goal` (a 1-row array) at `goal_depth`."""
    moves = np.empty(goal_depth, dtype=np.int64)
    current = goal.copy()
    parent = goal.copy()
    for d in range(goal_depth - 1, -1, -1):
        count = expand(spec, work, current[0], out_keys, out_moves)
        for j in range(count):
            if _depth_at(table, _slot_of(table, out_keys, j, hash_row(out_keys, j))) == d:
                copy_row(parent, 0, out_keys, j)
                break
        count = expand(spec, work, parent[0], out_keys, out_moves)
        for m in range(count):
            if same_rows(out_keys, m, current, 0):
                moves[d] = out_moves[m]
        current, parent = parent, current
    return moves


@nb.njit(cache=True)
def bfs(spec, start, max_branching, exhaustive, max_nodes, deadline):
    """Compiled BFS; returns (status, moves, expanded, generated, max frontier, stored, depth counts, table bytes)."""
    key_words = start.shape[0]
    work = workspace(spec)
    layer = start.reshape(1, -1).copy()
    table = np.zeros((_FIRST_CAPACITY, key_words), dtype=np.uint64)
    _put(table, _slot_of(table, layer, 0, hash_row(layer, 0)), layer, 0, 0)
    stored = 1
    batch_keys = np.empty((_BATCH * max_branching, key_words), dtype=np.uint64)
    batch_hashes = np.empty(_BATCH * max_branching, dtype=np.uint64)
    out_keys = np.empty((max_branching, key_words), dtype=np.uint64)
    out_moves = np.empty(max_branching, dtype=np.int64)
    depth_counts = [1]
    expanded = generated = max_frontier = 0
    goal = layer.copy()
    goal_depth = 0 if is_goal(spec, start) else -1
    while layer.shape[0] > 0 and (exhaustive or goal_depth < 0):
        max_frontier = max(max_frontier, layer.shape[0])
        next_depth = len(depth_counts)
        following = np.empty((max(16, 2 * layer.shape[0]), key_words), dtype=np.uint64)
        found = 0
        for first in range(0, layer.shape[0], _BATCH):
            stop = limits.reached(expanded, max_nodes, deadline)
            if stop:
                return stop, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts, table.nbytes
            batch = 0
            for i in range(first, min(first + _BATCH, layer.shape[0], first + max_nodes - expanded)):
                count = expand(spec, work, layer[i], out_keys, out_moves)
                for j in range(count):
                    h = hash_row(out_keys, j)
                    copy_row(batch_keys, batch, out_keys, j)
                    batch_hashes[batch] = h
                    prefetch(table, _home(h, table.shape[0]))
                    batch += 1
                expanded += 1
            generated += batch
            while 4 * (stored + batch) > 3 * table.shape[0]:
                try:
                    table = _grown(table)
                except Exception:  # the allocation failed: a memory cap (RLIMIT_AS) was reached
                    return limits.MEMORY_LIMIT, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts, table.nbytes
            for b in range(batch):
                slot = _slot_of(table, batch_keys, b, batch_hashes[b])
                if table[slot, key_words - 1] != 0:
                    continue
                _put(table, slot, batch_keys, b, next_depth)
                stored += 1
                if found == following.shape[0]:
                    following = np.concatenate((following, np.empty_like(following)))
                copy_row(following, found, batch_keys, b)
                found += 1
                if goal_depth < 0 and is_goal(spec, following[found - 1]):
                    copy_row(goal, 0, batch_keys, b)
                    goal_depth = next_depth
            if goal_depth >= 0 and not exhaustive:
                break
        layer = following[:found]
        if found > 0:
            depth_counts.append(found)
    table_bytes = table.nbytes
    if goal_depth < 0:
        return limits.UNSOLVABLE, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts, table_bytes
    moves = _trace_back(spec, work, table, goal, goal_depth, out_keys, out_moves)
    return limits.SOLVED, moves, expanded, generated, max_frontier, stored, depth_counts, table_bytes


def search(problem: Problem, limits_: Limits, *, exhaustive: bool = False) -> SearchReport:
    """Breadth-first search; optimal in moves. `exhaustive` runs on until every reachable state is seen."""
    kernels = problem.kernels
    max_nodes, deadline = limits.budget(limits_)
    code, moves, expanded, generated, max_frontier, stored, depth_counts, table_bytes = bfs(
        kernels.spec, problem.start_key(), kernels.max_branching, exhaustive, max_nodes, deadline
    )
    outcome, reason = limits.outcome_of(code, limits_)
    extra = {
        "table_bytes": int(table_bytes),
        "bytes_per_state": round(table_bytes / stored, 1),
        "depth_reached": len(depth_counts) - 1,
        "depth_counts": [int(c) for c in depth_counts],
    }
    if exhaustive and reason is None:
        extra["reachable"] = int(stored)
    return SearchReport(outcome=outcome, path=[int(m) for m in moves], expanded=expanded, generated=generated,
                        max_frontier=max_frontier, stored=stored, reason=reason, extra=extra)
