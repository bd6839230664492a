"""Boards as SVG pictures, and the frames of a solution played on them.

A Rush Hour picture has a cell grid, the walls (dark, crossed), the exit (an
arrow out of the right edge of the red car's row) and each vehicle as a
rounded bar in its colour, labelled as the input labels it; the red car is
red. An N-puzzle picture has a tile per number, the blank left empty. Every
movable piece is a `<g class="piece">` placed by its `transform`, so a
solution is a list of frames, each a translation per piece: the report's
player steps through them, and `animated_svg` turns them into an SVG that
plays itself (SMIL, no script).
"""

import html
import json
import re
from dataclasses import dataclass

from puzzles.errors import PuzzleError
from puzzles.npuzzle.board import NPuzzleBoard, apply_moves
from puzzles.npuzzle.formats import parse_npuzzle
from puzzles.rushhour.board import RushHourBoard
from puzzles.rushhour.formats import parse_board

CELL = 40
MARGIN = 24  # room around the grid for the exit arrow
RED = "#d62728"
WALL = "#444"
# Colours of the other vehicles (Tableau 20 without its reds), cycled.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
           "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5")
TILE = "#f2d49b"
RUSHHOUR_MOVE = re.compile(r"^(.+?)([+-])(\d+)$")
SECONDS_PER_MOVE = 0.6
SVG_NAMESPACE = "http://www.w3.org/2000/svg"


@dataclass(frozen=True)
class Picture:
    """A board's SVG and the translation (x, y) of each of its pieces, in the order of the SVG's pieces."""

    svg: str
    places: list[tuple[float, float]]


def board_svg(domain: str, text: str) -> Picture:
    """The picture of a board given by its canonical text (JSON), of either domain."""
    if domain == "rushhour":
        return rushhour_svg(parse_board(text, fmt="json"))
    return npuzzle_svg(parse_npuzzle(text, fmt="json"))


def rushhour_svg(board: RushHourBoard) -> Picture:
    """A Rush Hour board: grid, walls, the exit, and each vehicle coloured and labelled."""
    n = board.size
    side = n * CELL
    red_row = board.red_vehicle.row
    parts = [f'<rect class="grid" x="{MARGIN}" y="{MARGIN}" width="{side}" height="{side}" fill="#fafafa" stroke="#333" '
             'stroke-width="2"/>']
    parts += [f'<path d="M{MARGIN + i * CELL} {MARGIN}v{side}M{MARGIN} {MARGIN + i * CELL}h{side}" stroke="#ddd"/>'
              for i in range(1, n)]
    exit_y = MARGIN + red_row * CELL
    parts.append(f'<g class="exit"><path d="M{MARGIN + side} {exit_y + 2}v{CELL - 4}" stroke="#fafafa" stroke-width="4"/>'
                 f'<path d="M{MARGIN + side + 4} {exit_y + CELL / 2 - 7}l10 7l-10 7z" fill="{RED}"/>'
                 f'<title>exit</title></g>')
    for row, col in sorted(board.walls):
        x, y = MARGIN + col * CELL, MARGIN + row * CELL
        parts.append(f'<g class="wall"><rect x="{x + 1}" y="{y + 1}" width="{CELL - 2}" height="{CELL - 2}" fill="{WALL}"/>'
                     f'<path d="M{x + 6} {y + 6}L{x + CELL - 6} {y + CELL - 6}M{x + CELL - 6} {y + 6}L{x + 6} {y + CELL - 6}" '
                     'stroke="#999" stroke-width="2"/><title>wall</title></g>')
    places, others = [], 0
    for vehicle in board.vehicles:
        colour = RED if vehicle.name == board.red else PALETTE[others % len(PALETTE)]
        others += vehicle.name != board.red
        width, height = (vehicle.length, 1) if vehicle.horizontal else (1, vehicle.length)
        label = html.escape(vehicle.name)
        parts.append(f'<g class="piece vehicle" data-vehicle="{label}" transform="translate({_cell(vehicle.col)},'
                     f'{_cell(vehicle.row)})"><rect x="3" y="3" width="{width * CELL - 6}" height="{height * CELL - 6}" '
                     f'rx="7" fill="{colour}" stroke="#222" stroke-width="1.5"/><text x="{width * CELL / 2}" '
                     f'y="{height * CELL / 2}" dy="0.35em" text-anchor="middle" font-size="15" font-weight="bold" '
                     f'fill="{_ink(colour)}">{label}</text></g>')
        places.append((_cell(vehicle.col), _cell(vehicle.row)))
    return Picture(_svg(side + 2 * MARGIN, side + 2 * MARGIN, "rushhour", board.name, parts), places)


