"""Beam search: breadth-first by layers, keeping only the k most promising boards of each layer.

Every child of the beam is generated and tested for the goal; children seen
before (in any beam or among any layer's children) are dropped, so the search
never returns to a board; the k children with the lowest heuristic, ties to
the earlier generated, make the next beam, in that order. Memory-light and
fast, not optimal, and incomplete: when no new child remains the beam empties
and the search fails. Every generated board goes in a set of keys
(`puzzles.stateset`); only the boards kept in a beam are remembered with their
parent and move, which give the solution.
"""

import numpy as np

from puzzles import stateset, stops
from puzzles.jit import nb
from puzzles.kernels import child_heuristics, expand, is_goal, is_goal_row, workspace
from puzzles.nodestore import copy_row, hash_row, resized
from puzzles.problem import Heuristic, Problem
from puzzles.result import Limits, SearchReport

_FIRST_CAPACITY = 1 << 12
_INSERTED_UP_TO = 64  # widths up to this keep the best children sorted as they come; wider ones sort the layer


@nb.njit(cache=True)
def _path(parents, moves, entry, last_move):
    """The moves from the root along the kept boards' parents to `entry`, then `last_move`."""
    depth = 1
    walk = entry
    while parents[walk] >= 0:
        depth += 1
        walk = parents[walk]
    path = np.empty(depth, dtype=np.int64)
    path[depth - 1] = last_move
    walk = entry
    for i in range(depth - 2, -1, -1):
        path[i] = moves[walk]
        walk = parents[walk]
    return path


@nb.njit(cache=True)
def _first_goal(spec, keys, rows, n):
    """The first t < n such that row `rows[t]` of `keys` is a goal, or -1."""
    for t in range(n):
        if is_goal_row(spec, keys, rows[t]):
            return t
    return -1


@nb.njit(cache=True, _nrt=False)
def _insert(best, size, k, scores, child):
    """Put `child` among the `size` best (sorted by score, then by order of generation); returns the new size."""
    score = scores[child]
    if size == k and score >= scores[best[size - 1]]:
        return size
    at = size if size < k else k - 1
    while at > 0 and scores[best[at - 1]] > score:
        best[at] = best[at - 1]
        at -= 1
    best[at] = child
    return min(size + 1, k)


