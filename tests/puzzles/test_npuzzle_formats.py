"""Reading and writing N-puzzle boards: rows, one line, digit strings, canonical JSON with the goal, board lists;
solvability of the seeds."""

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.errors import PuzzleError
from puzzles.npuzzle.board import GOALS, MOVES, NPuzzleBoard, apply_moves, goal_tiles, is_solvable, is_solved
from puzzles.npuzzle.boardlist import is_board_list, load_npuzzle, load_npuzzles, read_board_list
from puzzles.npuzzle.formats import FORMATS, canonical_text, detect_npuzzle_format, format_npuzzle, looks_like_npuzzle, parse_npuzzle
from puzzles.rushhour.formats import format_board, load_board
from puzzles.textio import text_id


def board_id(board) -> str:
    """The id the results database gives a board."""
    return text_id(canonical_text(board))


KORF100 = Path(__file__).resolve().parents[2] / "data" / "boards" / "npuzzle" / "korf100.csv"
EIGHT = NPuzzleBoard(3, 3, (1, 2, 3, 4, 5, 6, 7, 8, 0))
EIGHT_JSON = '{"height":3,"tiles":[1,2,3,4,5,6,7,8,0],"width":3}'
SHAPES = [(2, 2), (3, 3), (4, 4), (5, 5), (2, 3), (3, 2), (2, 4), (4, 2), (3, 5), (5, 3)]


def error_of(call, *args, **kwargs) -> PuzzleError:
    """The PuzzleError a call raises."""
    with pytest.raises(PuzzleError) as info:
        call(*args, **kwargs)
    return info.value


@st.composite
def boards(draw, shapes=SHAPES):
    """Random W x H boards (any permutation, solvable or not)."""
    width, height = draw(st.sampled_from(shapes))
    return NPuzzleBoard(width, height, tuple(draw(st.permutations(range(width * height)))))


# --- goals and the seeds' solvability -----------------------------------------------------------


def test_goal_tiles():
    assert goal_tiles(3, 3, "blank-last") == (1, 2, 3, 4, 5, 6, 7, 8, 0)
    assert goal_tiles(3, 3, "blank-first") == (0, 1, 2, 3, 4, 5, 6, 7, 8)
    assert goal_tiles(3, 2) == (1, 2, 3, 4, 5, 0)
    assert "unknown goal 'korf'" in str(error_of(goal_tiles, 3, 3, "korf"))
    for goal in GOALS:
        board = NPuzzleBoard(4, 2, goal_tiles(4, 2, goal))
        assert is_solved(board, goal) and is_solvable(board, goal)


@pytest.mark.parametrize(
    "digits, solvable",
    [
        ("123456078", True),
        ("123460758", True),
        ("412053786", True),
        ("412763058", True),
        ("412763580", True),
        ("134805726", False),
    ],
)
def test_seed_boards_solvability(digits, solvable):
    assert is_solvable(load_npuzzle(digits), "blank-last") is solvable


def test_known_fifteen_puzzles():
    # Sam Loyd's 14-15 puzzle: the goal with two tiles swapped cannot be solved...
    loyd = load_npuzzle("1 2 3 4/5 6 7 8/9 10 11 12/13 15 14 0")
    assert not is_solvable(loyd, "blank-last")
    # ... and on 4x4 the two goals are in different classes (a 16-cycle is odd), on 3x3 in the same one.
    assert is_solvable(loyd, "blank-first")
    assert not is_solvable(NPuzzleBoard(4, 4, goal_tiles(4, 4, "blank-first")), "blank-last")
    assert is_solvable(NPuzzleBoard(3, 3, goal_tiles(3, 3, "blank-first")), "blank-last")
    # Korf's (1985) first instance, 57 moves from the blank-first goal.
    korf1 = load_npuzzle("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3")
    assert is_solvable(korf1, "blank-first") and not is_solvable(korf1, "blank-last")


