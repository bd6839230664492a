"""The N-puzzle as a search problem: a board, its goal convention, and its compiled kernels."""

from dataclasses import replace

import numpy as np

from puzzles.errors import PuzzleError
from puzzles.kernels import successors
from puzzles.npuzzle import inplace  # noqa: F401 - registers the board kept in place
from puzzles.npuzzle import kernels as nk
from puzzles.npuzzle.board import MOVES, NPuzzleBoard, goal_tiles, is_solvable
from puzzles.npuzzle.pdb import default_partition, multipliers, parse_partition, tables
from puzzles.plugged import compiled_plugin_heuristic
from puzzles.problem import RESERVED_BITS, Heuristic, Kernels
from puzzles.registry import RegisteredHeuristics, check_options


class NPuzzleProblem(RegisteredHeuristics):
    """A W x H sliding-tile board to bring to its goal (`blank-last` or Korf's `blank-first`)."""

    domain = "npuzzle"
    default_heuristic = "linear-conflict"
    memo_by_default = False  # few states recur within a bound: the in-place IDA* is faster without one

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
        return successors(self.kernels.spec, self.kernels.max_branching, key)

    def is_goal(self, key: np.ndarray) -> bool:
        """True if the key is the goal board."""
        return bool(nk.is_goal(self.kernels.spec, key))

    def unsolvable_reason(self) -> str | None:
        """The inversion parity, where it rules the goal out: no search is needed."""
        return None if is_solvable(self.board, self.goal) else "unsolvable by the parity of the board"

    def format_move(self, move: int) -> str:
        """Where the blank goes: U, D, L or R."""
        return MOVES[move]

    def move_steps(self, move: int) -> int:
        """Every move slides one tile one cell."""
        return 1

    def merged(self, moves: list[int]) -> list[int]:
        """The moves as they are: every move slides one tile one cell, so none merge."""
        return list(moves)

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

    def heuristic_defaults(self, name: str) -> dict[str, str]:
        """`pdb` and `pdb-max` take the partition `pdb`, by default the board size's (6-6-3 on 4x4)."""
        return {"pdb": default_partition(self.board.width, self.board.height)} if name.startswith("pdb") else {}

    def check_heuristic(self, name: str, **params: str) -> None:
        """PuzzleError unless `name` (with its `pdb` partition, for `pdb` and `pdb-max`) fits this board; builds nothing."""
        check_options(self.domain, name, params)
        self._groups(name, params.get("pdb"))

    def heuristic(self, name: str, **params: str) -> Heuristic:
        """A registered N-puzzle heuristic (`puzzles.npuzzle.registered`); `pdb` and `pdb-max` take a partition (`pdb="6-6-3"`).

        The pattern databases are read from the cache directory, or built and
        saved there first, into the heuristic's own spec; the problem's is left as it is.
        """
        entry = check_options(self.domain, name, params)
        if entry.origin is not None:
            return compiled_plugin_heuristic(self, entry)
        groups = self._groups(name, params.get("pdb"))
        spec = self.kernels.spec
        if groups:
            spec = _with_databases(spec, groups, tables(self.board.width, self.board.height, self.goal, groups))
        return Heuristic(name, entry.code, np.zeros(1, dtype=np.float64), entry.admissible, spec)

    def _groups(self, name: str, pdb: str | None = None) -> tuple[tuple[int, ...], ...]:
        """The checked tile groups of a database heuristic (none for the others)."""
        width, height = self.board.width, self.board.height
        if not name.startswith("pdb"):
            return ()
        if name == "pdb-max" and width != height:
            raise PuzzleError(f"pdb-max mirrors the board about its diagonal: it needs a square board, not {width}x{height}")
        return parse_partition(pdb or self.heuristic_defaults(name)["pdb"], width, height)


