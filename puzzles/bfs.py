"""Breadth-first search layer by layer over an open-addressing table of states.

The table holds each state's key inline (`key_words` words a slot) and its
depth, and stays at most 3/4 full. Successors are handled in batches: all their
slots are prefetched first and probed after, so the cache misses of one batch
overlap instead of queueing. A state costs `8 * key_words + 2` bytes of table
divided by the load. The solution is traced back from the goal by looking up,
depth by depth, a neighbour one move closer to the start.
"""

import numba as nb
import numpy as np

from puzzles import limits
from puzzles.intrinsics import prefetch
from puzzles.kernels import expand, is_goal
from puzzles.nodestore import hash_row, same_rows
from puzzles.problem import Problem
from puzzles.result import Limits, Outcome

_EMPTY = np.uint16(0xFFFF)
_BATCH = 16  # parents expanded before their successors are probed
_FIRST_CAPACITY = 1 << 12


@nb.njit(cache=True)
def _slot_of(table, depth, keys, row, h):
    """The slot holding row `row` of `keys`, or the empty slot where it belongs."""
    mask = depth.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    while depth[slot] != _EMPTY and not same_rows(table, slot, keys, row):
        slot = (slot + 1) & mask
    return slot


@nb.njit(cache=True)
def _copy_row(target, i, source, j):
    for w in range(source.shape[1]):
        target[i, w] = source[j, w]


@nb.njit(cache=True)
def _grown(table, depth):
    """The table at twice the size, every state re-inserted."""
    bigger = np.empty((2 * table.shape[0], table.shape[1]), dtype=np.uint64)
    bigger_depth = np.full(2 * depth.shape[0], _EMPTY, dtype=np.uint16)
    for slot in range(depth.shape[0]):
        if depth[slot] != _EMPTY:
            target = _slot_of(bigger, bigger_depth, table, slot, hash_row(table, slot))
            _copy_row(bigger, target, table, slot)
            bigger_depth[target] = depth[slot]
    return bigger, bigger_depth


@nb.njit(cache=True)
def _trace_back(spec, table, depth, goal, goal_depth, out_keys, out_moves):
    """The moves from the start to `goal` (a 1-row array) at `goal_depth`."""
    moves = np.empty(goal_depth, dtype=np.int64)
    current = goal.copy()
    parent = goal.copy()
    for d in range(goal_depth - 1, -1, -1):
        count = expand(spec, current[0], out_keys, out_moves)
        for j in range(count):
            slot = _slot_of(table, depth, out_keys, j, hash_row(out_keys, j))
            if depth[slot] == d:
                _copy_row(parent, 0, out_keys, j)
                break
        count = expand(spec, parent[0], out_keys, out_moves)
        for m in range(count):
            if same_rows(out_keys, m, current, 0):
                moves[d] = out_moves[m]
        current, parent = parent, current
    return moves


@nb.njit(cache=True)
def bfs(spec, start, max_branching, exhaustive, max_nodes, deadline):
    """Compiled BFS; returns (status, moves, expanded, generated, max frontier, stored, depth counts, table bytes)."""
    key_words = start.shape[0]
    layer = start.reshape(1, -1).copy()
    table = np.empty((_FIRST_CAPACITY, key_words), dtype=np.uint64)
    depth = np.full(_FIRST_CAPACITY, _EMPTY, dtype=np.uint16)
    slot = _slot_of(table, depth, layer, 0, hash_row(layer, 0))
    _copy_row(table, slot, layer, 0)
    depth[slot] = 0
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
        next_depth = np.uint16(len(depth_counts))
        following = np.empty((max(16, 2 * layer.shape[0]), key_words), dtype=np.uint64)
        found = 0
        for first in range(0, layer.shape[0], _BATCH):
            stop = limits.reached(expanded, max_nodes, deadline)
            if stop:
                return stop, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts, table.nbytes + depth.nbytes
            batch = 0
            for i in range(first, min(first + _BATCH, layer.shape[0], first + max_nodes - expanded)):
                count = expand(spec, layer[i], out_keys, out_moves)
                for j in range(count):
                    h = hash_row(out_keys, j)
                    _copy_row(batch_keys, batch, out_keys, j)
                    batch_hashes[batch] = h
                    slot = np.int64(h & np.uint64(depth.shape[0] - 1))
                    prefetch(depth, slot)
                    prefetch(table, slot)
                    batch += 1
                expanded += 1
            generated += batch
            while 4 * (stored + batch) > 3 * depth.shape[0]:
                try:
                    table, depth = _grown(table, depth)
                except Exception:  # the allocation failed: a memory cap (RLIMIT_AS) was reached
                    return limits.MEMORY_LIMIT, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts, table.nbytes + depth.nbytes
            for b in range(batch):
                slot = _slot_of(table, depth, batch_keys, b, batch_hashes[b])
                if depth[slot] != _EMPTY:
                    continue
                _copy_row(table, slot, batch_keys, b)
                depth[slot] = next_depth
                stored += 1
                if found == following.shape[0]:
                    following = np.concatenate((following, np.empty_like(following)))
                _copy_row(following, found, batch_keys, b)
                found += 1
                if goal_depth < 0 and is_goal(spec, following[found - 1]):
                    _copy_row(goal, 0, batch_keys, b)
                    goal_depth = np.int64(next_depth)
            if goal_depth >= 0 and not exhaustive:
                break
        layer = following[:found]
        if found > 0:
            depth_counts.append(found)
    table_bytes = table.nbytes + depth.nbytes
    if goal_depth < 0:
        return limits.UNSOLVABLE, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts, table_bytes
    moves = _trace_back(spec, table, depth, goal, goal_depth, out_keys, out_moves)
    return limits.SOLVED, moves, expanded, generated, max_frontier, stored, depth_counts, table_bytes


def search(problem: Problem, limits_: Limits, *, exhaustive: bool = False) -> Outcome:
    """Breadth-first search; optimal in moves. `exhaustive` runs on until every reachable state is seen."""
    kernels = problem.kernels
    max_nodes, deadline = limits.budget(limits_)
    code, moves, expanded, generated, max_frontier, stored, depth_counts, table_bytes = bfs(
        kernels.spec, problem.start_key(), kernels.max_branching, exhaustive, max_nodes, deadline
    )
    status, reason = limits.outcome_status(code, limits_)
    extra = {
        "table_bytes": int(table_bytes),
        "bytes_per_state": round(table_bytes / stored, 1),
        "depth_reached": len(depth_counts) - 1,
        "depth_counts": [int(c) for c in depth_counts],
    }
    if exhaustive and reason is None:
        extra["reachable"] = int(stored)
    return Outcome(status, [int(m) for m in moves], expanded, generated, max_frontier, stored, reason, extra)