def test_apply_moves():
    # 1 2 3      1 2 3
    # 4 5 6  UL  4 _ 5
    # 7 8 _  ->  7 8 6
    assert apply_moves(EIGHT, "UL").tiles == (1, 2, 3, 4, 0, 5, 7, 8, 6)
    assert apply_moves(EIGHT, "") == EIGHT
    assert apply_moves(EIGHT, "ULDR") != EIGHT
    assert apply_moves(EIGHT, "UDLR") == EIGHT
    assert str(error_of(apply_moves, EIGHT, "UUU")) == (
        "move 3 (U) takes the blank off the 3x3 board (from row 1, col 3)"
    )
    assert str(error_of(apply_moves, replace(EIGHT, name="e"), "R")) == (
        "e: move 1 (R) takes the blank off the 3x3 board (from row 3, col 3)"
    )
    assert "move 2 is 'x'; a move is U, D, L or R" in str(error_of(apply_moves, EIGHT, "Ux"))


@settings(max_examples=100, deadline=None)
@given(boards(), st.sampled_from(GOALS), st.lists(st.sampled_from(MOVES), max_size=60))
def test_legal_moves_keep_solvability_and_undo(board, goal, wishes):
    undo = {"U": "D", "D": "U", "L": "R", "R": "L"}
    moves, current = "", board
    for move in wishes:
        try:
            current = apply_moves(current, move)
        except PuzzleError:
            continue
        moves += move
    assert apply_moves(board, moves) == current
    assert is_solvable(current, goal) == is_solvable(board, goal)
    assert apply_moves(current, "".join(undo[m] for m in reversed(moves))) == board


# --- round trips and detection ------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(boards(), st.sampled_from(["rows", "line", "json"]))
def test_round_trip(board, fmt):
    text = format_npuzzle(board, fmt)
    assert detect_npuzzle_format(text) == fmt
    assert looks_like_npuzzle(text)
    assert parse_npuzzle(text) == board
    assert parse_npuzzle(text, width=board.width, height=board.height, fmt=fmt) == board
    assert format_npuzzle(parse_npuzzle(text), fmt) == text


@settings(max_examples=100, deadline=None)
@given(boards([(2, 2), (3, 3), (2, 3), (3, 2), (2, 4), (4, 2)]))
def test_digits_round_trip(board):
    text = format_npuzzle(board, "digits")
    assert detect_npuzzle_format(text) == "digits" and looks_like_npuzzle(text)
    assert parse_npuzzle(text, width=board.width) == board
    assert parse_npuzzle(text, height=board.height) == board
    if board.width == board.height:
        assert parse_npuzzle(text) == board


@settings(max_examples=100, deadline=None)
@given(boards(), st.sampled_from([" ", ",", ", ", " ,\t"]))
def test_one_line_without_slashes(board, separator):
    text = separator.join(map(str, board.tiles))
    assert detect_npuzzle_format(text) == "line"
    assert parse_npuzzle(text, width=board.width, height=board.height) == board
    assert parse_npuzzle(text, width=board.width) == board
    if board.width == board.height:
        assert parse_npuzzle(text) == board
    else:
        assert "do not make a square board" in str(error_of(parse_npuzzle, text))


@settings(max_examples=100, deadline=None)
@given(boards())
def test_rows_with_commas_comments_and_blank_lines(board):
    rows = [",".join(map(str, row)) for row in board.rows()]
    text = "# a board\n\n" + "\n\n".join(f"  {row} ,  # row {i}" for i, row in enumerate(rows)) + "\n"
    assert detect_npuzzle_format(text) == "rows"
    assert parse_npuzzle(text) == board


