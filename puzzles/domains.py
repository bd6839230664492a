"""Puzzle instances as the runner stores them: a domain name and a canonical text.

The runner plans jobs on `Instance`s and its workers rebuild the `Problem` from
the stored text with `problem_for`, so a job runs on exactly the board that was
planned, whatever file it came from. An N-puzzle's goal is part of its text.
"""

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from puzzles.errors import PuzzleError
from puzzles.npuzzle import boardlist
from puzzles.npuzzle import formats as npuzzle_formats
from puzzles.npuzzle import picture as npuzzle_picture
from puzzles.npuzzle import registered as _npuzzle_names  # noqa: F401 - registers the N-puzzle's heuristics
from puzzles.npuzzle.board import DEFAULT_GOAL, NPuzzleBoard, check_goal
from puzzles.npuzzle.boardlist import load_npuzzle, load_npuzzles, split_board_list
from puzzles.npuzzle.formats import looks_like_npuzzle, parse_npuzzle
from puzzles.picture import Card, Frames, Picture, TextGrid
from puzzles.problem import Problem
from puzzles.rushhour import formats as rushhour_formats
from puzzles.rushhour import picture as rushhour_picture
from puzzles.rushhour import registered as _rushhour_names  # noqa: F401 - registers Rush Hour's heuristics
from puzzles.rushhour.board import RushHourBoard
from puzzles.textio import read_text, text_id

if TYPE_CHECKING:
    from puzzles.rushhour.problem import RushHourProblem

LITERAL_NAME_CHARS = 40


@dataclass(frozen=True)
class Instance:
    """A validated board: its domain, name, size and canonical text."""

    domain: str
    name: str
    size: int
    text: str

    @property
    def id(self) -> str:
        """The sha256 of the canonical text: equal boards share it."""
        return text_id(self.text)


class ReadyDatabase(Protocol):
    """A database in its file: the file, its entries and the most moves it holds."""

    @property
    def path(self) -> Path: ...
    @property
    def entries(self) -> int: ...
    @property
    def deepest(self) -> int: ...


class PatternDatabases(Protocol):
    """A domain's pattern databases, made ready beforehand so that jobs only load them (the N-puzzle's `pdb` module)."""

    def groups(self, width: int, height: int, goal: str, partition: str | None = None) -> tuple[tuple[int, ...], ...]:
        """The tile groups of `partition` (default: the size's own); PuzzleError for an unknown goal or partition."""

    def ready(self, width: int, height: int, goal: str, tiles: tuple[int, ...],
              progress: Callable[[int, int], None] | None = None, rebuild: bool = False) -> ReadyDatabase:
        """One group's database read and verified from its file, else (or if `rebuild`) built and saved."""

    def directory(self) -> Path:
        """Where the database files are kept."""


@dataclass(frozen=True)
class Domain:
    """What the runner and the command line ask of a domain, of a board given by its canonical text.

    `title` names the domain in a sentence, `name` in a table. `load` reads a
    board file or literal, `problem` makes the search problem of a board.
    `picture` draws a board as SVG; `frames` places its pieces at the start and
    after each move of a solution (moves in the domain's notation). `card`
    describes a board in text. `generate` makes fresh boards (`size`, `count`,
    `seed`, `prefix` of their names, the generation's options by keyword) with
    the optima it knows of them, by board id. What a domain may lack is None:
    `text_frames` (a solution's boards as text grids, from its problem and move
    codes), `analysis` (every board of a `width` x `height` space with its
    distance and each heuristic's estimate, as columns) and `pattern_databases`.
    """

    title: str
    name: str
    load: Callable[[str], Instance]
    problem: Callable[[str, str | None], Problem]  # (canonical text, move model or None)
    picture: Callable[[str], Picture]
    frames: Callable[[str, list[str]], Frames]
    card: Callable[[str], Card]
    generate: Callable[..., tuple[list[Instance], dict[str, int]]]
    text_frames: Callable[[Problem, list[int]], list[TextGrid]] | None = None
    analysis: Callable[[int, int, str, list[str] | None], dict[str, Any]] | None = None  # (width, height, goal, partitions)
    pattern_databases: Callable[[], PatternDatabases] | None = None


