"""Reading and writing N-puzzle boards in the four formats of the project.

- ``rows``: one line per row of numbers, separated by spaces and/or commas;
  blank lines are skipped and ``#`` starts a comment.
- ``line``: all the numbers on one line, rows separated by ``/``
  (``1 2 3/4 5 6/7 8 0``). Without ``/`` a square count of numbers is a square
  board (9 numbers are 3x3, 16 are 4x4); any other count needs the width or
  the height.
- ``digits``: one digit per tile with nothing between them, for boards of at
  most 10 cells (``123456780`` is 3x3); the shape follows the rule of ``line``.
- ``json``: one object with sorted keys and no spaces, the *canonical text* of
  a board, whose sha256 is its id in the results database:
  ``{"height":3,"tiles":[1,2,3,4,5,6,7,8,0],"width":3}``, with a ``"goal"``
  key only for a goal other than ``blank-last`` (so blank-last boards keep the
  ids they always had). Any JSON of this shape is read (spaces, key order),
  but `format_npuzzle` writes the one canonical text. The name of a board is
  metadata and not part of it.

Only JSON carries a goal; a board in another format gets the goal its reader
is given (``blank-last`` by default).

A *board list* is a CSV file of many boards, one per row, under a header with
a ``tiles`` column (the board in the ``line`` or ``digits`` format); the
optional columns ``id``, ``name`` and ``goal`` give each row's id (default:
its 1-based position), name (default ``<file stem>-<id>``) and goal (default:
the reader's); other columns are kept as text, unparsed. Blank lines and lines
starting with ``#`` are skipped. ``FILE#ID`` names the one row with that id.

Tiles are 0 (the blank) to W*H-1, each once; W and H are 2 to 8. Every problem
with the input is a `PuzzleError` naming the source and, where there is one,
the 1-based line.
"""

import csv
import json
import math
import os
import re
import string
from dataclasses import dataclass, replace
from pathlib import Path

from puzzles.errors import PuzzleError
from puzzles.textio import brief, is_integer, json_load, json_object, read_text
from puzzles.npuzzle import DEFAULT_GOAL, GOALS, MAX_SIDE, MIN_SIDE, NPuzzleBoard, check_goal

FORMATS = ("rows", "line", "digits", "json")
JSON_KEYS = ("height", "tiles", "width")
GOAL_KEY = "goal"
TILES_COLUMN = "tiles"
ROW_SELECTOR = "#"
MAX_DIGITS = 10
MAX_LISTED = 8
LITERAL_SOURCE = "<board>"
_LITERAL_CHARS = set(string.digits + string.whitespace + ",/-+")
_NUMBER_CHARS = set(string.digits + string.whitespace + ",/")
_SEPARATORS = re.compile(r"[\s,]+")
_INTEGER = re.compile(r"[+-]?[0-9]+")

Token = tuple[int, str]  # (1-based line, text)


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
        raise PuzzleError("not a regular file" if os.path.exists(source) else "no such file", source=source)
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
    return bool(lines) and TILES_COLUMN in _fields(lines[0][1])


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
    columns = _header(_fields(header), path, header_line)
    if not rows:
        raise PuzzleError("the board list has a header but no rows", source=path)
    stem = Path(path).stem
    listed = [_listed_board(columns, line, index, path, stem, goal) for index, line in enumerate(rows, 1)]
    _check_unique_ids(listed, path)
    return listed


def parse_npuzzle(
    text: str,
    *,
    source: str = LITERAL_SOURCE,
    name: str = "",
    width: int | None = None,
    height: int | None = None,
    fmt: str | None = None,
    goal: str | None = None,
) -> NPuzzleBoard:
    """Parse a board in any of the four formats: `fmt`, or the one detected from the text.

    A width or height given must agree with the board's (and fixes the shape
    of a ``line`` or ``digits`` board that has no "/"). `goal` is the board's
    goal unless the text gives its own (JSON's "goal" key); without either, it
    is ``blank-last``.
    """
    if fmt is not None:
        _check_format(fmt, source)
    if goal is not None:
        check_goal(goal)
    for side, value in (("width", width), ("height", height)):
        if value is not None:
            _check_side(side, value, source)
    if not text.strip():
        raise PuzzleError("empty board", source=source)
    fmt = fmt or detect_npuzzle_format(text)
    if fmt == "json":
        return _parse_json(text, source, name, width, height, goal)
    board = _parse_numbers(text, fmt, source, name, width, height)
    return board if goal is None else replace(board, goal=goal)


