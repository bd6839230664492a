"""Pattern databases: exact against the whole 2x3 and 3x3 spaces, admissible when additive, parsed, saved and verified.

Ground truth is `npuzzle_analysis.distances` (a pure-Python BFS from the goal).
Databases are looked up here by a vectorized placement rank written from the
module's description (tile i's digit is the index of its cell among the cells
tiles 0..i-1 left free), independently of the compiled `pdb.rank`.
"""

import itertools
import math
import mmap
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.errors import PuzzleError
from puzzles.jit import nb
from puzzles.kernels import estimates
from puzzles.npuzzle import pdb, pdb_folder
from puzzles.npuzzle.analysis import distances
from puzzles.npuzzle.board import GOALS, NPuzzleBoard, goal_tiles
from puzzles.npuzzle.problem import NPuzzleProblem
from puzzles.solver import solve

# --- ground truth and an independent lookup --------------------------------------------------


@cache
def space(width: int, height: int, goal: str) -> tuple[np.ndarray, np.ndarray]:
    """Every solvable board as the cell of each tile (rows: boards, columns: tiles 0..n-1), and its distance."""
    found = distances(width, height, goal)
    boards = np.array(list(found), dtype=np.int64)
    return np.argsort(boards, axis=1), np.array(list(found.values()), dtype=np.int64)


def ranks(cells_of: np.ndarray, cells: int) -> np.ndarray:
    """The rank of each row's placement (column i: the cell of the group's i-th tile), by the documented mixed radix."""
    k = cells_of.shape[1]
    total = np.zeros(cells_of.shape[0], dtype=np.int64)
    for i in range(k):
        below = (cells_of[:, :i] < cells_of[:, i : i + 1]).sum(axis=1)
        total += (cells_of[:, i] - below) * math.perm(cells - 1 - i, k - 1 - i)
    return total


def pattern_sum(positions: np.ndarray, cells: int, groups, values: list[np.ndarray]) -> np.ndarray:
    """The additive heuristic: each group's entry for the placement of its tiles, summed."""
    return sum(values[g][ranks(positions[:, list(group)], cells)].astype(np.int64) for g, group in enumerate(groups))


def manhattan(positions: np.ndarray, width: int, height: int, goal: str) -> np.ndarray:
    home = np.argsort(np.array(goal_tiles(width, height, goal)))
    rows, cols = np.divmod(positions[:, 1:], width)
    goal_rows, goal_cols = np.divmod(home[1:], width)
    return (np.abs(rows - goal_rows) + np.abs(cols - goal_cols)).sum(axis=1)


