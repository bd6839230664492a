"""Puzzle instances as the runner stores them: a domain name and a canonical text.

The runner plans jobs on `Instance`s and its workers rebuild the `Problem` from
the stored text with `problem_for`, so a job runs on exactly the board that was
planned, whatever file it came from.
"""

import hashlib
from dataclasses import dataclass
from typing import Callable

from puzzles.errors import PuzzleError
from puzzles.problem import Problem
from puzzles.rushhour import RushHourProblem
from puzzles.rushhour_formats import canonical_text, load_board, parse_board


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
        return hashlib.sha256(self.text.encode()).hexdigest()


@dataclass(frozen=True)
class Domain:
    """How to read a domain's boards and rebuild its problems from canonical text."""

    load: Callable[[str], Instance]
    problem: Callable[[str], Problem]


def _load_rushhour(source: str) -> Instance:
    board = load_board(source)
    return Instance("rushhour", board.name, board.size, canonical_text(board))


def _rushhour_problem(text: str) -> Problem:
    return RushHourProblem(parse_board(text, fmt="json"))


DOMAINS: dict[str, Domain] = {"rushhour": Domain(_load_rushhour, _rushhour_problem)}


def load_instance(source: str, domain: str = "rushhour") -> Instance:
    """The instance in a board file or literal string; PuzzleError if it is not a valid board."""
    return _domain(domain).load(source)


def problem_for(domain: str, text: str) -> Problem:
    """The search problem of a stored instance."""
    return _domain(domain).problem(text)


def _domain(name: str) -> Domain:
    if name not in DOMAINS:
        raise PuzzleError(f"unknown domain {name!r} (choose from {', '.join(DOMAINS)})")
    return DOMAINS[name]
