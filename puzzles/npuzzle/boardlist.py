"""N-puzzle boards from where users keep them: files, literal strings, and board lists.

A *board list* is a CSV file of many boards, one per row, under a header with
a ``tiles`` column (the board in the ``line`` or ``digits`` format of
`puzzles.npuzzle.formats`); the optional columns ``id``, ``name`` and
``goal`` give each row's id (default: its 1-based position), name (default
``<file stem>-<id>``) and goal (default: the reader's); other columns are kept
as text, unparsed. Blank lines and lines starting with ``#`` are skipped.
``FILE#ID`` names the one row with that id. An ``optimal`` column gives the
boards' known optima (fewest moves), where it is not empty.

Every problem with the input is a `PuzzleError` naming the source and, where
there is one, the 1-based line.
"""

import csv
import os
import string
from dataclasses import dataclass
from pathlib import Path

from puzzles.errors import PuzzleError
from puzzles.npuzzle.board import NPuzzleBoard, check_goal
from puzzles.npuzzle.formats import GOAL_KEY, LITERAL_SOURCE, canonical_text, check_given_shape, parse_npuzzle
from puzzles.textio import neither_file_nor_board, read_text, text_id

TILES_COLUMN = "tiles"
OPTIMAL_COLUMN = "optimal"
ROW_SELECTOR = "#"
_LITERAL_CHARS = set(string.digits + string.whitespace + ",/-+")


@dataclass(frozen=True)
class ListedBoard:
    """A row of a board list: its board, id and 1-based line, and its columns but the tiles, as text."""

    board: NPuzzleBoard
    id: str
    line: int
    columns: dict[str, str]


def load_npuzzle(
    source: str, *, width: int | None = None, height: int | None = None, goal: str | None = None
) -> NPuzzleBoard:
    """Load a board from a file path, ``FILE#ID`` of a board list, or a literal board string if `source` is no file.

    A file's board is named after the file's stem; a ``.json`` file is read as
    JSON, a board list must hold one row (or be picked from with ``#ID``), any
    other file is read in the format detected. A string that names no file is
    read as a board (named "") if it has a newline, starts with "{" or has only
    digits, spaces, commas, "/" and signs (before any "#" comment); otherwise it
    is reported as a missing file. `goal` is the goal of a board whose text
    gives none (see `parse_npuzzle`).
    """
    if (listed := split_board_list(source)) is not None:
        return _one_board(_listed_boards(*listed, goal), source, width, height)
    if os.path.isfile(source):
        path = Path(source)
        fmt = "json" if path.suffix.lower() == ".json" else None
        text = read_text(path, source)
        return parse_npuzzle(text, source=source, name=path.stem, width=width, height=height, fmt=fmt, goal=goal)
    literal = set(source.split("#", 1)[0]) <= _LITERAL_CHARS
    if "\n" not in source and not source.lstrip().startswith("{") and not literal:
        alphabet = "the digits 0-9, spaces, commas and / (tiles 0 to N-1, 0 the blank)"
        raise PuzzleError(neither_file_nor_board(source, _LITERAL_CHARS, alphabet), source=source)
    return parse_npuzzle(source, source=LITERAL_SOURCE, width=width, height=height, goal=goal)


def load_npuzzles(source: str, *, goal: str | None = None) -> list[NPuzzleBoard]:
    """Every board of a source: each row of a board list (or the one ``FILE#ID`` picks), else `load_npuzzle`'s one."""
    if (listed := split_board_list(source)) is None:
        return [load_npuzzle(source, goal=goal)]
    return _listed_boards(*listed, goal)


def split_board_list(source: str) -> tuple[str, str | None] | None:
    """(file, row id or None) for a board-list file named alone or as ``FILE#ID``; None for any other source."""
    path, selector = source, None
    if not os.path.isfile(source) and ROW_SELECTOR in source:
        path, _, selector = source.rpartition(ROW_SELECTOR)
    if not os.path.isfile(path):
        return None
    if is_board_list(read_text(Path(path), path)):
        return path, selector
    if selector is not None:
        raise PuzzleError(
            f"{ROW_SELECTOR}{selector} picks a row of a board list, a CSV file with a {TILES_COLUMN!r} column",
            source=path,
        )
    return None


def is_board_list(text: str) -> bool:
    """True for a board list: CSV whose header (its first line not blank or a ``#`` comment) has a tiles column."""
    lines = _list_lines(text)
    try:
        return bool(lines) and TILES_COLUMN in _fields(lines[0][1], "", None)
    except PuzzleError:
        return False  # a line no CSV reader takes is no board list; the domain's own parser says what is wrong


def read_board_list(path: str, *, goal: str | None = None) -> list[ListedBoard]:
    """Every row of a board-list file (see the module docstring), with its extra columns such as a known optimum.

    `goal` is the goal of the rows without one (default ``blank-last``). A bad
    row is a `PuzzleError` naming the file and its line.
    """
    if goal is not None:
        check_goal(goal)
    lines = _list_lines(read_text(Path(path), path))
    if not lines:
        raise PuzzleError("empty board list (only comments)", source=path)
    (header_line, header), rows = lines[0], lines[1:]
    columns = _header(_fields(header, path, header_line), path, header_line)
    if not rows:
        raise PuzzleError("the board list has a header but no rows", source=path)
    stem = Path(path).stem
    listed = [_listed_board(columns, line, index, path, stem, goal) for index, line in enumerate(rows, 1)]
    _check_unique_ids(listed, path)
    return listed