def mirrored(positions: np.ndarray, width: int, goal: str) -> np.ndarray:
    """The boards mirrored about the main diagonal, tiles renamed so the goal maps to itself."""
    target = goal_tiles(width, width, goal)
    home = np.argsort(np.array(target))
    flip = np.array([(cell % width) * width + cell // width for cell in range(width * width)])
    out = np.empty_like(positions)
    for tile in range(width * width):
        out[:, target[flip[home[tile]]]] = flip[positions[:, tile]]
    return out


def kernel_values(width: int, height: int, goal: str, name: str, partition: str, positions: np.ndarray) -> np.ndarray:
    """The compiled heuristic `name` on each board."""
    problem = NPuzzleProblem(NPuzzleBoard(width, height, goal_tiles(width, height, goal)), goal)
    heuristic = problem.heuristic(name, pdb=partition)
    keys = np.array([problem.encode(tuple(b)) for b in np.argsort(positions, axis=1)])
    return estimates(heuristic.spec, heuristic.code, heuristic.args, keys)


@pytest.fixture
def own_directory(tmp_path, pattern_database_dir):
    """Database files in a directory of this test's own; the session's directory restored after."""
    pdb_folder.use_directory(tmp_path / "pdb")
    yield tmp_path / "pdb"
    pdb_folder.use_directory(pattern_database_dir)


# --- the rank -------------------------------------------------------------------------------


@pytest.mark.parametrize("cells, k", [(6, 3), (9, 4), (4, 4), (5, 1)])
def test_the_rank_numbers_placements_in_lexicographic_order(cells, k):
    placements = np.array(list(itertools.permutations(range(cells), k)), dtype=np.int64)
    assert len(placements) == pdb.entries(cells, k)
    assert np.array_equal(ranks(placements, cells), np.arange(len(placements)))
    mult = pdb.multipliers(cells, k)
    table = np.concatenate([np.arange(k), mult])
    compiled = [pdb.rank(row, 0, table, 0, k, k) for row in placements[:: max(1, len(placements) // 200)]]
    assert compiled == list(range(0, len(placements), max(1, len(placements) // 200)))


# --- exact and admissible values ---------------------------------------------------------------


@pytest.mark.parametrize("goal", GOALS)
@pytest.mark.parametrize("width, height", [(2, 3), (3, 2), (3, 3)])
def test_a_database_of_every_tile_is_the_true_distance_and_unreached_exactly_where_parity_forbids(width, height, goal):
    cells = width * height
    table = pdb.build(width, height, goal, tuple(range(1, cells)))
    positions, dist = space(width, height, goal)
    assert table.dtype == np.uint8 and len(table) == pdb.entries(cells, cells - 1) == math.factorial(cells)
    expected = np.full(len(table), pdb.UNREACHED, dtype=np.uint8)
    expected[ranks(positions[:, 1:], cells)] = dist
    assert np.array_equal(table, expected)
    assert (table == pdb.UNREACHED).sum() == math.factorial(cells) // 2


@pytest.mark.parametrize("goal", GOALS)
def test_the_additive_4_4_databases_are_admissible_and_at_least_manhattan_on_every_8_puzzle(goal):
    groups = pdb.parse_partition("4-4", 3, 3)
    assert groups == ((1, 2, 3, 4), (5, 6, 7, 8))
    values = [pdb.table(3, 3, goal, group) for group in groups]
    assert not any((v == pdb.UNREACHED).any() for v in values)  # 4 tiles and 4 free cells: every placement reachable
    positions, dist = space(3, 3, goal)
    summed = pattern_sum(positions, 9, groups, values)
    floor = manhattan(positions, 3, 3, goal)
    assert (summed <= dist).all() and (summed >= floor).all()
    assert (summed > floor).any() and (summed < dist).any()
    sample = np.arange(0, len(positions), 97)
    assert np.array_equal(kernel_values(3, 3, goal, "pdb", "4-4", positions[sample]), summed[sample])


@pytest.mark.parametrize("goal", GOALS)
def test_pdb_max_is_between_pdb_and_the_distance_on_every_8_puzzle(goal):
    groups = pdb.parse_partition("4-4", 3, 3)
    values = [pdb.table(3, 3, goal, group) for group in groups]
    positions, dist = space(3, 3, goal)
    summed = pattern_sum(positions, 9, groups, values)
    best = np.maximum(summed, pattern_sum(mirrored(positions, 3, goal), 9, groups, values))
    assert (summed <= best).all() and (best <= dist).all() and (best > summed).any()
    sample = np.arange(0, len(positions), 97)
    assert np.array_equal(kernel_values(3, 3, goal, "pdb-max", "4-4", positions[sample]), best[sample])


@st.composite
def partitions(draw) -> tuple[str, tuple[tuple[int, ...], ...]]:
    """The tiles 1..8 shuffled and cut into 2 or 3 groups, written with `/` between groups and spaces or commas."""
    tiles = draw(st.permutations(range(1, 9)))
    cuts = sorted(draw(st.lists(st.integers(1, 7), min_size=1, max_size=2, unique=True)))
    groups = tuple(tuple(tiles[a:b]) for a, b in zip([0, *cuts], [*cuts, 8]))
    separator = draw(st.sampled_from([" ", ",", ", "]))
    return "/".join(separator.join(map(str, group)) for group in groups), groups


@settings(max_examples=6, deadline=None)
@given(partitions(), st.sampled_from(GOALS))
def test_random_partitions_of_the_8_puzzle_are_admissible_and_at_least_manhattan(partition, goal):
    text, groups = partition
    assert pdb.parse_partition(text, 3, 3) == groups
    values = [pdb.table(3, 3, goal, group) for group in groups]
    positions, dist = space(3, 3, goal)
    summed = pattern_sum(positions, 9, groups, values)
    assert (summed <= dist).all() and (summed >= manhattan(positions, 3, 3, goal)).all()


@pytest.mark.parametrize(
    "width, height, goal",
    [
        (4, 4, "blank-last"),
        (4, 4, "blank-first"),
        (2, 5, "blank-last"),
        (7, 7, "blank-first"),
        (8, 8, "blank-last"),
    ],
)
def test_a_database_of_tile_1_alone_is_its_manhattan_distance(width, height, goal):
    home = goal_tiles(width, height, goal).index(1)
    table = pdb.build(width, height, goal, (1,))
    rows, cols = np.divmod(np.arange(width * height), width)
    assert table.tolist() == (abs(rows - home // width) + abs(cols - home % width)).tolist()


# --- partitions -------------------------------------------------------------------------------


def test_6_6_3_is_three_groups_of_consecutive_tiles_with_the_published_sizes():
    groups = pdb.parse_partition("6-6-3", 4, 4)
    assert groups == ((1, 2, 3, 4, 5, 6), (7, 8, 9, 10, 11, 12), (13, 14, 15))
    assert [pdb.entries(16, len(group)) for group in groups] == [5_765_760, 5_765_760, 3_360]
    assert pdb.multipliers(16, 6).tolist() == [360_360, 24_024, 1_716, 132, 11, 1]


def test_6_6_6_6_on_5x5_is_korf_and_felners_partition_an_irregular_group_and_three_2x3_blocks():
    groups = pdb.parse_partition("6-6-6-6", 5, 5)
    assert groups == ((1, 2, 5, 6, 7, 12), (3, 4, 8, 9, 13, 14), (10, 11, 15, 16, 20, 21), (17, 18, 19, 22, 23, 24))
    assert [pdb.entries(25, len(group)) for group in groups] == [127_512_000] * 4  # 25!/19!, a byte each
    assert pdb.partition_text(groups) == "6-6-6-6"


@pytest.mark.parametrize(
    "width, height, partition", [(3, 3, "6-2"), (4, 4, "6-6-3"), (5, 5, "6-6-6-6"), (4, 2, "6-1"), (3, 4, "6-5"), (2, 2, "3")]
)
def test_the_default_partition_is_groups_of_six_and_the_rest(width, height, partition):
    assert pdb.default_partition(width, height) == partition
    problem = NPuzzleProblem(NPuzzleBoard(width, height, goal_tiles(width, height)))
    assert problem.heuristic_defaults("pdb") == problem.heuristic_defaults("pdb-max") == {"pdb": partition}
    assert problem.heuristic_defaults("manhattan") == {}


@pytest.mark.parametrize(
    "text", ["1 2 5 6/3 4 7 8", "1,2,5,6/3,4,7,8", " 1, 2 5 6 / 3 4,7 8 ", "1  2 5 6/3 4 7 8"]
)
def test_explicit_groups_are_read_with_spaces_or_commas(text):
    assert pdb.parse_partition(text, 3, 3) == ((1, 2, 5, 6), (3, 4, 7, 8))


def test_a_group_of_eight_tiles_on_4x4_is_allowed_and_nothing_is_built_to_check_it(own_directory):
    assert [len(group) for group in pdb.parse_partition("8-7", 4, 4)] == [8, 7]
    problem = NPuzzleProblem(NPuzzleBoard(4, 4, goal_tiles(4, 4)))
    problem.check_heuristic("pdb", pdb="8-7")
    problem.check_heuristic("pdb-max", pdb="1 2 3 4 5 6 7 8/9 10 11 12 13 14 15")
    assert not own_directory.exists()


@pytest.mark.parametrize(
    "text, width, height, message",
    [
        ("4-3", 3, 3, "pdb '4-3': group sizes must be positive and add up to 8, the tiles of 3x3"),
        ("0-8", 3, 3, "group sizes must be positive"),
        ("6-6-4", 4, 4, "add up to 15, the tiles of 4x4"),
        ("1 2 3/4 5 6 7", 3, 3, "pdb '1 2 3/4 5 6 7': the groups must hold each tile 1..8 exactly once"),
        ("1 2 3 4/4 5 6 7 8", 3, 3, "each tile 1..8 exactly once"),
        ("1 2 3 4/5 6 7 9", 3, 3, "each tile 1..8 exactly once"),
        ("0 1 2 3 4/5 6 7 8", 3, 3, "each tile 1..8 exactly once"),
        ("a b/c", 3, 3, "write group sizes (6-6-3) or groups of tiles separated by /"),
        ("", 3, 3, "write group sizes (6-6-3)"),
        ("1 2 3 4//5 6 7 8", 3, 3, "write group sizes (6-6-3)"),
        ("4--4", 3, 3, "write group sizes (6-6-3)"),
        ("1-2 3/4 5 6 7 8", 3, 3, "write group sizes (6-6-3)"),
        ("9-6", 4, 4, "a group of 9 tiles on 4x4 needs 4,151,347,200 entries (at most 2,147,483,647)"),
        ("-".join(["1"] * 15), 4, 4, "15 groups (at most 8)"),
    ],
)
def test_a_bad_partition_is_a_puzzle_error_saying_why(text, width, height, message):
    with pytest.raises(PuzzleError) as caught:
        pdb.parse_partition(text, width, height)
    assert message in str(caught.value)


def test_a_partition_with_a_superscript_digit_is_a_puzzle_error():
    with pytest.raises(PuzzleError):
        pdb.parse_partition("² 1 3 4/5 6 7 8", 3, 3)


def test_pdb_options_are_refused_where_they_do_not_apply():
    eight = NPuzzleProblem(NPuzzleBoard(3, 3, goal_tiles(3, 3)))
    with pytest.raises(PuzzleError, match=r"--pdb '4-4' is for the pdb and pdb-max heuristics, not manhattan"):
        eight.check_heuristic("manhattan", pdb="4-4")
    with pytest.raises(PuzzleError, match=r"--pdb '4-4' is for the pdb and pdb-max heuristics, not manhattan"):
        eight.heuristic("manhattan", pdb="4-4")
    wide = NPuzzleProblem(NPuzzleBoard(4, 2, goal_tiles(4, 2)))
    with pytest.raises(PuzzleError, match="pdb-max mirrors the board about its diagonal: it needs a square board, not 4x2"):
        wide.check_heuristic("pdb-max")
    with pytest.raises(PuzzleError, match="group sizes must be positive and add up to 8"):
        eight.check_heuristic("pdb", pdb="4-3")


# --- files ------------------------------------------------------------------------------------


def test_a_database_file_round_trips_and_is_only_read_back_for_its_own_board_goal_and_tiles(tmp_path):
    tiles = (1, 2, 3)
    table = pdb.build(3, 3, "blank-last", tiles)
    path = tmp_path / "deep" / "er" / "one.pdb"
    pdb.save(path, 3, 3, "blank-last", tiles, table)
    back = pdb.read(path, 3, 3, "blank-last", tiles)
    assert back is not None and back.dtype == np.uint8 and np.array_equal(back, table)
    assert path.read_bytes().startswith(pdb.MAGIC) and path.stat().st_size == pdb.PAGE + len(table)  # payload on a page
    assert [p.name for p in path.parent.iterdir()] == ["one.pdb"]  # no partial file left behind
    assert pdb.read(path, 3, 3, "blank-first", tiles) is None
    assert pdb.read(path, 3, 3, "blank-last", (1, 2, 4)) is None
    assert pdb.read(path, 3, 3, "blank-last", (3, 2, 1)) is None
    assert pdb.read(path, 3, 3, "blank-last", (1, 2)) is None
    assert pdb.read(path, 3, 3, "blank-last", (1, 2, 3, 4)) is None


def test_the_file_of_a_group_is_named_after_board_goal_and_tiles_in_the_directory(own_directory):
    assert pdb.directory() == own_directory
    assert pdb.path_for(4, 4, "blank-first", (13, 14, 15)) == own_directory / "4x4-blank-first-13.14.15.pdb"


def flip_a_payload_byte(path: Path, other: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-100] ^= 0x01
    path.write_bytes(bytes(data))


def truncate(path: Path, other: Path) -> None:
    path.write_bytes(path.read_bytes()[:-1])


def put_another_groups_file(path: Path, other: Path) -> None:
    path.write_bytes(other.read_bytes())  # the same number of entries, other tiles


def spoil_the_magic_line(path: Path, other: Path) -> None:
    path.write_bytes(b"slidelab-pdb 1\n" + path.read_bytes()[len(pdb.MAGIC) :])  # format 1: read whole, not mapped


def append_a_byte(path: Path, other: Path) -> None:
    path.write_bytes(path.read_bytes() + b"\0")


def remove(path: Path, other: Path) -> None:
    path.unlink()


@pytest.mark.parametrize(
    "damage", [flip_a_payload_byte, truncate, put_another_groups_file, spoil_the_magic_line, append_a_byte, remove]
)
@pytest.mark.parametrize("goal", GOALS)
def test_a_damaged_file_is_detected_and_table_builds_it_again(own_directory, builds, damage, goal):
    good = pdb.table(3, 3, goal, (5, 6, 7, 8)).copy()  # copies: damage in place shows through a mapping
    other = pdb.table(3, 3, goal, (1, 2, 3, 4)).copy()
    path = pdb.path_for(3, 3, goal, (5, 6, 7, 8))
    original = path.read_bytes()
    assert builds == [(5, 6, 7, 8), (1, 2, 3, 4)]
    damage(path, pdb.path_for(3, 3, goal, (1, 2, 3, 4)))
    assert pdb.read(path, 3, 3, goal, (5, 6, 7, 8)) is None
    again = pdb.table(3, 3, goal, (5, 6, 7, 8))
    assert builds[2:] == [(5, 6, 7, 8)] and np.array_equal(again, good)
    assert path.read_bytes() == original
    assert np.array_equal(pdb.read(path, 3, 3, goal, (5, 6, 7, 8)), good)
    assert np.array_equal(pdb.table(3, 3, goal, (1, 2, 3, 4)), other) and len(builds) == 3  # read, not built


def test_table_reads_a_verified_file_and_rebuild_builds_it_anyway(own_directory, builds):
    first = pdb.table(2, 3, "blank-first", (1, 2, 3))
    path = pdb.path_for(2, 3, "blank-first", (1, 2, 3))
    inode = path.stat().st_ino
    assert np.array_equal(pdb.table(2, 3, "blank-first", (1, 2, 3)), first) and len(builds) == 1
    assert path.stat().st_ino == inode  # read in place, not written again
    rebuilt = pdb.table(2, 3, "blank-first", (1, 2, 3), rebuild=True)
    assert len(builds) == 2 and np.array_equal(rebuilt, first)
    assert path.stat().st_ino != inode and np.array_equal(pdb.read(path, 2, 3, "blank-first", (1, 2, 3)), first)


def test_progress_ends_at_every_placement_whether_built_or_read(own_directory):
    seen = []
    pdb.table(3, 3, "blank-last", (1, 2, 3, 4), progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (3024, 3024) and all(total == 3024 for _, total in seen)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    seen.clear()
    pdb.table(3, 3, "blank-last", (1, 2, 3, 4), progress=lambda done, total: seen.append((done, total)))
    assert seen == [(3024, 3024)]


def test_tables_are_mapped_read_only_from_their_files_and_held_until_forgotten(own_directory, builds):
    groups = ((1, 2, 3, 4), (5, 6, 7, 8))
    pdb.forget()
    together = pdb.tables(3, 3, "blank-last", groups)
    assert len(together) == 2 and all(np.array_equal(t, pdb.table(3, 3, "blank-last", g)) for t, g in zip(together, groups))
    assert all(isinstance(t.base.obj, mmap.mmap) and not t.flags.writeable for t in together)  # shared, not copied
    assert pdb.tables(3, 3, "blank-last", groups) is together
    pdb.forget()
    assert pdb.tables(3, 3, "blank-last", groups) is not together
    assert builds == list(groups)  # built once each, then read from the files


def out_of_memory(*args, **kwargs):
    raise MemoryError


@pytest.mark.parametrize(
    "groups, partition", [(((1, 2, 3, 4), (5, 6, 7, 8)), "4-4"), (((1, 2, 5, 6), (3, 4, 7, 8)), "'1 2 5 6/3 4 7 8'")]
)
def test_memory_running_out_in_a_build_says_how_to_build_the_databases_beforehand(own_directory, monkeypatch, groups, partition):
    pdb.table(3, 3, "blank-first", groups[0])  # one read, one to build
    monkeypatch.setattr(pdb, "build", out_of_memory)
    pdb.forget()
    with pytest.raises(MemoryError) as raised:
        pdb.tables(3, 3, "blank-first", groups)
    assert str(raised.value) == ("building the pattern databases of 3x3; build them beforehand with:"
                                 f" orchestrate pdb build 3x3 --pdb {partition} --goal blank-first")  # fmt: skip
    assert pdb.parse_partition(pdb.partition_text(groups), 3, 3) == groups


def test_memory_running_out_with_every_database_built_is_left_as_it_is(own_directory, monkeypatch):
    groups = ((1, 2, 3, 4), (5, 6, 7, 8))
    pdb.forget()
    pdb.tables(3, 3, "blank-last", groups)
    pdb.forget()
    monkeypatch.setattr(pdb, "read", out_of_memory)
    with pytest.raises(MemoryError) as raised:
        pdb.tables(3, 3, "blank-last", groups)
    assert str(raised.value) == ""


UNREADABLE = {
    "empty": b"",
    "magic only": pdb.MAGIC,
    "no magic": b'{"width": 3}\n',
    "broken json": pdb.MAGIC + b'{"width": 3,\n' + bytes(3024),
    "not utf-8": pdb.MAGIC + b"\xff\xfe\xfd\n" + bytes(3024),
    "no payload": pdb.MAGIC + b'{"entries": 3024, "goal": "blank-last", "height": 3, "tiles": [1, 2, 3, 4], "width": 3}\n',
    "no sha256": pdb.MAGIC + b'{"entries": 3024, "goal": "blank-last", "height": 3, "tiles": [1, 2, 3, 4], "width": 3}\n'
    + bytes(3024),
    "sha256 a number": pdb.MAGIC
    + b'{"entries": 3024, "goal": "blank-last", "height": 3, "sha256": 5, "tiles": [1, 2, 3, 4], "width": 3}\n'
    + bytes(3024),
}
NOT_AN_OBJECT = {"a number": b"5\n", "null": b"null\n", "a list": b"[1, 2]\n", "a string": b'"x"\n'}


@pytest.mark.parametrize("content", UNREADABLE.values(), ids=UNREADABLE.keys())
def test_an_unreadable_file_reads_as_none_and_is_built_again(own_directory, content):
    path = pdb.path_for(3, 3, "blank-last", (1, 2, 3, 4))
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    assert pdb.read(path, 3, 3, "blank-last", (1, 2, 3, 4)) is None
    values = pdb.table(3, 3, "blank-last", (1, 2, 3, 4))
    assert np.array_equal(pdb.read(path, 3, 3, "blank-last", (1, 2, 3, 4)), values)


def test_a_missing_file_or_a_directory_reads_as_none(tmp_path):
    assert pdb.read(tmp_path / "none.pdb", 3, 3, "blank-last", (1, 2, 3, 4)) is None
    assert pdb.read(tmp_path, 3, 3, "blank-last", (1, 2, 3, 4)) is None


@pytest.mark.parametrize("line", NOT_AN_OBJECT.values(), ids=NOT_AN_OBJECT.keys())
def test_a_file_whose_json_line_is_not_an_object_reads_as_none(tmp_path, line):
    path = tmp_path / "odd.pdb"
    path.write_bytes(pdb.MAGIC + line + bytes(3024))
    assert pdb.read(path, 3, 3, "blank-last", (1, 2, 3, 4)) is None


def test_every_spec_has_one_numba_type_whatever_its_size_and_partition():
    """So each kernel compiles once for all of them (a tuple of databases of another length would be another type)."""
    eight, six = (NPuzzleProblem(NPuzzleBoard(w, h, goal_tiles(w, h, "blank-last"))) for w, h in ((3, 3), (2, 3)))
    specs = [eight.kernels.spec, six.kernels.spec, eight.heuristic("pdb", pdb="4-4").spec,
             eight.heuristic("pdb-max", pdb="6-2").spec, six.heuristic("pdb").spec,
             eight.heuristic("pdb", pdb="1-1-1-1-1-1-1-1").spec]
    assert len({nb.typeof(spec) for spec in specs}) == 1


@pytest.mark.parametrize("tiles", ["867254301", "647850321", "123456780"])
def test_eight_single_tile_databases_are_manhattan_and_idastar_expands_the_same_nodes(tiles):
    problem = NPuzzleProblem(NPuzzleBoard(3, 3, tuple(int(t) for t in tiles)), "blank-first")
    singles = solve(problem, "idastar", {"heuristic": "pdb", "pdb": "-".join(["1"] * 8)})
    manhattan = solve(problem, "idastar", {"heuristic": "manhattan"})
    counts = [(result.moves, result.expanded, result.generated) for result in (singles, manhattan)]
    assert counts[0] == counts[1]
