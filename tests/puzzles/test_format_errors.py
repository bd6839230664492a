"""Bad boards are refused, naming the file and line: the cases both domains share (files, JSON) run over each
domain's loader; then each domain's own formats (Rush Hour's course CSV, Fogleman strings and grids, and sizes
past what the kernels' masks hold; the N-puzzle's literals, rows files, goals and board lists)."""

import json
from dataclasses import replace

import pytest

from puzzles.npuzzle.board import NPuzzleBoard, goal_tiles
from puzzles.npuzzle.boardlist import load_npuzzle, load_npuzzles, read_board_list
from puzzles.npuzzle.formats import format_npuzzle, parse_npuzzle
from puzzles.rushhour.board import RushHourBoard, Vehicle
from puzzles.rushhour.formats import format_board, load_board, parse_board
from tests.puzzles.board_texts import EIGHT, EIGHT_JSON, FOGLEMAN, HEADER, TWO_CARS, error_of

LOADERS = {"rushhour": (load_board, parse_board), "npuzzle": (load_npuzzle, parse_npuzzle)}
TOO_LARGE = {"rushhour": b"o" * (1024 * 1024 + 1), "npuzzle": b"1 " * (1 << 19) + b"0"}  # past the 1 MiB cap

# --- shared: files and JSON, each domain's loader ---------------------------------------------


@pytest.mark.parametrize("domain", LOADERS)
def test_file_errors(tmp_path, domain):
    load = LOADERS[domain][0]
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert str(error_of(load, str(empty))) == f"{empty}: empty file"
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n")
    assert str(error_of(load, str(blank))) == f"{blank}: empty board"
    large = tmp_path / "large.txt"
    large.write_bytes(TOO_LARGE[domain])
    assert "file too large" in str(error_of(load, str(large)))
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00")
    assert "not UTF-8 text" in str(error_of(load, str(binary)))
    missing = tmp_path / "missing.txt"
    assert str(error_of(load, str(missing))) == f"{missing}: no such file"
    assert str(error_of(load, str(tmp_path))) == f"{tmp_path}: not a regular file"


def test_a_json_named_file_of_rows_is_read_as_json(tmp_path):
    not_json = tmp_path / "eight.json"
    not_json.write_text("1 2 3\n4 5 6\n7 8 0\n")
    assert str(error_of(load_npuzzle, str(not_json))).startswith(f"{not_json}:1: not valid JSON: Extra data")


def rushhour_json(**changes) -> str:
    """The two-car board's JSON with some keys changed (None drops a key)."""
    data = json.loads(TWO_CARS) | changes
    return json.dumps({key: value for key, value in data.items() if value is not None})


def npuzzle_json(**changes) -> str:
    """The goal's JSON with some keys changed (None drops a key)."""
    data = json.loads(EIGHT_JSON) | changes
    return json.dumps({key: value for key, value in data.items() if value is not None})