def _parse_numbers(
    text: str, fmt: str, source: str, name: str, width: int | None, height: int | None
) -> NPuzzleBoard:
    """A board in the ``rows``, ``line`` or ``digits`` format, with the default goal."""
    lines = _content_lines(text)
    if not lines:
        raise PuzzleError("empty board (only comments)", source=source)
    if fmt == "digits":
        return _parse_digits(lines, source, name, width, height)
    rows = [
        (number, tokens)
        for number, line in lines
        for part in line.split("/")
        if (tokens := [token for token in _SEPARATORS.split(part.strip()) if token])
    ]
    if not rows:
        raise PuzzleError("empty board", source=source)
    if len(rows) == 1:
        number, tokens = rows[0]
        w, h = _flat_shape(len(tokens), width, height, source, number)
        return _board([(number, token) for token in tokens], w, h, source, name)
    return _parse_rows(rows, source, name, width, height)


def detect_npuzzle_format(text: str) -> str:
    """The format of a board text: "rows", "line", "digits" or "json".

    JSON if its first non-blank character is "{"; ``digits`` if it is one word
    of two or more digits; ``line`` if it has one line (comments and blank lines
    aside); otherwise ``rows``.
    """
    if text.lstrip().startswith("{"):
        return "json"
    lines = _content_lines(text)
    if len(lines) == 1 and len(word := lines[0][1]) >= 2 and word.isascii() and word.isdigit():
        return "digits"
    return "line" if len(lines) <= 1 else "rows"


def looks_like_npuzzle(text: str) -> bool:
    """True for a text that can only be an N-puzzle board, never a Rush Hour one.

    That is numbers (digits, spaces, commas, "/", ``#`` comments) with at least
    one digit, or a JSON object with a "tiles" key. Rush Hour boards are written
    in letters, ``o``, ``.`` and ``x``, or as CSV under a ``car,...`` header.
    """
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return False
        return isinstance(data, dict) and "tiles" in data
    content = "".join(line + "\n" for _, line in _content_lines(text))
    return set(content) <= _NUMBER_CHARS and any(char in string.digits for char in content)


def format_npuzzle(board: NPuzzleBoard, fmt: str) -> str:
    """Write a board as "rows", "line", "digits" or "json" text.

    ``rows`` right-aligns the numbers in columns; ``line`` always separates the
    rows with "/"; ``digits`` is only for boards of at most 10 cells; JSON is the
    board's canonical text, the goal in it only when it is not ``blank-last``.
    """
    source = board.name or LITERAL_SOURCE
    _check_format(fmt, source)
    if fmt == "json":
        data: dict[str, object] = {"height": board.height, "tiles": list(board.tiles), "width": board.width}
        if board.goal != DEFAULT_GOAL:
            data[GOAL_KEY] = board.goal
        return json.dumps(data, sort_keys=True, separators=(",", ":"))
    if fmt == "digits":
        if len(board.tiles) > MAX_DIGITS:
            raise PuzzleError(
                f"a {board.width}x{board.height} board has {len(board.tiles)} cells; digit strings hold at most"
                f" {MAX_DIGITS}",
                source=source,
            )
        return "".join(map(str, board.tiles))
    if fmt == "line":
        return "/".join(" ".join(map(str, row)) for row in board.rows())
    digits = len(str(len(board.tiles) - 1))
    return "".join(" ".join(f"{tile:>{digits}}" for tile in row) + "\n" for row in board.rows())


def canonical_text(board: NPuzzleBoard) -> str:
    """The board's canonical text: its compact, sorted JSON, with its goal but without its name."""
    return format_npuzzle(board, "json")


