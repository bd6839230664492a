"""The Rush Hour domain: move notation, move generation under both move models, key encoding.

Move generation is checked against an independent pure-Python oracle written
from the rules (a vehicle slides along its line over empty cells, walls and
vehicles stop it, the step model moves one cell at a time).
"""

import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzles.errors import PuzzleError
from puzzles.problem import RESERVED_BITS
from puzzles.rushhour.board import RushHourBoard, Vehicle
from puzzles.rushhour.formats import load_board, parse_board
from puzzles.rushhour.keys import MAX_ARRANGEMENTS, TABLE_START
from puzzles.rushhour.problem import RushHourProblem

BOARDS = Path(__file__).resolve().parents[2] / "data" / "boards" / "rushhour"
COURSE = ["6x6_1", "6x6_2", "6x6_3", "9x9_4", "9x9_5", "9x9_6", "12x12_7"]
HEADER = "car,orientation,col,row,length\n"


@cache
def course(name: str, model: str = "slide") -> RushHourProblem:
    """A course board as a problem, built once per module."""
    return RushHourProblem(load_board(str(BOARDS / f"Rushhour{name}.csv")), model)


# --- a pure-Python oracle -------------------------------------------------------------------


def occupancy(board: RushHourBoard) -> dict[tuple[int, int], str]:
    """Cell -> vehicle name or "#" for a wall; asserts no two things share a cell and all are on the board."""
    cells: dict[tuple[int, int], str] = {}
    for cell in board.walls:
        cells[cell] = "#"
    for v in board.vehicles:
        assert v.length >= 2
        for r, c in v.cells():
            assert 0 <= r < board.size and 0 <= c < board.size, f"{v.name} off the board at {(r, c)}"
            assert (r, c) not in cells, f"{v.name} overlaps {cells[(r, c)]} at {(r, c)}"
            cells[(r, c)] = v.name
    return cells


def oracle_moves(board: RushHourBoard, model: str) -> set[str]:
    """Every legal move of the board in `<name><+|-><cells>` notation, from the rules alone."""
    cells = occupancy(board)
    reach = 1 if model == "step" else board.size
    moves = set()
    for v in board.vehicles:
        dr, dc = (0, 1) if v.horizontal else (1, 0)
        # forward (right / down): the cell past the far end must be free
        far = (v.row + dr * (v.length - 1), v.col + dc * (v.length - 1))
        for d in range(1, reach + 1):
            cell = (far[0] + dr * d, far[1] + dc * d)
            if not (0 <= cell[0] < board.size and 0 <= cell[1] < board.size) or cell in cells:
                break
            moves.add(f"{v.name}+{d}")
        for d in range(1, reach + 1):
            cell = (v.row - dr * d, v.col - dc * d)
            if not (0 <= cell[0] and 0 <= cell[1]) or cell in cells:
                break
            moves.add(f"{v.name}-{d}")
    return moves


def parse_move(notation: str) -> tuple[str, int]:
    """`AB-3` -> ("AB", -3)."""
    for at, char in enumerate(notation):
        if char in "+-":
            return notation[:at], int(notation[at:])
    raise AssertionError(f"no sign in move {notation!r}")


def apply_move(board: RushHourBoard, notation: str) -> RushHourBoard:
    """The board after a move, computed in Python."""
    name, delta = parse_move(notation)
    positions = [v.position + (delta if v.name == name else 0) for v in board.vehicles]
    return board.with_positions(positions)


def successor_map(problem: RushHourProblem, key) -> dict[str, np.ndarray]:
    """Move notation -> child key; asserts no notation appears twice."""
    pairs = problem.successors(key)
    out = {problem.format_move(m): k for m, k in pairs}
    assert len(out) == len(pairs), "two successors share a move"
    return out


