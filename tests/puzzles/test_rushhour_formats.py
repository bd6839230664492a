"""Reading and writing Rush Hour boards: course CSV, Fogleman strings, ASCII grids."""

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.errors import PuzzleError
from puzzles.rushhour import RushHourBoard, Vehicle
from puzzles.rushhour_formats import detect_format, format_board, load_board, parse_board

BOARDS = Path(__file__).resolve().parents[2] / "data" / "boards" / "rushhour"
FOGLEMAN = "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM"
HEADER = "car,orientation,col,row,length\n"


def shape(board: RushHourBoard):
    """A board up to the names of its vehicles."""
    cars = sorted((v.horizontal, v.row, v.col, v.length) for v in board.vehicles)
    return board.size, cars, board.red_vehicle.cells(), board.walls


def error_of(call, *args, **kwargs) -> PuzzleError:
    """The PuzzleError a call raises."""
    with pytest.raises(PuzzleError) as info:
        call(*args, **kwargs)
    return info.value


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


# --- bad input ---------------------------------------------------------------------------------


CSV_ERRORS = [
    ("car,orient,col,row,length\nX,H,1,3,2\n", 1, "bad header"),
    (HEADER + "A,H,1,1\n", 2, "expected 5 fields"),
    (HEADER + "A,H,1,1,2,3\n", 2, "expected 5 fields"),
    (HEADER + "A,H,one,1,2\n", 2, "col must be an integer, got 'one'"),
    (HEADER + "A,H,1,1.5,2\n", 2, "row must be an integer"),
    (HEADER + "A,H,1,1,\n", 2, "length must be an integer"),
    (HEADER + "A,D,1,1,2\n", 2, "unknown orientation 'D'"),
    (HEADER + "A,H,1,1,1\n", 2, "length 1 (minimum 2)"),
    (HEADER + "A-1,H,1,1,2\n", 2, "must be letters and digits"),
    (HEADER + "X,H,1,3,2\nA,H,5,1,3\n", 3, "goes off the 6x6 board"),
    (HEADER + "A,V,1,0,2\n", 2, "goes off the 6x6 board"),
    (HEADER + "A,V,6,5,1000000000\n", 2, "goes off the 6x6 board"),
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
    assert "unknown board format 'json'" in str(error_of(format_board, walled, "json"))
    vehicles = tuple(Vehicle(f"V{i}", False, 1 + (i // 9) * 3, i % 9, 2) for i in range(26))
    crowded = RushHourBoard(9, vehicles + (Vehicle("X", True, 0, 0, 2),), "X")
    assert format_board(crowded, "csv").count("\n") == 28
    assert "too many vehicles for a one-letter format" in str(error_of(format_board, crowded, "grid"))
    fits = replace(crowded, vehicles=crowded.vehicles[1:])
    assert parse_board(format_board(fits, "fogleman")).size == 9
