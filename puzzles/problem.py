"""The `Problem` protocol between domains and search algorithms.

A domain describes itself twice: readably, through the methods of `Problem`,
and fast, through `Kernels`: a spec (a NamedTuple of arrays registered with
`puzzles.kernels`) over compact states. A state is a key of `key_words`
unsigned 64-bit words whose last word keeps its top `RESERVED_BITS` bits zero
(the set of keys of breadth-first and beam search marks its slots there, with
a state's depth modulo 3); every algorithm is written once over the compiled
entry points of `puzzles.kernels`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:  # the command line lists and checks without loading numpy
    import numpy as np

RESERVED_BITS = 2


class Kernels(NamedTuple):
    """The compiled form of a domain."""

    spec: Any
    key_words: int
    max_branching: int


class Heuristic(NamedTuple):
    """A domain's heuristic number `code` with its parameters; `admissible` if it never overestimates.

    `spec` is the spec to search with: the problem's own `kernels.spec`, or a
    copy of it that also holds the heuristic's tables (the N-puzzle's pattern
    databases). A problem returns its heuristics and never changes itself.
    """

    name: str
    code: int
    args: np.ndarray
    admissible: bool
    spec: Any


class Problem(Protocol):
    """What a search needs from a domain."""

    kernels: Kernels
    domain: str  # its key in `puzzles.domains.DOMAINS` and the registry of heuristics
    default_heuristic: str  # used when an algorithm's own default is not one of them
    memo_by_default: bool  # depth-first searches keep a memo of the states searched unless told (its states recur)

    @property
    def heuristic_names(self) -> tuple[str, ...]:
        """What `heuristic` accepts: the domain's registered heuristics."""

    @property
    def admissible_heuristics(self) -> tuple[str, ...]:
        """Those of `heuristic_names` that never overestimate."""

    def start_key(self) -> np.ndarray:
        """The start state as a key of `kernels.key_words` words."""

    def successors(self, key: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """The (move code, key) pairs one move away from the state `key`."""

    def is_goal(self, key: np.ndarray) -> bool:
        """True if the state `key` is a goal."""

    def heuristic_defaults(self, name: str) -> dict[str, Any]:
        """The options heuristic `name` takes on this board, with their default values (often none)."""

    def check_heuristic(self, name: str, **params: Any) -> None:
        """PuzzleError unless the domain has the heuristic and takes its parameters; builds nothing."""

    def heuristic(self, name: str, **params: Any) -> Heuristic:
        """The named heuristic with its tables loaded; raises PuzzleError for an unknown name."""

    def format_move(self, move: int) -> str:
        """A move code in the domain's notation."""

    def move_steps(self, move: int) -> int:
        """The cost of a move in steps (cells moved for Rush Hour)."""

    def merged(self, moves: list[int]) -> list[int]:
        """The moves with consecutive ones that make a single move merged (Rush Hour: one vehicle's slides)."""

    def json_solution(self, solution: list[str]) -> str | list[str]:
        """The solution (moves in the domain's notation) as JSON output writes it: a list, or one string."""

    def check_solution(self, moves: list[int]) -> bool:
        """True if the moves, played from the start, are legal and reach the goal."""

    def unsolvable_reason(self) -> str | None:
        """Why the goal cannot be reached, where the domain proves it without a search; None where it does not."""
