"""Board pictures (`orchestrator.boards.pictures`), `boards show --svg` and `job --svg`: parsed as XML and shown in Chromium."""

import re
import xml.etree.ElementTree as ElementTree

import pytest

from orchestrator.boards import pictures
from puzzles.errors import PuzzleError
from puzzles.npuzzle import picture as npuzzle_picture
from puzzles.npuzzle.formats import canonical_text as npuzzle_text
from puzzles.npuzzle.formats import parse_npuzzle
from puzzles.picture import CELL, MARGIN
from puzzles.rushhour import picture as rushhour_picture
from puzzles.rushhour.formats import canonical_text, load_board, parse_board
from tests.browser import browser_page
from tests.orchestrator.clirun import assert_usage_error, ok, orchestrate
from tests.orchestrator.handmade import SOLUTIONS, beam_sweep
from workers.store.migrate import upgrade

SVG = "{http://www.w3.org/2000/svg}"
# Fogleman's notation: A the red car, x a wall, o empty.
WALLED = "BBooox" "oooooo" "AAoCoo" "oooCoo" "xooDDo" "oooooo"


def pieces(svg: str, kind: str) -> list[ElementTree.Element]:
    root = ElementTree.fromstring(pictures.standalone(svg))
    return [g for g in root.iter(f"{SVG}g") if kind in g.get("class", "").split()]


def test_a_rushhour_picture_has_every_vehicle_labelled_the_red_car_red_and_the_exit(boards_dir):
    board = load_board(str(boards_dir / "Rushhour6x6_1.csv"))
    picture = rushhour_picture.picture(board)
    vehicles = pieces(picture.svg, "vehicle")

    assert [g.get("data-vehicle") for g in vehicles] == [v.name for v in board.vehicles]
    assert [g.find(f"{SVG}text").text for g in vehicles] == [v.name for v in board.vehicles]
    red = next(g for g in vehicles if g.get("data-vehicle") == board.red)
    assert red.find(f"{SVG}rect").get("fill") == rushhour_picture.RED
    assert len({g.find(f"{SVG}rect").get("fill") for g in vehicles}) == len(board.vehicles)  # all told apart
    exit_arrow = pieces(picture.svg, "exit")[0].findall(f"{SVG}path")[1].get("d")
    assert exit_arrow.startswith(f"M{MARGIN + 6 * CELL + 4} ")  # right of the grid
    assert len(picture.places) == len(board.vehicles)


def test_walls_are_drawn():
    board = parse_board(WALLED, fmt="fogleman")
    assert len(pieces(rushhour_picture.picture(board).svg, "wall")) == len(board.walls) == 2


def test_an_npuzzle_picture_has_a_tile_per_number_and_no_blank():
    board = parse_npuzzle("1 2 3\n4 0 6\n7 5 8")
    tiles = pieces(npuzzle_picture.picture(board).svg, "tile")
    assert sorted(int(g.get("data-tile")) for g in tiles) == list(range(1, 9))


def test_frames_play_a_solution_to_the_goal(boards_dir):
    board = load_board(str(boards_dir / "Rushhour6x6_1.csv"))
    frames = pictures.solution_frames("rushhour", canonical_text(board), SOLUTIONS["Rushhour6x6_1"])
    red = [v.name for v in board.vehicles].index(board.red)

    assert len(frames) == 22
    assert frames[-1][red] == (MARGIN + 4 * CELL, MARGIN + board.red_vehicle.row * CELL)
    eight = npuzzle_text(parse_npuzzle("1 2 3\n4 0 6\n7 5 8"))
    solved = pictures.solution_frames("npuzzle", eight, "D R")[-1]
    assert solved == [(MARGIN + (t - 1) % 3 * 40, MARGIN + (t - 1) // 3 * 40) for t in range(1, 9)]
    with pytest.raises(PuzzleError, match="names no vehicle"):
        pictures.solution_frames("rushhour", canonical_text(board), "C-1 Q+2")


def test_an_animated_picture_moves_every_piece_through_every_frame(boards_dir):
    board = load_board(str(boards_dir / "Rushhour6x6_2.csv"))
    svg = pictures.animated_svg("rushhour", canonical_text(board), SOLUTIONS["Rushhour6x6_2"])
    animations = re.findall(r'<animateTransform [^>]*values="([^"]*)"', svg)

    assert len(animations) == len(board.vehicles)
    assert all(len(values.split(";")) == 15 + 1 + 2 for values in animations)  # start, 15 moves, a pause each end
    still = rushhour_picture.picture(parse_board(canonical_text(board), fmt="json")).svg
    assert pictures.animated_svg("rushhour", canonical_text(board), None) == still  # no solution: a still picture


@pytest.fixture
def results(tmp_path, boards_dir) -> str:
    url = f"sqlite:///{tmp_path / 'svg.db'}"
    upgrade(url)
    beam_sweep(url, boards_dir)
    return url


def test_boards_show_and_job_write_svg_files(tmp_path, results):
    board = tmp_path / "board.svg"
    shown = ok(orchestrate("boards", "show", "Rushhour6x6_2", "--svg", board, "--db", results))
    assert f"wrote {board}" in shown.stderr and "Rushhour6x6_2" in shown.stdout
    assert len(pieces(board.read_text(), "vehicle")) == 13

    job = tmp_path / "job.svg"
    ok(orchestrate("job", 1, "--svg", job, "--db", results))  # A* on Rushhour6x6_1: solved, with its solution
    assert job.read_text().count("<animateTransform") == 13
    assert_usage_error(orchestrate("job", 1, "--svg", tmp_path / "no" / "job.svg", "--db", results), "cannot write")


def test_chromium_shows_the_pictures(tmp_path, results):
    eight = tmp_path / "eight.svg"
    ok(orchestrate("boards", "show", "123406758", "--svg", eight, "--db", results))
    job = tmp_path / "job.svg"
    ok(orchestrate("job", 1, "--svg", job, "--db", results))
    with browser_page(400, 400) as (page, errors):
        page.goto(eight.resolve().as_uri())
        tiles = page.eval_on_selector_all(".tile", "tiles => tiles.map(t => t.getBoundingClientRect().width)")
        page.goto(job.resolve().as_uri())
        before = page.locator('.vehicle[data-vehicle="C"]').bounding_box()
        page.wait_for_timeout(1500)
        after = page.locator('.vehicle[data-vehicle="C"]').bounding_box()

    assert errors == []
    assert len(tiles) == 8 and all(width > 30 for width in tiles)
    assert after["x"] < before["x"]  # the first move, C-1, slid C left
