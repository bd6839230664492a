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
is given (``blank-last`` by default). Files, literal strings and board lists
(CSV files of many boards) are read by `puzzles.npuzzle.boardlist`.

Tiles are 0 (the blank) to W*H-1, each once; W and H are 2 to 8. Every problem
with the input is a `PuzzleError` naming the source and, where there is one,
the 1-based line.
"""

import json
import math
import re
from dataclasses import replace

from puzzles.errors import PuzzleError
from puzzles.npuzzle.board import DEFAULT_GOAL, GOALS, MAX_SIDE, MIN_SIDE, NPuzzleBoard, check_goal
from puzzles.textio import brief, is_integer, json_load, json_object, quote

FORMATS = ("rows", "line", "digits", "json")
JSON_KEYS = ("height", "tiles", "width")
GOAL_KEY = "goal"
MAX_DIGITS = 10
MAX_LISTED = 8
LITERAL_SOURCE = "<board>"
_SEPARATORS = re.compile(r"[\s,]+")
_INTEGER = re.compile(r"[+-]?[0-9]+")

Token = tuple[int, str]  # (1-based line, text)


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

    That is a text without letters that has a digit (of any script, so that a
    fullwidth one is refused as a tile number rather than read as a Rush Hour
    grid) or a sign, or only ``#`` comments, or a JSON object with a "tiles"
    key. Rush Hour boards are written in letters, ``o``, ``.`` and ``x``, or as
    CSV under a ``car,...`` header.
    """
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return False
        return isinstance(data, dict) and "tiles" in data
    content = "".join(line + "\n" for _, line in _content_lines(text))
    if not content:
        return "#" in text
    return not any(char.isalpha() for char in content) and any(char.isdigit() or char in "+-" for char in content)


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


def check_given_shape(w: int, h: int, width: int | None, height: int | None, source: str) -> None:
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
    check_given_shape(w, len(rows), width, height, source)
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
            raise PuzzleError(f"{quote(token)} is not a tile number (an integer in ASCII digits)", source=source,
                              line=number)
        if len(token) > 4:
            raise PuzzleError(f"{quote(token)} is too large for a tile number", source=source, line=number)
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
    chosen = data[GOAL_KEY] if has_goal else (goal or DEFAULT_GOAL)
    if not isinstance(chosen, str) or chosen not in GOALS:
        choices = " or ".join(map(json.dumps, GOALS))
        raise PuzzleError(f'"{GOAL_KEY}" must be {choices}, got {brief(chosen)}', source=source)
    for key, value in (("width", w), ("height", h)):
        if not is_integer(value):
            raise PuzzleError(f'"{key}" must be an integer, got {brief(value)}', source=source)
    assert is_integer(w) and is_integer(h)  # checked just above
    _check_shape(w, h, source, None)
    check_given_shape(w, h, width, height, source)
    if not isinstance(tiles, list) or not all(map(is_integer, tiles)):
        raise PuzzleError(f'"tiles" must be a list of integers, got {brief(tiles)}', source=source)
    if len(tiles) != w * h:
        raise PuzzleError(f"a {w}x{h} board has {w * h} tiles, got {len(tiles)}", source=source)
    _check_tiles(tiles, [None] * len(tiles), w, h, source)
    return NPuzzleBoard(w, h, tuple(tiles), name, chosen)
