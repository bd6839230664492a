"""Breadth-first search by layers, with delayed duplicate detection.

Moves in these domains can be undone, so the next layer is the successors of
this one minus this layer and the one before it: no table of every state seen.
Successors are gathered in a buffer, sorted by a 64-bit hash of their key, and
deduplicated against the two layers, all by sequential passes over sorted
arrays instead of one random memory access per successor. Each finished layer
keeps only its keys (8 bytes per key word per state), sorted by hash; the
solution is traced back from the goal by looking up, layer by layer, a
predecessor one move closer to the start.
"""

import numba as nb
import numpy as np
from numba.typed import List

from puzzles import limits
from puzzles.kernels import expand, is_goal
from puzzles.nodestore import hash_key
from puzzles.problem import Problem
from puzzles.result import Limits, Outcome

_FIRST_BUFFER = 1 << 14
_LARGEST_BUFFER = 1 << 22


@nb.njit(cache=True)
def _hashes(keys):
    hashes = np.empty(keys.shape[0], dtype=np.uint64)
    for i in range(keys.shape[0]):
        hashes[i] = hash_key(keys[i])
    return hashes


@nb.njit(cache=True)
def _equal_rows(a, i, b, j):
    for w in range(a.shape[1]):
        if a[i, w] != b[j, w]:
            return False
    return True


@nb.njit(cache=True)
def _position(keys, hashes, key, h):
    """The row of `key` in a layer sorted by hash, or -1."""
    row = np.searchsorted(hashes, h)
    while row < hashes.shape[0] and hashes[row] == h:
        if _equal_rows(keys, row, key.reshape(1, -1), 0):
            return row
        row += 1
    return -1


@nb.njit(cache=True)
def _sorted_unique(keys, hashes, count):
    """The first `count` rows sorted by hash with duplicate keys dropped: (keys, hashes)."""
    order = np.argsort(hashes[:count])
    out_keys = np.empty((count, keys.shape[1]), dtype=np.uint64)
    out_hashes = np.empty(count, dtype=np.uint64)
    kept = 0
    run_start = 0
    for i in range(count):
        row = order[i]
        h = hashes[row]
        if kept == 0 or out_hashes[kept - 1] != h:
            run_start = kept
        duplicate = False
        for other in range(run_start, kept):
            if _equal_rows(out_keys, other, keys, row):
                duplicate = True
                break
        if not duplicate:
            out_keys[kept] = keys[row]
            out_hashes[kept] = h
            kept += 1
    return out_keys[:kept], out_hashes[:kept]


@nb.njit(cache=True)
def _new_states(keys, hashes, count, layer, layer_hashes, previous, previous_hashes):
    """The distinct buffered successors in neither layer, sorted by hash."""
    keys, hashes = _sorted_unique(keys, hashes, count)
    keep = np.ones(keys.shape[0], dtype=np.bool_)
    for i in range(keys.shape[0]):
        if _position(layer, layer_hashes, keys[i], hashes[i]) >= 0:
            keep[i] = False
        elif _position(previous, previous_hashes, keys[i], hashes[i]) >= 0:
            keep[i] = False
    return keys[keep], hashes[keep]


@nb.njit(cache=True)
def _merged(chunks, chunk_hashes, key_words):
    """One layer out of the chunks found while expanding the last one."""
    total = 0
    for chunk in chunks:
        total += chunk.shape[0]
    keys = np.empty((total, key_words), dtype=np.uint64)
    hashes = np.empty(total, dtype=np.uint64)
    at = 0
    for c in range(len(chunks)):
        size = chunks[c].shape[0]
        keys[at : at + size] = chunks[c]
        hashes[at : at + size] = chunk_hashes[c]
        at += size
    if len(chunks) == 1:
        return keys, hashes
    return _sorted_unique(keys, hashes, total)


@nb.njit(cache=True)
def _move_between(spec, parent, child, out_keys, out_moves):
    count = expand(spec, parent, out_keys, out_moves)
    for j in range(count):
        if _equal_rows(out_keys, j, child.reshape(1, -1), 0):
            return out_moves[j]
    return -1


@nb.njit(cache=True)
def _trace_back(spec, layers, goal, out_keys, out_moves):
    """The moves from the start to `goal`, which lies one layer past the last one."""
    depth = len(layers)
    moves = np.empty(depth, dtype=np.int64)
    current = goal.copy()
    for d in range(depth - 1, -1, -1):
        layer = layers[d]
        hashes = _hashes(layer)
        order = np.argsort(hashes)  # layers are stored sorted, so this is the identity
        count = expand(spec, current, out_keys, out_moves)
        for j in range(count):
            row = _position(layer, hashes[order], out_keys[j], hash_key(out_keys[j]))
            if row >= 0:
                parent = layer[row].copy()
                moves[d] = _move_between(spec, parent, current, out_keys, out_moves)
                current = parent
                break
    return moves


