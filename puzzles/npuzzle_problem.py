"""The N-puzzle as a search problem: a board, its goal convention, and its compiled kernels."""

from dataclasses import replace

import numpy as np

from puzzles import npuzzle_kernels as nk
from puzzles.errors import PuzzleError
from puzzles.npuzzle import MOVES, NPuzzleBoard, goal_tiles, is_solvable
from puzzles.problem import RESERVED_BITS, Heuristic, Kernels


class NPuzzleProblem:
    """A W x H sliding-tile board to bring to its goal (`blank-last` or Korf's `blank-first`)."""

    heuristic_names = nk.HEURISTICS
    default_heuristic = "linear-conflict"

    def __init__(self, board: NPuzzleBoard, goal: str | None = None):
        """The problem of reaching the board's goal, or `goal` instead (the board then carries it)."""
        self.board = board if goal is None else replace(board, goal=goal)
        self.goal = self.board.goal
        self.kernels = _compile_spec(self.board, self.goal)

    def start_key(self) -> np.ndarray:
        """The start board as a key."""
        return self.encode(self.board.tiles)

    def encode(self, tiles: tuple[int, ...]) -> np.ndarray:
        """The key of a row-major tuple of tiles."""
        spec = self.kernels.spec
        key = np.zeros(self.kernels.key_words, dtype=np.uint64)
        for cell, tile in enumerate(tiles):
            key[cell // spec.per_word] |= np.uint64(tile) << np.uint64((cell % spec.per_word) * spec.bits)
        return key

    def decode(self, key: np.ndarray) -> tuple[int, ...]:
        """The row-major tiles of a key."""
        return tuple(int(nk.tile_at(self.kernels.spec, key, cell)) for cell in range(self.kernels.spec.cells))

    def successors(self, key: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """The (move code, key) pairs one blank move away."""
        out_keys = np.empty((4, self.kernels.key_words), dtype=np.uint64)
        out_moves = np.empty(4, dtype=np.int64)
        count = nk.expand(self.kernels.spec, key, out_keys, out_moves)
        return [(int(out_moves[i]), out_keys[i].copy()) for i in range(count)]

    def is_goal(self, key: np.ndarray) -> bool:
        """True if the key is the goal board."""
        return bool(nk.is_goal(self.kernels.spec, key))

    def proven_unsolvable(self) -> bool:
        """True if the inversion parity rules the goal out: no search is needed."""
        return not is_solvable(self.board, self.goal)

    def format_move(self, move: int) -> str:
        """Where the blank goes: U, D, L or R."""
        return MOVES[move]

    def move_steps(self, move: int) -> int:
        """Every move slides one tile one cell."""
        return 1

    def json_solution(self, solution: list[str]) -> str:
        """The solution as one string of blank moves, such as ``ULDR``: its length is the moves."""
        return "".join(solution)

    def check_solution(self, moves: list[int]) -> bool:
        """True if the moves are legal from the start and end on the goal."""
        key = self.start_key()
        for move in moves:
            following = dict(self.successors(key))
            if move not in following:
                return False
            key = following[move]
        return self.is_goal(key)

    def heuristic(self, name: str, **params: float) -> Heuristic:
        """One of `misplaced`, `manhattan`, `linear-conflict`; all admissible."""
        if name not in nk.HEURISTICS:
            raise PuzzleError(f"unknown heuristic {name!r} for the N-puzzle (choose from {', '.join(nk.HEURISTICS)})")
        return Heuristic(name, nk.HEURISTICS.index(name), np.zeros(1, dtype=np.float64), True)


def _compile_spec(board: NPuzzleBoard, goal: str) -> Kernels:
    """Lay the board out in bit fields and tabulate each tile's goal cell."""
    cells = board.width * board.height
    bits = max(cells - 1, 1).bit_length()
    per_word = 64 // bits
    key_words = -(-cells // per_word)
    if (cells - (key_words - 1) * per_word) * bits > 64 - RESERVED_BITS:
        key_words += 1
    target = goal_tiles(board.width, board.height, goal)
    goal_row = np.zeros(cells, dtype=np.int64)
    goal_col = np.zeros(cells, dtype=np.int64)
    for cell, tile in enumerate(target):
        goal_row[tile], goal_col[tile] = divmod(cell, board.width)
    spec = nk.Spec(
        width=board.width,
        height=board.height,
        cells=cells,
        bits=bits,
        per_word=per_word,
        goal=np.zeros(key_words, dtype=np.uint64),
        goal_row=goal_row,
        goal_col=goal_col,
        line=np.zeros(max(board.width, board.height), dtype=np.int64),
        best=np.zeros(max(board.width, board.height), dtype=np.int64),
    )
    for cell, tile in enumerate(target):
        spec.goal[cell // per_word] |= np.uint64(tile) << np.uint64((cell % per_word) * bits)
    return Kernels(spec, key_words, 4)