def _compile_spec(board: NPuzzleBoard, goal: str) -> Kernels:
    """Lay the board out in bit fields and tabulate distances, moves, goal cells and the mirror image."""
    width, height, cells = board.width, board.height, board.width * board.height
    bits = max(cells - 1, 1).bit_length()
    per_word = 64 // bits
    key_words = -(-cells // per_word)
    if (cells - (key_words - 1) * per_word) * bits > 64 - RESERVED_BITS:
        key_words += 1
    target = goal_tiles(width, height, goal)
    spec = nk.Spec(
        width=width,
        height=height,
        cells=cells,
        bits=bits,
        per_word=per_word,
        goal=np.zeros(key_words, dtype=np.uint64),
        table=np.concatenate([_board_table(width, height, target), [0, 1]]),  # no pattern groups
        pdb_values=nk.databases(),
    )
    for cell, tile in enumerate(target):
        spec.goal[cell // per_word] |= np.uint64(tile) << np.uint64((cell % per_word) * bits)
    return Kernels(spec, key_words, 4)


def _board_table(width: int, height: int, target: tuple[int, ...]) -> np.ndarray:
    """The table's parts up to the groups (layout in `puzzles.npuzzle.kernels`)."""
    cells = width * height
    home = np.array([target.index(tile) for tile in range(cells)], dtype=np.int64)
    goal_row, goal_col = home // width, home % width
    row, col = np.divmod(np.arange(cells), width)
    distance = np.abs(row[None, :] - goal_row[:, None]) + np.abs(col[None, :] - goal_col[:, None])
    distance[0] = 0  # the blank's moves are not counted
    neighbor = np.stack([
        np.where(row > 0, np.arange(cells) - width, -1),
        np.where(row < height - 1, np.arange(cells) + width, -1),
        np.where(col > 0, np.arange(cells) - 1, -1),
        np.where(col < width - 1, np.arange(cells) + 1, -1),
    ], axis=1)
    mirror_cell = col * width + row if width == height else np.arange(cells)
    mirror_tile = np.array([target[mirror_cell[home[tile]]] for tile in range(cells)])
    none, nothing_passed = np.full(cells, -1), np.zeros(2 * cells * cells)
    parts = [distance.ravel(), neighbor.ravel(), goal_row, goal_col, mirror_cell, mirror_tile, none, none, none,
             nothing_passed]
    return np.concatenate(parts).astype(np.int64)


def _passed(table: np.ndarray, cells: int) -> np.ndarray:
    """[tile, other]: what `tile` sliding to a higher cell past `other` adds to their group's rank (0: not one group).

    A tile's digit is its cell less its group's earlier tiles on lower cells,
    so passing an earlier tile costs the tile's own multiplier, and passing a
    later one adds one to that tile's digit: its multiplier.
    """
    group, place, weight = (table[nk.at(cells, part) : nk.at(cells, part) + cells]
                            for part in (nk.GROUP_OF, nk.PLACE_OF, nk.MULTIPLIER_OF))
    same = (group[:, None] == group[None, :]) & (group[:, None] >= 0)
    earlier = place[None, :] < place[:, None]
    return np.where(same, np.where(earlier, -weight[:, None], weight[None, :]), 0)


def _with_databases(spec: nk.Spec, groups: tuple[tuple[int, ...], ...], values: tuple[np.ndarray, ...]) -> nk.Spec:
    """The spec with the groups' databases (one array per group in `values`) and the entries to rank placements."""
    cells, widest = spec.cells, max(len(group) for group in groups)
    table = spec.table[: nk.at(cells, nk.GROUPS)].copy()
    for index, group in enumerate(groups):
        table[nk.at(cells, nk.GROUP_OF) + np.array(group)] = index
        table[nk.at(cells, nk.PLACE_OF) + np.array(group)] = np.arange(len(group))
        table[nk.at(cells, nk.MULTIPLIER_OF) + np.array(group)] = multipliers(cells, len(group))
    passed = _passed(table, cells)
    mirror_tile = table[nk.at(cells, nk.MIRROR_TILE) : nk.at(cells, nk.MIRROR_TILE) + cells]
    table[nk.at(cells, nk.PASSED) : nk.at(cells, nk.MIRROR_PASSED)] = passed.ravel()
    table[nk.at(cells, nk.MIRROR_PASSED) : nk.at(cells, nk.GROUPS)] = passed[:, mirror_tile].ravel()
    rows = []
    for group in groups:
        padding = [0] * (widest - len(group))
        rows += [len(group), *group, *padding, *multipliers(cells, len(group)), *padding]
    table = np.concatenate([table, [len(groups), widest], rows]).astype(np.int64)
    return spec._replace(table=table, pdb_values=nk.databases(values))
