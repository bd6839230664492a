"""Shortened-Path Random: random walks compressed by BFS over the graph of the boards they visit.

Each batch makes `batch_size` random walks from the start and puts the solved
ones in a graph: a node per distinct board, a directed edge per distinct move a
walk made (parent board to child board). The paths kept from earlier batches
join that graph; BFS over it from the start to the nearest goal board gives the
batch's compressed path, the only thing kept once the batch is done. A last BFS
over the union of the kept paths gives the answer, which is never longer than
the shortest solved walk; the domain then merges what makes one move (a
vehicle slid twice in a row, in Rush Hour's slide model). Batches bound the
memory: the graph lives one batch.

Boards and edges are node stores (`puzzles.nodestore`). A board's parent, move
and cost fields hold its BFS tree parent, the move from it and its distance; an
edge's key is (from << 32 | to), its parent field the from-board, its cost the
to-board and its move the move. Walks and kept paths are rows of a
`randomwalk.Path`; the kept paths follow one another in one `Path`, each
beginning with the start board, its move `NO_MOVE`.
"""

import numpy as np

from puzzles import nodestore, stops
from puzzles.jit import nb
from puzzles.kernels import is_goal, workspace
from puzzles.problem import Problem
from puzzles.result import Limits, SearchReport
from puzzles.search import randomwalk

_UNSEEN = -1


@nb.njit(cache=True)
def _board(boards, keys, row):
    """The node of the key in row `row` of `keys` in the board store, added if new; returns (boards, node)."""
    node = nodestore.find(boards, keys, row)
    if node >= 0:
        return boards, node
    return nodestore.add(boards, keys, row, nodestore.NO_PARENT, randomwalk.NO_MOVE, _UNSEEN)


@nb.njit(cache=True)
def _add_rows(boards, edges, path, rows):
    """Add the boards in the first `rows` rows of `path` and the moves into them (none into a first board)."""
    edge = np.empty((1, 1), dtype=np.uint64)
    previous = nodestore.NO_PARENT
    for row in range(rows):
        boards, node = _board(boards, path.keys, row)
        if path.moves[row] != randomwalk.NO_MOVE:
            edge[0, 0] = (np.uint64(previous) << np.uint64(32)) | np.uint64(node)
            if nodestore.find(edges, edge, 0) < 0:
                edges, _ = nodestore.add(edges, edge, 0, previous, path.moves[row], node)
        previous = node
    return boards, edges


@nb.njit(cache=True)
def _graph_of(start, kept, rows):
    """A graph of the start (node 0) and the paths in the first `rows` rows of `kept`."""
    boards, _ = _board(nodestore.new_store(start.shape[0], 1 << 10), start.reshape(1, -1), 0)
    return _add_rows(boards, nodestore.new_store(1, 1 << 10), kept, rows)


@nb.njit(cache=True)
def _out_edges(boards, edges):
    """The edges grouped by their from-board: board b's are `out[first[b]:first[b + 1]]`; returns (first, out)."""
    first = np.zeros(boards.count[0] + 1, dtype=np.int64)
    for e in range(edges.count[0]):
        first[edges.parent[e] + 1] += 1
    first = np.cumsum(first)
    fill = first[:-1].copy()
    out = np.empty(edges.count[0], dtype=np.int64)
    for e in range(edges.count[0]):
        out[fill[edges.parent[e]]] = e
        fill[edges.parent[e]] += 1
    return first, out


@nb.njit(cache=True)
def _nearest_goal(spec, boards, edges):
    """BFS from node 0 along the edges: the nearest goal board (its path in the boards' fields), or -1."""
    first, out = _out_edges(boards, edges)
    count = boards.count[0]
    boards.cost[:count] = _UNSEEN
    boards.cost[0] = 0
    queue = np.empty(count, dtype=np.int64)
    queue[0] = 0
    head, tail = 0, 1
    while head < tail:
        node = queue[head]
        head += 1
        if is_goal(spec, boards.keys[node]):
            return node
        for e in out[first[node] : first[node + 1]]:
            child = edges.cost[e]
            if boards.cost[child] == _UNSEEN:
                boards.cost[child] = boards.cost[node] + 1
                boards.parent[child] = node
                boards.move[child] = edges.move[e]
                queue[tail] = child
                tail += 1
    return -1


