"""Reading and writing Rush Hour boards in the four formats of the project.

- ``csv``: the course CSV, header ``car,orientation,col,row,length``, 1-based
  column and row of the top-left cell, orientation ``H``/``V``, red car ``X``.
  The board size is given explicitly or read from a file name like
  ``Rushhour6x6_1.csv``.
- ``fogleman``: Fogleman's string, N*N characters row by row: ``o`` or ``.``
  empty, ``x`` a wall, ``A`` the red car, other upper-case letters vehicles.
- ``grid``: N lines of N characters of the same alphabet.
- ``json``: one object with sorted keys and no spaces (the *canonical text* of
  a board, whose sha256 is its id in the results database):
  ``{"red":"X","size":6,"vehicles":[["A","H",2,1,2],...],"walls":[[4,1],...]}``.
  ``red`` is the red car's label; vehicles are ``[label, H or V, col, row,
  length]`` with the 1-based column and row of the top-left cell, in the
  board's own vehicle order (which fixes search tie-breaking); walls are
  sorted 1-based ``[col, row]`` pairs. Labels are kept as they are; the board's
  name is metadata and not part of it. Any JSON of this shape is read (spaces,
  key order), but `format_board` always writes the one canonical text.

Every problem with the input is a `PuzzleError` naming the source and, where
there is one, the 1-based line.
"""

import json
import math
import os
import re
import string
from collections.abc import Iterable, Mapping
from itertools import count, product
from pathlib import Path

from puzzles.errors import PuzzleError
from puzzles.rushhour.board import RushHourBoard, Vehicle
from puzzles.textio import brief, is_integer, json_object, neither_file_nor_board, quote, read_text

FORMATS = ("csv", "fogleman", "grid", "json")
CSV_HEADER = ("car", "orientation", "col", "row", "length")
JSON_KEYS = ("red", "size", "vehicles", "walls")
JSON_VEHICLE = "[label, orientation, col, row, length]"
CSV_RED = "X"
LETTER_RED = "A"
EMPTY_CELLS = "o."
WALL_CELL = "x"
MIN_SIZE = 4
MAX_SIZE = 63  # a row or column of cells is a 64-bit mask with a sentinel bit past its end
LITERAL_SOURCE = "<board>"
RUSH_HOUR_ALPHABET = "o . x A-Z, / and spaces (an N-puzzle board is plain ASCII numbers)"
_BOARD_CHARS = set(EMPTY_CELLS + WALL_CELL + string.ascii_uppercase + "/" + string.whitespace)
_SIZE_IN_NAME = re.compile(r"(?<![0-9])([0-9]+)x([0-9]+)(?![0-9])", re.IGNORECASE)
_CSV_INTEGER = re.compile(r"[+-]?[0-9]{1,9}")


def load_board(source: str, *, size: int | None = None) -> RushHourBoard:
    """Load a board from a file path, or from a literal board string if `source` is no file.

    A file's board is named after the file's stem; a ``.json`` file is read as
    JSON, any other file in the format detected. A string that names no file is
    read as a board (named "") if it has a newline, starts with "{" or has only
    board characters (``o . x A-Z``, ``/`` and spaces); otherwise it is reported
    as a missing file.
    """
    if os.path.isfile(source):
        path = Path(source)
        fmt = "json" if path.suffix.lower() == ".json" else None
        return parse_board(read_text(path, source), source=source, size=size, name=path.stem, fmt=fmt)
    if "\n" not in source and not source.lstrip().startswith("{") and not set(source) <= _BOARD_CHARS:
        raise PuzzleError(neither_file_nor_board(source, _BOARD_CHARS, RUSH_HOUR_ALPHABET), source=source)
    return parse_board(source, source=LITERAL_SOURCE, size=size)


def parse_board(
    text: str, *, source: str = LITERAL_SOURCE, size: int | None = None, name: str = "", fmt: str | None = None
) -> RushHourBoard:
    """Parse a board in any of the four formats: `fmt`, or the one detected from the text."""
    if fmt is not None:
        _check_format(fmt, source)
    if not text.replace("/", "").strip():
        raise PuzzleError("empty board", source=source)
    if size is not None:
        _check_size(size, source, None)
    fmt = fmt or detect_format(text)
    if fmt == "csv":
        return _parse_csv(text, source, _csv_size(size, name, source), name)
    if fmt == "json":
        return _parse_json(text, source, size, name)
    rows = _fogleman_rows(text, source) if fmt == "fogleman" else _grid_rows(text, source)
    _check_given_size(len(rows), size, source)
    return _parse_cells(rows, source, name)


