"""The N-puzzle (sliding tiles): boards, goals, solvability and blank moves.

A board is W x H cells holding the tiles 1..W*H-1 and the blank (0), row by
row, and the goal it is to reach, which travels with it (into its canonical
text and so its id): ``blank-last`` (1, 2, ..., W*H-1 then the blank) by
default, or Korf's ``blank-first`` (the blank, then 1, 2, ..., W*H-1). A move
names where the *blank* goes: ``U``, ``D``, ``L`` or ``R``.
"""

from dataclasses import dataclass, replace

from puzzles.errors import PuzzleError

GOALS = ("blank-last", "blank-first")
DEFAULT_GOAL = GOALS[0]
MOVES = "UDLR"  # the blank goes up, down, left, right
MIN_SIDE = 2
MAX_SIDE = 8


@dataclass(frozen=True)
class NPuzzleBoard:
    """A validated W x H board: `tiles` row-major, 0 the blank, and its goal; the name is metadata."""

    width: int
    height: int
    tiles: tuple[int, ...]
    name: str = ""
    goal: str = DEFAULT_GOAL

    def __post_init__(self) -> None:
        """Refuse an unknown goal."""
        check_goal(self.goal)

    @property
    def blank(self) -> int:
        """The cell (row-major index) of the blank."""
        return self.tiles.index(0)

    def rows(self) -> list[tuple[int, ...]]:
        """The tiles, row by row."""
        return [self.tiles[r * self.width : (r + 1) * self.width] for r in range(self.height)]


def goal_tiles(width: int, height: int, goal: str = DEFAULT_GOAL) -> tuple[int, ...]:
    """The goal board's tiles: 1..n-1 then 0 (``blank-last``), or 0..n-1 (``blank-first``)."""
    check_goal(goal)
    n = width * height
    return (*range(1, n), 0) if goal == "blank-last" else tuple(range(n))


def is_solved(board: NPuzzleBoard, goal: str | None = None) -> bool:
    """True if the board is the goal (`goal`, or the board's own)."""
    return board.tiles == goal_tiles(board.width, board.height, goal or board.goal)


def is_solvable(board: NPuzzleBoard, goal: str | None = None) -> bool:
    """True if the goal (`goal`, or the board's own) can be reached, for any W x H and either goal.

    Every move swaps the blank with a neighbour: it flips the parity of the
    permutation of the cells and of the blank's taxicab distance to its goal
    cell together. So the board is solvable exactly when the permutation taking
    the board to the goal (the blank counted as a tile) has the parity of that
    distance; that the condition is also sufficient is the classical theorem
    (Johnson & Story, 1879; Wilson, 1974) for any board of at least 2 x 2.
    """
    target = goal_tiles(board.width, board.height, goal or board.goal)
    home = {tile: cell for cell, tile in enumerate(target)}
    sends = [home[tile] for tile in board.tiles]  # cell -> the cell its tile belongs on
    seen = [False] * len(sends)
    cycles = 0
    for start in range(len(sends)):
        if not seen[start]:
            cycles += 1
            cell = start
            while not seen[cell]:
                seen[cell] = True
                cell = sends[cell]
    permutation_parity = (len(sends) - cycles) % 2
    (row, col), (goal_row, goal_col) = divmod(board.blank, board.width), divmod(home[0], board.width)
    return permutation_parity == (abs(row - goal_row) + abs(col - goal_col)) % 2


def apply_moves(board: NPuzzleBoard, moves: str) -> NPuzzleBoard:
    """The board after the blank moves (``U``, ``D``, ``L``, ``R``); PuzzleError on an illegal move."""
    tiles = list(board.tiles)
    blank = board.blank
    for number, move in enumerate(moves, 1):
        row, col = divmod(blank, board.width)
        if move not in MOVES:
            raise PuzzleError(
                f"move {number} is {move!r}; a move is U, D, L or R (where the blank goes)", source=board.name or None
            )
        row, col = {"U": (row - 1, col), "D": (row + 1, col), "L": (row, col - 1), "R": (row, col + 1)}[move]
        if not (0 <= row < board.height and 0 <= col < board.width):
            before_row, before_col = divmod(blank, board.width)
            raise PuzzleError(
                f"move {number} ({move}) takes the blank off the {board.width}x{board.height} board"
                f" (from row {before_row + 1}, col {before_col + 1})",
                source=board.name or None,
            )
        target = row * board.width + col
        tiles[blank], tiles[target] = tiles[target], 0
        blank = target
    return replace(board, tiles=tuple(tiles))


def check_goal(goal: str) -> None:
    """Reject a goal that is not one of `GOALS` with a PuzzleError."""
    if goal not in GOALS:
        raise PuzzleError(f"unknown goal {goal!r} (choose from {', '.join(GOALS)})")