def _check_format(fmt: str, source: str) -> None:
    """Reject a format name that is not one of `FORMATS`."""
    if fmt not in FORMATS:
        raise PuzzleError(f"unknown board format {fmt!r} (choose from {', '.join(FORMATS)})", source=source)


def _check_side(side: str, value: object, source: str) -> None:
    """Reject a width or height given that is not an integer from 2 to 8."""
    if not is_integer(value) or not MIN_SIDE <= value <= MAX_SIDE:
        raise PuzzleError(f"{side} must be an integer from {MIN_SIDE} to {MAX_SIDE}, got {value!r}", source=source)


def _check_shape(w: int, h: int, source: str, line: int | None) -> None:
    """Reject a board narrower or wider than the sides allow."""
    if not (MIN_SIDE <= w <= MAX_SIDE and MIN_SIDE <= h <= MAX_SIDE):
        raise PuzzleError(
            f"board is {w}x{h}; width and height must be {MIN_SIDE} to {MAX_SIDE}", source=source, line=line
        )


def _check_given(w: int, h: int, width: int | None, height: int | None, source: str) -> None:
    """Reject a board whose shape disagrees with the width or height the caller gave."""
    for side, actual, given in (("width", w, width), ("height", h, height)):
        if given is not None and given != actual:
            raise PuzzleError(f"board is {w}x{h} but {side} {given} was given", source=source)


def _content_lines(text: str) -> list[tuple[int, str]]:
    """The non-blank lines, comments cut off, each with its 1-based number."""
    cut = ((number, line.split("#", 1)[0].strip()) for number, line in enumerate(text.splitlines(), 1))
    return [(number, line) for number, line in cut if line]