def detect_format(text: str) -> str:
    """The format of a board text: "csv", "fogleman", "grid" or "json".

    JSON if its first non-blank character is "{"; CSV if its first non-blank
    line has a comma or starts with "car"; Fogleman if it is one line without
    "/"; otherwise a grid.
    """
    if text.lstrip().startswith("{"):
        return "json"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and ("," in lines[0] or lines[0].lower().startswith("car")):
        return "csv"
    if len(lines) == 1 and "/" not in lines[0]:
        return "fogleman"
    return "grid"


def format_board(board: RushHourBoard, fmt: str) -> str:
    """Write a board as "csv", "fogleman", "grid" or "json" text.

    CSV names the red car X and carries no size or walls; the one-letter
    formats name the red car A and relabel other vehicles where needed; JSON
    keeps every label and the vehicle order, and is the board's canonical text.
    """
    source = board.name or LITERAL_SOURCE
    _check_format(fmt, source)
    if fmt == "csv":
        return _format_csv(board, source)
    if fmt == "json":
        return _format_json(board)
    labels = _letter_labels(board, source)
    empty = "." if fmt == "grid" else "o"
    cells = [[empty] * board.size for _ in range(board.size)]
    for row, col in board.walls:
        cells[row][col] = WALL_CELL
    for vehicle in board.vehicles:
        for row, col in vehicle.cells():
            cells[row][col] = labels[vehicle.name]
    if fmt == "fogleman":
        return "".join("".join(row) for row in cells)
    return "".join("".join(row) + "\n" for row in cells)


def canonical_text(board: RushHourBoard) -> str:
    """The board's canonical text: its compact, sorted JSON, without its name."""
    return format_board(board, "json")


def _check_format(fmt: str, source: str) -> None:
    """Reject a format name that is not one of `FORMATS`."""
    if fmt not in FORMATS:
        raise PuzzleError(f"unknown board format {fmt!r} (choose from {', '.join(FORMATS)})", source=source)


def _check_size(size: int, source: str, line: int | None) -> None:
    """Reject boards smaller than the minimum size or larger than the kernels' masks hold."""
    if size < MIN_SIZE:
        raise PuzzleError(f"board size {size} is too small (minimum {MIN_SIZE})", source=source, line=line)
    if size > MAX_SIZE:
        shown = size if size < 10**9 else "of more than 9 digits"
        raise PuzzleError(f"board size {shown} is too large (maximum {MAX_SIZE})", source=source, line=line)


def _check_given_size(actual: int, size: int | None, source: str) -> None:
    """Reject a board whose size disagrees with the size the caller gave."""
    if size is not None and size != actual:
        raise PuzzleError(f"board is {actual}x{actual} but size {size} was given", source=source)


def _csv_size(size: int | None, name: str, source: str) -> int:
    """The size of a CSV board: explicit, or from an `NxN` in the file name, agreeing if both."""
    found = next((_name_size(a, source) for a, b in _SIZE_IN_NAME.findall(name) if a == b), None)
    if size is not None and found is not None and size != found:
        raise PuzzleError(f"size {size} was given but the file name says {found}x{found}", source=source)
    chosen = size if size is not None else found
    if chosen is None:
        raise PuzzleError("board size unknown: pass a size (or name the file like Rushhour6x6_1.csv)", source=source)
    _check_size(chosen, source, None)
    return chosen


def _name_size(digits: str, source: str) -> int:
    """The size a file name gives, refusing one too long to be a board's before converting it."""
    if len(digits) > 3:
        raise PuzzleError(f"the file name's board size {digits[:12]}{'...' if len(digits) > 12 else ''} is too large"
                          f" (maximum {MAX_SIZE})", source=source)
    return int(digits)


