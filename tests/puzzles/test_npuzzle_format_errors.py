"""Bad N-puzzle boards are refused, naming the file and line: literals, rows files, JSON, goals and board lists."""

import json

import pytest

from puzzles.npuzzle.board import NPuzzleBoard, goal_tiles
from puzzles.npuzzle.boardlist import load_npuzzle, load_npuzzles, read_board_list
from puzzles.npuzzle.formats import format_npuzzle, parse_npuzzle
from tests.puzzles.board_texts import EIGHT, EIGHT_JSON, error_of

# --- literals, rows files and the width and height given --------------------------------------


LITERAL_ERRORS = [
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


@pytest.mark.parametrize("text, line, message", LITERAL_ERRORS)
def test_bad_literal_rejected(text, line, message):
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


def test_file_errors(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert str(error_of(load_npuzzle, str(empty))) == f"{empty}: empty file"
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n")
    assert str(error_of(load_npuzzle, str(blank))) == f"{blank}: empty board"
    large = tmp_path / "large.txt"
    large.write_bytes(b"1 " * (1 << 19) + b"0")
    assert "file too large" in str(error_of(load_npuzzle, str(large)))
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00")
    assert "not UTF-8 text" in str(error_of(load_npuzzle, str(binary)))
    missing = tmp_path / "missing.txt"
    assert str(error_of(load_npuzzle, str(missing))) == f"{missing}: no such file"
    assert str(error_of(load_npuzzle, str(tmp_path))) == f"{tmp_path}: not a regular file"
    not_json = tmp_path / "eight.json"
    not_json.write_text("1 2 3\n4 5 6\n7 8 0\n")
    assert str(error_of(load_npuzzle, str(not_json))).startswith(f"{not_json}:1: not valid JSON: Extra data")


def test_format_errors():
    assert "unknown board format 'yaml'" in str(error_of(format_npuzzle, EIGHT, "yaml"))
    assert "unknown board format 'yaml'" in str(error_of(parse_npuzzle, EIGHT_JSON, fmt="yaml"))
    fifteen = NPuzzleBoard(4, 4, goal_tiles(4, 4, "blank-last"), "fifteen")
    assert str(error_of(format_npuzzle, fifteen, "digits")) == (
        "fifteen: a 4x4 board has 16 cells; digit strings hold at most 10"
    )
    assert "not valid JSON" in str(error_of(parse_npuzzle, "1 2 3 4 5 6 7 8 0", fmt="json"))
    assert "a digit string is one word of digits" in str(error_of(parse_npuzzle, "1 2 3 0", fmt="digits"))
    assert "board is 1x1" in str(error_of(parse_npuzzle, "123456780", fmt="line"))


# --- JSON and its goal ------------------------------------------------------------------------


def json_board(**changes) -> str:
    """The goal's JSON with some keys changed (None drops a key)."""
    data = json.loads(EIGHT_JSON) | changes
    return json.dumps({key: value for key, value in data.items() if value is not None})


JSON_ERRORS = [
    ('{"width":3,\n"height":3,,}', 2, "not valid JSON: Expecting property name enclosed in double quotes (col 12)"),
    (EIGHT_JSON + "x", 1, "not valid JSON: Extra data"),
    ('{"width":NaN}', None, "not valid JSON: NaN is not a number"),
    ('{"a":' + "[" * 100_000, None, "not valid JSON: nested too deeply"),
    (EIGHT_JSON.replace('"width":3', '"width":3,"width":4'), None, "duplicate key 'width' in JSON board"),
    ("[1, 2, 3]", None, "a JSON board is an object with keys height, tiles, width"),
    (json_board(width=None, tiles=None), None, "JSON board lacks key tiles, width"),
    (json_board(name="b"), None, "unknown key 'name' in JSON board (expected height, tiles, width)"),
    (json_board(width="3"), None, '"width" must be an integer, got "3"'),
    (json_board(height=3.0), None, '"height" must be an integer, got 3.0'),
    (json_board(height=True), None, '"height" must be an integer, got true'),
    (json_board(width=1), None, "board is 1x3; width and height must be 2 to 8"),
    (json_board(width=10**9), None, "board is 1000000000x3; width and height must be 2 to 8"),
    (json_board(tiles="123456780"), None, '"tiles" must be a list of integers, got "123456780"'),
    (json_board(tiles=[1, 2, 3, 4, 5, 6, 7, 8, 0.0]), None, '"tiles" must be a list of integers'),
    (json_board(tiles=[[1, 2, 3], [4, 5, 6], [7, 8, 0]]), None, '"tiles" must be a list of integers'),
    (json_board(tiles=[1, 2, 3, 0]), None, "a 3x3 board has 9 tiles, got 4"),
    (json_board(tiles=[1, 2, 3, 4, 5, 6, 7, 8, 1]), None, "but 1 is duplicated, 0 is missing"),
]


@pytest.mark.parametrize("text, line, message", JSON_ERRORS)
def test_bad_json_rejected(tmp_path, text, line, message):
    path = tmp_path / "board.json"
    path.write_text(text)
    error = error_of(load_npuzzle, str(path))
    assert message in error.message
    assert (error.source, error.line) == (str(path), line)
    literal = error_of(parse_npuzzle, text, fmt="json")
    assert (literal.message, literal.source, literal.line) == (error.message, "<board>", line)


def test_bad_goals_are_refused():
    assert "unknown goal 'korf'" in str(error_of(NPuzzleBoard, 3, 3, EIGHT.tiles, goal="korf"))
    assert "unknown goal 'korf'" in str(error_of(parse_npuzzle, "123456780", goal="korf"))
    assert str(error_of(parse_npuzzle, json_board(goal="korf"))) == (
        '<board>: "goal" must be "blank-last" or "blank-first", got "korf"'
    )
    assert '"goal" must be "blank-last" or "blank-first", got 1' in str(error_of(parse_npuzzle, json_board(goal=1)))


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