def test_known_texts():
    assert format_npuzzle(EIGHT, "rows") == "1 2 3\n4 5 6\n7 8 0\n"
    assert format_npuzzle(EIGHT, "line") == "1 2 3/4 5 6/7 8 0"
    assert format_npuzzle(EIGHT, "digits") == "123456780"
    assert format_npuzzle(EIGHT, "json") == canonical_text(EIGHT) == EIGHT_JSON
    fifteen = NPuzzleBoard(4, 4, goal_tiles(4, 4, "blank-first"))
    assert format_npuzzle(fifteen, "rows").splitlines()[:2] == [" 0  1  2  3", " 4  5  6  7"]
    wide = NPuzzleBoard(3, 2, (1, 2, 3, 4, 5, 0))
    assert format_npuzzle(wide, "line") == "1 2 3/4 5 0"
    assert canonical_text(wide) == '{"height":2,"tiles":[1,2,3,4,5,0],"width":3}'


@pytest.mark.parametrize(
    "text",
    ["1 2 3/4 5 6/7 8 0", "1,2,3,4,5,6,7,8,0", "1 2 3 4 5 6 7 8 0", " 1 2 3 / 4 5 6 / 7 8 0 / ", "123456780",
     "1 2 3\n4 5 6\n7 8 0", "1 2 3\r\n4 5 6\r\n7 8 0\r\n", '{ "width": 3, "height": 3, "tiles": [1,2,3,4,5,6,7,8,0] }',
     "1 2 3 4 5 6 7 8 0  # the goal", "+1 2 3 4 5 6 7 8 00"],
)
def test_spellings_of_the_goal(text):
    assert load_npuzzle(text) == EIGHT


@pytest.mark.parametrize(
    "text, fmt",
    [
        ("1 2 3\n4 5 6\n7 8 0\n", "rows"),
        ("# comment\n1 2 3 4 5 6 7 8 0\n\n", "line"),
        ("1 2/3 0", "line"),
        ("1,2,3,0", "line"),
        ("1230", "digits"),
        ("123456780", "digits"),
        ("\n123456780\n", "digits"),
        ("7", "line"),
        (EIGHT_JSON, "json"),
        ('\n  {\n "width": 3\n}', "json"),
        ("{", "json"),
    ],
)
def test_detect_format(text, fmt):
    assert detect_npuzzle_format(text) == fmt


@pytest.mark.parametrize(
    "text, npuzzle",
    [
        ("1 2 3/4 5 6/7 8 0", True),
        ("123456780", True),
        ("1, 2\n3, 0\n", True),
        ("# an N-puzzle\n1 2\n3 0  # last row\n", True),
        (EIGHT_JSON, True),
        ("IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM", False),
        ("AAoo/oooo/oooo/oooo", False),
        ("car,orientation,col,row,length\nX,H,1,3,2\n", False),
        ('{"red":"X","size":6,"vehicles":[],"walls":[]}', False),
        ("{", False),
        ("", False),
        ("# only a comment\n", True),  # refused as an empty N-puzzle board, not read as a Rush Hour grid
        ("1 2 x 4", False),
        ("\uff11 \uff12\n\uff13 \uff10\n", True),  # fullwidth digits: refused as tile numbers
        ("1 2\x00\n3 0\n", True),
        ("1 2 3/4 5 6/7 8 -1", True),
        ("1.0 2 3/4 5 6/7 8 0", True),
        ("....../......", False),
    ],
)
def test_looks_like_npuzzle(text, npuzzle):
    assert looks_like_npuzzle(text) is npuzzle


def test_rush_hour_texts_never_look_like_npuzzles():
    fogleman = load_board("IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM")
    for fmt in ("fogleman", "grid", "json"):
        assert not looks_like_npuzzle(format_board(fogleman, fmt))
    assert not looks_like_npuzzle(format_board(load_board("AAoo/oooo/oooo/oooo"), "csv"))


# --- files, JSON and the board id ---------------------------------------------------------------