def check_successors(problem: RushHourProblem, key) -> dict[str, np.ndarray]:
    """Assert the successors of `key` are exactly the oracle's moves, each giving the right valid board."""
    board = problem.board_at(key)
    children = successor_map(problem, key)
    assert set(children) == oracle_moves(board, problem.move_model)
    parent_positions = problem.decode(key)
    for notation, child in children.items():
        name, delta = parse_move(notation)
        child_board = problem.board_at(child)
        occupancy(child_board)  # no overlap, on the board, off the walls
        assert child_board == apply_move(board, notation)
        changed = [i for i, (a, b) in enumerate(zip(parent_positions, problem.decode(child))) if a != b]
        assert len(changed) == 1 and problem.board.vehicles[changed[0]].name == name
        assert problem.move_steps(next(m for m, k in problem.successors(key) if np.array_equal(k, child))) == abs(delta)
    return children


# --- notation -------------------------------------------------------------------------------


def test_plus_is_right_for_horizontal_and_down_for_vertical_and_names_are_csv_labels():
    text = HEADER + "X,H,1,3,2\nB,V,5,1,2\nC,H,3,6,3\n"
    #   col 1 2 3 4 5 6
    #   r1  . . . . B .
    #   r2  . . . . B .
    #   r3  X X . . . .      (row 3 is the red row: exit on the right)
    #   r4  . . . . . .
    #   r5  . . . . . .
    #   r6  . . C C C .
    problem = RushHourProblem(parse_board(text, size=6))
    children = check_successors(problem, problem.start_key())
    assert {"X+1", "X+2", "X+3", "X+4"} <= set(children)
    assert problem.board_at(children["X+3"]).red_vehicle == Vehicle("X", True, 2, 3, 2)  # 3 cells right
    assert problem.board_at(children["B+2"]).vehicles[1] == Vehicle("B", False, 2, 4, 2)  # 2 cells down
    assert problem.board_at(children["C-2"]).vehicles[2] == Vehicle("C", True, 5, 0, 3)  # 2 cells left
    assert "B-1" not in children  # B is at the top
    assert problem.is_goal(children["X+4"]) and not problem.is_goal(children["X+3"])


def test_course_csv_boards_name_the_red_car_x_in_moves():
    problem = course("6x6_1")
    assert problem.board.red == "X"
    names = {v.name for v in problem.board.vehicles}
    # explore breadth-first until the red car can move; its moves are named X
    frontier, seen, red_moves = [problem.start_key()], set(), set()
    while frontier and not red_moves:
        key = frontier.pop(0)
        for notation, child in successor_map(problem, key).items():
            assert parse_move(notation)[0] in names
            if parse_move(notation)[0] == "X":
                red_moves.add(notation)
            if tuple(child) not in seen:
                seen.add(tuple(child))
                frontier.append(child)
    assert red_moves and all(m[0] == "X" and m[1] in "+-" for m in red_moves)


def test_twelve_by_twelve_moves_use_two_letter_names():
    problem = course("12x12_7")
    children = check_successors(problem, problem.start_key())
    names = {parse_move(m)[0] for m in children}
    assert any(len(n) == 2 for n in names), names
    assert names <= {v.name for v in problem.board.vehicles}


# --- exact successors on a hand-made board ------------------------------------------------------

HANDMADE = "oooBoo" "oooBoo" "AAooCo" "ooooCo" "DDDoox" "ooooxo"
#      col 0 1 2 3 4 5
#   r0     . . . B . .
#   r1     . . . B . .
#   r2     A A . . C .     red row: A can go 2 right before hitting C
#   r3     . . . . C .
#   r4     D D D . . #     the wall stops D after 2 cells
#   r5     . . . . # .     the wall stops C after 1 cell down


def test_handmade_board_slide_successors_exactly():
    problem = RushHourProblem(parse_board(HANDMADE), "slide")
    children = check_successors(problem, problem.start_key())
    assert set(children) == {
        "A+1", "A+2",
        "B+1", "B+2", "B+3", "B+4",
        "C-1", "C-2", "C+1",
        "D+1", "D+2",
    }  # fmt: skip
    assert problem.board_at(children["C+1"]).grid()[4][4] == "C"  # C stops right above the wall at (5, 4)
    assert problem.board_at(children["D+2"]).grid()[4][2:5] == ["D", "D", "D"]
    assert len(children) <= problem.kernels.max_branching


