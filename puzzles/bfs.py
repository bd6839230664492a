"""Breadth-first search layer by layer over an open-addressing table of states.

The table holds each state's key inline (flat, `key_words` words a slot) and
its depth, and stays at most 3/4 full. Successors are handled in batches: all
their slots are prefetched first and probed after, so the cache misses of one
batch overlap instead of queueing. A state costs `8 * key_words + 2` bytes of
table divided by the load. The solution is traced back from the goal by
looking up, depth by depth, a neighbour one move closer to the start.
"""

import numba as nb
import numpy as np

from puzzles import limits
from puzzles.intrinsics import prefetch
from puzzles.kernels import expand, is_goal
from puzzles.nodestore import hash_key
from puzzles.problem import Problem
from puzzles.result import Limits, Outcome

_EMPTY = np.uint16(0xFFFF)
_BATCH = 32  # parents expanded before their successors are probed
_FIRST_CAPACITY = 1 << 12


@nb.njit(inline="always", cache=True)
def _put(target, offset, key):
    """Copy `key` into the 1-D `target` from `offset` on."""
    for w in range(key.shape[0]):
        target[offset + w] = key[w]


@nb.njit(inline="always", cache=True)
def _slot_of(keys, depth, key, h, key_words):
    """The slot holding `key`, or the empty slot where it belongs."""
    mask = depth.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    while depth[slot] != _EMPTY:
        base = slot * key_words
        same = True
        for w in range(key_words):
            if keys[base + w] != key[w]:
                same = False
                break
        if same:
            return slot
        slot = (slot + 1) & mask
    return slot


@nb.njit(cache=True)
def _grown(keys, depth, key_words):
    """The table at twice the size, every state re-inserted."""
    bigger_keys = np.empty(2 * keys.shape[0], dtype=np.uint64)
    bigger_depth = np.full(2 * depth.shape[0], _EMPTY, dtype=np.uint16)
    for slot in range(depth.shape[0]):
        if depth[slot] != _EMPTY:
            key = keys[slot * key_words : (slot + 1) * key_words]
            target = _slot_of(bigger_keys, bigger_depth, key, hash_key(key), key_words)
            _put(bigger_keys, target * key_words, key)
            bigger_depth[target] = depth[slot]
    return bigger_keys, bigger_depth


@nb.njit(cache=True)
def _depth_of(keys, depth, key):
    """The depth of a state in the table, or -1."""
    slot = _slot_of(keys, depth, key, hash_key(key), key.shape[0])
    return -1 if depth[slot] == _EMPTY else np.int64(depth[slot])


@nb.njit(cache=True)
def _trace_back(spec, keys, depth, goal, goal_depth, out_keys, out_moves):
    """The moves from the start to `goal` at `goal_depth`."""
    moves = np.empty(goal_depth, dtype=np.int64)
    current = goal.copy()
    for d in range(goal_depth - 1, -1, -1):
        count = expand(spec, current, out_keys, out_moves)
        for j in range(count):
            if _depth_of(keys, depth, out_keys[j]) == d:
                parent = out_keys[j].copy()
                count = expand(spec, parent, out_keys, out_moves)
                for m in range(count):
                    if np.all(out_keys[m] == current):
                        moves[d] = out_moves[m]
                current = parent
                break
    return moves


@nb.njit(cache=True)
def bfs(spec, start, max_branching, exhaustive, max_nodes, deadline):
    """Compiled BFS; returns (status, moves, expanded, generated, max frontier, stored, depth counts, table bytes)."""
    key_words = start.shape[0]
    keys = np.empty(_FIRST_CAPACITY * key_words, dtype=np.uint64)
    depth = np.full(_FIRST_CAPACITY, _EMPTY, dtype=np.uint16)
    slot = _slot_of(keys, depth, start, hash_key(start), key_words)
    _put(keys, slot * key_words, start)
    depth[slot] = 0
    stored = 1
    batch_keys = np.empty((_BATCH * max_branching, key_words), dtype=np.uint64)
    batch_hashes = np.empty(_BATCH * max_branching, dtype=np.uint64)
    out_keys = np.empty((max_branching, key_words), dtype=np.uint64)
    out_moves = np.empty(max_branching, dtype=np.int64)
    layer = start.reshape(1, -1).copy()
    depth_counts = [1]
    expanded = generated = max_frontier = 0
    goal = start.copy()
    goal_depth = 0 if is_goal(spec, start) else -1
    while layer.shape[0] > 0 and (exhaustive or goal_depth < 0):
        max_frontier = max(max_frontier, layer.shape[0])
        next_depth = np.uint16(len(depth_counts))
        following = np.empty((max(16, 2 * layer.shape[0]), key_words), dtype=np.uint64)
        found = 0
        for first in range(0, layer.shape[0], _BATCH):
            stop = limits.reached(expanded, max_nodes, deadline)
            if stop:
                return stop, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts, keys.nbytes + depth.nbytes
            batch = 0
            for i in range(first, min(first + _BATCH, layer.shape[0])):
                count = expand(spec, layer[i], out_keys, out_moves)
                for j in range(count):
                    h = hash_key(out_keys[j])
                    _put(batch_keys[batch], 0, out_keys[j])
                    batch_hashes[batch] = h
                    prefetch(depth, np.int64(h & np.uint64(depth.shape[0] - 1)))
                    batch += 1
                expanded += 1
            generated += batch
            while 4 * (stored + batch) > 3 * depth.shape[0]:
                keys, depth = _grown(keys, depth, key_words)
            for b in range(batch):
                key = batch_keys[b]
                slot = _slot_of(keys, depth, key, batch_hashes[b], key_words)
                if depth[slot] != _EMPTY:
                    continue
                _put(keys, slot * key_words, key)
                depth[slot] = next_depth
                stored += 1
                if found == following.shape[0]:
                    following = np.concatenate((following, np.empty_like(following)))
                _put(following[found], 0, key)
                found += 1
                if goal_depth < 0 and is_goal(spec, key):
                    goal = key.copy()
                    goal_depth = np.int64(next_depth)
            if goal_depth >= 0 and not exhaustive:
                break
        layer = following[:found]
        if found > 0:
            depth_counts.append(found)
    table_bytes = keys.nbytes + depth.nbytes
    if goal_depth < 0:
        return limits.UNSOLVABLE, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts, table_bytes
    moves = _trace_back(spec, keys, depth, goal, goal_depth, out_keys, out_moves)
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
