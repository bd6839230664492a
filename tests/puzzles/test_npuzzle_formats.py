"""Reading and writing N-puzzle boards: rows, one line, digit strings, canonical JSON with the goal, board lists;
solvability of the seeds.

What is refused, and how it is worded, is `test_npuzzle_format_errors.py`'s.
"""

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
from tests.puzzles.board_texts import EIGHT, EIGHT_JSON, error_of


def board_id(board) -> str:
    """The id the results database gives a board."""
    return text_id(canonical_text(board))


KORF100 = Path(__file__).resolve().parents[2] / "data" / "boards" / "npuzzle" / "korf100.csv"
SHAPES = [(2, 2), (3, 3), (4, 4), (5, 5), (2, 3), (3, 2), (2, 4), (4, 2), (3, 5), (5, 3)]


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
    assert canonical_text(parse_npuzzle('{"goal":"blank-last",' + EIGHT_JSON[1:])) == EIGHT_JSON


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
