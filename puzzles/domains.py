"""Puzzle instances as the runner stores them: a domain name and a canonical text.

The runner plans jobs on `Instance`s and its workers rebuild the `Problem` from
the stored text with `problem_for`, so a job runs on exactly the board that was
planned, whatever file it came from. An N-puzzle's goal is part of its text.
"""

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from puzzles.errors import PuzzleError
from puzzles.npuzzle import formats as npuzzle_formats
from puzzles.npuzzle import picture as npuzzle_picture
from puzzles.npuzzle import registered as _npuzzle_names  # noqa: F401 - registers the N-puzzle's heuristics
from puzzles.npuzzle.board import NPuzzleBoard
from puzzles.npuzzle.boardlist import load_npuzzle, load_npuzzles, split_board_list
from puzzles.npuzzle.formats import looks_like_npuzzle, parse_npuzzle
from puzzles.picture import Frames, Picture
from puzzles.problem import Problem
from puzzles.rushhour import formats as rushhour_formats
from puzzles.rushhour import picture as rushhour_picture
from puzzles.rushhour import registered as _rushhour_names  # noqa: F401 - registers Rush Hour's heuristics
from puzzles.rushhour.board import RushHourBoard
from puzzles.textio import read_text, text_id

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


@dataclass(frozen=True)
class Domain:
    """What the runner and the command line ask of a domain, of a board given by its canonical text.

    `title` names the domain in a sentence. `picture` draws a board as SVG;
    `frames` places its pieces at the start and after each move of a solution
    (moves in the domain's notation).
    """

    title: str
    load: Callable[[str], Instance]
    problem: Callable[[str, str | None], Problem]  # (canonical text, move model or None)
    picture: Callable[[str], Picture]
    frames: Callable[[str, list[str]], Frames]


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


DOMAINS: dict[str, Domain] = {
    "rushhour": Domain(
        "Rush Hour", _load_rushhour, _rushhour_problem,
        picture=lambda text: rushhour_picture.picture(rushhour_formats.parse_board(text, fmt="json")),
        frames=lambda text, moves: rushhour_picture.frames(rushhour_formats.parse_board(text, fmt="json"), moves),
    ),
    "npuzzle": Domain(
        "the N-puzzle", _load_npuzzle, _npuzzle_problem,
        picture=lambda text: npuzzle_picture.picture(parse_npuzzle(text, fmt="json")),
        frames=lambda text, moves: npuzzle_picture.frames(parse_npuzzle(text, fmt="json"), moves),
    ),
}


def detectfind_domain(source: str) -> str:
    """`npuzzle` for a board list (``FILE[#ID]``), a file or literal of numbers, or N-puzzle JSON; else `rushhour`."""
    if split_board_list(source) is not None:
        return "npuzzle"
    text = read_text(Path(source), source) if os.path.isfile(source) else source
    return "npuzzle" if looks_like_npuzzle(text) else "rushhour"


def load_instance(source: str, domain: str | None = None) -> Instance:
    """The instance in a board file or literal string (its domain detected if not given); PuzzleError if invalid."""
    return find_domain(domain or detectfind_domain(source)).load(source)


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
    if detectfind_domain(source) == "npuzzle":
        return [_npuzzle_instance(board, source) for board in load_npuzzles(source, goal=goal)]
    return [load_instance(source, "rushhour")]


def load_problem(source: str, *, size: int | None = None, move_model: str = "slide", goal: str | None = None) -> Problem:
    """The search problem of a board file or literal (Rush Hour or N-puzzle); PuzzleError if invalid.

    `size` and `move_model` apply to Rush Hour boards, `goal` to N-puzzle boards that give none of their own.
    """
    if detectfind_domain(source) == "npuzzle":
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
