"""The `Problem` protocol between domains and search algorithms.

A domain describes itself twice: readably, through the methods of `Problem`,
and fast, through `Kernels`: numba-compiled functions over compact states. A
state is a key of `key_words` unsigned 64-bit words; every algorithm in this
package is written once, over the kernels, and numba specialises it for each
domain's compiled functions.

Kernel signatures (all compiled with numba):

- ``expand(spec, key, out_keys, out_moves) -> int`` writes the successors of
  `key` into the first rows of `out_keys` (shape ``(max_branching, key_words)``)
  and their move codes into `out_moves`, and returns how many it wrote.
- ``is_goal(spec, key) -> bool``.
- ``heuristic(spec, hargs, key, parent_branching) -> int`` estimates the cost
  to the goal; `hargs` holds its parameters (float64 array) and
  `parent_branching` the number of successors the parent had.
"""

from typing import Any, Callable, NamedTuple, Protocol

import numpy as np


class Kernels(NamedTuple):
    """The compiled form of a domain."""

    spec: Any
    key_words: int
    max_branching: int
    expand: Callable
    is_goal: Callable


class Heuristic(NamedTuple):
    """A compiled heuristic with its parameters; `admissible` if it never overestimates."""

    name: str
    function: Callable
    args: np.ndarray
    admissible: bool


class Problem(Protocol):
    """What a search needs from a domain."""

    kernels: Kernels

    def start_key(self) -> np.ndarray:
        """The start state as a key of `kernels.key_words` words."""

    def heuristic(self, name: str, **params: Any) -> Heuristic:
        """The named heuristic, compiled; raises PuzzleError for an unknown name."""

    def format_move(self, move: int) -> str:
        """A move code in the domain's notation."""

    def move_steps(self, move: int) -> int:
        """The cost of a move in steps (cells moved for Rush Hour)."""

    def check_solution(self, moves: list[int]) -> bool:
        """True if the moves, played from the start, are legal and reach the goal."""