def test_handmade_board_step_successors_exactly():
    problem = RushHourProblem(parse_board(HANDMADE), "step")
    children = check_successors(problem, problem.start_key())
    assert set(children) == {"A+1", "B+1", "C-1", "C+1", "D+1"}
    assert all(problem.move_steps(m) == 1 for m, _ in problem.successors(problem.start_key()))


def test_walls_block_moves_both_ways():
    problem = RushHourProblem(parse_board("xBBxx" "ooDoC" "AADoC" "ooooo" "ooxoo"))
    #      col 0 1 2 3 4
    #   r0     # B B # #     B is stuck between two walls; the wall above C stops it going up
    #   r1     . . D . C
    #   r2     A A D . C     A is stuck behind D
    #   r3     . . . . .
    #   r4     . . # . .     the wall stops D after one cell down
    children = check_successors(problem, problem.start_key())
    assert set(children) == {"D+1", "C+1", "C+2"}
    step = RushHourProblem(problem.board, "step")
    assert set(successor_map(step, step.start_key())) == {"D+1", "C+1"}


def test_unknown_move_model_and_heuristic_are_errors():
    board = parse_board(HANDMADE)
    with pytest.raises(PuzzleError):
        RushHourProblem(board, "hop")
    with pytest.raises(PuzzleError):
        RushHourProblem(board).heuristic("manhattan")


@pytest.mark.parametrize("name", ["6x6_1", "6x6_2", "6x6_3", "9x9_4", "12x12_7"])
@pytest.mark.parametrize("model", ["slide", "step"])
def test_course_boards_successors_match_the_oracle_along_a_breadth_first_sample(name, model):
    problem = course(name, model)
    frontier = [problem.start_key()]
    seen = {tuple(frontier[0])}
    checked = 0
    while frontier and checked < 150:
        key = frontier.pop(0)
        children = check_successors(problem, key)
        checked += 1
        for child in children.values():
            if tuple(child) not in seen:
                seen.add(tuple(child))
                frontier.append(child)
    assert checked == min(150, len(seen))


# --- encode / decode ------------------------------------------------------------------------


def field_values(layout) -> list[tuple[list[int], int]]:
    """Each field's vehicles (its groups' in turn) and how many values it takes (the product of their counts)."""
    return [([i for g in field for i in layout.groups[g]], math.prod(layout.counts[g] for g in field))
            for field in layout.fields]


def random_arrangement(problem: RushHourProblem, rng: np.random.Generator) -> list[int]:
    """Positions of a random arrangement of every lane (vehicles may overlap across lanes): a random value per field."""
    layout = problem.key_layout
    big = 0
    for members, values in field_values(layout):
        big |= int(rng.integers(values)) << layout.field(members[0])[0]
    key = np.array([(big >> (64 * w)) & (2**64 - 1) for w in range(layout.key_words)], dtype=np.uint64)
    return problem.decode(key)


@pytest.mark.parametrize("name", COURSE)
def test_encode_decode_round_trip_on_course_boards(name):
    problem = course(name)
    board = problem.board
    positions = [v.position for v in board.vehicles]
    key = problem.start_key()
    assert key.dtype == np.uint64 and key.shape == (problem.kernels.key_words,)
    assert problem.decode(key) == positions
    assert problem.board_at(key) == board
    assert np.array_equal(problem.encode(problem.decode(key)), key)
    # any arrangement of every lane survives the round trip, each vehicle on the board
    rng = np.random.default_rng(7)
    for _ in range(200):
        arrangement = random_arrangement(problem, rng)
        assert problem.decode(problem.encode(arrangement)) == arrangement
        for i, v in enumerate(board.vehicles):
            assert 0 <= arrangement[i] <= board.size - v.length
    for child in (k for _, k in problem.successors(key)):
        assert np.array_equal(problem.encode(problem.decode(child)), child)


@pytest.mark.parametrize("name", COURSE)
def test_each_lane_rank_numbers_its_arrangements_without_gaps(name):
    check_ranks(course(name))


