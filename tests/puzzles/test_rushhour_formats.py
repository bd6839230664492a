"""Reading and writing Rush Hour boards: course CSV, Fogleman strings, ASCII grids, canonical JSON, the board id.

What is refused, and how it is worded, is `test_rushhour_format_errors.py`'s.
"""

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.rushhour.board import RushHourBoard, Vehicle
from puzzles.rushhour.formats import canonical_text, detect_format, format_board, load_board, parse_board
from puzzles.textio import text_id
from tests.puzzles.board_texts import FOGLEMAN, HEADER, TWO_CARS, error_of

BOARDS = Path(__file__).resolve().parents[2] / "data" / "boards" / "rushhour"


def board_id(board) -> str:
    """The id the results database gives a board."""
    return text_id(canonical_text(board))


def shape(board: RushHourBoard):
    """A board up to the names of its vehicles."""
    cars = sorted((v.horizontal, v.row, v.col, v.length) for v in board.vehicles)
    return board.size, cars, board.red_vehicle.cells(), board.walls


# --- the course boards and Fogleman's example ---------------------------------------------


@pytest.mark.parametrize(
    "stem, size, count",
    [
        ("Rushhour6x6_1", 6, 13),
        ("Rushhour6x6_2", 6, 13),
        ("Rushhour6x6_3", 6, 9),
        ("Rushhour9x9_4", 9, 22),
        ("Rushhour9x9_5", 9, 24),
        ("Rushhour9x9_6", 9, 26),
        ("Rushhour12x12_7", 12, 44),
    ],
)
def test_course_boards_load(stem, size, count):
    board = load_board(str(BOARDS / f"{stem}.csv"))
    assert (board.size, len(board.vehicles), board.name, board.red) == (size, count, stem, "X")
    assert board.red_vehicle.horizontal
    assert not board.walls


def test_course_board_keeps_names_and_order():
    board = load_board(str(BOARDS / "Rushhour12x12_7.csv"))
    assert [v.name for v in board.vehicles][:2] == ["A", "B"]
    assert board.vehicles[0] == Vehicle("A", True, 0, 7, 3)
    assert board.vehicles[-1] == Vehicle("X", True, 5, 2, 2)
    assert {"AA", "AB", "AS"} <= {v.name for v in board.vehicles}


@pytest.mark.parametrize("stem", [p.stem for p in sorted(BOARDS.glob("*.csv"))])
def test_course_boards_round_trip_exactly_through_csv(stem):
    board = load_board(str(BOARDS / f"{stem}.csv"))
    assert parse_board(format_board(board, "csv"), size=board.size, name=stem) == board


def test_fogleman_example():
    board = load_board(FOGLEMAN)
    assert (board.size, board.red, board.name) == (6, "A", "")
    assert board.red_vehicle == Vehicle("A", True, 2, 1, 2)
    assert board.walls == frozenset({(0, 3)})
    assert len(board.vehicles) == 12
    assert format_board(board, "fogleman") == FOGLEMAN
    assert format_board(board, "grid").splitlines()[:3] == ["IBBx..", "I..LDD", "JAAL.."]


def test_fogleman_dots_grids_and_slashes_agree():
    grid = format_board(load_board(FOGLEMAN), "grid")
    expected = load_board(FOGLEMAN)
    assert load_board(FOGLEMAN.replace("o", ".")) == expected
    assert load_board(grid) == expected
    assert load_board("/".join(grid.split())) == expected
    assert load_board(" / ".join(grid.split())) == expected
    assert load_board("\n\n" + grid.replace("\n", "  \n") + "\n\n") == expected


def test_files_of_each_format_load(tmp_path):
    board = load_board(FOGLEMAN)
    for fmt in ("fogleman", "grid"):
        path = tmp_path / f"board_{fmt}.txt"
        path.write_text(format_board(board, fmt))
        assert load_board(str(path)) == replace(board, name=f"board_{fmt}")