def _flat_shape(count: int, width: int | None, height: int | None, source: str, line: int) -> tuple[int, int]:
    """The width and height of `count` tiles given without rows: as given, or square."""
    if width is not None and height is not None:
        if width * height != count:
            raise PuzzleError(
                f"a {width}x{height} board has {width * height} tiles, got {count}", source=source, line=line
            )
        return width, height
    side = width or height
    if side is not None:
        if count % side:
            given = "width" if width is not None else "height"
            raise PuzzleError(f"{count} tiles do not fill rows of {given} {side}", source=source, line=line)
        return (side, count // side) if width is not None else (count // side, side)
    side = math.isqrt(count)
    if side * side != count:
        raise PuzzleError(
            f"{count} tiles do not make a square board: separate the rows with '/' or give the width or height",
            source=source,
            line=line,
        )
    _check_shape(side, side, source, line)
    return side, side


def _parse_rows(
    rows: list[tuple[int, list[str]]], source: str, name: str, width: int | None, height: int | None
) -> NPuzzleBoard:
    """Build a board from rows of number words, each row as long as the first."""
    w = len(rows[0][1])
    for index, (number, tokens) in enumerate(rows, 1):
        if len(tokens) != w:
            raise PuzzleError(f"row {index} has {len(tokens)} tiles but row 1 has {w}", source=source, line=number)
    _check_shape(w, len(rows), source, rows[0][0])
    _check_given(w, len(rows), width, height, source)
    return _board([(number, token) for number, tokens in rows for token in tokens], w, len(rows), source, name)


def _parse_digits(
    lines: list[tuple[int, str]], source: str, name: str, width: int | None, height: int | None
) -> NPuzzleBoard:
    """Build a board from one word of digits, a digit per tile."""
    number, word = lines[0]
    if len(lines) > 1 or not (word.isascii() and word.isdigit()):
        raise PuzzleError("a digit string is one word of digits 0-9, one per tile", source=source, line=number)
    if len(word) > MAX_DIGITS:
        raise PuzzleError(
            f"a digit string holds at most {MAX_DIGITS} tiles, got {len(word)} digits;"
            " separate numbers with spaces",
            source=source,
            line=number,
        )
    w, h = _flat_shape(len(word), width, height, source, number)
    return _board([(number, digit) for digit in word], w, h, source, name)


def _board(tokens: list[Token], w: int, h: int, source: str, name: str) -> NPuzzleBoard:
    """The board of `w` x `h` number words, once each is an integer and the tiles are 0..w*h-1 once each."""
    _check_shape(w, h, source, tokens[0][0] if tokens else None)
    tiles: list[int] = []
    for number, token in tokens:
        if not _INTEGER.fullmatch(token):
            raise PuzzleError(f"{token!r} is not a tile number (an integer)", source=source, line=number)
        tiles.append(int(token))
    _check_tiles(tiles, [number for number, _ in tokens], w, h, source)
    return NPuzzleBoard(w, h, tuple(tiles), name)


def _check_tiles(tiles: list[int], lines: list[int | None], w: int, h: int, source: str) -> None:
    """Reject tiles that are not 0..w*h-1 once each, naming the culprits and the line of the first."""
    n = w * h
    seen: set[int] = set()
    out_of_range: list[int] = []
    duplicated: list[int] = []
    first_line = None
    for tile, number in zip(tiles, lines):
        if not 0 <= tile < n:
            out_of_range.append(tile)
        elif tile in seen:
            if tile not in duplicated:
                duplicated.append(tile)
        else:
            seen.add(tile)
            continue
        first_line = number if first_line is None else first_line
    missing = [tile for tile in range(n) if tile not in seen]
    if not (out_of_range or duplicated or missing):
        return
    problems = [
        f"{_listing(culprits)} {'is' if len(culprits) == 1 else 'are'} {what}"
        for culprits, what in ((out_of_range, "out of range"), (duplicated, "duplicated"), (missing, "missing"))
        if culprits
    ]
    raise PuzzleError(
        f"a {w}x{h} board holds the tiles 0 to {n - 1} once each, but {', '.join(problems)}",
        source=source,
        line=first_line,
    )


def _listing(values: list[int]) -> str:
    """Numbers as "3", "3 and 5" or "1, 2 and 4" (at most `MAX_LISTED` of them named)."""
    shown = [str(value) for value in values[:MAX_LISTED]]
    if len(values) > MAX_LISTED:
        return f"{', '.join(shown)} and {len(values) - MAX_LISTED} more"
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _parse_json(
    text: str, source: str, name: str, width: int | None, height: int | None, goal: str | None
) -> NPuzzleBoard:
    """Parse the JSON form (see the module docstring); a width or height given must agree."""
    loaded = json_load(text, source)
    has_goal = isinstance(loaded, dict) and GOAL_KEY in loaded
    data = json_object(text, source, (GOAL_KEY, *JSON_KEYS) if has_goal else JSON_KEYS)
    h, tiles, w = (data[key] for key in JSON_KEYS)
    goal = data[GOAL_KEY] if has_goal else (goal or DEFAULT_GOAL)
    if goal not in GOALS:
        choices = " or ".join(map(json.dumps, GOALS))
        raise PuzzleError(f'"{GOAL_KEY}" must be {choices}, got {brief(goal)}', source=source)
    for key, value in (("width", w), ("height", h)):
        if not is_integer(value):
            raise PuzzleError(f'"{key}" must be an integer, got {brief(value)}', source=source)
    _check_shape(w, h, source, None)
    _check_given(w, h, width, height, source)
    if not isinstance(tiles, list) or not all(map(is_integer, tiles)):
        raise PuzzleError(f'"tiles" must be a list of integers, got {brief(tiles)}', source=source)
    if len(tiles) != w * h:
        raise PuzzleError(f"a {w}x{h} board has {w * h} tiles, got {len(tiles)}", source=source)
    _check_tiles(tiles, [None] * len(tiles), w, h, source)
    return NPuzzleBoard(w, h, tuple(tiles), name, goal)


def _list_lines(text: str) -> list[tuple[int, str]]:
    """The lines of a board list with their 1-based numbers, blank lines and ``#`` comment lines left out."""
    lines = enumerate(text.splitlines(), 1)
    return [(number, line) for number, line in lines if line.strip() and not line.lstrip().startswith("#")]


def _fields(line: str) -> list[str]:
    """The fields of one CSV line, stripped."""
    return [field.strip() for field in next(csv.reader([line]))]


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
    fields = _fields(text)
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
    _check_given(boards[0].width, boards[0].height, width, height, source)
    return boards[0]