def check_ranks(problem: RushHourProblem) -> None:
    """Each field's values number its groups' arrangements 0..count-1, one each, in a field with no bit to spare."""
    layout = problem.key_layout
    lengths = [v.length for v in problem.board.vehicles]
    assert sorted(i for members in layout.groups for i in members) == list(range(len(lengths)))
    assert sorted(g for field in layout.fields for g in field) == list(range(len(layout.groups)))
    for field, (members, values) in zip(layout.fields, field_values(layout)):
        assert values <= layout.field(members[0])[1] + 1 <= 2 * values  # the field has no bit to spare
        assert all(layout.field(i) == layout.field(members[0]) for i in members)
        arrangements = [[int(layout.table[layout.place[i, TABLE_START] + value]) for i in members]
                        for value in range(values)]
        assert len(set(map(tuple, arrangements))) == values  # every value a different arrangement
        for value, at in enumerate(arrangements):
            assert sum(int(layout.weight[i, p]) for i, p in zip(members, at)) == value
            position = dict(zip(members, at))
            for g in field:
                lane = layout.groups[g]
                assert all(position[a] + lengths[a] <= position[b] for a, b in zip(lane, lane[1:]))  # apart, in order


def test_encode_rejects_vehicles_of_one_lane_that_overlap_or_swap():
    problem = course("6x6_1")
    first, second = next(members for members in problem.key_layout.groups if len(members) >= 2)[:2]
    positions = [v.position for v in problem.board.vehicles]
    positions[first], positions[second] = positions[second], positions[first]
    with pytest.raises(PuzzleError, match="overlap or have swapped"):
        problem.encode(positions)


def test_key_words_grow_with_the_board():
    # a lane's vehicles ranked together: 12x12_7's 44 vehicles take 107 bits (a field each took 176: three words);
    # groups sharing fields: 9x9_5 and 9x9_6 in 58 and 61 bits (63 with a field per group: two words)
    assert [course(name).kernels.key_words for name in COURSE] == [1, 1, 1, 1, 1, 1, 2]


def test_groups_share_a_field_only_where_it_saves_a_bit():
    layout = course("9x9_6").key_layout
    assert len(layout.fields) < len(layout.groups)
    bits = [(layout.field(members[0])[1]).bit_length() for members, _ in field_values(layout)]
    separate = [max((count - 1).bit_length(), 1) for count in layout.counts]
    assert sum(bits) == 61 < sum(separate) == 63
    for field, (_, values) in zip(layout.fields, field_values(layout)):
        assert values <= MAX_ARRANGEMENTS
        if len(field) > 1:  # a shared field saves a bit on its groups' own fields
            assert max(values - 1, 1).bit_length() < sum(max(layout.counts[g] - 1, 1).bit_length() for g in field)


@pytest.mark.parametrize("size", [5, 6, 8])
def test_length_four_truck_round_trips_and_moves(size):
    # a horizontal truck of length 4 on the bottom row, a vertical one of length 4 on the right
    rows = [["o"] * size for _ in range(size)]
    rows[1][0] = rows[1][1] = "A"
    for c in range(4):
        rows[size - 1][c] = "T"
    for r in range(4):
        rows[r][size - 1] = "V"
    problem = RushHourProblem(parse_board("".join("".join(r) for r in rows)))
    lengths = {v.name: v.length for v in problem.board.vehicles}
    assert lengths == {"A": 2, "T": 4, "V": 4}
    key = problem.start_key()
    assert problem.board_at(key) == problem.board
    children = check_successors(problem, key)
    assert {m for m in children if m.startswith("T")} == {f"T+{d}" for d in range(1, size - 3)}
    names = [v.name for v in problem.board.vehicles]
    for placed in ({"A": 0, "T": 0, "V": 0}, {"A": size - 2, "T": size - 4, "V": size - 4}, {"A": 1, "T": 1, "V": 0}):
        positions = [placed[name] for name in names]
        assert problem.decode(problem.encode(positions)) == positions


# --- random boards --------------------------------------------------------------------------