@nb.njit(cache=True)
def bfs(spec, start, max_branching, exhaustive, max_nodes, deadline):
    """Compiled BFS; returns (status, moves, expanded, generated, max frontier, stored, depth counts)."""
    key_words = start.shape[0]
    out_keys = np.empty((max_branching, key_words), dtype=np.uint64)
    out_moves = np.empty(max_branching, dtype=np.int64)
    layer = start.reshape(1, -1).copy()
    layer_hashes = _hashes(layer)
    previous = np.empty((0, key_words), dtype=np.uint64)
    previous_hashes = np.empty(0, dtype=np.uint64)
    layers = List()
    depth_counts = List()
    depth_counts.append(1)
    capacity = _FIRST_BUFFER
    buffer = np.empty((capacity + max_branching, key_words), dtype=np.uint64)
    buffer_hashes = np.empty(capacity + max_branching, dtype=np.uint64)
    expanded = generated = max_frontier = stored = 0
    goal = np.empty(0, dtype=np.uint64)
    goal_depth = 0 if is_goal(spec, start) else -1
    if goal_depth == 0:
        goal = start.copy()
        if not exhaustive:
            return limits.SOLVED, np.empty(0, np.int64), 0, 0, 1, 1, depth_counts
    while layer.shape[0] > 0:
        max_frontier = max(max_frontier, layer.shape[0])
        chunks = List()
        chunk_hashes = List()
        fill = 0
        for i in range(layer.shape[0]):
            stop = limits.exceeded(expanded, max_nodes, deadline)
            if stop:
                return stop, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts
            expanded += 1
            count = expand(spec, layer[i], out_keys, out_moves)
            generated += count
            for j in range(count):
                if goal_depth < 0 and is_goal(spec, out_keys[j]):
                    goal = out_keys[j].copy()
                    goal_depth = len(layers) + 1
                    if not exhaustive:
                        layers.append(layer)
                        moves = _trace_back(spec, layers, goal, out_keys, out_moves)
                        return limits.SOLVED, moves, expanded, generated, max_frontier, stored + i + 1, depth_counts
                buffer[fill] = out_keys[j]
                buffer_hashes[fill] = hash_key(out_keys[j])
                fill += 1
            if fill >= capacity or i == layer.shape[0] - 1:
                new, new_hashes = _new_states(buffer, buffer_hashes, fill, layer, layer_hashes, previous, previous_hashes)
                chunks.append(new)
                chunk_hashes.append(new_hashes)
                fill = 0
                if capacity < _LARGEST_BUFFER and i < layer.shape[0] - 1:
                    capacity *= 2
                    buffer = np.empty((capacity + max_branching, key_words), dtype=np.uint64)
                    buffer_hashes = np.empty(capacity + max_branching, dtype=np.uint64)
        layers.append(layer)
        stored += layer.shape[0]
        previous, previous_hashes = layer, layer_hashes
        layer, layer_hashes = _merged(chunks, chunk_hashes, key_words)
        if layer.shape[0] > 0:
            depth_counts.append(layer.shape[0])
    if goal_depth < 0:
        return limits.UNSOLVABLE, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth_counts
    moves = _trace_back(spec, layers[:goal_depth], goal, out_keys, out_moves) if goal_depth > 0 else np.empty(0, np.int64)
    return limits.SOLVED, moves, expanded, generated, max_frontier, stored, depth_counts


def search(problem: Problem, limits_: Limits, *, exhaustive: bool = False) -> Outcome:
    """Breadth-first search; optimal in moves. `exhaustive` runs on until every reachable state is seen."""
    kernels = problem.kernels
    max_nodes, deadline = limits.budget(limits_)
    code, moves, expanded, generated, max_frontier, stored, depth_counts = bfs(
        kernels.spec, problem.start_key(), kernels.max_branching, exhaustive, max_nodes, deadline
    )
    status, reason = limits.outcome_status(code, limits_)
    extra = {"bytes_per_state": 8 * kernels.key_words}
    if exhaustive and reason is None:
        extra |= {"reachable": int(sum(depth_counts)), "depth_counts": [int(c) for c in depth_counts]}
    return Outcome(status, [int(m) for m in moves], expanded, generated, max_frontier, stored, reason, extra)
