"""Bad Rush Hour boards are refused, naming the file and line: course CSV, Fogleman strings and grids, JSON,
files, and sizes past what the kernels' masks hold."""

import json
from dataclasses import replace

import pytest

from puzzles.rushhour.board import RushHourBoard, Vehicle
from puzzles.rushhour.formats import format_board, load_board, parse_board
from tests.puzzles.board_texts import FOGLEMAN, HEADER, TWO_CARS, error_of

# --- course CSV, letters, grids and files -----------------------------------------------------


CSV_ERRORS = [
    ("car,orient,col,row,length\nX,H,1,3,2\n", 1, "bad header"),
    (HEADER + "A,H,1,1\n", 2, "expected 5 fields"),
    (HEADER + "A,H,1,1,2,3\n", 2, "expected 5 fields"),
    (HEADER + "A,H,one,1,2\n", 2, "col must be an integer of at most 9 ASCII digits, got 'one'"),
    (HEADER + "A,H,1,1.5,2\n", 2, "row must be an integer"),
    (HEADER + "A,H,1,1,\n", 2, "length must be an integer"),
    (HEADER + "A,D,1,1,2\n", 2, "unknown orientation 'D'"),
    (HEADER + "A,H,1,1,1\n", 2, "length 1 (minimum 2)"),
    (HEADER + "A-1,H,1,1,2\n", 2, "must be letters and digits"),
    (HEADER + "X,H,1,3,2\nA,H,5,1,3\n", 3, "goes off the 6x6 board"),
    (HEADER + "A,V,1,0,2\n", 2, "goes off the 6x6 board"),
    (HEADER + "A,V,6,5,100000000\n", 2, "goes off the 6x6 board"),
    (HEADER + "A,V,6,5,1000000000\n", 2, "length must be an integer of at most 9 ASCII digits"),
    (HEADER + "A,V,\uff16,5,2\n", 2, "col must be an integer of at most 9 ASCII digits"),
    (HEADER + "A,V,0_2,5,2\n", 2, "col must be an integer of at most 9 ASCII digits"),
    (HEADER + "A,H,1,1,2\nB,V,2,1,2\n", 3, "vehicles A and B overlap at col 2, row 1"),
    (HEADER + "A,H,1,1,2\nA,H,1,2,2\n", 3, "duplicate vehicle name A (first on line 2)"),
    (HEADER + "A,H,1,1,2\n", None, "red car X missing"),
    (HEADER + "A,H,1,1,2\n\nX,V,1,3,2\n", 4, "red car X is vertical"),
]


@pytest.mark.parametrize("text, line, message", CSV_ERRORS)
def test_bad_csv_rejected(tmp_path, text, line, message):
    path = tmp_path / "Rushhour6x6_9.csv"
    path.write_text(text)
    error = error_of(load_board, str(path))
    assert message in error.message
    assert (error.source, error.line) == (str(path), line)
    assert str(error).startswith(f"{path}:{line}: " if line else f"{path}: ")


def test_csv_size_errors(tmp_path):
    unnamed = tmp_path / "board.csv"
    unnamed.write_text(HEADER + "X,H,1,1,2\n")
    assert "pass a size" in str(error_of(load_board, str(unnamed)))
    assert "too small" in str(error_of(load_board, str(unnamed), size=3))
    named = tmp_path / "Rushhour6x6_1.csv"
    named.write_text(HEADER + "X,H,1,1,2\n")
    error = error_of(load_board, str(named), size=9)
    assert str(error) == f"{named}: size 9 was given but the file name says 6x6"
    assert "too small" in str(error_of(parse_board, HEADER + "X,H,1,1,2\n", name="Rushhour3x3_1"))


LITERAL_ERRORS = [
    (FOGLEMAN[:-1], "Fogleman string has 35 cells, not a square number"),
    ("AAooooooo", "board size 3 is too small"),
    ("AAo/ooo/ooo", "board size 3 is too small"),
    ("AAoo/ooo/oooo/oooo", "grid row 2 has 3 cells but row 1 has 4"),
    ("AAoo/oooo/oooo", "grid has 3 rows of 4 cells"),
    ("AAoo/oooo/oooo/oooo/oooo", "grid has 5 rows of 4 cells"),
    ("AAoo/Booo/oooo/oooo", "vehicle B is not one straight line"),
    ("AAoo/BBoo/Booo/oooo", "vehicle B is not one straight line"),
    ("AAoo/BoBo/oooo/oooo", "vehicle B is not one straight line"),
    ("AAoo/Booo/oooo/Booo", "vehicle B is not one straight line"),
    ("BBoo/oooo/oooo/oooo", "red car A missing"),
    ("Aooo/Aooo/oooo/oooo", "red car A is vertical"),
    ("/ /", "empty board"),
]


