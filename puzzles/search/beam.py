"""Beam search: breadth-first by layers, keeping only the k most promising boards of each layer.

Every child of the beam is generated and tested for the goal; children seen
before (in any beam or among any layer's children) are dropped, so the search
never returns to a board; the k children with the lowest heuristic, ties to
the earlier generated, make the next beam. Memory-light and fast, not
optimal, and incomplete: when no new child remains the beam empties and the
search fails. All generated boards go in a node store, whose parent links
give the solution.
"""

import numpy as np

from puzzles import limits, nodestore
from puzzles.jit import nb
from puzzles.kernels import expand, heuristic, is_goal, workspace
from puzzles.problem import Heuristic, Problem
from puzzles.result import Limits, SearchReport


@nb.njit(cache=True)
def beam(spec, start, code, args, max_branching, k, max_nodes, deadline):
    """Compiled beam search; returns (status, moves, expanded, generated, max frontier, stored, depth)."""
    key_words = start.shape[0]
    work = workspace(spec)
    store, root = nodestore.add(nodestore.new_store(key_words, 1 << 12), start.reshape(1, -1), 0, nodestore.NO_PARENT, 0, 0)
    out_keys = np.empty((max_branching, key_words), dtype=np.uint64)
    out_moves = np.empty(max_branching, dtype=np.int64)
    nodes = np.full(1, root, dtype=np.int64)
    candidates = np.empty(min(k, 64) * max_branching, dtype=np.int64)
    scores = np.empty_like(candidates)
    expanded = generated = max_frontier = depth = 0
    if is_goal(spec, start):
        return limits.SOLVED, np.empty(0, np.int64), expanded, generated, max_frontier, store.count[0], depth
    while nodes.shape[0] > 0:
        found = 0
        for b in range(nodes.shape[0]):
            stop = limits.exceeded(expanded, max_nodes, deadline)
            if stop:
                return stop, np.empty(0, np.int64), expanded, generated, max_frontier, store.count[0], depth
            expanded += 1
            if found + max_branching > candidates.shape[0]:
                candidates = nodestore.resized(candidates, 2 * candidates.shape[0])
                scores = nodestore.resized(scores, 2 * scores.shape[0])
            count = expand(spec, work, store.keys[nodes[b]], out_keys, out_moves)
            generated += count
            for j in range(count):
                if nodestore.find(store, out_keys, j) >= 0:
                    continue
                store, child = nodestore.add(store, out_keys, j, nodes[b], out_moves[j], depth + 1)
                if is_goal(spec, out_keys[j]):
                    moves = nodestore.moves_to(store, child)
                    return limits.SOLVED, moves, expanded, generated, max_frontier, store.count[0], depth + 1
                candidates[found] = child
                scores[found] = heuristic(spec, work, code, args, out_keys[j], count)
                found += 1
        max_frontier = max(max_frontier, found)
        nodes = candidates[np.argsort(scores[:found], kind="mergesort")[:k]]
        depth += 1
    return limits.FAILED, np.empty(0, np.int64), expanded, generated, max_frontier, store.count[0], depth


def search(problem: Problem, limits_: Limits, *, k: int, heuristic: Heuristic) -> SearchReport:
    """Beam search keeping the `k` children of lowest `heuristic` per layer."""
    max_nodes, deadline = limits.budget(limits_)
    code, moves, expanded, generated, max_frontier, stored, depth = beam(
        heuristic.spec, problem.start_key(), heuristic.code, heuristic.args, problem.kernels.max_branching, k, max_nodes,
        deadline,
    )
    outcome, reason = limits.outcome_of(code, limits_)
    if code == limits.FAILED:
        reason = f"beam emptied at depth {depth}"
    return SearchReport(outcome=outcome, path=[int(m) for m in moves], expanded=expanded, generated=generated,
                        max_frontier=max_frontier, stored=stored, reason=reason)
