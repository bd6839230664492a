"""Random N-puzzle boards: uniform over the solvable boards, or random walks from the goal.

A uniform board is a random permutation of the tiles and the blank; if it
cannot reach the goal, its first two tiles (in reading order, the blank
skipped) are swapped. That swap flips solvability and pairs every unsolvable
board with one solvable board, so the result is uniform over the solvable
half. A walk of N moves starts at the goal and moves the blank N times, each
time uniformly among its legal moves except the one undoing the move before;
its board is at most N moves from the goal, at a distance of N's parity.

Draws come from ``random.Random(seed)``: the same seed and arguments give the
same boards. Boards are distinct: a board drawn again is drawn anew, so a walk
too short to have `count` distinct ends fails with a PuzzleError.
"""

import random

from puzzles.errors import PuzzleError
from puzzles.npuzzle.board import DEFAULT_GOAL, MAX_SIDE, MIN_SIDE, NPuzzleBoard, apply_moves, check_goal, goal_tiles, is_solvable
from puzzles.textio import numbered_names

DRAWS_PER_BOARD = 100  # draws allowed per board asked for before giving up on distinct boards
_STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}  # where the blank goes: (rows, columns)
_BACK = {"U": "D", "D": "U", "L": "R", "R": "L"}


def random_boards(
    width: int, height: int, count: int, seed: int, *, walk: int | None = None, goal: str = DEFAULT_GOAL,
    prefix: str | None = None,
) -> list[NPuzzleBoard]:
    """`count` distinct solvable width x height boards for `goal`, named `<prefix>-001` and so on.

    The prefix is ``npuzzle-<width>x<height>-s<seed>`` by default.

    Uniformly random among the solvable boards, or with `walk` the end of a
    random walk of that many blank moves from the goal (see the module
    docstring). PuzzleError for bad arguments, or when `DRAWS_PER_BOARD` draws
    per board give fewer than `count` distinct boards.
    """
    _check(width, height, count, walk, goal)
    rng = random.Random(seed)
    found: dict[tuple[int, ...], None] = {}
    for _ in range(DRAWS_PER_BOARD * count):
        board = _uniform(width, height, goal, rng) if walk is None else _walked(width, height, walk, goal, rng)
        found.setdefault(board.tiles)
        if len(found) == count:
            names = numbered_names(prefix or f"npuzzle-{width}x{height}-s{seed}", count)
            return [NPuzzleBoard(width, height, tiles, name, goal) for tiles, name in zip(found, names)]
    kind = "uniform boards" if walk is None else f"{walk}-move walks"
    raise PuzzleError(
        f"{DRAWS_PER_BOARD * count} {kind} on {width}x{height} gave only {len(found)} distinct boards, not {count}"
    )


def _check(width: int, height: int, count: int, walk: int | None, goal: str) -> None:
    """PuzzleError for a board shape, count, walk length or goal out of range."""
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise PuzzleError(f"board is {width}x{height}; width and height must be {MIN_SIDE} to {MAX_SIDE}")
    if count < 1:
        raise PuzzleError(f"count must be at least 1, not {count}")
    if walk is not None and walk < 0:
        raise PuzzleError(f"a walk must be at least 0 moves, not {walk}")
    check_goal(goal)


def solvable_board(width: int, height: int, tiles: list[int], goal: str = DEFAULT_GOAL) -> NPuzzleBoard:
    """The board of `tiles`, or, if it cannot reach `goal`, that board with its first two tiles swapped.

    The swap (in reading order, the blank skipped) flips solvability, so it
    pairs every unsolvable board with one solvable board.
    """
    board = NPuzzleBoard(width, height, tuple(tiles), goal=goal)
    if is_solvable(board):
        return board
    swapped = list(tiles)
    first, second = [cell for cell, tile in enumerate(swapped) if tile][:2]
    swapped[first], swapped[second] = swapped[second], swapped[first]
    return NPuzzleBoard(width, height, tuple(swapped), goal=goal)


def _uniform(width: int, height: int, goal: str, rng: random.Random) -> NPuzzleBoard:
    """A board drawn uniformly among those that can reach `goal`."""
    tiles = list(range(width * height))
    rng.shuffle(tiles)
    return solvable_board(width, height, tiles, goal)


def _walked(width: int, height: int, length: int, goal: str, rng: random.Random) -> NPuzzleBoard:
    """The board after `length` random blank moves from `goal`, none undoing the move before it."""
    board = NPuzzleBoard(width, height, goal_tiles(width, height, goal), goal=goal)
    row, col = divmod(board.blank, width)
    moves = ""
    for _ in range(length):
        move = rng.choice([
            m for m, (down, right) in _STEPS.items()
            if 0 <= row + down < height and 0 <= col + right < width and _BACK[m] != moves[-1:]
        ])  # fmt: skip
        row, col = row + _STEPS[move][0], col + _STEPS[move][1]
        moves += move
    return apply_moves(board, moves)