@pytest.mark.parametrize("text, message", LITERAL_ERRORS)
def test_bad_literal_rejected(text, message):
    error = error_of(load_board, text)
    assert message in error.message
    assert error.source == "<board>"
    assert str(error).startswith("<board>:1: " if error.line else "<board>: ")


@pytest.mark.parametrize("char", ["?", "b", "0", "#"])
def test_unknown_character_rejected(char):
    error = error_of(parse_board, f"AAoo/o{char}oo/oooo/oooo")
    assert str(error) == f"<board>:1: unknown character {char!r} at row 2, col 2"


def test_upper_case_x_is_a_vehicle_and_lower_case_x_a_wall():
    board = load_board("AAoo/XXox/oooo/oooo")
    assert board.vehicles[1] == Vehicle("X", True, 1, 0, 2)
    assert board.walls == frozenset({(1, 3)})


def test_grid_file_errors_name_the_row_line(tmp_path):
    path = tmp_path / "grid.txt"
    path.write_text("\nAAoo\n\noo?o\noooo\noooo\n")
    assert str(error_of(load_board, str(path))) == f"{path}:4: unknown character '?' at row 2, col 3"
    path.write_text("AAoo\noooo  \n\nooBo\noooo\n")
    assert str(error_of(load_board, str(path))) == (
        f"{path}:4: vehicle B is not one straight line of 2 or more cells (it starts at row 3, col 3)"
    )
    path.write_text("AAooo\noooo\noooo\noooo\n")
    assert str(error_of(load_board, str(path))).startswith(f"{path}:2: grid row 2 has 4 cells")


def test_explicit_size_must_match_letter_formats():
    assert load_board(FOGLEMAN, size=6).size == 6
    assert str(error_of(load_board, FOGLEMAN, size=9)) == "<board>: board is 6x6 but size 9 was given"


