"""An N-puzzle board drawn as SVG: a numbered tile per cell, the blank left empty; and the frames of a solution
(where the blank goes: `U`, `D`, `L`, `R`) played on it; and the board in text."""

from puzzles.npuzzle.board import NPuzzleBoard, apply_moves
from puzzles.npuzzle.formats import format_npuzzle
from puzzles.picture import CELL, MARGIN, Card, Frames, Picture, cell, svg_document

TILE = "#f2d49b"


def picture(board: NPuzzleBoard) -> Picture:
    """An N-puzzle board: a numbered tile per cell, the blank empty."""
    width, height = board.width * CELL, board.height * CELL
    parts = [f'<rect class="grid" x="{MARGIN}" y="{MARGIN}" width="{width}" height="{height}" fill="#555" rx="4"/>']
    places = []
    for tile in range(1, board.width * board.height):
        row, col = divmod(board.tiles.index(tile), board.width)
        parts.append(f'<g class="piece tile" data-tile="{tile}" transform="translate({cell(col)},{cell(row)})">'
                     f'<rect x="2" y="2" width="{CELL - 4}" height="{CELL - 4}" rx="5" fill="{TILE}" stroke="#333"/>'
                     f'<text x="{CELL / 2}" y="{CELL / 2}" dy="0.35em" text-anchor="middle" font-size="16" '
                     f'font-weight="bold" fill="#222">{tile}</text></g>')
        places.append((cell(col), cell(row)))
    return Picture(svg_document(width + 2 * MARGIN, height + 2 * MARGIN, "npuzzle", board.name, parts), places)


def frames(board: NPuzzleBoard, moves: list[str]) -> Frames:
    """The translation of every tile at the start and after each blank move (PuzzleError off the board)."""
    blank = "".join(moves)
    played = []
    for count in range(len(blank) + 1):
        tiles = apply_moves(board, blank[:count]).tiles if count else board.tiles
        played.append([(cell(tiles.index(t) % board.width), cell(tiles.index(t) // board.width))
                       for t in range(1, board.width * board.height)])
    return played


def card(board: NPuzzleBoard) -> Card:
    """The board in text: its tiles on one line and its goal, and its rows of tiles (0 the blank)."""
    details = [("tiles", format_npuzzle(board, "line")), ("goal", board.goal)]
    return Card(f"{board.width}x{board.height}", details, format_npuzzle(board, "rows").rstrip("\n"))
