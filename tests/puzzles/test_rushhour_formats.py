"""Reading and writing Rush Hour boards: course CSV, Fogleman strings, ASCII grids, canonical JSON."""

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.errors import PuzzleError
from puzzles.rushhour.board import RushHourBoard, Vehicle
from puzzles.rushhour.formats import canonical_text, detect_format, format_board, load_board, parse_board
from puzzles.textio import text_id


def board_id(board) -> str:
    """The id the results database gives a board."""
    return text_id(canonical_text(board))


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


# --- bad input ---------------------------------------------------------------------------------


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


# --- JSON, the canonical text and the board id -------------------------------------------------


TWO_CARS = '{"red":"X","size":6,"vehicles":[["A","V",1,1,2],["X","H",2,3,2]],"walls":[]}'


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