def test_files_load_and_take_the_name_of_the_file(tmp_path):
    for fmt in FORMATS:
        path = tmp_path / f"eight-{fmt}.{'json' if fmt == 'json' else 'txt'}"
        path.write_text(format_npuzzle(EIGHT, fmt))
        assert load_npuzzle(str(path)) == replace(EIGHT, name=f"eight-{fmt}")
    path = tmp_path / "wide.txt"
    path.write_text("1 2 3 4 5 0\n")
    assert load_npuzzle(str(path), width=3) == NPuzzleBoard(3, 2, (1, 2, 3, 4, 5, 0), "wide")
    assert load_npuzzle(str(path), height=3) == NPuzzleBoard(2, 3, (1, 2, 3, 4, 5, 0), "wide")


def test_json_is_read_in_any_layout_and_written_canonically():
    pretty = json.dumps({"width": 3, "tiles": list(EIGHT.tiles), "height": 3}, indent=2)
    assert canonical_text(parse_npuzzle(pretty)) == EIGHT_JSON


def test_board_id_is_the_sha256_of_the_canonical_text():
    assert board_id(EIGHT) == hashlib.sha256(EIGHT_JSON.encode()).hexdigest()
    assert board_id(replace(EIGHT, name="another")) == board_id(EIGHT)
    assert board_id(NPuzzleBoard(3, 3, goal_tiles(3, 3, "blank-first"))) != board_id(EIGHT)


# --- bad input ----------------------------------------------------------------------------------


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


# --- the goal in the canonical text ---------------------------------------------------------------


def test_blank_last_boards_keep_the_ids_they_had_before_the_goal_was_part_of_the_board():
    # ids computed before the goal joined the board's text
    assert board_id(EIGHT) == "86366e4319a2f20a6838d3eaca6fd7f28b8527e8537336b8475af4149bb885b1"
    assert board_id(load_npuzzle("412763580")) == "89d44c89715baa528873b594a0ad0ff43c3aa8fd8a092cb28c662d7acf400061"
    korf1 = load_npuzzle("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3")
    assert board_id(korf1) == "a5b81487afce24983b4acaf8c7711319551b709c4ba99ae56ba746dc910f5417"
    assert board_id(replace(korf1, goal="blank-first")) != board_id(korf1)


def test_the_goal_is_written_only_when_it_is_not_blank_last():
    assert canonical_text(EIGHT) == EIGHT_JSON
    first = replace(EIGHT, goal="blank-first")
    assert canonical_text(first) == '{"goal":"blank-first",' + EIGHT_JSON[1:]
    assert parse_npuzzle(canonical_text(first)) == first
    assert canonical_text(parse_npuzzle(json_board(goal="blank-last"))) == EIGHT_JSON


@settings(max_examples=100, deadline=None)
@given(boards(), st.sampled_from(GOALS), st.sampled_from(GOALS))
def test_the_goal_round_trips_and_json_keeps_its_own(board, goal, other):
    board = replace(board, goal=goal)
    text = canonical_text(board)
    assert ('"goal"' in text) == (goal != "blank-last")
    assert parse_npuzzle(text) == board
    assert parse_npuzzle(text, goal=other) == (board if '"goal"' in text else replace(board, goal=other))
    for fmt in ("rows", "line"):
        assert parse_npuzzle(format_npuzzle(board, fmt), goal=goal) == board


def test_a_board_checks_its_goal_against_its_own_goal_by_default():
    korf1 = load_npuzzle("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", goal="blank-first")
    assert korf1.goal == "blank-first" and is_solvable(korf1) and not is_solvable(korf1, "blank-last")
    assert is_solved(NPuzzleBoard(3, 3, goal_tiles(3, 3, "blank-first"), goal="blank-first"))
    assert apply_moves(korf1, "U").goal == "blank-first"


def test_bad_goals_are_refused():
    assert "unknown goal 'korf'" in str(error_of(NPuzzleBoard, 3, 3, EIGHT.tiles, goal="korf"))
    assert "unknown goal 'korf'" in str(error_of(parse_npuzzle, "123456780", goal="korf"))
    assert str(error_of(parse_npuzzle, json_board(goal="korf"))) == (
        '<board>: "goal" must be "blank-last" or "blank-first", got "korf"'
    )
    assert '"goal" must be "blank-last" or "blank-first", got 1' in str(error_of(parse_npuzzle, json_board(goal=1)))