@st.composite
def random_boards(draw, walls: bool = True) -> RushHourBoard:
    """A board of 4x4..7x7 with the red car and vehicles of length 2-4 placed at random, maybe walls."""
    size = draw(st.integers(4, 7))
    cells = [["o"] * size for _ in range(size)]
    red_row = draw(st.integers(0, size - 1))
    red_col = draw(st.integers(0, size - 2))
    cells[red_row][red_col] = cells[red_row][red_col + 1] = "A"
    letters = iter("BCDEFGHIJKLMNOPQRSTUVWYZ")
    attempts = draw(
        st.lists(
            st.tuples(st.booleans(), st.integers(0, size - 1), st.integers(0, size - 1), st.sampled_from([2, 2, 3, 4])),
            max_size=12,
        )
    )
    for horizontal, r, c, length in attempts:
        span = [(r, c + i) for i in range(length)] if horizontal else [(r + i, c) for i in range(length)]
        if all(rr < size and cc < size and cells[rr][cc] == "o" for rr, cc in span):
            letter = next(letters)
            for rr, cc in span:
                cells[rr][cc] = letter
    if walls:
        for r, c in draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)), max_size=3)):
            if cells[r][c] == "o":
                cells[r][c] = "x"
    return parse_board("".join("".join(row) for row in cells))


def random_walk_keys(problem: RushHourProblem, rng: np.random.Generator, steps: int) -> list[np.ndarray]:
    keys = [problem.start_key()]
    for _ in range(steps):
        children = problem.successors(keys[-1])
        if not children:
            break
        keys.append(children[int(rng.integers(len(children)))][1])
    return keys


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_boards(), st.integers(0, 2**32 - 1))
def test_random_boards_successors_are_single_undoable_moves(board, seed):
    slide = RushHourProblem(board, "slide")
    step = RushHourProblem(board, "step")
    for key in random_walk_keys(slide, np.random.default_rng(seed), 6):
        assert np.array_equal(step.encode(slide.decode(key)), key)  # both models share the key layout
        slide_children = check_successors(slide, key)
        step_children = check_successors(step, key)
        # the step model's successors are the slide model's one-cell moves
        assert set(step_children) <= set(slide_children)
        assert set(step_children) == {m for m in slide_children if abs(parse_move(m)[1]) == 1}
        for notation, child in step_children.items():
            assert np.array_equal(child, slide_children[notation])
        for model, children in ((slide, slide_children), (step, step_children)):
            for notation, child in children.items():
                name, delta = parse_move(notation)
                back = successor_map(model, child)
                undo = f"{name}{'+' if delta < 0 else '-'}{abs(delta)}"
                assert undo in back and np.array_equal(back[undo], key)
                assert model.is_goal(child) == model.board_at(child).is_solved()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_boards())
def test_random_boards_lanes_are_ranked_without_gaps(board):
    check_ranks(RushHourProblem(board))


@pytest.mark.parametrize("name", COURSE)
def test_keys_leave_the_reserved_bits_zero(name):
    # the set of keys marks its slots, with a state's depth modulo 3, in the top RESERVED_BITS of a key's last word
    problem = course(name)
    reserved = ~np.uint64(0) << np.uint64(64 - RESERVED_BITS)
    keys = [problem.start_key()] + [key for _, key in problem.successors(problem.start_key())]
    layout = problem.key_layout
    every_field_full = sum(layout.field(members[0])[1] << layout.field(members[0])[0]
                           for members, _ in field_values(layout))
    assert every_field_full < 1 << (64 * layout.key_words - RESERVED_BITS)
    for key in keys:
        assert key[-1] & reserved == 0


def test_a_long_lane_of_a_big_board_is_ranked_in_several_groups():
    # eight cars on one row of 30 cells have C(22, 8) = 319,770 arrangements: more than one group's table holds
    cars = tuple(Vehicle(chr(ord("A") + j), True, 5, 3 * j, 2) for j in range(8))
    board = RushHourBoard(size=30, vehicles=(Vehicle("X", True, 0, 0, 2),) + cars, red="X")
    problem = RushHourProblem(board)
    row = [members for members in problem.key_layout.groups if set(members) & set(range(1, 9))]
    assert len(row) >= 2 and sorted(i for members in row for i in members) == list(range(1, 9))
    check_ranks(problem)
    key = problem.start_key()
    for _ in range(30):
        children = check_successors(problem, key)
        for child in children.values():
            assert np.array_equal(problem.encode(problem.decode(child)), child)
        key = children[sorted(children)[len(children) // 2]]
