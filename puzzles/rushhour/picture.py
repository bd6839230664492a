"""A Rush Hour board drawn as SVG: its grid, the walls (dark, crossed), the exit (an arrow out of the right edge of
the red car's row) and each vehicle as a rounded bar in its colour, labelled as the input labels it; the red car is
red. And the frames of a solution (`<vehicle><+|-><cells>` moves, `+` right or down) played on it.

In text, a board is a grid of the input's own vehicle labels (`x` a wall, `.` an empty cell), as the moves of a
solution name them, each vehicle on its colour in a terminal."""

import html
import re

from puzzles.errors import PuzzleError
from puzzles.picture import CELL, MARGIN, Card, Frames, Picture, TextGrid, cell, joined, plain_text, svg_document
from puzzles.rushhour.board import RushHourBoard

RED = "#d62728"
WALL = "#444"
# Colours of the other vehicles (Tableau 20 without its reds), cycled.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
           "#aec7e8", "#ffbb78", "#98df8a", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5")
# Terminal styles (rich's syntax): the red car, walls, empty cells, and the other vehicles' backgrounds, cycled.
TEXT_RED = "bold white on red"
TEXT_WALL = "on grey37"
TEXT_EMPTY = "grey50"
TEXT_PALETTE = ("green", "blue", "yellow", "magenta", "cyan", "dark_orange", "bright_green", "bright_blue",
                "bright_yellow", "bright_magenta", "bright_cyan", "purple", "spring_green3", "deep_sky_blue3", "gold3",
                "orchid", "chartreuse3", "steel_blue", "light_salmon3", "turquoise2")
DETAILS_WIDTH = 72  # the vehicles' lines in a card
MOVE = re.compile(r"^(.+?)([+-])(\d+)$")


def picture(board: RushHourBoard) -> Picture:
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
        parts.append(f'<g class="piece vehicle" data-vehicle="{label}" transform="translate({cell(vehicle.col)},'
                     f'{cell(vehicle.row)})"><rect x="3" y="3" width="{width * CELL - 6}" height="{height * CELL - 6}" '
                     f'rx="7" fill="{colour}" stroke="#222" stroke-width="1.5"/><text x="{width * CELL / 2}" '
                     f'y="{height * CELL / 2}" dy="0.35em" text-anchor="middle" font-size="15" font-weight="bold" '
                     f'fill="{_ink(colour)}">{label}</text></g>')
        places.append((cell(vehicle.col), cell(vehicle.row)))
    return Picture(svg_document(side + 2 * MARGIN, side + 2 * MARGIN, "rushhour", board.name, parts), places)


def frames(board: RushHourBoard, moves: list[str]) -> Frames:
    """The translation of every vehicle at the start and after each move; PuzzleError for a move naming no vehicle."""
    index = {vehicle.name: i for i, vehicle in enumerate(board.vehicles)}
    cells = [[vehicle.col, vehicle.row] for vehicle in board.vehicles]
    played = [[(cell(col), cell(row)) for col, row in cells]]
    for number, move in enumerate(moves, 1):
        found = MOVE.match(move)
        if not found or found.group(1) not in index:
            raise PuzzleError(f"move {number} ({move!r}) names no vehicle of the board")
        vehicle = board.vehicles[index[found.group(1)]]
        delta = int(found.group(3)) * (1 if found.group(2) == "+" else -1)
        cells[index[vehicle.name]][0 if vehicle.horizontal else 1] += delta
        played.append([(cell(col), cell(row)) for col, row in cells])
    return played


def text_grid(board: RushHourBoard) -> TextGrid:
    """The board as cells of text, each the vehicle's label (padded to the longest), `x` for a wall or `.`, and its style.

    For one-letter labels with the red car `A` (a Fogleman string or grid) its
    plain text is exactly `format_board(board, "grid")`.
    """
    styles = {"#": TEXT_WALL, board.red: TEXT_RED}
    others = [v.name for v in board.vehicles if v.name != board.red]
    styles |= {name: f"bold black on {TEXT_PALETTE[i % len(TEXT_PALETTE)]}" for i, name in enumerate(others)}
    width = max(len(v.name) for v in board.vehicles)
    return [[(("." if cell is None else "x" if cell == "#" else cell).ljust(width), TEXT_EMPTY if cell is None else styles[cell])
             for cell in row] for row in board.grid()]


def card(board: RushHourBoard) -> Card:
    """The board in text: the vehicles as in the course CSV (label, H/V, 1-based column and row, length), the walls, the grid."""
    vehicles = [f"{v.name} {'H' if v.horizontal else 'V'} {v.col + 1},{v.row + 1} {v.length}" for v in board.vehicles]
    details = [("vehicles", f"{len(board.vehicles)}, red car {board.red}"), ("", joined(vehicles, DETAILS_WIDTH))]
    if board.walls:
        details.append(("walls", " ".join(f"{col + 1},{row + 1}" for row, col in sorted(board.walls))))
    return Card(f"{board.size}x{board.size}", details, plain_text(text_grid(board)))


def _ink(colour: str) -> str:
    """Black or white, whichever reads better on `colour` (#rrggbb)."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#111" if 0.299 * red + 0.587 * green + 0.114 * blue > 150 else "#fff"