def test_file_errors(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert str(error_of(load_board, str(empty))) == f"{empty}: empty file"
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n")
    assert str(error_of(load_board, str(blank))) == f"{blank}: empty board"
    large = tmp_path / "large.txt"
    large.write_bytes(b"o" * (1024 * 1024 + 1))
    assert "file too large" in str(error_of(load_board, str(large)))
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00")
    assert "not UTF-8 text" in str(error_of(load_board, str(binary)))
    missing = tmp_path / "missing.csv"
    assert str(error_of(load_board, str(missing))) == f"{missing}: no such file"
    assert str(error_of(load_board, str(tmp_path))) == f"{tmp_path}: not a regular file"


def test_format_errors():
    walled = load_board(FOGLEMAN)
    assert "no walls" in str(error_of(format_board, walled, "csv"))
    assert "unknown board format 'yaml'" in str(error_of(format_board, walled, "yaml"))
    vehicles = tuple(Vehicle(f"V{i}", False, 1 + (i // 9) * 3, i % 9, 2) for i in range(26))
    crowded = RushHourBoard(9, vehicles + (Vehicle("X", True, 0, 0, 2),), "X")
    assert format_board(crowded, "csv").count("\n") == 28
    assert "too many vehicles for a one-letter format" in str(error_of(format_board, crowded, "grid"))
    fits = replace(crowded, vehicles=crowded.vehicles[1:])
    assert parse_board(format_board(fits, "fogleman")).size == 9


# --- JSON -------------------------------------------------------------------------------------


def json_board(**changes) -> str:
    """The two-car board's JSON with some keys changed (None drops a key)."""
    data = json.loads(TWO_CARS) | changes
    return json.dumps({key: value for key, value in data.items() if value is not None})


JSON_ERRORS = [
    # malformed JSON, with the line it is on
    ('{"red":"X",\n"size":6,,}', 2, "not valid JSON: Expecting property name enclosed in double quotes (col 10)"),
    ('{"red":"X"', 1, "not valid JSON: Expecting ',' delimiter"),
    (TWO_CARS + "x", 1, "not valid JSON: Extra data"),
    ('{"size":NaN}', None, "not valid JSON: NaN is not a number"),
    ('{"a":' + "[" * 100_000, None, "not valid JSON: nested too deeply"),
    (TWO_CARS.replace('"size":6', '"size":6,"size":7'), None, "duplicate key 'size' in JSON board"),
    # the object and its keys
    ("[{}]", None, "a JSON board is an object with keys red, size, vehicles, walls"),
    (json_board(red=None, walls=None), None, "JSON board lacks key red, walls"),
    (json_board(name="b", note=""), None, "unknown key 'name', 'note' in JSON board"),
    # the type of each value
    (json_board(red=1), None, '"red" must be a vehicle label (a string), got 1'),
    (json_board(size="6"), None, '"size" must be an integer, got "6"'),
    (json_board(size=6.0), None, '"size" must be an integer, got 6.0'),
    (json_board(size=True), None, '"size" must be an integer, got true'),
    (json_board(vehicles={}), None, '"vehicles" must be a list, got {}'),
    (json_board(walls="none"), None, '"walls" must be a list, got "none"'),
    (json_board(vehicles=[["X", "H", 2, 3]]), None, 'vehicle 1 must be [label, orientation, col, row, length]'),
    (json_board(vehicles=[["X", "H", 2, 3, 2], "A"]), None, 'vehicle 2 must be [label, orientation, col, row, length]'),
    (json_board(vehicles=[["X", "H", 2, "3", 2]]), None, 'got ["X", "H", 2, "3", 2]'),
    (json_board(vehicles=[["X", "H", 2, 3, 2.0]]), None, "(two strings, three integers)"),
    (json_board(vehicles=[["X", True, 2, 3, 2]]), None, "(two strings, three integers)"),
    (json_board(walls=[[1]]), None, "a wall must be [col, row] (two integers), got [1]"),
    (json_board(walls=[[1, False]]), None, "a wall must be [col, row] (two integers), got [1, false]"),
    # the board: the same checks as the other formats
    (json_board(size=3), None, "board size 3 is too small (minimum 4)"),
    (json_board(vehicles=[["X-1", "H", 2, 3, 2]]), None, "vehicle name 'X-1' must be letters and digits"),
    (json_board(vehicles=[["X", "D", 2, 3, 2]]), None, "unknown orientation 'D' (expected H or V)"),
    (json_board(vehicles=[["X", "H", 2, 3, 1]]), None, "vehicle X has length 1 (minimum 2)"),
    (json_board(vehicles=[["X", "H", 5, 3, 3]]), None, "vehicle X (H, length 3 at col 5, row 3) goes off the 6x6"),
    (json_board(vehicles=[["X", "H", 0, 3, 2]]), None, "goes off the 6x6 board"),
    (json_board(vehicles=[["X", "H", 1, 3, 2], ["A", "V", 2, 2, 2]]), None, "vehicles X and A overlap at col 2, row 3"),
    (json_board(vehicles=[["X", "H", 1, 3, 2], ["X", "H", 1, 1, 2]]), None, "duplicate vehicle name X"),
    (json_board(red="R"), None, "red car R missing"),
    (json_board(red="A"), None, "red car A is vertical; it must be horizontal"),
    (json_board(walls=[[7, 1]]), None, "wall at col 7, row 1 is off the 6x6 board"),
    (json_board(walls=[[1, 0]]), None, "wall at col 1, row 0 is off the 6x6 board"),
    (json_board(walls=[[1, 2]]), None, "wall at col 1, row 2 is under vehicle A"),
    (json_board(walls=[[6, 6], [6, 6]]), None, "duplicate wall at col 6, row 6"),
]


@pytest.mark.parametrize("text, line, message", JSON_ERRORS)
def test_bad_json_rejected(tmp_path, text, line, message):
    path = tmp_path / "board.json"
    path.write_text(text)
    error = error_of(load_board, str(path))
    assert message in error.message
    assert (error.source, error.line) == (str(path), line)
    literal = error_of(parse_board, text, fmt="json")
    assert (literal.message, literal.source, literal.line) == (error.message, "<board>", line)


# --- sizes past the kernels' masks ------------------------------------------------------------


def _json_board(size: object) -> str:
    return json.dumps({"red": "A", "size": size, "vehicles": [["A", "H", 1, 3, 2], ["B", "V", 40, 1, 3]], "walls": []})


@pytest.mark.parametrize("name, text", [
    ("Rushhour64x64_1.csv", HEADER + "X,H,1,3,2\n"),
    ("Rushhour100000x100000_1.csv", HEADER + "X,H,1,3,2\n"),
    ("Rushhour" + "9" * 31 + "x" + "9" * 31 + "_1.csv", HEADER + "X,H,1,3,2\n"),
    ("wide.json", _json_board(64)),
    ("huge.json", _json_board(10**30)),
    ("fogleman.txt", "AA" + "o" * (64 * 64 - 2)),
])
def test_boards_wider_than_the_kernels_masks_are_refused(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    assert "too large (maximum 63)" in error_of(load_board, str(path)).message


def test_a_board_of_the_largest_size_is_searched():
    from puzzles.domains import load_problem
    from puzzles.solver import solve

    result = solve(load_problem(_json_board(63)), "bfs")  # B steps down, then A drives out
    assert (result.outcome.value, result.moves) == ("solved", 2)


def test_a_json_number_of_thousands_of_digits_is_refused_in_one_line():
    error = error_of(parse_board, _json_board(int("9" * 4000)).replace("9" * 4000, "9" * 5000))
    assert "not valid JSON" in error.message and "digits" in error.message
