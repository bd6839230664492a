"""Random: play a uniformly random legal move until the goal is reached.

Fast to find some solution, usually a very long one. A walk records every board
it passes in a `Path`, so Shortened-Path Random (`puzzles.spr`) can reuse it.
Numba's generator is seeded inside the kernel: a seed gives the same walk.
"""

from typing import NamedTuple

import numpy as np

from puzzles import stops
from puzzles.jit import nb
from puzzles.kernels import expand, is_goal, workspace
from puzzles.nodestore import resized
from puzzles.problem import Problem
from puzzles.result import Limits, SearchReport

NO_MOVE = -1


class Path(NamedTuple):
    """Boards along a path, row by row, with the move that led to each (`NO_MOVE` for a first board)."""

    keys: np.ndarray
    moves: np.ndarray


@nb.njit(cache=True)
def new_path(key_words, capacity):
    """An empty path with room for `capacity` rows before it grows."""
    capacity = max(capacity, 16)
    return Path(np.empty((capacity, key_words), dtype=np.uint64), np.empty(capacity, dtype=np.int64))


@nb.njit(cache=True)
def put(path, row, key, move):
    """Write `key` and `move` in row `row`, growing the arrays if needed; returns the path."""
    capacity = path.keys.shape[0]
    if row >= capacity:
        keys = np.empty((max(2 * capacity, row + 1), path.keys.shape[1]), dtype=np.uint64)
        keys[:capacity] = path.keys
        path = Path(keys, resized(path.moves, keys.shape[0]))
    path.keys[row] = key
    path.moves[row] = move
    return path


@nb.njit(cache=True)
def run(spec, work, start, path, out_keys, out_moves, max_steps, expanded, max_nodes, deadline):
    """One random walk from `start` into rows 0..steps of `path`, taking moves from numba's generator.

    Returns (status, steps, path, expanded, generated): SOLVED, FAILED (`max_steps`
    steps made, or a board without moves) or a limit; `expanded` counts on from
    the value given, one per step.
    """
    path = put(path, 0, start, NO_MOVE)
    steps = generated = 0
    while not is_goal(spec, path.keys[steps]):
        if steps == max_steps:
            return stops.FAILED, steps, path, expanded, generated
        stop = stops.exceeded(expanded, max_nodes, deadline)
        if stop:
            return stop, steps, path, expanded, generated
        expanded += 1
        count = expand(spec, work, path.keys[steps], out_keys, out_moves)
        generated += count
        if count == 0:
            return stops.FAILED, steps, path, expanded, generated
        choice = np.random.randint(0, count)
        steps += 1
        path = put(path, steps, out_keys[choice], out_moves[choice])
    return stops.SOLVED, steps, path, expanded, generated


@nb.njit(cache=True)
def random_walk(spec, start, max_branching, max_steps, seed, max_nodes, deadline):
    """Compiled Random from `start`; returns (status, moves if solved, steps, expanded, generated)."""
    np.random.seed(seed)
    key_words = start.shape[0]
    out_keys = np.empty((max_branching, key_words), dtype=np.uint64)
    out_moves = np.empty(max_branching, dtype=np.int64)
    status, steps, path, expanded, generated = run(
        spec, workspace(spec), start, new_path(key_words, 1 << 10), out_keys, out_moves, max_steps, 0, max_nodes, deadline
    )
    moves = path.moves[1 : steps + 1].copy() if status == stops.SOLVED else np.empty(0, np.int64)
    return status, moves, steps, expanded, generated


def search(problem: Problem, limits: Limits, *, max_steps: int, seed: int) -> SearchReport:
    """Walk at random from the start for at most `max_steps` moves; the solution is the whole walk."""
    kernels = problem.kernels
    max_nodes, deadline = stops.budget(limits)
    code, moves, steps, expanded, generated = random_walk(
        kernels.spec, problem.start_key(), kernels.max_branching, max_steps, seed, max_nodes, deadline
    )
    outcome, reason = stops.outcome_of(code, limits)
    if code == stops.FAILED:
        reason = f"no legal move after {steps} steps" if steps < max_steps else f"goal not reached in {max_steps} steps"
    return SearchReport(outcome=outcome, path=[int(m) for m in moves], expanded=expanded, generated=generated,
                        stored=steps + 1, reason=reason)