RUSHHOUR_JSON = [
    # malformed JSON, with the line it is on
    ('{"red":"X",\n"size":6,,}', 2, "not valid JSON: Expecting property name enclosed in double quotes (col 10)"),
    ('{"red":"X"', 1, "not valid JSON: Expecting ',' delimiter"),
    (TWO_CARS + "x", 1, "not valid JSON: Extra data"),
    ('{"size":NaN}', None, "not valid JSON: NaN is not a number"),
    ('{"a":' + "[" * 100_000, None, "not valid JSON: nested too deeply"),
    (TWO_CARS.replace('"size":6', '"size":6,"size":7'), None, "duplicate key 'size' in JSON board"),
    # the object and its keys
    ("[{}]", None, "a JSON board is an object with keys red, size, vehicles, walls"),
    (rushhour_json(red=None, walls=None), None, "JSON board lacks key red, walls"),
    (rushhour_json(name="b", note=""), None, "unknown key 'name', 'note' in JSON board"),
    # the type of each value
    (rushhour_json(red=1), None, '"red" must be a vehicle label (a string), got 1'),
    (rushhour_json(size="6"), None, '"size" must be an integer, got "6"'),
    (rushhour_json(size=6.0), None, '"size" must be an integer, got 6.0'),
    (rushhour_json(size=True), None, '"size" must be an integer, got true'),
    (rushhour_json(vehicles={}), None, '"vehicles" must be a list, got {}'),
    (rushhour_json(walls="none"), None, '"walls" must be a list, got "none"'),
    (rushhour_json(vehicles=[["X", "H", 2, 3]]), None, 'vehicle 1 must be [label, orientation, col, row, length]'),
    (rushhour_json(vehicles=[["X", "H", 2, 3, 2], "A"]), None, 'vehicle 2 must be [label, orientation, col, row, length]'),
    (rushhour_json(vehicles=[["X", "H", 2, "3", 2]]), None, 'got ["X", "H", 2, "3", 2]'),
    (rushhour_json(vehicles=[["X", "H", 2, 3, 2.0]]), None, "(two strings, three integers)"),
    (rushhour_json(vehicles=[["X", True, 2, 3, 2]]), None, "(two strings, three integers)"),
    (rushhour_json(walls=[[1]]), None, "a wall must be [col, row] (two integers), got [1]"),
    (rushhour_json(walls=[[1, False]]), None, "a wall must be [col, row] (two integers), got [1, false]"),
    # the board: the same checks as the other formats
    (rushhour_json(size=3), None, "board size 3 is too small (minimum 4)"),
    (rushhour_json(vehicles=[["X-1", "H", 2, 3, 2]]), None, "vehicle name 'X-1' must be letters and digits"),
    (rushhour_json(vehicles=[["X", "D", 2, 3, 2]]), None, "unknown orientation 'D' (expected H or V)"),
    (rushhour_json(vehicles=[["X", "H", 2, 3, 1]]), None, "vehicle X has length 1 (minimum 2)"),
    (rushhour_json(vehicles=[["X", "H", 5, 3, 3]]), None, "vehicle X (H, length 3 at col 5, row 3) goes off the 6x6"),
    (rushhour_json(vehicles=[["X", "H", 0, 3, 2]]), None, "goes off the 6x6 board"),
    (rushhour_json(vehicles=[["X", "H", 1, 3, 2], ["A", "V", 2, 2, 2]]), None, "vehicles X and A overlap at col 2, row 3"),
    (rushhour_json(vehicles=[["X", "H", 1, 3, 2], ["X", "H", 1, 1, 2]]), None, "duplicate vehicle name X"),
    (rushhour_json(red="R"), None, "red car R missing"),
    (rushhour_json(red="A"), None, "red car A is vertical; it must be horizontal"),
    (rushhour_json(walls=[[7, 1]]), None, "wall at col 7, row 1 is off the 6x6 board"),
    (rushhour_json(walls=[[1, 0]]), None, "wall at col 1, row 0 is off the 6x6 board"),
    (rushhour_json(walls=[[1, 2]]), None, "wall at col 1, row 2 is under vehicle A"),
    (rushhour_json(walls=[[6, 6], [6, 6]]), None, "duplicate wall at col 6, row 6"),
]


NPUZZLE_JSON = [
    ('{"width":3,\n"height":3,,}', 2, "not valid JSON: Expecting property name enclosed in double quotes (col 12)"),
    (EIGHT_JSON + "x", 1, "not valid JSON: Extra data"),
    ('{"width":NaN}', None, "not valid JSON: NaN is not a number"),
    ('{"a":' + "[" * 100_000, None, "not valid JSON: nested too deeply"),
    (EIGHT_JSON.replace('"width":3', '"width":3,"width":4'), None, "duplicate key 'width' in JSON board"),
    ("[1, 2, 3]", None, "a JSON board is an object with keys height, tiles, width"),
    (npuzzle_json(width=None, tiles=None), None, "JSON board lacks key tiles, width"),
    (npuzzle_json(name="b"), None, "unknown key 'name' in JSON board (expected height, tiles, width)"),
    (npuzzle_json(width="3"), None, '"width" must be an integer, got "3"'),
    (npuzzle_json(height=3.0), None, '"height" must be an integer, got 3.0'),
    (npuzzle_json(height=True), None, '"height" must be an integer, got true'),
    (npuzzle_json(width=1), None, "board is 1x3; width and height must be 2 to 8"),
    (npuzzle_json(width=10**9), None, "board is 1000000000x3; width and height must be 2 to 8"),
    (npuzzle_json(tiles="123456780"), None, '"tiles" must be a list of integers, got "123456780"'),
    (npuzzle_json(tiles=[1, 2, 3, 4, 5, 6, 7, 8, 0.0]), None, '"tiles" must be a list of integers'),
    (npuzzle_json(tiles=[[1, 2, 3], [4, 5, 6], [7, 8, 0]]), None, '"tiles" must be a list of integers'),
    (npuzzle_json(tiles=[1, 2, 3, 0]), None, "a 3x3 board has 9 tiles, got 4"),
    (npuzzle_json(tiles=[1, 2, 3, 4, 5, 6, 7, 8, 1]), None, "but 1 is duplicated, 0 is missing"),
]

JSON_ERRORS = [*(("rushhour", *case) for case in RUSHHOUR_JSON), *(("npuzzle", *case) for case in NPUZZLE_JSON)]


