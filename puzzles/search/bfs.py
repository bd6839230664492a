"""Breadth-first search layer by layer over a set of state keys (`puzzles.stateset`).

Each state's key is stored inline, tagged with its depth modulo 3. Successors
are handled in batches: all their slots are prefetched first and probed after,
so the cache misses of one batch overlap instead of queueing. The solution is
traced back from the goal by looking up, depth by depth, a neighbour one move
closer to the start (the tag tells a neighbour one layer closer from the others).
"""

import numpy as np

from puzzles import stateset, stops
from puzzles.jit import nb
from puzzles.kernels import expand, is_goal, is_goal_row, workspace
from puzzles.nodestore import copy_row, hash_row, same_rows
from puzzles.problem import Problem
from puzzles.result import Limits, SearchReport

_FIRST_CAPACITY = 1 << 16  # a small board's whole search fits: growing by half from 256 cost the 40 puzzles 30 %


@nb.njit(cache=True)
def _trace_back(spec, work, table, goal, goal_depth, out_keys, out_moves):
    """The moves from the start to `goal` (a 1-row array) at `goal_depth`."""
    moves = np.empty(goal_depth, dtype=np.int64)
    current = goal.copy()
    parent = goal.copy()
    for d in range(goal_depth - 1, -1, -1):
        count = expand(spec, work, current[0], out_keys, out_moves)
        for j in range(count):
            slot = stateset.slot_of(table, out_keys, j, hash_row(out_keys, j))
            if stateset.tag_at(table, slot) == stateset.depth_tag(d):
                copy_row(parent, 0, out_keys, j)
                break
        count = expand(spec, work, parent[0], out_keys, out_moves)
        for m in range(count):
            if same_rows(out_keys, m, current, 0):
                moves[d] = out_moves[m]
        current, parent = parent, current
    return moves


@nb.njit(cache=True)
def _keys_array(rows, key_words):
    """(an empty array of `rows` keys, True), or (an empty one, False) if the allocation fails (a memory cap)."""
    try:
        return np.empty((rows, key_words), dtype=np.uint64), True
    except Exception:  # noqa: BLE001 - numba catches no narrower class than Exception (here a MemoryError)
        return np.empty((0, key_words), dtype=np.uint64), False


@nb.njit(cache=True, _nrt=False)
def _expand_batch(spec, work, layer, first, last, out_moves, table, batch_keys, batch_hashes):
    """The successors of `layer[first:last]` into `batch_keys`, hashed, their home slots prefetched; how many."""
    batch = 0
    for i in range(first, last):
        count = expand(spec, work, layer[i], batch_keys[batch:], out_moves)  # room for max_branching: BATCH rows each
        for j in range(batch, batch + count):
            batch_hashes[j] = hash_row(batch_keys, j)
            stateset.prefetch_home(table, batch_hashes[j])
        batch += count
    return batch


@nb.njit(cache=True, _nrt=False)
def _store_batch(spec, table, batch_keys, batch_hashes, batch, tag, following, found, look_for_goal):
    """Store the batch's new states with `tag` and append them to `following` after its first `found` rows.

    Returns (how many were new, the row of `following` holding the first goal among them or -1); `following`
    and the table must have room for the whole batch.
    """
    fresh = 0
    goal_row = -1
    last = table.shape[1] - 1
    for b in range(batch):
        slot = stateset.slot_of(table, batch_keys, b, batch_hashes[b])
        if table[slot, last] != 0:
            continue
        stateset.put(table, slot, batch_keys, b, tag)
        copy_row(following, found + fresh, batch_keys, b)
        if look_for_goal and goal_row < 0 and is_goal_row(spec, batch_keys, b):
            goal_row = found + fresh
        fresh += 1
    return fresh, goal_row


@nb.njit(cache=True)
def bfs(spec, start, max_branching, exhaustive, max_nodes, deadline):
    """Compiled BFS; returns (status, moves, expanded, generated, max frontier, stored, depth counts, table bytes)."""
    key_words = start.shape[0]
    work = workspace(spec)
    layer = start.reshape(1, -1).copy()
    table = stateset.new_table(_FIRST_CAPACITY, key_words)
    stateset.put(table, stateset.slot_of(table, layer, 0, hash_row(layer, 0)), layer, 0, stateset.depth_tag(0))
    stored = 1
    batch_keys = np.empty((stateset.BATCH * max_branching, key_words), dtype=np.uint64)
    batch_hashes = np.empty(stateset.BATCH * max_branching, dtype=np.uint64)
    out_keys = np.empty((max_branching, key_words), dtype=np.uint64)
    out_moves = np.empty(max_branching, dtype=np.int64)
    depth_counts = [1]
    expanded = generated = max_frontier = 0
    goal = layer.copy()
    goal_depth = 0 if is_goal(spec, start) else -1
    while layer.shape[0] > 0 and (exhaustive or goal_depth < 0):
        max_frontier = max(max_frontier, layer.shape[0])
        next_depth = len(depth_counts)
        following, room = _keys_array(max(16, 2 * layer.shape[0]), key_words)
        if not room:
            return stops.MEMORY_LIMIT, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts, table.nbytes
        found = 0
        for first in range(0, layer.shape[0], stateset.BATCH):
            stop = stops.reached(expanded, max_nodes, deadline)
            if stop:
                return stop, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts, table.nbytes
            last = min(first + stateset.BATCH, layer.shape[0], first + max_nodes - expanded)
            batch = _expand_batch(spec, work, layer, first, last, out_moves, table, batch_keys, batch_hashes)
            expanded += last - first
            generated += batch
            if stateset.full(table, stored + batch):
                table, grown = stateset.room_for(table, stored, batch)
                if not grown:
                    return stops.MEMORY_LIMIT, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts, table.nbytes
            if found + batch > following.shape[0]:
                larger, room = _keys_array(2 * (found + batch), key_words)
                if not room:
                    return stops.MEMORY_LIMIT, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts, table.nbytes
                larger[:found] = following[:found]
                following = larger
            fresh, goal_row = _store_batch(spec, table, batch_keys, batch_hashes, batch, stateset.depth_tag(next_depth),
                                           following, found, goal_depth < 0)
            stored += fresh
            found += fresh
            if goal_row >= 0:
                copy_row(goal, 0, following, goal_row)
                goal_depth = next_depth
            if goal_depth >= 0 and not exhaustive:
                break
        layer = following[:found]
        if found > 0:
            depth_counts.append(found)
    table_bytes = table.nbytes
    if goal_depth < 0:
        return stops.UNSOLVABLE, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts, table_bytes
    moves = _trace_back(spec, work, table, goal, goal_depth, out_keys, out_moves)
    return stops.SOLVED, moves, expanded, generated, max_frontier, stored, depth_counts, table_bytes


def search(problem: Problem, limits: Limits, *, exhaustive: bool = False) -> SearchReport:
    """Breadth-first search; optimal in moves. `exhaustive` runs on until every reachable state is seen."""
    kernels = problem.kernels
    max_nodes, deadline = stops.budget(limits)
    code, moves, expanded, generated, max_frontier, stored, depth_counts, table_bytes = bfs(
        kernels.spec, problem.start_key(), kernels.max_branching, exhaustive, max_nodes, deadline
    )
    outcome, reason = stops.outcome_of(code, limits)
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