def _parse_csv(text: str, source: str, size: int, name: str) -> RushHourBoard:
    """Parse the course CSV on an N x N board."""
    lines = [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    header_line, header = lines[0]
    if tuple(f.strip().lower() for f in header.split(",")) != CSV_HEADER:
        raise PuzzleError(f"bad header {header!r}: expected {','.join(CSV_HEADER)}", source=source, line=header_line)
    numbered = ((number, _csv_vehicle(line, source, number)) for number, line in lines[1:])
    vehicles, lines_of, _ = _place_all(numbered, size, source)
    return _finish(vehicles, CSV_RED, lines_of, size, frozenset(), source, name)


def _csv_vehicle(line: str, source: str, number: int) -> Vehicle:
    """One CSV row as a vehicle (0-based position); its bounds are checked by the caller."""
    fields = [f.strip() for f in line.split(",")]
    if len(fields) != len(CSV_HEADER):
        raise PuzzleError(
            f"expected {len(CSV_HEADER)} fields ({','.join(CSV_HEADER)}), got {len(fields)}",
            source=source,
            line=number,
        )
    car, orientation, *numbers = fields
    col, row, length = (_integer(field, value, source, number) for field, value in zip(CSV_HEADER[2:], numbers))
    return _vehicle(car, orientation, col, row, length, source, number)


def _vehicle(car: str, orientation: str, col: int, row: int, length: int, source: str, number: int | None) -> Vehicle:
    """A vehicle from its label, H/V and 1-based top-left cell; its bounds are checked by `_place`."""
    if not car.isalnum() or not car.isascii():
        raise PuzzleError(f"vehicle name {car!r} must be letters and digits", source=source, line=number)
    if orientation.upper() not in ("H", "V"):
        raise PuzzleError(f"unknown orientation {orientation!r} (expected H or V)", source=source, line=number)
    if length < 2:
        raise PuzzleError(f"vehicle {car} has length {length} (minimum 2)", source=source, line=number)
    return Vehicle(car, orientation.upper() == "H", row - 1, col - 1, length)


def _integer(field: str, value: str, source: str, number: int) -> int:
    """A CSV field as an integer."""
    if not _CSV_INTEGER.fullmatch(value):
        raise PuzzleError(f"{field} must be an integer of at most 9 ASCII digits, got {quote(value)}", source=source,
                          line=number)
    return int(value)


def _place_all(
    numbered: Iterable[tuple[int | None, Vehicle]], size: int, source: str
) -> tuple[list[Vehicle], dict[str, int | None], dict[tuple[int, int], str]]:
    """Place vehicles in order, each with its line (or None): the vehicles, their lines, the occupied cells."""
    vehicles: list[Vehicle] = []
    lines_of: dict[str, int | None] = {}
    occupied: dict[tuple[int, int], str] = {}
    for number, vehicle in numbered:
        if vehicle.name in lines_of:
            first = lines_of[vehicle.name]
            where = f" (first on line {first})" if first is not None else ""
            raise PuzzleError(f"duplicate vehicle name {vehicle.name}{where}", source=source, line=number)
        _place(vehicle, size, occupied, source, number)
        vehicles.append(vehicle)
        lines_of[vehicle.name] = number
    return vehicles, lines_of, occupied


def _place(
    vehicle: Vehicle, size: int, occupied: dict[tuple[int, int], str], source: str, number: int | None
) -> None:
    """Mark a vehicle's cells, rejecting one off the board or on another vehicle."""
    last = vehicle.position + vehicle.length - 1
    if min(vehicle.row, vehicle.col) < 0 or max(vehicle.row, vehicle.col, last) >= size:
        raise PuzzleError(
            f"vehicle {vehicle.name} ({'H' if vehicle.horizontal else 'V'}, length {vehicle.length}"
            f" at col {vehicle.col + 1}, row {vehicle.row + 1}) goes off the {size}x{size} board",
            source=source,
            line=number,
        )
    for row, col in vehicle.cells():
        if (row, col) in occupied:
            raise PuzzleError(
                f"vehicles {occupied[row, col]} and {vehicle.name} overlap at col {col + 1}, row {row + 1}",
                source=source,
                line=number,
            )
        occupied[row, col] = vehicle.name


def _fogleman_rows(text: str, source: str) -> list[tuple[int, str]]:
    """Fogleman's one-line string cut into N rows of N cells, each with its line number."""
    number, line = next((n, s.strip()) for n, s in enumerate(text.splitlines(), 1) if s.strip())
    size = math.isqrt(len(line))
    if size * size != len(line):
        raise PuzzleError(
            f"Fogleman string has {len(line)} cells, not a square number", source=source, line=number
        )
    _check_size(size, source, number)
    return [(number, line[i : i + size]) for i in range(0, len(line), size)]


def _grid_rows(text: str, source: str) -> list[tuple[int, str]]:
    """The rows of a grid (lines, or parts of lines split at "/"), checked to be N rows of N."""
    rows = [
        (number, part.strip())
        for number, line in enumerate(text.splitlines(), 1)
        for part in line.split("/")
        if part.strip()
    ]
    width = len(rows[0][1])
    for index, (number, row) in enumerate(rows, 1):
        if len(row) != width:
            raise PuzzleError(
                f"grid row {index} has {len(row)} cells but row 1 has {width}", source=source, line=number
            )
    if len(rows) != width:
        raise PuzzleError(
            f"grid has {len(rows)} rows of {width} cells; a board is N rows of N", source=source, line=rows[-1][0]
        )
    _check_size(width, source, rows[0][0])
    return rows


def _parse_cells(rows: list[tuple[int, str]], source: str, name: str) -> RushHourBoard:
    """Build a board from N rows of N cells of Fogleman's alphabet."""
    walls = set()
    cells_of: dict[str, list[tuple[int, int]]] = {}
    lines_of: dict[str, int] = {}
    for r, (number, row) in enumerate(rows):
        for c, char in enumerate(row):
            if char == WALL_CELL:
                walls.add((r, c))
            elif char in string.ascii_uppercase:
                cells_of.setdefault(char, []).append((r, c))
                lines_of.setdefault(char, number)
            elif char not in EMPTY_CELLS:
                raise PuzzleError(
                    f"unknown character {char!r} at row {r + 1}, col {c + 1}", source=source, line=number
                )
    vehicles = [_letter_vehicle(label, cells, source, lines_of[label]) for label, cells in cells_of.items()]
    return _finish(vehicles, LETTER_RED, lines_of, len(rows), frozenset(walls), source, name)


def _letter_vehicle(label: str, cells: list[tuple[int, int]], source: str, number: int) -> Vehicle:
    """The vehicle a letter stands for; its cells (in row-major order) must form a straight line of 2+."""
    (row, col), length = cells[0], len(cells)
    if length >= 2 and cells == [(row, col + i) for i in range(length)]:
        return Vehicle(label, True, row, col, length)
    if length >= 2 and cells == [(row + i, col) for i in range(length)]:
        return Vehicle(label, False, row, col, length)
    raise PuzzleError(
        f"vehicle {label} is not one straight line of 2 or more cells (it starts at row {row + 1}, col {col + 1})",
        source=source,
        line=number,
    )


def _finish(
    vehicles: list[Vehicle],
    red: str,
    lines_of: Mapping[str, int | None],
    size: int,
    walls: frozenset[tuple[int, int]],
    source: str,
    name: str,
) -> RushHourBoard:
    """The board, once its red car is found and horizontal."""
    red_car = next((v for v in vehicles if v.name == red), None)
    if red_car is None:
        raise PuzzleError(f"red car {red} missing", source=source)
    if not red_car.horizontal:
        raise PuzzleError(f"red car {red} is vertical; it must be horizontal", source=source, line=lines_of[red])
    return RushHourBoard(size, tuple(vehicles), red, walls, name)


def _parse_json(text: str, source: str, size: int | None, name: str) -> RushHourBoard:
    """Parse the JSON form (see the module docstring); a size given must agree with its "size"."""
    data = json_object(text, source, JSON_KEYS)
    red, board_size, entries, wall_pairs = (data[key] for key in JSON_KEYS)
    if not isinstance(red, str):
        raise PuzzleError(f'"red" must be a vehicle label (a string), got {brief(red)}', source=source)
    if not is_integer(board_size):
        raise PuzzleError(f'"size" must be an integer, got {brief(board_size)}', source=source)
    _check_size(board_size, source, None)
    _check_given_size(board_size, size, source)
    for key, value in (("vehicles", entries), ("walls", wall_pairs)):
        if not isinstance(value, list):
            raise PuzzleError(f'"{key}" must be a list, got {brief(value)}', source=source)
    assert isinstance(entries, list) and isinstance(wall_pairs, list)  # checked just above
    numbered = ((None, _json_vehicle(entry, index, source)) for index, entry in enumerate(entries, 1))
    vehicles, lines_of, occupied = _place_all(numbered, board_size, source)
    walls = _json_walls(wall_pairs, board_size, occupied, source)
    return _finish(vehicles, red, lines_of, board_size, walls, source, name)


def _json_vehicle(entry: object, index: int, source: str) -> Vehicle:
    """Entry `index` (1-based) of "vehicles" as a vehicle; its bounds are checked by `_place`."""
    kinds = (str, str, int, int, int)
    if not (
        isinstance(entry, list)
        and len(entry) == len(kinds)
        and all(is_integer(value) if kind is int else isinstance(value, kind) for value, kind in zip(entry, kinds))
    ):
        raise PuzzleError(
            f"vehicle {index} must be {JSON_VEHICLE} (two strings, three integers), got {brief(entry)}",
            source=source,
        )
    car, orientation, col, row, length = entry
    return _vehicle(car, orientation, col, row, length, source, None)


def _json_walls(
    pairs: list[object], size: int, occupied: dict[tuple[int, int], str], source: str
) -> frozenset[tuple[int, int]]:
    """The 0-based (row, col) walls of 1-based [col, row] pairs, each on the board, free and given once."""
    walls: set[tuple[int, int]] = set()
    for pair in pairs:
        if not (isinstance(pair, list) and len(pair) == 2 and all(map(is_integer, pair))):
            raise PuzzleError(f"a wall must be [col, row] (two integers), got {brief(pair)}", source=source)
        col, row = pair
        cell = (row - 1, col - 1)
        if not (1 <= col <= size and 1 <= row <= size):
            raise PuzzleError(f"wall at col {col}, row {row} is off the {size}x{size} board", source=source)
        if cell in occupied:
            raise PuzzleError(f"wall at col {col}, row {row} is under vehicle {occupied[cell]}", source=source)
        if cell in walls:
            raise PuzzleError(f"duplicate wall at col {col}, row {row}", source=source)
        walls.add(cell)
    return frozenset(walls)


def _format_json(board: RushHourBoard) -> str:
    """The canonical JSON of a board: labels and vehicle order kept, walls sorted, no name, no spaces."""
    vehicles = [[v.name, "H" if v.horizontal else "V", v.col + 1, v.row + 1, v.length] for v in board.vehicles]
    walls = sorted([col + 1, row + 1] for row, col in board.walls)
    data = {"red": board.red, "size": board.size, "vehicles": vehicles, "walls": walls}
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def _format_csv(board: RushHourBoard, source: str) -> str:
    """The course CSV of a wall-free board, its red car renamed X (and any other X renamed)."""
    if board.walls:
        raise PuzzleError("the course CSV format has no walls; this board has some", source=source)
    taken = {v.name for v in board.vehicles} | {CSV_RED}
    spare = next(label for label in _labels() if label not in taken)
    renamed = {board.red: CSV_RED, CSV_RED: spare} if board.red != CSV_RED else {}
    rows = [
        f"{renamed.get(v.name, v.name)},{'H' if v.horizontal else 'V'},{v.col + 1},{v.row + 1},{v.length}"
        for v in board.vehicles
    ]
    return "\n".join([",".join(CSV_HEADER), *rows]) + "\n"


def _labels():
    """Upper-case labels in order: A..Z, AA, AB, ..., AAA, ..."""
    for width in count(1):
        for letters in product(string.ascii_uppercase, repeat=width):
            yield "".join(letters)


def _letter_labels(board: RushHourBoard, source: str) -> dict[str, str]:
    """One letter per vehicle: A for the red car, one-letter names kept where free, others B, C, ..."""
    others = [v.name for v in board.vehicles if v.name != board.red]
    if len(others) > len(string.ascii_uppercase) - 1:
        raise PuzzleError("too many vehicles for a one-letter format", source=source)
    kept = {n for n in others if len(n) == 1 and n in string.ascii_uppercase and n != LETTER_RED}
    free = iter(c for c in string.ascii_uppercase if c != LETTER_RED and c not in kept)
    return {board.red: LETTER_RED} | {n: n if n in kept else next(free) for n in others}