def npuzzle_svg(board: NPuzzleBoard) -> Picture:
    """An N-puzzle board: a numbered tile per cell, the blank empty."""
    width, height = board.width * CELL, board.height * CELL
    parts = [f'<rect class="grid" x="{MARGIN}" y="{MARGIN}" width="{width}" height="{height}" fill="#555" rx="4"/>']
    places = []
    for tile in range(1, board.width * board.height):
        row, col = divmod(board.tiles.index(tile), board.width)
        parts.append(f'<g class="piece tile" data-tile="{tile}" transform="translate({_cell(col)},{_cell(row)})">'
                     f'<rect x="2" y="2" width="{CELL - 4}" height="{CELL - 4}" rx="5" fill="{TILE}" stroke="#333"/>'
                     f'<text x="{CELL / 2}" y="{CELL / 2}" dy="0.35em" text-anchor="middle" font-size="16" '
                     f'font-weight="bold" fill="#222">{tile}</text></g>')
        places.append((_cell(col), _cell(row)))
    return Picture(_svg(width + 2 * MARGIN, height + 2 * MARGIN, "npuzzle", board.name, parts), places)


def solution_frames(domain: str, text: str, solution: str | None) -> list[list[tuple[float, float]]]:
    """The translation of every piece at the start and after each move of `solution` (space-separated moves).

    Rush Hour moves are `<vehicle><+|-><cells>` (`+` right or down), N-puzzle
    moves where the blank goes (`U`, `D`, `L`, `R`). PuzzleError for a move
    that names no vehicle or leaves the board.
    """
    moves = (solution or "").split()
    if domain == "rushhour":
        return _rushhour_frames(parse_board(text, fmt="json"), moves)
    return _npuzzle_frames(parse_npuzzle(text, fmt="json"), "".join(moves))


def animated_svg(domain: str, text: str, solution: str | None) -> str:
    """The board's SVG whose pieces play the solution, a move each SECONDS_PER_MOVE, over and over (SMIL)."""
    picture = board_svg(domain, text)
    frames = solution_frames(domain, text, solution)
    if len(frames) < 2:
        return picture.svg
    held = [frames[0], *frames, frames[-1]]  # a pause at the start and at the end
    duration = SECONDS_PER_MOVE * (len(held) - 1)
    pieces = iter(range(len(picture.places)))

    def animate(match: re.Match) -> str:
        index = next(pieces)
        values = ";".join(f"{frame[index][0]:g},{frame[index][1]:g}" for frame in held)
        return (f'{match.group(0)}<animateTransform attributeName="transform" type="translate" values="{values}" '
                f'dur="{duration:g}s" repeatCount="indefinite"/>')

    return re.sub(r'<g class="piece[^"]*"[^>]*>', animate, picture.svg)


def frames_json(frames: list[list[tuple[float, float]]]) -> str:
    """Frames as compact JSON for the player: a list per frame of [x, y] per piece."""
    return json.dumps([[[round(x, 1), round(y, 1)] for x, y in frame] for frame in frames], separators=(",", ":"))


def _rushhour_frames(board: RushHourBoard, moves: list[str]) -> list[list[tuple[float, float]]]:
    index = {vehicle.name: i for i, vehicle in enumerate(board.vehicles)}
    cells = [[vehicle.col, vehicle.row] for vehicle in board.vehicles]
    frames = [[(_cell(col), _cell(row)) for col, row in cells]]
    for number, move in enumerate(moves, 1):
        found = RUSHHOUR_MOVE.match(move)
        if not found or found.group(1) not in index:
            raise PuzzleError(f"move {number} ({move!r}) names no vehicle of the board")
        vehicle = board.vehicles[index[found.group(1)]]
        delta = int(found.group(3)) * (1 if found.group(2) == "+" else -1)
        cells[index[vehicle.name]][0 if vehicle.horizontal else 1] += delta
        frames.append([(_cell(col), _cell(row)) for col, row in cells])
    return frames


def _npuzzle_frames(board: NPuzzleBoard, moves: str) -> list[list[tuple[float, float]]]:
    frames = []
    for count in range(len(moves) + 1):
        tiles = apply_moves(board, moves[:count]).tiles if count else board.tiles
        frames.append([(_cell(tiles.index(t) % board.width), _cell(tiles.index(t) // board.width))
                       for t in range(1, board.width * board.height)])
    return frames


def _ink(colour: str) -> str:
    """Black or white, whichever reads better on `colour` (#rrggbb)."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#111" if 0.299 * red + 0.587 * green + 0.114 * blue > 150 else "#fff"


def _cell(index: int) -> float:
    return MARGIN + index * CELL


def standalone(svg: str) -> str:
    """An inline SVG as a file of its own: with its XML namespace (an SVG that has it stays as it is)."""
    if svg.startswith("<svg xmlns="):
        return svg
    return svg.replace("<svg ", f'<svg xmlns="{SVG_NAMESPACE}" ', 1) + "\n"


def _svg(width: float, height: float, domain: str, name: str, parts: list[str]) -> str:
    title = f"<title>{html.escape(name)}</title>" if name else ""
    return (f'<svg class="board {domain}" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" font-family="system-ui, sans-serif">{title}' + "".join(parts) + "</svg>")