@nb.njit(cache=True)
def beam(spec, start, code, args, max_branching, k, max_nodes, deadline):
    """Compiled beam search; returns (status, moves, expanded, generated, max frontier, stored, depth, table bytes)."""
    key_words = start.shape[0]
    work = workspace(spec)
    root = start.reshape(1, -1).copy()
    table = stateset.new_table(_FIRST_CAPACITY, key_words)
    stateset.put(table, stateset.slot_of(table, root, 0, hash_row(root, 0)), root, 0, 1)
    stored = 1
    parents = np.full(1, -1, dtype=np.int64)  # of each board kept in a beam: its parent's entry and its move
    moves = np.zeros(1, dtype=np.int64)
    kept = 1
    beam_keys = np.empty((1, key_words), dtype=np.uint64)  # the boards of the beam, entries first .. first + width - 1
    copy_row(beam_keys, 0, root, 0)
    first, width = 0, 1
    out_keys = np.empty((max_branching, key_words), dtype=np.uint64)
    out_moves = np.empty(max_branching, dtype=np.int64)
    hashes = np.empty(max_branching, dtype=np.uint64)
    rows = np.empty(max_branching, dtype=np.int64)
    child_h = np.empty(max_branching, dtype=np.int64)
    parent = np.empty(key_words, dtype=np.uint64)
    capacity = min(k, 64) * max_branching
    layer_keys = np.empty((capacity, key_words), dtype=np.uint64)
    layer_parents, layer_moves, scores = np.empty(capacity, np.int64), np.empty(capacity, np.int64), np.empty(capacity, np.int64)
    best = np.empty(min(k, _INSERTED_UP_TO), dtype=np.int64)
    expanded = generated = max_frontier = depth = 0
    if is_goal(spec, start):
        return stops.SOLVED, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth, table.nbytes
    while width > 0:
        found = used = size = 0
        for b in range(width):
            stop = stops.exceeded(expanded, max_nodes, deadline)
            if stop:
                return stop, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth, table.nbytes
            expanded += 1
            for w in range(key_words):
                parent[w] = beam_keys[b, w]
            count = expand(spec, work, parent, out_keys, out_moves)
            generated += count
            if stateset.full(table, stored + count):  # checked here: a call to room_for counts references
                table, room = stateset.room_for(table, stored, count)
                if not room:
                    return stops.MEMORY_LIMIT, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth, table.nbytes
            for j in range(count):
                hashes[j] = hash_row(out_keys, j)
                stateset.prefetch_home(table, hashes[j])
            fresh = stateset.add_new(table, out_keys, hashes, count, 1, rows)
            goal = _first_goal(spec, out_keys, rows, fresh)
            if goal >= 0:  # counted as if the children after it had not been looked at
                path = _path(parents, moves, first + b, out_moves[rows[goal]])
                return stops.SOLVED, path, expanded, generated, max_frontier, stored + goal + 1, depth + 1, table.nbytes
            stored += fresh
            child_heuristics(spec, work, code, args, parent, out_keys, out_moves, rows, fresh, count, child_h)
            if used + fresh > layer_keys.shape[0]:
                layer_keys = np.concatenate((layer_keys, np.empty_like(layer_keys)))
                capacity = layer_keys.shape[0]
                layer_parents, layer_moves = resized(layer_parents, capacity), resized(layer_moves, capacity)
                scores = resized(scores, capacity)
            for t in range(fresh):
                j = rows[t]
                if k <= _INSERTED_UP_TO and size == k and child_h[j] >= scores[best[k - 1]]:
                    continue
                copy_row(layer_keys, used, out_keys, j)
                layer_parents[used], layer_moves[used], scores[used] = first + b, out_moves[j], child_h[j]
                if k <= _INSERTED_UP_TO:
                    size = _insert(best, size, k, scores, used)
                used += 1
            found += fresh
        max_frontier = max(max_frontier, found)
        if k <= _INSERTED_UP_TO:  # the layer's rows making the next beam, in order
            chosen, width = best, size
        else:
            chosen, width = np.argsort(scores[:used], kind="mergesort"), min(k, used)
        if kept + width > parents.shape[0]:
            parents = resized(parents, 2 * (kept + width))
            moves = resized(moves, parents.shape[0])
        if width > beam_keys.shape[0]:  # grown as the layers widen, never to k ahead of need (k may be 10^12)
            beam_keys = np.empty((min(k, max(width, 2 * beam_keys.shape[0])), key_words), dtype=np.uint64)
        for c in range(width):
            copy_row(beam_keys, c, layer_keys, chosen[c])
            parents[kept + c], moves[kept + c] = layer_parents[chosen[c]], layer_moves[chosen[c]]
        first = kept
        kept += width
        depth += 1
    return stops.FAILED, np.empty(0, np.int64), expanded, generated, max_frontier, stored, depth, table.nbytes


def search(problem: Problem, limits: Limits, *, k: int, heuristic: Heuristic) -> SearchReport:
    """Beam search keeping the `k` children of lowest `heuristic` per layer."""
    max_nodes, deadline = stops.budget(limits)
    code, moves, expanded, generated, max_frontier, stored, depth, table_bytes = beam(
        heuristic.spec, problem.start_key(), heuristic.code, heuristic.args, problem.kernels.max_branching, k, max_nodes,
        deadline,
    )
    outcome, reason = stops.outcome_of(code, limits)
    if code == stops.FAILED:
        reason = f"beam emptied at depth {depth}"
    extra = {"table_bytes": int(table_bytes), "bytes_per_state": round(table_bytes / stored, 1)}
    return SearchReport(outcome=outcome, path=[int(m) for m in moves], expanded=expanded, generated=generated,
                        max_frontier=max_frontier, stored=stored, reason=reason, extra=extra)