def test_csv_accepts_lower_case_orientation_blank_lines_and_explicit_size(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(HEADER + "\nA,v,1,1,2\n\nX,h,2,3,2\n")
    board = load_board(str(path), size=6)
    assert board.vehicles == (Vehicle("A", False, 0, 0, 2), Vehicle("X", True, 2, 1, 2))
    assert board.size == 6 and board.name == "mine"


def test_csv_size_from_any_name_with_nxn(tmp_path):
    path = tmp_path / "level-7x7.csv"
    path.write_text(HEADER + "X,H,1,1,2\n")
    assert load_board(str(path)).size == 7
    assert load_board(str(path), size=7).size == 7


@pytest.mark.parametrize(
    "text, fmt",
    [
        (HEADER + "X,H,1,1,2\n", "csv"),
        ("car;orientation;col;row;length\n", "csv"),
        (FOGLEMAN, "fogleman"),
        ("AAoo\noooo\noooo\noooo\n", "grid"),
        ("AAoo/oooo", "grid"),
        ('{"red":"X","size":6,"vehicles":[],"walls":[]}', "json"),
        ('\n  {\n  "size": 6\n}\n', "json"),
        ("{", "json"),
    ],
)
def test_detect_format(text, fmt):
    assert detect_format(text) == fmt


# --- round trips -------------------------------------------------------------------------------


@st.composite
def boards(draw, walls: bool):
    """Random valid boards: N in 4..12, vehicles without overlap, a horizontal red car, walls if asked."""
    n = draw(st.integers(4, 12))
    red_length = draw(st.integers(2, n - 1))
    red = Vehicle("", True, draw(st.integers(0, n - 1)), draw(st.integers(0, n - red_length)), red_length)
    placed, occupied = [red], set(red.cells())
    wishes = st.tuples(st.booleans(), st.integers(0, n - 1), st.integers(0, n - 1), st.integers(2, min(n, 4)))
    for horizontal, row, col, length in draw(st.lists(wishes, max_size=40)):
        vehicle = Vehicle("", horizontal, row, col, length)
        cells = set(vehicle.cells())
        if len(placed) <= 25 and vehicle.position + length <= n and not cells & occupied:
            placed.append(vehicle)
            occupied |= cells
    red_index = draw(st.integers(0, len(placed) - 1))
    placed[0], placed[red_index] = placed[red_index], placed[0]
    name = st.from_regex(r"[A-Z][A-Z0-9]?", fullmatch=True)
    names = draw(st.lists(name, min_size=len(placed), max_size=len(placed), unique=True))
    vehicles = tuple(replace(v, name=name) for v, name in zip(placed, names))
    cell = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    wall_cells = draw(st.sets(cell, max_size=8)) if walls else set()
    return RushHourBoard(n, vehicles, names[red_index], frozenset(wall_cells - occupied))


@settings(max_examples=150, deadline=None)
@given(boards(walls=True), st.sampled_from(["fogleman", "grid"]))
def test_letter_formats_round_trip(board, fmt):
    text = format_board(board, fmt)
    assert detect_format(text) == fmt
    back = parse_board(text)
    assert shape(back) == shape(board)
    assert back.red == "A"
    assert len(back.vehicles) == len(board.vehicles)


@settings(max_examples=150, deadline=None)
@given(boards(walls=False))
def test_csv_round_trip(board):
    back = parse_board(format_board(board, "csv"), size=board.size)
    assert shape(back) == shape(board)
    assert back.red == "X"
    assert [replace(v, name="") for v in back.vehicles] == [replace(v, name="") for v in board.vehicles]
    for before, after in zip(board.vehicles, back.vehicles):
        assert after.name == before.name or before.name in (board.red, "X")


def test_csv_renames_red_car_to_x_and_moves_another_x_aside():
    board = RushHourBoard(6, (Vehicle("X", False, 0, 0, 2), Vehicle("R", True, 2, 1, 2)), "R")
    lines = format_board(board, "csv").splitlines()
    assert lines == ["car,orientation,col,row,length", "A,V,1,1,2", "X,H,2,3,2"]


def test_letter_formats_relabel_long_and_clashing_names():
    vehicles = (Vehicle("A", False, 0, 0, 2), Vehicle("AB", False, 0, 1, 2), Vehicle("B", False, 0, 2, 2))
    board = RushHourBoard(6, vehicles + (Vehicle("X", True, 2, 1, 2),), "X")
    assert format_board(board, "grid").splitlines()[:3] == ["CDB...", "CDB...", ".AA..."]


# --- JSON, the canonical text and the board id -------------------------------------------------


def test_json_known_texts():
    two_cars = parse_board(HEADER + "A,V,1,1,2\nX,H,2,3,2\n", size=6)
    assert format_board(two_cars, "json") == canonical_text(two_cars) == TWO_CARS
    walled = RushHourBoard(6, two_cars.vehicles, "X", frozenset({(0, 3), (2, 0), (5, 0), (0, 5)}), "named")
    assert canonical_text(walled) == TWO_CARS.replace('"walls":[]', '"walls":[[1,3],[1,6],[4,1],[6,1]]')
    assert canonical_text(load_board(FOGLEMAN)).endswith('["H","H",3,6,3]],"walls":[[4,1]]}')


@pytest.mark.parametrize("stem", [p.stem for p in sorted(BOARDS.glob("*.csv"))])
def test_course_boards_round_trip_exactly_through_json(stem):
    board = load_board(str(BOARDS / f"{stem}.csv"))
    text = format_board(board, "json")
    assert text.startswith(f'{{"red":"X","size":{board.size},"vehicles":[') and " " not in text
    assert detect_format(text) == "json"
    back = parse_board(text, name=stem)
    assert back == board
    assert format_board(back, "json") == text
    assert json.loads(text)["vehicles"] == [
        [v.name, "H" if v.horizontal else "V", v.col + 1, v.row + 1, v.length] for v in board.vehicles
    ]


def test_walled_fogleman_board_round_trips_through_json():
    board = load_board(FOGLEMAN)
    text = format_board(board, "json")
    assert parse_board(text) == board
    assert load_board(text) == board
    assert format_board(parse_board(text), "fogleman") == FOGLEMAN


@settings(max_examples=150, deadline=None)
@given(boards(walls=True))
def test_json_round_trip(board):
    text = format_board(board, "json")
    assert detect_format(text) == "json"
    assert parse_board(text) == board
    assert format_board(parse_board(text), "json") == text


def test_json_is_read_in_any_layout_and_written_canonically():
    data = json.loads(TWO_CARS)
    pretty = json.dumps(dict(reversed(list(data.items()))), indent=2)
    assert canonical_text(parse_board(pretty)) == TWO_CARS
    assert parse_board(TWO_CARS.replace('"V"', '"v"')) == parse_board(TWO_CARS)


def test_json_files_load_and_take_the_name_of_the_file(tmp_path):
    path = tmp_path / "level-1.json"
    path.write_text(TWO_CARS + "\n")
    board = load_board(str(path))
    assert board.name == "level-1" and board.size == 6
    assert load_board(str(path), size=6) == board
    assert str(error_of(load_board, str(path), size=9)) == f"{path}: board is 6x6 but size 9 was given"
    path.write_text("AAoo\noooo\noooo\noooo\n")
    assert str(error_of(load_board, str(path))).startswith(f"{path}:1: not valid JSON: Expecting value")


def test_parse_board_takes_an_explicit_format():
    assert parse_board(TWO_CARS, fmt="json") == parse_board(TWO_CARS)
    assert parse_board("AAoo/oooo/oooo/oooo", fmt="grid").size == 4
    assert "not valid JSON" in str(error_of(parse_board, "AAoo/oooo/oooo/oooo", fmt="json"))
    assert "unknown board format 'yaml'" in str(error_of(parse_board, TWO_CARS, fmt="yaml"))


def test_board_id_is_the_sha256_of_the_canonical_text(tmp_path):
    board = load_board(str(BOARDS / "Rushhour6x6_1.csv"))
    assert board_id(board) == hashlib.sha256(canonical_text(board).encode()).hexdigest()
    # Pinned: ids already stored in the results database must not change.
    assert board_id(board) == "b317e18ef8390e80e19a82ebd2cd6608e99693f6e1f839912afcfb8f3a087319"


def test_board_id_is_the_same_from_csv_and_from_json(tmp_path):
    for csv in sorted(BOARDS.glob("*.csv")):
        board = load_board(str(csv))
        path = tmp_path / f"{csv.stem}.json"
        path.write_text(canonical_text(board))
        from_json = load_board(str(path))
        assert from_json == board
        assert board_id(from_json) == board_id(board)


def test_board_id_ignores_the_name_but_not_labels_or_order():
    board = load_board(str(BOARDS / "Rushhour6x6_1.csv"))
    assert board_id(replace(board, name="another")) == board_id(board)
    relabelled = replace(board, vehicles=(replace(board.vehicles[0], name="Z"), *board.vehicles[1:]))
    assert board_id(relabelled) != board_id(board)
    reordered = replace(board, vehicles=(board.vehicles[1], board.vehicles[0], *board.vehicles[2:]))
    assert shape(reordered) == shape(board)
    assert board_id(reordered) != board_id(board)
    red_renamed = parse_board(canonical_text(board).replace('"X"', '"R"'))
    assert red_renamed.red == "R" and board_id(red_renamed) != board_id(board)