# --- board lists ------------------------------------------------------------------------------------


def test_korf_100_lists_the_published_instances():
    rows = read_board_list(str(KORF100))
    assert [row.id for row in rows] == [str(n) for n in range(1, 101)]
    assert [row.board.name for row in rows] == [f"korf100-{n}" for n in range(1, 101)]
    assert {row.board.goal for row in rows} == {"blank-first"}
    assert all(is_solvable(row.board) and row.board.width == row.board.height == 4 for row in rows)
    # Korf (1985): the optimal solutions average 53.05 moves; instance 1 is the README's, 57 moves
    assert sum(int(row.columns["optimal"]) for row in rows) == 5305
    assert rows[0].columns == {"id": "1", "optimal": "57", "korf_generated": "276361933", "goal": "blank-first"}
    assert rows[0].board.tiles == load_npuzzle("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3").tiles
    assert rows[0].line == 5


def test_a_row_is_picked_by_its_id():
    (board,) = load_npuzzles(f"{KORF100}#17")
    assert (board.name, board.goal) == ("korf100-17", "blank-first")
    assert load_npuzzle(f"{KORF100}#17") == board
    assert len(load_npuzzles(str(KORF100))) == 100
    assert str(error_of(load_npuzzle, str(KORF100))) == (
        f"{KORF100}: the board list holds 100 boards: pick one as {KORF100}#ID"
    )
    assert str(error_of(load_npuzzles, f"{KORF100}#101")) == (
        f"{KORF100}: no row has the id '101' (the 100 rows run from '1' to '100')"
    )


def test_only_csv_under_a_tiles_header_is_a_board_list(tmp_path):
    assert is_board_list(KORF100.read_text())
    assert is_board_list("# boards\n\nname, tiles\n")
    assert not is_board_list("car,orientation,col,row,length\nX,H,1,3,2\n")
    assert not is_board_list("1 2 3\n4 5 6\n7 8 0\n")
    course = Path(__file__).resolve().parents[2] / "data" / "boards" / "rushhour" / "Rushhour6x6_1.csv"
    assert str(error_of(load_npuzzles, f"{course}#3")) == (
        f"{course}: #3 picks a row of a board list, a CSV file with a 'tiles' column"
    )


def test_rows_take_the_goal_given_unless_they_have_their_own(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text('name,goal,tiles,note\n,,123456780,x\nfive,blank-first,"1,2,3/4,5,6/7,8,0",\n')
    first, second = read_board_list(str(path), goal="blank-first")
    assert (first.id, first.board.name, first.board.goal, first.columns["note"]) == ("1", "mine-1", "blank-first", "x")
    assert (second.id, second.board.name, second.board.goal, second.line) == ("2", "five", "blank-first", 3)
    assert [row.board.goal for row in read_board_list(str(path))] == ["blank-last", "blank-first"]
    assert first.board.tiles == second.board.tiles == EIGHT.tiles


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(boards(), st.sampled_from(GOALS)), min_size=1, max_size=6, unique_by=lambda b: b[0].tiles))
def test_board_lists_round_trip(tmp_path_factory, entries):
    path = tmp_path_factory.mktemp("lists") / "set.csv"
    lines = [f"{10 * n},{goal},{format_npuzzle(board, 'line')},{n}" for n, (board, goal) in enumerate(entries)]
    path.write_text("# a comment\nid,goal,tiles,rank\n" + "\n".join(lines) + "\n")
    rows = read_board_list(str(path))
    assert [row.board for row in rows] == [replace(b, name=f"set-{10 * n}", goal=g) for n, (b, g) in enumerate(entries)]
    assert [row.columns["rank"] for row in rows] == [str(n) for n in range(len(entries))]
    assert load_npuzzles(f"{path}#0") == [rows[0].board]


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