def _list_lines(text: str) -> list[tuple[int, str]]:
    """The lines of a board list with their 1-based numbers, blank lines and ``#`` comment lines left out."""
    lines = enumerate(text.splitlines(), 1)
    return [(number, line) for number, line in lines if line.strip() and not line.lstrip().startswith("#")]


def _fields(line: str, source: str, number: int | None) -> list[str]:
    """The fields of one CSV line, stripped; a PuzzleError for a line the CSV reader refuses (a field over 128 KiB)."""
    try:
        return [field.strip() for field in next(csv.reader([line]))]
    except csv.Error as err:
        raise PuzzleError(f"not a CSV line: {err}", source=source, line=number) from None


def _header(columns: list[str], path: str, line: int) -> list[str]:
    """A board list's column names, once the tiles column is there and no name repeats."""
    if TILES_COLUMN not in columns:
        raise PuzzleError(f"the header names no {TILES_COLUMN!r} column", source=path, line=line)
    repeated = sorted({column for column in columns if columns.count(column) > 1})
    if repeated:
        raise PuzzleError(f"the header repeats the column {', '.join(map(repr, repeated))}", source=path, line=line)
    return columns


def _listed_board(
    columns: list[str], line: tuple[int, str], index: int, path: str, stem: str, goal: str | None
) -> ListedBoard:
    """The board of the `index`-th row of a board list, on line number `line[0]`."""
    number, text = line
    fields = _fields(text, path, number)
    if len(fields) != len(columns):
        raise PuzzleError(
            f"the row has {len(fields)} fields but the header has {len(columns)}", source=path, line=number
        )
    values = dict(zip(columns, fields))
    row_id = values.get("id", str(index))
    if not row_id:
        raise PuzzleError("the row has an empty id", source=path, line=number)
    name = values.get("name") or f"{stem}-{row_id}"
    try:
        board = parse_npuzzle(values[TILES_COLUMN], source=path, name=name, goal=values.get(GOAL_KEY) or goal)
    except PuzzleError as err:  # a bad goal or bad tiles: named by the file's line, not the field's
        raise PuzzleError(err.message, source=path, line=number) from None
    columns_but_tiles = {column: value for column, value in values.items() if column != TILES_COLUMN}
    return ListedBoard(board, row_id, number, columns_but_tiles)


def _check_unique_ids(rows: list[ListedBoard], path: str) -> None:
    """Reject a board list in which two rows have the same id."""
    first: dict[str, int] = {}
    for row in rows:
        if row.id in first:
            raise PuzzleError(f"id {row.id!r} is also on line {first[row.id]}", source=path, line=row.line)
        first[row.id] = row.line


def _listed_boards(path: str, selector: str | None, goal: str | None) -> list[NPuzzleBoard]:
    """The boards of a board list's rows, or of the one row whose id is `selector`."""
    rows = read_board_list(path, goal=goal)
    picked = [row.board for row in rows if selector in (None, row.id)]
    if not picked:
        raise PuzzleError(
            f"no row has the id {selector!r} (the {len(rows)} rows run from {rows[0].id!r} to {rows[-1].id!r})",
            source=path,
        )
    return picked


def _one_board(boards: list[NPuzzleBoard], source: str, width: int | None, height: int | None) -> NPuzzleBoard:
    """The one board picked from a board list, its shape agreeing with a width or height given."""
    if len(boards) != 1:
        raise PuzzleError(
            f"the board list holds {len(boards)} boards: pick one as {source}{ROW_SELECTOR}ID", source=source
        )
    check_given_shape(boards[0].width, boards[0].height, width, height, source)
    return boards[0]


def listed_optima(sources: list[str], *, goal: str | None = None) -> dict[str, int]:
    """The known optima that the board lists among `sources` give in their `optimal` column, by board id.

    PuzzleError for a value that is no whole number, or a board given two optima.
    """
    optima: dict[str, int] = {}
    for source in sources:
        if (listed := split_board_list(source)) is not None:
            _add_listed_optima(optima, listed[0], goal)
    return optima


def _add_listed_optima(optima: dict[str, int], path: str, goal: str | None) -> None:
    """Add the optima of a board list's rows; PuzzleError if a board has two."""
    for row in read_board_list(path, goal=goal):
        optimum = _optimum(row, path)
        board_id = text_id(canonical_text(row.board))
        if optimum is not None and optima.setdefault(board_id, optimum) != optimum:
            raise PuzzleError(f"the board has the optimum {optima[board_id]} on an earlier line", source=path, line=row.line)


def _optimum(row: ListedBoard, path: str) -> int | None:
    """A board list row's `optimal` column: a whole number of moves, or None when empty or absent."""
    text = row.columns.get(OPTIMAL_COLUMN, "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise PuzzleError(f"{OPTIMAL_COLUMN} must be a whole number of moves or empty, not {text!r}", source=path, line=row.line)
    return int(text)