def instance_of(board: RushHourBoard | NPuzzleBoard, name: str = "") -> Instance:
    """The instance of a board object (a generated one, say), named after the board or `name`."""
    if isinstance(board, NPuzzleBoard):
        return Instance("npuzzle", board.name or name, board.width, npuzzle_formats.canonical_text(board))
    return Instance("rushhour", board.name or name, board.size, rushhour_formats.canonical_text(board))


def _load_rushhour(source: str) -> Instance:
    return instance_of(rushhour_formats.load_board(source), _literal_name(source))


def _rushhour_problem(text: str, move_model: str | None) -> Problem:
    return _rushhour(rushhour_formats.parse_board(text, fmt="json"), move_model or "slide")


def _rushhour(board: RushHourBoard, move_model: str) -> Problem:
    from puzzles.rushhour.problem import RushHourProblem  # the compiled kernels load only once a search needs them

    return RushHourProblem(board, move_model=move_model)


def _npuzzle(board: NPuzzleBoard) -> Problem:
    from puzzles.npuzzle.problem import NPuzzleProblem  # as _rushhour

    return NPuzzleProblem(board)


def _load_npuzzle(source: str) -> Instance:
    return _npuzzle_instance(load_npuzzle(source), source)


def _npuzzle_instance(board: NPuzzleBoard, source: str) -> Instance:
    return instance_of(board, _literal_name(source))


def _literal_name(text: str) -> str:
    """A board given as a literal string is named by the string itself, if it is short and on one line."""
    return text if len(text) <= LITERAL_NAME_CHARS and "\n" not in text else ""


def _npuzzle_problem(text: str, move_model: str | None) -> Problem:
    _check_npuzzle_move_model(move_model)
    return _npuzzle(parse_npuzzle(text, fmt="json"))


def _check_npuzzle_move_model(move_model: str | None) -> None:
    if move_model not in (None, "slide"):
        raise PuzzleError(f"the N-puzzle has one move model (a tile slides one cell), not {move_model!r}")


def _rushhour_board(text: str) -> RushHourBoard:
    return rushhour_formats.parse_board(text, fmt="json")


def _rushhour_text_frames(problem: Problem, moves: list[int]) -> list[TextGrid]:
    rushhour = cast("RushHourProblem", problem)
    return [rushhour_picture.text_grid(rushhour.board_at(key)) for key in rushhour.play(moves)]


def _generate_rushhour(size: int, count: int, seed: int, prefix: str, **options: Any) -> tuple[list[Instance], dict[str, int]]:
    from puzzles.rushhour.generate import TooFewBoards, hardest_boards  # compiled: loaded only to generate

    if {"walk", "height"} & options.keys():
        raise PuzzleError("--walk and --height are N-puzzle options")
    try:
        found = hardest_boards(size, count, seed, min_moves=options.get("min_moves"), moves=options.get("moves"),
                               max_attempts=options.get("max_attempts"), prefix=prefix)
    except TooFewBoards as err:
        easier = "--moves" if options.get("moves") else "--min-moves"
        raise PuzzleError(f"{err}: allow more with --max-attempts, or ask for an easier {easier}") from None
    boards = [instance_of(board) for board, _ in found]
    return boards, {board.id: optimum for board, (_, optimum) in zip(boards, found)}


def _generate_npuzzle(size: int, count: int, seed: int, prefix: str, **options: Any) -> tuple[list[Instance], dict[str, int]]:
    from puzzles.npuzzle.generate import random_boards

    if {"min_moves", "moves", "max_attempts"} & options.keys():
        raise PuzzleError("--min-moves, --moves and --max-attempts are Rush Hour options (the N-puzzle takes --walk)")
    boards = random_boards(size, options.get("height") or size, count, seed, walk=options.get("walk"),
                           goal=options.get("goal", DEFAULT_GOAL), prefix=prefix)
    return [instance_of(board) for board in boards], {}


def _npuzzle_analysis(width: int, height: int, goal: str, partitions: list[str] | None) -> dict[str, Any]:
    from puzzles.npuzzle.analysis import analysis  # compiled: loaded only to analyze

    return analysis(width, height, goal, partitions)


def _npuzzle_databases() -> PatternDatabases:
    from puzzles.npuzzle import pdb  # compiled: loaded only to build

    return pdb