@pytest.mark.parametrize("domain, text, line, message", JSON_ERRORS)
def test_bad_json_rejected(tmp_path, domain, text, line, message):
    load, parse = LOADERS[domain]
    path = tmp_path / "board.json"
    path.write_text(text)
    error = error_of(load, str(path))
    assert message in error.message
    assert (error.source, error.line) == (str(path), line)
    literal = error_of(parse, text, fmt="json")
    assert (literal.message, literal.source, literal.line) == (error.message, "<board>", line)


# --- Rush Hour: course CSV, letters and grids -------------------------------------------------


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


RUSHHOUR_LITERALS = [
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


@pytest.mark.parametrize("text, message", RUSHHOUR_LITERALS)
def test_bad_rushhour_literal_rejected(text, message):
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


def test_rushhour_format_errors():
    walled = load_board(FOGLEMAN)
    assert "no walls" in str(error_of(format_board, walled, "csv"))
    assert "unknown board format 'yaml'" in str(error_of(format_board, walled, "yaml"))
    vehicles = tuple(Vehicle(f"V{i}", False, 1 + (i // 9) * 3, i % 9, 2) for i in range(26))
    crowded = RushHourBoard(9, vehicles + (Vehicle("X", True, 0, 0, 2),), "X")
    assert format_board(crowded, "csv").count("\n") == 28
    assert "too many vehicles for a one-letter format" in str(error_of(format_board, crowded, "grid"))
    fits = replace(crowded, vehicles=crowded.vehicles[1:])
    assert parse_board(format_board(fits, "fogleman")).size == 9


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


# --- the N-puzzle: literals, rows files, goals and board lists ----------------------------------


NPUZZLE_LITERALS = [
    ("/ /", None, "empty board"),
    ("1 2 3/4 5/7 8 0", 1, "row 2 has 2 tiles but row 1 has 3"),
    ("1 2 3 4 5 6", 1, "6 tiles do not make a square board: separate the rows with '/' or give the width or height"),
    ("7", 1, "board is 1x1; width and height must be 2 to 8"),
    ("1 2 3/4 5 6", 1, "a 3x2 board holds the tiles 0 to 5 once each, but 6 is out of range, 0 is missing"),
    ("1 2 3 4 5 6 7 8 9", 1, "a 3x3 board holds the tiles 0 to 8 once each, but 9 is out of range, 0 is missing"),
    ("1 2 3 4 5 6 7 8 8", 1, "but 8 is duplicated, 0 is missing"),
    ("1 1 2 2 3 3 4 5 6", 1, "but 1, 2 and 3 are duplicated, 0, 7 and 8 are missing"),
    ("-1 1 2 3", 1, "but -1 is out of range, 0 is missing"),
    ("1 2 3/4 x 6/7 8 0", 1, "'x' is not a tile number (an integer in ASCII digits)"),
    ("1 2 3 4 5 6 7 8 0.0", 1, "'0.0' is not a tile number (an integer in ASCII digits)"),
    ("1 2 3 4 5 6 7 8 ٠", 1, "'٠' is not a tile number (an integer in ASCII digits)"),
    ("1 2/3 0/4 5/6 7/8 9/10 11/12 13/14 15/16 17", 1, "board is 2x9; width and height must be 2 to 8"),
    (" ".join(map(str, range(81))), 1, "board is 9x9; width and height must be 2 to 8"),
    ("1 2 3 0 4 5 6 7 8 9", 1, "10 tiles do not make a square board"),
    ("12345678", 1, "8 tiles do not make a square board"),
    ("123456788", 1, "but 8 is duplicated, 0 is missing"),
    ("12345678901", 1, "a digit string holds at most 10 tiles, got 11 digits; separate numbers with spaces"),
    ("1 2 3 4 5 6 7 8 0 # x\n# y", 1, None),
    ("# only\n  # comments", None, "empty board (only comments)"),
]


@pytest.mark.parametrize("text, line, message", NPUZZLE_LITERALS)
def test_bad_npuzzle_literal_rejected(text, line, message):
    if message is None:
        assert parse_npuzzle(text) == EIGHT
        return
    error = error_of(parse_npuzzle, text)
    assert message in error.message
    assert (error.source, error.line) == ("<board>", line)
    assert str(error).startswith("<board>:1: " if line else "<board>: ")


def test_listing_is_capped():
    text = " ".join(["1"] * 64)
    message = error_of(parse_npuzzle, text).message
    assert message.endswith("0, 2, 3, 4, 5, 6, 7, 8 and 55 more are missing")


def test_rows_file_errors_name_the_line(tmp_path):
    path = tmp_path / "board.txt"
    path.write_text("# my board\n1 2 3\n\n4 5\n7 8 0\n")
    assert str(error_of(load_npuzzle, str(path))) == f"{path}:4: row 2 has 2 tiles but row 1 has 3"
    path.write_text("1 2 3\n4 5 6\n7 8 seven\n")
    assert str(error_of(load_npuzzle, str(path))) == f"{path}:3: 'seven' is not a tile number (an integer in ASCII digits)"
    path.write_text("1 2 3\n4 5 6\n7 5 0\n")
    assert str(error_of(load_npuzzle, str(path))) == (
        f"{path}:3: a 3x3 board holds the tiles 0 to 8 once each, but 5 is duplicated, 8 is missing"
    )
    path.write_text("1 2 3 4 5 6 7 8 9\n1 2 3 4 5 6 7 8 9\n")
    assert str(error_of(load_npuzzle, str(path))) == f"{path}:1: board is 9x2; width and height must be 2 to 8"


def test_given_width_and_height():
    assert parse_npuzzle("1 2 3/4 5 0", width=3, height=2).width == 3
    assert str(error_of(parse_npuzzle, "1 2 3/4 5 0", width=2)) == "<board>: board is 3x2 but width 2 was given"
    assert str(error_of(parse_npuzzle, EIGHT_JSON, height=4)) == "<board>: board is 3x3 but height 4 was given"
    assert str(error_of(parse_npuzzle, "1 2 3 4 5 0", width=4)) == "<board>:1: 6 tiles do not fill rows of width 4"
    assert str(error_of(parse_npuzzle, "1 2 3 4 5 0", width=3, height=3)) == (
        "<board>:1: a 3x3 board has 9 tiles, got 6"
    )
    assert str(error_of(parse_npuzzle, "1 2 3 4 5 0", width=6)) == (
        "<board>:1: board is 6x1; width and height must be 2 to 8"
    )
    assert str(error_of(parse_npuzzle, EIGHT_JSON, width=9)) == "<board>: width must be an integer from 2 to 8, got 9"
    assert "height must be an integer from 2 to 8, got 1" in str(error_of(load_npuzzle, "1 0", height=1))


def test_npuzzle_format_errors():
    assert "unknown board format 'yaml'" in str(error_of(format_npuzzle, EIGHT, "yaml"))
    assert "unknown board format 'yaml'" in str(error_of(parse_npuzzle, EIGHT_JSON, fmt="yaml"))
    fifteen = NPuzzleBoard(4, 4, goal_tiles(4, 4, "blank-last"), "fifteen")
    assert str(error_of(format_npuzzle, fifteen, "digits")) == (
        "fifteen: a 4x4 board has 16 cells; digit strings hold at most 10"
    )
    assert "not valid JSON" in str(error_of(parse_npuzzle, "1 2 3 4 5 6 7 8 0", fmt="json"))
    assert "a digit string is one word of digits" in str(error_of(parse_npuzzle, "1 2 3 0", fmt="digits"))
    assert "board is 1x1" in str(error_of(parse_npuzzle, "123456780", fmt="line"))


def test_bad_goals_are_refused():
    assert "unknown goal 'korf'" in str(error_of(NPuzzleBoard, 3, 3, EIGHT.tiles, goal="korf"))
    assert "unknown goal 'korf'" in str(error_of(parse_npuzzle, "123456780", goal="korf"))
    assert str(error_of(parse_npuzzle, npuzzle_json(goal="korf"))) == (
        '<board>: "goal" must be "blank-last" or "blank-first", got "korf"'
    )
    assert '"goal" must be "blank-last" or "blank-first", got 1' in str(error_of(parse_npuzzle, npuzzle_json(goal=1)))


# --- board lists ------------------------------------------------------------------------------


BOARD_LIST_ERRORS = [
    ("id,tiles\n1,123456780\n2,1 2 3 4 5 6 7 8\n", 3, "8 tiles do not make a square board"),
    ("id,tiles\n1,1 2 3 4 5 6 7 8 8\n", 2, "a 3x3 board holds the tiles 0 to 8 once each, but 8 is"),
    ("id,tiles\n1,\n", 2, "empty board"),
    ("# c\n\nid,goal,tiles\n1,sideways,123456780\n", 4, "unknown goal 'sideways' (choose from"),
    ("id,tiles\n1,123456780,9\n", 2, "the row has 3 fields but the header has 2"),
    ("id,tiles\n,123456780\n", 2, "the row has an empty id"),
    ("id,tiles\n7,123456780\n7,123456708\n", 3, "id '7' is also on line 2"),
    ("tiles,tiles\n1,2\n", 1, "the header repeats the column 'tiles'"),
    ("id,tiles\n", None, "the board list has a header but no rows"),
]


@pytest.mark.parametrize("text, line, message", BOARD_LIST_ERRORS)
def test_bad_board_lists_are_refused_naming_the_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    error = error_of(read_board_list, str(path))
    assert message in error.message and "\n" not in str(error)
    assert (error.source, error.line) == (str(path), line)
    assert str(error_of(load_npuzzles, str(path))) == str(error)