@nb.njit(cache=True)
def _keep(boards, goal, kept, rows):
    """Append the BFS path from the start to `goal` to the first `rows` rows of `kept`; returns (kept, rows)."""
    last = rows + boards.cost[goal]
    node = goal
    for row in range(last, rows - 1, -1):
        kept = randomwalk.put(kept, row, boards.keys[node], boards.move[node])
        node = boards.parent[node]
    return kept, last + 1


@nb.njit(cache=True)
def spr(spec, start, max_branching, batches, batch_size, max_steps, seed, max_nodes, deadline):
    """Compiled SPR; returns (status, moves, expanded, generated, stored, runs, solved runs, shortest run or -1)."""
    np.random.seed(seed)
    key_words = start.shape[0]
    out_keys = np.empty((max_branching, key_words), dtype=np.uint64)
    out_moves = np.empty(max_branching, dtype=np.int64)
    work = workspace(spec)
    walk = randomwalk.new_path(key_words, 1 << 10)
    kept = randomwalk.new_path(key_words, 1 << 6)
    kept_rows = expanded = generated = stored = runs = solved = 0
    shortest = -1
    for _ in range(batches):
        boards, edges = _graph_of(start, kept, kept_rows)
        solved_before = solved
        for _ in range(batch_size):
            status, steps, walk, expanded, made = randomwalk.run(
                spec, work, start, walk, out_keys, out_moves, max_steps, expanded, max_nodes, deadline
            )
            generated += made
            if status != stops.SOLVED and status != stops.FAILED:
                return status, np.empty(0, np.int64), expanded, generated, stored, runs, solved, shortest
            runs += 1
            if status == stops.SOLVED:
                solved += 1
                shortest = steps if shortest < 0 else min(shortest, steps)
                boards, edges = _add_rows(boards, edges, walk, steps + 1)
        stored = max(stored, boards.count[0])
        if solved > solved_before:
            kept, kept_rows = _keep(boards, _nearest_goal(spec, boards, edges), kept, kept_rows)
    if solved == 0:
        return stops.FAILED, np.empty(0, np.int64), expanded, generated, stored, runs, solved, shortest
    boards, edges = _graph_of(start, kept, kept_rows)
    moves = nodestore.moves_to(boards, _nearest_goal(spec, boards, edges))
    return stops.SOLVED, moves, expanded, generated, stored, runs, solved, shortest


def search(problem: Problem, limits: Limits, *, batches: int, batch_size: int, max_steps: int, seed: int) -> SearchReport:
    """`batches` batches of `batch_size` random walks of at most `max_steps` moves, compressed by BFS."""
    kernels = problem.kernels
    max_nodes, deadline = stops.budget(limits)
    code, moves, expanded, generated, stored, runs, solved, shortest = spr(
        kernels.spec,
        problem.start_key(),
        kernels.max_branching,
        batches,
        batch_size,
        max_steps,
        seed,
        max_nodes,
        deadline,
    )
    outcome, reason = stops.outcome_of(code, limits)
    if code == stops.FAILED:
        reason = f"none of {runs} random walks reached the goal in {max_steps} steps"
    extra = {"runs": runs, "solved_runs": solved, "shortest_run": shortest if shortest >= 0 else None}
    path = problem.merged([int(m) for m in moves])  # the union graph's path may slide a vehicle twice in a row
    return SearchReport(outcome=outcome, path=path, expanded=expanded, generated=generated,
                        stored=stored, reason=reason, extra=extra)
