"""Rush Hour as a search problem: a board's compact encoding, its compiled spec, and the `Problem`.

A state stores only where the vehicles stand along their lines (their
leftmost columns or topmost rows), each lane's vehicles ranked together and
the ranks packed into 64-bit words (`puzzles.rushhour.keys`).
"""

from typing import Any

import numpy as np

from puzzles.errors import PuzzleError
from puzzles.kernels import successors
from puzzles.plugged import compiled_plugin_heuristic
from puzzles.problem import Heuristic, Kernels
from puzzles.registry import RegisteredHeuristics, check_options
from puzzles.rushhour import (
    heuristics,  # noqa: F401 - registers the domain's kernels
    keys,
)
from puzzles.rushhour import kernels as rk
from puzzles.rushhour.board import RushHourBoard
from puzzles.rushhour.static import exit_blocked

MOVE_MODELS = ("slide", "step")


class RushHourProblem(RegisteredHeuristics):
    """A Rush Hour board as a search problem under a move model (`slide` or `step`)."""

    domain = "rushhour"
    default_heuristic = "blockers-lb"
    memo_by_default = True  # a board is reached by many orders of the same moves

    def __init__(self, board: RushHourBoard, move_model: str = "slide"):
        if move_model not in MOVE_MODELS:
            raise PuzzleError(f"unknown move model {move_model!r} (choose from {', '.join(MOVE_MODELS)})")
        self.board = board
        self.move_model = move_model
        self.key_layout = keys.layout(board)
        self.kernels = _compile_spec(board, move_model, self.key_layout)

    def start_key(self) -> np.ndarray:
        """The start board as a key."""
        return self.encode([v.position for v in self.board.vehicles])

    def encode(self, positions: list[int]) -> np.ndarray:
        """The key of the vehicles at these positions (PuzzleError if two in one lane overlap or swap places)."""
        return keys.encode(self.key_layout, [v.length for v in self.board.vehicles], positions)

    def decode(self, key: np.ndarray) -> list[int]:
        """The position of each vehicle in the key."""
        return keys.decode(self.key_layout, key)

    def board_at(self, key: np.ndarray) -> RushHourBoard:
        """The board a key stands for."""
        return self.board.with_positions(self.decode(key))

    def successors(self, key: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """The (move code, key) pairs one move away."""
        return successors(self.kernels.spec, self.kernels.max_branching, key)

    def is_goal(self, key: np.ndarray) -> bool:
        """True if the key is a solved board."""
        return bool(rk.is_goal(self.kernels.spec, key))

    def unsolvable_reason(self) -> str | None:
        """An exit blocked for good (`puzzles.rushhour.static`); a search proves the other unsolvable boards."""
        return exit_blocked(self.board)

    def format_move(self, move: int) -> str:
        """A move as `<vehicle><+|-><cells>`: `+` is right or down."""
        vehicle, delta = rk.unpack_move(move)
        return f"{self.board.vehicles[vehicle].name}{'+' if delta > 0 else '-'}{abs(delta)}"

    def move_steps(self, move: int) -> int:
        """The number of cells a move slides its vehicle."""
        return abs(rk.unpack_move(move)[1])

    def merged(self, moves: list[int]) -> list[int]:
        """Under the slide model, consecutive slides of one vehicle merged into one (dropped where they cancel out).

        Only that vehicle moves in between, so the cells it crosses are free and
        the net slide is one legal move. Under the step model a move is one cell:
        nothing merges.
        """
        if self.move_model != "slide":
            return list(moves)
        merged: list[tuple[int, int]] = []
        for vehicle, delta in map(rk.unpack_move, moves):
            if merged and merged[-1][0] == vehicle:
                delta += merged.pop()[1]
                if delta == 0:
                    continue
            merged.append((vehicle, delta))
        return [rk.pack_move(vehicle, delta) for vehicle, delta in merged]

    def json_solution(self, solution: list[str]) -> list[str]:
        """The solution as a list of moves such as ``X+3``, whose labels may be longer than a letter."""
        return list(solution)

    def play(self, moves: list[int]) -> list[np.ndarray]:
        """The keys along a sequence of moves, the start included; PuzzleError on an illegal move."""
        keys = [self.start_key()]
        for move in moves:
            nxt = dict((m, k) for m, k in self.successors(keys[-1]))
            if move not in nxt:
                raise PuzzleError(f"illegal move {self.format_move(move)} after {len(keys) - 1} moves")
            keys.append(nxt[move])
        return keys

    def check_solution(self, moves: list[int]) -> bool:
        """True if the moves are legal from the start and end on a solved board."""
        try:
            return self.is_goal(self.play(moves)[-1])
        except PuzzleError:
            return False

    def heuristic_defaults(self, name: str) -> dict[str, Any]:
        """None: moves-freed's weights have their defaults in the heuristic's options."""
        return {}

    def check_heuristic(self, name: str, **params: float) -> None:
        """PuzzleError unless `name` is a Rush Hour heuristic that takes `params` (moves-freed's weights)."""
        check_options(self.domain, name, params)

    def heuristic(self, name: str, **params: float) -> Heuristic:
        """A registered Rush Hour heuristic (`puzzles.rushhour.registered`), its options (moves-freed's weights) as its args."""
        entry = check_options(self.domain, name, params)
        if entry.origin is not None:
            return compiled_plugin_heuristic(self, entry)
        values = [params.get(option, param.default) for option, param in entry.options.items()]
        return Heuristic(name, entry.code, np.array(values or [0.0], dtype=np.float64), entry.admissible, self.kernels.spec)


def _compile_spec(board: RushHourBoard, move_model: str, key_layout: keys.KeyLayout) -> Kernels:
    """Lay the board out for the kernels: the key's layout, fixed lines, walls."""
    n = board.size
    vehicles = board.vehicles
    walls = np.zeros(n * n, dtype=np.int16)
    sentinel = np.uint64(1) << np.uint64(n)
    row_walls = np.full(n, sentinel, dtype=np.uint64)
    column_walls = np.full(n, sentinel, dtype=np.uint64)
    for row, col in board.walls:
        walls[row * n + col] = rk.WALL
        row_walls[row] |= np.uint64(1) << np.uint64(col)
        column_walls[col] |= np.uint64(1) << np.uint64(row)
    spec = rk.Spec(
        size=n,
        count=len(vehicles),
        horizontal=np.array([v.horizontal for v in vehicles], dtype=np.bool_),
        line=np.array([v.row if v.horizontal else v.col for v in vehicles], dtype=np.int64),
        length=np.array([v.length for v in vehicles], dtype=np.int64),
        body=np.array([(1 << v.length) - 1 for v in vehicles], dtype=np.uint64),
        place=key_layout.place,
        weight=key_layout.weight,
        table=key_layout.table,
        red=next(i for i, v in enumerate(vehicles) if v.name == board.red),
        single_step=move_model == "step",
        walls=walls,
        row_walls=row_walls,
        column_walls=column_walls,
    )
    max_branching = sum(n - v.length for v in vehicles) if move_model == "slide" else 2 * len(vehicles)
    return Kernels(spec, key_layout.key_words, max(max_branching, 1))