DOMAINS: dict[str, Domain] = {
    "rushhour": Domain(
        "Rush Hour", "Rush Hour", _load_rushhour, _rushhour_problem,
        picture=lambda text: rushhour_picture.picture(_rushhour_board(text)),
        frames=lambda text, moves: rushhour_picture.frames(_rushhour_board(text), moves),
        card=lambda text: rushhour_picture.card(_rushhour_board(text)),
        generate=_generate_rushhour,
        text_frames=_rushhour_text_frames,
    ),
    "npuzzle": Domain(
        "the N-puzzle", "N-puzzle", _load_npuzzle, _npuzzle_problem,
        picture=lambda text: npuzzle_picture.picture(parse_npuzzle(text, fmt="json")),
        frames=lambda text, moves: npuzzle_picture.frames(parse_npuzzle(text, fmt="json"), moves),
        card=lambda text: npuzzle_picture.card(parse_npuzzle(text, fmt="json")),
        generate=_generate_npuzzle,
        analysis=_npuzzle_analysis,
        pattern_databases=_npuzzle_databases,
    ),
}


def is_board_list(source: str) -> bool:
    """True if `source` names a board list, or a row of one (``FILE#ID``)."""
    return split_board_list(source) is not None


def listed_optima(sources: list[str], *, goal: str | None = None) -> dict[str, int]:
    """The known optima that the board lists among `sources` give in their `optimal` column, by board id."""
    return boardlist.listed_optima(sources, goal=goal)


def check_board_goal(goal: str) -> None:
    """PuzzleError unless boards may be given `goal` (the N-puzzle's goals; Rush Hour boards have their exit)."""
    check_goal(goal)


def detect_domain(source: str) -> str:
    """`npuzzle` for a board list (``FILE[#ID]``), a file or literal of numbers, or N-puzzle JSON; else `rushhour`."""
    if split_board_list(source) is not None:
        return "npuzzle"
    text = read_text(Path(source), source) if os.path.isfile(source) else source
    return "npuzzle" if looks_like_npuzzle(text) else "rushhour"


def load_instance(source: str, domain: str | None = None) -> Instance:
    """The instance in a board file or literal string (its domain detected if not given); PuzzleError if invalid."""
    return find_domain(domain or detect_domain(source)).load(source)


def instance_from_text(domain: str, text: str) -> Instance:
    """The instance of a board's text in a known domain, any of its formats; never read from a file."""
    if domain == "npuzzle":
        return instance_of(parse_npuzzle(text), _literal_name(text))
    find_domain(domain)
    return instance_of(rushhour_formats.parse_board(text), _literal_name(text))


def load_instances(source: str, *, goal: str | None = None) -> list[Instance]:
    """Every instance of a source: one per row of an N-puzzle board list (or the row ``FILE#ID`` picks), else one.

    `goal` is the goal of the N-puzzle boards that give none of their own (a
    JSON "goal" key, a board list's goal column); Rush Hour boards ignore it.
    """
    if detect_domain(source) == "npuzzle":
        return [_npuzzle_instance(board, source) for board in load_npuzzles(source, goal=goal)]
    return [load_instance(source, "rushhour")]


def load_problem(source: str, *, size: int | None = None, move_model: str = "slide", goal: str | None = None) -> Problem:
    """The search problem of a board file or literal (Rush Hour or N-puzzle); PuzzleError if invalid.

    `size` and `move_model` apply to Rush Hour boards, `goal` to N-puzzle boards that give none of their own.
    """
    if detect_domain(source) == "npuzzle":
        _check_npuzzle_move_model(move_model)
        return _npuzzle(load_npuzzle(source, goal=goal))
    return _rushhour(rushhour_formats.load_board(source, size=size), move_model)


def problem_for(domain: str, text: str, move_model: str | None = None) -> Problem:
    """The search problem of a stored instance, under a move model (Rush Hour's `slide` by default, or `step`)."""
    return find_domain(domain).problem(text, move_model)


def find_domain(name: str) -> Domain:
    """The domain called `name`; PuzzleError naming the domains if there is none."""
    if name not in DOMAINS:
        raise PuzzleError(f"unknown domain {name!r} (choose from {', '.join(DOMAINS)})")
    return DOMAINS[name]
